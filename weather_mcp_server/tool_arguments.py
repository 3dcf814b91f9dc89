"""The tools' argument types: bounded in the input schema, with the short descriptions a small router reads."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from weather_mcp_server.domain.days import Weekday
from weather_mcp_server.domain.hours import Part
from weather_mcp_server.places.resolver import MAX_QUERY_LENGTH

# Every argument is bounded in the input schema, so clients (and the gateway's own argument check) see the
# limits, and the SDK refuses anything outside them before a tool runs. Place names reach Open-Meteo only as
# httpx query params, which are percent-encoded, never spliced into a URL. Days beyond the forecast are not
# refused by the schema: the tool answers them with the forecast's limit, which a reader can use.
PlaceName = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_LENGTH)]
City = Annotated[PlaceName, Field(description="City name in any language, e.g. 'Beijing', '北京', 'Paris, FR'")]
IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
# One argument names the day, however the user did: an offset, a weekday or a date. (Separate arguments for
# each let a 1.5B model write two that disagree, e.g. `"day": 0, "weekday": "monday"` for today.)
DayOffset = Annotated[int, Field(ge=-366, le=366)]
DayArg = Annotated[
    DayOffset | Weekday | IsoDate,
    Field(description="The (first) day: an offset from today (-1 = yesterday), a weekday (the next one), 'weekend' "
          "or 'YYYY-MM-DD'"),
]
DayCount = Annotated[
    int, Field(ge=1, le=366, description="How many days from that day on: 1 = that day only, 7 = a week"),
]
# The descriptions are short: a small router reads every one of them on every request. Hours by the clock or a
# part of the day share one argument: two would cost the prompt twice, and a model may fill both.
Hours = Annotated[
    list[int] | Part | None,  # 0-23, checked by the tool (bounds here would cost the prompt too)
    Field(description="24-hour clock [15] (下午三点), or morning 早上, noon 中午, afternoon 下午, evening 傍晚, night 今晚"),
]
# A flag, not a choice of systems: a small router fills optional arguments it was not asked for, and `false` is the
# harmless value to fill (given "units", it wrote "imperial" for most questions in Chinese).
Fahrenheit = Annotated[bool, Field(description="true only if °F, Fahrenheit or 华氏 is asked (also mph, inches)")]
# Far beyond any air temperature on record (-89.2 to 56.7 °C, -128.6 to 134 °F), so only nonsense is refused.
TEMPERATURE_RANGE = (-150.0, 150.0)
