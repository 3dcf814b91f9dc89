"""China's AQI (HJ 633-2012) against worked examples computed by hand from the standard's Table 1:
IAQI = (IAQI_hi - IAQI_lo) / (BP_hi - BP_lo) × (C - BP_lo) + IAQI_lo, rounded up; AQI = the largest IAQI."""

from __future__ import annotations

import pytest

from weather_mcp_server.domain.china_aqi import DAILY, HOURLY, daily_index, hourly_index, sub_index

# (concentration, expected AQI, expected category) for PM2.5's 24-hour breakpoints, on and just past each
# boundary between categories: 35 → 50 优 | 35.1 → 50 + 50 × 0.1/40 = 50.125 → 51 良, and so on.
PM25_BOUNDARIES = [
    (0, 0, "优"), (35, 50, "优"), (35.1, 51, "良"), (75, 100, "良"), (75.1, 101, "轻度污染"),
    (115, 150, "轻度污染"), (115.5, 151, "中度污染"), (150, 200, "中度污染"), (150.5, 201, "重度污染"),
    (250, 300, "重度污染"), (250.1, 301, "严重污染"), (500, 500, "严重污染"), (650, 500, "严重污染"),
]


@pytest.mark.parametrize(("pm25", "aqi", "category"), PM25_BOUNDARIES)
def test_pm25_at_the_boundaries_between_categories(pm25: float, aqi: int, category: str) -> None:
    index = daily_index({"PM2.5": pm25}, None, None)
    assert (index.aqi, index.category) == (aqi, category)
    assert index.primary == (("PM2.5",) if aqi > 50 else ())  # no primary pollutant at 50 or less


def test_sub_indices_of_each_pollutant() -> None:
    assert sub_index(100, DAILY["PM10"]) == 75  # 50 + 50 × (100 - 50)/(150 - 50)
    assert sub_index(150, HOURLY["NO2"]) == 75  # 50 + 50 × (150 - 100)/(200 - 100)
    assert sub_index(3, DAILY["CO"]) == 75  # mg/m³: 50 + 50 × (3 - 2)/(4 - 2)
    assert sub_index(180, DAILY["O3"]) == 119  # 8-hour: 100 + 50 × (180 - 160)/(215 - 160) = 118.2, rounded up
    assert sub_index(5, HOURLY["SO2"]) == 2  # 50 × 5/150 = 1.67, rounded up
    assert sub_index(45, HOURLY["O3"]) == 15  # 50 × 45/160 = 14.06, rounded up


def test_an_hourly_index_and_its_primary_pollutant() -> None:
    """PM2.5 49 → 50 + 50 × 14/40 = 67.5 → 68; PM10 62 (24-hour table) → 56; O3 45 → 15; NO2 30 → 15; SO2 5 → 2;
    CO 0.4 mg/m³ → 4: AQI 68, 良, PM2.5."""
    index = hourly_index({"PM2.5": 49, "PM10": 62, "O3": 45, "NO2": 30, "SO2": 5, "CO": 0.4})
    assert (index.aqi, index.level, index.category, index.category_en, index.primary) == (
        68, 2, "良", "Good", ("PM2.5",))


def test_the_standard_s_special_cases() -> None:
    # SO2 above 800 μg/m³ in an hour: reported by its 24-hour breakpoints, 200 + 100 × 100/800 = 212.5 → 213.
    assert hourly_index({"SO2": 900}).aqi == 213
    # O3's 8-hour mean above 800: its 1-hour index instead, 300 + 100 × (900 - 800)/(1000 - 800) = 350.
    assert daily_index({}, 850, 900).aqi == 350
    # Two pollutants on the same sub-index are both primary.
    assert daily_index({"PM2.5": 75, "PM10": 150}, None, None).primary == ("PM2.5", "PM10")
    assert hourly_index({"PM2.5": None}) is None
