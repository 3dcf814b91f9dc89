"""bench/chat_eval.py: each strict rule on hand-made replies (one a reader would reject, one they would accept),
the loose checks, then a whole run against the gateway with the real weather server (simulated data) and the
scripted LLM."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench import chat_eval, chat_eval_rules
from bench.chat_eval_checks import fully_correct, haversine_km, reply_language, score
from bench.chat_eval_rules import strict_score

BEIJING = {"name": "Beijing", "lat": 39.9, "lon": 116.4}
GUANGZHOU = {"name": "Guangzhou", "lat": 23.13, "lon": 113.26}
TOKYO = {"name": "Tokyo", "lat": 35.68, "lon": 139.69}
SEOUL = {"name": "Seoul", "lat": 37.57, "lon": 126.98}
SHENZHEN = {"name": "Shenzhen", "lat": 22.54, "lon": 114.06}
SHANGHAI = {"name": "Shanghai", "lat": 31.23, "lon": 121.47}
LONDON = {"name": "London", "lat": 51.51, "lon": -0.13}
NOTICE = {"server": "weather", "kind": "simulated", "text": "注意：以上数据为模拟数据（演示用），并非真实天气。"}


def _location(city: dict[str, Any]) -> dict[str, Any]:
    return {"name": city["name"], "latitude": city["lat"] + 0.01, "longitude": city["lon"] - 0.01}


def _call(tool: str, arguments: dict, content: dict | None, is_error: bool = False, text: str = "") -> dict:
    return {"server": "weather", "tool": tool, "arguments": arguments, "is_error": is_error,
            "structured_content": content, "text": text, "duration_ms": 5.0}


def _reply(response: str, *calls: dict, images: int = 0, notices: list | None = None) -> dict:
    return {"response": response, "tool_calls": list(calls), "model": "m", "notices": notices or [],
            "images": [{"url": f"/media/{i}", "alt": "", "mime": "image/png"} for i in range(images)]}


def _day(offset: int, date: str, weekday: str, **values: Any) -> dict[str, Any]:
    return {"day": offset, "date": date, "weekday": weekday, **values}


# A week in Guangzhou as the weather server returns it (the place's today: Tuesday 2026-12-01).
WEEK = [_day(0, "2026-12-01", "Tuesday", temp_min=15.0, temp_max=24.7, precipitation_sum=0.0,
             precipitation_probability=10),
        _day(1, "2026-12-02", "Wednesday", temp_min=8.9, temp_max=17.7, precipitation_sum=4.8,
             precipitation_probability=77),
        _day(2, "2026-12-03", "Thursday", temp_min=14.1, temp_max=21.9, precipitation_sum=0.0,
             precipitation_probability=5)]


def forecast(city: dict, days: list[dict], source: str = "simulated", **arguments: Any) -> dict:
    return _call("get_forecast", {"city": city["name"], **arguments},
                 {"location": _location(city), "days": days, "source": source})


def strict(turn: dict, reply: dict, index: int = 0, image_ok: bool = True) -> dict:
    return strict_score(turn, reply, index, image_ok)


def test_helpers():
    assert haversine_km(39.9, 116.4, 39.9, 116.4) == 0
    assert 1060 < haversine_km(BEIJING["lat"], BEIJING["lon"], 31.23, 121.47) < 1075  # Beijing-Shanghai
    assert reply_language("北京现在 12.3°C，多云。") == "zh"
    assert reply_language("Beijing is 12.3 °C (北京).") == "en"


def test_rule_call_needs_the_tool_the_place_the_bounds_and_the_chart():
    turn = {"query": "广州明天天气如何", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "day": 1}
    assert strict(turn, _reply("广州明天8.9~17.7°C。", forecast(GUANGZHOU, WEEK[1:2])))["call"] is True
    assert strict(turn, _reply("广州明天8.9~17.7°C。", forecast(SHENZHEN, WEEK[1:2])))["call"] is False
    failed = _call("get_forecast", {"city": "广州"}, None, is_error=True)
    assert strict(turn, _reply("抱歉。", failed))["call"] is False
    search = {"query": "明天29以上，30以下的城市有哪些？", "lang": "zh", "intent": "temperature_range", "cities": [],
              "days": 2, "min_c": 29, "max_c": 30}
    bounds = {"day": 1, "min_temp": 29.0, "max_temp": 30.0, "matches": [{"temperature": 29.4}], "source": "x"}
    assert strict(search, _reply("明天海口29.4°C。", _call("find_cities_by_temperature", {}, bounds)))["call"]
    open_bound = _call("find_cities_by_temperature", {}, {**bounds, "max_temp": None})
    assert strict(search, _reply("明天海口29.4°C。", open_bound))["call"] is False
    chart_turn = {"query": "给我看看深圳的降水量图表", "lang": "zh", "intent": "chart", "cities": [SHENZHEN],
                  "chart": "precipitation"}
    chart = _call("get_weather_chart", {}, {"location": _location(SHENZHEN), "kind": "precipitation", "points": []})
    assert strict(chart_turn, _reply("这是深圳的降水量图。", chart, images=1))["call"] is True
    assert strict(chart_turn, _reply("这是深圳的降水量图。", chart, images=1), image_ok=False)["call"] is False
    hello = {"query": "你好", "lang": "zh", "intent": "none", "cities": []}
    assert strict(hello, _reply("你好！"))["call"] is True
    assert strict(hello, _reply("你好！", forecast(TOKYO, WEEK[:1])))["call"] is False


def test_rule_day_holds_the_answer_to_the_asked_day():
    turn = {"query": "广州后天天气如何", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "day": 2}
    exact = forecast(GUANGZHOU, WEEK[2:3])
    assert strict(turn, _reply("广州后天14.1~21.9°C。", exact))["day"] is True
    assert strict(turn, _reply("广州明天14.1~21.9°C。", exact))["day"] is False  # the wrong day word
    assert strict(turn, _reply("广州后天天气不错。", forecast(GUANGZHOU, WEEK[1:2])))["day"] is False  # other day
    # All three days fetched: tomorrow's figures presented as the day after tomorrow's.
    assert strict(turn, _reply("广州后天8.9~17.7°C。", forecast(GUANGZHOU, WEEK)))["day"] is False
    assert strict(turn, _reply("广州后天14.1~21.9°C。", forecast(GUANGZHOU, WEEK)))["day"] is True
    # A question of the first dev file, labelled with a count of days, is about the day it names.
    old = {"query": "广州明天天气如何", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "days": 2}
    assert strict(old, _reply("广州明天8.9~17.7°C。", forecast(GUANGZHOU, WEEK[1:2])))["day"] is True
    # Not a span that begins with the day it names: the whole week, shown as it is, is the answer.
    trip = {"query": "Three days of weather for Guangzhou? our trip starts today", "lang": "en",
            "intent": "forecast", "cities": [GUANGZHOU], "days": 3}
    assert strict(trip, _reply("Guangzhou, next 3 days: today 15 to 24.7°C; tomorrow 8.9 to 17.7°C.",
                                forecast(GUANGZHOU, WEEK)))["day"] is True
    # "next Saturday" in the answer is the labels' next Saturday: of the next calendar week, as 下周六.
    saturday = _day(11, "2026-12-12", "Saturday", temp_min=9.0, temp_max=16.0, precipitation_sum=0.0,
                    precipitation_probability=5)
    next_week = {"query": "Guangzhou next Saturday?", "lang": "en", "intent": "forecast", "cities": [GUANGZHOU],
                 "weekday": 5, "week": 1}
    assert strict(next_week, _reply("Guangzhou next Saturday: 9 to 16°C.", forecast(GUANGZHOU, [saturday])))["day"]
    # 下下周一: the Monday two calendar weeks on (the 14th), not next week's (the 7th).
    monday = _day(13, "2026-12-14", "Monday", temp_min=9.0, temp_max=16.0, precipitation_sum=0.0,
                  precipitation_probability=5)
    week_after = {"query": "广州下下周一天气", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU],
                  "weekday": 0, "week": 2}
    assert strict(week_after, _reply("广州下下周一9~16°C。", forecast(GUANGZHOU, [monday])))["day"] is True
    assert strict(week_after, _reply("广州下周一9~16°C。", forecast(GUANGZHOU, [monday])))["day"] is False
    # A span of days labelled for a yes or no is the days asked ("明后天": tomorrow and the day after; 后天 alone had
    # been read as the day asked, and tomorrow in the answer as another day).
    both = {"query": "广州明后天会下雨吗", "lang": "zh", "intent": "precipitation", "cities": [GUANGZHOU], "days": 3,
            "yesno": "rain", "span": [1, 3]}
    assert strict(both, _reply("会下雨（明天）。广州明天8.9~17.7°C；后天14.1~21.9°C。", forecast(GUANGZHOU, WEEK[1:])))["day"]
    weekday = {"query": "广州周四天气", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "weekday": 3}
    assert strict(weekday, _reply("广州周四14.1~21.9°C。", exact))["day"] is True
    assert strict(weekday, _reply("广州周三8.9~17.7°C。", forecast(GUANGZHOU, WEEK[1:2])))["day"] is False


def test_rule_verdict_checks_yes_no_hot_cold_and_the_winner():
    rain = {"query": "广州明天会下雨吗？", "lang": "zh", "intent": "precipitation", "cities": [GUANGZHOU], "day": 1,
            "yesno": "rain"}
    wet = forecast(GUANGZHOU, WEEK[1:2])
    assert strict(rain, _reply("会下雨，降水概率77%。", wet))["verdict"] is True
    assert strict(rain, _reply("不会下雨，降水概率77%。", wet))["verdict"] is False
    # A day of snow: "no rain, snow is expected" is right (dev44's "any rain coming?" in Omaha), not "no rain" alone
    snowy = forecast(GUANGZHOU, [{**WEEK[1], "weather_code": 71}])
    assert strict(rain, _reply("不会下雨，会下雪，降水概率77%。", snowy))["verdict"] is True
    assert strict(rain, _reply("不会下雨，降水概率77%。", snowy))["verdict"] is False
    # ... a few tenths of rain in a day of snow, its rain and snow apart (0.6 of Omaha's 2.6 mm)
    split = forecast(GUANGZHOU, [{**WEEK[1], "weather_code": 71, "rain_sum": 0.6, "snowfall_sum": 1.4}])
    assert strict(rain, _reply("不会下雨，会下雪，降水概率77%。", split))["verdict"] is True
    # The figures first: a clause giving no amount says no, as the verdict after it does.
    dry = forecast(GUANGZHOU, WEEK[2:3])
    dry_turn = {**rain, "query": "广州后天不会下雨吧？", "day": 2}
    assert strict(dry_turn, _reply("广州后天晴，降水0毫米，降水概率5%。不会下雨。", dry))["verdict"] is True
    assert strict(dry_turn, _reply("广州后天晴，降水概率5%。不会下雨。", dry))["verdict"] is True
    assert strict(dry_turn, _reply("广州后天晴，降水概率5%。会下雨。", dry))["verdict"] is False
    # An hour asked is judged by that hour, not by its day (dev43's "and will it rain around 6am tomorrow?")
    hour = {"query": "Will it rain in Guangzhou around 6am tomorrow?", "lang": "en", "intent": "hourly",
            "cities": [GUANGZHOU], "day": 1, "hour": 6, "yesno": "rain"}
    six = _call("get_precipitation", {}, {"location": _location(GUANGZHOU), "days": WEEK[1:2], "hours": [
        {"date": "2026-12-02", "hour": 6, "time": "2026-12-02T06:00", "precipitation": 0.0,
         "precipitation_probability": 13}], "source": "simulated"})
    assert strict(hour, _reply("No rain is expected at 06:00: 13% chance, 0 mm.", six))["verdict"] is True
    assert strict(hour, _reply("Yes, rain is expected at 06:00.", six))["verdict"] is False
    hot = {"query": "广州今天热吗", "lang": "zh", "intent": "current", "cities": [GUANGZHOU], "day": 0, "judge": "hot"}
    current = _call("get_current_weather", {}, {"location": _location(GUANGZHOU), "temperature": 11.0,
                                                "time": "2026-12-01T09:00", "today_max": 12.0, "today_min": 6.0})
    assert strict(hot, _reply("不热，现在11°C。", current))["verdict"] is True
    assert strict(hot, _reply("广州今天很热，11°C。", current))["verdict"] is False  # "热" for 11 °C
    # A yes or no of now is judged by the weather now, not by the day's rain
    now = {"query": "广州现在在下雨吗", "lang": "zh", "intent": "current", "cities": [GUANGZHOU], "day": 0, "yesno": "rain"}
    dry_now = _call("get_current_weather", {}, {"location": _location(GUANGZHOU), "temperature": 11.0,
                                                "time": "2026-12-01T09:00", "weather_code": 2, "precipitation": 0.0})
    assert strict(now, _reply("现在没有下雨，11°C。", dry_now))["verdict"] is True
    assert strict(now, _reply("现在在下雨，11°C。", dry_now))["verdict"] is False
    raining = _call("get_current_weather", {}, {"location": _location(GUANGZHOU), "temperature": 11.0,
                                                "time": "2026-12-01T09:00", "weather_code": 61, "precipitation": 0.4})
    assert strict(now, _reply("现在在下雨，11°C。", raining))["verdict"] is True
    # A weekday's judgement reads that day's record (Thursday is offset 2 from Tuesday 1 December).
    cold = {"query": "Guangzhou on Thursday - how cold?", "lang": "en", "intent": "forecast", "cities": [GUANGZHOU],
            "weekday": 3, "judge": "cold"}
    chilly_thursday = [WEEK[0], _day(2, "2026-12-03", "Thursday", temp_min=1.0, temp_max=5.0)]
    assert strict(cold, _reply("Cold: 1 to 5°C.", forecast(GUANGZHOU, chilly_thursday)))["verdict"] is True
    # In °F, the verdict is judged in °C: 23.4 °F is cold.
    fahrenheit = {"query": "is that cold for them?", "lang": "en", "intent": "current", "cities": [GUANGZHOU],
                  "day": 0, "judge": "cold", "units": "imperial"}
    frozen = _call("get_current_weather", {}, {"location": _location(GUANGZHOU), "temperature": 23.4,
                                               "time": "2026-12-01T09:00", "today_max": 28.2, "today_min": 15.1,
                                               "units": {"temperature": "°F"}})
    assert strict(fahrenheit, _reply("It is cold: 23.4°F.", frozen))["verdict"] is True
    assert strict(fahrenheit, _reply("It is not cold: 23.4°F.", frozen))["verdict"] is False
    compare = {"query": "北京和广州明天哪个更冷？", "lang": "zh", "intent": "compare", "cities": [BEIJING, GUANGZHOU],
               "day": 1, "compare": {"metric": "temp_min", "dir": "min", "names": [["北京", "Beijing"],
                                                                                 ["广州", "Guangzhou"]]}}
    both = _call("compare_weather", {}, {"places": [
        {"location": _location(BEIJING), "days": [_day(1, "2026-12-02", "Wednesday", temp_min=-4.6, temp_max=0.9)]},
        {"location": _location(GUANGZHOU), "days": [WEEK[1]]}], "source": "simulated"})
    assert strict(compare, _reply("北京更冷，-4.6~0.9°C。", both))["verdict"] is True
    assert strict(compare, _reply("广州更冷，8.9~17.7°C。", both))["verdict"] is False
    # a name written with another apostrophe is that name (geonames' "Nuku‘alofa" for the question's "Nuku'alofa")
    curly = {**compare, "compare": {**compare["compare"], "names": [["北京", "Beijing"], ["广州", "Guang'zhou"]]}}
    assert strict(curly, _reply("Guang‘zhou is colder than Beijing.", both))["verdict"] is False
    assert strict(curly, _reply("Beijing is colder than Guang‘zhou.", both))["verdict"] is True
    # ... and one written without its accents or its space ("Cadiz" for Cádiz, "Sapa" for Sa Pa)
    accented = {**compare, "compare": {**compare["compare"], "names": [["北京", "Béi Jing"], ["广州", "Guangzhou"]]}}
    assert strict(accented, _reply("Beijing is colder than Guangzhou.", both))["verdict"] is True
    assert strict(accented, _reply("Guangzhou is colder than Beijing.", both))["verdict"] is False
    # ... or without its full stop (dev50's "St Anton am Arlberg is colder" for "St. Anton")
    abbreviated = {**compare, "compare": {**compare["compare"], "names": [["北京", "St. Beijing"], ["广州", "Guangzhou"]]}}
    assert strict(abbreviated, _reply("St Beijing is colder than Guangzhou.", both))["verdict"] is True
    assert strict(abbreviated, _reply("Guangzhou is colder than St Beijing.", both))["verdict"] is False


def test_rule_verdict_reads_the_nearest_place_and_a_snowy_days_weather_code():
    """Two places 18 km apart are each within reach of both: each is judged by its own (nearest) result. A
    forecast day says snow by its weather code (71: slight snow fall), having no snowfall sum."""
    jiuquan, jiayuguan = {"name": "Jiuquan", "lat": 39.74, "lon": 98.49}, {"name": "Jiayuguan", "lat": 39.77, "lon": 98.29}
    coldest = {"query": "现在酒泉、嘉峪关哪个最冷", "lang": "zh", "intent": "compare", "cities": [jiuquan, jiayuguan],
               "day": 0, "compare": {"metric": "temperature", "dir": "min",
                                     "names": [["酒泉", "Jiuquan"], ["嘉峪关", "Jiayuguan"]]}}
    both = _call("compare_weather", {}, {"places": [
        {"location": {"name": "酒泉", "latitude": 39.743, "longitude": 98.517}, "temperature": -2.4, "days": []},
        {"location": {"name": "嘉峪关", "latitude": 39.811, "longitude": 98.286}, "temperature": -6.4, "days": []}]})
    assert strict(coldest, _reply("嘉峪关更冷，-6.4°C。", both))["verdict"] is True
    assert strict(coldest, _reply("酒泉更冷，-2.4°C。", both))["verdict"] is False
    snow = {"query": "广州周四会下雪吗", "lang": "zh", "intent": "precipitation", "cities": [GUANGZHOU], "weekday": 3,
            "yesno": "snow"}
    snowy = forecast(GUANGZHOU, [WEEK[0], _day(2, "2026-12-03", "Thursday", weather_code=71, precipitation_sum=2.0)])
    assert strict(snow, _reply("会下雪，小雪。", snowy))["verdict"] is True
    assert strict(snow, _reply("不会下雪。", snowy))["verdict"] is False
    dry = forecast(GUANGZHOU, [WEEK[0], _day(2, "2026-12-03", "Thursday", weather_code=3, precipitation_sum=0.0)])
    assert strict(snow, _reply("不会下雪。", dry))["verdict"] is True
    # a day of snow with a few tenths of a millimetre of rain in it: "不会下雨，会下雪" (had failed both ways)
    rain = {**snow, "query": "广州周四会下雨吗", "yesno": "rain"}
    sleety = _call("get_precipitation", {"city": "广州"}, {"location": _location(GUANGZHOU), "source": "x", "days": [
        _day(2, "2026-12-03", "Thursday", precipitation_sum=4.4, rain_sum=0.4, snowfall_sum=2.8, rain_expected=False,
             snow_expected=True)]})
    assert strict(rain, _reply("不会下雨，会下雪，降雪2.8厘米。", sleety))["verdict"] is True
    assert strict(rain, _reply("会下雨。", sleety))["verdict"] is False


def test_rule_verdict_for_a_part_of_the_day_is_judged_by_its_hours():
    """Rain in the morning, none tonight: "今晚会下雨吗" is answered no when the hours of tonight were fetched."""
    turn = {"query": "成都今晚会下雨吗？", "lang": "zh", "intent": "precipitation", "cities": [GUANGZHOU], "day": 0,
            "yesno": "rain"}
    wet_morning = _day(0, "2026-12-01", "Tuesday", precipitation_sum=6.0, probability_max=90)
    night = [{"date": "2026-12-01", "day": 0, "hour": h, "precipitation": 0.0, "precipitation_probability": 10}
             for h in range(18, 24)]
    tonight = _call("get_precipitation", {"city": "广州", "part": "night"},
                    {"location": _location(GUANGZHOU), "days": [wet_morning], "hours": night, "source": "x"})
    assert strict(turn, _reply("今晚不会下雨，降水概率最高10%。", tonight))["verdict"] is True
    assert strict(turn, _reply("今晚会下雨，降水6毫米。", tonight))["verdict"] is False
    whole_day = _call("get_precipitation", {"city": "广州"}, {"location": _location(GUANGZHOU), "days": [wet_morning],
                                                             "source": "x"})
    assert strict(turn, _reply("会下雨，降水6毫米。", whole_day))["verdict"] is True  # no hours: the day decides
    # 明早 is a part of the day as 早上 is: a dry morning of a wet day is answered no
    morning = {**turn, "query": "明早宁波会下雨吗 骑电动车上班"}
    assert strict(morning, _reply("今晚不会下雨，降水概率最高10%。", tonight))["verdict"] is True


def test_rule_day_reads_the_day_before_yesterday_and_a_saturday_named_after_the_weekend():
    """"the day before yesterday" was read as "yesterday", a wrong day; "那普吉周六最高温多少度" after a weekend question
    was judged as the weekend, its Saturday's answer lacking Sunday."""
    gone = {"query": "weather in Guangzhou the day before yesterday?", "lang": "en", "intent": "past",
            "cities": [GUANGZHOU], "day": -2}
    before = [_day(-2, "2026-11-29", "Sunday", temp_min=10.0, temp_max=18.0)]
    assert strict(gone, _reply("Guangzhou the day before yesterday: 10 to 18°C.", forecast(GUANGZHOU, before)))[
        "day"] is True
    # its weekday dated with an ordinal ("The day before yesterday was Saturday, December 5th" had been read as the
    # coming Saturday)
    assert strict(gone, _reply("The day before yesterday was Sunday, November 29th, 10 to 18°C.",
                               forecast(GUANGZHOU, before)))["day"] is True
    saturday = {"query": "那广州周六最高温多少度", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU],
                "weekday": 5, "earlier": ["这周末广州热不热"]}
    on = [_day(4, "2026-12-05", "Saturday", temp_min=12.0, temp_max=24.8)]
    assert strict(saturday, _reply("广州周六最高温24.8°C。", forecast(GUANGZHOU, on)))["day"] is True
    weekend = {**saturday, "query": "那广州呢"}  # no day of its own: the weekend asked before
    assert strict(weekend, _reply("广州周六最高温24.8°C。", forecast(GUANGZHOU, on)))["day"] is False
    # in traditional characters, and two follow-ups on ("那墾丁" after "花蓮呢" after "台北這週末會下雨嗎")
    later = {**saturday, "query": "那廣州", "earlier": ["台北這週末會下雨嗎", "花蓮呢"]}
    assert strict(later, _reply("广州周六最高温24.8°C。", forecast(GUANGZHOU, on)))["day"] is False
    assert strict({**later, "earlier": ["台北明天會下雨嗎", "花蓮呢"]},
                  _reply("广州周六最高温24.8°C。", forecast(GUANGZHOU, on)))["day"] is True


def test_rule_verdict_of_hot_or_cold_at_an_hour_is_judged_by_that_hours_temperature():
    """"卢克索明天早上5点坐热气球的时候冷不冷" answered "天气寒冷" at 5.9°C had failed on the day's high of 24°C."""
    turn = {"query": "卢克索明天早上5点冷不冷", "lang": "zh", "intent": "hourly", "cities": [GUANGZHOU], "day": 1,
            "hour": 5, "judge": "cold"}
    warm_day = _day(1, "2026-12-02", "Wednesday", temp_min=5.0, temp_max=24.0)
    dawn = [{"date": "2026-12-02", "day": 1, "hour": 5, "temperature": 5.9, "feels_like": 1.1}]
    at_five = _call("get_forecast", {"city": "卢克索", "day": 1, "hours": [5]},
                    {"location": _location(GUANGZHOU), "days": [warm_day], "hours": dawn, "source": "x"})
    assert strict(turn, _reply("冷，明天05:00只有5.9°C。", at_five))["verdict"] is True
    assert strict(turn, _reply("不冷，明天05:00有5.9°C。", at_five))["verdict"] is False


def test_rule_figures_and_language_and_identity():
    turn = {"query": "广州明天天气如何", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "day": 1}
    data = forecast(GUANGZHOU, WEEK[1:2])
    assert strict(turn, _reply("广州明天9~18°C。", data))["figures"] is True  # rounded
    assert strict(turn, _reply("广州明天最高41°C。", data))["figures"] is False
    assert strict(turn, _reply("广州明天有雨。", data))["figures"] is False  # a data answer quotes its data
    assert strict(turn, _reply("广州明天8.9~17.7°C。", data))["language"] is True
    assert strict(turn, _reply("Guangzhou: 8.9 to 17.7°C.", data))["language"] is False
    assert strict(turn, _reply("广州明天8.9°C ![图](https://example.com/a.png)", data))["language"] is False
    assert strict(turn, _reply("get_forecast 返回：广州明天8.9°C", data))["language"] is False
    fahrenheit = {**turn, "query": "Guangzhou tomorrow in Fahrenheit?", "lang": "en", "units": "imperial"}
    in_f = forecast(GUANGZHOU, [{**day, "temp_min": 48.0, "temp_max": 63.9} for day in WEEK[1:2]])
    in_f["structured_content"]["units"] = {"temperature": "°F"}
    assert strict(fahrenheit, _reply("Guangzhou tomorrow: 48 to 63.9°F.", in_f))["figures"] is True
    assert strict(fahrenheit, _reply("Guangzhou tomorrow: 8.9 to 17.7°C.", data))["figures"] is False  # °C fetched
    assert strict(fahrenheit, _reply("Guangzhou tomorrow: 48 to 63.9°C.", in_f))["figures"] is False  # mislabelled
    assert strict(turn, _reply("广州明天48~63.9°F。", in_f))["figures"] is False  # °F nobody asked for
    who = {"query": "你是谁？", "lang": "zh", "intent": "none", "cities": [], "identity": True}
    assert strict(who, _reply("我是 MCP 天气助手，可以查天气。"))["identity"] is True
    assert strict(who, _reply("我是通义千问，由阿里云开发。"))["identity"] is False


def test_rule_limits_and_disclosure():
    far = {"query": "Forecast for Madrid 30 days from now", "lang": "en", "intent": "limit", "cities": []}
    error = _call("get_forecast", {"day": 30}, None, is_error=True, text="The forecast reaches 16 days")
    assert strict(far, _reply("Sorry, the forecast reaches only 16 days ahead.", error))["limits"] is True
    assert strict(far, _reply("Madrid will be sunny, 21°C.", error))["limits"] is False
    # A feature question the tools answer passes only with its figure, not with a stated limit.
    sunrise = {"query": "When does the sun rise in Tokyo tomorrow?", "lang": "en", "intent": "sun", "cities": [TOKYO],
               "day": 1}
    assert strict(sunrise, _reply("Sorry, I don't have sunrise times; tomorrow 8.9 to 17.7°C.",
                                  forecast(TOKYO, WEEK[1:2])))["limits"] is False
    turn = {"query": "广州明天天气如何", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "day": 1}
    said = _reply(f"广州明天8.9~17.7°C。\n\n{NOTICE['text']}", forecast(GUANGZHOU, WEEK[1:2]), notices=[NOTICE])
    assert strict(turn, said)["disclosure"] is True
    assert strict(turn, _reply("广州明天8.9~17.7°C。", forecast(GUANGZHOU, WEEK[1:2])))["disclosure"] is False
    real = forecast(GUANGZHOU, WEEK[1:2], source="open-meteo")
    assert strict(turn, _reply("广州明天8.9~17.7°C。", real))["disclosure"] is None


SUN = [_day(0, "2026-12-01", "Tuesday", temp_min=3.0, temp_max=11.2, sunrise="2026-12-01T06:31",
            sunset="2026-12-01T16:28"),
       _day(1, "2026-12-02", "Wednesday", temp_min=4.1, temp_max=12.0, sunrise="2026-12-02T06:32",
            sunset="2026-12-02T16:27")]


def test_rule_limits_sun_needs_the_asked_days_sunrise_or_sunset():
    rise = {"query": "When does the sun rise in Tokyo tomorrow?", "lang": "en", "intent": "sun", "cities": [TOKYO],
            "day": 1}
    both_days = forecast(TOKYO, SUN, day=0)
    assert strict(rise, _reply("Tomorrow the sun rises in Tokyo at 6:32 am.", both_days))["limits"] is True
    assert strict(rise, _reply("Tomorrow the sun rises at 6:31.", both_days))["limits"] is False  # today's sunrise
    assert strict(rise, _reply("Tomorrow the sun sets at 16:27.", both_days))["limits"] is False  # not what was asked
    sets = {"query": "东京明天几点日落？", "lang": "zh", "intent": "sun", "cities": [TOKYO], "day": 1}
    assert strict(sets, _reply("东京明天下午4点27分日落。", both_days))["limits"] is True
    assert strict(sets, _reply("东京明天16:28日落。", both_days))["limits"] is False
    # a polar night has no sunrise: saying so is the answer, saying the data lacks it is not
    dark = [_day(0, "2026-12-01", "Tuesday", temp_min=-9.0, temp_max=-4.0, sunrise=None, sunset=None),
            _day(1, "2026-12-02", "Wednesday", temp_min=-8.0, temp_max=-3.0, sunrise=None, sunset=None)]
    polar = forecast(TOKYO, dark, day=0)
    assert strict(rise, _reply("Tomorrow is polar night there: the sun does not rise.", polar))["limits"] is True
    assert strict(rise, _reply("Sorry, the data does not include the sunrise.", polar))["limits"] is False


def test_rule_limits_sun_reads_a_weekday_at_the_place_and_takes_the_days_length_for_how_long():
    # the place's today is Tuesday 2026-12-01: "Wednesday" is its tomorrow
    days = [{**SUN[0], "daylight_duration": 35820.0}, {**SUN[1], "daylight_duration": 35700.0}]
    on_wednesday = {"query": "Sunset in Tokyo on Wednesday?", "lang": "en", "intent": "sun", "cities": [TOKYO],
                    "weekday": 2}
    assert strict(on_wednesday, _reply("Sunset in Tokyo on Wednesday is at 16:27.", forecast(TOKYO, days)))[
        "limits"] is True
    assert strict(on_wednesday, _reply("Sunset in Tokyo on Wednesday is at 16:28.", forecast(TOKYO, days)))[
        "limits"] is False  # Tuesday's
    length = {"query": "东京明天白天有多长", "lang": "zh", "intent": "sun", "cities": [TOKYO], "day": 1}
    assert strict(length, _reply("东京明天白天9小时55分。", forecast(TOKYO, days)))["limits"] is True
    assert strict({**length, "query": "东京明天白天能有多长"}, _reply("东京明天白天9小时55分。", forecast(TOKYO, days)))[
        "limits"] is True
    assert strict(length, _reply("东京明天白天9小时57分。", forecast(TOKYO, days)))["limits"] is False  # today's
    # polar night: 0 h of daylight is the length asked ("特罗姆瑟今天白天有多长": "白天有0小时")
    dark = [{**day, "sunrise": None, "sunset": None, "daylight_duration": 0.0} for day in days]
    assert strict(length, _reply("东京明天白天有0小时。", forecast(TOKYO, dark)))["limits"] is True


def test_rule_limits_hourly_needs_the_figure_of_the_asked_hour():
    turn = {"query": "今天下午两点上海多少度？", "lang": "zh", "intent": "hourly", "cities": [SHANGHAI], "day": 0,
            "hour": 14}
    hours = [{"date": "2026-12-01", "weekday": "Tuesday", "day": 0, "time": f"2026-12-01T{h}:00", "hour": h,
              "temperature": t, "feels_like": t - 2, "precipitation_probability": 10, "precipitation": 0.0}
             for h, t in ((14, 12.7), (15, 13.4))]
    result = _call("get_forecast", {"city": "上海", "hours": [14, 15]},
                   {"location": _location(SHANGHAI), "days": [WEEK[0]], "hours": hours, "source": "x"})
    assert strict(turn, _reply("上海今天下午两点12.7°C。", result))["limits"] is True
    assert strict(turn, _reply("上海今天下午两点13.4°C。", result))["limits"] is False  # the 15:00 figure
    assert strict(turn, _reply("上海今天最高24.7°C。", forecast(SHANGHAI, WEEK[:1])))["limits"] is False  # no hours
    # the hour's wind, when the wind is asked
    windy = [{**hour, "wind_speed": 10.2 + hour["hour"]} for hour in hours]
    result = _call("get_forecast", {"city": "上海", "hours": [14, 15]},
                   {"location": _location(SHANGHAI), "days": [WEEK[0]], "hours": windy, "source": "x"})
    wind = {**turn, "query": "今天下午两点上海风多大？"}
    assert strict(wind, _reply("上海今天下午两点风速24.2 km/h。", result))["limits"] is True
    assert strict(wind, _reply("上海今天下午两点12.7°C。", result))["limits"] is False  # not the wind


def test_rule_day_of_a_range_search_reads_a_weekday_from_the_searchs_today():
    saturday = {"query": "这周六哪些城市低于0度", "lang": "zh", "intent": "temperature_range", "cities": [], "weekday": 5,
                "max_c": 0}
    found = {"min_temp": None, "max_temp": 0.0, "matches": [{"temperature": -3.1}], "source": "x"}
    on = _call("find_cities_by_temperature", {}, {**found, "day": 5, "date": "2026-12-12"})  # from Monday the 7th
    assert strict(saturday, _reply("周六哈尔滨-3.1°C。", on))["day"] is True
    today = _call("find_cities_by_temperature", {}, {**found, "day": 0, "date": "2026-12-07"})
    assert strict(saturday, _reply("哈尔滨-3.1°C。", today))["day"] is False


def test_rule_limits_reads_a_figure_below_zero_written_in_words():
    turn = {"query": "今天下午两点上海零下多少度？", "lang": "zh", "intent": "hourly", "cities": [SHANGHAI], "day": 0,
            "hour": 14}
    hours = [{"date": "2026-12-01", "weekday": "Tuesday", "day": 0, "time": "2026-12-01T14:00", "hour": 14,
              "temperature": -8.2, "feels_like": -12.0}]
    result = _call("get_forecast", {"city": "上海", "hours": [14]},
                   {"location": _location(SHANGHAI), "days": [WEEK[0]], "hours": hours, "source": "x"})
    assert strict(turn, _reply("上海今天下午两点零下8.2°C。", result))["limits"] is True
    assert strict(turn, _reply("上海今天下午两点零下9.2°C。", result))["limits"] is False


def test_rule_limits_aqi_needs_the_places_figure_the_question_names():
    turn = {"query": "上海今天的PM2.5是多少？", "lang": "zh", "intent": "aqi", "cities": [SHANGHAI], "day": 0}
    air = _call("get_air_quality", {"city": "上海"}, {
        "location": _location(SHANGHAI), "source": "x",
        "current": {"time": "2026-12-01T11:00", "pm2_5": 49.0, "pm10": 62.0, "us_aqi": 134,
                    "china_aqi": {"aqi": 68, "category": "良"}},
        "days": [{"date": "2026-12-01", "weekday": "Tuesday", "day": 0, "pm2_5": 53.1, "china_aqi": {"aqi": 72}}]})
    assert strict(turn, _reply("上海现在PM2.5为49微克/立方米，空气质量良。", air))["limits"] is True
    assert strict(turn, _reply("上海今天PM2.5日均53.1。", air))["limits"] is True
    assert strict(turn, _reply("上海现在PM10为62微克/立方米。", air))["limits"] is False  # not the asked pollutant
    general = {**turn, "query": "上海今天空气质量怎么样？"}
    assert strict(general, _reply("空气质量良，中国AQI 68。", air))["limits"] is True
    beijing = {**turn, "cities": [BEIJING]}
    assert strict(beijing, _reply("PM2.5为49。", air))["limits"] is False  # another place's figure


def test_rule_limits_past_needs_the_asked_days_figure():
    turn = {"query": "What was the high in London yesterday?", "lang": "en", "intent": "past", "cities": [LONDON],
            "day": -1}
    days = [_day(-1, "2026-11-30", "Monday", temp_min=4.2, temp_max=9.8, precipitation_sum=1.2), WEEK[0]]
    both = forecast(LONDON, days, day=-1)
    assert strict(turn, _reply("Yesterday's high in London was 9.8°C.", both))["limits"] is True
    assert strict(turn, _reply("Yesterday's high in London was 24.7°C.", both))["limits"] is False  # today's
    assert strict(turn, _reply("Yesterday's low was 4.2°C.", both))["limits"] is False  # not the high
    windy = forecast(LONDON, [{**days[0], "wind_speed_max": 26.4}, WEEK[0]], day=-1)
    wind = {**turn, "query": "how windy was it in London yesterday"}
    assert strict(wind, _reply("It was not windy yesterday: up to 26.4 km/h.", windy))["limits"] is True
    assert strict(wind, _reply("Yesterday's high was 9.8°C.", windy))["limits"] is False


def test_rule_follow_up_holds_the_inherited_place_and_day():
    turn = {"query": "那后天呢？", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "day": 2}
    assert strict(turn, _reply("广州后天14.1~21.9°C。", forecast(GUANGZHOU, WEEK[2:3])), index=1)["follow_up"]
    assert strict(turn, _reply("北京后天14.1~21.9°C。", forecast(BEIJING, WEEK[2:3])), index=1)["follow_up"] is False
    assert strict(turn, _reply("广州后天14.1~21.9°C。", forecast(GUANGZHOU, WEEK[2:3])))["follow_up"] is None


def test_the_loose_checks_still_score_as_before():
    query = {"query": "广州明天天气如何", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "days": 2}
    good = forecast(GUANGZHOU, WEEK[1:2])
    checks = score(query, _reply("广州明天8.9到17.7度。", good), image_ok=True)
    assert checks == {"tool": True, "location": True, "days": True, "chart": None, "range": None,
                      "no_tool": None, "grounded": True, "language": True} and fully_correct(checks)
    assert score(query, _reply("广州明天最高 41 度。", good), image_ok=True)["grounded"] is False
    assert score(query, _reply("广州今天24.7度。", forecast(GUANGZHOU, WEEK[:1])), True)["days"] is False


def test_rule_day_reads_week_1_as_that_weekday_of_the_next_calendar_week():
    # WEEK's today is Tuesday 2026-12-01: "下周三" is Wednesday 9 December (offset 8), not tomorrow.
    turn = {"query": "下周三广州天气怎么样？", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "weekday": 2,
            "week": 1}
    next_wednesday = [_day(8, "2026-12-09", "Wednesday", temp_min=11.0, temp_max=19.5)]
    assert strict(turn, _reply("广州下周三11~19.5°C。", forecast(GUANGZHOU, next_wednesday)))["day"] is True
    assert strict(turn, _reply("广州周三8.9~17.7°C。", forecast(GUANGZHOU, WEEK[1:2])))["day"] is False
    this_week = {**turn, "query": "周三广州天气怎么样？"}
    del this_week["week"]
    assert strict(this_week, _reply("广州周三8.9~17.7°C。", forecast(GUANGZHOU, WEEK[1:2])))["day"] is True


def test_rule_day_reads_an_english_weekday_by_the_date_beside_it():
    # "Wednesday 9 Dec" is next week's Wednesday (offset 8 from Tuesday 1 December), as a reader takes it.
    turn = {"query": "Guangzhou on Wednesday next week?", "lang": "en", "intent": "forecast", "cities": [GUANGZHOU],
            "weekday": 2, "week": 1}
    next_wednesday = [_day(8, "2026-12-09", "Wednesday", temp_min=11.0, temp_max=19.5)]
    data = forecast(GUANGZHOU, next_wednesday)
    assert strict(turn, _reply("Guangzhou, Wednesday 9 Dec: 11 to 19.5°C.", data))["day"] is True
    assert strict(turn, _reply("Guangzhou on Wednesday, December 9: 11 to 19.5°C.", data))["day"] is True
    assert strict(turn, _reply("Guangzhou, Wednesday 2 Dec: 11 to 19.5°C.", data))["day"] is False


def test_rule_day_reads_a_chinese_weekday_by_the_date_before_it():
    # "昨天（12月4日 周五）" asked on Saturday 5 December: the Friday of that date, not the next Friday.
    turn = {"query": "昨天广州下雨了吗", "lang": "zh", "intent": "past", "cities": [GUANGZHOU], "day": -1}
    yesterday = [_day(-1, "2026-12-04", "Friday", temp_min=11.0, temp_max=19.5, precipitation_sum=0.0)]
    data = forecast(GUANGZHOU, yesterday)
    assert strict(turn, _reply("广州昨天（12月4日 周五）11~19.5°C，降水0毫米。", data))["day"] is True
    assert strict(turn, _reply("广州昨天（12月4日）11~19.5°C，周五还会下雨。", data))["day"] is False


def test_rule_day_reads_a_weeks_weather_as_no_sunday_and_snow_as_no_rain():
    # "未来一周天气" holds 周天 (Sunday) before 气; a week labelled as 7 days is judged as its span.
    week = {"query": "广州未来一周天气", "lang": "zh", "intent": "forecast", "cities": [GUANGZHOU], "days": 7}
    days = [_day(offset, f"2026-12-{offset + 1:02d}", "x", temp_min=1.0, temp_max=2.0) for offset in range(7)]
    assert strict(week, _reply("广州未来7天1~2°C。", forecast(GUANGZHOU, days)))["day"] is True
    # A past day whose 5.6 mm all fell as snow: "no rain, it snowed" is the right answer, "it rained" is not.
    rained = {"query": "昨天广州下雨了吗", "lang": "zh", "intent": "past", "cities": [GUANGZHOU], "day": -1,
              "yesno": "rain"}
    snowed = forecast(GUANGZHOU, [_day(-1, "2026-11-30", "Monday", precipitation_sum=5.6, rain_sum=0.0,
                                       snowfall_sum=3.9, rain_expected=False, snow_expected=True)])
    assert strict(rained, _reply("没有下雨，下了雪。", snowed))["verdict"] is True
    assert strict(rained, _reply("下雨了，降水5.6毫米。", snowed))["verdict"] is False


def test_rule_limits_pollen_needs_a_pollen_figure():
    turn = {"query": "Is the pollen bad in London today?", "lang": "en", "intent": "aqi", "cities": [LONDON], "day": 0}
    air = _call("get_air_quality", {"city": "London"}, {
        "location": _location(LONDON), "source": "x",
        "current": {"time": "2026-12-01T11:00", "pm2_5": 8.0, "birch_pollen": 23.0, "grass_pollen": 0.0},
        "days": [{"date": "2026-12-01", "weekday": "Tuesday", "day": 0, "pm2_5": 9.1, "birch_pollen": 17.4}]})
    assert strict(turn, _reply("Birch pollen is moderate in London: 23 grains/m³.", air))["limits"] is True
    assert strict(turn, _reply("PM2.5 in London is 8 μg/m³.", air))["limits"] is False  # not pollen


DEV2_INTENTS = set(chat_eval_rules.INTENT_TOOLS) | {"none", "limit"}  # the intents the rubric and the rules know
DEV2_LABELS = {"query", "lang", "intent", "cities", "day", "weekday", "week", "days", "hour", "yesno", "judge",
               "compare", "chart", "min_c", "max_c", "identity", "span", "units"}


def _check_dev2_turn(turn: dict[str, Any]) -> None:
    assert isinstance(turn["query"], str) and turn["query"].strip()
    assert turn["lang"] in ("zh", "en") and turn["intent"] in DEV2_INTENTS, turn
    assert set(turn) <= DEV2_LABELS, set(turn) - DEV2_LABELS
    assert isinstance(turn["cities"], list)
    for city in turn["cities"]:
        assert isinstance(city["name"], str) and -90 <= city["lat"] <= 90 and -180 <= city["lon"] <= 180, city
    intent = turn["intent"]
    if intent in ("none", "limit", "temperature_range"):
        assert turn["cities"] == [], turn
    else:
        assert turn["cities"], turn
    if intent not in ("none", "limit", "chart"):  # every data question says which day(s) it is about; a chart
        # may leave them to the tool, as the first dev set's "给我看看深圳的降水量图表" does
        assert any(key in turn for key in ("day", "weekday", "days", "span")), turn
    if "day" in turn:
        assert isinstance(turn["day"], int) and -92 <= turn["day"] <= 15  # the tools keep 92 past days
    if "weekday" in turn:
        assert turn["weekday"] in range(7) and turn.get("week", 1) in (1, 2)
    else:
        assert "week" not in turn
    if intent == "temperature_range":
        assert ("day" in turn or "weekday" in turn) and ("min_c" in turn or "max_c" in turn), turn
        if "min_c" in turn and "max_c" in turn:
            assert turn["min_c"] < turn["max_c"]
    if intent == "chart":
        assert turn["chart"] in ("temperature", "precipitation")
    if intent == "hourly" and "hour" in turn:
        assert turn["hour"] in range(24)
    if intent == "past":
        assert turn["day"] < 0  # yesterday, 前天, three days ago
    if intent == "compare":
        assert 2 <= len(turn["cities"]) <= 8, turn  # users may list more places than one comparison takes
    if "compare" in turn:  # none for a metric the rules cannot rank by ("which is more humid"): the other rules judge
        spec = turn["compare"]
        assert intent == "compare" and len(spec["names"]) == len(turn["cities"]), turn
        # a day's field of the results (ForecastDay), or the current temperature
        assert spec["dir"] in ("max", "min") and spec["metric"] in (
            "temperature", "temp_max", "temp_min", "precipitation_sum", "precipitation_probability", "wind_speed_max",
            "uv_index_max")
        assert all(names and all(isinstance(name, str) and name for name in names) for names in spec["names"])
    assert turn.get("yesno") in (None, "rain", "snow") and turn.get("judge") in (None, "hot", "cold")
    if "identity" in turn:
        assert turn["identity"] is True and intent == "none"


# The sets in bench/, in the order they were written.
WRITTEN_APART = [f"dev{number}" for number in range(2, chat_eval.LAST_SET + 1)]
# Turns a conversation of each set may have: dev5 asked for longer ones, with small talk between the weather turns;
# from dev6 on, three to six; from dev32 on, three to seven.
DIALOGUE_TURNS = {"dev2": range(2, 5), "dev3": range(2, 5), "dev4": range(2, 5), "dev5": range(4, 11),
                  **{name: range(3, 7) for name in WRITTEN_APART[4:WRITTEN_APART.index("dev32")]},
                  **{name: range(3, 8) for name in WRITTEN_APART[WRITTEN_APART.index("dev32"):]}}


@pytest.mark.parametrize("name", WRITTEN_APART)
def test_the_sets_written_apart_load_and_every_turn_is_labelled(name: str):
    """bench/dev2_* ... dev35_* through chat_eval's own loader: every line parses and carries what the rules
    need, and no question is one of an earlier set's."""
    queries_file, dialogues_file = chat_eval.SETS[name]
    for path in (queries_file, dialogues_file):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        assert all(isinstance(json.loads(line), dict) for line in lines), path
    queries = chat_eval.load_dialogues(queries_file)
    dialogues = chat_eval.load_dialogues(dialogues_file)
    assert len(queries) >= 60 and all(len(d["turns"]) == 1 and "turns" not in d["turns"][0] for d in queries)
    assert len(dialogues) >= 10 and all(len(d["turns"]) in DIALOGUE_TURNS[name] for d in dialogues)
    assert len({d["id"] for d in dialogues}) == len(dialogues)
    turns = [turn for dialogue in queries + dialogues for turn in dialogue["turns"]]
    for turn in turns:
        _check_dev2_turn(turn)
    singles = [d["turns"][0] for d in queries]
    # both reply languages well represented (dev22 was asked for 60% English, dev23 for 50% Chinese)
    assert all(3 * sum(t["lang"] == lang for t in singles) >= len(singles) for lang in ("zh", "en"))
    assert {t["intent"] for t in singles} == DEV2_INTENTS  # every intent asked at least once
    assert len({t["query"] for t in singles}) == len(singles)  # no question twice
    earlier = {t["query"] for before in WRITTEN_APART[:WRITTEN_APART.index(name)]
               for d in chat_eval.load_set(list(chat_eval.SETS[before])) for t in d["turns"]}
    # No question of its own is an earlier set's; from dev18 on, a follow-up may be ("thanks!", "明天呢").
    own = singles if WRITTEN_APART.index(name) >= WRITTEN_APART.index("dev18") else turns
    assert not {t["query"] for t in own} & earlier
    # a set of its own in the default run, after the first one, and held apart from tuning
    assert list(chat_eval.SETS) == ["dev", *WRITTEN_APART] and name in chat_eval.HELD_APART
    assert chat_eval.load_set(list(chat_eval.SETS[name])) == queries + dialogues


def test_each_set_gets_its_own_tables_and_the_held_apart_sets_failures_are_listed_only_when_asked(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture):
    sets = {}
    for name in ("dev", "dev2"):
        path = tmp_path / f"{name}.jsonl"
        path.write_text(json.dumps({"query": f"{name} 你好", "lang": "zh", "intent": "none", "cities": []}) + "\n")
        sets[name] = (path,)
    monkeypatch.setattr(chat_eval, "SETS", sets)

    def run_eval(dialogues, gateway_url, timeout_s):  # every reply calls a tool: a "none" question fails
        reply = _reply("好的。", _call("get_forecast", {"city": "x"}, None, is_error=True))
        return [chat_eval.Outcome(d["id"], 0, d["turns"][0], reply, score(d["turns"][0], reply, True),
                                  strict(d["turns"][0], reply), 1.0) for d in dialogues]

    monkeypatch.setattr(chat_eval, "run_eval", run_eval)
    markdown = tmp_path / "eval.md"
    assert chat_eval.main(["--markdown", str(markdown)]) == 0
    printed = capsys.readouterr().out
    assert printed.index("=== set dev\n") < printed.index("=== set dev2\n")
    assert "] dev 你好  [call]" in printed and "] dev2 你好" not in printed and "held apart from tuning" in printed
    report = markdown.read_text()
    assert report.count("| none | 1 | 0/1 (0%) | 0/1 (0%) |") == 2 and "## Set dev2" in report
    assert chat_eval.main(["--set", "dev2", "--failures"]) == 0
    printed = capsys.readouterr().out
    assert "=== set" not in printed and "] dev2 你好  [call]" in printed


def test_files_and_a_named_set_do_not_mix():
    with pytest.raises(SystemExit):
        chat_eval.main(["some.jsonl", "--set", "dev2"])


def _tool_reply(name: str, arguments: dict) -> dict:
    return {"tool_calls": [{"name": f"weather__{name}", "arguments": arguments}]}


def test_a_run_against_the_gateway_scores_and_writes_the_tables(weather_gateway, fake_llm, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture):
    queries = tmp_path / "queries.jsonl"
    queries.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in [
        {"query": "给我看看深圳的降水量图表", "lang": "zh", "intent": "chart", "cities": [SHENZHEN],
         "chart": "precipitation"},
        {"query": "你好", "lang": "zh", "intent": "none", "cities": []},
        {"query": "北京今天天气怎么样？", "lang": "zh", "intent": "current", "cities": [BEIJING]},
    ]))
    dialogues = tmp_path / "dialogues.jsonl"
    dialogues.write_text(json.dumps({"id": "t1", "turns": [
        {"query": "Compare Tokyo and Seoul weather tomorrow", "lang": "en", "intent": "compare",
         "cities": [TOKYO, SEOUL], "day": 1},
        {"query": "What about Busan?", "lang": "en", "intent": "current", "cities": [
            {"name": "Busan", "lat": 35.1, "lon": 129.04}], "day": 0}]}, ensure_ascii=False))
    fake_llm.script(
        _tool_reply("get_weather_chart", {"city": "深圳", "kind": "precipitation"}),
        {"content": "这是深圳未来几天的降水量图表。"},
        {"content": "你好！有什么天气问题可以帮你？"},
        _tool_reply("get_current_weather", {"city": "北京"}),
        {"content": "北京现在气温 987 度。"}, {"content": "北京现在气温 986 度。"},
        _tool_reply("compare_weather", {"cities": ["Tokyo", "Seoul"], "day": 1}),
        {"content": "Tokyo and Seoul look similar tomorrow."},
        _tool_reply("get_current_weather", {"city": "Seoul"}),
        {"content": "Seoul is mild right now."},
    )
    markdown = tmp_path / "eval.md"
    assert chat_eval.main([str(queries), str(dialogues), "--gateway", weather_gateway.url,
                           "--markdown", str(markdown)]) == 0
    printed = capsys.readouterr().out
    progress = [re.match(r"\[ ?\d+/\d+\] (ok |bad|BAD) +[\d.]+s (.+)", line) for line in printed.splitlines()]
    outcomes = {match[2]: match[1].strip() for match in progress if match}
    # The made-up 987 degrees never reached the user (the gateway composed the answer from the facts); the follow-up
    # went to Seoul, not Busan; the comparison names no place first, so no figure and no verdict to check.
    assert outcomes == {"给我看看深圳的降水量图表": "ok", "你好": "ok", "北京今天天气怎么样？": "ok",
                        "Compare Tokyo and Seoul weather tomorrow": "BAD", "What about Busan?": "BAD"}
    assert "[t1#2] What about Busan?  [call, day, figures, follow_up]" in printed
    assert "[t1#1] Compare Tokyo and Seoul weather tomorrow  [figures]" in printed
    assert "strict: 3/5 (60%); loose: 3/5 (60%)" in printed and "disclosure of simulated data: 4/4" in printed
    table = markdown.read_text()
    assert "| chart | 1 | 1/1 (100%) | 1/1 (100%) |" in table and "| follow_up | 1 | 1 |" in table


def test_the_latency_line_splits_the_routers_and_the_writers_time():
    turn = {"query": "你好", "lang": "zh", "intent": "none", "cities": []}

    def outcome(route_ms: float, write_ms: float) -> chat_eval.Outcome:
        reply = {**_reply("你好！"), "timings": {"route_ms": route_ms, "write_ms": write_ms}}
        return chat_eval.Outcome("d", 0, turn, reply, score(turn, reply, True), strict(turn, reply), 2.0)

    (*_, latency) = chat_eval.summary_lines([outcome(1200, 0), outcome(1500, 2500), outcome(1000, 3000)])
    assert latency.endswith("over 3 turns (routing p50 1.20 s, writing p50 2.50 s)")
    bare = chat_eval.Outcome("d", 0, turn, _reply("你好！"), score(turn, _reply("你好！"), True),
                             strict(turn, _reply("你好！")), 2.0)
    assert chat_eval.summary_lines([bare])[-1].endswith("over 1 turns")  # a gateway that does not say


def test_rule_day_takes_a_plan_of_places_on_their_own_days_as_those_days():
    """dev44's "Amman tomorrow and Petra the day after" was labelled with the days up to the last one: each place
    answered on its own day is right, though no place's data covers the whole span; a day named by no place is not."""
    tomorrow, after = forecast(GUANGZHOU, WEEK[1:2]), forecast(SHENZHEN, [dict(WEEK[2])])
    for question in ("Guangzhou tomorrow and Shenzhen the day after — weather for both?",
                     "Guangzhou tomorrow then Shenzhen in 2 days?", "明天去广州，后天去深圳，天气咋样"):
        plan = {"query": question, "lang": "en", "intent": "forecast", "cities": [GUANGZHOU, SHENZHEN], "days": 3}
        assert strict(plan, _reply("Guangzhou tomorrow 8.9 to 17.7°C; Shenzhen the day after tomorrow 14.1 to "
                                   "21.9°C.", tomorrow, after))["day"] is True, question
    one = {"query": "Guangzhou and Shenzhen for the next 3 days?", "lang": "en", "intent": "forecast",
           "cities": [GUANGZHOU, SHENZHEN], "days": 3}
    assert strict(one, _reply("Guangzhou tomorrow 8.9 to 17.7°C; Shenzhen the day after tomorrow 14.1 to 21.9°C.",
                              tomorrow, after))["day"] is False
