"""The simulated provider: deterministic, plausible, shaped like Open-Meteo, always labelled."""

from __future__ import annotations

import contextvars
import math
from types import SimpleNamespace
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tests.weather.conftest import server_env, stdio_client
from weather_mcp_server.domain.days import day_names, short_label
from weather_mcp_server.domain.service import describe_day
from weather_mcp_server.domain.verdicts import (
    Standing,
    comparison_verdicts,
    forecast_verdicts,
    hour_verdicts,
    precipitation_verdicts,
    raining_now,
    snowing_now,
    umbrella_now,
)
from weather_mcp_server.models import ForecastDay, HourRecord, Location, PrecipitationDay, Verdict
from weather_mcp_server.wording.weather import place_name
from weather_mcp_server.sources.payload import Payload
from weather_mcp_server.sources.simulated import simulated_forecast
from weather_mcp_server.sources.simulated_air import simulated_air_quality
from weather_mcp_server.wording.language import use_locale
from weather_mcp_server.wording.weather import _span_extremes, _sun


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


# Places across climates and both hemispheres: (latitude, longitude, time zone).
PLACES = {
    "Beijing": (39.9, 116.4, "Asia/Shanghai"), "Harbin": (45.8, 126.6, "Asia/Shanghai"),
    "Guangzhou": (23.1, 113.3, "Asia/Shanghai"), "Mumbai": (19.1, 72.9, "Asia/Kolkata"),
    "Cairo": (30.0, 31.2, "Africa/Cairo"), "Madrid": (40.4, -3.7, "Europe/Madrid"),
    "London": (51.5, -0.13, "Europe/London"), "Tromso": (69.65, 18.96, "Europe/Oslo"),
    "Singapore": (1.3, 103.85, "Asia/Singapore"), "Sydney": (-33.87, 151.21, "Australia/Sydney"),
    "Sao Paulo": (-23.55, -46.63, "America/Sao_Paulo"), "Chicago": (41.88, -87.63, "America/Chicago"),
    "Moscow": (55.75, 37.62, "Europe/Moscow"), "Lhasa": (29.65, 91.1, "Asia/Shanghai"),
}
PRECIPITATION_CODES = set(range(51, 100))


def days_of(place: str, month: int, day: int = 10, count: int = 4) -> list[dict]:
    """`count` days of a place from a date on: each day's values with its hours."""
    lat, lon, tz = PLACES[place]
    payload = forecast(lat, lon, tz, datetime(2026, month, day, 9, tzinfo=ZoneInfo(tz)))
    daily, hours = payload["daily"], payload["hourly"]
    return [{**{k: v[i] for k, v in daily.items()},
             "hours": [{k: v[i * 24 + h] for k, v in hours.items()} for h in range(24)]} for i in range(count)]


def test_hours_add_up_to_the_days_and_agree_with_each_other() -> None:
    """Over many places and every month: daily values are the hours'; precipitation type follows temperature;
    codes, cloud and probability agree with what falls; the temperature runs on without jumps."""
    checked = 0
    for place in PLACES:
        for month in range(1, 13):
            days = days_of(place, month)
            for day in days:
                hours = day["hours"]
                assert day["precipitation_sum"] == round(sum(h["precipitation"] for h in hours), 1)
                assert day["rain_sum"] == round(sum(h["rain"] for h in hours), 1)
                assert day["snowfall_sum"] == round(sum(h["snowfall"] for h in hours), 2)
                assert day["temperature_2m_max"] == max(h["temperature_2m"] for h in hours)
                assert day["temperature_2m_min"] == min(h["temperature_2m"] for h in hours)
                assert day["precipitation_probability_max"] == max(h["precipitation_probability"] for h in hours)
                assert day["precipitation_hours"] == sum(h["precipitation"] > 0 for h in hours)
                assert day["wind_speed_10m_max"] == max(h["wind_speed_10m"] for h in hours)
                assert day["weather_code"] == max(h["weather_code"] for h in hours)  # the most severe hour
                for variable, digits in (("relative_humidity_2m", None), ("cloud_cover", None),
                                         ("pressure_msl", 1), ("dew_point_2m", 1)):
                    mean = sum(h[variable] for h in hours) / len(hours)
                    assert day[f"{variable}_mean"] == round(mean, digits), (variable, day["date"])
                for h in hours:
                    wet = h["precipitation"] > 0
                    assert wet == (h["weather_code"] in PRECIPITATION_CODES), h
                    assert h["snowfall"] == 0 or h["temperature_2m"] < 1.5, h  # snow only when cold
                    assert h["rain"] == 0 or h["temperature_2m"] > -0.5, h  # no rain in a frost
                    assert abs(h["precipitation"] - h["rain"] - h["snowfall"] / 0.7) < 0.1, h
                    assert (h["cloud_cover"] >= 85 and h["precipitation_probability"] >= 55) if wet else \
                        h["precipitation_probability"] < 50, h
                    if not wet:
                        band = 0 if h["cloud_cover"] < 20 else 1 if h["cloud_cover"] < 50 else 2 if \
                            h["cloud_cover"] < 80 else 3
                        assert h["weather_code"] == band, h
                    assert h["uv_index"] == 0 or h["is_day"], h
                checked += 1
            temps = [h["temperature_2m"] for d in days for h in d["hours"]]
            assert max(abs(a - b) for a, b in zip(temps, temps[1:])) < 4.0, (place, month)  # midnight joins too
    assert checked == len(PLACES) * 12 * 4


def share_of_wet_days(place: str, months: list[int]) -> float:
    days = [d for month in months for start in (1, 11, 21) for d in days_of(place, month, start, 10)]
    return sum(d["precipitation_sum"] > 0 for d in days) / len(days)


def test_climate_by_place_and_season() -> None:
    """Dry winters in northern China, monsoon summers in the south and in India, a dry desert, wet Mediterranean
    winters, and the southern hemisphere's seasons reversed."""
    assert share_of_wet_days("Beijing", [12, 1, 2]) < 0.15 < 0.3 < share_of_wet_days("Beijing", [7, 8])
    assert share_of_wet_days("Guangzhou", [6, 7, 8]) > 0.5
    assert share_of_wet_days("Mumbai", [1, 2, 3]) < 0.1 and share_of_wet_days("Mumbai", [7, 8]) > 0.5
    assert share_of_wet_days("Cairo", [1, 4, 7, 10]) < 0.1
    assert share_of_wet_days("Madrid", [12, 1, 2]) > share_of_wet_days("Madrid", [6, 7, 8]) + 0.15
    winter_beijing = [d for d in days_of("Beijing", 12, 1, 16)]
    assert all(d["rain_sum"] == 0 or d["temperature_2m_max"] > 0 for d in winter_beijing)  # snow, not rain, in frost
    mean = {m: sum(d["temperature_2m_max"] for d in days_of("Sydney", m, 1, 16)) / 16 for m in (1, 7)}
    assert mean[1] > mean[7] + 5  # southern summer in January


# Almanac sunrise and sunset (local clock time) for the solstices.
ALMANAC = [("London", 6, 21, "04:43", "21:21"), ("London", 12, 21, "08:04", "15:53"),
           ("Beijing", 6, 21, "04:46", "19:46"), ("Beijing", 12, 21, "07:33", "16:53"),
           ("Sydney", 12, 21, "05:41", "20:05"), ("Sydney", 6, 21, "07:00", "16:54")]


def minutes(clock: str) -> int:
    return int(clock[:2]) * 60 + int(clock[3:5])


def test_sunrise_and_sunset_are_the_almanac_s() -> None:
    for place, month, day, rise, set_ in ALMANAC:
        today = days_of(place, month, day, 1)[0]
        assert abs(minutes(today["sunrise"][11:]) - minutes(rise)) <= 2, (place, month, today["sunrise"])
        assert abs(minutes(today["sunset"][11:]) - minutes(set_)) <= 2, (place, month, today["sunset"])
        assert abs(today["daylight_duration"] / 60 - (minutes(set_) - minutes(rise))) <= 3
        lit = [h["is_day"] for h in today["hours"]]
        assert lit.index(1) == int(today["sunrise"][11:13]) + 1 and 23 - lit[::-1].index(1) == int(today["sunset"][11:13])
    polar_night, polar_day = days_of("Tromso", 12, 21, 1)[0], days_of("Tromso", 6, 21, 1)[0]
    assert polar_night["daylight_duration"] == 0 and not any(h["is_day"] for h in polar_night["hours"])
    assert polar_day["daylight_duration"] == 86400 and all(h["is_day"] for h in polar_day["hours"])


def test_a_polar_day_or_night_is_said_to_have_no_sunrise_and_no_sunset_by_name() -> None:
    """"sunset time in Upernavik today?" in December was answered that the data lacks the sunset: the text names
    both, so a question of either is answered from it."""
    night = SimpleNamespace(daylight_duration=0, sunrise=None, sunset=None)
    day = SimpleNamespace(daylight_duration=86400, sunrise=None, sunset=None)
    for said in (_sun(night, True), _sun(day, True)):
        assert "no sunrise or sunset" in said
    # ... with the day's length, which "how long is the day?" asks ("The day in Tromsø today is 20.6 km/h")
    assert "0 h of daylight" in _sun(night, False) and "24 h of daylight" in _sun(day, False)

    def in_chinese() -> str:
        use_locale({"locale": "zh-CN"})
        return _sun(night, False)
    assert "没有日出日落" in contextvars.copy_context().run(in_chinese)
    assert "白昼0小时" in contextvars.copy_context().run(in_chinese)


def test_a_day_of_polar_night_has_the_verdict_that_the_sun_does_not_rise() -> None:
    """"does the sun even come up in Tromsø tomorrow?" was answered "Yes, the sun will rise" beside a text that said
    it does not: a yes or no the host can check the answer by."""
    def tromso(sunrise: str | None, daylight: float) -> ForecastDay:
        return ForecastDay(date="2026-12-08", weekday="Tuesday", day=1, weather_code=1, description="Mainly clear",
                           temp_min=-5.5, temp_max=1.4, precipitation_sum=0.0, wind_speed_max=9.7, sunrise=sunrise,
                           sunset=None if sunrise is None else "2026-12-08T13:00", daylight_duration=daylight)

    (sunrise,) = [v for v in forecast_verdicts([tromso(None, 0.0)], ["tomorrow"]) if v.topic == "sunrise"]
    assert sunrise.holds is False and "sun come up" in sunrise.keywords
    assert "sunrise" not in {v.topic for v in forecast_verdicts([tromso("2026-12-08T11:00", 7200.0)], ["tomorrow"])}


def test_a_few_days_are_said_hot_or_cold_with_the_days_they_are_so() -> None:
    """"新西兰皇后镇这周末冷不冷" (19 to 26°C) was answered "这周末冷": a weekend's forecast had no hot or cold
    verdict to hold the answer to; nor had a week's ("哈尔滨这周会降温吗？要不要把羽绒服翻出来"), its days said as
    "every day" where each of them is so."""
    def weekend_day(date: str, high: float) -> ForecastDay:
        return ForecastDay(date=date, weekday="Saturday", day=5, weather_code=1, description="Mainly clear",
                           temp_min=high - 8, temp_max=high, precipitation_sum=0.0, wind_speed_max=9.7)

    def feel(highs: list[float]) -> dict[str, tuple[bool, str]]:
        days = [weekend_day(f"2026-12-{12 + i}", high) for i, high in enumerate(highs)]
        labels = ["Saturday", "Sunday", "Monday", "Tuesday"][:len(highs)]
        return {v.topic: (v.holds, v.statement) for v in forecast_verdicts(days, labels) if v.topic in ("hot", "cold")}

    assert feel([26.2, 24.0]) == {"hot": (False, "it is not hot"), "cold": (False, "it is not cold")}
    assert feel([8.0, 12.0]) == {"hot": (False, "it is not hot"), "cold": (True, "it is cold (Saturday)")}
    assert feel([30.0, 29.0, 20.0])["hot"] == (True, "it is hot (Saturday, Sunday)")
    assert feel([30.0] * 4) == {"hot": (True, "it is hot (every day)"), "cold": (False, "it is not cold")}


def test_past_days_are_the_same_days() -> None:
    """A date reads the same whether it is tomorrow or yesterday."""
    lat, lon, tz = PLACES["London"]
    before = forecast(lat, lon, tz, datetime(2026, 3, 9, 9, tzinfo=ZoneInfo(tz)))
    after = simulated_forecast(lat, lon, tz, days=1, now=datetime(2026, 3, 11, 9, tzinfo=ZoneInfo(tz)), past_days=2)
    assert after["daily"]["time"] == before["daily"]["time"][:3] == ["2026-03-09", "2026-03-10", "2026-03-11"]
    for key in ("temperature_2m_max", "precipitation_sum", "sunrise"):
        assert after["daily"][key] == before["daily"][key][:3]
    assert after["hourly"]["temperature_2m"] == before["hourly"]["temperature_2m"][:72]


def test_a_day_is_called_sleet_only_when_its_rain_counts_as_rain() -> None:
    """"Rain and snow" beside the verdict "no rain fell" reads as nonsense: the rain must reach the verdict's 1 mm."""
    def day(rain_mm: float, snow_cm: float) -> Payload:
        return Payload({"daily": {"time": ["2026-11-30"], "rain_sum": [rain_mm], "snowfall_sum": [snow_cm]}})

    assert describe_day(day(0.4, 1.2), 0, 71) == "Slight snowfall"
    assert describe_day(day(1.0, 1.2), 0, 71) == "Rain and snow"
    assert describe_day(day(3.0, 0.0), 0, 61) == "Slight rain"


def test_a_forecast_day_of_rain_and_snow_has_rain_in_its_verdict() -> None:
    """A snowy day (code 71) whose rain reaches 1 mm is described "Rain and snow": its verdict says rain is
    expected ("Rain and snow ... no rain is expected" was one forecast's text); with no rain sum, none counts."""
    def forecast_day(rain_sum: float | None) -> ForecastDay:
        return ForecastDay(date="2026-11-30", weekday="Monday", day=0, weather_code=71, description="x",
                           temp_min=-2.0, temp_max=1.0, precipitation_sum=3.0, rain_sum=rain_sum, wind_speed_max=5.0)

    def rain(day: ForecastDay) -> bool:
        return next(v for v in forecast_verdicts([day], ["today"]) if v.topic == "rain").holds

    assert rain(forecast_day(1.6)) and not rain(forecast_day(0.4)) and not rain(forecast_day(None))


def test_a_forecast_day_of_rain_and_snow_under_a_rain_code_has_snow_in_its_verdict() -> None:
    """"雨夹雪 ... 不会下雪" was one forecast's text: a day coded as rain (63) whose snowfall is above 0 is snowy."""
    def forecast_day(snowfall_sum: float | None) -> ForecastDay:
        return ForecastDay(date="2026-11-30", weekday="Monday", day=0, weather_code=63, description="x",
                           temp_min=-3.0, temp_max=4.0, precipitation_sum=19.0, rain_sum=15.0,
                           snowfall_sum=snowfall_sum, wind_speed_max=5.0)

    def snow(day: ForecastDay) -> bool:
        return next(v for v in forecast_verdicts([day], ["today"]) if v.topic == "snow").holds

    assert snow(forecast_day(2.8)) and not snow(forecast_day(0.0)) and not snow(forecast_day(None))


def test_words_for_rain_and_snow_alike_go_with_what_the_data_has() -> None:
    """"北京未来7天没有降水" beside a day of snow: 降水 was a rain word only, so it agreed with "不会下雨"; it goes
    with the snow when only snow falls, with the rain when only rain does, with both when neither does."""
    def forecast_day(code: int, rain_sum: float, snowfall_sum: float) -> ForecastDay:
        return ForecastDay(date="2026-11-30", weekday="Monday", day=0, weather_code=code, description="x",
                           temp_min=-3.0, temp_max=4.0, precipitation_sum=rain_sum + snowfall_sum, rain_sum=rain_sum,
                           snowfall_sum=snowfall_sum, wind_speed_max=5.0)

    def with_either(day: ForecastDay) -> set[str]:
        return {v.topic for v in forecast_verdicts([day], ["today"]) if {"降水", "precipitation"} <= set(v.keywords)}

    assert with_either(forecast_day(73, 0.0, 2.8)) == {"snow"}
    assert with_either(forecast_day(63, 6.0, 0.0)) == {"rain"}
    assert with_either(forecast_day(2, 0.0, 0.0)) == {"rain", "snow"}
    # ... and of asked hours alike ("今晚会有降水吗" of a snowy night)
    hour = HourRecord(date="2026-11-30", weekday="Monday", day=0, time="2026-11-30T21:00", hour=21,
                      temperature=-2.0, feels_like=-5.0, precipitation=1.0, snowfall=1.2, weather_code=71,
                      description="x")
    assert {v.topic for v in hour_verdicts([hour], umbrella=True) if "降水" in v.keywords} == {"snow"}


def test_verdict_words_are_chinese_in_both_scripts_and_pouring_is_rain() -> None:
    """"會很熱嗎" was answered "會很熱" at 19.9°C (熱 was no word of the hot verdict); "is it going to pour"
    got no verdict to begin with."""
    day = ForecastDay(date="2026-11-30", weekday="Monday", day=0, weather_code=2, description="x", temp_min=13.5,
                      temp_max=19.9, precipitation_sum=0.0, wind_speed_max=5.0)
    keywords = {v.topic: v.keywords for v in forecast_verdicts([day], ["today"])}
    assert "熱" in keywords["hot"] and "涼" in keywords["cold"] and "pour" in keywords["rain"]


@pytest.mark.parametrize("question, topic", [
    ("Pioverà domani a Sintra?", "rain"), ("¿Va a llover mañana en Cusco?", "rain"), ("Wird es regnen?", "rain"),
    ("Va-t-il neiger à Annecy ?", "snow"), ("¿Necesito paraguas?", "umbrella"), ("Fa caldo a Napoli?", "hot"),
    ("Fait-il froid à Québec ?", "cold"), ("Ist es kalt in Graz?", "cold"),
    ("Honestly, will Muscat be unbearable tomorrow?", "hot"),  # (dev42's was answered without the verdict)
])
def test_verdicts_have_the_words_of_questions_in_other_languages(question, topic) -> None:
    """"Pioverà domani a Sintra? Rispondi in inglese" was answered "Yes, it will rain" beside an 8% chance: no
    verdict had a word of the question, so none led the answer."""
    day = ForecastDay(date="2026-11-30", weekday="Monday", day=0, weather_code=2, description="x", temp_min=13.5,
                      temp_max=19.9, precipitation_sum=0.0, wind_speed_max=5.0)
    wet = PrecipitationDay(date="2026-11-30", weekday="Monday", day=0, description="x", precipitation_sum=0.0,
                           rain_sum=0.0, snowfall_sum=0.0, rain_expected=False, snow_expected=False)
    verdicts = [*forecast_verdicts([day], ["today"]), *precipitation_verdicts([wet], ["today"])[-1:]]
    matched = {v.topic for v in verdicts if any(word in question.lower() for word in v.keywords)}
    assert topic in matched and not matched & {"rain", "snow", "hot", "cold"} - {topic}


@pytest.mark.parametrize("question, topic", [
    ("现在北京和上海哪里温度高", "warmer"), ("哪边气温更低", "colder"), ("今晚哈尔滨和长春哪个更冻", "colder"),
    ("which has the higher temps today?", "warmer"),
    ("未来7天内罗毕和阿鲁沙哪个总降水量少", "drier"),  # (answered "阿鲁沙降水更多")
    ("Out of A and B, where's it gonna blow the hardest on Friday?", "windier"),
])
def test_comparisons_have_the_words_people_compare_by(question, topic) -> None:
    """"现在北京和上海哪里温度高" found no verdict of its words (温度高), and the answer named no winner first;
    "哪个更冻" was answered with the wrong place, 冻 being no word of the colder verdict."""
    def standing(name: str, temperature: float) -> Standing:
        location = Location(name=name, english_name=name, country="X", country_code="XX", latitude=0.0,
                            longitude=0.0, timezone="UTC")
        return Standing(location, name, temperature, temperature, 0.0, 10.0)

    verdicts = comparison_verdicts([standing("A", 5.0), standing("B", -6.0)])
    assert topic in {v.topic for v in verdicts if any(str(word) in question for word in v.keywords)}


@pytest.mark.parametrize(("question", "topic", "winner"), [
    ("首尔和釜山明天哪里下雨概率更高", "likelier", "B"), ("better chance of rain tmrw in A or B?", "likelier", "B"),
    ("Tomorrow, where's the UV stronger — A or B?", "uv", "A"), ("今天海口三亚哪个紫外线强", "uv", "A"),
    ("A or B — which is least likely to get rain tomorrow?", "unlikelier", "A"),
    ("明天A和B哪里下雨的可能性最小", "unlikelier", "A"), ("这周末A、B，哪个地方最不容易下雨？", "unlikelier", "A"), ("which is most likely to get rain, A or B?", "likelier", "B"),
])
def test_a_comparison_says_which_place_has_the_higher_chance_of_rain_and_the_stronger_uv(question, topic,
                                                                                          winner) -> None:
    """"首尔和釜山明天哪里下雨概率更高" and "where's the UV stronger" had no verdict: the answer listed each place's
    figures (or none) and named no winner. The chance of rain is its own verdict, not which place gets more rain."""
    def standing(name: str, chance: float, uv: float) -> Standing:
        location = Location(name=name, english_name=name, country="X", country_code="XX", latitude=0.0,
                            longitude=0.0, timezone="UTC")
        return Standing(location, name, 5.0, 5.0, 1.0, 10.0, chance=chance, uv=uv)

    verdicts = comparison_verdicts([standing("A", 4.0, 7.2), standing("B", 9.0, 2.7)])
    asked = [v for v in verdicts if any(str(word) in question.lower() for word in v.keywords)]
    longest = max(asked, key=lambda v: max(len(str(word)) for word in v.keywords if str(word) in question.lower()))
    assert (longest.topic, longest.winner) == (topic, winner)
    # no verdict where the provider has no such figure
    assert {v.topic for v in comparison_verdicts([standing("A", 4.0, 7.2), Standing(
        standing("B", 0, 0).location, "B", 5.0, 5.0, 1.0, 10.0)])}.isdisjoint({"likelier", "unlikelier", "uv"})


def test_a_place_asked_by_another_name_is_named_by_both_in_english() -> None:
    """"Singapore or Penang, which one is cooler right now?" was answered "George Town is colder": the reader who
    asked about Penang could not tell which place won."""
    penang = Location(name="George Town (Penang)", english_name="George Town", chinese_name="槟城", country="Malaysia",
                      country_code="MY", latitude=5.41, longitude=100.33, timezone="Asia/Kuala_Lumpur")
    assert place_name(penang) == "George Town (Penang)"
    singapore = penang.model_copy(update={"name": "Singapore", "english_name": "Singapore", "chinese_name": None})
    verdicts = comparison_verdicts([Standing(penang, place_name(penang), 21.8, 21.8, 0.0, 9.0),
                                    Standing(singapore, "Singapore", 26.0, 26.0, 0.0, 9.0)])
    colder = next(v for v in verdicts if v.topic == "colder")
    assert colder.statement == "George Town (Penang) is colder" and "Penang" in colder.places[0]


def test_one_place_with_the_highest_high_and_the_lowest_low_is_not_said_warmer_and_colder() -> None:
    """"后天迪拜和多哈哪个更热" was answered "多哈更暖和 … 多哈更冷": Doha had both the higher high and the lower low."""
    def standing(name: str, high: float, low: float) -> Standing:
        location = Location(name=name, english_name=name, country="X", country_code="XX", latitude=0.0,
                            longitude=0.0, timezone="UTC")
        return Standing(location, name, high, low, 0.0, 10.0)

    verdicts = {v.topic: v for v in comparison_verdicts([standing("Dubai", 22.5, 13.6), standing("Doha", 23.8, 11.1)])}
    assert (verdicts["warmer"].winner, verdicts["colder"].winner) == ("Doha", "Doha")
    assert (verdicts["warmer"].statement, verdicts["colder"].statement) == ("Doha has the higher high",
                                                                            "Doha has the lower low")
    apart = {v.topic: v for v in comparison_verdicts([standing("A", 25.0, 15.0), standing("B", 20.0, 10.0)])}
    assert (apart["warmer"].statement, apart["colder"].statement) == ("A is warmer", "B is colder")


def test_asked_hours_have_hot_cold_and_windy_verdicts() -> None:
    """"今天下午热不热" asked of the afternoon's hours: their verdicts say hot or cold and windy or not, as a day's
    do (they said only rain and snow, and the answer gave a figure without saying whether it was hot)."""
    def hour(temperature: float, feels_like: float | None, wind: float | None) -> HourRecord:
        return HourRecord(date="2026-12-05", weekday="Saturday", day=0, time="2026-12-05T15:00", hour=15,
                          weather_code=3, description="x", temperature=temperature, feels_like=feels_like,
                          precipitation=0.0, wind_speed=wind)

    def holds(hours: list[HourRecord]) -> dict[str, bool]:
        return {v.topic: v.holds for v in hour_verdicts(hours, umbrella=False)}

    assert holds([hour(6.2, 2.2, 10.2)]) == {"rain": False, "snow": False, "hot": False, "cold": True, "windy": False}
    afternoon = holds([hour(27.0, 29.0, 12.0), hour(30.5, 33.0, 31.0)])
    assert afternoon["hot"] and not afternoon["cold"] and afternoon["windy"]
    assert "windy" not in holds([hour(12.0, None, None)])  # no wind figures, no verdict on it


def test_pressure_visibility_and_dew_point_are_plausible() -> None:
    """The dew point is the hour's (never above the temperature, equal in saturated air); pressure stays in the
    range of weather maps and drifts without jumps, midnight included, lower on wet days; falling rain and snow
    shorten the view, snow more."""
    for place in PLACES:
        for month in (1, 4, 7, 10):
            days = days_of(place, month, count=16)
            hours = [h for d in days for h in d["hours"]]
            for h in hours:
                assert h["dew_point_2m"] <= h["temperature_2m"], h
                assert h["relative_humidity_2m"] < 100 or h["dew_point_2m"] == h["temperature_2m"], h
                assert 960 <= h["pressure_msl"] <= 1050 and 50 <= h["visibility"] <= 60000, h
                if h["precipitation"] > 0 and h["temperature_2m"] <= -0.5:  # all snow
                    assert h["visibility"] < 6000, h
                elif h["precipitation"] > 0:
                    assert h["visibility"] < 20000, h
            pressures = [h["pressure_msl"] for h in hours]
            assert max(abs(a - b) for a, b in zip(pressures, pressures[1:])) < 2.5, (place, month)
    wet, dry = [], []
    for place in PLACES:
        for month in range(1, 13):
            for day in days_of(place, month, count=16):
                (wet if day["precipitation_sum"] > 0 else dry).append(day["hours"][12]["pressure_msl"])
    assert sum(wet) / len(wet) < sum(dry) / len(dry) - 3


def test_dew_point_is_magnus_s() -> None:
    """Spot values of the Magnus formula: 20 °C at 50 % is 9.3 °C; 0 °C at 80 % is -3.2 °C."""
    lat, lon, tz = PLACES["London"]
    payload = forecast(lat, lon, tz, datetime(2026, 4, 10, 9, tzinfo=ZoneInfo(tz)))["hourly"]
    for t, rh, td in zip(payload["temperature_2m"], payload["relative_humidity_2m"], payload["dew_point_2m"],
                         strict=True):
        gamma = math.log(rh / 100) + 17.62 * t / (243.12 + t)
        assert abs(td - 243.12 * gamma / (17.62 - gamma)) <= 0.051


def pollen(place: str, month: int, day: int = 15) -> dict[str, list]:
    lat, lon, tz = PLACES[place]
    hourly = simulated_air_quality(lat, lon, tz, days=5, now=datetime(2026, month, day, 9, tzinfo=ZoneInfo(tz)))[
        "hourly"]
    return {name: hourly[name] for name in hourly if name.endswith("_pollen")}


def test_pollen_only_in_europe_in_its_season_and_where_it_grows() -> None:
    assert set(pollen("London", 4)) == {"alder_pollen", "birch_pollen", "grass_pollen", "mugwort_pollen",
                                        "olive_pollen", "ragweed_pollen"}
    for place in ("Beijing", "Sydney", "Chicago", "Cairo", "Singapore"):  # no pollen data: null, never 0
        assert all(v is None for series in pollen(place, 5).values() for v in series), place
    assert max(pollen("London", 4)["birch_pollen"]) > 20 and max(pollen("London", 6)["grass_pollen"]) > 10
    assert all(v == 0 for series in pollen("London", 12).values() for v in series)  # out of season: 0, not null
    assert max(pollen("Madrid", 5)["olive_pollen"]) > 20 and max(pollen("London", 5)["olive_pollen"]) == 0
    london = pollen("London", 6)["grass_pollen"]
    night, afternoon = sum(london[i * 24 + 2] for i in range(5)), sum(london[i * 24 + 14] for i in range(5))
    assert afternoon > night  # released by day
    assert pollen("Moscow", 4) == pollen("Moscow", 4)


@pytest.mark.anyio
async def test_new_quantities_over_mcp_are_labelled_simulated_with_units() -> None:
    """Over a real client and server process: each new field comes with its unit, in both unit systems, and
    pollen only in Europe."""
    async with stdio_client(server_env("simulated")) as client:
        metric = await client.call_tool("get_current_weather", {"city": "Oslo"})
        imperial = await client.call_tool("get_current_weather", {"city": "Oslo", "fahrenheit": True})
        if imperial.structured_content["time"] != metric.structured_content["time"]:  # a quarter hour passed
            metric = await client.call_tool("get_current_weather", {"city": "Oslo"})
        hours = await client.call_tool("get_forecast", {"city": "Oslo", "day": 1, "hours": [3, 13]})
        oslo = await client.call_tool("get_air_quality", {"city": "Oslo", "day": 1})
        tokyo = await client.call_tool("get_air_quality", {"city": "Tokyo", "day": 1})
    m, i = metric.structured_content, imperial.structured_content
    assert m["source"] == "simulated" and m["notice"]
    assert {k: m["units"][k] for k in ("pressure", "visibility", "dew_point")} == {
        "pressure": "hPa", "visibility": "m", "dew_point": "°C"}
    assert {k: i["units"][k] for k in ("pressure", "visibility", "dew_point")} == {
        "pressure": "inHg", "visibility": "mi", "dew_point": "°F"}
    assert i["dew_point"] == round(m["dew_point"] * 9 / 5 + 32, 1) and m["dew_point"] <= m["temperature"]
    assert i["pressure"] == round(m["pressure"] / 33.8639, 2) and 960 <= m["pressure"] <= 1050
    assert i["visibility"] == round(m["visibility"] / 1609.344, 2) and m["visibility"] > 0
    assert f"pressure {m['pressure']:g} hPa" in metric.content[0].text
    assert f"dew point {i['dew_point']:g}°F" in imperial.content[0].text
    night, day = hours.structured_content["hours"]
    (record_day,) = hours.structured_content["days"]
    assert all(isinstance(record_day[k], float) for k in ("humidity_mean", "cloud_cover_mean", "pressure_mean",
                                                          "dew_point_mean"))
    assert record_day["dew_point_mean"] <= record_day["temp_max"] and 960 <= record_day["pressure_mean"] <= 1050
    assert hours.structured_content["units"]["humidity_mean"] == "%"
    for record in (night, day):
        assert all(isinstance(record[k], float) for k in ("pressure", "visibility", "dew_point", "uv_index"))
    assert night["uv_index"] == 0
    (europe,), (asia,) = oslo.structured_content["days"], tokyo.structured_content["days"]
    assert all(isinstance(europe[name], float) for name in pollen("London", 1))
    assert oslo.structured_content["units"]["birch_pollen"] == "grains/m³"
    assert all(asia[name] is None for name in pollen("London", 1))
    assert "pollen" in oslo.content[0].text and "pollen" not in tokyo.content[0].text


@pytest.mark.anyio
async def test_two_places_of_one_name_are_compared_as_the_caller_named_them() -> None:
    """"Which Charleston will be warmer?" read "Charleston is warmer than Charleston": places of the same name are
    labelled as the call wrote them."""
    async with stdio_client(server_env("simulated")) as client:
        both = await client.call_tool("compare_weather", {"cities": ["Charleston, West Virginia",
                                                                     "Charleston, South Carolina"], "day": 1})
    places = both.structured_content["places"]
    assert [p["location"]["country_code"] for p in places] == ["US", "US"]
    assert places[0]["location"]["latitude"] > places[1]["location"]["latitude"] + 3  # two places
    assert [p["location"]["english_name"] for p in places] == ["Charleston, West Virginia", "Charleston, South Carolina"]
    assert "Charleston, West Virginia" in both.content[0].text and "Charleston, South Carolina" in both.content[0].text


def test_snow_falling_now_is_snowing_not_raining() -> None:
    """Moncton's slight snowfall now had been "it is raining now"; "is it still snowing" had no verdict of now."""
    slight_snowfall, slight_rain = 71, 61
    assert (raining_now(0.4, slight_snowfall).holds, snowing_now(0.3, slight_snowfall).holds) == (False, True)
    assert (raining_now(0.4, slight_rain).holds, snowing_now(0.0, slight_rain).holds) == (True, False)
    assert snowing_now(0.0, 0).statement == "it is not snowing now"


def test_the_present_moment_says_whether_an_umbrella_is_needed() -> None:
    """"do i need an umbrella in london rn" was answered "Yes" beside "it is not raining now": the umbrella has a
    verdict of now, so a lead against it is held to it, whatever the wet weather."""
    clear, slight_rain, slight_snowfall = 1, 61, 71
    dry = umbrella_now(raining_now(0.0, clear), snowing_now(0.0, clear))
    assert (dry.topic, dry.holds, dry.statement) == ("umbrella", False, "no umbrella needed right now")
    assert "umbrella" in dry.keywords and "伞" in dry.keywords
    assert umbrella_now(raining_now(0.5, slight_rain), snowing_now(0.0, slight_rain)).holds
    assert umbrella_now(raining_now(0.0, slight_snowfall), snowing_now(0.2, slight_snowfall)).holds


@pytest.mark.anyio
async def test_six_places_are_compared_and_a_tie_of_many_is_of_every_place() -> None:
    """dev45's "成都、重庆、武汉、长沙、南京、杭州 明天哪个最热" had no comparison (five places at most): up to eight
    are compared, and a tie of three or more places is said of each place (各地), not of two (两地)."""
    cities = ["成都", "重庆", "武汉", "长沙", "南京", "杭州"]
    async with stdio_client(server_env("simulated")) as client:
        six = await client.call_tool("compare_weather", {"cities": cities, "day": 1})
        nine = await client.call_tool("compare_weather", {"cities": [*cities, "上海", "北京", "广州"], "day": 1})
    assert not six.is_error and len(six.structured_content["places"]) == 6
    assert nine.is_error

    def standing(name: str) -> Standing:
        location = Location(name=name, english_name=name, country="X", country_code="XX", latitude=0.0,
                            longitude=0.0, timezone="UTC")
        return Standing(location, name, 5.0, 0.0, 0.0, 10.0)

    def ties(count: int) -> list[str]:
        use_locale({"locale": "zh-CN"})
        return [v.statement for v in comparison_verdicts([standing(c) for c in "ABCD"[:count]]) if not v.winner]
    assert all(s.startswith("两地") for s in contextvars.copy_context().run(ties, 2))
    assert all(s.startswith("各地") for s in contextvars.copy_context().run(ties, 3))
    # A winner of three places or more is the most of them, not more than one other ("Bergen is warmer").
    def warmer(warmths: tuple[float, ...]) -> str:
        use_locale({"locale": "en"})
        standings = [Standing(standing(c).location, c, warmth, 0.0, 0.0, 10.0) for c, warmth in zip("ABC", warmths)]
        return next(v.statement for v in comparison_verdicts(standings) if v.topic == "warmer")
    assert contextvars.copy_context().run(warmer, (5.0, 9.0, 7.0)) == "B is the warmest"
    assert contextvars.copy_context().run(warmer, (5.0, 9.0)) == "B is warmer"


def test_of_two_days_one_with_the_highest_high_and_the_lowest_low_says_so_beside_the_others() -> None:
    """dev51's "郑州今天比昨天热吗" was answered "昨天-9.3°C，今天3.9°C": today had both the warmest high and the
    coldest low ("warmest today, coldest today"), and the writer gave today's low to yesterday. A day with both is
    said to have the highest high and the lowest low, and of two days the other's figure stands beside each."""
    def day(offset: int, low: float, high: float) -> ForecastDay:
        return ForecastDay(date=f"2026-12-0{7 + offset}", weekday="Monday", day=offset, weather_code=1,
                           description="x", temp_min=low, temp_max=high, precipitation_sum=0.0, wind_speed_max=5.0)

    today = datetime(2026, 12, 7).date()
    yesterday_and_today = [day(-1, -5.1, 3.4), day(0, -9.3, 3.9)]
    assert _span_extremes(yesterday_and_today, today, "°C") == (
        " Of these days: highest high today (3.9°C, yesterday 3.4°C), lowest low today (low -9.3°C, yesterday -5.1°C).")

    def in_chinese() -> str:
        use_locale({"locale": "zh-CN"})
        return _span_extremes(yesterday_and_today, today, "°C")
    assert "最高气温最高今天（3.9°C，昨天3.4°C）" in contextvars.copy_context().run(in_chinese)
    three = [day(0, -9.3, 3.9), day(1, 1.1, 11.6), day(2, -4.0, 8.1)]
    assert _span_extremes(three, today, "°C") == " Of these days: warmest tomorrow (11.6°C), coldest today (low -9.3°C)."


def test_of_two_days_the_forecast_says_which_is_warmer_and_which_colder_by_words_that_compare() -> None:
    """"昨天和今天比，成都哪天更冷？" was answered "今天比昨天更冷" when yesterday had the lower low and the lower high:
    the data said which day was colder only in its text. Of two days, verdicts say which is warmer (the higher high)
    and which colder (the lower low), with every name a reply may give each day, so a reply's comparison can be
    checked; asked by words that compare ("更冷", "比今天热", "colder") and not by the hot and cold words alone
    ("今明两天冷不冷" asks its yes or no), and not said again in the text, whose extremes say it with the figures."""
    def day(offset: int, low: float, high: float) -> ForecastDay:
        return ForecastDay(date=f"2026-12-0{7 + offset}", weekday="Monday", day=offset, weather_code=1,
                           description="x", temp_min=low, temp_max=high, precipitation_sum=0.0, wind_speed_max=5.0)

    today = datetime(2026, 12, 7).date()  # a Monday

    def verdicts(days: list[ForecastDay], locale: str = "en") -> dict[str, Verdict]:
        use_locale({"locale": locale})
        found = forecast_verdicts(days, [short_label(today, d.day) for d in days],
                                  [day_names(today, d.day) for d in days])
        return {v.topic: v for v in found}

    run = contextvars.copy_context().run
    found = run(verdicts, [day(-1, 2.4, 11.5), day(0, 5.7, 13.3)])
    assert (found["warmer"].winner, found["warmer"].statement) == ("today", "today is warmer")
    assert (found["colder"].winner, found["colder"].statement) == ("yesterday", "yesterday is colder")
    assert found["colder"].places[0] == ["yesterday", "Yesterday", "昨天", "Sunday", "周日", "星期日", "周天", "星期天",
                                         "礼拜天"]
    assert {"colder", "更冷", "比今天冷", "没昨天冷"} <= set(found["colder"].keywords)
    assert "冷" not in found["colder"].keywords and "cold" not in found["colder"].keywords
    found = run(verdicts, [day(0, 5.7, 13.3), day(1, 3.9, 13.8)], "zh-CN")  # tomorrow has both
    assert (found["warmer"].winner, found["warmer"].statement) == ("明天", "明天最高气温更高")
    assert found["colder"].statement == "明天最低气温更低"
    found = run(verdicts, [day(0, 5.0, 10.0), day(1, 5.0, 10.0)])
    assert found["warmer"].winner is None and found["warmer"].statement == "equally warm"
    assert "warmer" not in run(verdicts, [day(0, 5.7, 13.3)])  # one day compares nothing
    assert "warmer" not in run(verdicts, [day(0, 5.7, 13.3), day(1, 3.9, 13.8), day(2, 1.0, 9.0)])
