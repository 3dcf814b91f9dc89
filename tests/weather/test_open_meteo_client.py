"""The Open-Meteo client against scripted transports: request shape, retries, cache and error mapping."""

from __future__ import annotations

import httpx
import pytest

from mcp import Client

from tests.support.open_meteo_replay import replay_transport
from tests.weather.conftest import FIXTURES
from weather_mcp_server.config import Settings
from weather_mcp_server.errors import UpstreamError, UpstreamUnreachable
from weather_mcp_server.server import create_server
from weather_mcp_server.sources.open_meteo import OpenMeteoClient

pytestmark = pytest.mark.anyio
SETTINGS = Settings(retry_backoff_s=0.0, max_attempts=3, cache_ttl_s=60.0)
POLLEN = ("alder_pollen", "birch_pollen", "grass_pollen", "mugwort_pollen", "olive_pollen", "ragweed_pollen")
# The variables newer than the first recordings, per block.
ADDED = {"current": {"pressure_msl", "visibility", "dew_point_2m", *POLLEN},
         "hourly": {"pressure_msl", "visibility", "dew_point_2m", "uv_index", *POLLEN}}


def scripted(*responses: httpx.Response | Exception) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    """A transport answering with `responses` in order (the last one repeats), recording the requests."""
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = responses[min(len(seen), len(responses)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return httpx.MockTransport(handle), seen


def day(lat: float) -> dict:
    return {"latitude": lat, "daily": {"time": ["2026-07-20"], "temperature_2m_max": [30.0]}}


async def test_many_cities_are_one_request() -> None:
    transport, seen = scripted(httpx.Response(200, json=[day(1.0), day(2.0), day(3.0)]))
    client = OpenMeteoClient(SETTINGS, transport)
    payloads = await client.daily_many([(1.0, 10.0), (2.0, 20.0), (3.0, 30.0)], days=2)
    assert [p["latitude"] for p in payloads] == [1.0, 2.0, 3.0]
    assert len(seen) == 1
    params = seen[0].url.params
    assert params["latitude"] == "1.0000,2.0000,3.0000" and params["longitude"] == "10.0000,20.0000,30.0000"
    assert params["forecast_days"] == "2" and params["timezone"] == "auto"


async def test_past_days_and_air_quality_requests_have_the_documented_shape() -> None:
    transport, seen = scripted(httpx.Response(200, json=day(1.0)))
    client = OpenMeteoClient(SETTINGS, transport)
    await client.forecast(1.0, 2.0)
    await client.forecast(1.0, 2.0, past_days=7)
    await client.air_quality(1.0, 2.0, past_days=1)
    plain, past, air = (request.url for request in seen)
    assert "past_days" not in plain.params and past.params["past_days"] == "7"
    assert {"sunrise", "sunset", "daylight_duration"} <= set(past.params["daily"].split(","))
    assert {"apparent_temperature", "cloud_cover", "wind_speed_10m"} <= set(past.params["hourly"].split(","))
    assert {"pressure_msl", "visibility", "dew_point_2m", "uv_index"} <= set(past.params["hourly"].split(","))
    assert {"pressure_msl", "visibility", "dew_point_2m", "uv_index"} <= set(past.params["current"].split(","))
    assert (air.host, air.path) == ("air-quality-api.open-meteo.com", "/v1/air-quality")
    wanted = {"pm2_5", "pm10", "ozone", "nitrogen_dioxide", "sulphur_dioxide", "carbon_monoxide", "european_aqi",
              "us_aqi", *POLLEN}
    assert set(air.params["hourly"].split(",")) == set(air.params["current"].split(",")) == wanted
    assert air.params["forecast_days"] == "5" and air.params["past_days"] == "1" and air.params["timezone"] == "auto"


async def test_retries_5xx_and_429_then_succeeds() -> None:
    transport, seen = scripted(httpx.Response(503), httpx.Response(429), httpx.Response(200, json=day(1.0)))
    payload = await OpenMeteoClient(SETTINGS, transport).forecast(1.0, 2.0)
    assert payload["latitude"] == 1.0 and len(seen) == 3


async def test_gives_up_after_bounded_attempts() -> None:
    transport, seen = scripted(httpx.Response(502))
    with pytest.raises(UpstreamError, match=r"HTTP 502\) after 3 attempts"):
        await OpenMeteoClient(SETTINGS, transport).forecast(1.0, 2.0)
    assert len(seen) == 3


async def test_4xx_is_not_retried_and_keeps_the_reason() -> None:
    transport, seen = scripted(httpx.Response(400, json={"error": True, "reason": "Invalid forecast_days"}))
    with pytest.raises(UpstreamError, match=r"rejected the request \(HTTP 400\): Invalid forecast_days"):
        await OpenMeteoClient(SETTINGS, transport).forecast(1.0, 2.0)
    assert len(seen) == 1


async def test_malformed_json() -> None:
    transport, _ = scripted(httpx.Response(200, content=b"<html>oops"))
    with pytest.raises(UpstreamError, match="malformed JSON"):
        await OpenMeteoClient(SETTINGS, transport).forecast(1.0, 2.0)


async def test_wrong_number_of_locations_is_malformed() -> None:
    transport, _ = scripted(httpx.Response(200, json=[day(1.0)]))
    with pytest.raises(UpstreamError, match="expected 2 locations"):
        await OpenMeteoClient(SETTINGS, transport).daily_many([(1.0, 1.0), (2.0, 2.0)], days=1)


async def test_connect_failure_is_unreachable_without_retries() -> None:
    transport, seen = scripted(httpx.ConnectError("no route to host"))
    with pytest.raises(UpstreamUnreachable, match="unreachable"):
        await OpenMeteoClient(SETTINGS, transport).forecast(1.0, 2.0)
    assert len(seen) == 1


async def test_read_timeouts_are_retried_then_unreachable() -> None:
    transport, seen = scripted(httpx.ReadTimeout("slow"))
    with pytest.raises(UpstreamUnreachable, match="did not answer"):
        await OpenMeteoClient(SETTINGS, transport).forecast(1.0, 2.0)
    assert len(seen) == 3


async def test_ttl_cache_avoids_repeat_requests() -> None:
    transport, seen = scripted(httpx.Response(200, json=day(1.0)))
    client = OpenMeteoClient(SETTINGS, transport)
    await client.forecast(1.0, 2.0)
    await client.forecast(1.0, 2.0)
    await client.forecast(3.0, 2.0)
    assert len(seen) == 2


async def test_geocoding_without_results_is_empty() -> None:
    transport, seen = scripted(httpx.Response(200, json={"generationtime_ms": 0.3}))
    assert await OpenMeteoClient(SETTINGS, transport).geocode("Nowhere", "en") == []
    assert seen[0].url.params["language"] == "en" and seen[0].url.params["name"] == "Nowhere"


def answered_without_the_added_variables(how: str) -> httpx.MockTransport:
    """The recordings as an answer that predates the added variables ("absent": not asked for, so not in the
    answer) or that has them as null (the API's answer where its model has no value)."""
    replay = replay_transport(FIXTURES)

    def handle(request: httpx.Request) -> httpx.Response:
        params = dict(request.url.params)
        if how == "absent":
            for block, added in ADDED.items():
                if block in params:
                    params[block] = ",".join(v for v in params[block].split(",") if v not in added)
        answer = replay.handle_request(httpx.Request("GET", request.url.copy_with(params=params)))
        if how == "absent" or answer.status_code != 200:
            return answer
        body = answer.json()
        for block, added in ADDED.items():
            for name in added & set(body.get(block, {})):
                series = body[block][name]
                body[block][name] = [None] * len(series) if isinstance(series, list) else None
        return httpx.Response(200, json=body)

    return httpx.MockTransport(handle)


@pytest.mark.parametrize("how", ["absent", "null"])
async def test_an_answer_without_the_added_variables_gives_nulls_and_says_nothing_of_them(how: str) -> None:
    """Nothing is made up for a missing value: the field is null and the text leaves it out."""
    settings = Settings(provider="open-meteo", retry_backoff_s=0.0)
    async with Client(create_server(settings, answered_without_the_added_variables(how))) as client:
        now = await client.call_tool("get_current_weather", {"city": "London"})
        hours = await client.call_tool("get_forecast", {"city": "London", "day": 1, "hours": [12, 15]})
        air = await client.call_tool("get_air_quality", {"city": "London"}, meta={"locale": "zh-CN"})
        air_day = await client.call_tool("get_air_quality", {"city": "London", "day": 1})
    for result in (now, hours, air, air_day):
        assert not result.is_error, result.content
    current = now.structured_content
    assert (current["pressure"], current["visibility"], current["dew_point"]) == (None, None, None)
    assert current["temperature"] is not None and current["uv_index"] is not None  # what was there still is
    text = now.content[0].text
    assert "pressure" not in text and "visibility" not in text and "dew point" not in text
    for hour in hours.structured_content["hours"]:
        assert [hour[k] for k in ("pressure", "visibility", "dew_point", "uv_index")] == [None] * 4
        assert hour["temperature"] is not None
    assert "UV" not in hours.content[0].text
    readings = [air.structured_content["current"], *air_day.structured_content["days"]]
    assert all(reading[name] is None for reading in readings for name in POLLEN)
    assert air.structured_content["current"]["pm2_5"] is not None
    assert "花粉" not in air.content[0].text and "pollen" not in air_day.content[0].text
