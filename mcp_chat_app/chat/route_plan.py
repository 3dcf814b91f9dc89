"""Route's planned calls: a model's tool call as a PlannedCall, its tool resolved (`server__tool`, or a bare tool
name one server has), its arguments decoded, tidied, made as the question asks (route_arguments/) and validated,
or the error the router reads to repair it."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from typing import Any

from mcp_chat_app.chat import conversation
from mcp_chat_app.chat.route_arguments.days import (
    question_day,
    with_asked_day,
    with_asked_span,
    with_asked_weekend,
    without_unasked_span,
)
from mcp_chat_app.chat.route_arguments.flags import with_asked_flags, with_earlier_flags, without_unasked_flags
from mcp_chat_app.chat.route_arguments.hours import with_asked_part, with_clock_hours, without_unasked_hours
from mcp_chat_app.chat.route_arguments.numbers import made_up_numbers
from mcp_chat_app.chat.route_arguments.place_names import (
    as_the_question_spells,
    cut_before_a_word,
    only_run_on,
    whole_written,
    with_qualifiers,
    without_leading_words,
    without_opening,
    without_question_words,
    without_run_in_days,
    without_run_in_quantities,
)
from mcp_chat_app.chat.route_arguments.places import (
    UnnamedArgument,
    place_argument,
    without_repeated_places,
    without_unnamed_places,
)
from mcp_chat_app.chat.route_arguments.stated import unstated_arguments
from mcp_chat_app.chat.route_prompt import NO_TOOL, dump_arguments
from mcp_chat_app.chat.text.day_words import day_words
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.llm.client import ChatTurn, ModelToolCall
from mcp_chat_app.llm.tool_call_parser import parse_tool_calls
from mcp_chat_app.mcp_client.arguments import decode_arguments, tidy_arguments, validation_error
from mcp_chat_app.mcp_client.manager import ToolInfo, ToolRequest

log = logging.getLogger(__name__)
INVALID = "invalid arguments"  # how the error of a call its schema refuses begins


@dataclass(frozen=True)
class PlannedCall:
    """A model tool call after resolution and validation: either a request or an error to feed back."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    request: ToolRequest | None = None
    error: str | None = None
    made_up: tuple[str, ...] = ()  # its numbers the question does not give (route_arguments.numbers.made_up_numbers)
    unnamed: str = ""  # refused: this list argument needs places that neither the question nor the conversation
    # names; `arguments` then hold the named ones in it
    fallback: ToolRequest | None = None  # made if `request` fails: the router's call, before its places were given


def planned_call(call: ModelToolCall, by_name: dict[str, ToolInfo], turn: Turn) -> PlannedCall:
    tool = resolve(call.name, by_name)
    if tool is None:
        known = ", ".join(by_name)
        return PlannedCall(call.id, call.name, {}, error=f"unknown tool {call.name!r}; available: {known}")
    schema = tool.input_schema
    try:
        arguments = tidy_arguments(decode_arguments(call.arguments), schema)
        arguments = with_asked_flags(without_unasked_flags(arguments, schema, turn.asked, turn.vocabulary), schema,
                                     turn.question, turn.vocabulary)
        arguments = with_earlier_flags(arguments, schema, _earlier_arguments(tool, by_name, turn), turn.question,
                                       turn.vocabulary)
        arguments = as_the_question_spells(arguments, schema, turn.question, turn.vocabulary, everything_said(turn))
        arguments = without_run_in_days(without_question_words(arguments, schema, turn.vocabulary), schema,
                                        turn.vocabulary, turn.question)
        arguments = without_run_in_quantities(arguments, schema, turn.vocabulary)
        arguments = without_unnamed_places(arguments, schema, everything_said(turn), turn.vocabulary)
        arguments = without_unasked_hours(arguments, schema, turn.asked if _follows_on_its_day(turn) else turn.question,
                                          turn.vocabulary)
        arguments = with_asked_part(with_clock_hours(arguments, schema, turn.question, turn.vocabulary), schema,
                                    turn.question, turn.vocabulary)
        day = question_day(turn.question, turn.today, turn.vocabulary)
        arguments = with_asked_day(arguments, schema, day, turn.today)
        arguments = with_asked_span(without_unasked_span(arguments, schema, day, turn.question), schema, day)
        arguments = with_asked_weekend(arguments, schema, turn.question, turn.today)
        # after the respelling: "Honolulu vs Nadi, Fiji" was called for Honolulu, Nadi and Fiji, each Nadi, Fiji
        arguments = without_repeated_places(arguments, schema, turn.vocabulary)
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
        return plan if plan.fallback else _without_opening(plan, tool, turn) or _without_leading_words(plan, tool, turn) \
            or _cut_before_a_word(plan, tool, turn) or _whole_written(plan, tool, turn) or plan
    return PlannedCall(call.id, tool.qualified_name, arguments, error=f"{INVALID}: {problem}")


def _follows_on_its_day(turn: Turn) -> bool:
    """Whether the question is a follow-up that keeps the conversation's time of day: not one that asks a question
    of its own, on a day of its own, after the place it turns to ("那大屿山呢，明天人多吗" after tomorrow at 8 asks
    of the whole day), nor one that names a day the question before it did not ("and how much fell in Dodge City
    yesterday?" after tomorrow night was asked of yesterday night)."""
    return conversation.is_follow_up(turn.question) and not day_words(conversation.own_question(turn.question)) \
        and day_words(turn.question) <= day_words(turn.earlier_question)


def _qualified(plan: PlannedCall, tool: ToolInfo, turn: Turn) -> PlannedCall:
    """The call with its places as the question writes them, qualifier included
    (route_arguments.place_names.with_qualifiers: "Moscow, Idaho - any news?" was called for "Moscow", in Russia);
    the router's own call is its fallback, made when the tool does not know the longer form. Characters merely run
    on before a place in Chinese go the other way: the longer form is the fallback of the router's, made when the
    tool does not know that one ("丽水" is two places, "浙江丽水" one)."""
    arguments = without_repeated_places(with_qualifiers(plan.arguments, tool.input_schema, turn.question,
                                                        turn.vocabulary), tool.input_schema, turn.vocabulary)
    if arguments == plan.arguments or validation_error(arguments, tool.input_schema) is not None:
        return plan
    if only_run_on(plan.arguments, arguments):
        # "画出北京" is no place and "浙江丽水" is one: text alone cannot tell, so the router's form goes first.
        return replace(plan, fallback=ToolRequest(tool.server, tool.name, arguments))
    log.info("%s: %r as the question writes them, not %r", plan.name, arguments, plan.arguments)
    return replace(plan, arguments=arguments, request=ToolRequest(tool.server, tool.name, arguments),
                   fallback=plan.request)


def _without_opening(plan: PlannedCall, tool: ToolInfo, turn: Turn) -> PlannedCall | None:
    """The call with its places less the words the follow-up opens with as its fallback: "那贡布呢" ("and
    Kampot?") was called for "那贡布". The router's form goes first, since text alone cannot tell it from a place
    of that name ("那坡县明天冷吗")."""
    return _with_fallback(plan, tool, without_opening(plan.arguments, tool.input_schema,
                                                      conversation.opening(turn.question), turn.vocabulary))


def _cut_before_a_word(plan: PlannedCall, tool: ToolInfo, turn: Turn) -> PlannedCall | None:
    """The call with its Chinese places cut before a word of the question's own as its fallback: "明天和龙会去吗"
    was called for "龙会" (和龙 is the place). The router's form goes first: 新会 is a place."""
    return _with_fallback(plan, tool, cut_before_a_word(plan.arguments, tool.input_schema, turn.question,
                                                        turn.vocabulary))


def _whole_written(plan: PlannedCall, tool: ToolInfo, turn: Turn) -> PlannedCall | None:
    """The call with its Chinese places as the question writes them whole, one character longer, as its fallback:
    "今晚第比利斯、埃里温和巴库哪个最冷" was called for "比利斯" and "埃里". The router's form goes first: text alone
    cannot tell "下龙湾" (a bay) from "明天下" and 龙湾 (a district)."""
    return _with_fallback(plan, tool, whole_written(plan.arguments, tool.input_schema, turn.question,
                                                    turn.vocabulary))


def _without_leading_words(plan: PlannedCall, tool: ToolInfo, turn: Turn) -> PlannedCall | None:
    """The call with its places less a time of day, a verb of going or a question's opening word run onto their
    start as its fallback ("早上八点大帽山", "飞黄刀镇", "Will Leh"). The router's form goes first: 回龙观 is a place."""
    return _with_fallback(plan, tool, without_leading_words(plan.arguments, tool.input_schema, turn.vocabulary))


def _with_fallback(plan: PlannedCall, tool: ToolInfo, arguments: dict[str, Any]) -> PlannedCall | None:
    """The call with `arguments` as its fallback, or None where they are the call's own or no valid call."""
    if arguments == plan.arguments or validation_error(arguments, tool.input_schema) is not None:
        return None
    return replace(plan, fallback=ToolRequest(tool.server, tool.name, arguments))


def _earlier_arguments(tool: ToolInfo, by_name: dict[str, ToolInfo], turn: Turn) -> list[dict[str, Any]]:
    """The arguments of the latest calls of the tool's server: what the conversation chose there (a unit)."""
    return [call["arguments"] for call in conversation.latest_calls(turn.history)
            if (earlier := resolve(call["tool"], by_name)) is not None and earlier.server == tool.server]


def everything_said(turn: Turn) -> str:
    """Everything the user and the assistant said before and in this question, and the calls behind it: where a
    call's places may come from."""
    return "\n".join([*(message["content"] for message in turn.plain_history), turn.earlier_calls, turn.question])


def planned_calls(calls: list[ModelToolCall], by_name: dict[str, ToolInfo], turn: Turn) -> tuple[PlannedCall, ...]:
    """A forced round's calls as planned; one that needs places nobody named, for the one place named, or left out."""
    planned = (planned_call(call, by_name, turn) for call in calls)
    return tuple(plan for plan in (_for_the_named_place(plan, by_name, turn) if plan.unnamed else plan
                                   for plan in planned) if plan is not None)


def _for_the_named_place(plan: PlannedCall, by_name: dict[str, ToolInfo], turn: Turn) -> PlannedCall | None:
    """A call of several places with one of them named ("Alice Springs in two days - scorcher or not?" compared
    with Sydney): that one place's call (for_one_place); none when more or fewer are named. Told that the place
    was not named, a small model made the same call again."""
    named = plan.arguments.get(plan.unnamed)
    return for_one_place(plan, plan.unnamed, named[0], by_name, turn) \
        if plan.unnamed and isinstance(named, list) and len(named) == 1 else None


def for_one_place(plan: PlannedCall, listed: str, named: str, by_name: dict[str, ToolInfo],
                  turn: Turn) -> PlannedCall | None:
    """A call of a list of places (its argument `listed`) as the call of its server's first tool that takes one
    place, for `named`, and the call's other arguments; None when there is none."""
    tool = resolve(plan.name, by_name)
    if tool is None:
        return None
    rest = {name: value for name, value in plan.arguments.items() if name != listed}
    for other in by_name.values():
        place = place_argument(other.input_schema, turn.vocabulary)
        arguments = {**rest, place: named} if place else {}
        if other.server != tool.server or not arguments or not takes_exactly(other, arguments):
            continue
        again = replanned(PlannedCall(plan.call_id, other.qualified_name, {}), arguments, by_name, turn)
        if again.request is not None:
            log.info("%s for %r only, as %s", plan.name, named, other.qualified_name)
            return again
    return None


def replanned(plan: PlannedCall, arguments: dict[str, Any], by_name: dict[str, ToolInfo], turn: Turn) -> PlannedCall:
    """The call with changed arguments, planned (cleaned and validated) again."""
    return planned_call(ModelToolCall(plan.call_id, plan.name, dump_arguments(arguments)), by_name, turn)


def takes_exactly(tool: ToolInfo, arguments: dict[str, Any]) -> bool:
    """Whether the arguments give all the tool requires and nothing its schema lacks."""
    schema = tool.input_schema
    return set(schema.get("required", ())) <= set(arguments) <= set(schema.get("properties", {}))


def states_their_arguments(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], question: str) -> bool:
    """Whether the question writes every free-text argument of the planned calls (see unstated)."""
    return not unstated(planned, by_name, question)


def unstated(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], question: str) -> list[str]:
    tools = [resolve(plan.name, by_name) for plan in planned]
    return unstated_arguments([plan.arguments for plan in planned],
                              [tool.input_schema if tool else {} for tool in tools], question)


def real_calls(forced: ChatTurn) -> list[ModelToolCall]:
    """The distinct calls of a forced turn's first tool, unless it took the escape."""
    kept: list[ModelToolCall] = []
    for call in forced.tool_calls:
        if call.name == NO_TOOL or call.name != forced.tool_calls[0].name:
            break
        if all(call.arguments != earlier.arguments for earlier in kept):
            kept.append(call)
    return kept


def calls_in_text(content: str, by_name: dict[str, ToolInfo]) -> list[ModelToolCall]:
    """Tool calls written as JSON text, accepted only when every name is a known tool."""
    parsed = parse_tool_calls(content)
    if not parsed or any(resolve(call.name, by_name) is None for call in parsed):
        return []
    return [ModelToolCall(f"call_{i}", call.name, dump_arguments(call.arguments)
                          if isinstance(call.arguments, dict) else str(call.arguments))
            for i, call in enumerate(parsed)]


def resolve(name: str, by_name: dict[str, ToolInfo]) -> ToolInfo | None:
    """`server__tool`, or a bare tool name when exactly one server has it."""
    if name in by_name:
        return by_name[name]
    matches = [tool for tool in by_name.values() if tool.name == name]
    return matches[0] if len(matches) == 1 else None


def error_view(plan: PlannedCall) -> str:
    """What the router reads of a call refused before it ran, so it can repair it."""
    return json.dumps({"error": f"{plan.error}. Call the tool again with corrected arguments."}, ensure_ascii=False)
