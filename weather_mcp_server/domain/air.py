"""Air quality for the asked days and hours: the concentrations, pollen (Europe only: null elsewhere, never filled
in) and the European and US indices as the air-quality API gives them, and China's AQI computed from the
concentrations (china_aqi.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from weather_mcp_server.domain import china_aqi
from weather_mcp_server.domain.days import DaySpan, weekday_name
from weather_mcp_server.domain.hours import asked_hours, hour_indices, part_label
from weather_mcp_server.domain.verdicts import polluted
from weather_mcp_server.errors import NotAvailable
from weather_mcp_server.models import AirQuality, AirQualityDay, AirReading, ChinaAqi, Location
from weather_mcp_server.sources.payload import Payload
from weather_mcp_server.wording.language import pick

POLLUTANTS = ("pm2_5", "pm10", "ozone", "nitrogen_dioxide", "sulphur_dioxide", "carbon_monoxide")
# The standard's names, and the factor to its units (CO in mg/m³; the API gives μg/m³).
_STANDARD = {"pm2_5": ("PM2.5", 1.0), "pm10": ("PM10", 1.0), "ozone": ("O3", 1.0), "nitrogen_dioxide": ("NO2", 1.0),
             "sulphur_dioxide": ("SO2", 1.0), "carbon_monoxide": ("CO", 0.001)}
POLLEN = ("alder_pollen", "birch_pollen", "grass_pollen", "mugwort_pollen", "olive_pollen", "ragweed_pollen")
UNITS = {**{name: "μg/m³" for name in POLLUTANTS}, **{name: "grains/m³" for name in POLLEN}}
_OZONE_HOURS = 8  # O3's 8-hour mean, valid with at least 6 of its hours (HJ 633-2012)


def air_quality_result(common: dict[str, Any], p: Payload, span: DaySpan, asked_clock: Sequence[int],
                       part: str | None, today: date) -> AirQuality:
    """The result for the asked days (and hours by the clock, or part of the day) of an air-quality payload."""
    location: Location = common["location"]
    first = p.day_index(span.start) * 24
    if all(p.optional("hourly", "pm2_5", i) is None for i in range(first, first + 24 * span.count)):
        where = f"{location.latitude:.2f}, {location.longitude:.2f}"
        raise NotAvailable(pick(f"Air-quality data is not available at {where} ({location.english_name}).",
                                f"{location.chinese_name or location.name}（{where}）没有空气质量数据。"))
    asked = asked_hours(list(asked_clock), part)
    times = p.column("hourly", "time")
    hours = [_reading(p, "hourly", i) for offset in span.offsets
             for i in hour_indices(p.day_index(offset) * 24, asked, len(times), times[-1])] if asked else []
    current = _reading(p, "current", None) if span.start == 0 and not hours else None
    days = [_day(p, offset, today) for offset in span.offsets]
    shown = hours or ([current] if current and span.count == 1 else days)
    worst = max((r.china_aqi for r in shown if r.china_aqi), key=lambda index: index.aqi, default=None)
    return AirQuality(
        **{**common, "units": UNITS},
        verdicts=[polluted(worst.aqi, worst.category, worst.category_en)] if worst else [],
        current=current,
        days=days,
        hours=hours,
        part=part_label(asked_clock, part),
    )


def _reading(p: Payload, block: str, i: int | None) -> AirReading:
    values = {name: p.optional(block, name, i) for name in POLLUTANTS}
    index = china_aqi.hourly_index(_standard(values))
    return AirReading(
        time=p.text(block, "time", i),
        **values,
        **{name: p.optional(block, name, i) for name in POLLEN},
        european_aqi=p.optional(block, "european_aqi", i),
        us_aqi=p.optional(block, "us_aqi", i),
        china_aqi=_china(index, "hourly"),
    )


def _day(p: Payload, offset: int, today: date) -> AirQualityDay:
    """A day's 24-hour means and O3's highest 8-hour mean, with the daily index (日报)."""
    first = p.day_index(offset) * 24
    hours = range(first, first + 24)
    means = {name: _mean([p.optional("hourly", name, i) for i in hours]) for name in POLLUTANTS if name != "ozone"}
    ozone_8h = [_mean([p.optional("hourly", "ozone", j) for j in range(max(0, i - _OZONE_HOURS + 1), i + 1)], 6)
                for i in hours]
    ozone_8h_max = max((v for v in ozone_8h if v is not None), default=None)
    ozone_1h_max = max((v for i in hours if (v := p.optional("hourly", "ozone", i)) is not None), default=None)
    index = china_aqi.daily_index(_standard(means), ozone_8h_max, ozone_1h_max)
    day = today + timedelta(days=offset)
    return AirQualityDay(
        date=day.isoformat(), weekday=weekday_name(day), day=offset,
        **means,
        ozone=ozone_8h_max,
        **{name: _mean([p.optional("hourly", name, i) for i in hours]) for name in POLLEN},
        european_aqi_max=_highest(p, "european_aqi", hours),
        us_aqi_max=_highest(p, "us_aqi", hours),
        china_aqi=_china(index, "daily"),
    )


def _standard(values: dict[str, float | None]) -> dict[str, float | None]:
    """Concentrations under the standard's names and in its units."""
    return {_STANDARD[name][0]: None if value is None else value * _STANDARD[name][1] for name, value in values.items()}


def _china(index: china_aqi.Index | None, basis: str) -> ChinaAqi | None:
    if index is None:
        return None
    return ChinaAqi(aqi=index.aqi, level=index.level, category=index.category, category_en=index.category_en,
                    primary_pollutants=list(index.primary), basis=basis)


def _mean(values: list[float | None], at_least: int = 1) -> float | None:
    present = [v for v in values if v is not None]
    return round(sum(present) / len(present), 1) if len(present) >= at_least else None


def _highest(p: Payload, name: str, hours: range) -> float | None:
    return max((v for i in hours if (v := p.optional("hourly", name, i)) is not None), default=None)
