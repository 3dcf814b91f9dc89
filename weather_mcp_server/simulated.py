"""Deterministic, plausible weather for any place and date, in Open-Meteo's JSON shape (always labelled simulated).

Plausible means: the mean follows latitude, the season follows the hemisphere, each day gets a reproducible
anomaly seeded by (place, date), and derived values (codes, snow, hourly curves) stay mutually consistent.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

HOURS = 24
_UNITS = {
    "temperature_2m": "°C",
    "apparent_temperature": "°C",
    "relative_humidity_2m": "%",
    "precipitation": "mm",
    "rain": "mm",
    "snowfall": "cm",
    "weather_code": "wmo code",
    "cloud_cover": "%",
    "wind_speed_10m": "km/h",
    "wind_direction_10m": "°",
    "wind_gusts_10m": "km/h",
    "uv_index": "",
    "is_day": "",
    "precipitation_probability": "%",
    "temperature_2m_max": "°C",
    "temperature_2m_min": "°C",
    "precipitation_sum": "mm",
    "rain_sum": "mm",
    "snowfall_sum": "cm",
    "precipitation_hours": "h",
    "precipitation_probability_max": "%",
    "wind_speed_10m_max": "km/h",
    "uv_index_max": "",
}


def simulated_forecast(
    latitude: float, longitude: float, timezone: str, days: int = 16, now: datetime | None = None
) -> dict[str, Any]:
    """A full forecast payload (current, hourly, daily) for `days` days starting today, local time."""
    zone = _zone(timezone)
    local_now = (now or datetime.now(zone)).astimezone(zone)
    first = local_now.date()
    day_list = [_simulate_day(latitude, longitude, first + timedelta(days=i)) for i in range(days)]
    hours = [hour for day in day_list for hour in day["hours"]]
    current = hours[local_now.hour]
    offset = local_now.utcoffset() or timedelta(0)
    daily_keys = [k for k in day_list[0] if k not in ("hours", "date")]
    hourly_keys = [k for k in hours[0] if k != "time"]
    return {
        "latitude": round(latitude, 4),
        "longitude": round(longitude, 4),
        "generationtime_ms": 0.0,
        "utc_offset_seconds": int(offset.total_seconds()),
        "timezone": timezone,
        "timezone_abbreviation": local_now.tzname() or "GMT",
        "elevation": 0.0,
        "current_units": {"time": "iso8601", "interval": "seconds", **{k: _UNITS[k] for k in _current_keys()}},
        "current": {
            "time": local_now.replace(minute=local_now.minute // 15 * 15, second=0, microsecond=0)
            .replace(tzinfo=None)
            .isoformat(timespec="minutes"),
            "interval": 900,
            **{k: current[k] for k in _current_keys()},
        },
        "hourly_units": {"time": "iso8601", **{k: _UNITS[k] for k in hourly_keys}},
        "hourly": {"time": [h["time"] for h in hours], **{k: [h[k] for h in hours] for k in hourly_keys}},
        "daily_units": {"time": "iso8601", **{k: _UNITS[k] for k in daily_keys}},
        "daily": {"time": [d["date"] for d in day_list], **{k: [d[k] for d in day_list] for k in daily_keys}},
    }


def _current_keys() -> tuple[str, ...]:
    return (
        "temperature_2m",
        "apparent_temperature",
        "relative_humidity_2m",
        "precipitation",
        "snowfall",
        "weather_code",
        "cloud_cover",
        "wind_speed_10m",
        "wind_direction_10m",
        "wind_gusts_10m",
        "uv_index",
        "is_day",
    )


def _zone(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _rng(latitude: float, longitude: float, day: date) -> random.Random:
    digest = hashlib.sha256(f"{latitude:.2f},{longitude:.2f},{day.isoformat()}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _seasonal_mean(latitude: float, longitude: float, day: date) -> float:
    """Annual mean falls with latitude; the seasonal swing grows with it and flips south of the equator."""
    annual = 28.0 - 0.42 * max(0.0, abs(latitude) - 12.0)
    amplitude = min(15.0, 0.32 * abs(latitude))
    if _continental(latitude, longitude):
        annual, amplitude = annual - 6.0, amplitude * 1.3
    elif _maritime(latitude, longitude):
        amplitude *= 0.6
    coldest_day = 20 if latitude >= 0 else 202
    phase = 2 * math.pi * (day.timetuple().tm_yday - coldest_day) / 365.25
    return annual - amplitude * math.cos(phase)


def _continental(latitude: float, longitude: float) -> bool:
    """Northern East Asia and North America east of the Rockies have colder winters than latitude alone says."""
    return latitude >= 30 and (70 <= longitude <= 135 or -110 <= longitude <= -70)


def _maritime(latitude: float, longitude: float) -> bool:
    """Western Europe and the ocean-bound southern mid-latitudes have mild winters and cool summers."""
    return (latitude >= 35 and -10 <= longitude <= 30) or latitude <= -30


@dataclass(frozen=True)
class _DayStats:
    """The day-level draws the hourly values are derived from."""

    t_min: float
    t_max: float
    total: float
    snowy: bool
    probability: int
    code: int
    cloud: float
    wind: float
    uv_peak: float


def _simulate_day(latitude: float, longitude: float, day: date) -> dict[str, Any]:
    rng = _rng(latitude, longitude, day)
    mean = _seasonal_mean(latitude, longitude, day) + rng.gauss(0.0, 2.5)
    spread = 5.0 + 5.0 * rng.random()
    t_max, t_min = round(mean + spread / 2, 1), round(mean - spread / 2, 1)
    wet_chance = 0.45 if abs(latitude) < 25 else 0.3
    wet = rng.random() < wet_chance
    probability = round(55 + 40 * rng.random()) if wet else round(25 * rng.random())
    total = round(rng.expovariate(1 / 6.0) + 0.3, 1) if wet else 0.0
    snowy = wet and t_max < 1.5
    cloud = 75 + 25 * rng.random() if wet else 80 * rng.random()
    wind = round(5 + 20 * rng.random(), 1)
    stats = _DayStats(
        t_min=t_min,
        t_max=t_max,
        total=total,
        snowy=snowy,
        probability=probability,
        code=_weather_code(wet, snowy, total, cloud, t_max),
        cloud=cloud,
        wind=wind,
        uv_peak=round(max(0.0, (mean + 5) / 4) * (1 - cloud / 150), 1),
    )
    hours = _simulate_hours(rng, day, stats)
    return {
        "date": day.isoformat(),
        "hours": hours,
        "weather_code": stats.code,
        "temperature_2m_max": t_max,
        "temperature_2m_min": t_min,
        "precipitation_sum": round(sum(h["precipitation"] for h in hours), 1),
        "rain_sum": round(sum(h["rain"] for h in hours), 1),
        "snowfall_sum": round(sum(h["snowfall"] for h in hours), 1),
        "precipitation_hours": float(sum(1 for h in hours if h["precipitation"] > 0)),
        "precipitation_probability_max": probability,
        "wind_speed_10m_max": round(wind * 1.3, 1),
        "uv_index_max": stats.uv_peak,
    }


def _weather_code(wet: bool, snowy: bool, total: float, cloud: float, t_max: float) -> int:
    if snowy:
        return 71 if total < 4 else 73
    if wet:
        if t_max > 26 and total > 8:
            return 95
        return 61 if total < 3 else 63 if total < 10 else 65
    return 0 if cloud < 20 else 1 if cloud < 40 else 2 if cloud < 65 else 3


def _simulate_hours(rng: random.Random, day: date, stats: _DayStats) -> list[dict[str, Any]]:
    wet_start = rng.randrange(0, 18)
    wet_hours = range(wet_start, wet_start + 6) if stats.total > 0 else range(0)
    hours = []
    for hour in range(HOURS):
        temp = _hourly_temperature(hour, stats.t_min, stats.t_max)
        amount = round(stats.total / 6, 1) if hour in wet_hours else 0.0
        daylight = 6 <= hour < 19
        hours.append(
            {
                "time": f"{day.isoformat()}T{hour:02d}:00",
                "temperature_2m": round(temp, 1),
                "apparent_temperature": round(temp - stats.wind / 10, 1),
                "relative_humidity_2m": round(85 if hour in wet_hours else 45 + 30 * rng.random()),
                "precipitation_probability": _hourly_probability(stats.probability, hour in wet_hours),
                "precipitation": amount,
                "rain": 0.0 if stats.snowy else amount,
                "snowfall": round(amount * 0.7, 2) if stats.snowy else 0.0,
                "weather_code": stats.code if hour in wet_hours or stats.total == 0 else 3,
                "cloud_cover": round(stats.cloud),
                "wind_speed_10m": round(stats.wind * (0.7 + 0.6 * rng.random()), 1),
                "wind_direction_10m": round(360 * rng.random()),
                "wind_gusts_10m": round(stats.wind * 1.8, 1),
                "uv_index": round(stats.uv_peak * math.sin(math.pi * (hour - 6) / 13), 1) if daylight else 0.0,
                "is_day": int(daylight),
            }
        )
    return hours


def _hourly_temperature(hour: int, t_min: float, t_max: float) -> float:
    """Coldest at 05:00, warmest at 14:00: a half cosine up, a straight line down."""
    if 5 <= hour <= 14:
        return t_min + (t_max - t_min) * (1 - math.cos(math.pi * (hour - 5) / 9)) / 2
    return t_max - (t_max - t_min) * ((hour - 14) % 24) / 15


def _hourly_probability(daily: int, wet_hour: bool) -> int:
    if daily <= 10:
        return daily
    return min(100, daily + 10) if wet_hour else daily - 10
