"""The simulated provider: deterministic, plausible, shaped like Open-Meteo, always labelled."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from weather_mcp_server.simulated import simulated_forecast


def forecast(lat: float, lon: float, tz: str, when: datetime) -> dict:
    return simulated_forecast(lat, lon, tz, days=16, now=when)


def test_same_place_and_date_give_same_numbers() -> None:
    when = datetime(2026, 1, 15, 9, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert forecast(39.9, 116.4, "Asia/Shanghai", when) == forecast(39.9, 116.4, "Asia/Shanghai", when)
    beijing = forecast(39.9, 116.4, "Asia/Shanghai", when)["daily"]["temperature_2m_max"]
    assert forecast(31.2, 121.5, "Asia/Shanghai", when)["daily"]["temperature_2m_max"] != beijing


def test_latitude_and_season_are_plausible() -> None:
    january = datetime(2026, 1, 15, 9, tzinfo=ZoneInfo("UTC"))
    july = datetime(2026, 7, 15, 9, tzinfo=ZoneInfo("UTC"))

    def mean_max(lat: float, when: datetime) -> float:
        values = forecast(lat, 0.0, "UTC", when)["daily"]["temperature_2m_max"]
        return sum(values) / len(values)

    assert mean_max(1.3, january) > mean_max(45.8, january) + 15  # Singapore vs Harbin in winter
    assert mean_max(45.8, july) > mean_max(45.8, january) + 15  # northern summer
    assert mean_max(-33.9, january) > mean_max(-33.9, july) + 5  # southern summer is in January
    winter = forecast(45.8, 126.6, "Asia/Shanghai", january)["daily"]
    rows = zip(winter["temperature_2m_max"], winter["snowfall_sum"], winter["weather_code"], strict=True)
    for high, snow, code in rows:
        assert snow == 0 or high < 1.5  # snow only when cold
        assert code not in (61, 63, 65) or high >= 1.5


def test_shape_matches_open_meteo() -> None:
    payload = forecast(48.85, 2.35, "Europe/Paris", datetime(2026, 7, 20, 10, tzinfo=ZoneInfo("Europe/Paris")))
    assert payload["utc_offset_seconds"] == 7200 and payload["timezone"] == "Europe/Paris"
    assert len(payload["daily"]["time"]) == 16 and len(payload["hourly"]["time"]) == 16 * 24
    assert payload["daily"]["time"][0] == "2026-07-20" and payload["current"]["time"] == "2026-07-20T10:00"
    for block in ("current", "hourly", "daily"):
        assert set(payload[block]) == set(payload[f"{block}_units"])
    daily = payload["daily"]
    assert all(lo <= hi for lo, hi in zip(daily["temperature_2m_min"], daily["temperature_2m_max"], strict=True))
