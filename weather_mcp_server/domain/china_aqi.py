"""China's air quality index (HJ 633-2012, 环境空气质量指数技术规定), computed from the concentrations.

Each pollutant's sub-index (IAQI) interpolates linearly between the standard's breakpoints (its Table 1) and is
rounded up to a whole number; the AQI is the largest sub-index, its pollutant the primary one when the AQI is
above 50. The hourly index (实时报) uses 1-hour means of SO2, NO2, CO and O3 with their 1-hour breakpoints and the
particles' 1-hour means with their 24-hour breakpoints (the standard gives the particles no others); the daily
index (日报) uses 24-hour means and O3's highest 8-hour mean. Concentrations in μg/m³, CO in mg/m³.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

IAQI_STEPS = (0, 50, 100, 150, 200, 300, 400, 500)
# Table 1 of HJ 633-2012: each pollutant's concentration at the sub-index steps above.
HOURLY = {
    "SO2": (0, 150, 500, 650, 800),  # beyond 800 the standard reports SO2 by its 24-hour breakpoints
    "NO2": (0, 100, 200, 700, 1200, 2340, 3090, 3840),
    "PM10": (0, 50, 150, 250, 350, 420, 500, 600),
    "CO": (0, 5, 10, 35, 60, 90, 120, 150),
    "O3": (0, 160, 200, 300, 400, 800, 1000, 1200),
    "PM2.5": (0, 35, 75, 115, 150, 250, 350, 500),
}
DAILY = {
    "SO2": (0, 50, 150, 475, 800, 1600, 2100, 2620),
    "NO2": (0, 40, 80, 180, 280, 565, 750, 940),
    "PM10": (0, 50, 150, 250, 350, 420, 500, 600),
    "CO": (0, 2, 4, 14, 24, 36, 48, 60),
    "O3": (0, 100, 160, 215, 265, 800),  # 8-hour mean; beyond 800 the standard takes O3's 1-hour index
    "PM2.5": (0, 35, 75, 115, 150, 250, 350, 500),
}
# (upper AQI, level, the standard's category, its English name)
CATEGORIES = (
    (50, 1, "优", "Excellent"),
    (100, 2, "良", "Good"),
    (150, 3, "轻度污染", "Lightly polluted"),
    (200, 4, "中度污染", "Moderately polluted"),
    (300, 5, "重度污染", "Heavily polluted"),
    (math.inf, 6, "严重污染", "Severely polluted"),
)


@dataclass(frozen=True)
class Index:
    """An AQI with its level (1-6), category and the pollutants that set it (none when it is 50 or less)."""

    aqi: int
    level: int
    category: str
    category_en: str
    primary: tuple[str, ...]


def sub_index(concentration: float, breakpoints: Sequence[float]) -> int:
    """The IAQI of one concentration: linear between the breakpoints around it, rounded up; the top of the
    table beyond them."""
    if concentration >= breakpoints[-1]:
        return IAQI_STEPS[len(breakpoints) - 1]
    for step in range(1, len(breakpoints)):
        low, high = breakpoints[step - 1], breakpoints[step]
        if concentration <= high:
            iaqi_low, iaqi_high = IAQI_STEPS[step - 1], IAQI_STEPS[step]
            # Rounded to 1e-9 first, so a concentration exactly on a breakpoint is not pushed up by float error.
            return math.ceil(round(iaqi_low + (iaqi_high - iaqi_low) * (concentration - low) / (high - low), 9))
    raise AssertionError("unreachable: the last breakpoint is handled above")


def category(aqi: int) -> tuple[int, str, str]:
    """Level, category and English name of an AQI value."""
    return next((level, zh, en) for upper, level, zh, en in CATEGORIES if aqi <= upper)


def hourly_index(c: Mapping[str, float | None]) -> Index | None:
    """The hourly index (实时报) from 1-hour means keyed SO2, NO2, PM10, CO (mg/m³), O3, PM2.5; None without data."""
    indices = {}
    for pollutant, value in c.items():
        if value is None:
            continue
        if pollutant == "SO2" and value > HOURLY["SO2"][-1]:
            indices[pollutant] = sub_index(value, DAILY["SO2"])
        else:
            indices[pollutant] = sub_index(value, HOURLY[pollutant])
    return _index(indices)


def daily_index(means: Mapping[str, float | None], ozone_8h_max: float | None,
                ozone_1h_max: float | None) -> Index | None:
    """The daily index (日报) from 24-hour means (keys as in `hourly_index`, O3 left out) and O3's highest 8-hour
    and 1-hour means."""
    indices = {p: sub_index(v, DAILY[p]) for p, v in means.items() if v is not None and p != "O3"}
    if ozone_8h_max is not None:
        over = ozone_8h_max > DAILY["O3"][-1] and ozone_1h_max is not None
        indices["O3"] = sub_index(ozone_1h_max, HOURLY["O3"]) if over else sub_index(ozone_8h_max, DAILY["O3"])
    return _index(indices)


def _index(indices: Mapping[str, int]) -> Index | None:
    if not indices:
        return None
    aqi = max(indices.values())
    level, zh, en = category(aqi)
    primary = tuple(p for p, value in indices.items() if value == aqi) if aqi > 50 else ()
    return Index(aqi, level, zh, en, primary)
