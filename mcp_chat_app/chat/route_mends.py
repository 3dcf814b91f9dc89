"""Route's mends of a forced round's planned calls, each taking and giving a tuple of PlannedCall: with the values
the question states or the conversation's day where calls asked with the conversation took others, with the tool
the question's words or the latest call point to, the same call for each value the question names with one, one
call of a list tool for a question that asks which place wins (of the places it names, or the conversation's),
calls moved to a tool that takes the hour or the day asked, and calls for places nobody named left out."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from mcp_chat_app.chat import conversation
from mcp_chat_app.chat.own_answer import needs_tool_data, says_a_listed_term, says_what_it_does
from mcp_chat_app.chat.route_arguments.days import (
    asks_which_day,
    counts_days,
    day_forms,
    names_another_day,
    says_now,
    sentences_saying_now,
    takes_a_day,
    with_earlier_day,
)
from mcp_chat_app.chat.route_arguments.hours import hours_argument, takes_hours
from mcp_chat_app.chat.route_arguments.numbers import made_up_numbers, measurement_arguments
from mcp_chat_app.chat.route_arguments.place_names import (
    added_names,
    chinese_name_said,
    compares,
    joined_names,
    names_no_place,
    qualified,
    said_apart,
    siblings,
)
from mcp_chat_app.chat.route_arguments.places import place_argument, place_list_argument, place_values, unnamed_places
from mcp_chat_app.chat.route_arguments.stated import mentioned, stated_arguments, states_its_arguments
from mcp_chat_app.chat.route_plan import (
    INVALID,
    PlannedCall,
    everything_said,
    for_one_place,
    replanned,
    resolve,
    states_their_arguments,
    takes_exactly,
)
from mcp_chat_app.chat.route_prompt import dump_arguments
from mcp_chat_app.chat.text.claims import is_yes_no_question
from mcp_chat_app.chat.text.clock import clock_times, parts_of_day
from mcp_chat_app.chat.text.day_words import asked_day, day_references, names_an_earlier_day, without_day_words
from mcp_chat_app.chat.text.languages import in_another_script
from mcp_chat_app.chat.text.quantities import Quantity, asked_quantities, described, field_matches
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.mcp_client.manager import ToolInfo
from mcp_chat_app.mcp_client.results import ToolOutcome

log = logging.getLogger(__name__)

_A_TERM = re.compile(r"[A-Z0-9.]+|\S*\d\S*")  # "UV", "PM2.5", "AQI": asked of, not places
# The latest answers whose places a comparison naming none is of ("哪个更冷" after A, then "那B呢").
_COMPARED_TURNS = 3
_FIGURE = re.compile(r"\d|零")
# One place the question speaks of by where it is, not by name ("there tomorrow?", "那边冷吗"): not "is there".
_THERE = re.compile(r"那里|那边|那儿|那裡|那邊|那兒|\b(?:in|at|over|out|up|down|be|it) there\b|\bthere\s*(?:tomorrow|"
                    r"today|tonight|now|this|next|on|\?|$)", re.IGNORECASE)
# Where the user is, and where they are going ("我在昆明，下周五去西双版纳，那天怎么样"; "I'm in Denver, flying to
# Boise tomorrow - will it be cold?"): the question is about the place gone to.
_WHERE_I_AM = r"(?:我(?:现在|人)?在|\bI'?m (?:in|at|staying in)|\bI am (?:in|at))\s*"
# where the user is, or sets out from ("从赫尔辛基坐渡轮去塔林", "flying from Denver to Boise")
_HERE = rf"(?:{_WHERE_I_AM}|(?:从|\bfrom|\bleaving)\s*)"
_GOING = re.compile(r"(?:去|到|飞|前往)(?!年|时|底|了|过|机|哪)\s*(?P<zh>[\u3400-\u9fff]{2,}?)"
                    r"(?=玩|旅游|出差|看看|[，,。？?！!\s]|那|的|$)|\b(?:going|heading|flying|driving|off|travel(?:l)?ing)"
                    r" to\s+(?P<en>[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*)*)")
_ON_TO = re.compile(r"\s+to\s+(?P<en>[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*)*)")  # "from Denver to Boise"
# A stop on the way, which the question's day is about ("driving Adelaide to Darwin, stopping in Coober Pedy on
# tuesday", "自驾从昆明到大理，途经楚雄").
_STOPPING = re.compile(r"\b(?:stopping|stopping\s+over|staying|overnighting|a\s+stop(?:over)?)\s+(?:in|at)\s+"
                       r"(?P<en>[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*)*)"
                       r"|(?:途经|路过|经停|中途停在|停在|停留在)\s*(?P<zh>[\u3400-\u9fff]{2,}?)(?=[，,。？?！!\s]|那|的|$)")


def with_stated_values(planned: tuple[PlannedCall, ...], alone: tuple[PlannedCall, ...],
                       by_name: dict[str, ToolInfo], turn: Turn) -> tuple[PlannedCall, ...]:
    """A call asked with the conversation, with the free-text values (a place) the question states where the
    call asked with the question alone (`alone`) took them from it and this one took earlier ones: shown the
    earlier calls, a small model answered "芽庄呢？" with the previous place."""
    if len(planned) != 1 or len(alone) != 1 or states_their_arguments(planned, by_name, turn.question):
        return planned
    (plan,), (first,) = planned, alone
    tool = resolve(plan.name, by_name)
    schema = tool.input_schema if tool else {}
    def states(name: str, value: Any) -> bool:  # arguments that are no free text (a day, a flag) state nothing
        return states_its_arguments([{name: value}], [schema], turn.question)

    replaced = {name: first.arguments[name] for name, value in plan.arguments.items()
                if name in first.arguments and states(name, first.arguments[name]) and not states(name, value)}
    if not replaced:
        return planned
    log.info("%s: %r as the question states it, not the earlier calls' %r", plan.name, replaced,
             {name: plan.arguments[name] for name in replaced})
    return (replanned(plan, {**plan.arguments, **replaced}, by_name, turn),)


def with_own_tool(planned: tuple[PlannedCall, ...], alone: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                  turn: Turn) -> tuple[PlannedCall, ...]:
    """A call asked with the conversation that repeats the latest calls' tool, for a question that says the words
    of the tool called for it alone and none of the repeated one's (as their descriptions list them), as the call
    of that tool with the conversation's values where it made them up (the place): shown the earlier calls, a small
    model drew the week's chart once more for "这周末冷不冷". A question that, but for its day words, says no quantity
    and no tool's words keeps the conversation's tool ("阿姆利则明天呢" after the air quality asks the air again,
    though another tool's description lists 明天)."""
    if len(planned) != 1 or not alone or planned[0].request is None or alone[0].request is None:
        return planned
    (plan,), first = planned, alone[0]
    tool, own = resolve(plan.name, by_name), resolve(first.name, by_name)
    latest = {call["tool"] for call in conversation.latest_calls(turn.history)}
    rest = without_day_words(turn.question)
    only_days = not asked_quantities(rest, turn.vocabulary) and not any(
        says_a_listed_term(rest, either) for either in (tool, own) if either is not None)
    if tool is None or own is None or tool is own or latest != {tool.qualified_name} or only_days \
            or says_a_listed_term(turn.question, tool) or not says_a_listed_term(turn.question, own):
        return planned
    made_up = {name for name, value in first.arguments.items()
               if not states_its_arguments([{name: value}], [own.input_schema], turn.question)}
    if not made_up <= set(plan.arguments):
        return planned
    log.info("%s, not %s: the question says the words of the one and none of the other's", own.qualified_name,
             tool.qualified_name)
    arguments = {**first.arguments, **{name: plan.arguments[name] for name in made_up}}
    return (replanned(PlannedCall(plan.call_id, own.qualified_name, {}), arguments, by_name, turn),)


def to_the_drawing_tool(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                        turn: Turn) -> tuple[PlannedCall, ...]:
    """A question that asks for a drawing (a term its description lists, of the one tool of the server whose results
    carry an image: "把下周的票价画个图", "the prices for the next 10 days as a chart") called with another tool: the
    drawing tool's call, with the arguments of that call it takes, and a choice its schema lists made by the
    question's quantities or the other tool's name (get_prices: "prices")."""
    plan = planned[0] if len(planned) == 1 else None
    tool = resolve(plan.name, by_name) if plan is not None and plan.request is not None else None
    # (the call's own values aside: "明天阿拉木图多冷" names a place, not a drawing, by the 图 in it)
    unnamed = turn.question
    for value in plan.arguments.values() if plan is not None else ():
        if isinstance(value, str) and value:
            unnamed = unnamed.replace(value, " ")
    drawing = [other for other in by_name.values() if tool is not None and other.server == tool.server
               and draws(other) and says_a_listed_term(unnamed, other)]
    if tool is None or draws(tool) or len(drawing) != 1:
        return planned
    (target,) = drawing
    properties = target.input_schema.get("properties", {})
    arguments = {name: value for name, value in plan.arguments.items() if name in properties}
    fields = [quantity.field for quantity in asked_quantities(turn.question, turn.vocabulary)]
    for name, spec in properties.items():
        options = spec.get("enum", []) if isinstance(spec, dict) else []
        chosen = [option for option in options if isinstance(option, str)
                  and (any(field_matches(option, field) for field in fields) or option in tool.name)]
        if name not in arguments and len(chosen) == 1:
            arguments[name] = chosen[0]
    again = replanned(PlannedCall(plan.call_id, target.qualified_name, {}), arguments, by_name, turn)
    if again.request is None:
        return planned
    log.info("%s, not %s: the question asks for a drawing", target.qualified_name, tool.qualified_name)
    return (again,)


def from_the_drawing_tool(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                          turn: Turn) -> tuple[PlannedCall, ...]:
    """A call of the drawing tool for a question that asks for the data as a whole and for no drawing (the overview
    of another place tomorrow, after a chart of a week, was drawn, copied from the conversation): the first tool of
    the server that draws nothing, answers more than yes or no and takes the most of the call's arguments."""
    plan = planned[0] if len(planned) == 1 else None
    tool = resolve(plan.name, by_name) if plan is not None and plan.request is not None else None
    if tool is None or not draws(tool) or says_a_listed_term(turn.question, tool) \
            or not turn.vocabulary.asks_overview(turn.question):
        return planned
    # (the most of its arguments: the day kept, not the present moment's tool)
    again = _to_the_one_taking_most(plan, tool, plan.arguments, lambda target, arguments: True, by_name, turn,
                                    "the question asks for no drawing")
    return (again,) if again is not None else planned


def from_a_search_of_places(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                            turn: Turn) -> tuple[PlannedCall, ...]:
    """A call of a tool that takes no place (a search across places) for a yes-or-no question that asks no "which"
    nor "where", in a conversation about one place ("any night below 5 in that stretch?" after a week's chart of
    one town was called as a search of every town): the latest call's arguments, for the first tool of its server
    that takes the most of them, draws nothing, answers more than yes or no, and holds every quantity asked."""
    plan = planned[0] if len(planned) == 1 else None
    tool = resolve(plan.name, by_name) if plan is not None and plan.request is not None else None
    latest = conversation.latest_tried(turn.history)
    if tool is None or place_argument(tool.input_schema, turn.vocabulary) is not None \
            or place_list_argument(tool.input_schema, turn.vocabulary) is not None or len(latest) != 1 \
            or len(_places_of(latest, by_name, turn)) != 1 or _WHICH.search(turn.question) \
            or says_a_listed_term(turn.question, tool) or not is_yes_no_question(turn.question):
        return planned
    quantities = asked_quantities(turn.question, turn.vocabulary)
    (earlier,) = latest

    def of_the_place(target: ToolInfo, arguments: dict[str, Any]) -> bool:
        return place_argument(target.input_schema, turn.vocabulary) in arguments \
            and all(described(target.output_schema, quantity) for quantity in quantities)

    again = _to_the_one_taking_most(plan, tool, earlier["arguments"], of_the_place, by_name, turn,
                                    "a yes or no of the conversation's place")  # (its days kept)
    return (again,) if again is not None else planned


def from_a_list_of_one(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                       turn: Turn) -> tuple[PlannedCall, ...]:
    """A call that its schema refuses for a list of places holding one ("昨天和今天比，成都哪天更冷" compared 成都
    with nothing; asked again, a small model searched every place below a figure nobody gave): that place, with the
    call's other arguments it takes, for the other tool of its server that takes one place, draws nothing, answers
    more than yes or no and takes the most of them (the days compared, where one takes a day)."""
    moved = []
    for plan in planned:
        tool = resolve(plan.name, by_name) if plan.request is None else None
        listed = place_list_argument(tool.input_schema, turn.vocabulary) if tool else None
        values = plan.arguments.get(listed) if listed else None
        if tool is None or not isinstance(values, list) or len(values) != 1:
            moved.append(plan)
            continue

        def its_place(target: ToolInfo, place: str = values[0]) -> dict[str, Any]:
            argument = place_argument(target.input_schema, turn.vocabulary)
            return {argument: place} if argument else {}

        rest = {name: value for name, value in plan.arguments.items() if name != listed}
        again = _to_the_one_taking_most(plan, tool, rest, lambda target, kept: bool(its_place(target)), by_name, turn,
                                        "the list of places holds one", added=its_place)
        moved.append(again or plan)
    return tuple(moved)


def _to_the_one_taking_most(plan: PlannedCall, tool: ToolInfo, arguments: dict[str, Any],
                            fits: Callable[[ToolInfo, dict[str, Any]], bool], by_name: dict[str, ToolInfo],
                            turn: Turn, why: str,
                            added: Callable[[ToolInfo], dict[str, Any]] = lambda target: {}) -> PlannedCall | None:
    """The call made, with those of `arguments` it takes (and the `added` ones), of the other tool of `tool`'s
    server that draws nothing, answers more than yes or no, `fits` them and takes the most of them; None where none
    does."""
    def taken(target: ToolInfo) -> dict[str, Any]:
        properties = target.input_schema.get("properties", {})
        return {name: value for name, value in arguments.items() if name in properties}

    for target in sorted(by_name.values(), key=lambda other: -len(taken(other))):
        kept = {**added(target), **taken(target)}
        if target.server == tool.server and target is not tool and not draws(target) \
                and not _answers_yes_or_no(target) and takes_exactly(target, kept) and fits(target, kept):
            again = replanned(PlannedCall(plan.call_id, target.qualified_name, {}), kept, by_name, turn)
            if again.request is not None:
                log.info("%s, not %s: %s", target.qualified_name, plan.name, why)
                return again
    return None


# A question that asks which places, or where ("which ones", "哪些", "哪里"): a search's question.
_WHICH = re.compile(r"\b(?:which|where|what\s+(?:places|cities|towns))\b|哪", re.IGNORECASE)


# The field of an image's MIME type, by which a tool's output schema says its results carry one.
_IMAGE = Quantity("mime_type", "mime_type", ())


def draws(tool: ToolInfo) -> bool:
    """Whether a tool's results carry an image (its output schema has a MIME type)."""
    return described(tool.output_schema, _IMAGE)


def from_a_yes_or_no_tool(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                          turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls of a tool whose results are yes-or-no answers (two flags or more) for a question that says none of
    what it does (its listed terms, its description's words) and asks for quantities: moved to the first tool of the
    server that takes the same arguments, draws nothing and holds every quantity asked (a small model called the
    tool of "is it open?" for "how busy at night?" and "晚上挤不挤", whose answer is its yes or no, not the figures).
    So too a follow-up that asks nothing of its own ("and the day after?", "what about Wanaka on that day?" after a
    yes or no): the tool that holds the most answers it, its yes or no among its verdicts, and the rest it asks for
    ("we fly there in 2 days") beside them; one that takes a day where the yes-or-no tool did."""
    quantities = asked_quantities(turn.question, turn.vocabulary)
    follows = not quantities and bool(turn.earlier_calls) and conversation.is_follow_up(turn.question)
    if not quantities and not follows:
        return planned

    def holds_them(target: ToolInfo) -> bool:
        return not _answers_yes_or_no(target) and not draws(target) \
            and all(described(target.output_schema, quantity) for quantity in quantities) \
            and (not follows or takes_a_day(target.input_schema))

    moved = []
    for plan in planned:
        tool = resolve(plan.name, by_name) if plan.request is not None else None
        if tool is not None and _answers_yes_or_no(tool) and not says_what_it_does(turn.question, tool):
            plan = _to_the_first(plan, tool, holds_them, by_name, turn, "the question asks for quantities, not "
                                                                          "its yes or no")
        moved.append(plan)
    return tuple(moved)


def _to_the_first(plan: PlannedCall, tool: ToolInfo, fits: Callable[[ToolInfo], bool],
                  by_name: dict[str, ToolInfo], turn: Turn, why: str) -> PlannedCall:
    """The call moved to the first other tool of its server that `fits` and takes its arguments, else (less the
    defaults it lacks) the first that takes the rest, or as it is: a day the router gave is kept where a tool takes
    it ("today" of a tool of days, not of the present moment)."""
    candidates = [target for target in by_name.values()
                  if target.server == tool.server and target is not tool and fits(target)]
    for dropping in (False, True):
        for target in candidates:
            arguments = _without_defaults_it_lacks(plan.arguments, tool, target) if dropping else plan.arguments
            if takes_exactly(target, arguments):
                again = replanned(PlannedCall(plan.call_id, target.qualified_name, {}), arguments, by_name, turn)
                if again.request is not None:
                    log.info("%s moved to %s: %s", plan.name, target.qualified_name, why)
                    return again
    return plan


def _answers_yes_or_no(tool: ToolInfo) -> bool:
    """Whether a tool's results are yes-or-no answers: two flags or more at their top level."""
    properties = (tool.output_schema or {}).get("properties", {})
    return sum(isinstance(spec, dict) and spec.get("type") == "boolean" for spec in properties.values()) >= 2


_TOO = re.compile(r"\b(?:too|also|as well|both|each|either)\b|也|都|还有|两地|两个|分别", re.IGNORECASE)


def with_earlier_tool(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                      turn: Turn) -> tuple[PlannedCall, ...]:
    """A follow-up that says only a new value ("芽庄呢？" after a question on 岘港 on Sunday), a new day ("and how
    about tomorrow?" after the air today) or other units asks what the latest call asked, of it: a small model
    called another tool of that server (its first question's, copied from the conversation). The latest call may
    have failed ("ok fair, how about Roseau?" after a place of stories was compared with itself)."""
    latest = conversation.latest_tried(turn.history)
    if len(planned) != 1 or len(latest) != 1 or planned[0].request is None:
        return planned
    (plan,), (earlier,) = planned, latest
    tool, before = resolve(plan.name, by_name), resolve(earlier["tool"], by_name)
    unit_words = tuple(word for words in turn.vocabulary.unit_systems.values() for word in words)
    only = ""  # what the follow-up says alone, when it is the latest call's to answer
    if before is not None and before is not tool:
        if conversation.says_only_a_day(turn.question) and takes_a_day(before.input_schema):
            only = "a day"
        elif conversation.says_only_units(turn.question, unit_words):  # "in pounds pls" after a price
            only = "units"
    if only:
        again = replanned(PlannedCall(plan.call_id, before.qualified_name, {}), dict(earlier["arguments"]), by_name,
                          turn)
        if again.request is not None:
            log.info("%s, not %s: the follow-up says only %s", before.qualified_name, plan.name, only)
            return (again,)
    stated = stated_arguments(plan.arguments, tool.input_schema, turn.question) if tool else {}
    listed = place_list_argument(tool.input_schema, turn.vocabulary) if tool else None
    place = place_argument(before.input_schema, turn.vocabulary) if before else None
    if listed and compares(turn.question, turn.vocabulary):
        return planned  # "hotter than florence?" after Bologna: the comparison the router made is asked
    if listed and isinstance(items := plan.arguments.get(listed), list) and len(items) > 1 \
            and not added_names(turn.question) and not _TOO.search(turn.question) \
            and len(said := [item for item in items if isinstance(item, str)
                             and mentioned(item, turn.question.casefold())]) == 1 \
            and (one := for_one_place(plan, listed, said[0], by_name, turn)) is not None:
        # "ok, ljubljana prices for that day then" after Salzburg and Ljubljana were compared: asks of the one
        return (one,)
    if not stated and listed and place and isinstance(earlier["arguments"].get(place), str):
        # "what about Tartu?" after a question on Oulu, called as a comparison of Oulu and Tartu (copied from an
        # earlier call): the one place it says, as the latest call's place.
        said = list(dict.fromkeys(item for item in plan.arguments.get(listed) or []
                                  if isinstance(item, str) and mentioned(item, turn.question.casefold())))
        stated = {place: said[0]} if len(said) == 1 else {}
    elif not stated and place and tool is not None and place_argument(tool.input_schema, turn.vocabulary) is None \
            and listed is None and (name := conversation.named_alone(turn.question)):
        # "哈尔滨呢" after a question on 漠河, called as the search of places the conversation began with (copied
        # from it): a tool of no place cannot be asked of the one it says.
        stated = {place: name}
    if before is None or before is tool or not conversation.says_only(turn.question, list(stated.values())) \
            or not all(isinstance(earlier["arguments"].get(name), str) for name in stated):
        return planned
    log.info("%s, not %s: the follow-up says only %r", before.qualified_name, plan.name, stated)
    return (replanned(PlannedCall(plan.call_id, before.qualified_name, {}), {**earlier["arguments"], **stated},
                      by_name, turn),)


def with_the_place_said(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                        turn: Turn) -> tuple[PlannedCall, ...]:
    """A follow-up that says one name alone ("and Berbera?"), or beside its day ("and Split the day before
    yesterday?"), asks of it: a call for another place, that the question does not name (the router copied
    Djibouti, or Dubrovnik, from the question before), is made for it. Not a term, a quantity or a unit ("and UV?",
    "and in pounds?")."""
    name = (conversation.named_alone(turn.question) or conversation.named_beside_its_day(turn.question)) \
        if conversation.is_follow_up(turn.question) else ""
    if len(planned) != 1 or planned[0].request is None or not name or _A_TERM.fullmatch(name) \
            or asked_quantities(name, turn.vocabulary) or name.casefold() in turn.vocabulary.plain_words:
        return planned
    (plan,) = planned
    _, place, value = place_of(plan, by_name, turn)
    if not isinstance(value, str) or mentioned(value, turn.question.casefold()):
        return planned
    again = replanned(plan, {**plan.arguments, place: name}, by_name, turn)
    if again.request is None:
        return planned
    log.info("%s for %r, not %r: the follow-up says it alone", plan.name, name, value)
    return (again,)


def with_earlier_days(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                      turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls asked with the conversation, on the latest calls' day when the question names none; a call the schema
    refused for its day too ("那天呢" after 2026-12-11 was called for day 2026, the router copying the year)."""
    earlier = [call.get("arguments", {}) for call in conversation.latest_calls(turn.history)]
    kept = []
    for plan in planned:
        tool = resolve(plan.name, by_name)
        arguments = with_earlier_day(plan.arguments, tool.input_schema, earlier, turn.question, turn.today) \
            if tool and (plan.request or (plan.error or "").startswith(INVALID)) else plan.arguments
        kept.append(plan if arguments == plan.arguments else replanned(plan, arguments, by_name, turn))
    return tuple(kept)


def with_earlier_figures(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                         turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls asked with the conversation, for a question that writes no figure, with the figures of the latest call
    of their tool: "what about the day after?" after "make it 20 to 25" (after "between 25 and 30") was searched
    from 20 to 30, one figure of each."""
    latest = {call["tool"]: call.get("arguments", {}) for call in conversation.latest_calls(turn.history)}
    kept = []
    for plan in planned:
        tool, earlier = resolve(plan.name, by_name), latest.get(plan.name)
        if tool is None or plan.request is None or earlier is None \
                or not made_up_numbers(plan.arguments, tool.input_schema, turn.question):
            kept.append(plan)
            continue
        figures = set(measurement_arguments(plan.arguments, tool.input_schema)) | set(
            measurement_arguments(earlier, tool.input_schema))
        arguments = {**{name: value for name, value in plan.arguments.items() if name not in figures},
                     **{name: earlier[name] for name in figures if name in earlier}}
        if arguments != plan.arguments:
            log.info("%s with the latest call's figures: %r", plan.name, {name: earlier.get(name) for name in figures})
        kept.append(plan if arguments == plan.arguments else replanned(plan, arguments, by_name, turn))
    return tuple(kept)


def without_unasked_days(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                         turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls on a weekday or a date that neither the question names nor the latest calls were about, for a question
    that names no day, moved to the latest calls' day (where they agree on one) or to the tool's default day: "日落
    几点 想去洱海边拍照" after tomorrow's question on 大理 was called for Sunday (日 of 日落)."""
    if day_references(turn.question, turn.today) or says_now(turn.question) or names_an_earlier_day(turn.question) \
            or asked_day(turn.question, turn.today) is not None:
        return planned
    latest = conversation.latest_calls(turn.history)
    earlier = [call.get("arguments", {}) for call in latest]
    kept = []
    for plan in planned:
        tool = resolve(plan.name, by_name)
        properties = tool.input_schema.get("properties", {}) if tool else {}
        # A weekday or a date, even the gateway's today (the place's may be another); not an offset, which a
        # question's tense may say ("how was it?": yesterday).
        days = {name for name, value in plan.arguments.items() if day_forms(properties.get(name, {}))
                and isinstance(value, str)}
        if tool is None or plan.request is None or not days \
                or any(plan.arguments[name] == call.get(name) for call in earlier for name in days):
            kept.append(plan)  # no day, or the conversation's own
            continue
        arguments = with_earlier_day(plan.arguments, tool.input_schema, earlier, turn.question, turn.today)
        if arguments == plan.arguments:
            arguments = {name: value for name, value in plan.arguments.items() if name not in days}
        log.info("%s on %r, not %r: the question names no day", plan.name,
                 {name: arguments.get(name) for name in days}, {name: plan.arguments[name] for name in days})
        again = replanned(plan, arguments, by_name, turn)
        kept.append(again if again.request is not None else plan)
    return tuple(kept)


def with_siblings(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                  turn: Turn) -> tuple[PlannedCall, ...]:
    """One call for a value the question names with others ("Prague or Budapest"): the same call for each of
    them too, as a forced router is asked to make (a small model made the first only)."""
    if len(planned) != 1 or planned[0].request is None:
        return planned
    (plan,) = planned
    tool = resolve(plan.name, by_name)
    listed = _with_listed_siblings(plan, tool, by_name, turn) if tool else None
    if listed is not None:
        return (listed,)
    stated = stated_arguments(plan.arguments, tool.input_schema, turn.question) if tool else {}
    if len(stated) != 1:
        return planned
    ((name, value),) = stated.items()
    joined = joined_names(value) if compares(turn.question, turn.vocabulary) else []
    if joined:  # "海林和尚志" called as one place: the first, and the others as siblings
        plan = replanned(plan, {**plan.arguments, name: joined[0]}, by_name, turn)
        planned, value = (plan,), joined[0]
    others = joined[1:] or siblings(value, turn.question, turn.vocabulary)
    if not others or plan.request is None:
        return planned
    # A namesake qualified where the question writes it: "Cambridge MA or Cambridge in England" (each had been MA's)
    rest = turn.question[turn.question.find(value) + len(value):] if value in turn.question else ""
    others = [qualified(other, rest, turn.vocabulary) if rest and value.casefold().startswith(other.casefold())
              else other for other in others]
    log.info("%s for %r too: the question names them with %r", plan.name, others, value)
    more = tuple(replanned(PlannedCall(f"{plan.call_id}_{i}", plan.name, {}), {**plan.arguments, name: other},
                           by_name, turn) for i, other in enumerate(others, 1))
    return planned + tuple(extra for extra in more if extra.request is not None)


def _with_listed_siblings(plan: PlannedCall, tool: ToolInfo, by_name: dict[str, ToolInfo],
                          turn: Turn) -> PlannedCall | None:
    """A call whose list of places the question writes (each of them) but for names it lists with them, those
    added ("which of NYC, Boston and Philly…" was compared for NYC and Boston); None where nothing is added."""
    listed = place_list_argument(tool.input_schema, turn.vocabulary)
    items = plan.arguments.get(listed) if listed else None
    asked = turn.question.casefold()
    if not isinstance(items, list) or not items or not all(isinstance(item, str) and mentioned(item, asked)
                                                            for item in items):
        return None
    have = [item.casefold() for item in items]
    added = [other for other in siblings(items[0], turn.question, turn.vocabulary)  # none part of one listed (埃里)
             if not any(other.casefold() in item or item in other.casefold() for item in have)]
    if not added:
        return None
    again = replanned(plan, {**plan.arguments, listed: [*items, *added]}, by_name, turn)
    log.info("%s with %r too: the question lists them with %r", plan.name, added, items)
    return again if again.request is not None else None


def with_added_places(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                      turn: Turn) -> tuple[PlannedCall, ...]:
    """A list of places with the names the question adds to it ("加上奉化呢，三个里面哪个最热" copied the two places
    of the call before); a call for an added place alone ("把丰宁也加进来，后天三个里哪个最冷" called for 丰宁) is the
    conversation's latest list call with it added, on this call's day."""
    added = added_names(turn.question)
    if not added:
        return planned
    mended = []
    for plan in planned:
        plan = _as_the_latest_list_call(plan, added, by_name, turn)
        tool, _, value = place_of(plan, by_name, turn) if plan.request else (None, None, None)
        if isinstance(value, str) and value.casefold() not in {name.casefold() for name in added}:
            # a place of the conversation the question compares the added ones with ("compared to Sydney, which
            # is colder tomorrow?" after Katoomba was called for Katoomba alone)
            plan = _with_the_others(plan, value, added, tool.server, by_name, turn)
            tool = resolve(plan.name, by_name)
        listed = place_list_argument(tool.input_schema, turn.vocabulary) if tool and plan.request else None
        items = plan.arguments.get(listed) if listed else None
        missing = [name for name in added if isinstance(items, list)
                   and name.casefold() not in {str(item).casefold() for item in items}]
        if not missing:
            mended.append(plan)
            continue
        log.info("%s: %r added, as the question says", plan.name, missing)
        again = replanned(plan, {**plan.arguments, listed: [*items, *missing]}, by_name, turn)
        mended.append(again if again.request is not None else plan)
    return tuple(mended)


def _as_the_latest_list_call(plan: PlannedCall, added: list[str], by_name: dict[str, ToolInfo],
                             turn: Turn) -> PlannedCall:
    """A call whose only place is an added one, as the latest call of the conversation that took a list of places,
    with the day arguments this call gives; the call as it is otherwise."""
    tool = resolve(plan.name, by_name)
    if tool is None or plan.request is None or place_list_argument(tool.input_schema, turn.vocabulary):
        return plan
    place = place_argument(tool.input_schema, turn.vocabulary)
    value = plan.arguments.get(place) if place else None
    if not isinstance(value, str) or value.casefold() not in {name.casefold() for name in added}:
        return plan
    for call in conversation.latest_calls(turn.history):
        earlier = resolve(str(call.get("tool")), by_name)
        listed = place_list_argument(earlier.input_schema, turn.vocabulary) if earlier else None
        items = call.get("arguments", {}).get(listed) if listed else None
        if earlier is None or not isinstance(items, list):
            continue
        days = {name: given for name, given in plan.arguments.items()
                if name != place and name in earlier.input_schema.get("properties", {})}
        again = replanned(PlannedCall(plan.call_id, earlier.qualified_name, {}),
                          {**call["arguments"], **days, listed: [*items, value]}, by_name, turn)
        if again.request is not None:
            log.info("%s for %r as %s with it added", plan.name, value, earlier.qualified_name)
            return again
    # No list call before: the places the conversation asked of one by one, when the question compares ("add
    # Tennant Creek - which of the three is hottest tomorrow?" after Kununurra, then Katherine).
    places, server = _conversations_places(by_name, turn)
    others = [name for name in places if name.casefold() != value.casefold()]
    return _with_the_others(plan, value, others, server or tool.server, by_name, turn)


def _with_the_others(plan: PlannedCall, value: str, others: list[str], server: str, by_name: dict[str, ToolInfo],
                     turn: Turn) -> PlannedCall:
    """The call of one place as a call of the server's list tool for `others` and it, when the question compares."""
    _, place, _ = place_of(plan, by_name, turn)
    if others and place and compares(turn.question, turn.vocabulary):
        again = _list_call(plan.call_id, [*others, value], server,
                           {name: given for name, given in plan.arguments.items() if name != place}, by_name, turn)
        if again is not None:
            log.info("%s for %r as %s with the conversation's places", plan.name, value, again.name)
            return again
    return plan


def without_comparatives(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                         turn: Turn) -> tuple[PlannedCall, ...]:
    """A list of places less a comparative word taken for one ("Colder on Saturday: Glasgow or Belfast?" called
    for ["Colder", "Glasgow", "Belfast"]), where two places remain."""
    comparatives = {word.casefold() for word in turn.vocabulary.comparatives}

    def places(items: list[Any]) -> list[Any] | None:
        kept = [item for item in items if str(item).casefold() not in comparatives]
        return kept if len(kept) >= 2 else None

    return _each_list(planned, by_name, turn, places, "not the comparative word")


_JOINER = re.compile(r"\b(?:or|and|vs\.?|versus)\b|[和与跟或、]|还是", re.IGNORECASE)


def with_qualified_places(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                          turn: Turn) -> tuple[PlannedCall, ...]:
    """A list of places with a name and its qualifier as two ("drier over next 5 days, seattle or portland
    oregon?" was compared for Seattle, Portland and Oregon): one, where the question writes the second right
    after the first, in a list it joins with "or"/"and" (a comma between them only after the last such word, as
    in "Seattle or Portland, Oregon")."""
    def qualified(items: list[Any]) -> list[Any] | None:
        merged: list[Any] = []
        for item in items:
            if merged and isinstance(item, str) and isinstance(merged[-1], str) and len(items) > 2 \
                    and _qualifies(merged[-1], item, turn.question):
                merged[-1] = f"{merged[-1]}, {item}"
            else:
                merged.append(item)
        return merged if len(merged) < len(items) else None

    return _each_list(planned, by_name, turn, qualified, "a place and its qualifier, as the question writes them")


def _qualifies(name: str, qualifier: str, question: str) -> bool:
    written = re.search(rf"(?<![^\W\d_]){re.escape(name)}(\s+|\s*,\s*){re.escape(qualifier)}(?![^\W\d_])", question,
                        re.IGNORECASE)
    if written is None:
        return False
    if "," in written[1]:
        return bool(_JOINER.search(question[:written.start()])) and not _JOINER.search(question[written.end():])
    return bool(_JOINER.search(question))


def with_distinct_places(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                         turn: Turn) -> tuple[PlannedCall, ...]:
    """A list of places naming one twice ("Which Charleston will be warmer?" called for ["Charleston",
    "Charleston"]), each time as the conversation's calls named a longer form of it, in their order
    ("Charleston, West Virginia", "Charleston, South Carolina"); with no such forms, its first as the conversation's
    one place where the list lacks it; a list with neither stays as it is."""
    earlier = list(dict.fromkeys(value for call in conversation.all_calls(turn.history)
                                 for value in call.get("arguments", {}).values() if isinstance(value, str)))

    def distinct(items: list[Any]) -> list[Any] | None:
        # one place in other writings ("Perth, WA", "perth, WA", "perth wa") is one place, said once
        first: dict[str, str] = {}
        kept = [item for item in items
                if first.setdefault(re.sub(r"[\W_]+", "", str(item).casefold()), str(item)) == str(item)]
        listed = kept if 2 <= len(kept) < len(items) else items
        folded = [str(item).casefold() for item in listed]
        if len(set(folded)) == len(folded):
            return listed if listed is not items else None
        forms = {name: [value for value in earlier if value.casefold().startswith(f"{name},")] for name in folded}
        named = [forms[name].pop(0) if forms[name] else item for name, item in zip(folded, listed)]
        twice = next((index for index, name in enumerate(folded) if folded.count(name) > 1), None)
        latest = _places_of(conversation.latest_tried(turn.history), by_name, turn) \
            if twice is not None and named[twice] == listed[twice] else set()
        if len(latest) == 1 and (place := next(iter(latest))).casefold() not in folded:
            # "跟清莱比明天哪个更热" after 清迈 was compared as 清莱 with itself: the conversation's place, first
            named[twice] = place
        return named

    return _each_list(planned, by_name, turn, distinct, "as the conversation named them")


def _each_list(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], turn: Turn,
               rewrite: Callable[[list[Any]], list[Any] | None], why: str) -> tuple[PlannedCall, ...]:
    """Each call with its list of places as `rewrite` gives it back (None: as it is)."""
    mended = []
    for plan in planned:
        tool = resolve(plan.name, by_name)
        listed = place_list_argument(tool.input_schema, turn.vocabulary) if tool and plan.request else None
        items = plan.arguments.get(listed) if listed else None
        rewritten = rewrite(items) if isinstance(items, list) else None
        if rewritten is None or rewritten == items:
            mended.append(plan)
            continue
        log.info("%s: %r for %r, %s", plan.name, rewritten, items, why)
        mended.append(replanned(plan, {**plan.arguments, listed: rewritten}, by_name, turn))
    return tuple(mended)


def as_one_comparison(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                      turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls of one tool, a place each, for a question that asks which of them wins ("明天宁德和莆田哪边风更大"), as
    one call of its server's tool that takes the places as a list and the calls' other arguments: that tool's
    results decide the winner, where each place's own result left it to the writer (a small model named the
    wrong one). The calls as they are where no tool takes them so."""
    if len(planned) < 2 or any(plan.request is None for plan in planned) or len({p.name for p in planned}) != 1 \
            or not compares(turn.question, turn.vocabulary):
        return planned
    tool = resolve(planned[0].name, by_name)
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
        if not takes_exactly(target, arguments):
            continue
        again = replanned(PlannedCall(planned[0].call_id, target.qualified_name, {}), arguments, by_name, turn)
        if again.request is not None:
            log.info("%s for %r as one call of %s: the question compares them", tool.qualified_name, places,
                     target.qualified_name)
            return (again,)
    return planned


def as_the_conversations_comparison(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                                    turn: Turn) -> tuple[PlannedCall, ...]:
    """For a question that asks which wins and names neither a place nor a figure ("哪个更冷" after Ann Arbor and
    Detroit), one call of a list tool for the places the conversation's latest calls were for, on their day: a
    small model called a tool of no place, its bound made up. Where the question names one place a call is for, that
    place and the conversation's one (_with_the_conversations_place); the calls as they are where the conversation
    had fewer than two places."""
    if not planned or not turn.history or not compares(turn.question, turn.vocabulary) \
            or _FIGURE.search(turn.question) or asks_which_day(turn.question):
        return planned  # (which day wins compares days: "warmest day of the next ten there?")
    said = [place for plan in planned if (tool := resolve(plan.name, by_name))
            for place in place_values(plan.arguments, tool.input_schema, turn.vocabulary)
            if mentioned(place, turn.question.casefold())]  # (typed in lowercase too: "windier than kraków?")
    if said:
        return _with_the_conversations_place(planned, said, by_name, turn)
    places, server = _conversations_places(by_name, turn)
    if len(places) < 2:
        return planned
    again = _list_call(planned[0].call_id, places, server, {}, by_name, turn)
    if again is None:
        return planned
    log.info("%s for %r: the question compares the conversation's places", again.name, places)
    return with_earlier_days((again,), by_name, turn)


# A question that asks which day or hour wins compares times of one place, not places.
_WHICH_TIME = re.compile(r"\bwhich\s+(?:day|hour|time|night|morning)|\bwhen\b|哪天|哪一天|几点|什么时候|几号|哪个时段",
                         re.IGNORECASE)


def _with_the_conversations_place(planned: tuple[PlannedCall, ...], said: list[str], by_name: dict[str, ToolInfo],
                                  turn: Turn) -> tuple[PlannedCall, ...]:
    """One call of a list tool for the one place the conversation was about and the one the question names, for a
    question that asks which wins: "Compare with Montevideo on Saturday — which is warmer?" after Buenos Aires was
    called for Montevideo alone. A list call of the place named and one the question does not name is of the
    latest call's one place: "跟Burlington, Vermont比，明天哪边更便宜" after Portland, Maine's prices was compared with
    Boise, named turns before."""
    tool = resolve(planned[0].name, by_name)
    if len(planned) != 1 or tool is None or len(set(said)) != 1 or _WHICH_TIME.search(turn.question):
        return planned
    listed = place_list_argument(tool.input_schema, turn.vocabulary)
    if listed is not None:
        return _with_the_latest_place(planned[0], listed, said[0], by_name, turn)
    places, server = _conversations_places(by_name, turn)
    if len(places) != 1 or places[0].casefold() == said[0].casefold():
        return planned
    place = place_argument(tool.input_schema, turn.vocabulary)
    arguments = {name: value for name, value in planned[0].arguments.items() if name != place}
    again = _list_call(planned[0].call_id, [places[0], said[0]], server, arguments, by_name, turn)
    if again is None:
        return planned
    log.info("%s for %r: the question compares %r with the conversation's place", again.name, again.arguments,
             said[0])
    return (again,)


def _with_the_latest_place(plan: PlannedCall, listed: str, said: str, by_name: dict[str, ToolInfo],
                           turn: Turn) -> tuple[PlannedCall, ...]:
    latest = _places_of(conversation.latest_tried(turn.history), by_name, turn)
    items = plan.arguments.get(listed)
    others = [str(item) for item in items if str(item).casefold() != said.casefold()] \
        if isinstance(items, list) and len(items) == 2 else []
    if len(latest) != 1 or len(others) != 1 or mentioned(others[0], turn.question.casefold()) \
            or {others[0].casefold(), said.casefold()} & {place.casefold() for place in latest}:
        return (plan,)
    (place,) = latest
    again = replanned(plan, {**plan.arguments, listed: [place, said]}, by_name, turn)
    if again.request is None:
        return (plan,)
    log.info("%s for %r, not %r: the latest call's place", again.name, place, others[0])
    return (again,)


def _conversations_places(by_name: dict[str, ToolInfo], turn: Turn) -> tuple[list[str], str | None]:
    """The places the conversation's latest calls were for, in order, and the server of their tools."""
    places: list[str] = []
    server = None
    for answer in conversation.latest_answers(turn.history, _COMPARED_TURNS):
        for call in answer:
            tool = resolve(call["tool"], by_name)
            found = place_values(call.get("arguments", {}), tool.input_schema, turn.vocabulary) if tool else []
            server = server or (tool.server if found else None)
            places += [place for place in found if place.casefold() not in {p.casefold() for p in places}]
    return places, server


def _list_call(call_id: str, places: list[str], server: str | None, arguments: dict[str, Any],
               by_name: dict[str, ToolInfo], turn: Turn) -> PlannedCall | None:
    """A call of the server's tool that takes a list of places, for `places`, with those of `arguments` it takes."""
    for target in by_name.values():
        listed = place_list_argument(target.input_schema, turn.vocabulary)
        if target.server != server or listed is None:
            continue
        taken = {name: value for name, value in arguments.items()
                 if name in target.input_schema.get("properties", {})}
        again = replanned(PlannedCall(call_id, target.qualified_name, {}), {**taken, listed: places}, by_name, turn)
        if again.request is not None:
            return again
    return None


def _without_defaults_it_lacks(arguments: dict[str, Any], tool: ToolInfo, target: ToolInfo) -> dict[str, Any]:
    """The arguments less those `target` does not take and whose value is `tool`'s default (a flag left off)."""
    properties, taken = tool.input_schema.get("properties", {}), target.input_schema.get("properties", {})
    return {name: value for name, value in arguments.items()
            if name in taken or "default" not in properties.get(name, {}) or properties[name]["default"] != value}


def asks_an_hour(turn: Turn) -> bool:
    """Whether the question names a clock time ("晚上九点") or a part of the day ("tonight")."""
    return any(clock_times(turn.question, turn.vocabulary)) or any(parts_of_day(turn.question, turn.vocabulary))


def asks_a_day(turn: Turn) -> bool:
    """Whether the question names a day other than today ("明儿", "this weekend", "yesterday"), or today and not
    the present moment ("今天信阳怎么样", "today's high": the whole day, not only the present), or days from today
    on ("lows for the next 5 days")."""
    offsets = day_references(turn.question, turn.today).values()
    asked = asked_day(turn.question, turn.today)  # a span of days ("lows for the next 5 days")
    return any(offset != 0 for offset in offsets) or (0 in offsets and not says_now(turn.question)) \
        or (asked is not None and asked.span)


def on_an_earlier_day(turn: Turn, by_name: dict[str, ToolInfo]) -> bool:
    """Whether the latest calls were all about a day other than today and the question names no day nor the
    present moment: following on from them, it asks about their day ("紫外线强吗" after 金边's tomorrow was called
    for the present moment; "顺便看看黄石那天的情况" too)."""
    latest = conversation.latest_calls(turn.history)
    if not latest or day_references(turn.question, turn.today) or says_now(turn.question):
        return False
    tools = [resolve(call["tool"], by_name) for call in latest]
    return all(tool is not None and names_another_day(call["arguments"], tool.input_schema, turn.today)
               for call, tool in zip(latest, tools))


def places_of(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], turn: Turn) -> set[str]:
    """The places the calls are for, folded."""
    return {place.casefold() for plan in planned if (tool := resolve(plan.name, by_name))
            for place in place_values(plan.arguments, tool.input_schema, turn.vocabulary)}


def left_out(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], asks: bool,
             takes: Callable[[dict[str, Any]], bool]) -> bool:
    """Whether the question asks for something (an hour, a day) and the calls go to tools that take no argument
    for it (`takes`, read from a schema), while another offered tool does."""
    if not planned or not asks:
        return False
    return not any(_takes(plan.name, by_name, takes) for plan in planned) \
        and any(_takes(name, by_name, takes) for name in by_name)


def _takes(name: str, by_name: dict[str, ToolInfo], takes: Callable[[dict[str, Any]], bool]) -> bool:
    tool = resolve(name, by_name)
    return tool is not None and takes(tool.input_schema)


def moved_to_hours(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                   turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls that a question on a clock time ("Chicago at 6pm") got twice for a tool of the present moment, moved
    to the first tool of the same server that takes the hours and the call's arguments, with the asked hours."""
    times = list(clock_times(turn.question, turn.vocabulary))
    hours = sorted({minute // 60 % 24 for time in times for minute in time.minutes})
    if not hours:
        return planned
    return _moved(planned, by_name, turn, takes_hours, lambda target: {hours_argument(target.input_schema): hours},
                  ", ".join(time.text for time in times))


def moved_to_a_day(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                   turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls that a question on a day ("How cold did it get yesterday?", "今天信阳怎么样") got twice for a tool of the
    present moment, moved to the first tool of the same server that takes a day and the call's arguments; the
    planning sets the asked day."""
    return _moved(planned, by_name, turn, takes_a_day, lambda target: {}, "a day")


def moved_to_the_present(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                         turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls that a question on the present moment alone ("淄博外面现在怎么样", "is it still windy right now") got
    for a tool of a day, on today and no hours, moved to the first tool of the same server that takes no day and
    whose results hold every quantity the question names: today's record is not what it is like now. A call no
    such tool takes, or holds the quantities of (air quality asked "now"), stays."""
    # (today beside "now" is the present's day: "is it busy there right now? driving in today"; a sentence of its
    # own that names a span is why it asks: "I'm in Lyon this week for work. Whats it like right now?")
    asked = sentences_saying_now(turn.question)
    if not says_now(asked) or set(day_references(asked, turn.today).values()) - {0} or asks_an_hour(turn):
        return planned
    quantities = asked_quantities(turn.question, turn.vocabulary)

    def of_the_present(target: ToolInfo) -> bool:
        return not takes_a_day(target.input_schema) and not takes_hours(target.input_schema) \
            and all(described(target.output_schema, quantity) for quantity in quantities)

    moved = []
    for plan in planned:
        tool = resolve(plan.name, by_name)
        if tool is not None and takes_a_day(tool.input_schema) \
                and not names_another_day(plan.arguments, tool.input_schema, turn.today):
            # (less a count of days the question gives in a sentence that does not say now)
            specs = tool.input_schema.get("properties", {})
            spanless = {name: value for name, value in plan.arguments.items()
                        if asked == turn.question or not counts_days(specs.get(name, {}))}
            present = _to_the_first(replace(plan, arguments=spanless), tool, of_the_present, by_name, turn,
                                    "the question asks about the present moment")
            plan = plan if present.name == plan.name else present
        moved.append(plan)
    return tuple(moved)


def _moved(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], turn: Turn,
           takes: Callable[[dict[str, Any]], bool], added: Callable[[ToolInfo], dict[str, Any]],
           asked: str) -> tuple[PlannedCall, ...]:
    """Each call to a tool that does not take what was asked, as the call of the first tool of its server that
    does and takes its arguments, with the `added` ones; a call no such tool takes stays as it is."""
    moved = []
    for plan in planned:
        tool = resolve(plan.name, by_name)
        target = None if tool is None or takes(tool.input_schema) else next(
            (other for other in by_name.values() if other.server == tool.server and takes(other.input_schema)
             and takes_exactly(other, plan.arguments)), None)
        if target is None:
            moved.append(plan)
            continue
        again = replanned(PlannedCall(plan.call_id, target.qualified_name, {}), {**plan.arguments, **added(target)},
                          by_name, turn)
        log.info("%s moved to %s: the question asks about %s", plan.name, target.qualified_name, asked)
        moved.append(again if again.request is not None else plan)
    return tuple(moved)


def moved_to_holding(made: tuple[ToolOutcome, ...], holding: list[ToolInfo], by_name: dict[str, ToolInfo],
                      turn: Turn) -> tuple[PlannedCall, ...]:
    """The calls made, each moved to the first of the `holding` tools of its server that takes its arguments: asked
    again for a quantity their results lack ("how cold does it get that night?" got the tool of the question
    before it twice), the router called none of the tools that hold it."""
    moved: dict[str, PlannedCall] = {}
    for number, outcome in enumerate(made):
        tool = by_name.get(outcome.qualified_name)
        if tool is None or outcome.is_error:
            continue
        for target in (other for other in holding if other.server == tool.server):
            arguments = _without_defaults_it_lacks(outcome.arguments, tool, target)
            again = replanned(PlannedCall(f"call_holding_{number}", target.qualified_name, {}), arguments, by_name,
                              turn) if takes_exactly(target, arguments) else None
            if again is not None and again.request is not None:
                log.info("%s moved to %s: its results lack what the question asks", tool.qualified_name,
                         target.qualified_name)
                moved.setdefault(again.name + dump_arguments(again.arguments), again)
                break
    return tuple(moved.values())


def with_named_places(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                      turn: Turn) -> tuple[PlannedCall, ...]:
    """The calls less those for a place that neither the question nor the conversation names (unless it is
    written in a script the user does not write: "香港" for "Hong Kong"). The argument checks drop an optional
    place nobody named but leave a required one to the router's check of made-up arguments, and a forced model
    told that a tool has the data made one up: "今天心情不错，跟你聊两句" got the data of 北京; one the question's
    own name may take (for_the_name_said) is made for it."""
    said = everything_said(turn)
    written = "\n".join([*(m["content"] for m in turn.plain_history if m["role"] == "user"), turn.question])
    kept = []
    for plan in planned:
        tool = resolve(plan.name, by_name)
        unnamed = [place for place in unnamed_places(plan.arguments, tool.input_schema, said, turn.vocabulary)
                   if not in_another_script(place, written)] if tool else []
        if not unnamed:
            kept.append(plan)
        elif renamed := for_the_name_said((plan,), by_name, turn):
            kept += renamed
        else:
            log.info("call of %s not made: %s named neither in the question nor in the conversation", plan.name,
                     ", ".join(unnamed))
    return tuple(kept)


def with_the_conversations_place(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                                 turn: Turn) -> tuple[PlannedCall, ...]:
    """A call whose place is a part of the conversation's one place said by no name (山上, 海边, 当地), or a word of
    the domain ("windy then?"), made for that place; with no such place, not made ("is a typhoon the same thing as
    a hurricane?" was compared for places named "Typhoon" and "Hurricane")."""
    latest = _places_of(conversation.latest_tried(turn.history), by_name, turn)
    if len(latest) != 1:
        kept = tuple(plan for plan in planned if not _names_no_place_at_all(plan, by_name, turn))
        if len(kept) < len(planned):
            log.info("calls not made: their places are words of the domain, and the conversation has no place")
        return kept
    (place,) = latest
    kept = []
    for plan in planned:
        argument, value, listed, items = _places_in(plan, by_name, turn)
        # "vs Abisko tonight — which one will be colder?" was compared for Abisko and a place named "vs"
        named = [place if isinstance(item, str) and names_no_place(item, turn.vocabulary) else item
                 for item in items] if isinstance(items, list) else items
        if argument and isinstance(value, str) and names_no_place(value, turn.vocabulary) \
                and (again := replanned(plan, {**plan.arguments, argument: place}, by_name, turn)).request is not None:
            log.info("%s for %r, not %r: a part of the conversation's place", plan.name, place, value)
            kept.append(again)
        elif named != items and (again := replanned(plan, {**plan.arguments, listed: list(dict.fromkeys(named))},
                                                    by_name, turn)).request is not None:
            log.info("%s for %r in its list: a word that names no place", plan.name, place)
            kept.append(again)
        else:
            kept.append(plan)
    return tuple(kept)


def _names_no_place_at_all(plan: PlannedCall, by_name: dict[str, ToolInfo], turn: Turn) -> bool:
    """Whether each place the call names is a word of the domain or no name at all (names_no_place)."""
    argument, value, _, items = _places_in(plan, by_name, turn)
    values = [value] if argument else items
    return isinstance(values, list) and bool(values) \
        and all(isinstance(item, str) and names_no_place(item, turn.vocabulary) for item in values)


def _places_in(plan: PlannedCall, by_name: dict[str, ToolInfo], turn: Turn) -> tuple[str | None, Any, str | None, Any]:
    """The call's place argument and its value, or else its list argument of places and that list."""
    tool, argument, value = place_of(plan, by_name, turn)
    listed = place_list_argument(tool.input_schema, turn.vocabulary) if tool and not argument else None
    return argument, value, listed, plan.arguments.get(listed) if listed else None


def one_place_meant(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo], turn: Turn) -> str:
    """The one place a call of several is about instead, or "": the latest answer's one place, when the question
    asks of "there" (那里), compares nothing and names none of the call's places."""
    latest = _places_of(conversation.latest_calls(turn.history), by_name, turn)
    if len(latest) != 1 or not _THERE.search(turn.question) or compares(turn.question, turn.vocabulary):
        return ""
    for plan in planned:
        tool = resolve(plan.name, by_name)
        listed = place_list_argument(tool.input_schema, turn.vocabulary) if tool else None
        places = plan.arguments.get(listed) if listed else None
        if isinstance(places, list) and len(places) > 1 and not any(
                isinstance(place, str) and mentioned(place, turn.question.casefold()) for place in places):
            return next(iter(latest))
    return ""


def _places_of(calls: list[dict[str, Any]], by_name: dict[str, ToolInfo], turn: Turn) -> set[str]:
    """The places the conversation's recorded calls were made for."""
    return {place for call in calls if (tool := resolve(call["tool"], by_name))
            for place in place_values(call.get("arguments", {}), tool.input_schema, turn.vocabulary)}


def replanned_for(plan: PlannedCall, place: str, by_name: dict[str, ToolInfo], turn: Turn) -> PlannedCall:
    """The call of one place, made for `place` as written (the conversation's "Livingstone, Zambia", not the
    router's "Livingstone")."""
    _, argument, _ = place_of(plan, by_name, turn)
    return replanned(plan, {**plan.arguments, argument: place}, by_name, turn) if argument else plan


def place_of(plan: PlannedCall, by_name: dict[str, ToolInfo], turn: Turn) -> tuple[ToolInfo | None, str | None, Any]:
    """The call's tool, the name of its place argument, and the place it is called for (None where it has none)."""
    tool = resolve(plan.name, by_name)
    place = place_argument(tool.input_schema, turn.vocabulary) if tool else None
    return tool, place, plan.arguments.get(place) if place else None


def for_the_destination(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                        turn: Turn) -> tuple[PlannedCall, ...]:
    """A call for the place the user says they are in or set out from, when the question goes on to the place they
    are going to and names the first no more: made for that place instead ("我在昆明，下周五去西双版纳，那天怎么样"
    was called for 昆明, "周日从赫尔辛基坐渡轮去塔林，塔林周日怎么样" for 赫尔辛基); so too for a stop on the way
    ("driving Adelaide to Darwin, stopping in Coober Pedy on tuesday next week" was called for Adelaide)."""
    if len(planned) != 1 or planned[0].request is None:
        return planned
    (plan,) = planned
    _, argument, value = place_of(plan, by_name, turn)
    here = re.search(rf"{_HERE}{re.escape(value)}", turn.question, re.IGNORECASE) if isinstance(value, str) else None
    going = (_ON_TO.match(turn.question, here.end()) or _GOING.search(turn.question, here.end())) if here else None
    stop = _STOPPING.search(turn.question)
    if stop and isinstance(value, str) and value in turn.question[:stop.start()]:
        going = stop  # (where it stops, not where it set out from nor where it goes)
    if going is None or value in turn.question[going.end():]:
        return planned
    destination = going.groupdict().get("zh") or going["en"]
    again = replanned(plan, {**plan.arguments, argument: destination}, by_name, turn)
    if again.request is None:
        return planned
    log.info("%s for %r, not %r: the user is going there", plan.name, destination, value)
    return (again,)


def without_where_the_user_is(plan: PlannedCall, by_name: dict[str, ToolInfo], turn: Turn) -> str:
    """The question less the clause that says where the user is, when the call is for that place and the rest of
    the question names it no more ("我在上海，想知道开罗那边现在的行情" was called for 上海); "" else."""
    _, _, value = place_of(plan, by_name, turn)
    if not isinstance(value, str) or not value.strip():
        return ""
    here = re.search(rf"{_WHERE_I_AM}{re.escape(value)}[^，,。.;；!！?？]*[，,。.;；]\s*", turn.question, re.IGNORECASE)
    rest = (turn.question[:here.start()] + turn.question[here.end():]).strip() if here else ""
    return rest if rest and value.casefold() not in rest.casefold() else ""


def for_the_one_said_apart(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                           turn: Turn) -> tuple[PlannedCall, ...]:
    """Calls of one place for a question that names none but says which one apart ("nah the canadian one, BC",
    "不对不对，是英国的那个" after Cambridge was called for London): made for the conversation's one place, so
    qualified; where it asks nothing of its own (no day, no quantity), the latest call again, of that place."""
    said = said_apart(turn.question)
    tried = conversation.latest_tried(turn.history)
    latest = _places_of(tried, by_name, turn)
    if not said or len(latest) != 1:
        return planned
    (place,) = latest
    qualified = f"{place.partition(',')[0]}, {said}"
    if len(tried) == 1 and not day_references(turn.question, turn.today) \
            and not asked_quantities(turn.question, turn.vocabulary):
        # it asks nothing of its own: the latest question again, of that place ("不对不对，是英国的那个")
        (call,) = tried
        tool = resolve(call["tool"], by_name)
        argument = place_argument(tool.input_schema, turn.vocabulary) if tool else None
        again = replanned(PlannedCall("said_apart", call["tool"], {}), {**call["arguments"], argument: qualified},
                          by_name, turn) if argument else None
        if again is not None and again.request is not None:
            log.info("%s for %r: the latest question, of the place the question says which of", again.name,
                     qualified)
            return (again,)
    mended = []
    for plan in planned:
        _, argument, value = place_of(plan, by_name, turn)
        head = value.partition(",")[0].strip() if isinstance(value, str) else ""
        again = replanned(plan, {**plan.arguments, argument: qualified}, by_name, turn) \
            if argument and head and not mentioned(head, turn.question.casefold()) else None
        if again is not None and again.request is not None:
            log.info("%s for %r, not %r: the question says which of the conversation's place", plan.name,
                     again.arguments[argument], value)
            plan = again
        mended.append(plan)
    return tuple(mended)


def for_the_name_said(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                      turn: Turn) -> tuple[PlannedCall, ...]:
    """For a question the tools answer that begins with a Chinese name, the calls of one place that nobody named
    made for that name instead, or none: "周末三都会冷吗" was called for 北京 twice, the router reading no place
    in 三都会."""
    name = chinese_name_said(turn.question, turn.vocabulary)
    if not name or not needs_tool_data(turn.question, by_name.values(), turn.vocabulary):
        return ()
    said = everything_said(turn)
    renamed = []
    for plan in planned:
        tool, argument, value = place_of(plan, by_name, turn)
        if not argument or unnamed_places(plan.arguments, tool.input_schema, said, turn.vocabulary) != [value]:
            return ()
        log.info("call of %s for %s, the name the question begins with, not %s", plan.name, name, value)
        renamed.append(replanned(plan, {**plan.arguments, argument: name}, by_name, turn))
    return tuple(plan for plan in renamed if plan.request is not None)
