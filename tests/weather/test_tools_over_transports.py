"""Every tool through a real MCP client session, over stdio and streamable HTTP, against the replayed payloads."""

from __future__ import annotations

import base64
import datetime as dt
import io
import json

import jsonschema
import pytest
from PIL import Image

from weather_mcp_server.domain.days import short_label

from tests.weather.conftest import FIXTURES

pytestmark = pytest.mark.anyio


def recording(name: str, endpoint: str = "forecast") -> dict:
    return json.loads((FIXTURES / endpoint / f"{name}.json").read_text(encoding="utf-8"))


PAST = 31  # days before the recordings' today (Monday 2026-07-20) they keep


def tomorrow_high(name: str) -> float:
    """Tomorrow's high in a recording (the detailed ones keep past days, the daily-only ones none)."""
    data = recording(name)
    return data["daily"]["temperature_2m_max"][(PAST if "current" in data else 0) + 1]


def hourly(name: str, variable: str, day: int, hour: int, endpoint: str = "forecast", past: int = PAST):
    """A recording's hourly value `day` days from its today at `hour`."""
    return recording(name, endpoint)["hourly"][variable][(past + day) * 24 + hour]


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
    # "风大不大" is decided by the data: windy from 29 km/h (Beaufort 5) or gusts from 50 km/h.
    windy = {v["topic"]: v for v in data["verdicts"]}["windy"]
    assert windy["holds"] == (expected["wind_speed_10m"] >= 29 or (expected.get("wind_gusts_10m") or 0) >= 50)
    assert "风大" in windy["keywords"] and windy["statement"] == ("it is windy" if windy["holds"] else "it is not windy")


async def test_forecast_covers_exactly_the_days_asked(connect) -> None:
    async with connect() as client:
        span = await call(client, "get_forecast", {"city": "Peking", "day": 0, "days": 4})
        tomorrow = await call(client, "get_forecast", {"city": "Peking", "day": 1})
        friday = await call(client, "get_forecast", {"city": "Peking", "day": "friday"})
        weekend = await call(client, "get_forecast", {"city": "Peking", "day": "weekend"})
        on_date = await call(client, "get_forecast", {"city": "Peking", "day": "2026-07-30"})
    daily = recording("beijing")["daily"]  # the recording's today is Monday 2026-07-20, after 31 past days
    assert_place(span.structured_content, "Beijing")
    assert [d["date"] for d in span.structured_content["days"]] == daily["time"][PAST:PAST + 4]
    assert [d["temp_max"] for d in span.structured_content["days"]] == daily["temperature_2m_max"][PAST:PAST + 4]
    assert [(d["day"], d["weekday"]) for d in span.structured_content["days"]] == [
        (0, "Monday"), (1, "Tuesday"), (2, "Wednesday"), (3, "Thursday")]
    assert [(d["date"], d["day"]) for d in tomorrow.structured_content["days"]] == [("2026-07-21", 1)]
    assert [d["date"] for d in friday.structured_content["days"]] == ["2026-07-24"]
    assert [d["weekday"] for d in weekend.structured_content["days"]] == ["Saturday", "Sunday"]
    assert [d["day"] for d in on_date.structured_content["days"]] == [10]
    # The text names each day as a reader would, and a span of days gets its range first-hand.
    text = tomorrow.content[0].text
    assert text.startswith("Beijing (Peking), tomorrow (Tue 21 Jul): ")  # asked as Peking
    assert f"{daily['temperature_2m_min'][PAST + 1]:g} to {daily['temperature_2m_max'][PAST + 1]:g}°C" in text
    low, high = min(daily["temperature_2m_min"][PAST:PAST + 4]), max(daily["temperature_2m_max"][PAST:PAST + 4])
    assert f"Over these 4 days: {low:g} to {high:g}°C." in span.content[0].text
    # ... and which of its days is the warmest, the coldest and the least likely to be wet ("Saturday or Sunday
    # for a hike?" was answered by neither: a small writer does not compare lines).
    days = span.structured_content["days"]
    warmest = max(days, key=lambda d: d["temp_max"])
    driest = min(days, key=lambda d: (d["precipitation_probability"], d["precipitation_sum"]))
    assert f"warmest {short_label(dt.date(2026, 7, 20), warmest['day'])} ({warmest['temp_max']:g}°C)" in \
        span.content[0].text
    assert f"least chance of rain {short_label(dt.date(2026, 7, 20), driest['day'])} " \
        f"({driest['precipitation_probability']:g}%)" in span.content[0].text
    assert "Of these days" not in tomorrow.content[0].text
    # A one-day forecast says whether it is hot, for the words people ask it with ("scorching", "sweltering").
    hot = {v["topic"]: v for v in tomorrow.structured_content["verdicts"]}["hot"]
    assert hot["holds"] == (daily["temperature_2m_max"][PAST + 1] >= 28)
    assert {"scorch", "swelter", "热"} <= set(hot["keywords"])
    windy = {v["topic"]: v for v in tomorrow.structured_content["verdicts"]}["windy"]
    assert windy["holds"] == (daily["wind_speed_10m_max"][PAST + 1] >= 29)


async def test_a_chinese_locale_gets_the_text_in_chinese(connect) -> None:
    async with connect() as client:
        result = await call(client, "get_forecast", {"city": "北京", "day": 2}, meta={"locale": "zh-CN"})
        english = await call(client, "get_forecast", {"city": "北京", "day": 2})
    assert result.content[0].text.startswith("北京后天（7月22日 周三）")
    assert "降水概率" in result.content[0].text
    assert english.content[0].text.startswith("Beijing, the day after tomorrow (Wed 22 Jul): ")
    assert result.structured_content["days"][0]["date"] == english.structured_content["days"][0]["date"]


async def test_precipitation_decides_rain_snow_and_umbrella(connect) -> None:
    async with connect() as client:
        result = await call(client, "get_precipitation", {"city": "Chengdu", "day": 0, "days": 2},
                            meta={"locale": "zh-CN"})
    data, daily = result.structured_content, recording("chengdu")["daily"]
    assert_place(data, "Chengdu")
    assert [d["rain_sum"] for d in data["days"]] == daily["rain_sum"][PAST:PAST + 2]
    wet = [d["rain_sum"] >= 1 or d["probability_max"] >= 50 for d in data["days"]]
    assert [d["rain_expected"] for d in data["days"]] == wet
    assert data["rain_expected"] == any(wet) and data["umbrella_advised"] == any(wet)
    verdicts = {v["topic"]: v for v in data["verdicts"]}
    assert set(verdicts) == {"rain", "snow", "umbrella"}
    assert verdicts["umbrella"]["holds"] == any(wet) and "伞" in verdicts["umbrella"]["keywords"]
    assert verdicts["umbrella"]["statement"] == ("建议带伞" if any(wet) else "不用带伞")
    assert verdicts["umbrella"]["statement"] in result.content[0].text


async def test_compare_names_the_warmer_colder_wetter_and_windier_place(connect) -> None:
    async with connect() as client:
        tomorrow = await call(client, "compare_weather", {"cities": ["Beijing", "Harbin"], "day": 1})
        now = await call(client, "compare_weather", {"cities": ["北京", "哈尔滨"]}, meta={"locale": "zh-CN"})
        week = await call(client, "compare_weather", {"cities": ["London", "Berlin"], "days": 7})
        named_today = await call(client, "compare_weather", {"cities": ["Beijing", "Harbin"], "day": "2026-07-20"})
    beijing, harbin = recording("beijing")["daily"], recording("harbin")["daily"]
    verdicts = {v["topic"]: v for v in tomorrow.structured_content["verdicts"]}
    tomorrow_text = tomorrow.content[0].text
    tomorrow = PAST + 1
    warmer = "Beijing" if beijing["temperature_2m_max"][tomorrow] > harbin["temperature_2m_max"][tomorrow] else "Harbin"
    colder = "Beijing" if beijing["temperature_2m_min"][tomorrow] < harbin["temperature_2m_min"][tomorrow] else "Harbin"
    assert verdicts["warmer"]["winner"] == warmer and verdicts["colder"]["winner"] == colder
    windy = {"Beijing": beijing["wind_speed_10m_max"][tomorrow], "Harbin": harbin["wind_speed_10m_max"][tomorrow]}
    assert verdicts["windier"]["winner"] == (max(windy, key=windy.get) if len(set(windy.values())) > 1 else None)
    assert verdicts["calmer"]["winner"] == (min(windy, key=windy.get) if len(set(windy.values())) > 1 else None)
    wet = {"Beijing": beijing["precipitation_sum"][tomorrow], "Harbin": harbin["precipitation_sum"][tomorrow]}
    assert verdicts["drier"]["winner"] == (min(wet, key=wet.get) if len(set(wet.values())) > 1 else None)
    assert "less rain" in verdicts["drier"]["keywords"] and "less wind" in verdicts["calmer"]["keywords"]
    # the text states the four; drier and calmer are two of them read the other way round
    assert "less windy" not in tomorrow_text and "less rain" not in tomorrow_text
    assert f"wind up to {windy['Beijing']:g} km/h" in tomorrow_text
    # A day named by its date is compared by that day's figures, even when it is today.
    assert [p["temperature"] for p in named_today.structured_content["places"]] == [None, None]
    warmer_today = "Beijing" if beijing["temperature_2m_max"][PAST] > harbin["temperature_2m_max"][PAST] else "Harbin"
    assert {v["topic"]: v for v in named_today.structured_content["verdicts"]}["warmer"]["winner"] == warmer_today
    assert verdicts["warmer"]["statement"] == f"{warmer} is warmer"
    assert "Beijing" in verdicts["warmer"]["places"][0] and "Harbin" in verdicts["warmer"]["places"][1]
    # Today, the places are compared by the temperature now.
    places = now.structured_content["places"]
    assert [p["temperature"] for p in places] == [recording("beijing")["current"]["temperature_2m"],
                                                  recording("harbin")["current"]["temperature_2m"]]
    colder_now = "北京" if places[0]["temperature"] < places[1]["temperature"] else "哈尔滨"
    assert f"{colder_now}更冷" in now.content[0].text
    rain = {p["location"]["english_name"]: round(sum(d["precipitation_sum"] for d in p["days"]), 1)
            for p in week.structured_content["places"]}
    wetter = {v["topic"]: v for v in week.structured_content["verdicts"]}["wetter"]["winner"]
    assert len(week.structured_content["places"][0]["days"]) == 7
    assert wetter == (max(rain, key=rain.get) if len(set(rain.values())) > 1 else None)


async def test_find_cities_by_temperature_with_progress(connect) -> None:
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total))

    async with connect() as client:
        result = await call(
            client, "find_cities_by_temperature", {"relation": "between", "temp": 29, "temp2": 30, "day": 1},
            progress_callback=on_progress,
        )
    data = result.structured_content
    highs = [tomorrow_high(path.stem) for path in (FIXTURES / "forecast").glob("*.json") if path.stem != "sesriem"]
    expected = sorted(high for high in highs if 29 <= high <= 30)
    assert data["cities_checked"] == len(list((FIXTURES / "forecast").glob("*.json"))) - 1
    assert sorted(m["temperature"] for m in data["matches"]) == expected
    assert expected, "the recordings should contain at least one 29-30 °C city"
    distances = [abs(m["temperature"] - 29.5) for m in data["matches"]]
    assert distances == sorted(distances)  # ranked: closest to the middle of the range first
    assert [m["rank"] for m in data["matches"]] == list(range(1, len(expected) + 1))
    assert all(m["location"]["chinese_name"] for m in data["matches"])
    assert data["date"] == "2026-07-21"
    # A weekday or a date is the day of the cities' calendar ("cities above 90°F this Friday?" had been searched for an
    # offset counted from the asker's date, a day off where the first city's date was the next): the recordings'
    # today is Monday 2026-07-20.
    async with connect() as client:
        friday = await call(client, "find_cities_by_temperature", {"relation": "above", "temp": 20, "day": "friday"})
        dated = await call(client, "find_cities_by_temperature", {"relation": "above", "temp": 20,
                                                                   "day": "2026-07-21"})
    assert (friday.structured_content["date"], friday.structured_content["weekday"]) == ("2026-07-24", "Friday")
    assert dated.structured_content["date"] == "2026-07-21"
    assert progress and progress[-1][0] == progress[-1][1]
    assert [p[0] for p in progress] == sorted(p[0] for p in progress)


async def test_temperature_search_reads_bounds_as_meant(connect) -> None:
    """Bounds upside down are the same span; a bound beyond any temperature on record is no bound."""
    async with connect() as client:
        between = {"relation": "between", "day": 1}
        swapped = await call(client, "find_cities_by_temperature", {**between, "temp": 30, "temp2": 29})
        above = await call(client, "find_cities_by_temperature", {**between, "temp": 29, "temp2": 100})
        upright = await call(client, "find_cities_by_temperature", {**between, "temp": 29, "temp2": 30})
        nothing = await call(client, "find_cities_by_temperature", {"relation": "above", "temp": 55, "day": 1})
        below = await call(client, "find_cities_by_temperature", {"relation": "below", "temp": 10, "day": 1})
    assert (swapped.structured_content["min_temp"], swapped.structured_content["max_temp"]) == (29, 30)
    assert swapped.structured_content["matches"] == upright.structured_content["matches"]
    assert (above.structured_content["min_temp"], above.structured_content["max_temp"]) == (29, None)
    assert "; closest: " in nothing.content[0].text  # no match: the nearest cities, with their figures
    closest = nothing.structured_content["nearest_outside"][0]
    assert f"{closest['location']['english_name']} {closest['temperature']:g}°C" in nothing.content[0].text
    assert {m["temperature"] for m in above.structured_content["matches"]} >= {
        m["temperature"] for m in upright.structured_content["matches"]}
    assert all(m["temperature"] >= 29 for m in above.structured_content["matches"])
    assert (below.structured_content["min_temp"], below.structured_content["max_temp"]) == (None, 10)
    assert all(m["temperature"] <= 10 for m in below.structured_content["matches"])


async def test_temperature_chart_png(connect) -> None:
    async with connect() as client:
        result = await call(client, "get_weather_chart", {"city": "广州", "days": 5, "kind": "temperature"})
    image, text = result.content
    assert image.type == "image" and image.mime_type == "image/png"
    png = Image.open(io.BytesIO(base64.b64decode(image.data)))
    data = result.structured_content
    assert png.format == "PNG" and png.size == (data["width"], data["height"]) == (800, 450)
    assert data["font"] != "DejaVu Sans", "a CJK-capable font must be installed (scripts/setup.sh)"
    assert len(data["points"]) == 5
    assert [p["temp_max"] for p in data["points"]] == recording("guangzhou")["daily"]["temperature_2m_max"][PAST:PAST + 5]
    first = data["points"][0]  # the text gives the plotted values, so a reader can quote them
    assert text.text.startswith("Here is the temperature chart for Guangzhou, today to Fri 24 Jul: ")
    assert f"today {first['temp_min']:g} to {first['temp_max']:g}°C; " in text.text
    assert data["alt_text"].startswith("Line chart 'Guangzhou: 5-day temperature', 2026-07-20 – 2026-07-24: ")


async def test_tool_metadata(connect) -> None:
    async with connect() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        resources = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        cities = await client.read_resource("weather://cities")
    assert set(tools) == {"get_current_weather", "get_forecast", "get_precipitation", "compare_weather",
                          "find_cities_by_temperature", "get_weather_chart", "get_air_quality"}
    for tool in tools.values():
        assert tool.annotations.read_only_hint and tool.annotations.idempotent_hint
        assert tool.annotations.open_world_hint and tool.annotations.destructive_hint is False
        assert tool.output_schema["type"] == "object" and "properties" in tool.output_schema
        assert len(tool.description) < 120  # small local models read these on every request
    day = tools["get_forecast"].input_schema["properties"]["day"]  # an offset, a weekday or a date, in one argument
    assert [option.get("type") for option in day["anyOf"]] == ["integer", "string", "string"]
    assert "weekend" in day["anyOf"][1]["enum"] and day["anyOf"][0]["maximum"] == 366
    assert [str(r.uri) for r in resources] == ["weather://cities"]
    assert [t.uri_template for t in templates] == ["weather://forecast/{city}"]
    assert prompts == {"weather_report", "trip_planning"}
    listed = json.loads(cities.contents[0].text)
    assert {"北京", "东京"} <= {c["chinese_name"] for c in listed}


async def test_geocoding_fallback_for_places_the_gazetteer_lacks(connect) -> None:
    async with connect() as client:
        result = await call(client, "get_current_weather", {"city": "Sesriem"})
    data = result.structured_content
    assert_place(data, "Sesriem")
    assert data["location"]["country_code"] == "NA" and data["location"]["timezone"] == "Africa/Windhoek"
    assert data["temperature"] == recording("sesriem")["current"]["temperature_2m"]


async def test_hours_and_parts_of_a_day(connect) -> None:
    """Hours by the clock in full, a part of the day summed up, in the place's local time."""
    async with connect() as client:
        three = await call(client, "get_forecast", {"city": "上海", "day": 1, "hours": [15]}, meta={"locale": "zh-CN"})
        one = await call(client, "get_forecast", {"city": "Shanghai", "day": 1, "hours": [15, 15]})
        tonight = await call(client, "get_precipitation", {"city": "Chengdu", "day": 0, "hours": "night"})
        morning = await call(client, "get_forecast", {"city": "London", "day": 2, "hours": "morning"})
    hour = three.structured_content["hours"]
    assert [(h["time"], h["day"], h["hour"]) for h in hour] == [("2026-07-21T15:00", 1, 15)]
    assert hour[0]["temperature"] == hourly("shanghai", "temperature_2m", 1, 15)
    assert hour[0]["precipitation_probability"] == hourly("shanghai", "precipitation_probability", 1, 15)
    assert three.content[0].text.startswith("上海明天（7月21日 周二）15:00：")
    assert f"{hour[0]['temperature']:g}°C" in three.content[0].text
    assert [h["temperature"] for h in one.structured_content["hours"]] == [hour[0]["temperature"]]
    assert one.structured_content["part"] is None
    night = tonight.structured_content["hours"]  # 18:00 tonight to 05:00 tomorrow, Chengdu's time
    assert [h["time"][11:13] for h in night] == [f"{h:02d}" for h in [*range(18, 24), *range(6)]]
    assert [h["day"] for h in night] == [0] * 6 + [1] * 6
    assert [h["precipitation"] for h in night] == [hourly("chengdu", "precipitation", 0, h) for h in range(18, 30)]
    wet = any(h["rain"] > 0 or h["precipitation_probability"] >= 50 for h in night)
    verdicts = {v["topic"]: v["holds"] for v in tonight.structured_content["verdicts"]}
    assert verdicts["rain"] == wet == tonight.structured_content["rain_expected"]
    assert tonight.content[0].text.startswith("Chengdu, tonight (Mon 20 Jul, 18:00 to 05:00 the next day): ")
    # Hot and cold are said only when one holds, as in a forecast's text: a list of six verdicts ("not hot, cold,
    # not windy, ...") made the writer list them round and round. The data keeps them all, for the checks.
    said = [v for v in tonight.structured_content["verdicts"] if v["topic"] in ("hot", "cold")]
    assert len(said) == 2 and all((v["statement"] in tonight.content[0].text) == v["holds"] for v in said)
    temps = [h["temperature"] for h in morning.structured_content["hours"]]
    assert len(temps) == 6 and morning.structured_content["part"] == "morning"
    assert f"{min(temps):g} to {max(temps):g}°C" in morning.content[0].text
    assert "Wed 22 Jul morning" in morning.content[0].text
    # A part of a forecast day keeps the day's sunrise and sunset ("几点日落" may come with "今晚").
    (london_day,) = morning.structured_content["days"]
    assert f"sunrise {london_day['sunrise'][11:16]}, sunset {london_day['sunset'][11:16]}" in morning.content[0].text


async def test_sunrise_sunset_and_past_days(connect) -> None:
    async with connect() as client:
        tomorrow = await call(client, "get_forecast", {"city": "Tokyo", "day": 1}, meta={"locale": "zh-CN"})
        yesterday = await call(client, "get_forecast", {"city": "London", "day": -1})
        month_ago = await call(client, "get_precipitation", {"city": "Berlin", "day": "2026-06-20"})
    day = tomorrow.structured_content["days"][0]
    daily = recording("tokyo")["daily"]
    assert (day["sunrise"], day["sunset"]) == (daily["sunrise"][PAST + 1], daily["sunset"][PAST + 1])
    assert day["sunrise"].startswith("2026-07-21T04:")  # Tokyo's summer sunrise, local time
    assert f"日出{day['sunrise'][11:]}，日落{day['sunset'][11:]}" in tomorrow.content[0].text
    past = yesterday.structured_content["days"]
    london = recording("london")["daily"]
    assert [(d["date"], d["day"], d["temp_max"]) for d in past] == [("2026-07-19", -1, london["temperature_2m_max"][PAST - 1])]
    text = yesterday.content[0].text
    assert text.startswith("London, yesterday (Sun 19 Jul): ") and "chance" not in text  # what was, not a forecast
    assert {v["statement"] for v in yesterday.structured_content["verdicts"]} & {"no rain fell", "it rained"}
    assert [d["date"] for d in month_ago.structured_content["days"]] == ["2026-06-20"]
    assert month_ago.structured_content["days"][0]["day"] == -30


async def test_air_quality_with_the_china_aqi(connect) -> None:
    async with connect() as client:
        now = await call(client, "get_air_quality", {"city": "上海"}, meta={"locale": "zh-CN"})
        tomorrow = await call(client, "get_air_quality", {"city": "Beijing", "day": 1})
        after = await call(client, "get_air_quality", {"city": "Beijing", "day": 2})
        tonight = await call(client, "get_air_quality", {"city": "London", "hours": "night"})
    current, recorded = now.structured_content["current"], recording("shanghai", "air_quality")["current"]
    assert {k: current[k] for k in ("pm2_5", "pm10", "ozone", "us_aqi", "european_aqi")} == {
        k: recorded[k] for k in ("pm2_5", "pm10", "ozone", "us_aqi", "european_aqi")}
    china = current["china_aqi"]
    assert china["basis"] == "hourly" and china["aqi"] >= 0 and china["category"] in now.content[0].text
    assert f"PM2.5 {recorded['pm2_5']:g}" in now.content[0].text and f"中国AQI {china['aqi']}" in now.content[0].text
    assert now.structured_content["units"]["pm2_5"] == "μg/m³"
    beijing = tomorrow.structured_content["days"] + after.structured_content["days"]
    assert [(d["date"], d["day"]) for d in beijing] == [("2026-07-21", 1), ("2026-07-22", 2)]
    pm25 = [hourly("beijing", "pm2_5", 1, h, "air_quality", past=3) for h in range(24)]
    assert beijing[0]["pm2_5"] == round(sum(pm25) / 24, 1) and beijing[0]["china_aqi"]["basis"] == "daily"
    assert tomorrow.structured_content["current"] is None
    hours = tonight.structured_content["hours"]
    assert len(hours) == 12 and hours[0]["time"] == "2026-07-20T18:00" and hours[-1]["time"] == "2026-07-21T05:00"
    assert tonight.content[0].text.startswith("London, tonight (18:00 to 05:00 the next day): at worst ")


async def test_imperial_units_per_call(connect) -> None:
    async with connect() as client:
        metric = await call(client, "get_forecast", {"city": "London", "day": 1})
        imperial = await call(client, "get_forecast", {"city": "London", "day": 1, "fahrenheit": True})
        now = await call(client, "get_current_weather", {"city": "London", "fahrenheit": True})
        preferred = await call(client, "get_forecast", {"city": "London", "day": 1}, meta={"units": "imperial"})
        search = await call(client, "find_cities_by_temperature", {"relation": "above", "temp": 86, "day": 1, "fahrenheit": True})
        celsius = await call(client, "find_cities_by_temperature", {"relation": "above", "temp": 30, "day": 1})
    m, i = metric.structured_content["days"][0], imperial.structured_content["days"][0]
    assert i["temp_max"] == round(m["temp_max"] * 9 / 5 + 32, 1) and i["temp_min"] == round(m["temp_min"] * 9 / 5 + 32, 1)
    assert i["wind_speed_max"] == round(m["wind_speed_max"] / 1.609344, 1)
    assert i["precipitation_sum"] == round(m["precipitation_sum"] / 25.4, 2)
    assert imperial.structured_content["units"]["temperature"] == "°F"
    assert preferred.structured_content == imperial.structured_content  # a client's standing preference
    assert f"{i['temp_min']:g} to {i['temp_max']:g}°F" in imperial.content[0].text and "mph" in imperial.content[0].text
    assert now.structured_content["units"]["wind_speed"] == "mph" and "°F" in now.content[0].text
    assert now.structured_content["temperature"] == round(recording("london")["current"]["temperature_2m"] * 9 / 5 + 32, 1)
    # 86 °F is 30 °C: the same cities, their figures in °F.
    assert [c["location"]["english_name"] for c in search.structured_content["matches"]] == [
        c["location"]["english_name"] for c in celsius.structured_content["matches"]]
    assert search.structured_content["min_temp"] == 86.0


POLLEN = ("alder_pollen", "birch_pollen", "grass_pollen", "mugwort_pollen", "olive_pollen", "ragweed_pollen")


async def test_pressure_visibility_dew_point_and_uv_with_their_units(connect) -> None:
    async with connect() as client:
        now = await call(client, "get_current_weather", {"city": "London"})
        zh = await call(client, "get_current_weather", {"city": "伦敦"}, meta={"locale": "zh-CN"})
        hours = await call(client, "get_forecast", {"city": "London", "day": 1, "hours": [9, 15]})
        afternoon = await call(client, "get_forecast", {"city": "London", "day": 1, "hours": "afternoon"})
    data, recorded = now.structured_content, recording("london")["current"]
    assert (data["pressure"], data["visibility"], data["dew_point"]) == (
        recorded["pressure_msl"], recorded["visibility"], recorded["dew_point_2m"])
    assert {k: data["units"][k] for k in ("pressure", "visibility", "dew_point")} == {
        "pressure": "hPa", "visibility": "m", "dew_point": "°C"}
    clause = (f"pressure {data['pressure']:g} hPa, visibility {round(data['visibility'] / 1000, 1):g} km, "
              f"dew point {data['dew_point']:g}°C")
    assert clause in now.content[0].text
    assert f"气压{data['pressure']:g}百帕" in zh.content[0].text and f"露点{data['dew_point']:g}°C" in zh.content[0].text
    for hour in hours.structured_content["hours"]:
        for field, variable in (("pressure", "pressure_msl"), ("visibility", "visibility"),
                                ("dew_point", "dew_point_2m"), ("uv_index", "uv_index")):
            assert hour[field] == hourly("london", variable, 1, hour["hour"]), (field, hour["hour"])
    assert hours.structured_content["units"]["pressure"] == "hPa"
    uv = [h["uv_index"] for h in hours.structured_content["hours"]]
    assert all(f"UV {value:g}" in hours.content[0].text for value in uv if value)
    highest = max(hourly("london", "uv_index", 1, hour) for hour in range(12, 18))
    assert highest > 0 and f"UV up to {highest:g}" in afternoon.content[0].text


async def test_imperial_pressure_visibility_and_dew_point(connect) -> None:
    async with connect() as client:
        now = await call(client, "get_current_weather", {"city": "London", "fahrenheit": True})
        hour = await call(client, "get_forecast", {"city": "London", "day": 1, "hours": [15]},
                          meta={"units": "imperial"})
    data, recorded = now.structured_content, recording("london")["current"]
    assert data["dew_point"] == round(recorded["dew_point_2m"] * 9 / 5 + 32, 1)
    assert data["pressure"] == round(recorded["pressure_msl"] / 33.8639, 2)
    assert data["visibility"] == round(recorded["visibility"] / 1609.344, 2)
    assert {k: data["units"][k] for k in ("pressure", "visibility", "dew_point")} == {
        "pressure": "inHg", "visibility": "mi", "dew_point": "°F"}
    assert (f"pressure {data['pressure']:g} inHg, visibility {data['visibility']:g} mi, "
            f"dew point {data['dew_point']:g}°F") in now.content[0].text
    (record,) = hour.structured_content["hours"]
    assert record["dew_point"] == round(hourly("london", "dew_point_2m", 1, 15) * 9 / 5 + 32, 1)
    assert record["visibility"] == round(hourly("london", "visibility", 1, 15) / 1609.344, 2)
    assert record["uv_index"] == hourly("london", "uv_index", 1, 15)  # an index: no units to convert


DAY_MEANS = {"humidity_mean": "relative_humidity_2m_mean", "cloud_cover_mean": "cloud_cover_mean",
             "pressure_mean": "pressure_msl_mean", "dew_point_mean": "dew_point_2m_mean"}


async def test_a_day_carries_the_day_s_humidity_cloud_pressure_and_dew_point(connect) -> None:
    """"How humid tomorrow" asks a day: every day record holds the recorded daily means, with their units, in
    both unit systems, and the day's text says them."""
    async with connect() as client:
        forecast = await call(client, "get_forecast", {"city": "London", "day": 1})
        zh = await call(client, "get_forecast", {"city": "伦敦", "day": 1}, meta={"locale": "zh-CN"})
        imperial = await call(client, "get_forecast", {"city": "London", "day": 1, "fahrenheit": True})
        wet = await call(client, "get_precipitation", {"city": "London", "day": 1})
        compared = await call(client, "compare_weather", {"cities": ["London", "Berlin"], "day": 1})
    daily = recording("london")["daily"]
    expected = {field: daily[variable][PAST + 1] for field, variable in DAY_MEANS.items()}
    (day,), (i,) = forecast.structured_content["days"], imperial.structured_content["days"]
    assert {field: day[field] for field in DAY_MEANS} == expected
    assert {field: wet.structured_content["days"][0][field] for field in DAY_MEANS} == expected
    assert {field: compared.structured_content["places"][0]["days"][0][field] for field in DAY_MEANS} == expected
    assert {k: forecast.structured_content["units"][k] for k in DAY_MEANS} == {
        "humidity_mean": "%", "cloud_cover_mean": "%", "pressure_mean": "hPa", "dew_point_mean": "°C"}
    assert (f"humidity {day['humidity_mean']:g}%, cloud cover {day['cloud_cover_mean']:g}%, pressure "
            f"{day['pressure_mean']:g} hPa, dew point {day['dew_point_mean']:g}°C") in forecast.content[0].text
    zh_means = f"湿度{day['humidity_mean']:g}%，云量{day['cloud_cover_mean']:g}%，气压{day['pressure_mean']:g}百帕"
    assert zh_means in zh.content[0].text
    assert i["dew_point_mean"] == round(day["dew_point_mean"] * 9 / 5 + 32, 1)
    assert i["pressure_mean"] == round(day["pressure_mean"] / 33.8639, 2)
    assert i["humidity_mean"] == day["humidity_mean"] and i["cloud_cover_mean"] == day["cloud_cover_mean"]
    assert {k: imperial.structured_content["units"][k] for k in ("pressure_mean", "dew_point_mean")} == {
        "pressure_mean": "inHg", "dew_point_mean": "°F"}
    assert f"dew point {i['dew_point_mean']:g}°F" in imperial.content[0].text

async def test_pollen_in_europe_and_null_elsewhere(connect) -> None:
    async with connect() as client:
        london = await call(client, "get_air_quality", {"city": "London"})
        london_zh = await call(client, "get_air_quality", {"city": "London", "day": 1}, meta={"locale": "zh-CN"})
        afternoon = await call(client, "get_air_quality", {"city": "London", "hours": "afternoon"})
        beijing = await call(client, "get_air_quality", {"city": "Beijing"})
        beijing_day = await call(client, "get_air_quality", {"city": "Beijing", "day": 1, "hours": [15]})
    current, recorded = london.structured_content["current"], recording("london", "air_quality")["current"]
    assert {name: current[name] for name in POLLEN} == {name: recorded[name] for name in POLLEN}
    assert recorded["grass_pollen"] > 0  # the London recording is of a July morning
    assert all(london.structured_content["units"][name] == "grains/m³" for name in POLLEN)
    assert f"pollen: grass {recorded['grass_pollen']:g}" in london.content[0].text
    (day,) = london_zh.structured_content["days"]
    grass = [hourly("london", "grass_pollen", 1, h, "air_quality", past=3) for h in range(24)]
    assert day["grass_pollen"] == round(sum(grass) / 24, 1) and f"禾草{day['grass_pollen']:g}" in london_zh.content[0].text
    most = max(hourly("london", "grass_pollen", 0, h, "air_quality", past=3) for h in range(12, 18))
    assert f"grass pollen up to {most:g} grains/m³" in afternoon.content[0].text
    # Outside Europe the API has no pollen: null, never 0, and not a word of it.
    readings = [beijing.structured_content["current"], *beijing.structured_content["days"],
                *beijing_day.structured_content["days"], *beijing_day.structured_content["hours"]]
    assert all(reading[name] is None for reading in readings for name in POLLEN)
    assert beijing.structured_content["current"]["pm2_5"] is not None
    assert "pollen" not in beijing.content[0].text + beijing_day.content[0].text
