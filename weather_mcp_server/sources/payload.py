"""Typed reads from an Open-Meteo-shaped payload: anything missing is an UpstreamError, never a crash."""

from __future__ import annotations

from datetime import date
from typing import Any

from weather_mcp_server.errors import UpstreamError

# Our field names for Open-Meteo's variables (first present wins), so `units` speaks the results' language.
FIELD_UNITS = {
    "temperature": (("current", "temperature_2m"), ("daily", "temperature_2m_max")),
    "wind_speed": (("current", "wind_speed_10m"), ("daily", "wind_speed_10m_max")),
    "precipitation": (("daily", "precipitation_sum"),),
    "snowfall": (("daily", "snowfall_sum"),),
    "humidity": (("current", "relative_humidity_2m"),),
    "probability": (("daily", "precipitation_probability_max"),),
    "pressure": (("current", "pressure_msl"), ("hourly", "pressure_msl")),
    "visibility": (("current", "visibility"), ("hourly", "visibility")),
    "dew_point": (("current", "dew_point_2m"), ("hourly", "dew_point_2m")),
    "cloud_cover": (("current", "cloud_cover"), ("hourly", "cloud_cover")),
    "humidity_mean": (("daily", "relative_humidity_2m_mean"),),
    "cloud_cover_mean": (("daily", "cloud_cover_mean"),),
    "pressure_mean": (("daily", "pressure_msl_mean"),),
    "dew_point_mean": (("daily", "dew_point_2m_mean"),),
}
DEFAULT_UNITS = {
    "temperature": "°C",
    "wind_speed": "km/h",
    "precipitation": "mm",
    "snowfall": "cm",
    "humidity": "%",
    "probability": "%",
    "pressure": "hPa",
    "visibility": "m",
    "dew_point": "°C",
    "cloud_cover": "%",
    "humidity_mean": "%",
    "cloud_cover_mean": "%",
    "pressure_mean": "hPa",
    "dew_point_mean": "°C",
}


class Payload:
    """Wraps one location's decoded JSON; its series start `past_days` days before the place's today."""

    def __init__(self, data: Any, past_days: int = 0) -> None:
        if not isinstance(data, dict):
            raise UpstreamError("Open-Meteo returned malformed JSON: a location is not an object")
        self._data = data
        self.past_days = past_days

    def day_index(self, offset: int) -> int:
        """Where the day `offset` days from today stands in the daily series (hourly: times 24)."""
        return self.past_days + offset

    def calendar(self) -> tuple[date, int]:
        """The place's today and how many days, from it on, the payload covers (by its daily series, else its
        hourly one)."""
        if isinstance(self._data.get("daily"), dict):
            dates = self.column("daily", "time")
            count, first = len(dates), dates[min(self.past_days, len(dates) - 1)] if dates else ""
        else:
            times = self.column("hourly", "time")
            count, first = len(times) // 24, times[min(self.past_days * 24, len(times) - 1)] if times else ""
        try:
            return date.fromisoformat(first[:10]), count - self.past_days
        except ValueError as error:
            raise UpstreamError(f"Open-Meteo response has no usable dates ({first!r})") from error

    def column(self, block: str, variable: str) -> list[Any]:
        """A daily/hourly series."""
        series = self._block(block).get(variable)
        if not isinstance(series, list):
            raise UpstreamError(f"Open-Meteo response lacks {block}.{variable}")
        return series

    def number(self, block: str, variable: str, index: int | None = None) -> float:
        """A required numeric value (current when index is None, else from a series)."""
        raw = self._block(block).get(variable) if index is None else self._at(block, variable, index)
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            where = f"{block}.{variable}" + ("" if index is None else f"[{index}]")
            raise UpstreamError(f"Open-Meteo response has no numeric value for {where}")
        return float(raw)

    def optional(self, block: str, variable: str, index: int | None = None) -> float | None:
        """A numeric value that may legitimately be null or absent (probabilities, UV, gusts)."""
        data = self._block(block)
        if variable not in data:
            return None
        raw = data[variable] if index is None else self._at(block, variable, index)
        return float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else None

    def text(self, block: str, variable: str, index: int | None = None) -> str:
        """A string value such as a timestamp."""
        raw = self._block(block).get(variable) if index is None else self._at(block, variable, index)
        if not isinstance(raw, str):
            raise UpstreamError(f"Open-Meteo response has no text value for {block}.{variable}")
        return raw

    def optional_text(self, block: str, variable: str, index: int) -> str | None:
        """A string value that may be absent or null (sunrise in polar night)."""
        if variable not in self._block(block):
            return None
        raw = self._at(block, variable, index)
        return raw if isinstance(raw, str) else None

    def units(self) -> dict[str, str]:
        """Units of our result fields, as reported by the payload (defaults where a block is absent)."""
        units = dict(DEFAULT_UNITS)
        for field, sources in FIELD_UNITS.items():
            for block, variable in sources:
                reported = self._data.get(f"{block}_units")
                if isinstance(reported, dict) and isinstance(reported.get(variable), str):
                    units[field] = reported[variable]
                    break
        return units

    def _block(self, block: str) -> dict[str, Any]:
        data = self._data.get(block)
        if not isinstance(data, dict):
            raise UpstreamError(f"Open-Meteo response lacks the '{block}' block")
        return data

    def _at(self, block: str, variable: str, index: int) -> Any:
        series = self.column(block, variable)
        if index >= len(series):
            raise UpstreamError(f"Open-Meteo response has only {len(series)} entries in {block}.{variable}")
        return series[index]
