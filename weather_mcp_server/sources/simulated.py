"""Deterministic, plausible weather for any place and date, in Open-Meteo's JSON shape (always labelled simulated).

Each day is drawn from the place's climate (climate.py), seeded by (place, date), so a date reads the same
whether it is tomorrow or yesterday. The hours are derived from the days and stay physically consistent: the
temperature runs continuously from each night's low to the afternoon's high; precipitation falls in one episode,
as snow below about 0 °C, sleet (rain and snow) near it and rain above; weather codes follow the hour's
precipitation or cloud cover; probabilities are high in wet hours and low in dry ones; the sun rises and sets
when it does there (sun.py); the dew point follows temperature and humidity, visibility the rain, snow and damp
air, and the pressure runs from day to day (low on wet days) with its twice-daily tide. The daily values are those
of the hours: sums, highs, lows, means, the most severe code.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from weather_mcp_server.sources.climate import Climate, climate
from weather_mcp_server.sources.sun import SunDay, elevation, sun_day

HOURS = 24
SNOW_CM_PER_MM = 0.7  # Open-Meteo's snowfall: 7 cm of snow per 10 mm of water
_UNITS = {
    "temperature_2m": "°C", "apparent_temperature": "°C", "relative_humidity_2m": "%", "precipitation": "mm",
    "rain": "mm", "snowfall": "cm", "weather_code": "wmo code", "cloud_cover": "%", "wind_speed_10m": "km/h",
    "wind_direction_10m": "°", "wind_gusts_10m": "km/h", "uv_index": "", "is_day": "", "precipitation_probability": "%",
    "temperature_2m_max": "°C", "temperature_2m_min": "°C", "precipitation_sum": "mm", "rain_sum": "mm",
    "snowfall_sum": "cm", "precipitation_hours": "h", "precipitation_probability_max": "%",
    "wind_speed_10m_max": "km/h", "uv_index_max": "", "sunrise": "iso8601", "sunset": "iso8601",
    "daylight_duration": "s", "pressure_msl": "hPa", "visibility": "m", "dew_point_2m": "°C",
    "relative_humidity_2m_mean": "%", "cloud_cover_mean": "%", "pressure_msl_mean": "hPa", "dew_point_2m_mean": "°C",
}
_CURRENT_KEYS = ("temperature_2m", "apparent_temperature", "relative_humidity_2m", "precipitation", "snowfall",
                 "weather_code", "cloud_cover", "wind_speed_10m", "wind_direction_10m", "wind_gusts_10m", "uv_index",
                 "is_day", "pressure_msl", "visibility", "dew_point_2m")


def simulated_forecast(latitude: float, longitude: float, timezone: str, days: int = 16, now: datetime | None = None,
                       past_days: int = 0) -> dict[str, Any]:
    """A forecast payload (current, hourly, daily) for `past_days` before today through `days` from today on."""
    zone = zone_of(timezone)
    local_now = (now or datetime.now(zone)).astimezone(zone)
    first = local_now.date() - timedelta(days=past_days)
    dates = [first + timedelta(days=i) for i in range(past_days + days)]
    stats = {d: _day_stats(latitude, longitude, d) for d in [dates[0] - timedelta(days=1), *dates,
                                                              dates[-1] + timedelta(days=1)]}
    day_list = [_simulate_day(latitude, longitude, zone, d, stats) for d in dates]
    hours = [hour for day in day_list for hour in day["hours"]]
    current = hours[past_days * HOURS + local_now.hour]
    daily_keys = [k for k in day_list[0] if k not in ("hours", "date")]
    hourly_keys = [k for k in hours[0] if k != "time"]
    return {
        **envelope(latitude, longitude, timezone, local_now),
        "current_units": {"time": "iso8601", "interval": "seconds", **{k: _UNITS[k] for k in _CURRENT_KEYS}},
        "current": {
            "time": local_now.replace(minute=local_now.minute // 15 * 15, second=0, microsecond=0)
            .replace(tzinfo=None).isoformat(timespec="minutes"),
            "interval": 900,
            **{k: current[k] for k in _CURRENT_KEYS},
        },
        "hourly_units": {"time": "iso8601", **{k: _UNITS[k] for k in hourly_keys}},
        "hourly": {"time": [h["time"] for h in hours], **{k: [h[k] for h in hours] for k in hourly_keys}},
        "daily_units": {"time": "iso8601", **{k: _UNITS[k] for k in daily_keys}},
        "daily": {"time": [d["date"] for d in day_list], **{k: [d[k] for d in day_list] for k in daily_keys}},
    }


def envelope(latitude: float, longitude: float, timezone: str, local_now: datetime) -> dict[str, Any]:
    """The top of an Open-Meteo answer: the place, its time zone and offset."""
    offset = local_now.utcoffset() or timedelta(0)
    return {
        "latitude": round(latitude, 4),
        "longitude": round(longitude, 4),
        "generationtime_ms": 0.0,
        "utc_offset_seconds": int(offset.total_seconds()),
        "timezone": timezone,
        "timezone_abbreviation": local_now.tzname() or "GMT",
        "elevation": 0.0,
    }


def zone_of(timezone: str) -> ZoneInfo:
    """The place's time zone, UTC for a name the system does not know."""
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def rng_for(latitude: float, longitude: float, day: date, salt: str = "") -> random.Random:
    """The random draws of one place and date (and purpose): the same every time."""
    digest = hashlib.sha256(f"{latitude:.2f},{longitude:.2f},{day.isoformat()}{salt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


@dataclass(frozen=True)
class _DayStats:
    """The day-level draws the hours are derived from."""

    climate: Climate
    t_min: float
    t_max: float
    total: float  # precipitation (mm of water) of the day's one episode
    start: int  # its first hour
    duration: int
    cloud: float
    wind: float
    wind_direction: float
    chance: float  # the day's precipitation probability (its wet hours' peak)
    pressure: float  # sea-level pressure at midday (hPa)


def _day_stats(latitude: float, longitude: float, day: date) -> _DayStats:
    rng = rng_for(latitude, longitude, day)
    normal = climate(latitude, longitude, day)
    wet = rng.random() < normal.wet_chance
    cloud = 75 + 25 * rng.random() if wet else 85 * rng.random() ** 1.4
    # Dry air and clear skies swing further between night and afternoon; rain and cloud hold the day together.
    spread = min(16.0, max(6.0, 10 + (60 - normal.humidity) / 8)) * (0.8 + 0.4 * rng.random()) * (1 - cloud / 300)
    mean = normal.mean_c + rng.gauss(0.0, 2.5) - (1.5 if wet else 0.0)
    duration = rng.randint(2, 4) if normal.convective else rng.randint(4, 10)
    start = rng.randint(13, 20 - duration) if normal.convective else rng.randint(0, HOURS - duration)
    return _DayStats(
        climate=normal,
        t_min=mean - spread / 2,
        t_max=mean + spread / 2,
        total=rng.expovariate(1 / normal.wet_mm) + 0.3 if wet else 0.0,
        start=start,
        duration=duration,
        cloud=cloud,
        wind=normal.wind_kmh * (0.5 + rng.random()),
        wind_direction=360 * rng.random(),
        chance=60 + 35 * rng.random() if wet else 25 * rng.random() * (0.3 + cloud / 85),
        pressure=_pressure(latitude, longitude, day, wet, cloud),
    )


def _simulate_day(latitude: float, longitude: float, zone: ZoneInfo, day: date,
                  stats: dict[date, _DayStats]) -> dict[str, Any]:
    sun = sun_day(latitude, longitude, day, zone)
    hours = _simulate_hours(latitude, longitude, zone, day, stats, sun)
    if sun.sunrise is None:  # polar night or day: no rise or set to give
        sunrise = sunset = f"{day.isoformat()}T00:00"
    else:
        sunrise, sunset = (t.isoformat(timespec="minutes") for t in (sun.sunrise, sun.sunset))
    return {
        "date": day.isoformat(),
        "hours": hours,
        "weather_code": max(h["weather_code"] for h in hours),  # Open-Meteo's daily code: the most severe hour
        "temperature_2m_max": max(h["temperature_2m"] for h in hours),
        "temperature_2m_min": min(h["temperature_2m"] for h in hours),
        "precipitation_sum": round(sum(h["precipitation"] for h in hours), 1),
        "rain_sum": round(sum(h["rain"] for h in hours), 1),
        "snowfall_sum": round(sum(h["snowfall"] for h in hours), 2),
        "precipitation_hours": float(sum(1 for h in hours if h["precipitation"] > 0)),
        "precipitation_probability_max": max(h["precipitation_probability"] for h in hours),
        "wind_speed_10m_max": max(h["wind_speed_10m"] for h in hours),
        "uv_index_max": max(h["uv_index"] for h in hours),
        "sunrise": sunrise,
        "sunset": sunset,
        "daylight_duration": round(sun.daylight_s, 2),
        "relative_humidity_2m_mean": round(_mean(hours, "relative_humidity_2m")),  # whole percent, as Open-Meteo's
        "cloud_cover_mean": round(_mean(hours, "cloud_cover")),
        "pressure_msl_mean": round(_mean(hours, "pressure_msl"), 1),
        "dew_point_2m_mean": round(_mean(hours, "dew_point_2m"), 1),
    }


def _mean(hours: list[dict[str, Any]], key: str) -> float:
    return sum(h[key] for h in hours) / len(hours)


def _simulate_hours(latitude: float, longitude: float, zone: ZoneInfo, day: date, stats: dict[date, _DayStats],
                    sun: SunDay) -> list[dict[str, Any]]:
    today = stats[day]
    before, after = stats[day - timedelta(days=1)], stats[day + timedelta(days=1)]
    rng = rng_for(latitude, longitude, day, "hours")
    # Visibility has draws of its own: the other values do not depend on how many it takes.
    haze = rng_for(latitude, longitude, day, "visibility")
    wet = range(today.start, today.start + today.duration) if today.total else range(0)
    weights = [math.sin(math.pi * (i + 0.5) / today.duration) for i in range(today.duration)]
    hours = []
    for hour in range(HOURS):
        temperature = round(_temperature(hour, before, today, after), 1)
        amount = max(0.1, round(today.total * weights[hour - today.start] / sum(weights), 1)) if hour in wet else 0.0
        snow_share = min(1.0, max(0.0, (1.5 - temperature) / 2.0))  # all snow from -0.5 °C, all rain from 1.5 °C
        rain = round(amount * (1 - snow_share), 1)
        near = bool(wet) and min(abs(hour - today.start), abs(hour - wet[-1])) <= 2
        cloud = _cloud(rng, today.cloud, hour in wet, near)
        humidity = _humidity(rng, today, temperature, hour in wet)
        wind = round(today.wind * (0.75 + 0.35 * max(0.0, math.sin(math.pi * (hour - 6) / 14)) + 0.2 * rng.random()),
                     1)
        moment = datetime(day.year, day.month, day.day, hour, tzinfo=zone)
        height = elevation(latitude, longitude, moment)
        hours.append({
            "time": f"{day.isoformat()}T{hour:02d}:00",
            "temperature_2m": temperature,
            "apparent_temperature": _apparent(temperature, humidity, wind),
            "relative_humidity_2m": humidity,
            "precipitation_probability": _probability(rng, today.chance, hour in wet, near),
            "precipitation": amount,
            "rain": rain,
            "snowfall": round((amount - rain) * SNOW_CM_PER_MM, 2),
            "weather_code": _code(amount, snow_share, temperature, cloud, today.climate.convective),
            "cloud_cover": cloud,
            "wind_speed_10m": wind,
            "wind_direction_10m": round((today.wind_direction + 30 * math.sin(hour / 4)) % 360),
            "wind_gusts_10m": round(wind * (1.4 + 0.4 * rng.random()), 1),
            "uv_index": _uv(height, cloud),
            "is_day": int(_daylight(sun, day, hour)),
            "pressure_msl": _hour_pressure(hour, latitude, before, today, after),
            "visibility": _visibility(haze, amount, snow_share, humidity, wind),
            "dew_point_2m": _dew_point(temperature, humidity),
        })
    return hours


def _temperature(hour: int, before: _DayStats, today: _DayStats, after: _DayStats) -> float:
    """Lowest about 05:00, highest about 14:00: a half cosine up through the morning, a straight fall through the
    evening and night into the next day's low, so midnight joins two days without a jump."""
    if hour < 5:
        return before.t_max + (today.t_min - before.t_max) * (hour + 10) / 15
    if hour <= 14:
        return today.t_min + (today.t_max - today.t_min) * (1 - math.cos(math.pi * (hour - 5) / 9)) / 2
    return today.t_max + (after.t_min - today.t_max) * (hour - 14) / 15


def _code(amount: float, snow_share: float, temperature: float, cloud: float, convective: bool) -> int:
    """The WMO code of an hour: its precipitation (kind and rate), else its cloud cover."""
    if amount > 0 and snow_share >= 0.5:
        if convective:
            return 85 if amount < 1.5 else 86
        return 71 if amount < 1.0 else 73 if amount < 2.5 else 75
    if amount > 0:
        if convective:
            if temperature >= 22 and amount >= 3:
                return 95
            return 80 if amount < 2.5 else 81 if amount < 7.6 else 82
        return 51 if amount < 0.2 else 61 if amount < 2.5 else 63 if amount < 7.6 else 65
    return 0 if cloud < 20 else 1 if cloud < 50 else 2 if cloud < 80 else 3


def _cloud(rng: random.Random, base: float, wet: bool, near: bool) -> int:
    if wet:
        return round(88 + 12 * rng.random())
    if near:
        return round(max(base, 70 + 15 * rng.random()))
    return round(min(100.0, max(0.0, base + rng.uniform(-15, 15))))


def _probability(rng: random.Random, chance: float, wet: bool, near: bool) -> int:
    """High in the wet hours (at least 55 %), middling around them, low otherwise."""
    if wet:
        return round(max(55.0, chance - 10 * rng.random()))
    if near:
        return round(30 + 18 * rng.random())
    return round(min(chance, 30.0) * (0.4 + 0.6 * rng.random()))


def _humidity(rng: random.Random, today: _DayStats, temperature: float, wet: bool) -> int:
    if wet:
        return round(88 + 12 * rng.random())
    warmth = (temperature - today.t_min) / max(0.1, today.t_max - today.t_min)  # drier in the afternoon
    return round(min(100.0, max(8.0, today.climate.humidity + 12 * (0.5 - warmth) + rng.uniform(-5, 5))))


def _apparent(temperature: float, humidity: float, wind_kmh: float) -> float:
    """Steadman's apparent temperature (shade): damp air feels warmer, wind cooler."""
    vapour_hpa = humidity / 100 * 6.105 * math.exp(17.27 * temperature / (237.7 + temperature))
    return round(temperature + 0.33 * vapour_hpa - 0.70 * wind_kmh / 3.6 - 4.0, 1)


def _uv(sun_elevation: float, cloud: float) -> float:
    """Clear-sky UV index from the sun's height (Madronich's fit), dimmed by cloud."""
    if sun_elevation <= 0:
        return 0.0
    return round(12.5 * math.sin(math.radians(sun_elevation)) ** 2.42 * (1 - 0.6 * cloud / 100), 1)


def _pressure(latitude: float, longitude: float, day: date, wet: bool, cloud: float) -> float:
    """The day's sea-level pressure: low under rain, high under clear skies (its own draws, as visibility's)."""
    rng = rng_for(latitude, longitude, day, "pressure")
    return 1013.0 + 8 * (0.5 - cloud / 100) - (7.0 if wet else 0.0) + rng.gauss(0.0, 4.0)


def _hour_pressure(hour: int, latitude: float, before: _DayStats, today: _DayStats, after: _DayStats) -> float:
    """From one midday's pressure to the next without a jump, with the twice-daily tide (highs near 10:00 and
    22:00, strongest in the tropics)."""
    if hour < 12:
        trend = before.pressure + (today.pressure - before.pressure) * (hour + 12) / 24
    else:
        trend = today.pressure + (after.pressure - today.pressure) * (hour - 12) / 24
    tide = 1.2 * math.cos(math.radians(latitude)) * math.cos(2 * math.pi * (hour - 10) / 12)
    return round(trend + tide, 1)


def _visibility(rng: random.Random, amount: float, snow_share: float, humidity: float, wind: float) -> float:
    """Metres: shortened by falling rain and more by snow, by mist and fog in damp still air, long in dry air."""
    if amount > 0:
        rain, snow = 20000 / (1 + 1.5 * amount), 6000 / (1 + 2.0 * amount)
        metres = rain + (snow - rain) * snow_share
    elif humidity >= 97 and wind < 10:
        metres = 100 + 800 * rng.random()
    elif humidity >= 90:
        metres = 1000 + 4000 * rng.random()
    else:
        metres = (10000 + 40000 * (1 - humidity / 100)) * (0.9 + 0.2 * rng.random())
    return float(round(metres, -1))


def _dew_point(temperature: float, humidity: float) -> float:
    """Magnus's formula: the temperature at which the hour's air would be saturated."""
    gamma = math.log(max(humidity, 1.0) / 100) + 17.62 * temperature / (243.12 + temperature)
    return round(243.12 * gamma / (17.62 - gamma), 1)


def _daylight(sun: SunDay, day: date, hour: int) -> bool:
    if sun.sunrise is None:
        return sun.daylight_s > 0
    moment = datetime(day.year, day.month, day.day, hour)
    return sun.sunrise <= moment < sun.sunset
