"""More of how the gateway reads the days, clock times and quantities a question names: shorthand for tomorrow
and tonight, days counted in weeks, hours said with a part of the day or in another language, the sea's
temperature asked as no tool has it, two days joined into a run. Pure text functions, and the gateway process over
HTTP with the real weather server (simulated data) and the scripted LLM where the call and the answer matter."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.support.gateway_processes import weather_call as call

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.route_arguments.days import (
    now_asked,
    past_midnight,
    question_day,
    with_asked_day,
    without_unasked_span,
)
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.clock import clock_times, hour_glosses, parts_of_day
from mcp_chat_app.chat.text.day_words import asked_day, day_words, glossed, names_the_day_after, unsupported_present
from mcp_chat_app.chat.text.quantities import asked_quantities
from mcp_chat_app.config import CONFIG_DIR

VOCABULARY = load_assistant(CONFIG_DIR / "assistant.json").vocabulary
MONDAY = dt.date(2026, 3, 2)
DAY = {"anyOf": [{"type": "integer"}, {"type": "string", "format": "date"}], "default": 0,
       "description": "The (first) day: an offset from today (-1 = yesterday) or 'YYYY-MM-DD'"}
FORECAST = {"properties": {"city": {"type": "string"}, "day": DAY, "days": {
    "type": "integer", "default": 1, "description": "How many days from that day on: 1 = that day only"}},
    "required": ["city"]}


@pytest.mark.parametrize("question, offset", [
    ("whats tmrw looking like in Ipoh", 1), ("tmr in Ipoh?", 1), ("tmw in Ipoh?", 1), ("rain 2morrow?", 1),
    ("tomoz in Leeds, will it be cold?", 1), ("2mrw in Hanoi", 1), ("what about 2morow", 1),
    ("day after tmw?", 2), ("Ipoh tonite?", 0), ("Ipoh 2nite", 0),
    ("is it boiling in Gao rn", 0), ("humidity in Bridgetown atm?", 0),  # "right now", "at the moment"
])
def test_shorthand_for_tomorrow_and_tonight_is_read_as_the_day(question, offset):
    asked = asked_day(question, MONDAY)
    assert (asked.offset, asked.span) == (offset, False)
    if offset:
        assert glossed(question, MONDAY, VOCABULARY).endswith(f"{offset} day{'s' * (offset > 1)} from today)")


def test_shorthand_for_the_weekend_and_wednesday_is_read_as_those_days():
    """"will it snow in denver this wknd" was called for today; "tromso next week weds" for no day of its own."""
    assert day_words("will it snow in denver this wknd") == day_words("will it snow in denver this weekend")
    assert day_words("tromso next week weds, brutally cold?") == {"next week", "wednesday"}
    # a day shortened before what is asked of it ("yelowknife wed forecast?" was called for today)
    assert day_words("yelowknife wed forecast? got an aurora tour booked") == {"wednesday"}
    assert day_words("we wed in June, what's the forecast?") == set()


@pytest.mark.parametrize("question, offset", [
    ("明後日の長崎の天気を教えてください。英語で答えてください。", 2), ("あした東京は雨？", 1),  # Japanese
    ("台北後天會下雨嗎", 2), ("高雄大後天熱嗎", 3),  # traditional characters
    ("听日Tamarindo天气点样", 1), ("聽日香港會唔會落雨", 1), ("琴日广州几热", -1),  # Cantonese
    ("香港後日天氣點樣", 2), ("澳门大后日落唔落雨", 3), ("三天后日出几点", 3), ("两天后日落几点", 2),  # 後日, not 后 before 日出
    # 礼拜 as 周, and 礼拜天 before 气 is no Sunday ("台北這禮拜天氣如何" was called for Sunday)
    ("下礼拜三冷吗", 9), ("下个星期五会下雨吗", 11), ("礼拜天去爬山冷不冷", 6), ("星期天气温多少", 6),
])
def test_near_days_in_japanese_and_traditional_characters(question, offset):
    asked = asked_day(languages.in_simplified(question), MONDAY)
    assert (asked.offset, asked.span) == (offset, False)


def test_a_day_of_the_weekend_named_beside_it_is_the_day_asked():
    for question in ("台南这周末要去玩，礼拜六天气如何", "this weekend in Tainan - what about Saturday?"):
        assert asked_day(question, MONDAY).offset == 5, question
    assert asked_day("周末会下雨吗", MONDAY) is None


def test_this_week_in_its_spoken_forms_is_the_week_not_its_sunday():
    for question in ("台北這禮拜天氣如何", "这个星期天气怎么样", "这星期会下雨吗"):
        assert day_words(languages.in_simplified(question)) == {"本周"}, question


def test_this_week_with_one_is_the_week():
    assert day_words("这一周杭州、苏州、南京哪个城市最高温最高？") == {"本周"}
    assert asked_day("这一周杭州天气", MONDAY).span  # the days from today on, no one day


@pytest.mark.parametrize(("question", "offset"), [
    ("上周五乌鲁木齐下雪了吗", -3), ("上星期天上海多少度", -1), ("上个礼拜一北京冷吗", -7),
    ("What was the weather in Berlin last Tuesday?", -6), ("last sunday in paris?", -1), ("last monday?", -7),
])
def test_last_weeks_weekday_is_a_day_past_not_the_coming_one(question, offset):
    """"上周五…下雪了吗" and "last Tuesday" were called for the coming Friday and Tuesday, and answered as past."""
    assert asked_day(question, MONDAY).offset == offset, question


def test_shorthand_for_tonight_is_a_part_of_the_day():
    assert list(parts_of_day("Ipoh tonite?", VOCABULARY)) == ["tonite"]
    assert day_words("Ipoh 2nite, and tmw") == {"today", "tomorrow"}
    assert day_words("atmw, 2mrwx") == set()  # within other words, no day


@pytest.mark.parametrize("question, today, offset", [
    ("What's the weather going to be in Split three weeks from now?", MONDAY, 21),
    ("And three weeks from now?", MONDAY, 21), ("Oslo in 2 weeks?", MONDAY, 14), ("Oslo in a week's time", MONDAY, 7),
    ("Rome two weeks later", MONDAY, 14), ("Perth in a fortnight", MONDAY, 14), ("Oslo 5 days later", MONDAY, 5),
    ("两个星期后北京冷吗", MONDAY, 14), ("三个礼拜以后上海怎么样", MONDAY, 21), ("两周后天气如何", MONDAY, 14),  # not 后天
    # A weekday of the week counted to: that week's (a week runs Monday to Sunday), not the coming one.
    ("三周后的周六南宁会下雨吗", MONDAY, 26), ("三周后的周六南宁会下雨吗", dt.date(2026, 3, 8), 20),
    ("一周后的星期天呢", MONDAY, 13), ("Saturday in three weeks in Rome?", MONDAY, 26),
    # Weeks from a weekday: from the coming one.
    ("a week from Friday in Oslo", MONDAY, 11), ("two weeks from Monday in Oslo", MONDAY, 14),
    # Months: past any forecast, counted as 30 days each; "的今天" is that date, not today.
    ("两个月后的今天台州会下雨吗", MONDAY, 60), ("一个半月后阿克苏会下雪吗", MONDAY, 45),
    ("Will it snow in Oslo in two months?", MONDAY, 60),
    ("半年后去札达，天气怎么样", MONDAY, 182), ("a year from now in Rome", MONDAY, 365), ("两年后呢", MONDAY, 730),
])
def test_a_day_counted_in_weeks_from_today_is_that_one_day(question, today, offset):
    asked = asked_day(question, today)
    assert (asked.offset, asked.span, asked.weekday) == (offset, False, None)
    assert glossed(question, today, VOCABULARY).endswith(f"({asked.word} = {offset} days from today)")


@pytest.mark.parametrize("question", ["Oslo over the next three weeks", "北京这两周"])
def test_weeks_counted_as_a_stretch_name_no_single_day(question):
    assert asked_day(question, MONDAY) is None


def test_the_next_two_weeks_are_fourteen_days_from_today():
    """(within the forecast's sixteen days: test_gateway_follow_ups counts them for the call)"""
    asked = asked_day("in the next 2 weeks in Rome", MONDAY)
    assert asked is not None and (asked.offset, asked.span) == (0, True)


def test_over_http_a_day_weeks_ahead_is_called_for_that_day_and_answered_with_the_limit(forced_gateway, fake_llm):
    """Called for today and three days, "three weeks from now" is called for day 21 alone: the forecast does not
    reach it, and the answer says so (not three days of another week); so is the follow-up, called for a week."""
    fake_llm.script(call("get_forecast", city="Split", day=0, days=3))
    reply = forced_gateway.chat("wes", {"message": "What's the weather going to be in Split three weeks from now?"})
    body = reply.json()
    assert fake_llm.requests()[0]["messages"][-1]["content"].endswith("(three weeks from now = 21 days from today)")
    assert [(c["tool"], c["arguments"], c["is_error"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "Split", "day": 21}, True)]
    assert "21 days from today) is beyond it" in body["response"]
    fake_llm.script(call("get_forecast", city="Split", day=1), {"content": "Split tomorrow: mild."})
    forced_gateway.chat("xan", {"message": "Split tomorrow?"})
    week = call("get_forecast", city="Split", day=0, days=7)
    fake_llm.script(week, week)  # the router is asked with the conversation's note too
    body = forced_gateway.chat("xan", {"message": "And three weeks from now?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", {"city": "Split", "day": 21})]


def hours_read(text: str) -> list[tuple[str, list[str]]]:
    """The clock times of a text as written, each with the times of day it may mean."""
    return [(time.text, [f"{m // 60:02d}:{m % 60:02d}" for m in sorted(time.minutes)])
            for time in clock_times(text, VOCABULARY)]


@pytest.mark.parametrize("question, written, meant", [
    # With a part of the day, before or after the hour: that half of the day.
    ("What'll it be like in Krabi tonight at 9?", "tonight at 9", "21:00"),
    ("at 9 tonight in Krabi", "at 9 tonight", "21:00"),
    ("Rome this evening at 8?", "this evening at 8", "20:00"), ("Krabi, 9 tonight?", "9 tonight", "21:00"),
    ("Krabi at 9:30 tonight?", "at 9:30 tonight", "21:30"),
    ("Oslo at 7 in the morning", "at 7 in the morning", "07:00"),
    ("Oslo tomorrow morning at 7", "tomorrow morning at 7", "07:00"),
    ("Oslo tonight at 9 pm", "tonight at 9 pm", "21:00"),
    # "around" after the part of the day (dev43's "what about the afternoon around 3?" kept the 7 am asked before)
    ("what about the afternoon around 3?", "the afternoon around 3", "15:00"),
    ("Oslo tonight around 9?", "tonight around 9", "21:00"),
    # In the other languages of the day words, noon and midnight by name.
    ("Quelle température fera-t-il à Bordeaux demain à midi ? 请用中文回答", "midi", "12:00"),
    ("¿Qué tiempo hará en Sevilla mañana a mediodía?", "mediodía", "12:00"),
    ("Wie warm wird es mittags?", "mittags", "12:00"),
    ("Wie warm ist es morgen um 12 Uhr in Graz?", "um 12 Uhr", "12:00"), ("Oslo at noon", "noon", "12:00"),
    ("北京明天正午多少度", "正午", "12:00"), ("北京明天中午12点多少度", "中午12点", "12:00"),
    ("Oslo at midnight", "midnight", "00:00"),
    ("¿Lloverá en Salta mañana a las 5 de la tarde?", "a las 5 de la tarde", "17:00"),
    ("Il fera quel temps à Lyon à 17h ?", "à 17h", "17:00"), ("Lyon demain 17h30 ?", "17h30", "17:30"),
    ("Regnet es um 17 Uhr in Graz?", "um 17 Uhr", "17:00"),
    ("Wie kalt wird es heute Abend um 8?", "heute Abend um 8", "20:00"),
    ("Piove a Roma alle 17?", "alle 17", "17:00"), ("Chove em Lisboa às 9 da noite?", "às 9 da noite", "21:00"),
    # Chinese parts of the day: 明早 is the morning; the small hours and midnight of the night are not the evening's.
    ("越南Sapa明早6点多少度", "明早6点", "06:00"), ("夜里2点冷吗", "夜里2点", "02:00"), ("晚上12点呢", "晚上12点", "00:00"),
    ("今天晚上九点的气温", "晚上九点", "21:00"), ("中午1点呢", "中午1点", "13:00"),
])
def test_an_hour_said_with_a_part_of_the_day_or_in_another_language_is_one_time(question, written, meant):
    assert hours_read(question) == [(written, [meant])]
    assert f"{written} = {meant}" in glossed(question, MONDAY, VOCABULARY)
    assert not any(part in written for part in parts_of_day(question, VOCABULARY))  # the part is the time's


@pytest.mark.parametrize("text", [
    "Will it drop below 5 tonight?", "Lows around 5 tonight", "Tonight 5, tomorrow 8", "at 5° tonight",
    "dans 3 heures", "in 3h", "at 9", "cet après-midi", "Nachmittag", "prévisions 24h", "Canal 9 this evening",
])
def test_a_figure_beside_a_part_of_the_day_is_no_clock_time(text):
    assert hours_read(text) == []


def test_an_hour_with_no_half_of_the_day_is_either_and_a_time_no_part_hides_a_later_one():
    assert hours_read("5 o'clock in Oslo?") == [("5 o'clock", ["05:00", "17:00"])]
    assert hours_read("¿a las 5 en Lima?") == [("a las 5", ["05:00", "17:00"])]
    assert hour_glosses("5 o'clock in Oslo?", VOCABULARY) == []  # left to the model
    assert hours_read("below 5 tonight at 9") == [("tonight at 9", ["21:00"])]
    assert hours_read("3 pm and 下午3点半") == [("3 pm", ["15:00"]), ("下午3点半", ["15:30"])]  # in the text's order


@pytest.mark.parametrize("user, question, gloss, arguments, answer", [
    ("kit", "What'll it be like in Krabi tonight at 9?", "(today = day 0; tonight at 9 = 21:00)",
     {"city": "Krabi", "day": 0, "hours": [21]}, "Here is Krabi at 21:00 tonight."),
    ("kim", "Quelle température fera-t-il à Bordeaux demain à midi ? 请用中文回答",
     "(tomorrow = 1 day from today; midi = 12:00)", {"city": "Bordeaux", "day": 1, "hours": [12]},
     "这是波尔多明天12:00的情况。"),
])
def test_over_http_an_hour_said_in_words_reaches_the_router_as_the_hour_and_the_facts_give_it(
        forced_gateway, fake_llm, user, question, gloss, arguments, answer):
    fake_llm.script(call("get_forecast", **arguments), {"content": answer})
    body = forced_gateway.chat(user, {"message": question}).json()
    assert fake_llm.requests()[0]["messages"][-1]["content"].endswith(gloss)
    (made,) = body["tool_calls"]
    assert made["arguments"] == arguments  # the hours are kept: the question names one
    # Not "lacking" the hour: no draft is told the hour is missing, nor is the reply (a draft that quotes no figure
    # of the hour is rejected for that, and composed from the facts).
    notes = [m["content"] for r in fake_llm.requests() for m in r["messages"]]
    assert not any("a time of day the facts do not give" in note for note in notes)
    assert not body["response"].startswith(("Sorry, the data I have does not include", "抱歉，我查到的数据里没有"))


@pytest.mark.parametrize("question, named", [
    ("北戴河今天海水多少度，能下海吗", "海水温度"), ("三亚海水几度", "海水温度"), ("青岛海水冷不冷", "海水温度"),
    ("三亚今天海水温度多少，适合游泳吗", "海水温度"), ("大连水温多少", "水温"),
    ("How warm is the sea in Nice today?", "sea temperature"), ("sea temp at Bondi?", "sea temp"),
    ("What's the water temperature at Bondi Beach today?", "water temperature"),
    ("How warm is the Mediterranean off Malaga today? thinking of a swim", "sea temperature"),
    ("Is it warm enough to swim in Durban?", "water temperature"), ("厦门今天能游泳吗", "水温"),
])
def test_the_sea_s_temperature_is_an_asked_quantity_named_as_such(question, named):
    (quantity,) = asked_quantities(question, VOCABULARY)
    assert (quantity.word, quantity.field) == (named, "water_temperature")
    assert quantity.named_in("海水温度约25度") and quantity.named_in("the sea temperature is 25")


def test_a_place_at_the_sea_asks_for_no_quantity():
    assert asked_quantities("青岛第一海水浴场明天天气", VOCABULARY) == []
    assert [q.word for q in asked_quantities("What is the UV index in Berlin?", VOCABULARY)] == ["UV"]  # as written


def test_over_http_the_sea_s_temperature_is_answered_with_the_limit_and_no_air_figure(forced_gateway, fake_llm):
    fake_llm.script(call("get_forecast", city="北戴河", day=0))
    body = forced_gateway.chat("sea", {"message": "北戴河今天海水多少度，能下海吗"}).json()
    assert [(c["tool"], c["is_error"]) for c in body["tool_calls"]] == [("get_forecast", False)]
    assert body["answer_source"] == "composed"
    assert body["response"].startswith("抱歉，我查到的数据里没有海水温度，所以没法回答这个问题。")
    assert "能下海" not in body["response"] and "°" not in body["response"]


@pytest.mark.parametrize("question, first, count", [
    ("Any rain in Galle tomorrow or the day after?", 1, 2), ("Galle tomorrow and the day after?", 1, 2),
    ("Galle tmrw or the next day?", 1, 2), ("Galle today or tomorrow?", 0, 2),
    ("Galle tomorrow or the day after tomorrow?", 1, 2), ("明天或者后天加勒会下雨吗", 1, 2), ("明后天北京下雨吗", 1, 2),
    ("明后两天北京下雨吗", 1, 2), ("今明两天冷吗", 0, 2), ("明天到大后天呢", 1, 3), ("Galle today or the day after that?", 0, 2),
    # two days named, joined by "and": one call covers both ("over today and tomorrow" was called for tomorrow)
    ("北京明天和后天冷吗", 1, 2), ("is rain likely in Galle over today and tomorrow?", 0, 2),
    # or side by side ("昆明今天明天都会下雨么" was called for tomorrow)
    ("昆明今天明天都会下雨么", 0, 2), ("明天、后天冷吗", 1, 2),
    # weekdays joined ("周六还是周日更适合在大理环洱海骑行？" was called for Sunday alone, as a comparison of 大理
    # and 洱海; "Saturday or Sunday for a hike in Boulder, CO?" for Sunday)
    ("Saturday or Sunday for a hike in Boulder, CO?", 5, 2), ("周六还是周日更适合在大理环洱海骑行？", 5, 2),
    ("Friday, Saturday or Sunday: which is driest?", 4, 3), ("周日还是周六去好", 5, 2), ("周六周日哪天好", 5, 2),
    # two days compared, the later first too ("is tomorrow warmer than today in boise?" was called for tomorrow)
    ("乌鲁木齐明天比今天暖和点没", 0, 2), ("is tomorrow warmer than today in boise?", 0, 2), ("今天比昨天冷吗", -1, 2),
    ("今天没昨天冷吧？郑州", -1, 2),
    ("Lyon tomorrow vs the day after - which is nicer for a picnic?", 1, 2), ("長春明天會不會比今天冷很多", 0, 2),
])
def test_two_days_joined_are_a_run_of_days_from_the_first(question, first, count):
    asked = asked_day(question, MONDAY)
    assert (asked.offset, asked.span, asked.count) == (first, True, count)
    assert glossed(question, MONDAY, VOCABULARY).endswith(
        f"({asked.word} = {count} days from {'today (day 0)' if first == 0 else f'day {first}'} on)")
    called = {"city": "Galle", "day": first + 1, "days": count}
    # the run's first day (named by its weekday: as its date, the same in the place's calendar)
    day = (MONDAY + dt.timedelta(days=first)).isoformat() if asked.names_a_weekday else first
    assert with_asked_day(called, FORECAST, asked, MONDAY) == {**called, "day": day}
    assert without_unasked_span(called, FORECAST, asked, question) == called  # its count of days is kept


@pytest.mark.parametrize("question, span", [
    ("When's the rain supposed to stop in Bergen, Norway?", 7), ("厦门啥时候雨停啊，都下好几天了", 7), ("哪天开始转晴", 7),
    ("when will it snow next in Oslo?", 7),
    ("when is sunset in Oslo?", None), ("厦门明天什么时候雨停", None),  # a time of today; a day named
])
def test_when_a_change_comes_asks_the_days_ahead(question, span):
    """"When's the rain supposed to stop in Bergen?" and "厦门啥时候雨停啊" were called for today alone."""
    asked = question_day(question, MONDAY, VOCABULARY)
    assert (asked.count if asked is not None and asked.span else None) == span


def test_weekdays_apart_or_far_from_each_other_are_no_run():
    assert asked_day("Lisbon on Tuesday then Seville on Thursday", MONDAY) is None  # each place its own day
    assert asked_day("sunday or monday?", MONDAY) is None  # next Monday's, more likely than today's
    assert asked_day("是周三不是周四", MONDAY).word == "周三"


def test_the_second_of_a_run_is_no_follow_up_s_day_after():
    assert not names_the_day_after("Any rain in Galle tomorrow or the day after?")
    assert names_the_day_after("And the day after?")
    assert day_words("明后天") == {"后天"}  # a reply's words: what it says of 明后天 is held to 后天's facts


def test_over_http_a_run_of_two_days_keeps_the_router_s_count(forced_gateway, fake_llm):
    fake_llm.script(call("get_precipitation", city="Galle", day=1, days=2), {"content": "As the facts say."})
    body = forced_gateway.chat("gal", {"message": "Any rain in Galle tomorrow or the day after?"}).json()
    assert fake_llm.requests()[0]["messages"][-1]["content"].endswith(
        "(tomorrow or the day after = 2 days from day 1 on)")
    assert [c["arguments"] for c in body["tool_calls"]] == [{"city": "Galle", "day": 1, "days": 2}]


@pytest.mark.parametrize("question, words, offset", [
    ("这周末冷不冷", {"周末"}, None), ("本周末去哪", {"周末"}, None),  # the weekend, not the week from today
    ("这周天气怎么样", {"本周"}, 0), ("本周天气", {"本周"}, 0),  # 周天 before 气 is no Sunday
    ("下周天气如何", {"下周"}, None), ("下周天会不会冷", {"下周日"}, 13), ("这周天呢", {"本周"}, 6),
])
def test_this_weekend_and_the_weeks_conditions_are_not_the_week_and_sunday(question, words, offset):
    assert day_words(question) == words
    asked = asked_day(question, MONDAY)
    assert (asked.offset if asked else None) == offset


def test_the_present_moment_in_a_reply_needs_facts_of_today():
    # "Which one gets colder tomorrow night?" answered "Oulu is colder right now" from tomorrow's comparison.
    assert unsupported_present("Oulu is colder right now.", {"tomorrow", "sunday"}, MONDAY) == "right now"
    assert unsupported_present("北京现在很冷。", {"明天"}, MONDAY) == "现在"
    assert unsupported_present("Oulu is colder right now.", {"monday"}, MONDAY) is None  # today's weekday
    assert unsupported_present("Oulu is colder right now.", set(), MONDAY) is None  # facts of no named day
    assert unsupported_present("目前的预报显示明天有雨。", {"明天"}, MONDAY) is None


def test_this_weeks_weekday_is_that_day_not_the_week():
    """"这周五来凤天气" named 本周 (the week) and left 五 beside the place; 这周 alone is still the week."""
    assert day_words("这周五来凤天气") == {"周五"} and day_words("这个星期六上海") == {"周六"}
    assert day_words("这周北京冷吗") == {"本周"} and day_words("这周末") == {"周末"}



def test_tonights_small_hours_are_tomorrows():
    """dev26's "Warsaw at 1am, after midnight tonight" was called for today's 01:00, gone by: tonight's clock times
    before 6 are tomorrow's; "tonight at 9" is today's, as is a day with no clock time."""
    day = dt.date(2026, 12, 6)
    for question, offset in (("How cold will it be in Warsaw at 1am, after midnight tonight?", 1),
                             ("今晚凌晨两点大连多少度", 1), ("tonight at 9 in Oslo", 0), ("今晚大连冷吗", 0),
                             ("tonight at 11pm and 2am?", 0), ("today at 1am", 0)):
        assert past_midnight(asked_day(question, day), question, VOCABULARY).offset == offset, question
    # "after midnight" beside an hour is no hour of its own (dev29's "at 1am tonight, after midnight" asked 00:00)
    assert [t.minutes for t in clock_times("temp in Oslo at 1am tonight, after midnight?", VOCABULARY)] == [{60}]


def test_a_weekday_abbreviated_in_a_follow_up_is_that_day_and_a_word_is_not():
    """dev27's "and Sat?" was called for a place named "Sat" and answered of San Antonio tomorrow: an abbreviation
    after "and"/"on", or alone, is the day; "sun", "Sunny", French "Mon" and "Sun protection" are not."""
    assert day_words("and Sat?") == {"saturday"} and day_words("on Thurs in Oslo") == {"thursday"} \
        and day_words("Wed in Rome?") == {"wednesday"} and day_words("Sun?") == {"sunday"}
    assert not day_words("and sunrise?") and not day_words("Mon ami, il pleut ?") \
        and not day_words("Sun protection in Bali?") and not day_words("is the sat signal bad there")


@pytest.mark.parametrize("question", ["and what's it like there right now?", "现在呢", "how about at the moment?"])
def test_the_present_moment_is_todays_day(question):
    """"and what's it like there right now?" after yesterday's high was called for yesterday (day -1): the present
    moment asked with no day named is today."""
    asked = now_asked(question, MONDAY)
    assert asked is not None and asked.offset == 0
    called = {"city": "Melbourne", "day": -1, "days": 7}
    assert with_asked_day(called, FORECAST, asked, MONDAY)["day"] == 0
    assert "days" not in without_unasked_span(called, FORECAST, asked, question)


def test_the_present_moment_beside_a_day_is_that_days():
    assert now_asked("now, what about tomorrow?", MONDAY) is None and now_asked("I know, Paris?", MONDAY) is None


@pytest.mark.parametrize("question, tool, arguments", [
    ("淄博外面现在下着雨没", "get_precipitation", {"city": "淄博", "day": 0}),
    ("is it still snowing in Buffalo, NY", "get_forecast", {"city": "Buffalo, NY"}),
    # today beside now is the present's day
    ("is it raining in Rosario right now? driving in today", "get_precipitation", {"city": "Rosario", "day": 0}),
    # a span said in a sentence of its own is why it asks (dev43's "I'm in Addis Ababa this week for work. Whats the
    # temp right now?" got the week)
    ("I'm in Addis Ababa this week for work. Whats the temp right now?", "get_forecast",
     {"city": "Addis Ababa", "days": 7}),
])
def test_over_http_the_present_moment_called_as_today_is_called_as_now(forced_gateway, fake_llm, question, tool,
                                                                         arguments):
    """"淄博外面现在下着雨没" was called for today's record and answered "不会下雨" from the day's total: asked what it
    is like now, the tool of the present moment answers."""
    fake_llm.script(call(tool, **arguments), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("zoe", {"message": question}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_current_weather", {"city": arguments["city"]})]


@pytest.mark.parametrize("question, tool, arguments", [
    ("what's the air quality in Delhi right now", "get_air_quality", {"city": "Delhi"}),  # no such tool holds it
    ("Buffalo tomorrow, still snowing?", "get_precipitation", {"city": "Buffalo", "day": 1}),  # a day named
    ("Buffalo now and over the next 3 days?", "get_forecast", {"city": "Buffalo", "days": 3}),
])
def test_over_http_a_call_the_present_moment_does_not_answer_stays(forced_gateway, fake_llm, question, tool,
                                                                   arguments):
    fake_llm.script(call(tool, **arguments), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("zed", {"message": question}).json()
    assert [c["tool"] for c in body["tool_calls"]] == [tool]


def test_over_http_a_weekday_the_question_does_not_name_is_the_conversations_day(forced_gateway, fake_llm):
    """"日落几点 想去洱海边拍照" after tomorrow's question on 大理 was called for Sunday (日 of 日落): a weekday the
    question does not name is the latest calls' day, or else the tool's own (today)."""
    fake_llm.script(call("get_forecast", city="大理", day=1), {"content": "placeholder"}, auto=True)
    forced_gateway.chat("erhai", {"message": "大理明天怎么样"})
    fake_llm.script(call("get_forecast", city="洱海", day="sunday"), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("erhai", {"message": "日落几点 想去洱海边拍照"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", {"city": "洱海", "day": 1})]
    fake_llm.script(call("get_forecast", city="Paris", day="sunday"), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("sunset", {"message": "Paris sunset time?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", {"city": "Paris"})]
    fake_llm.script(call("get_forecast", city="Paris", day="sunday"), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("sunday", {"message": "Paris sunset on Sunday?"}).json()
    assert [c["arguments"]["day"] for c in body["tool_calls"]] == ["sunday"]  # named
