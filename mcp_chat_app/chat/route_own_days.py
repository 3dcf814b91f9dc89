"""Places asked on days of their own ("Lisbon tomorrow then Seville in 3 days", "明天去乌镇，后天去西塘"): each
place's call made for the day of the clause that names it.

A small model gave both places one day, compared them over a span, or called the first alone. A question is read
this way only where two of its clauses or more each name one day, different days, and each names a place of the
calls (or a name the question writes there, for which a call like the first is added)."""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import replace
from typing import Any

from mcp_chat_app.chat.route_arguments.days import counts_days, with_asked_day
from mcp_chat_app.chat.route_arguments.place_names import first_name_in
from mcp_chat_app.chat.route_arguments.places import place_argument, place_list_argument
from mcp_chat_app.chat.route_arguments.stated import mentioned
from mcp_chat_app.chat.route_mends import draws, place_of, replanned_for
from mcp_chat_app.chat.route_plan import PlannedCall, replanned, resolve, takes_exactly
from mcp_chat_app.chat.text.day_words import AskedDay, asked_day, names_the_day_after
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.mcp_client.manager import ToolInfo

log = logging.getLogger(__name__)

# Where one leg of a plan ends and the next begins: a mark, a dash, "then", "and", 然后, 再去.
_CLAUSE_END = re.compile(r"[,，;；。!?？！:：]|\.(?=\s|$)|\s[—–-]+\s|[—–]"
                         r"|\s+(?:and\s+then|then|and|after\s+that|followed\s+by)\s+|然后|接着|之后|再(?=[去到飞回])",
                         re.IGNORECASE)


def dated_clauses(question: str, today: dt.date) -> list[tuple[str, AskedDay]]:
    """The question's clauses that name one day each ("the day after" counted from the clause before), where two of
    them or more name different days; none otherwise."""
    whole = asked_day(question, today)
    if whole is not None and whole.span:  # "tomorrow and the day after in Oslo": a run of days
        return []
    dated: list[tuple[str, AskedDay]] = []
    for clause in _CLAUSE_END.split(question):
        day = asked_day(clause, today)
        if day is None and dated and names_the_day_after(clause):
            day = AskedDay(clause.strip(), dated[-1][1].offset + 1)
        if day is not None and not day.span:
            dated.append((clause, day))
    return dated if len({day.offset for _, day in dated}) >= 2 else []


def on_their_own_days(planned: tuple[PlannedCall, ...], by_name: dict[str, ToolInfo],
                      turn: Turn) -> tuple[PlannedCall, ...]:
    """The calls of a question whose clauses give places days of their own, one call per place on its clause's day:
    a call of a list of them split into calls of a tool of its server that takes one place, and a call like
    the first added for a clause's place that none was made for ("Penang tomorrow then Kuala Lumpur the day after"
    was called for Penang alone)."""
    dated = dated_clauses(turn.question, turn.today)
    if not dated or not planned or any(plan.request is None for plan in planned):
        return planned
    single = tuple(call for plan in planned for call in _one_per_place(plan, by_name, turn))
    places = [place_of(plan, by_name, turn)[2] for plan in single]
    if not single or any(value is None for value in places):
        return planned
    calls: list[PlannedCall] = []
    for clause, day in dated:
        held = [plan for plan, value in zip(single, places) if mentioned(str(value), clause.casefold())]
        name = first_name_in(clause, turn.vocabulary) if not held else None
        if name and not mentioned(name, " ".join(map(str, places)).casefold()):
            held = [replanned_for(replace(single[0], call_id=f"{single[0].call_id}_own_day"), name, by_name, turn)]
        if len(held) != 1 or held[0].request is None:
            return planned
        calls.append(_on_day(held[0], day, by_name, turn))
    if any(plan.request is None for plan in calls):
        return planned
    log.info("calls made for each place on its own day: %s", [plan.arguments for plan in calls])
    return tuple(calls)


def _one_per_place(plan: PlannedCall, by_name: dict[str, ToolInfo], turn: Turn) -> list[PlannedCall]:
    """The call as it is where it takes one place; a call of a list, one call per place of the tool of its server
    that takes one place and the most of the rest of its arguments, drawing nothing (none where no tool does)."""
    tool = resolve(plan.name, by_name)
    listed = place_list_argument(tool.input_schema, turn.vocabulary) if tool else None
    items = plan.arguments.get(listed) if listed else None
    if tool is None or not isinstance(items, list):
        return [plan]
    rest = {name: value for name, value in plan.arguments.items() if name != listed}

    def taken(other: ToolInfo) -> dict[str, Any]:
        return {name: value for name, value in rest.items() if name in other.input_schema.get("properties", {})}

    for other in sorted(by_name.values(), key=lambda other: -len(taken(other))):  # the day kept where one takes it
        place = place_argument(other.input_schema, turn.vocabulary)
        if other.server == tool.server and place and not draws(other) and takes_exactly(other, {**taken(other),
                                                                                              place: ""}):
            return [replanned(PlannedCall(f"{plan.call_id}_{index}", other.qualified_name, {}),
                              {**taken(other), place: item}, by_name, turn) for index, item in enumerate(items)]
    return []


def _on_day(plan: PlannedCall, day: AskedDay, by_name: dict[str, ToolInfo], turn: Turn) -> PlannedCall:
    """The call of its clause's one day: that day, and no count of days."""
    tool = resolve(plan.name, by_name)
    if tool is None:
        return plan
    schema = tool.input_schema
    arguments = with_asked_day(plan.arguments, schema, day, turn.today)
    arguments = {name: value for name, value in arguments.items()
                 if not counts_days(schema.get("properties", {}).get(name, {}))}
    return replanned(plan, arguments, by_name, turn) if arguments != plan.arguments else plan
