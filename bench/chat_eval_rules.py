"""The strict score of one reply: the nine rules of ../shared/eval/README.md, as a careful reader applies them.

Each rule returns True (holds), False (broken) or None (does not apply). A reply is strictly correct when no
rule that applies is broken. The rules read what the gateway returns (the calls with their structured results,
the images, the notices and the answer text) and the labels of the question; nothing of the gateway's own
checks is reused, so a gateway that fools itself does not fool this.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from bench.chat_eval_checks import WEEKEND_WORDS, haversine_km, numbers_in, reply_language

RULES = ("call", "day", "verdict", "figures", "language", "limits", "disclosure", "identity", "follow_up")
_MAX_DISTANCE_KM = 50.0

# Which tools may answer an intent (a comparison may also be made of one call per place).
INTENT_TOOLS: dict[str, set[str]] = {
    "current": {"get_current_weather", "get_forecast"},
    "forecast": {"get_forecast"},
    "precipitation": {"get_precipitation", "get_forecast"},
    "chart": {"get_weather_chart"},
    "temperature_range": {"find_cities_by_temperature"},
    "compare": {"compare_weather", "get_current_weather", "get_forecast"},
    "hourly": {"get_forecast", "get_precipitation"},
    "sun": {"get_forecast"},
    "aqi": {"get_air_quality"},
    "past": {"get_forecast", "get_precipitation"},
}
_DATA_INTENTS = {"current", "forecast", "precipitation", "temperature_range", "compare"}
_FEATURES = {"hourly", "sun", "aqi", "past"}
# The figures a feature question asks for, by the words it asks with (first match wins; none: any of them).
_HOUR_FIELDS = ("temperature", "feels_like", "precipitation_probability", "precipitation")
# An hour's or a past day's other quantities, when the question asks for one of them ("the wind at 3pm").
_WIND = re.compile(r"风|風|wind(?!\s*chill)|gust|breez", re.I)
_HOUR_WORDS = ((_WIND, ("wind_speed", "wind_gusts")), (re.compile(r"湿度|humid", re.I), ("humidity",)),
               (re.compile(r"云|雲|cloud", re.I), ("cloud_cover",)), (re.compile(r"能见度|visib", re.I), ("visibility",)),
               (re.compile(r"紫外线|\buv\b", re.I), ("uv_index",)))
_SUN_WORDS = ((re.compile(r"rise|日出|天亮|sunrise", re.I), ("sunrise",)),
              (re.compile(r"set|日落|天黑|sunset", re.I), ("sunset",)))
_POLLEN_FIELDS = ("alder_pollen", "birch_pollen", "grass_pollen", "mugwort_pollen", "olive_pollen", "ragweed_pollen")
_AQI_WORDS = ((re.compile(r"pollen|花粉", re.I), _POLLEN_FIELDS),
              (re.compile(r"pm\s*2\.?5|细颗粒", re.I), ("pm2_5",)), (re.compile(r"pm\s*10", re.I), ("pm10",)),
              (re.compile(r"臭氧|ozone|\bo3\b", re.I), ("ozone",)),
              (re.compile(r"aqi|指数", re.I), ("china_aqi", "us_aqi", "european_aqi", "us_aqi_max", "european_aqi_max")))
_AQI_FIELDS = ("pm2_5", "pm10", "ozone", "nitrogen_dioxide", "sulphur_dioxide", "carbon_monoxide", "china_aqi",
               "us_aqi", "european_aqi", "us_aqi_max", "european_aqi_max")
_PAST_WORDS = ((_WIND, ("wind_speed_max", "wind_gusts_max")),
               (re.compile(r"最高|high|max|warmest|hottest", re.I), ("temp_max",)),
               (re.compile(r"最低|low|min|coldest", re.I), ("temp_min",)),
               (re.compile(r"雨|雪|降水|rain|snow|precipitation", re.I), ("precipitation_sum",)))
_PAST_FIELDS = ("temp_max", "temp_min", "precipitation_sum")
_ZH_NUMERALS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_CLOCK_TIME = re.compile(r"(?<![\d:])(\d{1,2})[:：](\d{2})(?!\d)\s*([ap]\.?m\.?)?"
                         r"|(下午|傍晚|晚上)?([\d一二两三四五六七八九十]{1,3})点(?:(\d{1,2})分?|(半))?"
                         r"|(?<![\d.])(\d{1,2})\s*([ap]\.?m\.?)(?![a-z])", re.IGNORECASE)

_LIMIT = re.compile(r"抱歉|无法|不能|不支持|没有(这|该|相关|.{0,8}(数据|信息|资料))|查不到|找不到|只能|超出|超过.{0,6}范围|"
                    r"不在.{0,6}范围|不是.{0,6}(地方|城市)|\b(sorry|cannot|can't|unable|not able|don't have|do not "
                    r"have|not available|no data|only|beyond|outside|not a (real )?place|couldn't|could not)\b",
                    re.IGNORECASE)
_DUMP = re.compile(r"!\[|\]\(|https?://|www\.|\{\s*\"|\"\s*:|get_current_weather|get_forecast|get_precipitation|"
                   r"compare_weather|get_weather_chart|find_cities_by_temperature|weather__|tool_call|"
                   r"structured_content|Tool results", re.IGNORECASE)
_MEASURE = re.compile(r"-?\d+(?:\.\d+)?\s*(°|℃|℉|度|mm|毫米|%|km/h)")
_CELSIUS = re.compile(r"\d\s*(°C|℃|摄氏度)|celsius", re.IGNORECASE)
_FAHRENHEIT = re.compile(r"\d\s*(°F|℉|华氏度)|fahrenheit", re.IGNORECASE)
_OTHER_MODELS = re.compile(r"qwen|通义|千问|阿里|alibaba|openai|chatgpt|gpt-?\d|claude|anthropic|gemini|google|"
                           r"deepseek|llama|meta ai", re.IGNORECASE)
_ZH_NEGATION = re.compile(r"[不没无未别]|否")
_EN_NEGATION = re.compile(r"\b(no|not|never|none|without|unlikely|dry)\b|n't", re.IGNORECASE)
# A clause that gives the amount as nothing says no ("降水0毫米", "0 mm of rain").
_NO_AMOUNT = re.compile(r"(?<![\d.])0(?:\.0+)?\s*(?:毫米|厘米|mm|cm)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[，。,.;；!！?？\n]")
_YES_NO_QUESTION = re.compile(r"[吗么][？?\s]*$|要不要|会不会|^\s*(will|is|are|does|do|should|can)\b", re.IGNORECASE)

# Day words a reader takes as naming a day, with the offset they name (weekdays are resolved per place).
_ZH_DAYS = {"大后天": 3, "后天": 2, "明天": 1, "明日": 1, "明晚": 1, "今天": 0, "今日": 0, "今晚": 0, "今早": 0,
            "昨天": -1, "前天": -2, "大前天": -3}
_EN_DAYS = {"the day after tomorrow": 2, "day after tomorrow": 2, "tomorrow": 1, "today": 0, "tonight": 0,
            "this afternoon": 0, "this evening": 0, "this morning": 0, "yesterday": -1, "the day before yesterday": -2}
_ZH_WEEKDAYS = "一二三四五六日"
_EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_PART_OF_DAY = re.compile(r"今晚|明晚|今早|明早|早晨|清晨|晚上|夜里|夜间|凌晨|早上|上午|中午|下午|傍晚|tonight|morning|afternoon|evening|"
                          r"\bnight\b", re.IGNORECASE)
_TOPIC_WORDS = {"rain": ("雨", "降水", "伞", "rain", "wet", "umbrella", "shower", "dry"),
                "snow": ("雪", "snow")}


def strict_score(turn: dict[str, Any], reply: dict[str, Any], index: int, image_ok: bool,
                 today: dt.date | None = None) -> dict[str, bool | None]:
    """Every rule for one turn of a conversation (`index` 0 for its first question)."""
    call = rule_call(turn, reply, image_ok)
    day = rule_day(turn, reply)
    return {
        "call": call,
        "day": day,
        "verdict": rule_verdict(turn, reply),
        "figures": rule_figures(turn, reply),
        "language": rule_language(turn, reply),
        "limits": rule_limits(turn, reply),
        "disclosure": rule_disclosure(turn, reply),
        "identity": rule_identity(turn, reply),
        "follow_up": None if index == 0 or turn["intent"] in ("none", "limit") else (call is not False
                                                                                     and day is not False),
    }


def strictly_correct(rules: dict[str, bool | None]) -> bool:
    return all(result is not False for result in rules.values())


# --- the data of a reply ------------------------------------------------------------------------------------


def _calls(reply: dict[str, Any], tools: set[str] | None = None) -> list[dict[str, Any]]:
    """The successful calls (of `tools`), each with a structured result."""
    return [c for c in reply.get("tool_calls", []) if not c.get("is_error") and isinstance(
        c.get("structured_content"), dict) and (tools is None or c["tool"] in tools)]


def _places(call: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Each place a result is about, as {location, days, current}."""
    content = call["structured_content"]
    fahrenheit = (content.get("units") or {}).get("temperature") == "°F"  # °C is the rules' scale
    if "places" in content:
        for place in content["places"]:
            yield {"location": place.get("location") or {}, "days": place.get("days") or [],
                   "current": place.get("temperature"), "fahrenheit": fahrenheit}
    elif "location" in content:
        current = content.get("temperature") if call["tool"] == "get_current_weather" else None
        days = content.get("days") or content.get("points") or []
        if call["tool"] == "get_current_weather" and "today_max" in content:
            days = [{"date": content["time"][:10], "day": 0, "temp_max": content["today_max"],
                     "temp_min": content["today_min"]}]
        yield {"location": content["location"], "days": days, "current": current, "content": content,
               "fahrenheit": fahrenheit}


def _near(location: dict[str, Any], city: dict[str, Any]) -> bool:
    if "latitude" not in location:
        return False
    return haversine_km(location["latitude"], location["longitude"], city["lat"], city["lon"]) <= _MAX_DISTANCE_KM


def _place_data(reply: dict[str, Any], city: dict[str, Any], tools: set[str] | None = None) -> list[dict[str, Any]]:
    """The results about `city`, the nearest first: two places 18 km apart (酒泉, 嘉峪关) are each near both."""
    near = [place for call in _calls(reply, tools) for place in _places(call) if _near(place["location"], city)]
    return sorted(near, key=lambda place: haversine_km(place["location"]["latitude"], place["location"]["longitude"],
                                                       city["lat"], city["lon"]))


def _today(places: list[dict[str, Any]]) -> dt.date | None:
    """The place's local today, from a record's date and its offset."""
    for place in places:
        for record in place["days"]:
            if "date" in record and "day" in record:
                return dt.date.fromisoformat(record["date"]) - dt.timedelta(days=record["day"])
    return None


def _asked_offsets(turn: dict[str, Any], today: dt.date) -> set[int] | None:
    """The day offsets the question is about (None: no single day or span is labelled). A question labelled
    only with a count of days (the first dev file: "明天" as days 2) is about the one day it names, if that day
    ends the count ("two weeks of weather? our trip starts today" is about the fourteen days)."""
    if _is_weekend(turn):
        saturday = (5 - today.weekday()) % 7 if today.weekday() != 6 else -1
        return {saturday, saturday + 1}
    if "day" in turn:
        return {turn["day"]}
    if "weekday" in turn:
        if turn.get("week"):  # 下周三 (week 1), 下下周一 (week 2): that weekday of a later calendar week (from Monday)
            return {7 * turn["week"] - today.weekday() + turn["weekday"]}
        return {(turn["weekday"] - today.weekday()) % 7}
    if "span" in turn:  # the days a yes or no is over ("明后天会下雨吗": tomorrow and the day after)
        return set(range(*turn["span"]))
    named = {offset for _, offset in _day_mentions(turn["query"], today)}
    if "days" in turn and named == {turn["days"] - 1}:
        return named
    return None


_EARLIER_DAY = re.compile(r"[今明后後昨前]天|[周週星][一二三四五六日天]|星期|礼拜|禮拜|聽日|今晚|tomorrow|tmrw|today|tonight|"
                          r"(?:mon|tues|wednes|thurs|fri|satur|sun)day", re.IGNORECASE)


def _is_weekend(turn: dict[str, Any]) -> bool:
    """A question about the weekend: its own words, or a follow-up (labelled Saturday) of a weekend question that
    names no day of its own ("那普吉周六最高温多少度" after the weekend asks of Saturday), the latest day the
    conversation named being the weekend."""
    names_a_day = bool(re.search(r"[周週][一二三四五六日天]|星期|礼拜|禮拜|saturday|sunday|sat|sun", turn["query"],
                                 re.IGNORECASE))
    if any(word in turn["query"].lower() for word in WEEKEND_WORDS):
        return True
    if turn.get("weekday") != 5 or names_a_day:
        return False
    # the latest earlier turn that names a day decides ("那墾丁" after "花蓮呢" after "台北這週末會下雨嗎")
    for text in reversed(turn.get("earlier", [])):
        if any(word in text.lower() for word in WEEKEND_WORDS):
            return True
        if _EARLIER_DAY.search(text):
            return False
    return False


def _span(turn: dict[str, Any]) -> range | None:
    span = turn.get("span", turn.get("days"))
    if span is None:
        return None
    return range(*span) if isinstance(span, list) else range(span)


# --- the rules ----------------------------------------------------------------------------------------------


def rule_call(turn: dict[str, Any], reply: dict[str, Any], image_ok: bool) -> bool | None:
    """1. The intent's tool ran without error, every expected place resolved, range bounds and chart as asked."""
    intent = turn["intent"]
    if intent == "none":
        return not reply.get("tool_calls")
    tools = INTENT_TOOLS.get(intent)
    if tools is None:
        return None
    calls = _calls(reply, tools)
    if not calls:
        return False
    if intent == "temperature_range":
        return any(_same(c["structured_content"].get("min_temp"), turn.get("min_c"))
                   and _same(c["structured_content"].get("max_temp"), turn.get("max_c")) for c in calls)
    if intent == "chart":
        kinds = {c["structured_content"].get("kind") for c in calls}
        if turn.get("chart") not in kinds or not reply.get("images") or not image_ok:
            return False
    return all(_place_data(reply, city, tools) for city in turn.get("cities", []))


def _same(used: Any, expected: Any) -> bool:
    if used is None or expected is None:
        return used is None and expected is None
    return abs(float(used) - float(expected)) < 1e-6


def rule_day(turn: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    """2. Answered from the asked day's record, with no wrong day word, and no figure of another day."""
    if turn["intent"] == "temperature_range":
        return _range_day(turn, reply)
    if turn["intent"] not in INTENT_TOOLS:
        return None
    labelled = any(key in turn for key in ("day", "weekday", "days", "span")) or _is_weekend(turn)
    places = [p for city in turn.get("cities", []) for p in _place_data(reply, city, INTENT_TOOLS[turn["intent"]])]
    if not places:
        return False if turn.get("cities") and labelled else None
    today = _today(places)
    if today is None:  # current conditions only: right for a question about now
        return turn.get("day", 0) == 0 and "weekday" not in turn and turn.get("days", 1) <= 1
    asked = _asked_offsets(turn, today)
    single = asked is not None
    if asked is None:
        span = _span(turn)
        if span is None:
            return None
        asked = set(span)
        legs = _legs(turn["query"], today)
        if len(turn.get("cities", [])) >= 2 and len(legs) >= 2 and legs <= asked:
            asked = legs  # "Lisbon tomorrow then Seville in 3 days", labelled the days to the last: the days named
    covered = {record["day"] for place in places for record in place["days"] if "day" in record}
    if not asked <= covered and not (asked == {0} and any(p["current"] is not None for p in places)):
        return False
    if _wrong_day_words(reply, asked, today):
        return False
    return not (single and _other_days_figures(reply, places, asked))


def _range_day(turn: dict[str, Any], reply: dict[str, Any]) -> bool:
    calls = _calls(reply, {"find_cities_by_temperature"})
    wanted = turn.get("days", 1) - 1 if "day" not in turn else turn["day"]
    for call in calls:
        content = call["structured_content"]
        if "weekday" in turn and isinstance(content.get("day"), int) and isinstance(content.get("date"), str):
            today = dt.date.fromisoformat(content["date"]) - dt.timedelta(days=content["day"])
            if content["day"] in (_asked_offsets(turn, today) or ()):  # a weekday, counted from the search's today
                return True
        elif content.get("day") == wanted:
            return True
    return False


_COUNTED = re.compile(r"\bin (\d{1,2}|two|three|four|five|six|seven) days\b|(\d{1,2}|[两二三四五六七])天(?:后|以后|之后)",
                      re.IGNORECASE)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "两": 2, "二": 2, "三": 3, "四": 4,
           "五": 5, "六": 6, "七": 7}


def _legs(question: str, today: dt.date) -> set[int]:
    """The days a plan of several places names, each place its own ("Amman tomorrow and Petra the day after",
    "Samarkand tomorrow, Bukhara in 3 days"): its day words, counted days, and the day after the one named."""
    named = {offset for _, offset in _day_mentions(question, today)}
    named |= {int(count) if count.isdigit() else _COUNTS[count.lower()]
              for match in _COUNTED.finditer(question) for count in match.groups() if count}
    if len(named) == 1 and re.search(r"\bthe (?:day|night) after\b(?!\s+(?:tomorrow|tmrw))|第二天|次日", question,
                                     re.IGNORECASE):
        named.add(min(named) + 1)
    return named


def _wrong_day_words(reply: dict[str, Any], allowed: set[int], today: dt.date) -> list[str]:
    """Day words in the answer that name a day outside `allowed` (offsets from the place's today)."""
    text = _answer(reply)
    wrong = []
    for word, offset in _day_mentions(text, today):
        if offset not in allowed:
            wrong.append(word)
    return wrong


def _day_mentions(text: str, today: dt.date) -> Iterator[tuple[str, int]]:
    lowered = text.lower()
    rest = lowered
    for words in (_EN_DAYS, _ZH_DAYS):
        for word in sorted(words, key=len, reverse=True):
            if word in rest:
                yield word, words[word]
                rest = rest.replace(word, " ")
    for match in re.finditer(r"(下*)(?:周|星期|礼拜)([一二三四五六日]|天(?!气))", text):
        weekday = _ZH_WEEKDAYS.index(match[2].replace("天", "日"))
        dated = re.search(r"(\d{1,2})月(\d{1,2})[日号]\s*$", text[:match.start()])
        if dated:  # "12月4日 周五": the weekday of that date, not the next Friday
            yield match[0], _nearest_offset(int(dated[1]), int(dated[2]), today)
        elif match[1]:  # 下周X: X of the next calendar week, 下下周X of the one after
            yield match[0], 7 * len(match[1]) - today.weekday() + weekday
        else:
            yield match[0], (weekday - today.weekday()) % 7
    for index, name in enumerate(_EN_WEEKDAYS):
        for match in re.finditer(rf"\b(next )?{name}\b", lowered):
            dated = _dated_offset(lowered[match.end():match.end() + 16], today)  # "wednesday 9 dec": that one
            if dated is not None:
                yield name, dated
            else:  # "next saturday": of the next calendar week, as the labels take it (下周六)
                yield match[0], 7 - today.weekday() + index if match[1] else (index - today.weekday()) % 7


_MONTH_ABBREVIATIONS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _dated_offset(after: str, today: dt.date) -> int | None:
    """The offset of the date written right after a weekday ("9 dec", ", december 9"), nearest today; None if none."""
    # ("december 5th": an ordinal too)
    match = re.match(r",?\s+(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]{3})|,?\s+([a-z]{3})[a-z]*\.?\s+(\d{1,2})"
                     r"(?:st|nd|rd|th)?\b", after)
    if not match:
        return None
    day, month = (match[1], match[2]) if match[1] else (match[4], match[3])
    if month not in _MONTH_ABBREVIATIONS:
        return None
    return _nearest_offset(_MONTH_ABBREVIATIONS.index(month) + 1, int(day), today)


def _nearest_offset(month: int, day: int, today: dt.date) -> int | None:
    """The offset from `today` of the date `month`/`day` nearest it (of last, this or next year)."""
    dates = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            dates.append(dt.date(year, month, day))
        except ValueError:
            continue
    return min(((d - today).days for d in dates), key=abs) if dates else None


def _other_days_figures(reply: dict[str, Any], places: list[dict[str, Any]], offsets: set[int]) -> bool:
    """Whether the answer quotes temperatures found only in records of days it was not asked about."""
    asked, other = set(), set()
    for place in places:
        if place["current"] is not None:
            asked.add(round(float(place["current"]), 1))
        for key in ("feels_like", "today_max", "today_min"):
            if isinstance(place.get("content", {}).get(key), int | float):
                asked.add(round(float(place["content"][key]), 1))
        for record in place["days"]:
            values = {round(float(record[k]), 1) for k in ("temp_min", "temp_max") if isinstance(record.get(k), int | float)}
            (asked if record.get("day") in offsets else other).update(values)
    quoted = {round(n, 1) for n in numbers_in(_answer(reply)) if re.search(
        rf"{re.escape(_shown(n))}\s*(°|℃|度|~|～| to)", _answer(reply))}
    return bool({n for n in quoted if n in other and n not in asked})


def _shown(number: float) -> str:
    return f"{number:g}"


def rule_verdict(turn: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    """3. Yes/no, hot/cold and which-place answers agree with the data for the asked day or span."""
    if "yesno" in turn:
        return _yes_no(turn, reply)
    if "judge" in turn:
        return _judge(turn, reply)
    if "compare" in turn:
        return _compare(turn, reply)
    return None


def _records_for(turn: dict[str, Any], reply: dict[str, Any], tools: set[str]) -> list[dict[str, Any]]:
    places = [p for city in turn.get("cities", []) for p in _place_data(reply, city, tools)]
    today = _today(places)
    if today is None:
        return []
    offsets = _asked_offsets(turn, today)
    if offsets is None or "span" in turn:
        span = _span(turn)
        offsets = set(span) if span is not None else offsets
    return [r for p in places for r in p["days"] if offsets is None or r.get("day") in offsets]


# The WMO weather codes of snow (snow fall, snow grains, snow showers): a forecast day has no snowfall sum.
_SNOW_CODES = {71, 73, 75, 77, 85, 86}
# ... and of rain (drizzle, rain, freezing rain, rain showers, thunderstorms).
_RAIN_CODES = {51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 80, 81, 82, 95, 96, 99}


def _yes_no(turn: dict[str, Any], reply: dict[str, Any]) -> bool:
    topic = turn["yesno"]
    said = _polarity(_answer(reply), _TOPIC_WORDS[topic])
    nows = [p["content"] for city in turn.get("cities", []) for p in _place_data(reply, city, {"get_current_weather"})
            if p.get("current") is not None] if turn["intent"] == "current" else []
    if nows:  # "现在下雨吗", "is it snowing right now?": judged by the weather now
        if topic == "snow":
            wet = any((n.get("snowfall") or 0) > 0 or n.get("weather_code") in _SNOW_CODES for n in nows)
        else:
            wet = any((n.get("rain") or n.get("precipitation") or 0) > 0 or n.get("weather_code") in _RAIN_CODES
                      for n in nows)
        return said is not None and said == wet
    hours = _hours_asked(turn, reply)
    if not hours and "hour" in turn and turn["intent"] in INTENT_TOOLS:  # "will it rain around 6am tomorrow?"
        hours = [h for h in _asked_records(turn, reply, "hours") if h.get("hour") == turn["hour"]]
    if hours:  # "今晚会下雨吗": judged by the hours of that part of the day (or the hour asked)
        wet = [h for h in hours if (h.get("snowfall") or 0) > 0] if topic == "snow" else [
            h for h in hours if (h.get("precipitation") or 0) > 0 or (h.get("precipitation_probability") or 0) >= 50]
        return said is not None and said == bool(wet)
    records = _records_for(turn, reply, {"get_precipitation", "get_forecast"})
    if not records:
        return False
    if topic == "rain" and all("rain_sum" in r for r in records):
        # A day whose record splits its precipitation (a past day): 5.6 mm that all fell as snow is no rain, nor is
        # a day of snow with a few tenths of a millimetre of rain in it (4.4 mm, 0.4 of it rain: "不会下雨，会下雪").
        yes = any((r.get("rain_sum") or 0) >= 1 or r.get("rain_expected") for r in records)
        no = all(((r.get("rain_sum") or 0) < 0.2 or ((r.get("snow_expected") or r.get("weather_code") in _SNOW_CODES)
                                                     and (r.get("rain_sum") or 0) < 1))
                 and not r.get("rain_expected") for r in records)
    elif topic == "rain":
        yes = any((r.get("precipitation_sum") or 0) >= 1 or (r.get("probability_max") or r.get(
            "precipitation_probability") or 0) >= 50 or r.get("rain_expected") for r in records)
        no = all((r.get("precipitation_sum") or 0) < 0.2 and (r.get("probability_max") or r.get(
            "precipitation_probability") or 0) < 30 for r in records)
        # a day of snow (its weather code), said to bring snow: "any rain coming?" answered "no rain, snow is
        # expected" is right too
        no = no or (all(r.get("weather_code") in _SNOW_CODES for r in records)
                    and bool(re.search(r"snow|雪", _answer(reply), re.IGNORECASE)))
    else:
        yes = any((r.get("snowfall_sum") or 0) > 0 or r.get("snow_expected") or r.get("weather_code") in _SNOW_CODES
                  for r in records)
        no = not yes
    return said is not None and ((said and yes) or (not said and no))


def _hours_asked(turn: dict[str, Any], reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The hour records of the asked day for a question about a part of it (今晚, this afternoon), if any."""
    if not _PART_OF_DAY.search(turn["query"]):
        return []
    records = []
    for call in _calls(reply, {"get_precipitation", "get_forecast"}):
        content = call["structured_content"]
        if any(_near(content.get("location") or {}, city) for city in turn.get("cities", [])):
            asked = {r.get("day") for r in content.get("days") or []} & {turn.get("day", 0)}
            records += [h for h in content.get("hours") or [] if asked]
    return records


def _polarity(text: str, topic_words: tuple[str, ...]) -> bool | None:
    """Yes (True) or no (False), read from the first clause that speaks of the topic (or the first clause)."""
    clauses = [c for c in _CLAUSE.split(text) if c.strip()]
    if not clauses:
        return None
    lowered = [c.lower().strip() for c in clauses]
    if lowered[0] in ("yes", "是的", "是", "会", "要", "需要"):
        return True
    if lowered[0] in ("no", "不", "不会", "不用", "否", "不需要"):
        return False
    # (a verdict said after the figures is read before them: "晴，降水概率4%，…。不会下雨")
    topical = [c for c in lowered if any(w in c for w in topic_words)]
    about = next((c for c in topical if not re.search(r"\d", c)), topical[0] if topical else lowered[0])
    return not (_ZH_NEGATION.search(about) or _EN_NEGATION.search(about) or _NO_AMOUNT.search(about))


def _judge(turn: dict[str, Any], reply: dict[str, Any]) -> bool:
    places = [p for city in turn["cities"] for p in _place_data(reply, city)]
    if not places:
        return False
    temps = [_celsius(p, p["current"]) for p in places if p["current"] is not None]
    today = _today(places)
    offsets = (_asked_offsets(turn, today) if today else None) or {turn.get("day", 0)}  # a weekday's too
    highs = [_celsius(p, r["temp_max"]) for p in places for r in p["days"] if r.get("day", 0) in offsets
             and isinstance(r.get("temp_max"), int | float)]
    if "hour" in turn:  # "明天早上5点坐热气球的时候冷不冷": that hour's temperature, not the day's high
        fahrenheit = any(p.get("fahrenheit") for p in places)
        hours = [float(h["temperature"]) for h in _asked_records(turn, reply, "hours")
                 if h.get("hour") == turn["hour"] and isinstance(h.get("temperature"), int | float)]
        temps, highs = ([(t - 32) * 5 / 9 for t in hours] if fahrenheit else hours), []
    if not temps and not highs:
        return False
    if turn["judge"] == "hot":
        value = max(temps + highs)
        said = _polarity(_answer(reply), ("热", "hot", "warm", "暖"))
        return said is not None and ((said and value >= 25) or (not said and value < 30))
    value = min(temps or highs)
    said = _polarity(_answer(reply), ("冷", "cold", "chilly", "凉", "cool"))
    return said is not None and ((said and value <= 15) or (not said and value >= 8))


def _celsius(place: dict[str, Any], value: float) -> float:
    """A temperature of the place's result in °C: a hot or cold verdict is judged on that scale."""
    return (float(value) - 32) * 5 / 9 if place.get("fahrenheit") else float(value)


def _compare(turn: dict[str, Any], reply: dict[str, Any]) -> bool:
    spec = turn["compare"]
    values = []
    for city, names in zip(turn["cities"], spec["names"]):
        places = _place_data(reply, city)
        if not places:
            return False
        values.append((_metric(places, turn, spec), names))
    if any(value is None for value, _ in values):
        return False
    best = (max if spec["dir"] == "max" else min)(value for value, _ in values)
    winners = [names for value, names in values if value == best]
    named = _first_named(_answer(reply), [names for _, names in values])
    return named is not None and (len(winners) > 1 or named in winners)


def _metric(places: list[dict[str, Any]], turn: dict[str, Any], spec: dict[str, Any]) -> float | None:
    metric = spec["metric"]
    if metric == "temperature":
        currents = [float(p["current"]) for p in places if p["current"] is not None]
        return currents[0] if currents else None
    today = _today(places)
    if today is None:
        return None
    if spec.get("agg") == "sum":
        span = set(_span({"span": spec.get("span", 7)}) or [])
        records = [r for p in places[:1] for r in p["days"] if r.get("day") in span]
        if not records or len({r.get("day") for r in records}) < len(span):
            return None
        return round(sum(float(r.get(metric) or 0) for r in records), 1)
    offsets = _asked_offsets(turn, today) or {0}
    records = [r for p in places[:1] for r in p["days"] if r.get("day") in offsets]
    return float(records[0][metric]) if records and isinstance(records[0].get(metric), int | float) else None


# Apostrophes a name may be written with: geonames' "Nuku‘alofa" is the question's "Nuku'alofa".
_APOSTROPHES = str.maketrans({"‘": "'", "’": "'", "ʻ": "'", "ʼ": "'", "`": "'"})


def _first_named(text: str, candidates: list[list[str]]) -> list[str] | None:
    """The names of the candidate named first in the text, spelt with or without accents and spaces ("Cadiz" is
    Cádiz, "Sapa" Sa Pa)."""
    first: tuple[int, list[str]] | None = None
    text = _plain_name(text)
    for names in candidates:
        positions = [text.find(_plain_name(name)) for name in names if name and _plain_name(name) in text]
        if positions and (first is None or min(positions) < first[0]):
            first = (min(positions), names)
    return first[1] if first else None


def _plain_name(text: str) -> str:
    """A text as names are compared in it: without accents, spaces, hyphens, full stops or curly apostrophes,
    casefolded ("St Anton" is "St. Anton")."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_APOSTROPHES))
    return re.sub(r"[\s.-]+", "", "".join(c for c in decomposed if not unicodedata.combining(c))).casefold()


def rule_figures(turn: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    """4. Each number comes from the tool results or the question; a data answer quotes some."""
    calls = reply.get("tool_calls", [])
    quoted = numbers_in(_answer(reply))
    if not calls:
        return None if turn["intent"] == "none" else not _MEASURE.search(_answer(reply))
    known = numbers_in(turn["query"]) + [n for c in calls for n in numbers_in(json.dumps(
        [c.get("structured_content"), c.get("text"), c.get("arguments")], ensure_ascii=False))]
    if not _in_asked_units(turn, reply):
        return False
    if not quoted:  # a data answer quotes its data; a yes or no backed by the verdict may stand alone
        return turn["intent"] not in _DATA_INTENTS or "yesno" in turn or bool(_YES_NO_QUESTION.search(turn["query"]))
    return all(any(abs(abs(q) - abs(k)) < 0.051 or round(k) == q for k in known) for q in quoted)


def _in_asked_units(turn: dict[str, Any], reply: dict[str, Any]) -> bool:
    """Temperatures in the scale asked (a question labelled `units: imperial` asks for °F): the results fetched in
    it, and no figure in the answer marked in the other one."""
    wanted, other = ("°F", _CELSIUS) if turn.get("units") == "imperial" else ("°C", _FAHRENHEIT)
    fetched = [c["structured_content"].get("units", {}).get("temperature", "°C") for c in _calls(reply)
               if c["tool"] not in ("get_air_quality",)]
    return all(unit == wanted for unit in fetched) and not other.search(_answer(reply))


def rule_language(turn: dict[str, Any], reply: dict[str, Any]) -> bool:
    """5. The whole reply in the user's language, in sentences: no tool output, names, JSON, URLs or images."""
    text = reply.get("response", "")
    return bool(text.strip()) and reply_language(text) == turn["lang"] and not _DUMP.search(text)


def rule_limits(turn: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    """6. A question the tools cannot answer gets the limit said, and no invented figures; a feature question
    (hourly, sun, aqi, past) gets the figure it asks for, from a tool result for that place, day and hour."""
    text = _answer(reply)
    if turn["intent"] == "limit":
        return bool(_LIMIT.search(text)) and not _MEASURE.search(text)
    if turn["intent"] not in _FEATURES:
        return None
    if turn["intent"] == "sun":
        times = _sun_times(turn, reply)
        if _DAY_LENGTH.search(turn["query"]) and _durations(text) & _daylight_minutes(turn, reply):
            return True  # "how long is the day": the day's length answers it as well as its two ends (0 h, polar)
        if not times and _polar(turn, reply):  # no sunrise or no sunset that day: saying so is the answer
            return bool(_POLAR_WORDS.search(text))
        return bool(times) and bool(_clock_times(text) & times)
    values = _feature_values(turn, reply)  # magnitudes, as rule 4 compares them: "零下8.2°C" is -8.2
    return any(abs(abs(q) - abs(v)) < 0.051 or round(abs(v)) == abs(q) for q in numbers_in(text) for v in values)


def _asked_records(turn: dict[str, Any], reply: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The records under `key` ("days", "hours") of the asked day, in results of the feature's tools for the place."""
    day = turn.get("day", 0)
    records = []
    for city in turn.get("cities", []):
        for call in _calls(reply, INTENT_TOOLS[turn["intent"]]):
            content = call["structured_content"]
            if not _near(content.get("location") or {}, city):
                continue
            days = content.get("days") or []
            today = _today([{"days": days}])
            if key == "current":
                records += ([content["current"]] if day == 0 and "weekday" not in turn
                            and isinstance(content.get("current"), dict) else [])
                continue
            if today is None:
                continue
            dates = {(today + dt.timedelta(days=offset)).isoformat()
                     for offset in _asked_offsets(turn, today) or {day}}  # a weekday counted at the place
            records += [record for record in content.get(key) or [] if record.get("date") in dates]
    return records


def _fields(query: str, words: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...],
            default: tuple[str, ...]) -> tuple[str, ...]:
    return next((fields for pattern, fields in words if pattern.search(query)), default)


def _feature_values(turn: dict[str, Any], reply: dict[str, Any]) -> list[float]:
    """The figures the question asks for: the asked hour's (its temperature, feels-like, chance and amount of
    precipitation), the place's pollutant or index named (now and for the asked day), the asked past day's."""
    intent, query = turn["intent"], turn["query"]
    if intent == "hourly":
        records = [h for h in _asked_records(turn, reply, "hours") if "hour" not in turn or h.get("hour") == turn["hour"]]
        fields = _fields(query, _HOUR_WORDS, _HOUR_FIELDS)
    elif intent == "aqi":
        records = _asked_records(turn, reply, "current") + _asked_records(turn, reply, "days")
        fields = _fields(query, _AQI_WORDS, _AQI_FIELDS)
    else:
        records = _asked_records(turn, reply, "days")
        fields = _fields(query, _PAST_WORDS, _PAST_FIELDS)
    values = []
    for record in records:
        for field in fields:
            value = record.get(field)
            value = value.get("aqi") if isinstance(value, dict) else value
            if isinstance(value, int | float) and not isinstance(value, bool):
                values.append(float(value))
    return values


def _sun_times(turn: dict[str, Any], reply: dict[str, Any]) -> set[str]:
    """The asked day's sunrise and/or sunset (as the question asks) at the place, as HH:MM."""
    fields = _fields(turn["query"], _SUN_WORDS, ("sunrise", "sunset"))
    return {record[field][11:16] for record in _asked_records(turn, reply, "days") for field in fields
            if isinstance(record.get(field), str)}


_POLAR_WORDS = re.compile(r"polar (?:night|day)|极夜|极昼|(?:does not|doesn't|won't|will not|never) (?:rise|set)|"
                          r"no (?:sunrise|sunset)|没有日[出落]|不(?:升起|落)", re.IGNORECASE)


_DAY_LENGTH = re.compile(r"how long is the day|length of (?:the )?day|day ?length|daylight|hours of (?:day|sun)light|"
                         r"白天(?:能|会)?有?多长|白昼|日照时[长间]|昼长", re.IGNORECASE)
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(?:小时|个小时|h\b|hours?|hrs?)\s*(?:and\s*)?(?:(\d+)\s*(?:分钟|分|min|minutes?|m\b))?",
                       re.IGNORECASE)


def _durations(text: str) -> set[int]:
    """The lengths of time a reply gives ("7小时46分", "7 h 46 min", "10.5 hours"), in whole minutes."""
    return {round(float(match[1]) * 60 + int(match[2] or 0)) for match in _DURATION.finditer(text)}


def _daylight_minutes(turn: dict[str, Any], reply: dict[str, Any]) -> set[int]:
    """The asked day's length of daylight at the place, in minutes, to the minute either way."""
    minutes = [record["daylight_duration"] / 60 for record in _asked_records(turn, reply, "days")
               if isinstance(record.get("daylight_duration"), int | float)]
    return {int(m) + shift for m in minutes for shift in (-1, 0, 1)}


def _polar(turn: dict[str, Any], reply: dict[str, Any]) -> bool:
    """Whether the asked day's record at the place has no sunrise or sunset (polar night or day)."""
    fields = _fields(turn["query"], _SUN_WORDS, ("sunrise", "sunset"))
    records = _asked_records(turn, reply, "days")
    return bool(records) and all(record.get(field) is None for record in records for field in fields)


def _clock_times(text: str) -> set[str]:
    """The clock times a reply gives, as HH:MM (下午4点50分 and 4:50 pm are 16:50; a bare 4:50 may be either)."""
    found = set()
    for match in _CLOCK_TIME.finditer(text):
        later = bool(match[3] and match[3].lower().startswith("p")) or bool(match[4]) or bool(
            match[9] and match[9].lower().startswith("p"))
        hour = _clock_number(match[1] or match[5] or match[8])
        minute = int(match[2] or match[6] or 0) + (30 if match[7] else 0)
        for h in ({hour + 12} if later and hour < 12 else {hour, hour + 12} if hour < 12 and not (
                match[1] and match[1].startswith("0")) else {hour}):
            found.add(f"{h % 24:02d}:{minute:02d}")
    return found


def _clock_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    tens, ten, ones = text.partition("十")
    if not ten:
        return _ZH_NUMERALS[text]
    return (_ZH_NUMERALS[tens] if tens else 1) * 10 + (_ZH_NUMERALS[ones] if ones else 0)


def rule_disclosure(turn: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    """7. Simulated data is said to be simulated, in the user's language."""
    simulated = any(c.get("structured_content", {}).get("source") == "simulated" for c in _calls(reply))
    if not simulated:
        return None
    text = reply.get("response", "")
    return ("模拟" in text) if turn["lang"] == "zh" else ("simulated" in text.lower())


def rule_identity(turn: dict[str, Any], reply: dict[str, Any]) -> bool | None:
    """8. Asked who it is, it is this weather assistant, not another company's model."""
    if not turn.get("identity"):
        return None
    text = reply.get("response", "")
    return bool(re.search(r"天气助手|weather assistant", text, re.IGNORECASE)) and not _OTHER_MODELS.search(text)


def _answer(reply: dict[str, Any]) -> str:
    """The answer without the notices the gateway adds (they are judged by rule 7)."""
    text = reply.get("response", "")
    for notice in reply.get("notices", []):
        text = text.replace(notice.get("text", ""), "")
    return text.strip()
