"""Route: the tool calls a question needs, planned and validated, or, when it needs none, the assistant's own answer.

A `required` profile (small models behind a constrained-decoding backend) makes one forced round: calls of one
tool, or the `answer_directly` escape. It first asks with the question alone, since a small model copies
whatever earlier calls it is shown; only when the question follows on from the last one, or the calls carry
text the question does not (a place made up for "那后天呢？"), is it asked again with the earlier calls. Calls
whose arguments nothing before them explains are set aside: the assistant's own answer decides, and they are
made only if it states measurements (the question needed data after all). An `auto` profile sees the
conversation and goes round by round: each round's calls are made by the call stage, and the next round reads
their results, until the model answers or the rounds run out.

This module is that control flow and the router model's rounds; a model's call becomes a PlannedCall in
route_plan.py, a forced round's calls are mended with the question and the conversation in route_mends.py, and
each argument is made as the question asks in route_arguments/.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mcp_chat_app.chat import conversation
from mcp_chat_app.chat.assistant import Assistant
from mcp_chat_app.chat.own_answer import (
    asked_in_passing,
    needs_tool_data,
    not_looked_up,
    own_answer,
    own_passes_so_far,
    says_what_it_does,
)
from mcp_chat_app.chat.route_arguments.days import takes_a_day
from mcp_chat_app.chat.route_arguments.flags import with_asked_flags
from mcp_chat_app.chat.route_arguments.hours import takes_hours
from mcp_chat_app.chat.route_arguments.numbers import (
    made_up_numbers,
    measurement_arguments,
    misquoted_numbers,
    written_numbers,
)
from mcp_chat_app.chat.route_arguments.place_names import with_names_capitalized
from mcp_chat_app.chat.route_arguments.places import place_list_argument, place_values
from mcp_chat_app.chat.route_mends import (
    as_one_comparison,
    as_the_conversations_comparison,
    asks_a_day,
    asks_an_hour,
    for_the_destination,
    for_the_one_said_apart,
    for_the_name_said,
    from_a_list_of_one,
    from_a_search_of_places,
    from_a_yes_or_no_tool,
    from_the_drawing_tool,
    left_out,
    moved_to_a_day,
    moved_to_holding,
    moved_to_hours,
    moved_to_the_present,
    on_an_earlier_day,
    one_place_meant,
    replanned_for,
    places_of,
    to_the_drawing_tool,
    with_added_places,
    with_distinct_places,
    with_qualified_places,
    without_comparatives,
    without_unasked_days,
    with_earlier_days,
    with_earlier_figures,
    with_earlier_tool,
    with_the_conversations_place,
    with_the_place_said,
    with_named_places,
    with_own_tool,
    with_siblings,
    with_stated_values,
    without_where_the_user_is,
)
from mcp_chat_app.chat.route_own_days import on_their_own_days
from mcp_chat_app.chat.route_plan import (
    PlannedCall,
    calls_in_text,
    planned_call,
    planned_calls,
    real_calls,
    replanned,
    resolve,
    states_their_arguments,
    unstated,
)
from mcp_chat_app.chat.route_prompt import (
    ASKS_FOR_A_DAY,
    ASKS_FOR_A_QUANTITY,
    ASKS_FOR_AN_HOUR,
    ASKS_FOR_DATA,
    ASKS_OF_ONE_PLACE,
    MISQUOTED,
    NOT_IN_THE_QUESTION,
    NO_TOOL_SPEC,
    REFUSED,
    dump_arguments,
    openai_tools,
    router_messages,
    router_system_prompt,
    tool_results_message,
)
from mcp_chat_app.chat.text.claims import asks_a_language_task, in_english_instead, states_measurements, unusable
from mcp_chat_app.chat.text.languages import in_another_script
from mcp_chat_app.chat.text.calendar_dates import names_another_month
from mcp_chat_app.chat.text.day_words import day_words, names_an_earlier_day
from mcp_chat_app.chat.text.quantities import Quantity, asked_quantities, described
from mcp_chat_app.chat.text.vocabulary import Vocabulary
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.llm.client import ChatTurn, LlmClient
from mcp_chat_app.mcp_client.results import ToolOutcome, tool_error_text
from mcp_chat_app.mcp_client.manager import McpManager, ToolInfo

if TYPE_CHECKING:  # the auto rounds read what the previous round's calls returned
    from mcp_chat_app.chat.call import Called


log = logging.getLogger(__name__)


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
    if (again := _said_again(turn, tools)) is not None:
        return again
    if turn.assistant.asked_who(turn.question) or conversation.acknowledges(turn.question) \
            or asks_a_language_task(turn.question) \
            or (asked_in_passing(turn.question, tools, turn.vocabulary)
                and not conversation.is_follow_up(turn.question)) or _an_aside(turn, tools):
        # Who it is, "ok, thanks", a translation or a joke, a capital: no tool answers that, and a small model called
        # one anyway (a place named "行"; the data of the conversation's place for "对了，你是谁开发的"; places
        # "晴转多云", "给我讲个"; the present data of "Kazakhstan" for its capital).
        return _own(turn, router, Routed(tools=tuple(tools)), tools_connected=True)
    if router.forced:
        return _forced(turn, router, tools)
    messages = router.messages(tools, turn.plain_history, turn.question, turn.today, turn.vocabulary,
                               turn.earlier_calls)
    return _round(turn, router, Routed(tools=tuple(tools), conversation=tuple(messages)), None)


def _said_again(turn: Turn, tools: list[ToolInfo]) -> Routed | None:
    """The latest answer's calls made again, for a question that asks for that answer again ("能用中文再说一遍吗",
    "say that again in English"), or for it with a flag turned on ("in F pls"): answered from their results in the
    language it is asked in. A small model took it for a task of words, or answered from nothing."""
    by_name = {tool.qualified_name: tool for tool in tools}
    latest = [call for call in conversation.latest_tried(turn.history)
              if not call.get("failed") and resolve(call["tool"], by_name) is not None]
    if not conversation.asks_to_say_again(turn.question) and not _only_turns_a_flag_on(turn, latest, by_name):
        return None
    of_both = replace(turn, question=turn.asked)  # planned as the question before asked it (its hours kept)
    calls = tuple(replanned(PlannedCall(f"call_again_{index}", call["tool"], {}), dict(call["arguments"]), by_name,
                            of_both) for index, call in enumerate(latest))
    calls = tuple(plan for plan in calls if plan.request is not None)
    return Routed(tools=tuple(tools), calls=calls, rounds=1) if calls else None


_FEW_WORDS = 4


def _only_turns_a_flag_on(turn: Turn, latest: list[dict[str, Any]], by_name: dict[str, ToolInfo]) -> bool:
    """Whether a question of a few words, with no day, names a flag the latest calls left off ("in F pls" after
    the hours of an evening was called for the present moment): the latest answer again, with it."""
    if len(re.findall(r"\w+", turn.question)) > _FEW_WORDS or day_words(turn.question):
        return False
    return any(with_asked_flags(call["arguments"], tool.input_schema, turn.question, turn.vocabulary)
               != call["arguments"] for call in latest if (tool := resolve(call["tool"], by_name)) is not None)


def _forced(turn: Turn, router: Router, tools: list[ToolInfo]) -> Routed:
    by_name = {tool.qualified_name: tool for tool in tools}
    specs = router.tool_specs(tools) or []
    first = _forced_call(turn, router, router.messages(tools, [], turn.question, turn.today, turn.vocabulary), specs)
    llm_ms = first.duration_ms
    calls = real_calls(first)
    planned, again_ms = _without_made_up_numbers(turn, router, tools, planned_calls(calls, by_name, turn))
    llm_ms += again_ms
    if planned and not (planned := with_the_conversations_place(planned, by_name, turn)):
        # Called only for words of the domain as places ("is a typhoon the same thing as a hurricane?"): a question
        # of knowledge, answered as one (an own answer that states figures is still refused).
        return _own(turn, router, Routed(tools=tuple(tools), rounds=1, llm_ms=llm_ms), tools_connected=True)
    if planned and names_another_month(turn.question) and not day_words(turn.question) \
            and any(takes_a_day(tool.input_schema) for tool in tools):
        # "What did it cost in Mombasa last month?" was called for yesterday and answered as the month, "下下个月"
        # for tomorrow: a tool of days is asked of one day, and no one day is a whole month.
        return _not_looked_up(turn, Routed(tools=tuple(tools), rounds=1, llm_ms=llm_ms))
    stated = states_their_arguments(planned, by_name, turn.question)
    if planned and not stated and not turn.earlier_calls and _only_translated(planned, by_name, turn.question) \
            and (needs_tool_data(turn.question, tools, turn.vocabulary) or asks_a_day(turn)):
        # "香港" for "Hong Kong, today?", "安克雷奇" for "anchorage forcast in 4 days": the question's place in
        # another script, not made up, in a question of the tools' data or of a day
        stated = True
    inherits = False  # the calls take the conversation's day where the question names none
    # (a follow-up in a conversation with no calls yet too: "那今晚呢" after a question on next month in 青岛, which
    # no call could answer)
    follows_up = conversation.is_follow_up(turn.question)
    if planned and (turn.earlier_calls and (follows_up or not stated) or turn.plain_history and follows_up):
        inherits = True
        again = _forced_call(turn, router, router.messages(tools, turn.plain_history, turn.question, turn.today,
                                                           turn.vocabulary, turn.earlier_calls), specs)
        llm_ms += again.duration_ms
        calls, alone = real_calls(again), planned
        planned = with_stated_values(planned_calls(calls, by_name, turn), alone if stated else (), by_name, turn)
        planned = with_earlier_days(with_own_tool(planned, alone, by_name, turn), by_name, turn)
        planned = with_earlier_figures(planned, by_name, turn)
        planned = with_the_place_said(with_earlier_tool(planned, by_name, turn), by_name, turn)
        planned = with_the_conversations_place(planned, by_name, turn)
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
            made = with_named_places(planned, by_name, turn) \
                if states_measurements(own.answer, turn.vocabulary) and _shown(own.answer, turn) else ()
            if not made:
                needs_data = needs_tool_data(turn.question, tools, turn.vocabulary)
                return _not_looked_up(turn, own, restart=True) if needs_data else own
            turn.shown.discard()
            return replace(own, calls=made, answer="", own_answer=False)
    elif planned and turn.earlier_calls and names_an_earlier_day(turn.question):
        # "顺便看看天水那天的情况": a place of its own, asked alone, on the day the conversation was about.
        inherits = True
        planned = with_earlier_days(planned, by_name, turn)
    planned = without_unasked_days(planned, by_name, turn)
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
        planned = tuple(plan for plan in planned_calls(real_calls(again), by_name, turn) if not plan.made_up)
        if not planned:
            return _not_looked_up(turn, Routed(tools=tuple(tools), rounds=1, llm_ms=llm_ms))
    on_a_day = asks_a_day(turn) or (inherits and on_an_earlier_day(turn, by_name))
    for asks, takes, note in ((asks_an_hour(turn), takes_hours, ASKS_FOR_AN_HOUR),
                              (on_a_day, takes_a_day, ASKS_FOR_A_DAY)):
        if left_out(planned, by_name, asks, takes):
            # Asked about 21:00 or tomorrow, a small model called a tool of the present moment: asked once more,
            # told so; its new calls are kept only if they go to a tool that takes what was asked, for every place
            # the first ones were ("tomorrow night, which one gets colder?" became one place's call).
            again = _asked_again(turn, router, tools, note, specs)
            llm_ms += again.duration_ms
            replanned = planned_calls(real_calls(again), by_name, turn)
            if replanned and not left_out(replanned, by_name, asks, takes) \
                    and places_of(planned, by_name, turn) <= places_of(replanned, by_name, turn):
                planned = replanned
            else:
                planned = (moved_to_hours if takes is takes_hours else moved_to_a_day)(planned, by_name, turn)
            if inherits:  # moved to a tool that takes a day: the conversation's, where the question names none
                planned = with_earlier_days(planned, by_name, turn)
    planned = from_a_list_of_one(planned, by_name, turn)
    if planned and all(plan.request is None for plan in planned):
        # Calls the schemas refuse (a chart of one day, an offset past the bound) answer nothing: asked once more,
        # told why, as an auto router is. Told why, a small model made the same call again (a chart of one day, for
        # "how warm did it get yesterday?"): the third time, the other tools alone are offered (the prompt, and its
        # cache, unchanged).
        errors = "; ".join(f"{plan.name}: {plan.error}" for plan in planned)
        refused = {plan.name for plan in planned}
        for offered in (specs, [spec for spec in specs if spec["function"]["name"] not in refused]):
            again = _asked_again(turn, router, tools, REFUSED.format(errors=errors), offered)
            llm_ms += again.duration_ms
            # (not a search of figures nobody gave: "昨天和今天比，成都哪天更冷" searched every place below 10)
            replanned = tuple(plan for plan in planned_calls(real_calls(again), by_name, turn) if not plan.made_up)
            if any(plan.request is not None for plan in replanned):
                planned = replanned
                break
    planned = from_the_drawing_tool(to_the_drawing_tool(planned, by_name, turn), by_name, turn)
    planned = moved_to_the_present(from_a_search_of_places(planned, by_name, turn), by_name, turn)
    planned = from_a_yes_or_no_tool(planned, by_name, turn)
    planned, again_ms = _with_written_numbers(turn, router, tools, planned)
    llm_ms += again_ms
    planned = as_one_comparison(with_siblings(planned, by_name, turn), by_name, turn)
    planned = as_the_conversations_comparison(planned, by_name, turn)
    planned, again_ms = _of_one_place(turn, router, tools, planned)
    llm_ms += again_ms
    planned = with_distinct_places(without_comparatives(planned, by_name, turn), by_name, turn)
    planned = with_qualified_places(planned, by_name, turn)
    planned = for_the_destination(with_added_places(planned, by_name, turn), by_name, turn)
    planned, again_ms = _of_the_place_asked(turn, router, tools, planned)
    llm_ms += again_ms
    planned = on_their_own_days(for_the_one_said_apart(planned, by_name, turn), by_name, turn)
    planned, again_ms = _without_numbers_nobody_said(turn, router, tools, planned)  # (what no mend above took)
    llm_ms += again_ms
    named = with_named_places(planned, by_name, turn)
    routed = Routed(tools=tuple(tools), calls=named, rounds=1, llm_ms=llm_ms)
    if planned and not named and needs_tool_data(turn.question, tools, turn.vocabulary):
        return _not_looked_up(turn, routed)
    return routed if routed.calls else _own(turn, router, routed, tools_connected=True)


def route_for_lacking(turn: Turn, router: Router, tools: list[ToolInfo], called: Called,
                      lacking: tuple[Quantity, ...]) -> Routed:
    """Calls of another tool, for quantities the question asks for and the calls made returned without, where
    other tools' results hold them (by their output schemas): asked for UV or the air pressure, a small model
    called a tool whose results have neither. The router is asked once more, told which tools hold them; when it
    calls none of those, the calls made move to them with their arguments (moved_to_holding). No calls when no
    other tool holds them."""
    made = {outcome.qualified_name for outcome in called.outcomes}
    holding = [tool for tool in tools if tool.qualified_name not in made
               and all(described(tool.output_schema, quantity) for quantity in lacking)]
    by_name = {tool.qualified_name: tool for tool in tools}
    # Calls of one place each are asked of again as such: "do I need a jacket there tomorrow?" (a quantity the first
    # results lack) became a comparison of the conversation's two places.
    if not any(place_list_argument(by_name[name].input_schema, turn.vocabulary) for name in made if name in by_name):
        holding = [tool for tool in holding if place_list_argument(tool.input_schema, turn.vocabulary) is None] \
            or holding
    # "紫外线强不强" after tomorrow's calls: tomorrow's UV, not the present moment's.
    inherits = on_an_earlier_day(turn, by_name)
    for asks, takes in ((asks_a_day(turn) or inherits, takes_a_day), (asks_an_hour(turn), takes_hours)):
        if asks and any(takes(tool.input_schema) for tool in holding):  # UV tomorrow: not the tool of the present
            holding = [tool for tool in holding if takes(tool.input_schema)]
    specs = router.tool_specs(tools)
    if not holding or not specs:
        return Routed(tools=tuple(tools))
    note = ASKS_FOR_A_QUANTITY.format(quantities=", ".join(quantity.word for quantity in lacking),
                                      tools=", ".join(tool.qualified_name for tool in holding))
    again = _asked_again(turn, router, tools, note, specs if router.forced else [*specs, NO_TOOL_SPEC])
    wanted = {tool.qualified_name for tool in holding}
    # (not a search of figures nobody gave: "Should I pack a jacket for Salta tomorrow?" listed the places above 10)
    planned = tuple(plan for plan in planned_calls(real_calls(again), by_name, turn)
                    if plan.name in wanted and not plan.made_up)
    if inherits:
        planned = with_earlier_days(planned, by_name, turn)
    planned = planned or moved_to_holding(called.outcomes, holding, by_name, turn)
    return Routed(tools=tuple(tools), calls=planned, rounds=1, llm_ms=again.duration_ms)


def route_after_errors(turn: Turn, router: Router, tools: list[ToolInfo], called: Called) -> Routed:
    """Calls in place of a forced round's that the servers answered with errors (an unknown station, whose
    coordinates the question gives and the error says are taken): the router is asked once more, told the errors,
    as an auto router reads them. No calls when it makes none, repeats one, names a place nobody named ("Narni"
    for "Narnia"), gives figures the question does not (a search of places below 10, for two places compared), or
    calls a tool that takes no day or hour the question asks (the present, for "January 1998"). The assistant's
    own answer in place of the errors, for a question that is none for the tools (_none_for_the_tools)."""
    specs = router.tool_specs(tools)
    if not specs:
        return Routed(tools=tuple(tools))
    if _none_for_the_tools(turn, tools, called):
        # "What is the capital of France?" was called as the present data of "France" (a country, no city):
        # the assistant's own answer, unless it gives figures, which only a tool could.
        own = _own(turn, router, Routed(tools=tuple(tools), rounds=1), tools_connected=True)
        if own.answer and not states_measurements(own.answer, turn.vocabulary) and _shown(own.answer, turn):
            log.info("every call failed, for a question none of the tools answers: %r", turn.question)
            return own
    errors = "; ".join(f"{outcome.qualified_name}: {tool_error_text(outcome.text).rstrip('.')}"
                       for outcome in called.outcomes)
    by_name = {tool.qualified_name: tool for tool in tools}
    made = [(outcome.qualified_name, outcome.arguments) for outcome in called.outcomes]
    failed = {outcome.qualified_name for outcome in called.outcomes}
    llm_ms = 0.0
    # Told the errors, a small model made the same call again ("gonna be wet in Bergen on saturday?" was asked of
    # a tool whose data end before that day): the second time, the other tools alone are offered.
    for offered in (specs, [spec for spec in specs if spec["function"]["name"] not in failed]):
        again = _asked_again(turn, router, tools, REFUSED.format(errors=errors), offered)
        llm_ms += again.duration_ms
        # Told a place is unknown, a small model searched every place below a figure the question never gave
        # ("下周一改则和狮泉河哪里更冷"): a call of made-up numbers answers another question.
        calls = real_calls(again)
        planned = tuple(plan for plan in planned_calls(calls, by_name, turn)
                        if plan.request is not None and (plan.name, plan.request.arguments) not in made
                        and not plan.made_up)
        if planned or not calls:
            break
    # Told that a day is beyond the data ("January 1998"), a small model called a tool of the present moment: no
    # call answers a day or hour asked of a tool that takes none.
    if left_out(planned, by_name, asks_a_day(turn), takes_a_day) or left_out(planned, by_name, asks_an_hour(turn),
                                                                            takes_hours):
        planned = ()
    # A place the errors name is named: "'Peru' is a country…, such as Lima, its capital" (the capital of Peru asked)
    named = with_named_places(planned, by_name, replace(turn, question=f"{turn.question}\n{errors}"))
    return Routed(tools=tuple(tools), calls=named, rounds=1, llm_ms=llm_ms)


def _none_for_the_tools(turn: Turn, tools: list[ToolInfo], called: Called) -> bool:
    """Whether a question whose every call failed was none for the tools: it does not follow on from the
    conversation (a follow-up, a name alone or a day is asked of the conversation's data; "is SPF 50 actually
    better than SPF 30?" after the UV is a question of its own), asks none of the tools' data (needs_tool_data),
    and says no word of the domain (the vocabulary's topic words and quantities, those no tool has too: "how many
    avalanches hit Chamonix last winter?" gets the tools' limits) nor of what a failed tool does (its description's
    words)."""
    failed = {outcome.qualified_name for outcome in called.outcomes}
    return not (turn.earlier_calls and _follows_on(turn.question)) \
        and _asks_nothing_of_the_tools(turn.question, turn, tools) \
        and not any(says_what_it_does(turn.question, tool) for tool in tools if tool.qualified_name in failed)


def _an_aside(turn: Turn, tools: list[ToolInfo]) -> bool:
    """A question of its own after thanks, or of the assistant's own taste or experience, in a conversation ("thx.
    do you know when to plant garlic?", "你去过云南吗" were called as the conversation's place's data): not a
    follow-up, and of nothing the tools answer."""
    aside = conversation.after_thanks(turn.question) or \
        (turn.question if conversation.of_the_assistant(turn.question) else "")
    return bool(aside) and bool(turn.plain_history) and not _follows_on(aside) \
        and _asks_nothing_of_the_tools(aside, turn, tools)


def _follows_on(question: str) -> bool:
    """A follow-up, a name alone or a day: asked of the conversation's data."""
    return conversation.is_follow_up(question) or conversation.named_alone(question) or bool(day_words(question))


def _asks_nothing_of_the_tools(question: str, turn: Turn, tools: list[ToolInfo]) -> bool:
    """Whether the question asks none of the tools' data (needs_tool_data) and says no word of the domain (the
    vocabulary's topic words and quantities, those no tool has too)."""
    return not needs_tool_data(question, tools, turn.vocabulary) and not turn.vocabulary.names_the_topic(question) \
        and not asked_quantities(question, turn.vocabulary)


def _without_made_up_numbers(turn: Turn, router: Router, tools: list[ToolInfo],
                             planned: tuple[PlannedCall, ...]) -> tuple[tuple[PlannedCall, ...], float]:
    """Calls given numbers the question does not hold ("Of A, B and C, which is highest tomorrow?" became a search
    of every place above 25; "Should I pack a jacket for Salta tomorrow?" one above 10), asked once more
    without their tools: the new calls, or none (a search of numbers nobody gave answers another question), but
    a follow-up's first calls (the conversation's places may be compared instead). With the time it took."""
    if not planned or not all(plan.made_up for plan in planned):
        return planned, 0.0
    numbers = ", ".join(sorted({name for plan in planned for name in plan.made_up}))
    again, llm_ms = _asked_without_their_tools(turn, router, tools, planned, numbers)
    if again or not turn.earlier_calls:
        log.info("%s not called: the question gives no %s", ", ".join(plan.name for plan in planned), numbers)
        return again, llm_ms
    return planned, llm_ms  # a follow-up's: what the conversation compared may take its place (route_mends)


def _without_numbers_nobody_said(turn: Turn, router: Router, tools: list[ToolInfo],
                                 planned: tuple[PlannedCall, ...]) -> tuple[tuple[PlannedCall, ...], float]:
    """A follow-up's calls given numbers that neither it nor any question before it holds, asked once more without
    their tools ("那哪天最适合晒" after a question on the coming week in 武夷山 became a search of cities between 10
    and 20, and the next turns copied it). Numbers the conversation gave stay ("那后天呢" after "above 30 tomorrow"). With
    the time it took."""
    said = "\n".join([*(message["content"] for message in turn.plain_history if message.get("role") == "user"),
                      turn.question])
    by_name = {tool.qualified_name: tool for tool in tools}
    unsaid = tuple(plan for plan in planned if plan.made_up and (tool := resolve(plan.name, by_name)) is not None
                   and made_up_numbers(plan.arguments, tool.input_schema, said))
    if not unsaid or not turn.earlier_calls:
        return planned, 0.0
    names = ", ".join(sorted({name for plan in unsaid for name in plan.made_up}))
    again, llm_ms = _asked_without_their_tools(turn, router, tools, unsaid, names)
    log.info("%s not called: no question of the conversation gives its %s", ", ".join(p.name for p in unsaid), names)
    return tuple(plan for plan in planned if plan not in unsaid) + again, llm_ms


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
    requoted = tuple(plan for plan in planned_calls(real_calls(again), by_name, turn) if plan.request is not None)
    if not (requoted and len(_misquoted(requoted, by_name, turn)) < len(misquoted)):
        requoted = _given_the_figures(planned, by_name, turn)
    if requoted and len(_misquoted(requoted, by_name, turn)) < len(misquoted):
        log.info("%s given the question's figures %s, not %s", ", ".join(p.name for p in requoted), written,
                 arguments)
        return requoted, again.duration_ms
    return planned, again.duration_ms


def _given_the_figures(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                       turn: Turn) -> tuple[PlannedCall, ...]:
    """The calls that misquote a figure given the question's figures as their measurements, the lowest first in the
    schema's order, where they take as many ("Anything under 0 tomorrow?" searched under -1, asked twice; "and
    between 5 and 20 F" from -22 to -12; "零下二十到零下十度" from -10 to -10); () where a call takes another count."""
    written = sorted(written_numbers(turn.question, turn.vocabulary))
    given = []
    for plan in planned:
        tool = resolve(plan.name, by_name)
        if tool is None or plan.request is None \
                or not misquoted_numbers(plan.arguments, tool.input_schema, turn.question, turn.vocabulary):
            given.append(plan)
            continue
        names = measurement_arguments(plan.arguments, tool.input_schema)
        if len(names) != len(written):
            return ()
        given.append(replanned(plan, {**plan.arguments, **dict(zip(names, written))}, by_name, turn))
    return tuple(plan for plan in given if plan.request is not None)


def _of_one_place(turn: Turn, router: Router, tools: list[ToolInfo],
                  planned: tuple[PlannedCall, ...]) -> tuple[tuple[PlannedCall, ...], float]:
    """For a question about "there" that compares nothing, after the latest answer was about one place, a call of
    several places asked once more, of that place alone and without the tools of several ("do I need a jacket
    there tomorrow?" after Victoria Falls, then Livingstone, was a comparison of both). With the router's time."""
    by_name = {tool.qualified_name: tool for tool in tools}
    place = one_place_meant(planned, by_name, turn)
    if not place:
        return planned, 0.0
    single = [tool for tool in tools if place_list_argument(tool.input_schema, turn.vocabulary) is None]
    specs = router.tool_specs(single)
    if not specs:
        return planned, 0.0
    again = _asked_again(turn, router, tools, ASKS_OF_ONE_PLACE.format(place=place), specs)
    head = place.partition(",")[0].strip().casefold()  # "Livingstone" for "Livingstone, Zambia": that place
    replanned = tuple(
        replanned_for(plan, place, by_name, turn) for plan in planned_calls(real_calls(again), by_name, turn)
        if plan.request is not None and [value.partition(",")[0].strip().casefold() for value in
                                         place_values(plan.arguments, by_name[plan.name].input_schema,
                                                      turn.vocabulary)] == [head])
    replanned = tuple(plan for plan in replanned if plan.request is not None)
    log.info("asked of %r alone: %s", place, [(p.name, p.arguments) for p in replanned] or real_calls(again))
    return replanned or planned, again.duration_ms


def _of_the_place_asked(turn: Turn, router: Router, tools: list[ToolInfo],
                        planned: tuple[PlannedCall, ...]) -> tuple[tuple[PlannedCall, ...], float]:
    """A call for where the user says they are, when the rest of the question names that place no more ("我在上海，
    想知道开罗那边现在的行情" was called for 上海): the rest asked alone; its call where the question names its
    place ("我在上海，明天怎么样" asks of 上海 itself: the rest names none, and the first call stands)."""
    by_name = {tool.qualified_name: tool for tool in tools}
    rest = without_where_the_user_is(planned[0], by_name, turn) if len(planned) == 1 else ""
    if not rest:
        return planned, 0.0
    asked, llm_ms = _calls_for(rest, turn, router, tools)
    if not asked or not states_their_arguments(asked, by_name, rest):
        return planned, llm_ms
    log.info("asked without where the user is (%r): %s", rest, [(p.name, p.arguments) for p in asked])
    return asked, llm_ms


def _calls_for(question: str, turn: Turn, router: Router,
               tools: list[ToolInfo]) -> tuple[tuple[PlannedCall, ...], float]:
    """The calls the router makes for `question` in place of the turn's, asked alone (no conversation), less those
    the schemas refuse. With the time it took."""
    by_name = {tool.qualified_name: tool for tool in tools}
    again = _forced_call(turn, router, router.messages(tools, [], question, turn.today, turn.vocabulary),
                         router.tool_specs(tools) or [])
    calls = tuple(plan for plan in planned_calls(real_calls(again), by_name, turn) if plan.request is not None)
    return calls, again.duration_ms


def _misquoted(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], turn: Turn) -> list[str]:
    return [name for plan in planned if plan.request is not None and (tool := resolve(plan.name, by_name))
            for name in misquoted_numbers(plan.arguments, tool.input_schema, turn.question, turn.vocabulary)]


def _restated(turn: Turn, router: Router, tools: list[ToolInfo],
              planned: tuple[PlannedCall, ...]) -> tuple[tuple[PlannedCall, ...], float]:
    """For a question the tools answer, calls with values it does not write and nothing before it to take them
    from ("where will it be from 60 up to 75?" routed to one made-up place), asked once more without their tools:
    the new calls if the question writes their values, else none. With the time the router took."""
    by_name = {tool.qualified_name: tool for tool in tools}
    if not needs_tool_data(turn.question, tools, turn.vocabulary):
        return (), 0.0
    if renamed := for_the_name_said(planned, by_name, turn):
        return renamed, 0.0
    unsaid = ", ".join(unstated(planned, by_name, turn.question))
    again, llm_ms = _asked_without_their_tools(turn, router, tools, planned, unsaid)
    capitalized = with_names_capitalized(turn.question, turn.vocabulary)
    if (not again or not states_their_arguments(again, by_name, turn.question)) and capitalized != turn.question:
        # "prices in papeete today y/n" was called for Papua New Guinea, twice: asked with the name capitalized
        again, capitalized_ms = _calls_for(capitalized, turn, router, tools)
        llm_ms += capitalized_ms
    if not again or not states_their_arguments(again, by_name, turn.question):
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
    calls = tuple(plan for plan in planned_calls(real_calls(again), by_name, turn) if plan.request is not None)
    return calls, again.duration_ms


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
    calls = reply.tool_calls or calls_in_text(reply.content, by_name)
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
        calls = real_calls(forced)
        if not calls and needs_data:
            return _not_looked_up(turn, routed)
    if not calls:
        return _answered(turn, router, routed, reply.content, bool(outcomes))
    planned = tuple(planned_call(call, by_name, turn) for call in calls)
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


def _only_translated(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], question: str) -> bool:
    """Whether every argument the question does not write is in a script it does not use (a translation)."""
    return all(in_another_script(value, question) for value in unstated(planned, by_name, question))


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
