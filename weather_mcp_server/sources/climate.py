"""A rough climate for any place and season: mean temperature, how often it rains, how hard, how humid and windy.

Enough for simulated weather that a reader believes: dry winters in northern China, monsoon summers in the south
and in India, wet Mediterranean winters, dry deserts, rain most days near the equator, and the southern
hemisphere's seasons reversed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Climate:
    """What a day at the place and season is like on average."""

    mean_c: float  # daily mean temperature
    wet_chance: float  # share of days with precipitation
    wet_mm: float  # mean precipitation of a wet day
    convective: bool  # showers and storms of an afternoon rather than long rain
    humidity: float  # typical relative humidity of a dry hour (%)
    wind_kmh: float  # typical wind speed


def summer(latitude: float, day: date) -> float:
    """0 in the depth of winter, 1 at the height of summer (a month after the solstice), by hemisphere."""
    coldest = 20 if latitude >= 0 else 202
    return (1 - math.cos(2 * math.pi * (day.timetuple().tm_yday - coldest) / 365.25)) / 2


def region(latitude: float, longitude: float) -> str:
    """The precipitation regime of a place."""
    if 18 <= latitude <= 53 and 100 <= longitude <= 145:
        return "east_asia_north" if latitude >= 33 else "east_asia_south"
    if 5 <= latitude <= 32 and 65 <= longitude < 100:
        return "south_asia"
    if (15 <= latitude <= 33 and -17 <= longitude <= 60) or (-30 <= latitude <= -20 and 118 <= longitude <= 145):
        return "desert"
    if (30 <= latitude <= 45 and -10 <= longitude <= 42) or (30 <= latitude <= 42 and -125 <= longitude <= -114):
        return "mediterranean"
    if abs(latitude) < 12:
        return "tropical"
    return "temperate"


def climate(latitude: float, longitude: float, day: date) -> Climate:
    """The average day at the place in the season of `day`."""
    warm = summer(latitude, day)
    kind = region(latitude, longitude)
    mean = _mean_temperature(latitude, longitude, warm)
    if kind == "east_asia_north":  # Siberian high in winter, monsoon rains in July
        return Climate(mean, 0.05 + 0.45 * warm ** 2, 2.0 + 14.0 * warm ** 2, warm > 0.7, 40 + 35 * warm, 12.0)
    if kind == "east_asia_south":
        return Climate(mean, 0.2 + 0.45 * warm, 4.0 + 14.0 * warm, warm > 0.5, 65 + 17 * warm, 10.0)
    if kind == "south_asia":  # the monsoon: nearly dry from December to April
        monsoon = max(0.0, (warm - 0.45) / 0.55) ** 1.5
        return Climate(mean, 0.03 + 0.72 * monsoon, 3.0 + 18.0 * monsoon, True, 40 + 45 * monsoon, 9.0)
    if kind == "desert":
        return Climate(mean, 0.02, 2.0, True, 25.0, 14.0)
    if kind == "mediterranean":  # wet winters, dry summers
        return Climate(mean, 0.35 - 0.3 * warm, 7.0 - 3.0 * warm, warm > 0.6, 70 - 25 * warm, 13.0)
    if kind == "tropical":
        return Climate(mean, 0.45 + 0.15 * warm, 10.0, True, 78.0, 9.0)
    return Climate(mean, 0.32 + 0.04 * warm, 4.0 + 3.0 * warm, warm > 0.7, 72 - 8 * warm, 15.0)


def _mean_temperature(latitude: float, longitude: float, warm: float) -> float:
    """The annual mean falls with latitude; the seasonal swing grows with it, more inland, less by the ocean."""
    annual = 28.0 - 0.42 * max(0.0, abs(latitude) - 12.0)
    amplitude = min(15.0, 0.32 * abs(latitude))
    if latitude >= 30 and (70 <= longitude <= 135 or -110 <= longitude <= -70):  # continental winters
        annual, amplitude = annual - 6.0, amplitude * 1.3
    elif (latitude >= 35 and -10 <= longitude <= 30) or latitude <= -30:  # maritime: mild winters, cool summers
        amplitude *= 0.6
    return annual - amplitude + 2 * amplitude * warm
