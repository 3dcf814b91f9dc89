"""Every tool through a real MCP client session, over stdio and streamable HTTP, against the replayed payloads."""

from __future__ import annotations

import base64
import io
import json

import jsonschema
import pytest
from PIL import Image

from tests.weather.conftest import FIXTURES

pytestmark = pytest.mark.anyio


def recording(name: str) -> dict:
    return json.loads((FIXTURES / "forecast" / f"{name}.json").read_text(encoding="utf-8"))


async def call(client, tool: str, arguments: dict, **kwargs):
    """Call a tool and check the result against the tool's advertised outputSchema."""
    listed = {t.name: t for t in (await client.list_tools()).tools}
    result = await client.call_tool(tool, arguments, **kwargs)
    assert not result.is_error, result.content
    jsonschema.validate(result.structured_content, listed[tool].output_schema)
    return result


def assert_place(structured: dict, english_name: str) -> None:
    assert structured["location"]["english_name"] == english_name
    assert {"name", "country", "latitude", "longitude", "timezone"} <= structured["location"].keys()
    assert structured["source"] == "open-meteo"
    assert "CC BY 4.0" in structured["attribution"]
    assert structured["units"]["temperature"] == "°C"
    assert structured.get("notice") is None


async def test_current_weather_in_chinese(connect) -> None:
    async with connect() as client:
        result = await call(client, "get_current_weather", {"city": "北京"})
    data, expected = result.structured_content, recording("beijing")["current"]
    assert_place(data, "Beijing")
    assert data["location"]["name"] == "北京"
    assert data["temperature"] == expected["temperature_2m"]
    assert data["feels_like"] == expected["apparent_temperature"]
    assert data["humidity"] == expected["relative_humidity_2m"]
    assert data["weather_code"] == expected["weather_code"]
    assert data["time"] == expected["time"]
    assert f"{expected['temperature_2m']:g}°C" in result.content[0].text


async def test_forecast_runs_from_today_through_days_ahead(connect) -> None:
    async with connect() as client:
        result = await call(client, "get_forecast", {"city": "Peking", "days_ahead": 3})
    data, daily = result.structured_content, recording("beijing")["daily"]
    assert_place(data, "Beijing")
    assert [d["date"] for d in data["days"]] == daily["time"][:4]
    assert [d["temp_max"] for d in data["days"]] == daily["temperature_2m_max"][:4]
    # Four days or more: the text starts with the span of the whole period and its wettest day.
    overall = f"overall {min(daily['temperature_2m_min'][:4]):g}..{max(daily['temperature_2m_max'][:4]):g}°C"
    wettest = max(daily["precipitation_probability_max"][:4])
    assert f"{overall}, highest rain chance {wettest:g}% on " in result.content[0].text
    assert [d["precipitation_probability"] for d in data["days"]] == daily["precipitation_probability_max"][:4]


async def test_precipitation_outlook_with_hours(connect) -> None:
    async with connect() as client:
        result = await call(client, "get_precipitation", {"city": "Chengdu", "days_ahead": 1, "hourly": True})
    data, daily = result.structured_content, recording("chengdu")["daily"]
    assert_place(data, "Chengdu")
    assert [d["rain_sum"] for d in data["days"]] == daily["rain_sum"][:2]
    hours = data["hours"]
    assert hours[0]["time"] == "2026-07-20T10:00"  # from the current hour...
    assert hours[-1]["time"] == "2026-07-21T23:00"  # ...to the end of the last covered day
    wet = any(d["rain_sum"] >= 1 or d["probability_max"] >= 50 for d in data["days"])
    assert data["umbrella_advised"] == wet


async def test_find_cities_by_temperature_with_progress(connect) -> None:
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total))

    async with connect() as client:
        result = await call(
            client, "find_cities_by_temperature", {"min_temp": 29, "max_temp": 30, "days_ahead": 1},
            progress_callback=on_progress,
        )
    data = result.structured_content
    expected = sorted(
        recording(path.stem)["daily"]["temperature_2m_max"][1]
        for path in (FIXTURES / "forecast").glob("*.json")
        if path.stem != "hallstatt" and 29 <= recording(path.stem)["daily"]["temperature_2m_max"][1] <= 30
    )
    assert data["cities_checked"] == len(list((FIXTURES / "forecast").glob("*.json"))) - 1
    assert sorted(m["temperature"] for m in data["matches"]) == expected
    assert expected, "the recordings should contain at least one 29-30 °C city"
    distances = [abs(m["temperature"] - 29.5) for m in data["matches"]]
    assert distances == sorted(distances)  # ranked: closest to the middle of the range first
    assert [m["rank"] for m in data["matches"]] == list(range(1, len(expected) + 1))
    assert all(m["location"]["chinese_name"] for m in data["matches"])
    assert data["date"] == "2026-07-21"
    assert progress and progress[-1][0] == progress[-1][1]
    assert [p[0] for p in progress] == sorted(p[0] for p in progress)


async def test_temperature_search_reads_bounds_as_meant(connect) -> None:
    """Bounds upside down are the same span; a bound beyond any temperature on record is no bound."""
    async with connect() as client:
        swapped = await call(client, "find_cities_by_temperature", {"min_temp": 30, "max_temp": 29, "days_ahead": 1})
        above = await call(client, "find_cities_by_temperature", {"min_temp": 29, "max_temp": 100, "days_ahead": 1})
        upright = await call(client, "find_cities_by_temperature", {"min_temp": 29, "max_temp": 30, "days_ahead": 1})
        nothing = await call(client, "find_cities_by_temperature", {"min_temp": 55, "days_ahead": 1})
    assert (swapped.structured_content["min_temp"], swapped.structured_content["max_temp"]) == (29, 30)
    assert swapped.structured_content["matches"] == upright.structured_content["matches"]
    assert (above.structured_content["min_temp"], above.structured_content["max_temp"]) == (29, None)
    assert "none (closest: " in nothing.content[0].text  # no match: the nearest cities, with their figures
    closest = nothing.structured_content["nearest_outside"][0]
    named = f"{closest['location']['name']}/{closest['location']['chinese_name']}"  # both languages
    assert f"{named} {closest['temperature']:g}°C" in nothing.content[0].text
    assert {m["temperature"] for m in above.structured_content["matches"]} >= {
        m["temperature"] for m in upright.structured_content["matches"]}
    assert all(m["temperature"] >= 29 for m in above.structured_content["matches"])


async def test_temperature_chart_png(connect) -> None:
    async with connect() as client:
        result = await call(client, "get_weather_chart", {"city": "广州", "days_ahead": 4, "kind": "temperature"})
    image, text = result.content
    assert image.type == "image" and image.mime_type == "image/png"
    png = Image.open(io.BytesIO(base64.b64decode(image.data)))
    data = result.structured_content
    assert png.format == "PNG" and png.size == (data["width"], data["height"]) == (800, 450)
    assert data["font"] != "DejaVu Sans", "a CJK-capable font must be installed (scripts/setup.sh)"
    assert len(data["points"]) == 5
    assert [p["temp_max"] for p in data["points"]] == recording("guangzhou")["daily"]["temperature_2m_max"][:5]
    assert data["alt_text"] in text.text
    first = data["points"][0]  # the plotted values follow, so a model can quote them
    assert f"Daily: {first['date']} {first['temp_min']:g}..{first['temp_max']:g}°C; " in text.text


async def test_tool_metadata(connect) -> None:
    async with connect() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        resources = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        cities = await client.read_resource("weather://cities")
    assert set(tools) == {
        "get_current_weather", "get_forecast", "get_precipitation", "find_cities_by_temperature", "get_weather_chart"
    }
    for tool in tools.values():
        assert tool.annotations.read_only_hint and tool.annotations.idempotent_hint
        assert tool.annotations.open_world_hint and tool.annotations.destructive_hint is False
        assert tool.output_schema["type"] == "object" and "properties" in tool.output_schema
        assert len(tool.description) < 120  # small local models read these on every request
    assert tools["get_forecast"].input_schema["properties"]["days_ahead"]["maximum"] == 15
    assert [str(r.uri) for r in resources] == ["weather://cities"]
    assert [t.uri_template for t in templates] == ["weather://forecast/{city}"]
    assert prompts == {"weather_report", "trip_planning"}
    listed = json.loads(cities.contents[0].text)
    assert {"北京", "东京"} <= {c["chinese_name"] for c in listed}


async def test_geocoding_fallback_for_places_the_gazetteer_lacks(connect) -> None:
    async with connect() as client:
        result = await call(client, "get_current_weather", {"city": "Hallstatt"})
    data = result.structured_content
    assert_place(data, "Hallstatt")
    assert data["location"]["country_code"] == "AT" and data["location"]["timezone"] == "Europe/Vienna"
    assert data["temperature"] == recording("hallstatt")["current"]["temperature_2m"]
