"""Deterministic, plausible air quality in the shape of Open-Meteo's air-quality API (labelled simulated, like the
weather).

Particles follow the region and season (the North China Plain and northern India in winter are the worst, Europe
and the Americas clean), build up at night and in the morning rush, thin out in the afternoon's deep mixing, and
are blown away by wind and washed out by rain: the simulated weather's own wind and rain. Ozone is made by sunshine
and peaks on summer afternoons; NO2 follows the rush hours. The European and US indices are computed from these
concentrations with their agencies' breakpoints, as Open-Meteo does. Pollen (alder, birch, grass, mugwort, olive,
ragweed) comes only inside the European model's domain, each kind in its season and where it grows, released by
day and washed out by rain; elsewhere it is null, as the air-quality API gives it.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from weather_mcp_server.sources.climate import summer
from weather_mcp_server.sources.simulated import HOURS, envelope, rng_for, simulated_forecast, zone_of
from weather_mcp_server.sources.sun import elevation

POLLEN = ("alder_pollen", "birch_pollen", "grass_pollen", "mugwort_pollen", "olive_pollen", "ragweed_pollen")
VARIABLES = ("pm2_5", "pm10", "ozone", "nitrogen_dioxide", "sulphur_dioxide", "carbon_monoxide", "european_aqi",
             "us_aqi", *POLLEN)
_UNITS = {"pm2_5": "μg/m³", "pm10": "μg/m³", "ozone": "μg/m³", "nitrogen_dioxide": "μg/m³",
          "sulphur_dioxide": "μg/m³", "carbon_monoxide": "μg/m³", "european_aqi": "EAQI", "us_aqi": "USAQI",
          **{name: "grains/m³" for name in POLLEN}}
# Each pollen's season in Europe: peak day of the year (at 45°N; later further north), spread (days), peak grains/m³.
_SEASONS = {"alder_pollen": (50, 18, 80.0), "birch_pollen": (110, 14, 250.0), "grass_pollen": (165, 30, 60.0),
            "mugwort_pollen": (225, 15, 25.0), "olive_pollen": (135, 15, 150.0), "ragweed_pollen": (245, 12, 40.0)}
# European index (EEA bands as Open-Meteo scales them: 20 per band) and US EPA index: (concentration, index) steps.
_EUROPEAN = {"pm2_5": (0, 10, 20, 25, 50, 75, 800), "pm10": (0, 20, 40, 50, 100, 150, 1200),
             "nitrogen_dioxide": (0, 40, 90, 120, 230, 340, 1000), "ozone": (0, 50, 100, 130, 240, 380, 800)}
_EUROPEAN_STEPS = (0, 20, 40, 60, 80, 100, 500)
_US = {"pm2_5": (0, 9.0, 35.4, 55.4, 125.4, 225.4, 325.4), "pm10": (0, 54, 154, 254, 354, 424, 604),
       "ozone_ppb": (0, 54, 70, 85, 105, 200, 400)}
_US_STEPS = (0, 50, 100, 150, 200, 300, 500)
_OZONE_UG_PER_PPB = 1.96


def simulated_air_quality(latitude: float, longitude: float, timezone: str, days: int, now: datetime | None = None,
                          past_days: int = 0) -> dict[str, Any]:
    """An air-quality payload (current and hourly) from `past_days` before today through `days` from today on."""
    zone = zone_of(timezone)
    local_now = (now or datetime.now(zone)).astimezone(zone)
    # One day more in front: the 24-hour means behind the indices of the first hours.
    weather = simulated_forecast(latitude, longitude, timezone, days, local_now, past_days + 1)
    first = local_now.date() - timedelta(days=past_days + 1)
    hours = [_hour(latitude, longitude, zone, first + timedelta(days=i // HOURS), i % HOURS, weather["hourly"], i)
             for i in range(len(weather["hourly"]["time"]))]
    _add_indices(hours)
    hours = hours[HOURS:]
    current = hours[past_days * HOURS + local_now.hour]
    return {
        **envelope(latitude, longitude, timezone, local_now),
        "current_units": {"time": "iso8601", "interval": "seconds", **_UNITS},
        "current": {"time": weather["current"]["time"], "interval": 900, **{k: current[k] for k in VARIABLES}},
        "hourly_units": {"time": "iso8601", **_UNITS},
        "hourly": {"time": [h["time"] for h in hours], **{k: [h[k] for h in hours] for k in VARIABLES}},
    }


def _baseline(latitude: float, longitude: float, day: date) -> tuple[float, float, float]:
    """Typical PM2.5, the PM10/PM2.5 ratio and SO2 of the region and season."""
    winter = 1 - summer(latitude, day)
    if 34 <= latitude <= 42 and 110 <= longitude <= 122:  # the North China Plain: coal heating in winter
        return 35 + 60 * winter ** 2, 1.5, 6 + 14 * winter
    if 20 <= latitude <= 50 and 75 <= longitude <= 135:  # the rest of China
        return 22 + 30 * winter ** 2, 1.5, 5 + 8 * winter
    if 8 <= latitude <= 35 and 65 <= longitude < 92:  # northern India and Pakistan: winter inversions
        return 35 + 90 * winter ** 2, 1.8, 9.0
    if 15 <= latitude <= 33 and -17 <= longitude <= 60:  # deserts: dust
        return 30.0, 3.0, 6.0
    if 30 <= latitude <= 45 and 124 <= longitude <= 146:  # Korea and Japan
        return 14 + 10 * winter, 1.6, 3.0
    if -10 <= latitude <= 20 and 95 <= longitude <= 125:  # South-East Asia
        return 18.0, 1.5, 4.0
    return 6 + 6 * winter, 1.6, 2.0


def _hour(latitude: float, longitude: float, zone: ZoneInfo, day: date, hour: int, weather: dict[str, list[Any]],
          index: int) -> dict[str, Any]:
    rng = rng_for(latitude, longitude, day, "air")
    episode = math.exp(rng.gauss(0.0, 0.4))  # a stagnant day or a clean one
    pm25_base, ratio, so2 = _baseline(latitude, longitude, day)
    wind = weather["wind_speed_10m"][index]
    washed = any(weather["precipitation"][i] > 0.2 for i in range(max(0, index - 3), index + 1))
    mixing = 1 + 0.3 * math.cos(2 * math.pi * (hour - 3) / 24)  # shallow night layer, deep afternoon one
    rush = 1 + 0.4 * (math.exp(-((hour - 8) ** 2) / 4) + math.exp(-((hour - 19) ** 2) / 6))
    pm25 = pm25_base * episode * mixing * (1.4 / (1 + wind / 20)) * (0.55 if washed else 1.0)
    sun = max(0.0, math.sin(math.radians(elevation(latitude, longitude, datetime(day.year, day.month, day.day, hour,
                                                                                      tzinfo=zone)))))
    cloud = weather["cloud_cover"][index] / 100
    ozone = 25 + 110 * summer(latitude, day) * sun * (1 - 0.5 * cloud) + 20 * rng.random()
    no2 = (12 + 18 * (1 - summer(latitude, day))) * rush * (1.3 / (1 + wind / 25))
    return {
        "time": weather["time"][index],
        "pm2_5": round(pm25, 1),
        "pm10": round(pm25 * ratio * (0.9 + 0.2 * rng.random()), 1),
        "ozone": round(ozone, 1),
        "nitrogen_dioxide": round(no2, 1),
        "sulphur_dioxide": round(so2 * episode * mixing, 1),
        "carbon_monoxide": round(150 + 6 * pm25, 1),
        **_pollen(latitude, longitude, day, hour, washed),
    }


def _in_europe(latitude: float, longitude: float) -> bool:
    """Europe, where the air-quality API has pollen: the CAMS European model's domain (30-72°N, 25°W-45°E) without
    its North African edge."""
    return 35 <= latitude <= 72 and -25 <= longitude <= 45


def _pollen(latitude: float, longitude: float, day: date, hour: int, washed: bool) -> dict[str, float | None]:
    """Each pollen in its season, released by day and washed out by rain; outside Europe null, as the API gives."""
    if not _in_europe(latitude, longitude):
        return dict.fromkeys(POLLEN)
    rng = rng_for(latitude, longitude, day, "pollen")  # draws of its own: the pollutants stay as they were
    released = (0.3 + max(0.0, math.sin(math.pi * (hour - 6) / 14))) * (0.2 if washed else 1.0)
    values = {}
    for name, (peak, spread, most) in _SEASONS.items():
        days_off = day.timetuple().tm_yday - (peak + 2 * (latitude - 45))
        grains = most * math.exp(-(days_off ** 2) / (2 * spread ** 2)) * _grows_here(name, latitude, longitude)
        grains *= math.exp(rng.gauss(0.0, 0.5)) * released
        values[name] = round(grains, 1) if grains >= 0.1 else 0.0
    return values


def _grows_here(name: str, latitude: float, longitude: float) -> float:
    """Olive trees grow around the Mediterranean; ragweed is worst in the Pannonian basin; birch in the north."""
    if name == "olive_pollen":
        return 1.0 if latitude < 44 else 0.0
    if name == "ragweed_pollen":
        return 1.0 if 44 <= latitude <= 49 and 15 <= longitude <= 30 else 0.15
    if name == "birch_pollen":
        return 1.0 if latitude >= 45 else 0.2
    return 1.0


def _add_indices(hours: list[dict[str, Any]]) -> None:
    """The European and US indices of each hour from the means they are defined on (24 h particles, 8 h ozone)."""
    for i, hour in enumerate(hours):
        day = hours[max(0, i - 23):i + 1]
        pm25, pm10 = (sum(h[k] for h in day) / len(day) for k in ("pm2_5", "pm10"))
        ozone_8h = sum(h["ozone"] for h in hours[max(0, i - 7):i + 1]) / min(8, i + 1)
        hour["european_aqi"] = round(max(_scale(pm25, _EUROPEAN["pm2_5"], _EUROPEAN_STEPS),
                                         _scale(pm10, _EUROPEAN["pm10"], _EUROPEAN_STEPS),
                                         _scale(hour["nitrogen_dioxide"], _EUROPEAN["nitrogen_dioxide"], _EUROPEAN_STEPS),
                                         _scale(hour["ozone"], _EUROPEAN["ozone"], _EUROPEAN_STEPS)))
        hour["us_aqi"] = round(max(_scale(pm25, _US["pm2_5"], _US_STEPS), _scale(pm10, _US["pm10"], _US_STEPS),
                                   _scale(ozone_8h / _OZONE_UG_PER_PPB, _US["ozone_ppb"], _US_STEPS)))


def _scale(value: float, breakpoints: tuple[float, ...], steps: tuple[int, ...]) -> float:
    for i in range(1, len(breakpoints)):
        if value <= breakpoints[i]:
            return steps[i - 1] + (steps[i] - steps[i - 1]) * (value - breakpoints[i - 1]) / (
                breakpoints[i] - breakpoints[i - 1])
    return float(steps[-1])
