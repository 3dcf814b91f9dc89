"""Bad input and upstream failures become MCP tool errors with precise messages; the server keeps serving."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.weather.conftest import replay_copy, replaying, server_env, stdio_client

pytestmark = pytest.mark.anyio

BEIJING, SHANGHAI, GUANGZHOU = (39.9, 116.4), (31.2, 121.5), (23.1, 113.3)
SHENZHEN, TOKYO = (22.5, 114.1), (35.7, 139.7)
FAULTS = [
    {"near": BEIJING, "status": 503, "body": "Service Unavailable"},
    {"near": SHANGHAI, "status": 400, "body": '{"error": true, "reason": "Latitude must be in range of -90 to 90°."}'},
    {"near": GUANGZHOU, "status": 200, "body": '{"latitude": 23.1, "daily": {"time": ["2026-07-20"'},
    {"near": SHENZHEN, "timeout": True},
    {"near": TOKYO, "status": 429, "body": '{"error": true, "reason": "Too many requests"}', "times": 1},
]


async def error_text(client, tool: str, arguments: dict, **kwargs) -> str:
    result = await client.call_tool(tool, arguments, **kwargs)
    assert result.is_error, f"{tool}{arguments} should fail, got {result.structured_content}"
    assert result.structured_content is None  # no error posing as data
    return result.content[0].text


async def test_bad_arguments_are_precise_tool_errors(tmp_path: Path) -> None:
    async with stdio_client(server_env(), replaying(replay_copy(tmp_path))) as client:
        unknown = await error_text(client, "get_current_weather", {"city": "Zermat"})
        ambiguous = await error_text(client, "get_forecast", {"city": "Springfield"})
        beyond = await error_text(client, "get_forecast", {"city": "Beijing", "day": 45})
        too_long = await error_text(client, "get_precipitation", {"city": "Beijing", "day": 10, "days": 7})
        past = await error_text(client, "get_forecast", {"city": "Beijing", "day": -100})
        past_date = await error_text(client, "get_precipitation", {"city": "Beijing", "day": "2026-01-01"},
                                     meta={"locale": "zh-CN"})
        bad_hour = await error_text(client, "get_forecast", {"city": "Beijing", "day": 1, "hours": [24]})
        bad_part = await error_text(client, "get_precipitation", {"city": "Beijing", "hours": "dusk"})
        last_night = await error_text(client, "get_forecast", {"city": "Beijing", "day": 15, "hours": "night"})
        no_air = await error_text(client, "get_air_quality", {"city": "-75.1,123.35"})
        air_too_far = await error_text(client, "get_air_quality", {"city": "Beijing", "day": 5})
        air_bad_hour = await error_text(client, "get_air_quality", {"city": "Beijing", "hours": [-1]})
        bad_date = await error_text(client, "get_forecast", {"city": "Beijing", "day": "2026-02-30"})
        unbounded = await error_text(client, "find_cities_by_temperature",
                                     {"relation": "between", "temp": -100, "temp2": 100})
        no_upper = await error_text(client, "find_cities_by_temperature", {"relation": "between", "temp": 20})
        bad_kind = await error_text(client, "get_weather_chart", {"city": "Beijing", "kind": "wind"})
        still_serving = await client.call_tool("get_current_weather", {"city": "Beijing"})
    assert "Unknown place 'Zermat'" in unknown and "Zermatt" in unknown  # a town, suggested, not guessed
    assert "ambiguous" in ambiguous and "Springfield, Illinois, US" in ambiguous and "Springfield, Missouri, US" in ambiguous
    # Days the data does not cover are refused with the limit stated, in words a reader can pass on.
    assert "The forecast reaches 16 days, through 2026-08-04 (Tuesday); 2026-09-03 (45 days from today)" in beyond
    assert "2026-08-05 (16 days from today) is beyond it" in too_long
    # Past days reach back as far as the forecast API's past_days (92); further is refused with that limit.
    assert "Past weather reaches back 92 days, to 2026-04-19 (Sunday); 2026-04-11 (100 days ago)" in past
    assert past_date.endswith("过去的天气只能查到92天前（2026年4月19日），2026年1月1日（200天前）早于这个范围。")
    assert bad_hour.endswith("hours are 0 to 23 on the 24-hour clock, got 24")
    assert air_bad_hour.endswith("hours are 0 to 23 on the 24-hour clock, got -1")
    assert "hours" in bad_part and "'night'" in bad_part and "dusk" in bad_part  # refused by the schema
    # The night of the last forecast day runs into a day the forecast does not have.
    assert "Hourly data reaches 2026-08-04 23:00; the hours asked lie beyond it." in last_night
    assert no_air.endswith("Air-quality data is not available at -75.10, 123.35 (near Port-aux-Français).")
    assert "The forecast reaches 5 days, through 2026-07-24 (Friday)" in air_too_far
    assert "a date YYYY-MM-DD, got '2026-02-30'" in bad_date
    assert "within the temperatures on record" in unbounded  # both bounds beyond any record: no bound at all
    assert "'between' needs temp2" in no_upper
    assert "kind" in bad_kind
    assert not still_serving.is_error


async def test_upstream_failures_in_strict_mode(tmp_path: Path) -> None:
    async with stdio_client(server_env(WEATHER_READ_TIMEOUT_S="1"), replaying(replay_copy(tmp_path, FAULTS))) as client:
        unavailable = await error_text(client, "get_forecast", {"city": "Beijing"})
        rejected = await error_text(client, "get_forecast", {"city": "Shanghai"})
        malformed = await error_text(client, "get_forecast", {"city": "Guangzhou"})
        timed_out = await error_text(client, "get_forecast", {"city": "Shenzhen"})
        retried = await client.call_tool("get_forecast", {"city": "Tokyo"})
    assert "Open-Meteo failed (HTTP 503) after 3 attempts" in unavailable
    assert "Open-Meteo rejected the request (HTTP 400): Latitude must be in range" in rejected
    assert "malformed JSON" in malformed
    assert "did not answer" in timed_out
    assert not retried.is_error and retried.structured_content["source"] == "open-meteo"


async def test_auto_mode_falls_back_to_labelled_simulation_and_remembers(tmp_path: Path) -> None:
    replay = replay_copy(tmp_path, [{"timeout": True}])
    env = server_env(provider="auto", WEATHER_READ_TIMEOUT_S="1", WEATHER_MAX_ATTEMPTS="1")
    async with stdio_client(env, replaying(replay)) as client:
        first = await client.call_tool("get_current_weather", {"city": "Berlin"})
        started = time.monotonic()
        second = await client.call_tool("get_forecast", {"city": "London", "day": 1})
        second_s = time.monotonic() - started
    for result in (first, second):
        assert not result.is_error
        assert result.structured_content["source"] == "simulated"
        notice = result.structured_content["notice"]
        assert notice == "Note: Open-Meteo could not be reached, so these figures are simulated, not real weather."
        assert result.content[-1].text.endswith(notice)  # hosts that read only the text see it too
        assert result.structured_content.get("attribution") is None
    assert second_s < 1.0, "the outage should be remembered, not probed again"
