"""Route: the tool calls a question needs, planned and validated, or, when it needs none, the assistant's own answer.

A `required` profile (small models behind a constrained-decoding backend) makes one forced round: calls of one
tool, or the `answer_directly` escape. It first asks with the question alone, since a small model copies
whatever earlier calls it is shown; only when the question follows on from the last one, or the calls carry
text the question does not (a place made up for "那后天呢？"), is it asked again with the earlier calls. Calls
whose arguments nothing before them explains are set aside: the assistant's own answer decides, and they are
made only if it states measurements (the question needed data after all). An `auto` profile sees the
conversation and goes round by round: each round's calls are made by the call stage, and the next round reads
their results, until the model answers or the rounds run out.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mcp_chat_app.chat import conversation
from mcp_chat_app.chat.assistant import Assistant
from mcp_chat_app.chat.own_answer import (
    needs_tool_data,
    not_looked_up,
    own_answer,
    own_passes_so_far,
    says_a_listed_term,
)
from mcp_chat_app.chat.route_arguments import (
    as_the_question_spells,
    UnnamedArgument,
    compares,
    hours_argument,
    made_up_numbers,
    misquoted_numbers,
    names_another_day,
    only_run_on,
    place_argument,
    place_list_argument,
    says_now,
    siblings,
    stated_arguments,
    states_its_arguments,
    takes_a_day,
    takes_hours,
    unnamed_places,
    unstated_arguments,
    with_asked_day,
    with_clock_hours,
    with_asked_span,
    with_earlier_day,
    with_earlier_flags,
    without_unasked_flags,
    written_numbers,
    without_unasked_hours,
    without_unasked_span,
    without_opening,
    without_unnamed_places,
    with_qualifiers,
)
from mcp_chat_app.chat.route_prompt import (
    ASKS_FOR_A_DAY,
    ASKS_FOR_A_QUANTITY,
    ASKS_FOR_AN_HOUR,
    ASKS_FOR_DATA,
    MISQUOTED,
    NOT_IN_THE_QUESTION,
    NO_TOOL,
    NO_TOOL_SPEC,
    REFUSED,
    dump_arguments,
    openai_tools,
    router_messages,
    router_system_prompt,
    tool_results_message,
)
from mcp_chat_app.chat.text.claims import in_english_instead, states_measurements, unusable
from mcp_chat_app.chat.text.languages import in_another_script
from mcp_chat_app.chat.text.clock import clock_times, parts_of_day
from mcp_chat_app.chat.text.day_words import asked_day, day_references, names_an_earlier_day
from mcp_chat_app.chat.text.quantities import Quantity, described
from mcp_chat_app.chat.text.vocabulary import Vocabulary
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.llm.client import ChatTurn, LlmClient, ModelToolCall
from mcp_chat_app.mcp_client.arguments import decode_arguments, tidy_arguments, validation_error
from mcp_chat_app.mcp_client.results import ToolOutcome
from mcp_chat_app.mcp_client.manager import McpManager, ToolInfo, ToolRequest
from mcp_chat_app.llm.tool_call_parser import parse_tool_calls

if TYPE_CHECKING:  # the auto rounds read what the previous round's calls returned
    from mcp_chat_app.chat.call import Called


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlannedCall:
    """A model tool call after resolution and validation: either a request or an error to feed back."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    request: ToolRequest | None = None
    error: str | None = None
    made_up: tuple[str, ...] = ()  # its numbers the question does not give (route_arguments.made_up_numbers)
    unnamed: str = ""  # refused: this list argument needs places that neither the question nor the conversation
    # names; `arguments` then hold the named ones in it
    fallback: ToolRequest | None = None  # made if `request` fails: the router's call, before its places were given
    # the qualifiers the question writes beside them (_qualified)


@dataclass(frozen=True)
class Routed:
    """What routing decided: the calls to make now, or the answer (the router's, or the assistant's own)."""

    tools: tuple[ToolInfo, ...] = ()  # those offered
    calls: tuple[PlannedCall, ...] = ()
    answer: str = ""  # the router's text beside results (the writer's first draft), or the own answer
    own_answer: bool = False  # `answer` is the answer itself: no tool result is behind it
    continues: bool = False  # auto: the router reads these calls' results in another round
    conversation: tuple[dict[str, Any], ...] = ()  # auto: the router's messages before `reply`
    reply: ChatTurn | None = None  # auto: the router's reply that asked for `calls`
    rounds: int = 0
    llm_ms: float = 0.0


class Router:
    """The router model, the servers' usage notes, the writer model (for the assistant's own answer), and the
    check that the router's answer beside results passes as it streams (`draft_check`: the writer's, with the
    facts of those results; given by the pipeline, since the facts come after routing)."""

    def __init__(self, manager: McpManager, client: LlmClient, writer: LlmClient, assistant: Assistant,
                 max_rounds: int, draft_check: Callable[[Turn, Called], Callable[[str], bool]]) -> None:
        self.manager = manager
        self.client = client
        self.writer = writer
        self.assistant = assistant
        self.max_rounds = client.endpoint.max_tool_rounds or max_rounds
        self.draft_check = draft_check

    @property
    def forced(self) -> bool:
        return self.client.endpoint.tool_choice == "required" and self.client.endpoint.tool_mode == "native"

    @property
    def hybrid(self) -> bool:
        """Whether a different model writes the answer than the one that picks the tools."""
        return self.client.endpoint != self.writer.endpoint

    def messages(self, tools: list[ToolInfo], history: list[dict[str, str]], question: str, today: dt.date,
                 vocabulary: Vocabulary, earlier_calls: str = "", note: str = "") -> list[dict[str, Any]]:
        """The router's conversation: the byte-stable system prompt first, the earlier calls with the question."""
        system = router_system_prompt(self.assistant.identity, tools, self.client.endpoint.tool_mode,
                                      self.manager.instructions(), today)
        return router_messages(system, history, question, today, vocabulary, earlier_calls, note)

    def tool_specs(self, tools: list[ToolInfo]) -> list[dict[str, Any]] | None:
        """The native `tools` parameter as the first round sends it (the escape added when forced)."""
        if self.client.endpoint.tool_mode != "native" or not tools:
            return None
        specs = openai_tools(tools)
        return [*specs, NO_TOOL_SPEC] if self.forced else specs


def route(turn: Turn, router: Router, tools: list[ToolInfo], previous: Routed | None = None,
          called: Called | None = None) -> Routed:
    """The calls the question needs, or its answer; `previous` and `called`: the auto round before, and what its
    calls returned."""
    if previous is not None:
        return _next_round(turn, router, previous, called)
    if not tools:
        return _own(turn, router, Routed(), tools_connected=not turn.use_tools)
    if turn.assistant.asked_who(turn.question) or conversation.acknowledges(turn.question):
        # Who it is, or "ok, thanks": no tool answers that, and a small model called one anyway (a place named
        # "行"; the data of the conversation's place for "对了，你是谁开发的").
        return _own(turn, router, Routed(tools=tuple(tools)), tools_connected=True)
    if router.forced:
        return _forced(turn, router, tools)
    messages = router.messages(tools, turn.plain_history, turn.question, turn.today, turn.vocabulary,
                               turn.earlier_calls)
    return _round(turn, router, Routed(tools=tuple(tools), conversation=tuple(messages)), None)


def _forced(turn: Turn, router: Router, tools: list[ToolInfo]) -> Routed:
    by_name = {tool.qualified_name: tool for tool in tools}
    specs = router.tool_specs(tools) or []
    first = _forced_call(turn, router, router.messages(tools, [], turn.question, turn.today, turn.vocabulary), specs)
    llm_ms = first.duration_ms
    calls = _real_calls(first)
    planned, again_ms = _without_made_up_numbers(turn, router, tools, _made(calls, by_name, turn))
    llm_ms += again_ms
    stated = _states_its_arguments(planned, by_name, turn.question)
    if planned and not stated and not turn.earlier_calls and needs_tool_data(turn.question, tools, turn.vocabulary) \
            and _only_translated(planned, by_name, turn.question):
        stated = True  # "香港" for "Hong Kong, today?": the question's place in another script, not made up
    inherits = False  # the calls take the conversation's day where the question names none
    if planned and turn.earlier_calls and (conversation.is_follow_up(turn.question) or not stated):
        inherits = True
        again = _forced_call(turn, router, router.messages(tools, turn.plain_history, turn.question, turn.today,
                                                           turn.vocabulary, turn.earlier_calls), specs)
        llm_ms += again.duration_ms
        calls, alone = _real_calls(again), planned
        planned = _with_stated_values(_made(calls, by_name, turn), alone if stated else (), by_name, turn)
        planned = _with_earlier_days(_with_own_tool(planned, alone, by_name, turn), by_name, turn)
        planned = _with_earlier_tool(planned, by_name, turn)
    elif planned and not stated:
        restated, again_ms = _restated(turn, router, tools, planned)
        llm_ms += again_ms
        if restated:
            planned = restated
        else:
            # Made-up arguments with nothing before them to take them from ("Paris" for "What is the capital of
            # France?", "北京" for a poem): a forced model calling a tool for a question that needs none.
            own = _own(turn, router, Routed(tools=tuple(tools), rounds=1, llm_ms=llm_ms), tools_connected=True)
            # Figures with no tool behind them are made up: the question needed data, so the calls are made, but
            # never for a place nobody named.
            made = _with_named_places(planned, by_name, turn) \
                if states_measurements(own.answer, turn.vocabulary) and _shown(own.answer, turn) else ()
            if not made:
                needs_data = needs_tool_data(turn.question, tools, turn.vocabulary)
                return _not_looked_up(turn, own, restart=True) if needs_data else own
            turn.shown.discard()
            return replace(own, calls=made, answer="", own_answer=False)
    elif planned and turn.earlier_calls and names_an_earlier_day(turn.question):
        # "顺便看看天水那天的情况": a place of its own, asked alone, on the day the conversation was about.
        inherits = True
        planned = _with_earlier_days(planned, by_name, turn)
    needs_data = not planned and needs_tool_data(turn.question, tools, turn.vocabulary)
    if not planned and (calls or needs_data):
        # No call that can be made, for a question the tools answer ("周末会降温吗", or a comparison with a place
        # nobody named): asked once more, with the conversation and a note that a tool has the data; a second
        # refusal is said as such, never answered from memory.
        # Told a tool has the data, a small model still took the escape ("whats tmrw looking like in ipoh"): it is
        # offered the tools alone (a call for a place nobody named is still not made).
        offered = [spec for spec in specs if spec is not NO_TOOL_SPEC] if needs_data else specs
        again = _forced_call(turn, router, router.messages(tools, turn.plain_history, turn.question, turn.today,
                                                           turn.vocabulary, turn.earlier_calls, ASKS_FOR_DATA),
                             offered)
        llm_ms += again.duration_ms
        planned = _made(_real_calls(again), by_name, turn)
        if not planned:
            return _not_looked_up(turn, Routed(tools=tuple(tools), rounds=1, llm_ms=llm_ms))
    on_a_day = _asks_a_day(turn) or (inherits and _on_an_earlier_day(turn, by_name))
    for asks, takes, note in ((_asks_an_hour(turn), takes_hours, ASKS_FOR_AN_HOUR),
                              (on_a_day, takes_a_day, ASKS_FOR_A_DAY)):
        if _left_out(planned, by_name, asks, takes):
            # Asked about 21:00 or tomorrow, a small model called a tool of the present moment: asked once more,
            # told so; its new calls are kept only if they go to a tool that takes what was asked.
            again = _asked_again(turn, router, tools, note, specs)
            llm_ms += again.duration_ms
            replanned = _made(_real_calls(again), by_name, turn)
            if replanned and not _left_out(replanned, by_name, asks, takes):
                planned = replanned
            else:
                planned = (_moved_to_hours if takes is takes_hours else _moved_to_a_day)(planned, by_name, turn)
            if inherits:  # moved to a tool that takes a day: the conversation's, where the question names none
                planned = _with_earlier_days(planned, by_name, turn)
    if planned and all(plan.request is None for plan in planned):
        # Calls the schemas refuse (a chart of one day, an offset past the bound) answer nothing: asked once more,
        # told why, as an auto router is.
        errors = "; ".join(f"{plan.name}: {plan.error}" for plan in planned)
        again = _asked_again(turn, router, tools, REFUSED.format(errors=errors), specs)
        llm_ms += again.duration_ms
        replanned = _made(_real_calls(again), by_name, turn)
        if any(plan.request is not None for plan in replanned):
            planned = replanned
    planned, again_ms = _with_written_numbers(turn, router, tools, planned)
    llm_ms += again_ms
    planned = _as_one_comparison(_with_siblings(planned, by_name, turn), by_name, turn)
    named = _with_named_places(planned, by_name, turn)
    routed = Routed(tools=tuple(tools), calls=named, rounds=1, llm_ms=llm_ms)
    if planned and not named and needs_tool_data(turn.question, tools, turn.vocabulary):
        return _not_looked_up(turn, routed)
    return routed if routed.calls else _own(turn, router, routed, tools_connected=True)


def route_for_lacking(turn: Turn, router: Router, tools: list[ToolInfo], called: Called,
                      lacking: tuple[Quantity, ...]) -> Routed:
    """Calls of another tool, for quantities the question asks for and the calls made returned without, where
    other tools' results hold them (by their output schemas): asked for UV or the air pressure, a small model
    called a tool whose results have neither. The router is asked once more, told which tools hold them; no calls
    when no other tool does, or it calls none of those."""
    made = {outcome.qualified_name for outcome in called.outcomes}
    holding = [tool for tool in tools if tool.qualified_name not in made
               and all(described(tool.output_schema, quantity) for quantity in lacking)]
    for asks, takes in ((_asks_a_day(turn), takes_a_day), (_asks_an_hour(turn), takes_hours)):
        if asks and any(takes(tool.input_schema) for tool in holding):  # UV tomorrow: not the tool of the present
            holding = [tool for tool in holding if takes(tool.input_schema)]
    specs = router.tool_specs(tools)
    if not holding or not specs:
        return Routed(tools=tuple(tools))
    by_name = {tool.qualified_name: tool for tool in tools}
    note = ASKS_FOR_A_QUANTITY.format(quantities=", ".join(quantity.word for quantity in lacking),
                                      tools=", ".join(tool.qualified_name for tool in holding))
    again = _asked_again(turn, router, tools, note, specs if router.forced else [*specs, NO_TOOL_SPEC])
    wanted = {tool.qualified_name for tool in holding}
    planned = tuple(plan for plan in _made(_real_calls(again), by_name, turn) if plan.name in wanted)
    return Routed(tools=tuple(tools), calls=planned, rounds=1, llm_ms=again.duration_ms)


def _with_stated_values(planned: tuple[PlannedCall, ...], alone: tuple[PlannedCall, ...],
                        by_name: dict[str, ToolInfo], turn: Turn) -> tuple[PlannedCall, ...]:
    """A call asked with the conversation, with the free-text values (a place) the question states where the
    call asked with the question alone (`alone`) took them from it and this one took earlier ones: shown the
    earlier calls, a small model answered "芽庄呢？" with the previous place."""
    if len(planned) != 1 or len(alone) != 1 or _states_its_arguments(planned, by_name, turn.question):
        return planned
    (plan,), (first,) = planned, alone
    tool = _resolve(plan.name, by_name)
    schema = tool.input_schema if tool else {}
    def states(name: str, value: Any) -> bool:  # arguments that are no free text (a day, a flag) state nothing
        return states_its_arguments([{name: value}], [schema], turn.question)

    replaced = {name: first.arguments[name] for name, value in plan.arguments.items()
                if name in first.arguments and states(name, first.arguments[name]) and not states(name, value)}
    if not replaced:
        return planned
    log.info("%s: %r as the question states it, not the earlier calls' %r", plan.name, replaced,
             {name: plan.arguments[name] for name in replaced})
    return (_replanned(plan, {**plan.arguments, **replaced}, by_name, turn),)


def _with_own_tool(planned: tuple[PlannedCall, ...], alone: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                   turn: Turn) -> tuple[PlannedCall, ...]:
    """A call asked with the conversation that repeats the latest calls' tool, for a question that says the words
    of the tool called for it alone and none of the repeated one's (as their descriptions list them), as the call
    of that tool with the conversation's values where it made them up (the place): shown the earlier calls, a small
    model drew the week's chart once more for "这周末冷不冷"."""
    if len(planned) != 1 or not alone or planned[0].request is None or alone[0].request is None:
        return planned
    (plan,), first = planned, alone[0]
    tool, own = _resolve(plan.name, by_name), _resolve(first.name, by_name)
    latest = {call["tool"] for call in conversation.latest_calls(turn.history)}
    if tool is None or own is None or tool is own or latest != {tool.qualified_name} \
            or says_a_listed_term(turn.question, tool) or not says_a_listed_term(turn.question, own):
        return planned
    made_up = {name for name, value in first.arguments.items()
               if not states_its_arguments([{name: value}], [own.input_schema], turn.question)}
    if not made_up <= set(plan.arguments):
        return planned
    log.info("%s, not %s: the question says the words of the one and none of the other's", own.qualified_name,
             tool.qualified_name)
    arguments = {**first.arguments, **{name: plan.arguments[name] for name in made_up}}
    return (_replanned(PlannedCall(plan.call_id, own.qualified_name, {}), arguments, by_name, turn),)


def _with_siblings(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                   turn: Turn) -> tuple[PlannedCall, ...]:
    """One call for a value the question names with others ("Prague or Budapest"): the same call for each of
    them too, as a forced router is asked to make (a small model made the first only)."""
    if len(planned) != 1 or planned[0].request is None:
        return planned
    (plan,) = planned
    tool = _resolve(plan.name, by_name)
    stated = stated_arguments(plan.arguments, tool.input_schema, turn.question) if tool else {}
    if len(stated) != 1:
        return planned
    ((name, value),) = stated.items()
    others = siblings(value, turn.question, turn.vocabulary)
    if not others:
        return planned
    log.info("%s for %r too: the question names them with %r", plan.name, others, value)
    more = tuple(_replanned(PlannedCall(f"{plan.call_id}_{i}", plan.name, {}), {**plan.arguments, name: other},
                            by_name, turn) for i, other in enumerate(others, 1))
    return planned + tuple(extra for extra in more if extra.request is not None)


def _as_one_comparison(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                       turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls of one tool, a place each, for a question that asks which of them wins ("明天宁德和莆田哪边风更大"), as
    one call of its server's tool that takes the places as a list and the calls' other arguments: that tool's
    results decide the winner, where each place's own result left it to the writer (a small model named the
    wrong one). The calls as they are where no tool takes them so."""
    if len(planned) < 2 or any(plan.request is None for plan in planned) or len({p.name for p in planned}) != 1 \
            or not compares(turn.question, turn.vocabulary):
        return planned
    tool = _resolve(planned[0].name, by_name)
    place = place_argument(tool.input_schema, turn.vocabulary) if tool else None
    rests = [{name: value for name, value in plan.arguments.items() if name != place} for plan in planned]
    if tool is None or place is None or any(rest != rests[0] for rest in rests):
        return planned
    places = [plan.arguments.get(place) for plan in planned]
    for target in by_name.values():
        listed = place_list_argument(target.input_schema, turn.vocabulary)
        if target.server != tool.server or listed is None:
            continue
        arguments = {**_without_defaults_it_lacks(rests[0], tool, target), listed: places}
        if not _takes_exactly(target, arguments):
            continue
        again = _replanned(PlannedCall(planned[0].call_id, target.qualified_name, {}), arguments, by_name, turn)
        if again.request is not None:
            log.info("%s for %r as one call of %s: the question compares them", tool.qualified_name, places,
                     target.qualified_name)
            return (again,)
    return planned


def _without_defaults_it_lacks(arguments: dict[str, Any], tool: ToolInfo, target: ToolInfo) -> dict[str, Any]:
    """The arguments less those `target` does not take and whose value is `tool`'s default (a flag left off)."""
    properties, taken = tool.input_schema.get("properties", {}), target.input_schema.get("properties", {})
    return {name: value for name, value in arguments.items()
            if name in taken or "default" not in properties.get(name, {}) or properties[name]["default"] != value}


def _moved_to_hours(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                    turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls that a question on a clock time ("Chicago at 6pm") got twice for a tool of the present moment, moved
    to the first tool of the same server that takes the hours and the call's arguments, with the asked hours."""
    times = list(clock_times(turn.question, turn.vocabulary))
    hours = sorted({minute // 60 % 24 for time in times for minute in time.minutes})
    if not hours:
        return planned
    return _moved(planned, by_name, turn, takes_hours, lambda target: {hours_argument(target.input_schema): hours},
                  ", ".join(time.text for time in times))


def _moved_to_a_day(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                    turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls that a question on a day ("How cold did it get yesterday?", "今天信阳怎么样") got twice for a tool of the
    present moment, moved to the first tool of the same server that takes a day and the call's arguments; the
    planning sets the asked day."""
    return _moved(planned, by_name, turn, takes_a_day, lambda target: {}, "a day")


def _moved(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], turn: Turn,
           takes: Callable[[dict[str, Any]], bool], added: Callable[[ToolInfo], dict[str, Any]],
           asked: str) -> tuple[PlannedCall, ...]:
    """Each call to a tool that does not take what was asked, as the call of the first tool of its server that
    does and takes its arguments, with the `added` ones; a call no such tool takes stays as it is."""
    moved = []
    for plan in planned:
        tool = _resolve(plan.name, by_name)
        target = None if tool is None or takes(tool.input_schema) else next(
            (other for other in by_name.values() if other.server == tool.server and takes(other.input_schema)
             and _takes_exactly(other, plan.arguments)), None)
        if target is None:
            moved.append(plan)
            continue
        again = _replanned(PlannedCall(plan.call_id, target.qualified_name, {}), {**plan.arguments, **added(target)},
                           by_name, turn)
        log.info("%s moved to %s: the question asks about %s", plan.name, target.qualified_name, asked)
        moved.append(again if again.request is not None else plan)
    return tuple(moved)


def _with_earlier_tool(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                       turn: Turn) -> tuple[PlannedCall, ...]:
    """A follow-up that says only a new value ("芽庄呢？" after a question on 岘港 on Sunday) asks what the latest
    call asked, of it: a small model called another tool of that server for the new place."""
    latest = conversation.latest_calls(turn.history)
    if len(planned) != 1 or len(latest) != 1 or planned[0].request is None:
        return planned
    (plan,), (earlier,) = planned, latest
    tool, before = _resolve(plan.name, by_name), _resolve(earlier["tool"], by_name)
    stated = stated_arguments(plan.arguments, tool.input_schema, turn.question) if tool else {}
    if before is None or before is tool or not conversation.says_only(turn.question, list(stated.values())) \
            or not all(isinstance(earlier["arguments"].get(name), str) for name in stated):
        return planned
    log.info("%s, not %s: the follow-up says only %r", before.qualified_name, plan.name, stated)
    return (_replanned(PlannedCall(plan.call_id, before.qualified_name, {}), {**earlier["arguments"], **stated},
                       by_name, turn),)


def _with_earlier_days(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                       turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls asked with the conversation, on the latest calls' day when the question names none."""
    earlier = [call.get("arguments", {}) for call in conversation.latest_calls(turn.history)]
    kept = []
    for plan in planned:
        tool = _resolve(plan.name, by_name)
        arguments = with_earlier_day(plan.arguments, tool.input_schema, earlier, turn.question, turn.today) \
            if tool and plan.request else plan.arguments
        kept.append(plan if arguments == plan.arguments else _replanned(plan, arguments, by_name, turn))
    return tuple(kept)


def _takes_exactly(tool: ToolInfo, arguments: dict[str, Any]) -> bool:
    """Whether the arguments give all the tool requires and nothing its schema lacks."""
    schema = tool.input_schema
    return set(schema.get("required", ())) <= set(arguments) <= set(schema.get("properties", {}))


def _replanned(plan: PlannedCall, arguments: dict[str, Any], by_name: dict[str, ToolInfo], turn: Turn) -> PlannedCall:
    """The call with changed arguments, planned (cleaned and validated) again."""
    return _plan(ModelToolCall(plan.call_id, plan.name, dump_arguments(arguments)), by_name, turn)


def _asks_an_hour(turn: Turn) -> bool:
    """Whether the question names a clock time ("晚上九点") or a part of the day ("tonight")."""
    return any(clock_times(turn.question, turn.vocabulary)) or any(parts_of_day(turn.question, turn.vocabulary))


def _asks_a_day(turn: Turn) -> bool:
    """Whether the question names a day other than today ("明儿", "this weekend", "yesterday"), or today and not
    the present moment ("今天信阳怎么样", "today's high": the whole day, not only the present)."""
    offsets = day_references(turn.question, turn.today).values()
    return any(offset != 0 for offset in offsets) or (0 in offsets and not says_now(turn.question))


def _on_an_earlier_day(turn: Turn, by_name: dict[str, ToolInfo]) -> bool:
    """Whether the latest calls were all about a day other than today and the question names no day nor the
    present moment: following on from them, it asks about their day ("紫外线强吗" after 金边's tomorrow was called
    for the present moment; "顺便看看黄石那天的情况" too)."""
    latest = conversation.latest_calls(turn.history)
    if not latest or day_references(turn.question, turn.today) or says_now(turn.question):
        return False
    tools = [_resolve(call["tool"], by_name) for call in latest]
    return all(tool is not None and names_another_day(call["arguments"], tool.input_schema, turn.today)
               for call, tool in zip(latest, tools))


def _left_out(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], asks: bool,
              takes: Callable[[dict[str, Any]], bool]) -> bool:
    """Whether the question asks for something (an hour, a day) and the calls go to tools that take no argument
    for it (`takes`, read from a schema), while another offered tool does."""
    if not planned or not asks:
        return False
    return not any(_takes(plan.name, by_name, takes) for plan in planned) \
        and any(_takes(name, by_name, takes) for name in by_name)


def _takes(name: str, by_name: dict[str, ToolInfo], takes: Callable[[dict[str, Any]], bool]) -> bool:
    tool = _resolve(name, by_name)
    return tool is not None and takes(tool.input_schema)


def _made(calls: list[ModelToolCall], by_name: dict[str, ToolInfo], turn: Turn) -> tuple[PlannedCall, ...]:
    """A forced round's calls as planned; one that needs places nobody named, for the one place named, or left out."""
    planned = (_plan(call, by_name, turn) for call in calls)
    return tuple(plan for plan in (_for_the_named_place(plan, by_name, turn) if plan.unnamed else plan
                                   for plan in planned) if plan is not None)


def _without_made_up_numbers(turn: Turn, router: Router, tools: list[ToolInfo],
                             planned: tuple[PlannedCall, ...]) -> tuple[tuple[PlannedCall, ...], float]:
    """Calls given numbers the question does not hold ("Of A, B and C, which is highest tomorrow?" became a search
    of every place above 25), asked once more without their tools; the new calls where there are any, else the
    first ones. With the time the router took."""
    if not planned or not all(plan.made_up for plan in planned):
        return planned, 0.0
    numbers = ", ".join(sorted({name for plan in planned for name in plan.made_up}))
    again, llm_ms = _asked_without_their_tools(turn, router, tools, planned, numbers)
    if again:
        log.info("%s not called: the question gives no %s", ", ".join(plan.name for plan in planned), numbers)
    return again or planned, llm_ms


def _with_written_numbers(turn: Turn, router: Router, tools: list[ToolInfo],
                          planned: tuple[PlannedCall, ...]) -> tuple[tuple[PlannedCall, ...], float]:
    """Calls whose figures are not those the question writes ("below 0 F" searched below -1; a follow-up's "10以下"
    kept the earlier call's 20 to 25), asked once more, told the question's figures; the new calls where they
    misquote fewer, else the first ones. With the time the router took."""
    by_name = {tool.qualified_name: tool for tool in tools}
    misquoted = _misquoted(planned, by_name, turn)
    if not misquoted:
        return planned, 0.0
    written = ", ".join(f"{number:g}" for number in sorted(written_numbers(turn.question, turn.vocabulary)))
    arguments = ", ".join(f"{name}={value!r}" for plan in planned for name, value in plan.arguments.items()
                          if name in misquoted)
    again = _asked_again(turn, router, tools, MISQUOTED.format(written=written, arguments=arguments),
                         router.tool_specs(tools) or [])
    replanned = tuple(plan for plan in _made(_real_calls(again), by_name, turn) if plan.request is not None)
    if replanned and len(_misquoted(replanned, by_name, turn)) < len(misquoted):
        log.info("%s given the question's figures %s, not %s", ", ".join(p.name for p in replanned), written,
                 arguments)
        return replanned, again.duration_ms
    return planned, again.duration_ms


def _misquoted(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], turn: Turn) -> list[str]:
    return [name for plan in planned if plan.request is not None and (tool := _resolve(plan.name, by_name))
            for name in misquoted_numbers(plan.arguments, tool.input_schema, turn.question, turn.vocabulary)]


def _restated(turn: Turn, router: Router, tools: list[ToolInfo],
              planned: tuple[PlannedCall, ...]) -> tuple[tuple[PlannedCall, ...], float]:
    """For a question the tools answer, calls with values it does not write and nothing before it to take them
    from ("where will it be from 60 up to 75?" routed to one made-up place), asked once more without their tools:
    the new calls if the question writes their values, else none. With the time the router took."""
    by_name = {tool.qualified_name: tool for tool in tools}
    if not needs_tool_data(turn.question, tools, turn.vocabulary):
        return (), 0.0
    unsaid = ", ".join(_unstated(planned, by_name, turn.question))
    again, llm_ms = _asked_without_their_tools(turn, router, tools, planned, unsaid)
    if not again or not _states_its_arguments(again, by_name, turn.question):
        return (), llm_ms
    log.info("%s not called: the question gives no %s", ", ".join(plan.name for plan in planned), unsaid)
    return again, llm_ms


def _asked_without_their_tools(turn: Turn, router: Router, tools: list[ToolInfo], planned: tuple[PlannedCall, ...],
                               unsaid: str) -> tuple[tuple[PlannedCall, ...], float]:
    """The router's calls when asked once more without the tools of `planned`, told that the question gives no
    `unsaid` (told only, a small model made the same call again). With the time it took."""
    refused = {plan.name for plan in planned}
    others = [tool for tool in tools if tool.qualified_name not in refused]
    note = NOT_IN_THE_QUESTION.format(arguments=unsaid, tool=", ".join(sorted(refused)))
    again = _asked_again(turn, router, others, note, router.tool_specs(others) or [])
    by_name = {tool.qualified_name: tool for tool in others}
    calls = tuple(plan for plan in _made(_real_calls(again), by_name, turn) if plan.request is not None)
    return calls, again.duration_ms


def _for_the_named_place(plan: PlannedCall, by_name: dict[str, ToolInfo], turn: Turn) -> PlannedCall | None:
    """A call of several places with one of them named ("Alice Springs in two days - scorcher or not?" compared
    with Sydney), as the call of its server's first tool that takes that one place and the call's other arguments;
    None when there is none. Told that the place was not named, a small model made the same call again."""
    tool, named = _resolve(plan.name, by_name), plan.arguments.get(plan.unnamed)
    if tool is None or not isinstance(named, list) or len(named) != 1:
        return None
    rest = {name: value for name, value in plan.arguments.items() if name != plan.unnamed}
    for other in by_name.values():
        place = place_argument(other.input_schema, turn.vocabulary)
        arguments = {**rest, place: named[0]} if place else {}
        if other.server != tool.server or not arguments or not _takes_exactly(other, arguments):
            continue
        again = _replanned(PlannedCall(plan.call_id, other.qualified_name, {}), arguments, by_name, turn)
        if again.request is not None:
            log.info("%s for %r only, as %s: the other places were not named", plan.name, named[0],
                     other.qualified_name)
            return again
    return None


def _round(turn: Turn, router: Router, routed: Routed, called: Called | None) -> Routed:
    """One auto round: the router's reply, as calls to make or as its answer."""
    native = router.client.endpoint.tool_mode == "native"
    tools = list(routed.tools)
    by_name = {tool.qualified_name: tool for tool in tools}
    specs = router.tool_specs(tools)
    outcomes = called.outcomes if called else ()
    messages = list(routed.conversation)
    # Only a native-mode reply can be streamed as it comes: in prompt-JSON mode it may be a call; nor one that
    # has not read the user's attachments (only the writer reads them). Beside results it is the first draft, and
    # is shown as far as the writer's check passes it; before any, as an own answer.
    sink = turn.stream(router.draft_check(turn, called) if called and outcomes else own_passes_so_far(turn)) \
        if native and not router.hybrid and not turn.attachments else None
    reply = router.client.chat(messages, tools=specs, on_token=sink, cancellation=turn.cancellation)
    routed = replace(routed, rounds=routed.rounds + 1, llm_ms=routed.llm_ms + reply.duration_ms)
    calls = reply.tool_calls or _calls_in_text(reply.content, by_name)
    needs_data = not calls and bool(specs) and routed.rounds == 1 \
        and needs_tool_data(turn.question, tools, turn.vocabulary)
    if not calls and specs and not outcomes and (
            needs_data or states_measurements(reply.content, turn.vocabulary)
            or unusable(reply.content, turn.language, turn.vocabulary)):
        # Figures before any tool ran are made up, garbage is no answer, and a question the tools answer
        # ("will it cool down this week") is not answered from memory: the model picks a tool (or the escape)
        # instead, told so in the last case; a second refusal then is said as such.
        turn.shown.discard()
        asked = [*messages[:-1], {**messages[-1], "content": f"{messages[-1]['content']}{ASKS_FOR_DATA}"}] \
            if needs_data else messages
        forced = _forced_call(turn, router, asked, [*specs, NO_TOOL_SPEC])
        routed = replace(routed, llm_ms=routed.llm_ms + forced.duration_ms)
        calls = _real_calls(forced)
        if not calls and needs_data:
            return _not_looked_up(turn, routed)
    if not calls:
        return _answered(turn, router, routed, reply.content, bool(outcomes))
    planned = tuple(_plan(call, by_name, turn) for call in calls)
    if all(_already_made(outcomes, plan) for plan in planned):
        return routed  # small models often repeat a call instead of answering: answer from what we have
    return replace(routed, calls=planned, continues=True, conversation=tuple(messages), reply=reply)


def _next_round(turn: Turn, router: Router, previous: Routed, called: Called | None) -> Routed:
    """After an auto round's calls: another round that reads their results, unless the rounds have run out."""
    routed = Routed(tools=previous.tools, rounds=previous.rounds, llm_ms=previous.llm_ms)
    has_results = bool(called and called.outcomes)
    if previous.rounds >= router.max_rounds:
        return routed if has_results else _own(turn, router, routed, tools_connected=True)
    native = router.client.endpoint.tool_mode == "native"
    messages = _fed_back(list(previous.conversation), previous.reply, previous.calls, called.views if called else (),
                         native)
    return _round(turn, router, replace(routed, conversation=tuple(messages)), called)


def _answered(turn: Turn, router: Router, routed: Routed, draft: str, has_results: bool) -> Routed:
    """The router answered in text: beside results, the writer's first draft (when it is the same model, which
    streamed it); with none, the answer itself if it is usable, else the assistant's own."""
    if has_results:
        return replace(routed, answer="" if router.hybrid or turn.attachments else draft)
    if draft and not router.hybrid and not turn.attachments and not unusable(draft, turn.language, turn.vocabulary) \
            and not states_measurements(draft, turn.vocabulary):
        return replace(routed, answer=draft, own_answer=True)
    return _own(turn, router, routed, tools_connected=True, restart=bool(draft) and not turn.attachments)


def _own(turn: Turn, router: Router, routed: Routed, tools_connected: bool, restart: bool = False) -> Routed:
    """The assistant's own answer; `restart`: the router's answer was streamed and is replaced."""
    if restart:
        turn.shown.discard()
    if turn.attachments:
        return routed  # no tool result, but what the user attached: the writer answers from it
    reply = own_answer(turn, router.writer, tools_connected)
    return replace(routed, answer=reply.content.strip(), own_answer=True, llm_ms=routed.llm_ms + reply.duration_ms)


def _not_looked_up(turn: Turn, routed: Routed, restart: bool = False) -> Routed:
    """The answer to a question the tools answer when no call could be made for it: said so, not guessed; with
    attachments, the writer answers from them ("what does it say about Friday?" names a day, but asks the note)."""
    log.info("no call made for a question the tools answer: %r", turn.question)
    if restart:
        turn.shown.discard()
    if turn.attachments:
        return replace(routed, calls=(), answer="", own_answer=False)
    return replace(routed, calls=(), answer=not_looked_up(turn), own_answer=True)


def _shown(answer: str, turn: Turn) -> bool:
    """Whether an own answer would be shown: readable, in the user's language or, failing that, in English."""
    return not unusable(answer, turn.language, turn.vocabulary) or \
        in_english_instead(answer, turn.language, turn.vocabulary)


def _states_its_arguments(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], question: str) -> bool:
    return not _unstated(planned, by_name, question)


def _only_translated(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], question: str) -> bool:
    """Whether every argument the question does not write is in a script it does not use (a translation)."""
    return all(in_another_script(value, question) for value in _unstated(planned, by_name, question))


def _unstated(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], question: str) -> list[str]:
    tools = [_resolve(plan.name, by_name) for plan in planned]
    return unstated_arguments([plan.arguments for plan in planned],
                              [tool.input_schema if tool else {} for tool in tools], question)


def _asked_again(turn: Turn, router: Router, tools: list[ToolInfo], note: str,
                 specs: list[dict[str, Any]]) -> ChatTurn:
    """A forced call asked once more with `note` after the question; with the conversation only when the turn
    follows earlier calls (a small model copies whatever earlier calls it is shown)."""
    history, earlier = (turn.plain_history, turn.earlier_calls) if turn.earlier_calls else ([], "")
    return _forced_call(turn, router, router.messages(tools, history, turn.question, turn.today, turn.vocabulary,
                                                      earlier, note), specs)


def _forced_call(turn: Turn, router: Router, messages: list[dict[str, Any]], specs: list[dict[str, Any]]) -> ChatTurn:
    """Calls of one tool only: the same request for each place asked about; under `required`, small models
    otherwise go on calling every tool."""
    return router.client.chat(messages, tools=specs, tool_choice="required", parallel_tool_calls=True,
                              calls_of_one_tool=True, cancellation=turn.cancellation)


def _calls_in_text(content: str, by_name: dict[str, ToolInfo]) -> list[ModelToolCall]:
    """Tool calls written as JSON text, accepted only when every name is a known tool."""
    parsed = parse_tool_calls(content)
    if not parsed or any(_resolve(call.name, by_name) is None for call in parsed):
        return []
    return [ModelToolCall(f"call_{i}", call.name, dump_arguments(call.arguments)
                          if isinstance(call.arguments, dict) else str(call.arguments))
            for i, call in enumerate(parsed)]


def _plan(call: ModelToolCall, by_name: dict[str, ToolInfo], turn: Turn) -> PlannedCall:
    tool = _resolve(call.name, by_name)
    if tool is None:
        known = ", ".join(by_name)
        return PlannedCall(call.id, call.name, {}, error=f"unknown tool {call.name!r}; available: {known}")
    schema = tool.input_schema
    try:
        arguments = tidy_arguments(decode_arguments(call.arguments), schema)
        arguments = without_unasked_flags(arguments, schema, turn.asked, turn.vocabulary)
        arguments = with_earlier_flags(arguments, schema, _earlier_arguments(tool, by_name, turn), turn.question,
                                       turn.vocabulary)
        arguments = as_the_question_spells(arguments, schema, turn.question, turn.vocabulary)
        arguments = without_unnamed_places(arguments, schema, _said(turn), turn.vocabulary)
        arguments = without_unasked_hours(arguments, schema, turn.asked if conversation.is_follow_up(turn.question)
                                          else turn.question, turn.vocabulary)
        arguments = with_clock_hours(arguments, schema, turn.question, turn.vocabulary)
        day = asked_day(turn.question, turn.today)
        arguments = with_asked_day(arguments, schema, day, turn.today)
        arguments = with_asked_span(without_unasked_span(arguments, schema, day, turn.question), schema, day)
    except UnnamedArgument as error:
        log.info("call of %s not made: %s", tool.qualified_name, error)
        return PlannedCall(call.id, tool.qualified_name, {**arguments, error.argument: error.named},
                           error=str(error), unnamed=error.argument)
    except ValueError as error:
        return PlannedCall(call.id, tool.qualified_name, {}, error=str(error))
    problem = validation_error(arguments, tool.input_schema)
    if problem is None:
        plan = _qualified(PlannedCall(call.id, tool.qualified_name, arguments,
                                      request=ToolRequest(tool.server, tool.name, arguments),
                                      made_up=tuple(made_up_numbers(arguments, schema, turn.question))), tool, turn)
        return plan if plan.fallback else _without_opening(plan, tool, turn)
    return PlannedCall(call.id, tool.qualified_name, arguments, error=f"invalid arguments: {problem}")


def _qualified(plan: PlannedCall, tool: ToolInfo, turn: Turn) -> PlannedCall:
    """The call with its places as the question writes them, qualifier included (route_arguments.with_qualifiers:
    "Moscow, Idaho - any news?" was called for "Moscow", in Russia); the router's own call is its fallback, made
    when the tool does not know the longer form. Characters merely run on before a place in Chinese go the other
    way: the longer form is the fallback of the router's, made when the tool does not know that one ("丽水" is
    two places, "浙江丽水" one)."""
    arguments = with_qualifiers(plan.arguments, tool.input_schema, turn.question, turn.vocabulary)
    if arguments == plan.arguments or validation_error(arguments, tool.input_schema) is not None:
        return plan
    if only_run_on(plan.arguments, arguments):
        # "画出北京" is no place and "浙江丽水" is one: text alone cannot tell, so the router's form goes first.
        return replace(plan, fallback=ToolRequest(tool.server, tool.name, arguments))
    log.info("%s: %r as the question writes them, not %r", plan.name, arguments, plan.arguments)
    return replace(plan, arguments=arguments, request=ToolRequest(tool.server, tool.name, arguments),
                   fallback=plan.request)


def _without_opening(plan: PlannedCall, tool: ToolInfo, turn: Turn) -> PlannedCall:
    """The call with its places less the words the follow-up opens with as its fallback: "那贡布呢" ("and
    Kampot?") was called for "那贡布". The router's form goes first, since text alone cannot tell it from a place
    of that name ("那坡县明天冷吗")."""
    arguments = without_opening(plan.arguments, tool.input_schema, conversation.opening(turn.question),
                                turn.vocabulary)
    if arguments == plan.arguments or validation_error(arguments, tool.input_schema) is not None:
        return plan
    return replace(plan, fallback=ToolRequest(tool.server, tool.name, arguments))


def _earlier_arguments(tool: ToolInfo, by_name: dict[str, ToolInfo], turn: Turn) -> list[dict[str, Any]]:
    """The arguments of the latest calls of the tool's server: what the conversation chose there (a unit)."""
    return [call["arguments"] for call in conversation.latest_calls(turn.history)
            if (earlier := _resolve(call["tool"], by_name)) is not None and earlier.server == tool.server]


def _with_named_places(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                       turn: Turn) -> tuple[PlannedCall, ...]:
    """The calls less those for a place that neither the question nor the conversation names (unless it is
    written in a script the user does not write: "香港" for "Hong Kong"). The argument checks drop an optional
    place nobody named but leave a required one to the router's check of made-up arguments, and a forced model
    told that a tool has the data made one up: "今天心情不错，跟你聊两句" got the data of 北京."""
    said = _said(turn)
    written = "\n".join([*(m["content"] for m in turn.plain_history if m["role"] == "user"), turn.question])
    kept = []
    for plan in planned:
        tool = _resolve(plan.name, by_name)
        unnamed = [place for place in unnamed_places(plan.arguments, tool.input_schema, said, turn.vocabulary)
                   if not in_another_script(place, written)] if tool else []
        if unnamed:
            log.info("call of %s not made: %s named neither in the question nor in the conversation", plan.name,
                     ", ".join(unnamed))
        else:
            kept.append(plan)
    return tuple(kept)


def _said(turn: Turn) -> str:
    """Everything the user and the assistant said before and in this question, and the calls behind it: where a
    call's places may come from."""
    return "\n".join([*(message["content"] for message in turn.plain_history), turn.earlier_calls, turn.question])


def _already_made(outcomes: tuple[ToolOutcome, ...], plan: PlannedCall) -> bool:
    """Whether the call, or the fallback that was made for it, is among the calls made."""
    return any((outcome.server, outcome.tool, outcome.arguments) == (request.server, request.tool, request.arguments)
               for outcome in outcomes for request in (plan.request, plan.fallback) if request is not None)


def _fed_back(messages: list[dict[str, Any]], reply: ChatTurn | None, planned: tuple[PlannedCall, ...],
              views: tuple[str, ...], native: bool) -> list[dict[str, Any]]:
    """The router's conversation with its calls and what they returned, as its next round reads them."""
    if native:
        messages.append({
            "role": "assistant",
            "content": (reply.content if reply else "") or None,
            "tool_calls": [
                {"id": plan.call_id, "type": "function",
                 "function": {"name": plan.name, "arguments": dump_arguments(plan.arguments)}}
                for plan in planned
            ],
        })
        for plan, view in zip(planned, views):
            messages.append({"role": "tool", "tool_call_id": plan.call_id, "content": view})
    else:
        messages.append({"role": "assistant", "content": reply.content if reply else ""})
        messages.append({"role": "user", "content": tool_results_message(
            [(plan.name, view) for plan, view in zip(planned, views)])})
    return messages


def _real_calls(forced: ChatTurn) -> list[ModelToolCall]:
    """The distinct calls of a forced turn's first tool, unless it took the escape."""
    kept: list[ModelToolCall] = []
    for call in forced.tool_calls:
        if call.name == NO_TOOL or call.name != forced.tool_calls[0].name:
            break
        if all(call.arguments != earlier.arguments for earlier in kept):
            kept.append(call)
    return kept


def _resolve(name: str, by_name: dict[str, ToolInfo]) -> ToolInfo | None:
    """`server__tool`, or a bare tool name when exactly one server has it."""
    if name in by_name:
        return by_name[name]
    matches = [tool for tool in by_name.values() if tool.name == name]
    return matches[0] if len(matches) == 1 else None


def error_view(plan: PlannedCall) -> str:
    """What the router reads of a call refused before it ran, so it can repair it."""
    return json.dumps({"error": f"{plan.error}. Call the tool again with corrected arguments."}, ensure_ascii=False)
