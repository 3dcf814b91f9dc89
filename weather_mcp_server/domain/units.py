"""Units of a result: metric (Open-Meteo's default, in which the server works) or imperial, converted at the end.

The server fetches and decides in metric (one cached answer for both systems, verdict thresholds stated once) and
converts the finished result: °F = °C × 9/5 + 32, mph = km/h ÷ 1.609344, inch = mm ÷ 25.4 (snow: cm ÷ 2.54),
inHg = hPa ÷ 33.8639 and miles = m ÷ 1609.344 (visibility), as US forecasts give them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

UnitSystem = Literal["metric", "imperial"]
UNITS_META_KEY = "units"  # a client's standing preference, in the request's _meta, for calls that name none

M = TypeVar("M", bound=BaseModel)

_TEMPERATURES = {"temperature", "feels_like", "today_min", "today_max", "temp_min", "temp_max", "min_temp",
                 "max_temp", "dew_point", "dew_point_mean"}
_SPEEDS = {"wind_speed", "wind_gusts", "wind_speed_max"}
_RAIN = {"precipitation", "precipitation_sum", "rain", "rain_sum"}
_SNOW = {"snowfall", "snowfall_sum"}
_PRESSURES = {"pressure", "pressure_mean"}
HPA_PER_INHG = 33.8639
M_PER_MILE = 1609.344
IMPERIAL_UNITS = {"temperature": "°F", "wind_speed": "mph", "precipitation": "inch", "snowfall": "inch",
                  "dew_point": "°F", "pressure": "inHg", "visibility": "mi", "dew_point_mean": "°F",
                  "pressure_mean": "inHg"}


def preferred(units: UnitSystem | None, meta: Mapping[str, Any] | None) -> UnitSystem:
    """The call's units: its argument, else the client's preference in `_meta.units`, else metric."""
    if units is not None:
        return units
    wanted = meta.get(UNITS_META_KEY) if meta else None
    return "imperial" if wanted == "imperial" else "metric"


def to_celsius(value: float | None, units: UnitSystem) -> float | None:
    """A temperature the caller gave, in °C."""
    if value is None or units == "metric":
        return value
    return (value - 32) * 5 / 9


def convert(result: M, units: UnitSystem) -> M:
    """The result in `units` (metric results are returned as they are)."""
    if units == "metric":
        return result
    return type(result).model_validate(_convert(result.model_dump()))


def _convert(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        if key == "units":
            return {**value, **{k: v for k, v in IMPERIAL_UNITS.items() if k in value}}
        return {k: _convert(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_convert(item, key) for item in value]
    if not isinstance(value, int | float) or isinstance(value, bool):
        return value
    if key in _TEMPERATURES:
        return round(value * 9 / 5 + 32, 1)
    if key in _SPEEDS:
        return round(value / 1.609344, 1)
    if key in _RAIN:
        return round(value / 25.4, 2)
    if key in _SNOW:
        return round(value / 2.54, 2)
    if key in _PRESSURES:
        return round(value / HPA_PER_INHG, 2)
    if key == "visibility":
        return round(value / M_PER_MILE, 2)
    return value
