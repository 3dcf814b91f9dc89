"""The loose score of one reply (the eight checks the eval started with), beside the strict rules of
chat_eval_rules.py: tool, place, days covered, chart, range bounds, no tool for chit-chat, numbers from the data,
language.

Each check returns True (passed), False (failed) or None (does not apply to this question). A reply is
fully correct when every applicable check passed. The checks read only what the gateway returns: the
tools it called with their arguments and structured results, the images, and the answer text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

WEEKEND_WORDS = ("周末", "週末", "weekend", "wknd", "wkend")  # (traditional characters; chat shorthand)

# The tool that answers each intent; a comparison may use current weather or a forecast per city.
INTENT_TOOLS: dict[str, set[str]] = {
    "current": {"get_current_weather"},
    "forecast": {"get_forecast"},
    "precipitation": {"get_precipitation"},
    "chart": {"get_weather_chart"},
    "temperature_range": {"find_cities_by_temperature"},
    "compare": {"compare_weather", "get_current_weather", "get_forecast"},
    "none": set(),
}
# Intents whose answer must quote at least one number (a chart's answer may just point at the image).
_QUOTES_NUMBERS = {"current", "forecast", "precipitation", "temperature_range", "compare"}

_MAX_DISTANCE_KM = 50.0
# A minus right after a digit is a separator ("2026-11-30"), not a sign.
_NUMBER = re.compile(r"(?<!\d)[-−]?\d+(?:\.\d+)?")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance between two points on the Earth, in kilometres."""
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    half_chord = (math.sin((phi2 - phi1) / 2) ** 2
                  + math.cos(phi1) * math.cos(phi2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2)
    return 2 * 6371.0 * math.asin(math.sqrt(half_chord))


def _succeeded(reply: dict[str, Any], tools: set[str]) -> list[dict[str, Any]]:
    """The calls of `tools` that returned a structured result."""
    return [call for call in reply.get("tool_calls", [])
            if call["tool"] in tools and not call.get("is_error") and isinstance(call.get("structured_content"), dict)]


def _locations(call: dict[str, Any]) -> list[dict[str, Any]]:
    content = call["structured_content"]
    if "places" in content:
        return [place.get("location") or {} for place in content["places"]]
    return [content.get("location") or {}]


def _near(call: dict[str, Any], city: dict[str, Any]) -> bool:
    return any("latitude" in location and haversine_km(location["latitude"], location["longitude"], city["lat"],
                                                       city["lon"]) <= _MAX_DISTANCE_KM
               for location in _locations(call))


def _days_covered(call: dict[str, Any], weekend: bool) -> int:
    """Up to which day, counting today as day 1, a result covers; a result with the weekend covers a question
    about "this weekend" (labelled as the week it lies in)."""
    content = call["structured_content"]
    if call["tool"] == "get_current_weather":
        return 1
    records = content.get("days") or content.get("points") or [
        day for place in content.get("places", []) for day in place.get("days", [])]
    weekdays = {record.get("weekday") for record in records}
    if weekend and {"Saturday", "Sunday"} & weekdays:
        return 7
    return max((record["day"] + 1 for record in records if "day" in record), default=len(records))


def check_tool(query: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    tools = INTENT_TOOLS.get(query["intent"])
    if tools is None:
        return None
    return bool(_succeeded(reply, tools)) if tools else None


def check_location(query: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    if not query.get("cities") or query["intent"] not in INTENT_TOOLS:
        return None
    calls = _succeeded(reply, INTENT_TOOLS[query["intent"]])
    return all(any(_near(call, city) for call in calls) for city in query["cities"])


def check_days(query: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    """Every call that answers for an expected city covers the days asked; a range query looks at that day."""
    if "days" not in query or query["intent"] not in INTENT_TOOLS:
        return None
    if query["intent"] == "temperature_range":
        calls = _succeeded(reply, INTENT_TOOLS["temperature_range"])
        return any(call["structured_content"].get("day") == query["days"] - 1 for call in calls)
    weekend = any(word in query["query"].lower() for word in WEEKEND_WORDS)
    calls = [call for call in _succeeded(reply, INTENT_TOOLS[query["intent"]])
             if any(_near(call, city) for city in query["cities"])]
    return bool(calls) and all(_days_covered(call, weekend) >= query["days"] for call in calls)


def check_chart(query: dict[str, Any], reply: dict[str, Any], image_ok: bool) -> bool | None:
    """The right kind of chart was drawn and its image could be fetched (`image_ok`, checked by the caller)."""
    if query["intent"] != "chart":
        return None
    kinds = {call["structured_content"].get("kind") for call in _succeeded(reply, INTENT_TOOLS["chart"])}
    return query.get("chart") in kinds and bool(reply.get("images")) and image_ok


def check_range(query: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    """The search used exactly the bounds asked for (an open bound stays open)."""
    if query["intent"] != "temperature_range":
        return None
    expected = (query.get("min_c"), query.get("max_c"))
    for call in _succeeded(reply, INTENT_TOOLS["temperature_range"]):
        content = call["structured_content"]
        if _same_bound(content.get("min_temp"), expected[0]) and _same_bound(content.get("max_temp"), expected[1]):
            return True
    return False


def _same_bound(used: float | None, expected: float | None) -> bool:
    if used is None or expected is None:
        return used is None and expected is None
    return abs(float(used) - float(expected)) < 1e-6


def check_no_tool(query: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    if query["intent"] != "none":
        return None
    return not reply.get("tool_calls")


def numbers_in(text: str) -> list[float]:
    """The numbers written in `text` (ASCII digits; a Unicode minus counts as a sign)."""
    return [float(match.replace("−", "-")) for match in _NUMBER.findall(text)]


def _grounded(number: float, known: list[float]) -> bool:
    # Answers round (12.6 -> 13), drop the sign after words like 零下, or quote a value to one decimal.
    return any(abs(abs(number) - abs(value)) < 0.051 or round(value) == number for value in known)


def check_grounded(query: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    """Every number in the answer comes from the tool data (or the question); data answers quote some."""
    calls = [call for call in reply.get("tool_calls", []) if not call.get("is_error")]
    if query["intent"] == "none" or not calls:
        return None
    sources = [query["query"]] + [json.dumps([call.get("structured_content"), call.get("text"),
                                              call.get("arguments")], ensure_ascii=False) for call in calls]
    known = [number for source in sources for number in numbers_in(source)]
    quoted = numbers_in(reply.get("response", ""))
    if not quoted:
        return query["intent"] not in _QUOTES_NUMBERS
    return all(_grounded(number, known) for number in quoted)


def reply_language(text: str) -> str:
    """`zh` when CJK characters make up at least 30% of the letters, else `en`."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN.findall(text))
    return "zh" if cjk and cjk >= 0.3 * (cjk + latin) else "en"


def check_language(query: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    return bool(reply.get("response", "").strip()) and reply_language(reply["response"]) == query["lang"]


def score(query: dict[str, Any], reply: dict[str, Any], image_ok: bool) -> dict[str, bool | None]:
    """All checks for one question, by name."""
    return {
        "tool": check_tool(query, reply),
        "location": check_location(query, reply),
        "days": check_days(query, reply),
        "chart": check_chart(query, reply, image_ok),
        "range": check_range(query, reply),
        "no_tool": check_no_tool(query, reply),
        "grounded": check_grounded(query, reply),
        "language": check_language(query, reply),
    }


def fully_correct(checks: dict[str, bool | None]) -> bool:
    return all(result is not False for result in checks.values())
