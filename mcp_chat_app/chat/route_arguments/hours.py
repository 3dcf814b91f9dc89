"""The time-of-day argument (its name or description says "hour" or "clock"): dropped when the question mentions
no time of day, and given the hours the question writes by the clock."""

from __future__ import annotations

import logging
import re
from typing import Any

from mcp_chat_app.chat.route_arguments.stated import mentioned
from mcp_chat_app.chat.text.clock import clock_spans, clock_times, parts_of_day, stretches_named
from mcp_chat_app.chat.text.vocabulary import Vocabulary

log = logging.getLogger(__name__)

_HOUR_WORDS = re.compile(r"\b(?:hours?|clock)\b", re.IGNORECASE)  # how a schema says an argument is a time of day


def without_unasked_hours(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                          vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments less an optional time of day (hours by the clock, a part of the day: the schema says
    "hour" or "clock") when the question mentions none: asked about a whole day, a model added `night`, and the
    answer spoke of the night only. The question mentions one by a clock time, a part of the day (clock.py), or
    a value or term the argument's own schema gives ("night", 今晚)."""
    kept = dict(arguments)
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if value is None or name in schema.get("required", ()) or not _is_hours(name, spec):
            continue
        if any(clock_times(question, vocabulary)) or any(parts_of_day(question, vocabulary)):
            return kept
        terms = [*_enum_values(spec), *re.findall(r"[\u3400-\u9fff]{2,}", spec.get("description", ""))]
        if not any(mentioned(term, question.casefold()) for term in terms if isinstance(term, str)):
            log.info("dropped %s=%r: the question names no time of day", name, value)
            del kept[name]
    return kept


def with_clock_hours(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                     vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with the hours the question writes by the clock, each time with one reading ("tonight at 9"
    is 21, "demain à midi" 12), in an optional time-of-day argument that takes a list of hours, where the router
    gave a part of the day ("night": the answer spoke of the whole night), nothing, or hours of which none is the
    question's ("and at 8 tomorrow morning?" kept the earlier call's [20]; a list that has them may be the span
    between them, and stands), or a list with the question's one hour and others apart from it."""
    name = hours_argument(schema)
    given = arguments.get(name) if name else None
    if spans_asked := clock_spans(question):
        # "Saturday between 2 and 5pm" was called for [17]: every hour of a span the question writes
        hours = sorted({hour for span in spans_asked for hour in span})
        spans = isinstance(given, list) and set(hours) <= set(given)
    else:
        times = list(clock_times(question, vocabulary))
        if not times or any(len(time.minutes) != 1 for time in times):
            return arguments  # a bare "3点" may be 03:00 or 15:00: the router's reading stands
        hours = sorted({minute // 60 for time in times for minute in time.minutes})
        # A list with the question's hours stands when it may be the span between them or the hours around one;
        # with its one hour and others apart from it ("明天早上六点" as [0, 6]) it is that hour.
        spans = isinstance(given, list) and set(given) & set(hours) and (len(hours) > 1 or _in_a_row(given))
    if name is None or name in schema.get("required", ()) or spans or not _takes_integer_list(schema["properties"][name]):
        return arguments
    log.info("%s=%r as the question's clock times %s", name, arguments.get(name), hours)
    return {**arguments, name: hours}


def with_asked_part(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                    vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with the part of the day the question names, where the router gave another of the time-of-day
    argument's values ("那明天早上冷不冷" after a question on tomorrow night kept `night`); a question that writes a
    clock time is with_clock_hours', and one whose part may be two of the values ("晚上": evening or night) keeps
    the router's."""
    name = hours_argument(schema)
    given = arguments.get(name) if name else None
    if not isinstance(given, str) or any(clock_times(question, vocabulary)):
        return arguments
    named = stretches_named(question, vocabulary)
    if not named or any(given in words for words in named):
        return arguments
    values = [value for value in _enum_values(schema["properties"][name])
              if isinstance(value, str) and any(value in words for words in named)]
    if len(values) != 1:
        return arguments
    log.info("%s=%r as the part of the day the question names: %r", name, given, values[0])
    return {**arguments, name: values[0]}


def _in_a_row(hours: list[Any]) -> bool:
    whole = {hour for hour in hours if isinstance(hour, int)}
    return len(whole) == len(hours) and max(whole) - min(whole) == len(whole) - 1


def _takes_integer_list(spec: dict[str, Any]) -> bool:
    return any(option.get("type") == "array" and option.get("items", {}).get("type") == "integer"
               for option in spec.get("anyOf", [spec]))


def takes_hours(schema: dict[str, Any]) -> bool:
    """Whether a tool has an argument for the time of day (its name or description says "hour" or "clock")."""
    return hours_argument(schema) is not None


def hours_argument(schema: dict[str, Any]) -> str | None:
    """The name of a tool's argument for the time of day, if it has one."""
    return next((name for name, spec in schema.get("properties", {}).items() if _is_hours(name, spec)), None)


def _is_hours(name: str, spec: dict[str, Any]) -> bool:
    return bool(_HOUR_WORDS.search(f"{name} {spec.get('description', '')}"))


def _enum_values(spec: dict[str, Any]) -> list[Any]:
    return [value for option in spec.get("anyOf", [spec]) for value in option.get("enum", ())]
