"""Arguments come from the question: places nobody named, hours the question does not mention and a day other
than the asked one, against the weather server's own schemas; and a question the tools answer is never answered
from memory. Pure functions first, then the gateway process over HTTP with the real weather server (simulated
data) and the scripted LLM."""

from __future__ import annotations

import datetime as dt
import json
import logging
from dataclasses import replace
from zoneinfo import ZoneInfo

import pytest

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.call import call as call_tools
from mcp_chat_app.chat.conversation import says_only
from mcp_chat_app.chat.own_answer import needs_tool_data
from mcp_chat_app.chat.pipeline import ChatPipeline
from mcp_chat_app.chat.route import Routed
from mcp_chat_app.chat.route_arguments.days import (
    in_the_places_calendar,
    with_asked_day,
    with_asked_weekend,
    with_earlier_day,
    without_unasked_span,
)
from mcp_chat_app.chat.route_arguments.hours import with_asked_part, with_clock_hours, without_unasked_hours
from mcp_chat_app.chat.route_arguments.numbers import misquoted_numbers
from mcp_chat_app.chat.route_arguments.place_names import (
    added_names,
    as_the_question_spells,
    only_run_on,
    qualified,
    siblings,
)
from mcp_chat_app.chat.route_arguments.places import (
    UnnamedArgument,
    without_repeated_places,
    without_unnamed_places,
)
from mcp_chat_app.chat.route_prompt import (ASKS_FOR_A_DAY, ASKS_FOR_A_QUANTITY, ASKS_FOR_AN_HOUR, ASKS_FOR_DATA,
                                            MISQUOTED, NOT_IN_THE_QUESTION)
from mcp_chat_app.chat.route_plan import PlannedCall
from mcp_chat_app.chat.text.calendar_dates import calendar_dates
from mcp_chat_app.chat.text.day_words import asked_day, day_words, glossed, names_an_earlier_day, names_the_day_after
from mcp_chat_app.chat.text.languages import in_another_script
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.config import CONFIG_DIR
from mcp_chat_app.llm.client import LlmClient
from mcp_chat_app.llm.profiles import Endpoint
from mcp_chat_app.mcp_client.manager import ToolInfo, ToolRequest
from mcp_chat_app.media_store import MediaStore

from tests.support.gateway_processes import WEATHER_SERVER, GatewayProcess
from tests.support.gateway_processes import weather_call as call

from .mock_mcp_manager import MockMcpManager, ScriptedTool

ASSISTANT = load_assistant(CONFIG_DIR / "assistant.json")
VOCABULARY = ASSISTANT.vocabulary
CITY = {"description": "City name in any language, e.g. 'Beijing', '北京', 'Paris, FR'", "type": "string"}
DAY = {"anyOf": [{"maximum": 366, "minimum": -366, "type": "integer"},
                 {"enum": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekend"],
                  "type": "string"}, {"pattern": "^\\d{4}-\\d{2}-\\d{2}$", "type": "string"}],
       "default": 0, "description": "The (first) day: 0 = today 今天, 1 = tomorrow 明天; or a weekday 'saturday' 周六 "
       "(the next one), 'weekend' 周末, or 'YYYY-MM-DD'"}
HOURS = {"anyOf": [{"items": {"type": "integer"}, "type": "array"},
                   {"enum": ["morning", "noon", "afternoon", "evening", "night"], "type": "string"}, {"type": "null"}],
         "default": None, "description": "24-hour clock [15] (下午三点), or morning 早上, noon 中午, afternoon 下午, "
         "evening 傍晚, night 今晚"}
COMPARE = {"properties": {"cities": {"description": "The places to compare", "items": CITY, "minItems": 2,
                                     "maxItems": 5, "type": "array"}, "day": DAY}, "required": ["cities"]}
FORECAST = {"properties": {"city": CITY, "day": DAY, "days": {"default": 1, "type": "integer",
                                                             "description": "How many days from that day on"},
                           "hours": HOURS}, "required": ["city"]}
AIR = {"properties": {"city": CITY, "day": {"default": 0, "type": "integer", "description": "0 = today, 1 = tomorrow"}},
       "required": ["city"]}
TUESDAY = dt.date(2026, 12, 1)
NOT_LOOKED_UP_ZH = ASSISTANT.not_looked_up["zh"]


def test_a_place_nobody_named_is_dropped_and_a_comparison_of_one_is_not_made(caplog):
    caplog.set_level(logging.INFO, "mcp_chat_app.chat.route_arguments")
    with pytest.raises(UnnamedArgument, match="上海 not named"):
        without_unnamed_places({"cities": ["北京", "上海"], "day": 2}, COMPARE, "周三北京会下雨吗", VOCABULARY)
    three = {"cities": ["北京", "上海", "广州"]}
    assert without_unnamed_places(three, COMPARE, "北京和广州哪个冷", VOCABULARY) == {"cities": ["北京", "广州"]}
    assert "dropped cities ['上海']" in caplog.text
    # Named in the conversation: kept; none named as written (translations): all kept.
    said = "上海今天多少度？\n上海现在12°C。\n北京呢，哪个冷？"
    assert without_unnamed_places(three, COMPARE, said, VOCABULARY) == {"cities": ["北京", "上海"]}
    assert without_unnamed_places({"cities": ["北京", "上海"]}, COMPARE, "Compare Beijing and Shanghai",
                                  VOCABULARY) == {"cities": ["北京", "上海"]}
    # A required single place is the router's own check (re-asked with the conversation, or set aside).
    assert without_unnamed_places({"city": "北京"}, FORECAST, "要带伞吗？", VOCABULARY) == {"city": "北京"}
    # A vocabulary with no place words (another domain) knows no places.
    assert without_unnamed_places(three, COMPARE, "哪个冷", type(VOCABULARY)()) == three


def test_a_list_of_places_names_each_place_once():
    """dev50's "Honolulu vs Nadi, Fiji" was called for Nadi twice, and the answer listed it twice; a list at its
    minItems keeps its repeats (the schema's refusal says more than one place)."""
    called = {"cities": ["Honolulu", "Nadi, Fiji", "nadi, fiji "], "day": 0}
    assert without_repeated_places(called, COMPARE, VOCABULARY) == {"cities": ["Honolulu", "Nadi, Fiji"], "day": 0}
    assert without_repeated_places({"cities": ["Nadi", "Nadi"]}, COMPARE, VOCABULARY) == {"cities": ["Nadi", "Nadi"]}
    assert without_repeated_places({"cities": ["A", "B", "A"]}, COMPARE, type(VOCABULARY)()) == \
        {"cities": ["A", "B", "A"]}  # no place words (another domain): no places


@pytest.mark.parametrize("question, kept", [
    ("北京明天天气怎么样？", False), ("How is Beijing tomorrow?", False), ("北京周三会下雨吗", False),
    ("北京今晚会下雨吗", True), ("北京明天晚上冷吗", True), ("北京明天下午三点多少度", True),
    ("Beijing tomorrow night?", True), ("Will it rain in Oslo in the evening?", True), ("14:00 in Oslo?", True),
])
def test_hours_the_question_does_not_mention_are_dropped(question, kept, caplog):
    caplog.set_level(logging.INFO, "mcp_chat_app.chat.route_arguments")
    arguments = {"city": "北京", "day": 1, "hours": "night"}
    expected = arguments if kept else {"city": "北京", "day": 1}
    assert without_unasked_hours(arguments, FORECAST, question, VOCABULARY) == expected
    assert ("dropped hours='night'" in caplog.text) is not kept


def test_the_asked_day_replaces_another(caplog):
    caplog.set_level(logging.INFO, "mcp_chat_app.chat.route_arguments")
    wednesday = asked_day("周三北京会下雨吗", TUESDAY)
    assert (wednesday.offset, wednesday.weekday) == (1, "wednesday")
    # A weekday reaches a tool that takes one as the weekday: the tool counts it from the place's date.
    for wrong in (2, 1, "thursday", "2026-12-02"):
        assert with_asked_day({"city": "北京", "day": wrong}, FORECAST, wednesday, TUESDAY)["day"] == "wednesday"
    assert "day=2 replaced by 'wednesday': the question asks about 周三" in caplog.text
    # A tool with offsets only gets the offset; one already right is left as it is.
    assert with_asked_day({"city": "北京", "day": 3}, AIR, wednesday, TUESDAY) == {"city": "北京", "day": 1}
    assert with_asked_day({"city": "北京", "day": 1}, AIR, wednesday, TUESDAY) == {"city": "北京", "day": 1}
    # A day left out is today's: asked about tomorrow, it is added.
    assert with_asked_day({"city": "北京"}, FORECAST, asked_day("北京明天冷吗", TUESDAY), TUESDAY) == {
        "city": "北京", "day": 1}
    # No single day asked (none, a span): nothing to correct.
    for question in ("北京冷吗", "北京周末冷吗", "Oslo next week?"):
        assert asked_day(question, TUESDAY) is None, question


@pytest.mark.parametrize("question", ["Could you chart the rain for the coming week?", "未来一周北京天气", "这周北京会下雨吗",
                                      "Oslo this week?", "the next 5 days in Rome", "北京未来几天冷吗"])
def test_days_from_today_on_begin_today(question):
    asked = asked_day(question, TUESDAY)
    assert (asked.offset, asked.span) == (0, True)
    chart = {"city": "Brussels", "day": 2, "days": 7}
    assert with_asked_day(chart, FORECAST, asked, TUESDAY) == {**chart, "day": 0}
    assert without_unasked_span({"city": "北京", "day": 0, "days": 7}, FORECAST, asked, question)["days"] == 7
    assert glossed(question, TUESDAY, VOCABULARY).endswith(f"({asked.word} = from today (day 0) on)")


@pytest.mark.parametrize("question, first", [("Any rain in Medellin in the three days after today?", 1),
                                             ("成都今天之后的三天会下雨吗", 1), ("The 2 days after Tomorrow in Rome", 2)])
def test_days_after_a_day_word_begin_the_day_after_it(question, first):
    asked = asked_day(question, TUESDAY)
    assert (asked.offset, asked.span) == (first, True)
    asked_for = {"city": "Medellin", "day": 0, "days": 3}
    assert with_asked_day(asked_for, FORECAST, asked, TUESDAY) == {**asked_for, "day": first}
    assert without_unasked_span(asked_for, FORECAST, asked, question)["days"] == 3


@pytest.mark.parametrize("question, today, offset, weekday, also", [
    ("下周三北京冷吗", TUESDAY, 8, None, set()),
    ("这周五呢", TUESDAY, 3, "friday", set()),
    ("Oslo next Monday?", TUESDAY, 6, None, {6}),
    ("Oslo next Friday?", dt.date(2026, 11, 30), 11, None, {4}),  # asked on a Monday: next week's, or this one
    # asked on a Friday: today, as the next such weekday counts it, or a week on
    ("Oslo this coming Friday?", dt.date(2026, 12, 4), 0, "friday", {7}),
    ("Oslo this coming Friday?", TUESDAY, 3, "friday", set()),
    ("Oslo on Friday?", dt.date(2026, 12, 4), 0, "friday", set()),
    ("周二呢", TUESDAY, 0, "tuesday", set()),
    ("Bogotá on Wednesday next week?", TUESDAY, 8, None, set()),  # next week's only, never the coming one
    ("Friday of next week in Oslo", TUESDAY, 10, None, set()),
    ("Dubrovnik on Friday this week - showers?", TUESDAY, 3, "friday", set()),  # not the whole week
    ("n tmrw?", TUESDAY, 1, None, set()),  # as people type it
    ("gonna be sunny the day after tmrw?", TUESDAY, 2, None, set()),
    ("wat about 2moro", TUESDAY, 1, None, set()),
    ("What's the day after tomorow looking like in Kandy?", TUESDAY, 2, None, set()),  # typed inside the phrase
    ("the day after tommorow?", TUESDAY, 2, None, set()),
])
def test_relative_weekdays_are_counted_as_people_mean_them(question, today, offset, weekday, also):
    asked = asked_day(question, today)
    assert (asked.offset, asked.weekday, set(asked.also - {asked.offset})) == (offset, weekday, also - {offset})


@pytest.mark.parametrize("question, offset, weekday", [
    ("Quel temps fera-t-il à Colmar jeudi ? Answer in English please.", 2, "thursday"),
    ("Wie wird das Wetter übermorgen in Bled? 请用中文回答。", 2, None),
    ("¿Lloverá en Salta mañana a las 5 de la tarde? Reply in English.", 1, None),
    ("Regnet es morgen früh in Graz?", 1, None),  # "morgen früh": tomorrow morning
    ("Wie kalt war es heute Morgen in Graz?", 0, None),  # "heute Morgen": this morning
    ("¿Hace frío esta mañana en Quito?", 0, None),
    ("¿Lloverá mañana por la mañana en Lima?", 1, None),  # the second "mañana" is the morning
    ("Vai chover em Lisboa na sexta?", 3, "friday"),
    ("Vai chover no Porto depois de amanhã?", 2, None),
    ("Che tempo fa a Roma dopodomani?", 2, None),
    ("Quel temps faisait-il hier à Lyon ?", -1, None),
    ("Wie wird das Wetter hier in Graz am Samstag?", 4, "saturday"),  # German "hier" is "here"
    ("Llueve hoy en Santo Domingo?", 0, None),  # a place, not Sunday
    # Korean, a particle after the word ("내일 제주도에 비 와요?" was called for today)
    ("내일 제주도에 비 와요? Answer in English please.", 1, None), ("모레는 서울 추워요?", 2, None),
    ("어제 부산 비 왔어요?", -1, None),
])
def test_day_words_of_other_languages_are_read_as_their_days(question, offset, weekday):
    asked = asked_day(question, TUESDAY)
    assert (asked.offset, asked.weekday) == (offset, weekday)
    assert with_asked_day({"city": "Graz", "day": "friday" if weekday != "friday" else 0}, FORECAST, asked,
                          TUESDAY)["day"] == (weekday or offset)
    assert asked_day("¿Lloverá en Lima por la mañana?", TUESDAY) is None  # the morning, of no day
    assert day_words("A quinta vez em Avant-hier") == set()  # "quinta" alone is "fifth"


@pytest.mark.parametrize("question, offset", [
    ("What will the weather be in Tallinn 16 days from today?", 16), ("And 16 days from now?", 16),
    ("Rain in Oslo in 3 days?", 3), ("Rome in two days?", 2), ("二十天后的常州天气怎么样", 20), ("三天以后北京下雨吗", 3),
    ("十六天后天气如何", 16),  # not 后天
])
def test_a_day_counted_in_days_from_today_is_that_one_day(question, offset, caplog):
    caplog.set_level(logging.INFO, "mcp_chat_app.chat.route_arguments")
    asked = asked_day(question, TUESDAY)
    assert (asked.offset, asked.span) == (offset, False)
    called = with_asked_day({"city": "Tallinn", "day": 0, "days": offset}, FORECAST, asked, TUESDAY)
    assert without_unasked_span(called, FORECAST, asked, question) == {"city": "Tallinn", "day": offset}
    assert glossed(question, TUESDAY, VOCABULARY).endswith(f"({asked.word} = {offset} days from today)")


def test_a_feast_named_beside_the_days_said_is_not_the_day_asked():
    """"chiang mai weather in 6 days? that's when the lantern festival thing is" was called for February's Lantern
    Festival, and "the next 10 days, I'm organizing an outdoor Christmas BBQ" for Christmas (beyond the forecast)."""
    asked = asked_day("chiang mai weather in 6 days? that's when the lantern festival thing is", TUESDAY)
    assert (asked.word, asked.offset) == ("in 6 days", 6)
    span = asked_day("Sydney forecast for the next 10 days, I'm organizing an outdoor Christmas BBQ", TUESDAY)
    assert (span.word, span.offset, span.span) == ("the next 10 days", 0, True)
    assert asked_day("Christmas weather in Oslo?", TUESDAY).date == dt.date(2026, 12, 25)  # the feast alone: its day


@pytest.mark.parametrize("question, word", [
    ("哦我说错了，是周三不是周四", "周三"), ("I meant Wednesday, not Thursday", "wednesday"), ("我说的是明天不是今天", "明天"),
])
def test_a_day_said_to_be_not_the_one_meant_is_not_asked(question, word):
    """"哦我说错了，是周三不是周四" was called for Thursday: two days named, the router took the last."""
    assert asked_day(question, TUESDAY).word == word
    both = asked_day("周三还是周四", TUESDAY)  # both asked: the days from the one to the other
    assert (both.offset, both.span, both.count) == (1, True, 2)


@pytest.mark.parametrize("question, offset", [
    ("what was the low in Sudbury, Ontario the day before yesterday?", -2), ("Did it rain in Bogota 3 days ago?", -3),
    ("3天前东台下了多少雨？", -3), ("一周前北京冷吗", -7), ("Rome two weeks back?", -14),
])
def test_a_day_counted_back_from_today_is_that_past_day(question, offset):
    """"the day before yesterday" had been read as yesterday, and "3 days ago" as no day (called for yesterday,
    or for the weather now); "十天前后" (about ten days) names none."""
    asked = asked_day(question, TUESDAY)
    assert (asked.offset, asked.span) == (offset, False)
    called = with_asked_day({"city": "Sudbury", "day": -1, "days": 3}, FORECAST, asked, TUESDAY)
    assert without_unasked_span(called, FORECAST, asked, question) == {"city": "Sudbury", "day": offset}
    assert glossed(question, TUESDAY, VOCABULARY).endswith(f"({asked.word} = {-offset} days before today)")
    assert asked_day("十天前后会下雨吗", TUESDAY) is None


@pytest.mark.parametrize("question", ["camping in Wadi Rum the night after tomorrow - how cold does it get?",
                                      "Lisbon the morning after tomorrow?", "the day after tmrw in Rome"])
def test_a_part_of_the_day_after_tomorrow_is_that_day(question):
    """"the night after tomorrow" had been read as "tomorrow" (called for tomorrow night)."""
    asked = asked_day(question, TUESDAY)
    assert (asked.word, asked.offset) == ("day after tomorrow", 2)
    assert with_asked_day({"city": "Rome", "day": 1}, FORECAST, asked, TUESDAY)["day"] == 2


@pytest.mark.parametrize("question, kept", [
    ("下周三大阪天气预报", False), ("Weather in Oslo tomorrow?", False), ("Bogotá on Wednesday next week?", False),
    ("Oslo next week, from Wednesday", True),  # a span from a day: not one weekday
    ("明天开始三天的天气", True), ("Oslo for 3 days from tomorrow", True), ("明天起一周的天气", True),
    ("这周末天气", True),  # no single day asked
])
def test_a_count_of_days_the_question_does_not_give_is_dropped(question, kept, caplog):
    caplog.set_level(logging.INFO, "mcp_chat_app.chat.route_arguments")
    arguments = {"city": "大阪", "day": 1, "days": 3}
    expected = arguments if kept else {"city": "大阪", "day": 1}
    assert without_unasked_span(arguments, FORECAST, asked_day(question, TUESDAY), question) == expected
    assert ("dropped days=3" in caplog.text) is not kept
    # A count whose default is not one day (a chart's week) is the tool's own choice.
    chart = {"properties": {"days": {"type": "integer", "default": 7, "description": "How many days to draw"}}}
    assert without_unasked_span({"days": 7}, chart, asked_day("明天", TUESDAY), "明天") == {"days": 7}


@pytest.mark.parametrize("question, named", [
    ("How cold was Berlin on New Year's Day 2020?", {"New Year's Day 2020": "2020-01-01"}),
    ("下个月20号宁波会下雨吗", {"下个月20号": "2027-01-20"}),
    ("去年圣诞节北京冷不冷", {"去年圣诞节": "2025-12-25"}),
    ("last Christmas in Oslo", {"last Christmas": "2025-12-25"}),
    ("圣诞节北京下雪吗", {"圣诞节": "2026-12-25"}),
    ("2027年1月3日上海", {"2027年1月3日": "2027-01-03"}),  # read once, not also as 1月3日
    ("Oslo on January 3rd?", {"January 3rd": "2027-01-03"}),  # no year: the one nearest today
    ("Rome on the 5th of next month", {"the 5th of next month": "2027-01-05"}),
    ("2026-12-10 Paris", {"2026-12-10": "2026-12-10"}),
    ("May I ask about Rome on 2 Mar?", {"2 Mar": "2027-03-02"}),
    ("I decided 3 times", {}), ("北京二月三十日", {}),  # no month word; no such day
    ("Berlin now (Thu 3 Dec 09:00)", {"3 Dec": "2026-12-03"}),  # a clock time after a date is no day
    # a month of a year is its first day (the data's reach is said of it)
    ("coldest temperature recorded in Tomsk in January 1998?", {"January 1998": "1998-01-01"}),
    # a season of a year: its first month's first day ("2015年冬天" was answered with today's weather)
    ("帮我查查2015年冬天右玉的最低气温", {"2015年冬天": "2015-12-01"}), ("winter 2015 in Oslo", {"winter 2015": "2015-12-01"}),
    ("the 1998 summer in Rome", {"1998 summer": "1998-06-01"}), ("this winter in Oslo", {}),
    ("帮我查一下1987年7月托克逊的最高气温", {"1987年7月": "1987-07-01"}),
    # holidays of the Chinese calendar, by their year's date: the next one, or the year named
    ("明年春节抚远会下雪吗", {"明年春节": "2027-02-06"}), ("除夕哈尔滨冷吗", {"除夕": "2027-02-05"}),
    ("Chinese New Year in Taipei?", {"Chinese New Year": "2027-02-06"}), ("2028年中秋", {"2028年中秋": "2028-10-03"}),
    ("last Mid-Autumn Festival in Xi'an", {"last Mid-Autumn Festival": "2026-09-25"}),
    ("情人节上海下雨吗", {"情人节": "2027-02-14"}), ("Halloween in Salem", {"Halloween": "2026-10-31"}),
    # a part of a month: the day it begins ("下个月底去乡城" was answered with today's weather)
    ("下个月底去乡城，到时候天气怎样", {"下个月底": "2027-01-21"}), ("本月初", {"本月初": "2026-12-01"}),
    ("三个月以后的北京", {}),  # days counted are day words, not calendar dates
])
def test_calendar_dates_are_read_as_dates(question, named):
    assert {word: day.isoformat() for word, day in calendar_dates(question, TUESDAY).items()} == named


def test_a_calendar_date_reaches_a_tool_as_the_date_and_is_glossed(caplog):
    asked = asked_day("How cold was Berlin on New Year's Day 2020?", TUESDAY)
    assert with_asked_day({"city": "Berlin", "day": 0}, FORECAST, asked, TUESDAY)["day"] == "2020-01-01"
    assert with_asked_day({"city": "Berlin", "day": 0}, AIR, asked, TUESDAY)["day"] == -2526  # offsets only
    assert glossed("去年圣诞节北京冷不冷", TUESDAY, VOCABULARY).endswith("(去年圣诞节 = 2025-12-25)")
    # A weekday beside the date names the same day: one asked day.
    assert asked_day("Oslo on Sunday, Dec 6?", TUESDAY).date == dt.date(2026, 12, 6)


def test_a_question_naming_no_day_keeps_the_latest_calls_day(caplog):
    caplog.set_level(logging.INFO, "mcp_chat_app.chat.route_arguments")
    earlier = [{"city": "武夷山", "day": "2026-12-07"}]
    assert with_earlier_day({"city": "武夷山", "day": 7}, FORECAST, earlier, "需要带雨具吗？", TUESDAY) == {
        "city": "武夷山", "day": "2026-12-07"}
    assert "day=7 replaced by '2026-12-07'" in caplog.text
    assert with_earlier_day({"city": "武夷山"}, FORECAST, earlier, "Do I need an umbrella?", TUESDAY)["day"] == \
        "2026-12-07"  # a day left out is the earlier one too
    # A day of its own, "now", or earlier calls that disagree: the call's own day stands.
    for question in ("明天需要带伞吗？", "现在需要带伞吗？", "Do I need one right now?"):
        assert with_earlier_day({"city": "武夷山", "day": 1}, FORECAST, earlier, question, TUESDAY)["day"] == 1
    two = [{"city": "北京", "day": 1}, {"city": "上海", "day": 2}]
    assert with_earlier_day({"city": "北京", "day": 0}, FORECAST, two, "要带伞吗", TUESDAY)["day"] == 0
    # The span goes with the day ("the rain over the same three days"), not to "the day after that".
    span = [{"city": "Lima", "day": 0, "days": 3}]
    assert with_earlier_day({"city": "Lima", "day": 0}, FORECAST, span, "And the rain over the same three days?",
                            TUESDAY) == {"city": "Lima", "day": 0, "days": 3}
    assert "days" not in with_earlier_day({"city": "Lima", "day": 3}, FORECAST, span, "And the day after that?",
                                          TUESDAY)
    assert "days" not in with_earlier_day({"city": "Lima"}, FORECAST, span, "And tomorrow?", TUESDAY)
    # "That day" is the earlier calls' day, for the place the question names.
    for question in ("顺便看看天水那天的天气", "天水同一天冷吗", "How windy will Tianshui be that day?"):
        assert names_an_earlier_day(question), question
        assert with_earlier_day({"city": "天水", "day": 0}, FORECAST, earlier, question, TUESDAY) == {
            "city": "天水", "day": "2026-12-07"}
    assert not names_an_earlier_day("那天气怎么样") and not names_an_earlier_day("北京明天冷吗")


def test_relative_weekdays_are_glossed_for_the_router():
    monday = dt.date(2026, 11, 30)
    assert glossed("Oslo next Monday?", monday, VOCABULARY).endswith("(next monday = 7 days from today)")
    assert glossed("下周三北京冷吗", TUESDAY, VOCABULARY).endswith("(下周三 = 8 days from today)")


@pytest.mark.parametrize("utc_now, beijing_date", [
    (dt.datetime(2026, 12, 1, 15, 30), dt.date(2026, 12, 1)),  # 23:30 in Beijing: the same date as UTC
    (dt.datetime(2026, 12, 1, 16, 30), dt.date(2026, 12, 2)),  # 00:30 in Beijing: a day ahead of UTC
])
def test_around_midnight_at_the_place_the_tool_counts_the_asked_day_from_its_own_date(utc_now, beijing_date):
    """The gateway's date (UTC here) may be the day before the place's. Tomorrow is passed as 1 and a weekday as
    the weekday: the weather server counts both from Beijing's own today, so each is Beijing's."""
    gateway_today = utc_now.date()
    tomorrow = with_asked_day({"city": "北京", "day": (beijing_date + dt.timedelta(days=1)).isoformat()}, FORECAST,
                              asked_day("北京明天会下雨吗", gateway_today), gateway_today)
    assert tomorrow["day"] == 1
    wednesday = with_asked_day({"city": "北京", "day": 1}, FORECAST, asked_day("北京周三会下雨吗", gateway_today),
                               gateway_today)
    assert wednesday["day"] == "wednesday"  # at 00:30 on Wednesday in Beijing: its today, not tomorrow


SUNDAY, MONDAY = dt.date(2026, 12, 6), dt.date(2026, 12, 7)


@pytest.mark.parametrize("question, gateway_today, place_today, router_day, day", [
    # 02:56 on Monday in 三亚, still Sunday in UTC: next week's Saturday there is the 19th, not the 12th.
    ("三亚下周六天气怎么样", SUNDAY, MONDAY, "2026-12-12", "2026-12-19"),
    ("Tokyo weather next Monday", SUNDAY, MONDAY, "2026-12-07", "2026-12-14"),
    # Sunday evening in Los Angeles, Monday in UTC: next Monday there is tomorrow, as 下周一 is.
    ("LA weather next Monday?", MONDAY, SUNDAY, "2026-12-14", "2026-12-07"),
    ("洛杉矶下周一冷吗", MONDAY, SUNDAY, "2026-12-14", "2026-12-07"),
])
def test_at_the_weeks_edge_a_weekday_of_next_week_is_counted_in_the_places_calendar(
        question, gateway_today, place_today, router_day, day):
    arguments = with_asked_day({"city": "x", "day": router_day}, FORECAST, asked_day(question, gateway_today),
                               gateway_today)
    assert arguments["day"] == router_day  # the gateway's own count
    assert in_the_places_calendar(arguments, FORECAST, question, gateway_today, place_today, VOCABULARY) == {
        "city": "x", "day": day}


def test_a_day_the_tool_counts_itself_or_a_calendar_date_stands_in_any_calendar():
    for question, value in (("三亚明天冷吗", 1), ("三亚周六冷吗", "saturday"), ("三亚12月19日冷吗", "2026-12-19"),
                            ("三亚下周六冷吗", "2026-12-19")):
        assert in_the_places_calendar({"city": "三亚", "day": value}, FORECAST, question, SUNDAY, MONDAY,
                                      VOCABULARY) is None, question
    # the same date in both calendars: nothing to count again
    assert in_the_places_calendar({"city": "三亚", "day": "2026-12-12"}, FORECAST, "三亚下周六冷吗", SUNDAY, SUNDAY,
                                  VOCABULARY) is None


def test_a_call_whose_result_shows_another_today_is_made_again_for_the_places_day(tmp_path):
    """Through the call stage with a scripted tool: its result names a time zone whose date is not the gateway's
    (one of UTC+14 and UTC-12 is always another date), so the gateway's next-week Saturday is called again as the
    place's, and the second result is the one kept."""
    now = dt.datetime.now().astimezone()
    zone, shift = next((zone, shift) for zone in ("Etc/GMT-14", "Etc/GMT+12")
                       if (shift := (now.astimezone(ZoneInfo(zone)).date() - now.date()).days))
    gateway_today = SUNDAY if shift > 0 else MONDAY
    forecast = ScriptedTool("weather", "get_forecast",
                            lambda a: {"location": {"timezone": zone}, "days": [{"date": a["day"]}]}, FORECAST)
    manager = MockMcpManager([forecast])
    turn = replace(Turn.start("三亚下周六天气怎么样", [], ASSISTANT), today=gateway_today)
    first = "2026-12-12" if shift > 0 else "2026-12-19"
    planned = PlannedCall("c1", "weather__get_forecast", {"city": "三亚", "day": first},
                          request=ToolRequest("weather", "get_forecast", {"city": "三亚", "day": first}))
    called = call_tools(turn, manager, MediaStore(tmp_path), Routed(calls=(planned,)))
    again = "2026-12-19" if shift > 0 else "2026-12-12"
    assert [request.arguments["day"] for request in manager.calls] == [first, again]
    (outcome,) = called.outcomes
    assert outcome.structured_content["days"] == [{"date": again}]


def test_a_question_the_tools_answer_is_told_apart():
    def needs(question: str, tools: list[ToolInfo]) -> bool:
        return needs_tool_data(question, tools, VOCABULARY)

    tools = [ToolInfo("weather", "get_forecast", "Forecast in one city for days (明天, 周末), hours (今晚).", FORECAST),
             ToolInfo("weather", "get_air_quality", "Air quality in one city (空气质量, PM2.5, AQI).", AIR)]
    assert needs("周末会降温吗", tools) and needs("will it cool down this week", tools)
    assert needs("北京的AQI高吗", tools) and needs("上海空气质量好吗", tools)
    assert not needs("What is the capital of France?", tools) and not needs("你好", tools)
    # A verdict the data decides ("is it hot", "冷不冷") is asked of the tool that lists it, not guessed.
    now = ToolInfo("weather", "get_current_weather", "Weather now in one city (现在, 冷不冷, hot, cold).", {})
    assert needs("Αθήνα: is it hot there right now?", [now]) and needs("冷不冷？", [now])
    assert not needs("Tell me about the hotel", [now])
    # So is a quantity a tool's results hold, however the description words it.
    described = ToolInfo("weather", "now", "Now in one city.", {}, {"properties": {"humidity": {}, "wind_speed": {}}})
    assert needs("乌鲁木齐湿度多少", [described]) and needs("风大不大", [described])
    assert not needs("乌鲁木齐湿度多少", [now])
    # A remark with a day word asks nothing of the data; a question with one does, however terse.
    forecast = tools[:1]
    assert not needs("今天好累啊", forecast) and not needs("Tomorrow is my birthday!", forecast)
    assert needs("明天上海", forecast) and needs("明天会下雨吗！", forecast) and needs("tomorrow in Paris?", forecast)
    # Day words alone need a tool that takes a day.
    assert not needs("周末会降温吗", [ToolInfo("w", "now", "Now in one city.", {"properties": {"city": CITY}})])


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway"), {"weather": WEATHER_SERVER}, fake_llm.url)
    yield process
    process.stop()



def test_over_http_the_corrected_arguments_reach_the_weather_server(gateway, fake_llm):
    """A comparison with a place nobody named goes back to the router; its next call, on the wrong day and with a
    part of the day nobody asked about, reaches the real weather server on the asked weekday, all day."""
    fake_llm.script(call("compare_weather", cities=["北京", "上海"], day=2),
                    call("get_precipitation", city="北京", day=2, hours="night"),
                    {"content": "北京周三的情况如上。"})
    body = gateway.chat("ann", {"message": "周三北京会下雨吗"}).json()
    (made,) = body["tool_calls"]
    assert (made["tool"], made["arguments"], made["is_error"]) == (
        "get_precipitation", {"city": "北京", "day": "wednesday"}, False)
    assert "周三" in made["text"] and "夜" not in made["text"]
    fed_back = [m["content"] for m in fake_llm.requests()[1]["messages"] if m["role"] == "tool"]
    assert len(fed_back) == 1 and "上海 not named in the question" in fed_back[0]
    log = (gateway.work_dir / "gateway.log").read_text(encoding="utf-8")
    assert "day=2 replaced by 'wednesday'" in log and "dropped hours='night'" in log


def test_over_http_a_question_with_no_call_is_asked_again_then_gets_the_data(gateway, fake_llm):
    fake_llm.script({"content": "周末可能会降温。"}, call("get_forecast", city="北京", day="weekend", days=2),
                    {"content": "北京周末的预报如上。"})
    body = gateway.chat("bob", {"message": "北京周末会降温吗"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "北京", "day": "weekend"})]  # (the weekend's count of days is the tool's)
    again = fake_llm.requests()[1]
    assert again["tool_choice"] == "required" and again["messages"][-1]["content"].endswith(ASKS_FOR_DATA)
    assert "可能会降温" not in body["response"]


def test_over_http_an_hour_asked_of_a_tool_without_hours_is_asked_again_for_one_with_them(forced_gateway, fake_llm):
    """"晚上九点" routed to the weather now (no hours): asked again with a note, the forecast at 21:00 is called."""
    gateway = forced_gateway
    fake_llm.script(call("get_current_weather", city="合肥"), call("get_forecast", city="合肥", day=0, hours=[21]),
                    {"content": "合肥今天21:00的预报如上。"})
    body = gateway.chat("hal", {"message": "合肥今天晚上九点的气温"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "合肥", "day": 0, "hours": [21]})]
    again = fake_llm.requests()[1]
    assert again["tool_choice"] == "required" and again["messages"][-1]["content"].endswith(ASKS_FOR_AN_HOUR)
    # Asked again in vain, the call goes to the server's first tool that takes the hours and its arguments, at
    # the asked hour; a question with no clock time is not asked again.
    fake_llm.script(call("get_current_weather", city="合肥"), call("get_current_weather", city="合肥"),
                    {"content": "合肥今天21:00的预报如上。"})
    body = gateway.chat("ian", {"message": "合肥今天晚上九点的气温"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "合肥", "hours": [21]})]
    assert body["tool_calls"][0]["structured_content"]["hours"][0]["hour"] == 21
    fake_llm.script(call("get_current_weather", city="合肥"), {"content": "合肥现在的天气如上。"})
    gateway.chat("jan", {"message": "合肥现在天气怎么样"})
    assert len(fake_llm.requests()) == 2


def test_over_http_a_comparison_with_one_place_named_is_the_forecast_of_that_place(forced_gateway, fake_llm):
    """"scorcher or not?" routed to a comparison with a place nobody named, twice: the call goes to the server's
    first tool that takes the one named place and the call's day (the forecast; the weather now takes no day)."""
    fake_llm.script(call("compare_weather", cities=["Alice Springs", "Sydney"], day=2),
                    {"content": "Alice Springs in two days, as above."})
    body = forced_gateway.chat("max", {"message": "Alice Springs in two days - scorcher or not?"}).json()
    assert [(c["tool"], c["arguments"], c["is_error"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "Alice Springs", "day": 2}, False)]
    assert body["tool_calls"][0]["structured_content"]["days"][0]["day"] == 2
    assert sum(1 for request in fake_llm.requests() if request.get("tools")) == 1  # the router once: not asked again
    # Two places named: the comparison is made as asked.
    fake_llm.script(call("compare_weather", cities=["Alice Springs", "Darwin"], day=2),
                    {"content": "Compared as above."})
    body = forced_gateway.chat("ned", {"message": "Alice Springs or Darwin in two days, which is hotter?"}).json()
    assert [c["tool"] for c in body["tool_calls"]] == ["compare_weather"]


def test_over_http_a_comparison_gets_the_places_the_question_lists_with_its_own(forced_gateway, fake_llm):
    """"which of NYC, Boston and Philly gets the coldest low tomorrow night?" was compared for NYC and Boston."""
    fake_llm.script(call("compare_weather", cities=["NYC", "Boston"], day=1), {"content": "Compared as above."})
    body = forced_gateway.chat("phl", {"message": "which of NYC, Boston and Philly gets the coldest low tomorrow "
                                                  "night?"}).json()
    assert [(c["tool"], c["arguments"]["cities"], c["is_error"]) for c in body["tool_calls"]] == [
        ("compare_weather", ["NYC", "Boston", "Philly"], False)]


def test_over_http_a_search_with_a_bound_nobody_gave_is_asked_again_for_the_named_places(forced_gateway, fake_llm):
    """A comparison of named cities with no figure in it routed to the range search with a made-up bound: asked
    again, told so, its comparison of the named places is made; a question that gives its bound is not asked
    again, nor is "below zero" (0)."""
    question = "Of Melbourne, Adelaide and Canberra, which will have the highest top temperature tomorrow?"
    fake_llm.script(call("find_cities_by_temperature", relation="above", temp=25, day=1, measure="max"),
                    call("compare_weather", cities=["Melbourne", "Adelaide", "Canberra"], day=1),
                    {"content": "Compared as above."})
    body = forced_gateway.chat("oto", {"message": question}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("compare_weather", {"cities": ["Melbourne", "Adelaide", "Canberra"], "day": 1})]
    assert fake_llm.requests()[1]["messages"][-1]["content"].endswith(
        NOT_IN_THE_QUESTION.format(arguments="temp", tool="weather__find_cities_by_temperature"))
    # Numerals of day words are no figures ("周六冈山和高松哪个更暖和" became a search from 15 to 20).
    fake_llm.script(call("find_cities_by_temperature", relation="between", temp=15, temp2=20, day="saturday"),
                    call("compare_weather", cities=["冈山", "高松"], day="saturday"), {"content": "Compared as above."})
    body = forced_gateway.chat("sat", {"message": "周六冈山和高松哪个更暖和"}).json()
    assert [c["tool"] for c in body["tool_calls"]] == ["compare_weather"]
    # nor are counts of days or places ("周末两天芽庄和美奈哪边雨少" became a search from 10 to 20)
    for counted, places in (("周末两天冈山和高松哪边雨少", ["冈山", "高松"]),
                            ("Over the next 3 days, which of Okayama and Takamatsu is wetter?", ["Okayama", "Takamatsu"])):
        fake_llm.script(call("find_cities_by_temperature", relation="between", temp=10, temp2=20, day=0),
                        call("compare_weather", cities=places, day=0, days=3),
                        {"content": "Compared as above."})
        body = forced_gateway.chat("two", {"message": counted}).json()
        assert [c["tool"] for c in body["tool_calls"]] == ["compare_weather"], counted
    # A bound of 0 is made up too where no word says zero ("现在敦化和扎兰屯哪个更冷" became a search below 0).
    fake_llm.script(call("find_cities_by_temperature", relation="below", temp=0, day=0),
                    call("compare_weather", cities=["敦化", "扎兰屯"], day=0), {"content": "Compared as above."})
    body = forced_gateway.chat("zero", {"message": "现在敦化和扎兰屯哪个更冷"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("compare_weather", {"cities": ["敦化", "扎兰屯"], "day": 0})]
    for asked, bound in (("Which cities will be above 25 tomorrow?", 25), ("哪些城市明天零下", 0),
                         ("Which cities are below freezing tomorrow?", 0)):
        fake_llm.script(call("find_cities_by_temperature", relation="above", temp=bound, day=1),
                        {"content": "Listed above."})
        body = forced_gateway.chat("pia", {"message": asked}).json()
        assert [c["tool"] for c in body["tool_calls"]] == ["find_cities_by_temperature"]
        assert not any("The question gives no" in m["content"] for r in fake_llm.requests() for m in r["messages"])
    # Asked again without the search, the router made no call: the search of a bound nobody gave is not made
    # either ("Should I pack a rain jacket for Salta tomorrow?" was answered with the places above 10); told that a
    # tool has the data, it calls for the named place.
    fake_llm.script(call("find_cities_by_temperature", relation="above", temp=10, day=1, measure="max"),
                    call("answer_directly"), call("get_precipitation", city="Salta", day=1),
                    {"content": "Salta: no rain tomorrow."})
    body = forced_gateway.chat("salta", {"message": "Should I pack a rain jacket for Salta tomorrow?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_precipitation", {"city": "Salta", "day": 1})]
    # Nor in the place of a call whose results lack what the question asks for (a jacket: the temperature).
    fake_llm.script(call("get_precipitation", city="Salta", day=1),
                    call("find_cities_by_temperature", relation="above", temp=10, day=1, measure="max"),
                    {"content": "Salta: no rain tomorrow."})
    body = forced_gateway.chat("salta2", {"message": "Should I pack a rain jacket for Salta tomorrow?"}).json()
    assert [c["tool"] for c in body["tool_calls"]] == ["get_precipitation"]


SEARCH = {"properties": {"relation": {"enum": ["above", "below", "between"], "type": "string"},
                         "temp": {"type": "number"}, "temp2": {"anyOf": [{"type": "number"}, {"type": "null"}]},
                         "day": DAY, "fahrenheit": {"type": "boolean"}}, "required": ["relation", "temp"]}


@pytest.mark.parametrize(("question", "arguments", "misquoted"), [
    ("cities below 0°F tomorrow?", {"relation": "below", "temp": -1, "fahrenheit": True}, ["temp"]),
    ("那后天10度以下的有哪些", {"relation": "between", "temp": 20, "temp2": 25, "day": 2}, ["temp", "temp2"]),
    ("Where is it between -5 and 3.5 today?", {"relation": "between", "temp": -5, "temp2": 3.5}, []),
    ("哪些城市明天零下5度以下", {"relation": "below", "temp": -5, "day": 1}, []),  # read from the gloss
    ("anywhere at minus 10 or colder?", {"relation": "below", "temp": -10}, []),
    ("明天25-30度的城市", {"relation": "between", "temp": 25, "temp2": 30, "day": 1}, []),
    ("哪些城市明天零下", {"relation": "below", "temp": 0, "day": 1}, []),
    ("明天三十度以上的城市", {"relation": "above", "temp": 30, "day": 1}, []),  # Chinese numerals, read
    ("明天三十度以上的城市", {"relation": "above", "temp": 3, "day": 1}, ["temp"]),
    # the first of a range of Chinese numerals shares the second's sign
    ("明儿十五到二十度的地方有哪些", {"relation": "between", "temp": 20, "temp2": 20, "day": 1}, ["temp2"]),
    ("明儿十五到二十度的地方有哪些", {"relation": "between", "temp": 15, "temp2": 20, "day": 1}, []),
    ("今天零下二十到零下十度的城市", {"relation": "between", "temp": -20, "temp2": -10, "day": 0}, []),
    ("今天零下二十到零下十度的城市", {"relation": "between", "temp": -10, "temp2": -10, "day": 0}, ["temp2"]),
    ("Which of Oslo and Rome is warmer?", {"relation": "above", "temp": 20}, []),  # no figure: made_up_numbers
    # one figure twice where the question writes another; "零下10度" is -10 only
    ("今天零下10度到零度之间的城市", {"relation": "between", "temp": -10, "temp2": -10, "day": 0}, ["temp2"]),
    ("今天零下10度到零度之间的城市", {"relation": "between", "temp": -10, "temp2": 10, "day": 0}, ["temp2"]),
    ("今天零下10度到零度之间的城市", {"relation": "between", "temp": -10, "temp2": 0, "day": 0}, []),
])
def test_figures_a_call_does_not_take_as_the_question_writes_them_are_told_apart(question, arguments, misquoted):
    assert misquoted_numbers(arguments, SEARCH, question, VOCABULARY) == misquoted


def test_over_http_a_bound_not_as_the_question_writes_it_is_asked_again_with_its_figures(forced_gateway, fake_llm):
    """"below 0°F" searched below -1: asked once more, told the question's figures, the search below 0 is made;
    a second answer that misquotes as much is not taken: the question's one figure is put in its place ("Anywhere
    below 0°C tomorrow?" was searched below -1 twice)."""
    fake_llm.script(call("find_cities_by_temperature", relation="below", temp=-1, day=1, fahrenheit=True),
                    call("find_cities_by_temperature", relation="below", temp=0, day=1, fahrenheit=True),
                    {"content": "Listed above."})
    body = forced_gateway.chat("fig", {"message": "cities below 0°F tomorrow?"}).json()
    assert [c["arguments"] for c in body["tool_calls"]] == [
        {"relation": "below", "temp": 0, "day": 1, "fahrenheit": True}]
    assert fake_llm.requests()[1]["messages"][-1]["content"].endswith(MISQUOTED.format(written="0",
                                                                                         arguments="temp=-1"))
    fake_llm.script(call("find_cities_by_temperature", relation="below", temp=-1, day=1, fahrenheit=True),
                    call("find_cities_by_temperature", relation="below", temp=-2, day=1, fahrenheit=True),
                    {"content": "Listed above."})
    body = forced_gateway.chat("fig2", {"message": "cities below 0°F tomorrow?"}).json()
    assert [c["arguments"]["temp"] for c in body["tool_calls"]] == [0]
    # Two figures written for two bounds: the lower first, as the schema lists them ("and between 5 and 20 F" was
    # searched from -22 to -12, twice).
    fake_llm.script(call("find_cities_by_temperature", relation="between", temp=-1, temp2=10, day=1),
                    call("find_cities_by_temperature", relation="between", temp=-2, temp2=10, day=1),
                    {"content": "Listed above."})
    body = forced_gateway.chat("fig3", {"message": "cities between 0 and 10°C tomorrow?"}).json()
    assert [(c["arguments"]["temp"], c["arguments"]["temp2"]) for c in body["tool_calls"]] == [(0, 10)]
    fake_llm.script(call("find_cities_by_temperature", relation="between", temp=-22, temp2=-12, day=2, fahrenheit=True),
                    call("find_cities_by_temperature", relation="between", temp=-22, temp2=-12, day=2, fahrenheit=True),
                    {"content": "Listed above."})
    body = forced_gateway.chat("fig4", {"message": "and between 5 and 20 F the day after tomorrow"}).json()
    assert [(c["arguments"]["temp"], c["arguments"]["temp2"]) for c in body["tool_calls"]] == [(5, 20)]


def test_over_http_a_call_for_a_made_up_place_is_asked_again_without_its_tool(forced_gateway, fake_llm):
    """"where will it be from 60°F up to 75°F" routed to the forecast of "Beijing", which nobody named: asked again
    without the forecast, the range search is made; a question naming no place and needing no tool keeps the own
    answer."""
    fake_llm.script(call("get_forecast", city="Beijing", day=2, fahrenheit=True),
                    call("find_cities_by_temperature", relation="between", temp=60, temp2=75, day=2, fahrenheit=True),
                    {"content": "Listed above."})
    body = forced_gateway.chat("quy", {"message": "day after tomorrow, where will it be from 60°F up to 75°F"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("find_cities_by_temperature", {
        "relation": "between", "temp": 60, "temp2": 75, "day": 2, "fahrenheit": True})]
    assert fake_llm.requests()[1]["messages"][-1]["content"].endswith(
        NOT_IN_THE_QUESTION.format(arguments="Beijing", tool="weather__get_forecast"))
    assert "weather__get_forecast" not in json.dumps(fake_llm.requests()[1]["tools"])


def test_over_http_another_day_asked_of_a_tool_of_the_present_is_asked_again_for_one_that_takes_a_day(
        forced_gateway, fake_llm):
    """"明儿牡丹江冷不冷" routed to the weather now: asked again with a note, tomorrow's forecast is called."""
    fake_llm.script(call("get_current_weather", city="牡丹江"), call("get_forecast", city="牡丹江", day=1),
                    {"content": "牡丹江明天的预报如上。"})
    body = forced_gateway.chat("kim", {"message": "明儿牡丹江冷不冷啊"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "牡丹江", "day": 1})]
    again = fake_llm.requests()[1]
    assert again["tool_choice"] == "required" and again["messages"][-1]["content"].endswith(ASKS_FOR_A_DAY)
    fake_llm.script(call("get_current_weather", city="牡丹江"), {"content": "牡丹江现在的天气如上。"})
    body = forced_gateway.chat("lee", {"message": "牡丹江现在冷不冷"}).json()  # now: the weather now answers it
    assert [c["tool"] for c in body["tool_calls"]] == ["get_current_weather"]
    assert not any(ASKS_FOR_A_DAY in r["messages"][-1]["content"] for r in fake_llm.requests())


def test_over_http_today_asked_of_a_tool_of_the_present_twice_is_moved_to_a_tool_that_takes_a_day(
        forced_gateway, fake_llm):
    """"今天信阳天气" (today, not now) routed twice to the weather now: moved to the server's first tool that takes
    a day and the call's arguments, on today."""
    fake_llm.script(call("get_current_weather", city="信阳"), call("get_current_weather", city="信阳"),
                    {"content": "信阳今天的预报如上。"})
    body = forced_gateway.chat("xin", {"message": "今天信阳天气"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", {"city": "信阳"})]
    assert body["tool_calls"][0]["structured_content"]["days"][0]["day"] == 0
    assert fake_llm.requests()[1]["messages"][-1]["content"].endswith(ASKS_FOR_A_DAY)


def test_over_http_a_follow_up_naming_a_new_place_keeps_it_when_the_conversation_brings_back_the_old_one(
        forced_gateway, fake_llm):
    """"芽庄呢？" after a question on 岘港: asked alone, the router calls 芽庄; asked with the earlier calls, it
    copies 岘港. The call made is the second (the tool and day the conversation gives) with the place asked."""
    fake_llm.script(call("get_forecast", city="岘港", day="weekend", days=2), {"content": "岘港周末的预报如上。"},
                    auto=True)
    forced_gateway.chat("oz", {"message": "周末去岘港，天气好不好？"})
    fake_llm.script(call("get_forecast", city="芽庄"), call("get_forecast", city="岘港", day="weekend", days=2),
                    {"content": "芽庄周末的预报如上。"}, auto=True)
    body = forced_gateway.chat("oz", {"message": "芽庄呢？"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "芽庄", "day": "weekend", "days": 2})]
    assert "as the question states it" in (forced_gateway.work_dir / "gateway.log").read_text(encoding="utf-8")


def test_over_http_a_forced_call_its_schema_refuses_is_handed_back_once_with_the_reason(forced_gateway, fake_llm):
    fake_llm.script(call("get_weather_chart", city="柳州", kind="temperature", day=-1, days=1),
                    call("get_forecast", city="柳州", day=-1), {"content": "柳州昨天的数据如上。"})
    body = forced_gateway.chat("quinn", {"message": "柳州昨天最低降到几度"}).json()
    assert [(c["tool"], c["arguments"], c["is_error"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "柳州", "day": -1}, False)]
    note = fake_llm.requests()[1]["messages"][-1]["content"]
    assert "That call was refused: weather__get_weather_chart: invalid arguments" in note and "days" in note


def test_over_http_more_of_one_or_another_is_one_comparison_of_both(forced_gateway, fake_llm):
    """"Over the next 3 days, where will it rain more: Cardiff or Plymouth, England?" got each place's forecast,
    and the writer named the drier one: one comparison of both decides it."""
    fake_llm.script(call("get_forecast", city="Cardiff", day=0, days=3), {"content": "As above."})
    body = forced_gateway.chat("wet", {"message": "Over the next 3 days, where will it rain more: Cardiff or "
                                                  "Plymouth, England?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("compare_weather", {"day": 0, "days": 3, "cities": ["Cardiff", "Plymouth, England"]})]


def test_over_http_a_call_refused_twice_is_asked_a_third_time_of_the_other_tools(forced_gateway, fake_llm):
    """"How warm did San Antonio get yesterday?": told why its chart of one day was refused, the router made it
    again; the third time the chart is not offered (the same prompt), and yesterday's forecast answers."""
    chart = call("get_weather_chart", city="San Antonio", kind="temperature", day=-1, days=1)
    fake_llm.script(chart, chart, call("get_forecast", city="San Antonio", day=-1), {"content": "As above."})
    body = forced_gateway.chat("rho", {"message": "How warm did San Antonio get yesterday? the high, I mean"}).json()
    assert [(c["tool"], c["arguments"], c["is_error"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "San Antonio", "day": -1}, False)]
    second, third = fake_llm.requests()[1:3]
    assert second["messages"] == third["messages"]
    offered = {spec["function"]["name"] for spec in third["tools"]}
    assert "weather__get_weather_chart" not in offered and "weather__get_forecast" in offered


def test_over_http_a_comparison_of_one_place_asks_its_forecast_of_the_days_compared(forced_gateway, fake_llm):
    """"昨天和今天比，成都哪天更冷？" was called as a comparison of 成都 alone, which the schema refuses; asked again
    (told why), a small model searched every place below 10, a figure nobody gave. The one place's forecast of the
    two days is called at once, and a reply that calls the wrong day colder is rejected: of two days, the forecast
    says which is colder."""
    question = "昨天和今天比，成都哪天更冷？"
    fake_llm.script(call("compare_weather", cities=["成都"], day=-1, days=2), {"content": "见上。"})
    body = forced_gateway.chat("cd1", {"message": question}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "成都", "day": -1, "days": 2})]
    assert sum(bool(request.get("tools")) for request in fake_llm.requests()) == 1  # the router was not asked again
    yesterday, today = body["tool_calls"][0]["structured_content"]["days"]
    if yesterday["temp_min"] == today["temp_min"]:
        pytest.skip("the simulated lows tie today")
    colder, warmer = (yesterday, today) if yesterday["temp_min"] < today["temp_min"] else (today, yesterday)
    name = {-1: "昨天", 0: "今天"}
    wrong = f"{name[warmer['day']]}比{name[colder['day']]}更冷，最低{colder['temp_min']:g}°C。"
    right = f"{name[colder['day']]}更冷：最低{colder['temp_min']:g}°C，{name[warmer['day']]}{warmer['temp_min']:g}°C。"
    fake_llm.script(call("compare_weather", cities=["成都"], day=-1, days=2), {"content": wrong}, {"content": right})
    body = forced_gateway.chat("cd2", {"message": question}).json()
    assert body["answer_source"] == "model" and body["response"].startswith(right), body["response"]
    assert "更冷" in fake_llm.requests()[2]["messages"][-1]["content"]  # the retry was told the colder day


def test_over_http_a_day_beyond_the_data_is_not_answered_with_the_present(forced_gateway, fake_llm):
    """"the coldest temperature recorded in Tomsk in January 1998": the forecast tool says its data does not reach
    that day; told so, the router called the tool of the present moment, whose figures would have been given as
    1998's. No call is made after the error, and the answer says how far the data reaches."""
    fake_llm.script(call("get_forecast", city="Tomsk", day="1998-01-01"), call("get_current_weather", city="Tomsk"),
                    {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("tomsk", {"message": "What was the coldest temperature recorded in Tomsk in "
                                                    "January 1998?"}).json()
    assert [(c["tool"], c["is_error"]) for c in body["tool_calls"]] == [("get_forecast", True)]
    assert body["response"].startswith("Sorry, I could not get that") and "1998-01-01" in body["response"]


def test_over_http_calls_the_server_answered_with_errors_are_asked_again_told_the_errors(forced_gateway, fake_llm):
    """"Dome Fuji Station ... coordinates -77.32, 39.70": the name is no place the server knows, and its error says
    that coordinates are taken; told the error, the router calls with the question's coordinates. A place nobody
    named, made up after an error, is not called."""
    fake_llm.script(call("get_current_weather", city="Dome Fuji Station"),
                    call("get_current_weather", city="-77.32, 39.70"), {"content": "As above."})
    body = forced_gateway.chat("sig", {"message": "How cold is it right now at Dome Fuji Station in Antarctica? "
                                                  "coordinates -77.32, 39.70"}).json()
    assert [(c["arguments"]["city"], c["is_error"]) for c in body["tool_calls"]] == [("-77.32, 39.70", False)]
    note = fake_llm.requests()[1]["messages"][-1]["content"]
    assert "That call was refused: weather__get_current_weather: Unknown place 'Dome Fuji Station'" in note
    assert "'latitude,longitude'" in note
    fake_llm.script(call("get_current_weather", city="Narnia"), call("get_current_weather", city="Narni"),
                    {"content": "As above."})
    body = forced_gateway.chat("tau", {"message": "Is it snowing in Narnia right now?"}).json()
    assert [(c["arguments"]["city"], c["is_error"]) for c in body["tool_calls"]] == [("Narnia", True)]
    assert body["response"].startswith("Sorry, I could not get that: Narnia is a place of stories")
    # ... nor a search of every place below a figure nobody gave, for two places compared
    fake_llm.script(call("compare_weather", cities=["Narnia", "Oslo"]),
                    call("find_cities_by_temperature", relation="below", temp=10), {"content": "As above."})
    body = forced_gateway.chat("tau2", {"message": "Which is colder now, Narnia or Oslo?"}).json()
    assert [(c["tool"], c["is_error"]) for c in body["tool_calls"]] == [("compare_weather", True)]
    assert body["response"].startswith("Sorry, I could not get that: Narnia is a place of stories")
    # ... but a place the error names is named ("'Peru' is a country …, such as Lima, its capital")
    fake_llm.script(call("get_current_weather", city="Peru"), call("get_current_weather", city="Lima"),
                    {"content": "As above."})
    body = forced_gateway.chat("upsilon", {"message": "whats the capital of peru, and how warm is it there rn"}).json()
    assert [(c["arguments"]["city"], c["is_error"]) for c in body["tool_calls"]] == [("Lima", False)]


def test_over_http_a_follow_up_naming_no_day_is_called_for_the_day_before(forced_gateway, fake_llm):
    """"需要带雨具吗？" after a question on 下周一: asked with the earlier calls, the router wrote day 7 (the
    date's day of the month); the call made is for next Monday's date, as the first call was."""
    fake_llm.script(call("get_forecast", city="武夷山", day=5), {"content": "武夷山下周一的预报如上。"}, auto=True)
    first = forced_gateway.chat("pat", {"message": "下周一要去武夷山，那天天气如何？"}).json()
    monday = first["tool_calls"][0]["arguments"]["day"]
    fake_llm.script(call("get_precipitation", city="北京"), call("get_precipitation", city="武夷山", day=7),
                    {"content": "武夷山那天的降水如上。"}, auto=True)
    body = forced_gateway.chat("pat", {"message": "需要带雨具吗？"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_precipitation", {"city": "武夷山", "day": monday})]


def test_over_http_the_day_after_that_is_the_day_after_the_one_the_conversation_was_about(forced_gateway, fake_llm):
    """"And the day after that?" after a question on tomorrow: the router repeated the earlier day; the call is
    for the day after it, in the form the earlier call wrote it (an offset, a date); by the tool that holds the
    most, its yes or no among its verdicts."""
    fake_llm.script(call("get_precipitation", city="Brussels", day=1), {"content": "Rain tomorrow."}, auto=True)
    forced_gateway.chat("kim", {"message": "Brussels tomorrow, will I get wet?"})
    fake_llm.script(call("get_precipitation", city="Brussels", day=1), call("get_precipitation", city="Brussels", day=1),
                    {"content": "See the outlook above."}, auto=True)
    body = forced_gateway.chat("kim", {"message": "And the day after that?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "Brussels", "day": 2})]
    fake_llm.script(call("get_forecast", city="武夷山", day=5), {"content": "武夷山下周一的预报如上。"}, auto=True)
    monday = forced_gateway.chat("lee", {"message": "下周一要去武夷山，那天天气如何？"}).json()["tool_calls"][0]["arguments"]["day"]
    fake_llm.script(call("get_forecast", city="武夷山", day=monday), call("get_forecast", city="武夷山", day=monday),
                    {"content": "武夷山那天的预报如上。"}, auto=True)
    body = forced_gateway.chat("lee", {"message": "那第二天呢？"}).json()
    tuesday = (dt.date.fromisoformat(monday) + dt.timedelta(days=1)).isoformat()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", {"city": "武夷山", "day": tuesday})]


def test_over_http_a_place_asked_about_on_that_day_is_called_for_the_conversation_s_day(forced_gateway, fake_llm):
    """"顺便看看天水那天的天气" after a question on 下周三 in 宝鸡: it names its own place, so the router was asked with
    the question alone and called today; the call made is for the day the conversation was about."""
    fake_llm.script(call("get_forecast", city="宝鸡", day=1), {"content": "宝鸡下周三的预报如上。"}, auto=True)
    first = forced_gateway.chat("tia", {"message": "下周三我要去宝鸡出差，天气怎么样"}).json()
    wednesday = first["tool_calls"][0]["arguments"]["day"]
    fake_llm.script(call("get_forecast", city="天水", day=0), {"content": "天水那天的预报如上。"}, auto=True)
    body = forced_gateway.chat("tia", {"message": "顺便看看天水那天的天气"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "天水", "day": wednesday})]


def test_over_http_a_day_word_of_another_language_is_the_day_called(forced_gateway, fake_llm):
    """"Quel temps fera-t-il à Paris jeudi ? Answer in English please." was called for Friday: the call made is
    for Thursday, as the weekday, so the server counts it from Paris's own date."""
    fake_llm.script(call("get_forecast", city="Paris", day="friday"), {"content": "Paris on Thursday: see above."},
                    auto=True)
    body = forced_gateway.chat("zed", {"message": "Quel temps fera-t-il à Paris jeudi ? Answer in English please."})
    assert [(c["tool"], c["arguments"]) for c in body.json()["tool_calls"]] == [
        ("get_forecast", {"city": "Paris", "day": "thursday"})]


def test_over_http_a_day_counted_past_the_forecast_is_called_as_that_day_and_said_to_be_out_of_reach(
        forced_gateway, fake_llm):
    """"16 days from today" was called as 16 days from today and answered with 16 days of figures: the call made
    is for that one day, which the server refuses as out of range, and the reply says so with no figures."""
    fake_llm.script(call("get_forecast", city="Berlin", day=0, days=16), {"content": "Berlin will be mild."},
                    auto=True)
    body = forced_gateway.chat("vic", {"message": "What will the weather be in Berlin 16 days from today?"}).json()
    assert [(c["tool"], c["arguments"], c["is_error"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "Berlin", "day": 16}, True)]
    assert "beyond" in body["response"] and "mild" not in body["response"]


def test_over_http_a_follow_up_naming_only_a_place_asks_the_earlier_question_of_it(forced_gateway, fake_llm):
    """"芽庄呢？" after a rain question on Sunday: the router called the forecast of today; the call is for Sunday,
    of 芽庄, by the tool that holds the most (dev44's "and the day after?" after "will it snow up there?" was labelled
    a forecast, and the rain tool's answer is its yes or no alone). A follow-up that says more ("芽庄明天热吗") keeps
    the router's tool."""
    fake_llm.script(call("get_precipitation", city="岘港", day="sunday"), {"content": "岘港周日的降水如上。"}, auto=True)
    forced_gateway.chat("ivy", {"message": "岘港周日会下雨吗"})
    fake_llm.script(call("get_forecast", city="芽庄"), call("get_forecast", city="芽庄", day="sunday"),
                    {"content": "芽庄周日的降水如上。"}, auto=True)
    body = forced_gateway.chat("ivy", {"message": "芽庄呢？"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "芽庄", "day": "sunday"})]
    fake_llm.script(call("get_forecast", city="芽庄", day=1), call("get_forecast", city="芽庄", day=1),
                    {"content": "芽庄明天的预报如上。"}, auto=True)
    body = forced_gateway.chat("ivy", {"message": "那芽庄明天热吗？"}).json()
    assert [c["tool"] for c in body["tool_calls"]] == ["get_forecast"]
    assert says_only("What about Kingston, Ontario?", ["Kingston, Ontario"]) and says_only("那芽庄呢", ["芽庄"])
    assert not says_only("芽庄明天呢", ["芽庄"]) and not says_only("明天呢", [])


def test_over_http_a_place_named_with_others_is_called_with_each_of_them(forced_gateway, fake_llm):
    """"Any rain in Prague or Budapest tomorrow?" was called for Prague only: the same call is made for Budapest
    too (a question that asks which of them is colder gets one comparison). A qualifier after a comma is no
    second place."""
    fake_llm.script(call("get_precipitation", city="Prague", day=1), {"content": "No rain in either."}, auto=True)
    body = forced_gateway.chat("uma", {"message": "Any rain in Prague or Budapest tomorrow?"}).json()
    assert [(c["tool"], c["arguments"]["city"]) for c in body["tool_calls"]] == [
        ("get_precipitation", "Prague"), ("get_precipitation", "Budapest")]
    fake_llm.script(call("get_current_weather", city="Prague"), {"content": "Budapest is colder."}, auto=True)
    body = forced_gateway.chat("uma3", {"message": "Is it colder in Prague or Budapest right now?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("compare_weather", {"cities": ["Prague", "Budapest"]})]
    assert siblings("Oslo", "Oslo, Bergen and Tromsø tomorrow?", VOCABULARY) == ["Bergen", "Tromsø"]
    assert siblings("São Paulo", "Is São Paulo or Rio de Janeiro warmer?", VOCABULARY) == ["Rio de Janeiro"]
    assert siblings("Montevideo", "Warmest: Montevideo, Asunción or Córdoba, Argentina?", VOCABULARY) == [
        "Asunción", "Córdoba"]
    assert siblings("London", "London, Ontario this Friday?", VOCABULARY) == [] == siblings(
        "Paris", "Rain in Paris or snow?", VOCABULARY)
    # With no "or"/"and", names joined by two commas in a question that compares are a list, not qualifiers.
    assert siblings("Dunedin", "Dunedin, Nelson, Rotorua - which will have the highest temperature the day after "
                    "tomorrow?", VOCABULARY) == ["Nelson", "Rotorua"]
    assert siblings("Portland", "Portland, Maine, USA - weather tomorrow?", VOCABULARY) == []
    # Typed in lowercase, two names around "vs" still are ("nanaimo vs chicoutimi" was called for nanaimo only).
    assert siblings("nanaimo", "nanaimo vs chicoutimi, which one's colder right now", VOCABULARY) == ["chicoutimi"]
    assert siblings("lima", "lima vs quito which is warmer", VOCABULARY) == ["quito"]
    assert siblings("san jose", "san jose vs santa cruz?", VOCABULARY) == ["santa cruz"]
    # ... up to the words after them ("tucson vs boise over the next 7 days" was compared for "Boise, over")
    assert siblings("tucson", "tucson vs boise over the next 7 days, which one gets hotter", VOCABULARY) == ["boise"]
    assert siblings("ghent", "is ghent or bologna more likely to see rain on friday", VOCABULARY) == ["bologna"]
    # A trip's two ends asked of together ("moving from Chattanooga, TN to Asheville, NC on Saturday. is it going
    # to rain in either?" was called for Chattanooga only); one end alone is the other mends' to settle.
    assert siblings("Chattanooga, TN", "moving from Chattanooga, TN to Asheville, NC on Saturday. is it going to rain "
                    "in either?", VOCABULARY) == ["Asheville, NC"]
    assert siblings("Lyon", "driving from Lyon to Turin tomorrow, will both be dry?", VOCABULARY) == ["Turin"]
    assert siblings("Lyon", "driving from Lyon to Turin tomorrow, will it rain there?", VOCABULARY) == []
    # Chinese names have no capitals: in a comparison, each ends where the question's own words begin.
    assert siblings("成都", "成都、重庆还是贵阳明天雨多？", VOCABULARY) == ["重庆", "贵阳"]
    assert siblings("哈尔滨", "哈尔滨跟乌鲁木齐今天谁更冷", VOCABULARY) == ["乌鲁木齐"]
    assert siblings("呼和浩特", "呼和浩特和银川比较一下", VOCABULARY) == ["银川"]  # 和 inside a name does not join
    assert siblings("北京", "北京和朋友去爬山", VOCABULARY) == []  # no comparison: "朋友" is no place
    assert siblings("北京", "北京和上海冷不冷，哪个更冷", VOCABULARY) == ["上海"]  # the domain's words end a name
    # 各 and 分 end a name only as 各自 and 分别 (dev27's 加尔各答 was called as 加尔, and 班加罗尔 left out).
    assert siblings("孟买", "孟买、金奈、加尔各答、班加罗尔 明天哪里雨最多", VOCABULARY) == ["金奈", "加尔各答", "班加罗尔"]
    assert siblings("北京", "北京和上海各自明天多少度", VOCABULARY) == ["上海"] \
        == siblings("北京", "北京和上海分别多少度", VOCABULARY)
    # Latin names joined in Chinese (dev29's "周日 Oaxaca 和 Puebla 哪边最低温更低" was called for Oaxaca only).
    assert siblings("Oaxaca", "周日 Oaxaca 和 Puebla 哪边最低温更低", VOCABULARY) == ["Puebla"]
    assert siblings("Colmar", "明天Colmar、Strasbourg还是Basel哪个冷", VOCABULARY) == ["Strasbourg", "Basel"]
    assert siblings("Berlin", "明天 Berlin 会下雨吗", VOCABULARY) == []


def test_over_http_a_chinese_comparison_called_for_one_place_is_called_for_each(forced_gateway, fake_llm):
    """"北京和上海现在哪个更冷" called for 北京: made for both, as one comparison; "都" asks each its own."""
    fake_llm.script(call("get_current_weather", city="北京"), {"content": "上海更暖和。"}, auto=True)
    body = forced_gateway.chat("uma", {"message": "北京和上海现在哪个更冷？"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("compare_weather", {"cities": ["北京", "上海"]})]
    fake_llm.script(call("get_precipitation", city="北京", day=1), {"content": "都不会下雨。"}, auto=True)
    body = forced_gateway.chat("uma2", {"message": "北京和上海明天都下雨吗？"}).json()
    assert [(c["tool"], c["arguments"]["city"]) for c in body["tool_calls"]] == [
        ("get_precipitation", "北京"), ("get_precipitation", "上海")]


def test_over_http_calls_of_one_tool_for_the_places_compared_are_one_comparison(forced_gateway, fake_llm):
    """"Windier tomorrow: Inverness or Lerwick?" got each place's forecast, and the writer named the calmer one:
    the calls become one of the tool that compares them and decides the winner (a flag left at its default is
    dropped, the tool lacks it); calls the comparing tool cannot take stay as they are."""
    fake_llm.script(call("get_forecast", city="Inverness", day=1, fahrenheit=False),
                    call("get_forecast", city="Lerwick", day=1, fahrenheit=False), {"content": "Compared."},
                    auto=True)
    body = forced_gateway.chat("win", {"message": "Windier tomorrow: Inverness or Lerwick?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("compare_weather", {"cities": ["Inverness", "Lerwick"], "day": 1})]
    fake_llm.script(call("get_forecast", city="Inverness", day=1, hours=[9]),
                    call("get_forecast", city="Lerwick", day=1, hours=[9]), {"content": "Compared."}, auto=True)
    body = forced_gateway.chat("win2", {"message": "Which is windier at 9am tomorrow, Inverness or Lerwick?"}).json()
    assert [c["tool"] for c in body["tool_calls"]] == ["get_forecast", "get_forecast"]
    # A list of three: each place as it is listed, not qualified by the next one ("Nelson, Rotorua").
    fake_llm.script(call("get_forecast", city="Dunedin", day=2), {"content": "Compared."}, auto=True)
    question = "Dunedin, Nelson, Rotorua - which will have the highest temperature the day after tomorrow?"
    body = forced_gateway.chat("win3", {"message": question}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("compare_weather", {"cities": ["Dunedin", "Nelson", "Rotorua"], "day": 2})]


def test_over_http_a_day_the_router_wrote_as_the_place_is_no_place_the_question_names(forced_gateway, fake_llm):
    """"Thursday any better?" was called with city "Thursday": a day is not the question's place, so the router
    is asked again with the conversation, and the earlier place is called for Thursday."""
    fake_llm.script(call("get_precipitation", city="Springfield, Oregon", day=1), {"content": "Rain tomorrow."},
                    auto=True)
    forced_gateway.chat("ulf", {"message": "Is it going to rain in Springfield, Oregon tomorrow?"})
    fake_llm.script(call("get_precipitation", city="Thursday", day="thursday"),
                    call("get_precipitation", city="Springfield, Oregon", day="thursday"),
                    {"content": "Thursday is drier."}, auto=True)
    body = forced_gateway.chat("ulf", {"message": "Thursday any better?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "Springfield, Oregon", "day": "thursday"})]


def test_the_day_after_is_told_from_the_day_after_tomorrow():
    assert names_the_day_after("And the day after that?") and names_the_day_after("那次日呢") \
        and names_the_day_after("What about the next day?")
    assert not names_the_day_after("What about the day after tomorrow?") \
        and not names_the_day_after("Rain in the next days?") and not names_the_day_after("后天呢") \
        and not names_the_day_after("What's the day after tomorow like?")


def test_over_http_a_quantity_the_called_tool_lacks_is_asked_of_a_tool_whose_results_hold_it(forced_gateway, fake_llm):
    """UV asked beside the rain, the rain tool called: its result has no UV, the forecast's schema has
    `uv_index_max`, so the router is asked again, told which tools hold it, and the forecast's result takes the rain
    tool's place. (UV alone moves to the forecast at once: from_a_yes_or_no_tool.)"""
    fake_llm.script(call("get_precipitation", city="Rio de Janeiro", day=1),
                    call("get_forecast", city="Rio de Janeiro", day=1), {"content": "See the forecast above."})
    body = forced_gateway.chat("max", {"message": "Will it rain in Rio de Janeiro tomorrow, and how strong will the "
                                                  "UV be?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_forecast", {"city": "Rio de Janeiro", "day": 1})]
    uv = body["tool_calls"][0]["structured_content"]["days"][0]["uv_index_max"]
    facts = fake_llm.requests()[2]["messages"][-1]["content"]  # what the writer read
    assert "UV" in facts and f"{uv:g}" in facts and "does not include" not in body["response"]
    note = fake_llm.requests()[1]["messages"][-1]["content"]
    # (not the comparison's tool either: one place was asked about)
    assert note.endswith(ASKS_FOR_A_QUANTITY.format(quantities="UV", tools="weather__get_forecast"))
    # (not the weather now, which has UV too: the question asks about tomorrow)
    # A quantity no tool holds (tides) is not asked again: said to be missing, and only that (no writer is asked
    # to word figures of something else).
    fake_llm.script(call("get_forecast", city="青岛", day=1))
    body = forced_gateway.chat("ned", {"message": "明天青岛几点涨潮"}).json()
    assert len(fake_llm.requests()) == 1 and "没有涨潮" in body["response"]
    # So are the others users ask a weather assistant for and no weather tool has: waves, typhoons, snow depth,
    # eruptions.
    for user, question, city, word in (("oli", "How big are the waves in Biarritz tomorrow?", "Biarritz", "waves"),
                                       ("pam", "冲绳明天有台风吗", "冲绳", "台风"),
                                       ("quinn", "What's the snow depth in Zermatt tomorrow?", "Zermatt", "snow depth"),
                                       ("rui", "鹿儿岛的火山明天会喷发吗", "鹿儿岛", "火山")):
        fake_llm.script(call("get_forecast", city=city, day=1))
        body = forced_gateway.chat(user, {"message": question}).json()
        assert len(fake_llm.requests()) == 1 and word in body["response"], body["response"]


def test_over_http_a_call_the_router_repeats_for_a_lacking_quantity_moves_to_a_tool_holding_it(forced_gateway,
                                                                                                  fake_llm):
    """"How cold will it get in Oslo tomorrow?" got the rain tool, and again when told that the forecast holds the
    temperature: the call moves to the forecast with its arguments, and the answer does not say the temperature
    is missing."""
    fake_llm.script(call("get_precipitation", city="Oslo", day=1), call("get_precipitation", city="Oslo", day=1),
                    {"content": "See the forecast above."})
    body = forced_gateway.chat("rex", {"message": "How cold will it get in Oslo tomorrow?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", {"city": "Oslo", "day": 1})]
    assert "does not include" not in body["response"] and "°" in body["response"]
    # Nor when it makes no call at all; the call of one place stays one place's (not the comparison's).
    fake_llm.script(call("get_air_quality", city="Tromsø", day=1), {"content": "No call."})
    body = forced_gateway.chat("sal", {"message": "How windy will it be in Tromsø tomorrow?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", {"city": "Tromsø", "day": 1})]


@pytest.mark.parametrize("user, question, city", [("sol", "Görlitz, any frost tonight? seedlings are out", "Görlitz"),
                                                    ("tai", "绥芬河今晚路面会不会结冰？", "绥芬河")])
def test_over_http_a_frost_asked_of_the_rain_tool_moves_to_the_days_lows(forced_gateway, fake_llm, user, question,
                                                                        city):
    """"Will the roads freeze tonight?" got the rain tool, whose night holds no low, and was answered "no frost:
    no rain" beside −15 °C: frost asks for the low, and the call moves to the forecast, whose days hold it."""
    night = {"city": city, "day": 0, "hours": "night"}
    fake_llm.script(call("get_precipitation", **night), call("get_precipitation", **night), {"content": "No call."})
    body = forced_gateway.chat(user, {"message": question}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", night)]
    assert "does not include" not in body["response"] and "没有" not in body["response"][:12]


@pytest.mark.parametrize("user, question, city", [("syd", "Do I need sunscreen in Sydney today?", "Sydney"),
                                                    ("sya", "三亚今天要不要涂防晒？", "三亚")])
def test_over_http_sunscreen_asked_of_the_rain_tool_moves_to_the_uv(forced_gateway, fake_llm, user, question, city):
    """"Do I need sunscreen in Sydney today?" got the rain tool, and was answered "No snow is expected": sunscreen
    asks for the UV index, and the call moves to the forecast, whose days hold it."""
    today = {"city": city, "day": 0}
    fake_llm.script(call("get_precipitation", **today), call("get_precipitation", **today), {"content": "No call."})
    body = forced_gateway.chat(user, {"message": question}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", today)]


@pytest.mark.parametrize("user, question, tool, arguments, kind", [
    ("chi", "Show me the rain in Chisinau for the next 10 days as a chart", "get_precipitation",
     {"city": "Chisinau", "day": 0, "days": 10}, "precipitation"),
    ("cixi", "把慈溪未来一周降水画个图", "get_forecast", {"city": "慈溪", "day": 0, "days": 7}, "precipitation"),
    ("plot", "plot the temps in Oslo for the next 5 days", "get_forecast", {"city": "Oslo", "day": 0, "days": 5},
     "temperature"),
])
def test_over_http_a_drawing_asked_of_another_tool_is_the_drawing_tools(forced_gateway, fake_llm, user, question,
                                                                        tool, arguments, kind):
    """"Show me the rain for the next 10 days as a chart" got the rain tool's list, "把未来一周降水画个图" the
    forecast's: a question that asks for a drawing gets the tool whose results are an image, of what it names."""
    fake_llm.script(call(tool, **arguments), {"content": "See the chart."})
    body = forced_gateway.chat(user, {"message": question}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_weather_chart", {**arguments, "kind": kind})]


def test_over_http_a_place_whose_name_holds_a_drawing_word_asks_for_no_drawing(forced_gateway, fake_llm):
    """"明天阿拉木图多冷？想上Shymbulak滑雪" was drawn as a week's chart: 图 is a drawing's word, and a letter of 阿拉木图."""
    fake_llm.script(call("get_forecast", city="阿拉木图", day=1), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("alm", {"message": "明天阿拉木图多冷？想上Shymbulak滑雪，住在市区"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [("get_forecast", {"city": "阿拉木图", "day": 1})]


@pytest.mark.parametrize("user, question, arguments, tool", [
    ("kara", "how cold at night in Karakol on Thursday?", {"city": "Karakol", "day": "thursday", "hours": "night"},
     "get_forecast"),
    ("tai2", "台江周六晚上冷不冷，要不要给观众准备毯子", {"city": "台江", "day": "saturday", "hours": "night"},
     "get_forecast"),
    ("leeds", "will it rain tonight in Leeds? how cold?", {"city": "Leeds", "day": 0, "hours": "night"},
     "get_precipitation"),  # says what the rain tool does
    ("hz", "杭州今晚会下雨吗，冷不冷", {"city": "杭州", "day": 0, "hours": "night"}, "get_precipitation"),
    # Cantonese in traditional characters; "muggy", and "will" no word of what the rain tool does
    ("hk", "香港今晚會唔會好凍", {"city": "香港", "day": 0, "hours": "night"}, "get_forecast"),
    ("dhaka", "will it be muggy in Dhaka the day after tomorrow?", {"city": "Dhaka", "day": 2}, "get_forecast"),
    ("gly", "鼓浪屿后天下午三点晒不晒", {"city": "鼓浪屿", "day": 2, "hours": [15]}, "get_forecast"),
])
def test_over_http_quantities_asked_of_the_yes_or_no_tool_move_to_one_that_holds_them(forced_gateway, fake_llm,
                                                                                        user, question, arguments,
                                                                                        tool):
    """"how cold at night?" and "晚上冷不冷" got the rain tool, whose answer is its yes or no: a question that says
    nothing of what that tool does and asks for quantities is the forecast's."""
    fake_llm.script(call("get_precipitation", **arguments), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat(user, {"message": question}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [(tool, arguments)]


def test_over_http_wet_asked_of_the_air_quality_tool_is_asked_again_of_one_with_precipitation(forced_gateway,
                                                                                               fake_llm):
    """"Will it be wet?" got the air quality, whose result has no precipitation: the router is asked again and the
    rain tool's result takes its place, and the answer does not say that precipitation is missing."""
    fake_llm.script(call("get_air_quality", city="Suva", day=2),
                    call("get_precipitation", city="Suva", day=2), {"content": "See the outlook above."})
    body = forced_gateway.chat("ria", {"message": "Is Suva going to be wet the day after tomorrow?"}).json()
    assert [(c["tool"], c["arguments"]) for c in body["tool_calls"]] == [
        ("get_precipitation", {"city": "Suva", "day": 2})]
    note = fake_llm.requests()[1]["messages"][-1]["content"]
    assert "(The question asks for wet, which the results of" in note and "weather__get_precipitation" in note
    assert "weather__get_air_quality" not in note.rsplit("(The question asks for", 1)[1]
    assert "does not include" not in body["response"]


def test_over_http_a_calendar_date_the_results_do_not_reach_is_said_to_be_missing(forced_gateway, fake_llm):
    """Asked about New Year's Day 2020, the router called the weather now, twice (told the second time that the
    question asks about another day): the call goes to the forecast of that date, and the reply says that its data
    does not reach it, in the tool's words."""
    fake_llm.script(call("get_current_weather", city="Berlin"), call("get_current_weather", city="Berlin"),
                    {"content": "Berlin on New Year's Day 2020 was cold."})
    body = forced_gateway.chat("nia", {"message": "How cold was Berlin on New Year's Day 2020?"}).json()
    assert [(c["tool"], c["arguments"]["day"], c["is_error"]) for c in body["tool_calls"]] == [
        ("get_forecast", "2020-01-01", True)]
    assert body["response"].startswith("Sorry, I could not get that: Past weather reaches back 92 days")

    # A date the results do name is not said to be missing.
    fake_llm.script(call("get_forecast", city="Berlin", day=dt.date.today().isoformat()), {"content": "Cold."},
                    auto=True)
    today = dt.date.today()
    body = forced_gateway.chat("nia", {"message": f"Berlin on {today:%B} {today.day}?"}).json()
    assert "does not include" not in body["response"]


def test_over_http_a_place_the_router_translated_is_the_question_s_own(forced_gateway, fake_llm):
    """"Hong Kong weather today" was called with city "香港": a place in a script the question does not use is a
    translation, not a place made up, and the call is made (it was taken for a made-up one: no call, no answer)."""
    fake_llm.script(call("get_forecast", city="香港"), {"content": "Hong Kong is mild today."})
    body = forced_gateway.chat("ola", {"message": "Hong Kong weather today"}).json()
    assert [(c["tool"], c["arguments"]["city"], c["is_error"]) for c in body["tool_calls"]] == [
        ("get_forecast", "香港", False)]
    assert body["tool_calls"][0]["structured_content"]["location"]["country_code"] == "HK"
    # ... also where the question names its data by a word typed wrong, but a day ("anchorage forcast in 4 days"
    # had been answered with the assistant's introduction)
    fake_llm.script(call("get_forecast", city="安克雷奇", day=4), {"content": "Anchorage will be cold."})
    body = forced_gateway.chat("ola2", {"message": "anchorage forcst in 4 days"}).json()
    assert [(c["tool"], c["arguments"]["city"], c["is_error"]) for c in body["tool_calls"]] == [
        ("get_forecast", "安克雷奇", False)]
    assert in_another_script("香港", "Hong Kong weather today") and in_another_script("Beijing", "北京冷吗")
    assert in_another_script("Moscow", "Москва: what's the temperature right now?")
    # a placeholder is no name in another script: "your_city" for a translation asked in Chinese
    assert not in_another_script("your_city", "帮我把“下雨了”翻译成英文")
    assert not in_another_script("<city>", "帮我把“下雨了”翻译成英文")
    assert in_another_script("Athens", "Αθήνα: is it hot there right now?")
    assert not in_another_script("Paris", "What is the capital of France?") \
        and not in_another_script("上海", "北京明天冷吗")


def test_over_http_a_question_with_no_call_twice_is_said_to_be_not_looked_up(gateway, fake_llm):
    fake_llm.script({"content": "周末可能会降温。"}, {"tool_calls": [{"name": "answer_directly", "arguments": {}}]})
    body = gateway.chat("cat", {"message": "周末会降温吗"}).json()
    assert body["tool_calls"] == [] and body["response"] == NOT_LOOKED_UP_ZH
    sent = fake_llm.requests()
    assert len(sent) == 2, [m["messages"][-1]["content"] for m in sent]  # no own answer was asked for


@pytest.fixture()
def forced(fake_llm, tmp_path):
    """A `required` profile (as the local one) with a forecast tool that takes a day, against scripted tools."""
    endpoint = Endpoint("test", f"{fake_llm.url}/v1", "fake-model", "k", tool_choice="required")
    client = LlmClient(endpoint)
    forecast = ScriptedTool("weather", "get_forecast", lambda a: {"city": a["city"], "low_c": 3.5, "high_c": 9.5},
                            FORECAST, "Forecast in one city for days (明天, 周末).")
    compare = ScriptedTool("weather", "compare_weather", lambda a: {"cities": a["cities"]}, COMPARE,
                           "Which of two or more named places is warmer.")
    manager = MockMcpManager([forecast, compare])
    return ChatPipeline(manager, client, client, MediaStore(tmp_path / "media"), ASSISTANT), manager


ESCAPE = {"tool_calls": [{"name": "answer_directly", "arguments": {}}]}


def test_a_forced_escape_for_a_question_the_tools_answer_is_asked_again_with_the_conversation(forced, fake_llm):
    pipeline, manager = forced
    history = [{"role": "user", "content": "杭州今天冷吗"},
               {"role": "assistant", "content": "杭州今天3.5~9.5°C。",
                "calls": [{"tool": "weather__get_forecast", "arguments": {"city": "杭州"}}]}]
    fake_llm.script(ESCAPE, call("get_forecast", city="杭州", day="weekend", days=2), {"content": "杭州周末3.5~9.5°C。"})
    result = pipeline.run("周末会降温吗", history)
    assert [c.arguments for c in manager.calls] == [{"city": "杭州", "day": "weekend"}]
    again = fake_llm.requests()[1]["messages"]
    assert again[1:3] == [{"role": "user", "content": "杭州今天冷吗"},
                          {"role": "assistant", "content": "杭州今天3.5~9.5°C。"}]
    assert again[-1]["content"] == ("周末会降温吗\n\n(What this question does not say, it takes from the previous "
                                    'request: weather__get_forecast {"city":"杭州"})' + ASKS_FOR_DATA)
    assert result.response == "杭州周末3.5~9.5°C。"
    # Asked again, the router is offered the tools alone: the escape was taken once already.
    assert [t["function"]["name"] for t in fake_llm.requests()[0]["tools"]][-1] == "answer_directly"
    assert "answer_directly" not in [t["function"]["name"] for t in fake_llm.requests()[1]["tools"]]


def test_a_forced_escape_twice_is_said_to_be_not_looked_up_never_guessed(forced, fake_llm):
    pipeline, manager = forced
    fake_llm.script(ESCAPE, ESCAPE, {"content": "周末可能会降温。"})
    result = pipeline.run("周末会降温吗", [])
    assert manager.calls == [] and result.response == NOT_LOOKED_UP_ZH and len(fake_llm.requests()) == 2
    # A question no tool answers still gets the assistant's own answer, asked once.
    fake_llm.script(ESCAPE, {"content": "你好！"})
    assert pipeline.run("你好", []).response == "你好！" and len(fake_llm.requests()) == 2


def test_a_forced_comparison_with_a_place_nobody_named_is_made_for_the_named_one(forced, fake_llm):
    """"周三北京会下雨吗" became a comparison of 北京 with 上海: the call is the first tool's that takes 北京 and the
    day, on the asked weekday, without asking again."""
    pipeline, manager = forced
    fake_llm.script(call("compare_weather", cities=["北京", "上海"], day=2), {"content": "北京周三3.5~9.5°C。"})
    pipeline.run("周三北京会下雨吗", [])
    assert [(c.tool, c.arguments) for c in manager.calls] == [("get_forecast", {"city": "北京", "day": "wednesday"})]
    assert len(fake_llm.requests()) == 2


@pytest.mark.parametrize("utc_now", [dt.datetime(2026, 12, 2, 15, 30), dt.datetime(2026, 12, 2, 19, 8)])
def test_next_weeks_weekday_is_passed_as_its_date_which_both_calendars_share(utc_now):
    """"下周二" asked on Wednesday 2 December (UTC): 6 days from the gateway's date, but Guiyang may already be on
    Thursday, where 6 days is Wednesday the 9th. Its date, the 8th, is Tuesday in both calendars."""
    gateway_today = utc_now.date()
    asked = asked_day("下周二去贵阳出差，那天天气怎么样？", gateway_today)
    assert asked.offset == 6 and asked.weekday is None and asked.names_a_weekday
    assert with_asked_day({"city": "贵阳", "day": 6}, FORECAST, asked, gateway_today)["day"] == "2026-12-08"
    assert with_asked_day({"city": "贵阳", "day": "2026-12-08"}, FORECAST, asked, gateway_today)["day"] == "2026-12-08"
    # "next Friday" has two readings: the one the router picked stays, as a date.
    monday = dt.date(2026, 11, 30)
    coming = with_asked_day({"city": "Oslo", "day": 4}, FORECAST, asked_day("Oslo next Friday?", monday), monday)
    assert coming["day"] == "2026-12-04"
    # A tool that takes offsets only still gets the offset; a relative day ("后天") stays an offset.
    assert with_asked_day({"city": "北京", "day": 6}, AIR, asked, gateway_today)["day"] == 6
    assert not asked_day("后天北京冷吗", gateway_today).names_a_weekday


HOURS = {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"enum": ["morning", "night"]}, {"type": "null"}],
         "default": None, "description": "24-hour clock [15], or a part of the day"}


@pytest.mark.parametrize("question, arguments, hours", [
    ("What'll it be like in Krabi tonight at 9?", {"city": "Krabi", "hours": "night"}, [21]),
    ("Quelle température à Bordeaux demain à midi ?", {"city": "Bordeaux", "day": 1}, [12]),
    ("明早6点Sapa多少度", {"city": "Sapa", "hours": None}, [6]),
    ("Krabi tonight at 9?", {"city": "Krabi", "hours": [20, 21, 22]}, [20, 21, 22]),  # a list the router gave stands
    ("and at 8 tomorrow morning?", {"city": "Dundee", "day": 1, "hours": [20]}, [8]),  # ... unless none is asked
    ("明天早上六点佛坪多少度", {"city": "佛坪", "day": 1, "hours": [0, 6]}, [6]),  # ... or others apart from it
    ("明天3点Krabi会下雨吗", {"city": "Krabi", "hours": "night"}, "night"),  # 03:00 or 15:00: not one reading
    ("Krabi tonight?", {"city": "Krabi", "hours": "night"}, "night"),  # no clock time
    # A span of the clock is every hour of it ("Saturday between 2 and 5pm" was called for [17]).
    ("Saturday between 2 and 5pm in Guadalajara, how hot?", {"city": "Guadalajara", "hours": [17]}, [14, 15, 16, 17]),
    ("Lyon 10-1pm tomorrow?", {"city": "Lyon", "hours": None}, [10, 11, 12, 13]),
    ("明天下午2点到5点Krabi热不热", {"city": "Krabi", "hours": [14]}, [14, 15, 16, 17]),
    ("明天晚上七点至十点Krabi风大吗", {"city": "Krabi", "hours": "night"}, [19, 20, 21, 22]),
    ("Krabi from 2 to 5pm", {"city": "Krabi", "hours": [13, 14, 15, 16, 17, 18]}, [13, 14, 15, 16, 17, 18]),
    ("Krabi between 20 and 25 degrees at 9 tonight?", {"city": "Krabi", "hours": None}, [21]),  # degrees, no span
])
def test_the_clock_times_a_question_writes_are_the_calls_hours(question, arguments, hours):
    """"Krabi tonight at 9" was called for the whole night: a clock time with one reading is the hours argument,
    where the router gave a part of the day or none."""
    schema = {"properties": {"city": {"type": "string"}, "day": {"type": "integer"}, "hours": HOURS},
              "required": ["city"]}
    assert with_clock_hours(arguments, schema, question, VOCABULARY).get("hours") == hours


def test_a_latin_place_after_its_chinese_qualifier_is_called_with_it():
    """"越南Sapa明早6点多少度" was called for "Sapa" (another Sapa): the qualifier before a Latin name goes with it,
    and first, since it is written as one with the name, not merely run on before it."""
    assert qualified("Sapa", "越南Sapa明早6点多少度", VOCABULARY) == "越南Sapa"
    assert qualified("Sapa", "越南的Sapa明天", VOCABULARY) == "越南的Sapa"
    for place, question in (("Sapa", "帮我查Sapa明天"), ("Sapa", "明天Sapa冷吗"), ("Paris", "我在Paris，明天冷吗"),
                            ("Paris", "北京和Paris哪个冷")):
        assert qualified(place, question, VOCABULARY) == place, question
    assert not only_run_on({"city": "Sapa"}, {"city": "越南Sapa"}) and only_run_on({"city": "丽水"}, {"city": "浙江丽水"})
    # the qualifier alone, as the router called it, is the place it runs on into
    schema = {"properties": {"city": {"type": "string", "description": "City name"}}}
    assert as_the_question_spells({"city": "斯里兰卡"}, schema, "明天去斯里兰卡Ella要不要带伞", VOCABULARY) == {
        "city": "斯里兰卡Ella"}
    assert as_the_question_spells({"city": "北京"}, schema, "北京明天冷吗", VOCABULARY) == {"city": "北京"}


def test_over_http_a_latin_place_after_its_chinese_qualifier_is_that_countrys(forced_gateway, fake_llm):
    fake_llm.script(call("get_forecast", city="Sapa", day=1, hours=[6]), {"content": "Sapa明早6点。"}, auto=True)
    body = forced_gateway.chat("sapa", {"message": "越南Sapa明早6点多少度"}).json()
    (made,) = body["tool_calls"]
    assert made["arguments"]["city"] == "越南Sapa" and made["structured_content"]["location"]["country_code"] == "VN"


def test_over_http_a_clock_time_is_called_as_its_hour_not_the_part_of_the_day(forced_gateway, fake_llm):
    fake_llm.script(call("get_forecast", city="Krabi", day=0, hours="night"), {"content": "Krabi at 21:00."},
                    auto=True)
    body = forced_gateway.chat("krabi", {"message": "What'll it be like in Krabi tonight at 9?"}).json()
    assert [c["arguments"]["hours"] for c in body["tool_calls"]] == [[21]]


def test_a_place_the_router_copied_with_a_slip_is_the_questions():
    """"whats tmrw looking like in ipoh" was called for "Ipoah", a place nobody named, so no call was made: a
    near copy of the question's words is those words; a translation or another place is not."""
    assert as_the_question_spells({"city": "Ipoah", "day": 1}, FORECAST, "whats tmrw looking like in ipoh",
                                  VOCABULARY) == {"city": "ipoh", "day": 1}
    assert as_the_question_spells({"cities": ["Lyon", "Nicee"]}, COMPARE, "Lyon or Nice, which is warmer?",
                                  VOCABULARY) == {"cities": ["Lyon", "Nice"]}
    # a qualifier alone is the place it qualifies; a list names places
    assert as_the_question_spells({"city": "Kyrgyzstan", "day": 2}, FORECAST,
                                  "Osh, Kyrgyzstan, the day after tomorrow - will it be hot?", VOCABULARY) == {
        "city": "Osh, Kyrgyzstan", "day": 2}
    for question in ("Oslo, Bergen and Tromsø: which is warmest?", "Oslo, Bergen: which is warmer?"):
        assert as_the_question_spells({"city": "Bergen"}, FORECAST, question, VOCABULARY) == {"city": "Bergen"}
    # ... and a code of two letters the question writes after a name with no comma ("mi" had been called alone,
    # and found a town in China); a code after a word that names nothing is the place itself
    assert as_the_question_spells({"city": "mi", "day": "weekend"}, FORECAST,
                                  "traverse city mi forecast for the weekend, going cherry picking", VOCABULARY) == {
        "city": "traverse city, mi", "day": "weekend"}
    assert as_the_question_spells({"city": "ny"}, FORECAST, "is it still snowing in buffalo ny", VOCABULARY) == {
        "city": "buffalo, ny"}
    for question in ("hot in LA tomorrow?", "LA tomorrow?", "tomorrow LA", "Tokyo vs LA, which is warmer"):
        assert as_the_question_spells({"city": "LA"}, FORECAST, question, VOCABULARY) == {"city": "LA"}
    for city, question in (("Beijing", "北京明天"), ("Paris", "What is the capital of France?"), ("Home", "Rome?")):
        assert as_the_question_spells({"city": city}, FORECAST, question, VOCABULARY) == {"city": city}
    # "下周一定州天气怎么样" was called for "州": a Chinese name cut to its last character is the question's whole
    assert as_the_question_spells({"city": "州", "day": 7}, FORECAST, "下周一定州天气怎么样", VOCABULARY) == {
        "city": "定州", "day": 7}
    assert as_the_question_spells({"city": "州"}, FORECAST, "这周怎么样", VOCABULARY) == {"city": "州"}
    assert as_the_question_spells({"city": "龙", "day": 1}, FORECAST, "明天下龙天气", VOCABULARY) == {
        "city": "下龙", "day": 1}  # 下 ends 下周 elsewhere; here it begins 下龙 (Ha Long)
    # A name the question does not write is its one name that shares a character with it: the router wrote 凤城
    # for 来凤 and 南宁 for 定南, a place nobody named, so no call was made; 这周五 is Friday, not the week.
    assert as_the_question_spells({"city": "凤城", "day": "friday"}, FORECAST, "这周五来凤天气", VOCABULARY) == {
        "city": "来凤", "day": "friday"}
    assert as_the_question_spells({"city": "南宁", "hours": [16]}, FORECAST, "今天下午4点定南降雨概率多少",
                                  VOCABULARY) == {"city": "定南", "hours": [16]}
    for city, question in (("北京", "会理明天冷吗"), ("杭州", "明天杭州和苏州哪个热"), ("长沙", "明天长春和长治哪个冷")):
        assert as_the_question_spells({"city": city}, FORECAST, question, VOCABULARY) == {"city": city}


@pytest.mark.parametrize("question, given, hours", [
    ("那明天早上冷不冷", "night", "morning"),  # after tomorrow night's rain: the router kept `night`
    ("tomorrow morning in Oslo?", "night", "morning"), ("this afternoon?", "evening", "afternoon"),
    ("今晚呢", "morning", "morning"),  # 晚上 may be the evening or the night: the router's reading stands
    ("明天下午3点呢", "night", "night"),  # a clock time: with_clock_hours' to mend
    ("明天呢", "night", "night"),  # no part of the day named
])
def test_the_part_of_the_day_a_question_names_is_the_calls(question, given, hours):
    schema = {"properties": {"city": {"type": "string"}, "hours": HOURS | {"anyOf": [
        {"type": "array", "items": {"type": "integer"}}, {"enum": ["morning", "noon", "afternoon", "evening", "night"]},
        {"type": "null"}]}}, "required": ["city"]}
    assert with_asked_part({"city": "x", "hours": given}, schema, question, VOCABULARY)["hours"] == hours


def test_over_http_a_place_the_router_copied_with_a_slip_is_called_as_written(forced_gateway, fake_llm):
    fake_llm.script(call("get_forecast", city="Ipoah", day=1), {"content": "Ipoh tomorrow."}, auto=True)
    body = forced_gateway.chat("ipoh", {"message": "whats tmrw looking like in ipoh"}).json()
    (made,) = body["tool_calls"]
    assert made["arguments"]["city"] == "ipoh" and made["structured_content"]["location"]["country_code"] == "MY"


@pytest.mark.parametrize("question, arguments, expected", [
    # "这周末那边会下雪吗" after a week's chart kept its seven days
    ("这周末那边会下雪吗", {"city": "辽源", "day": 0, "days": 7}, {"city": "辽源", "day": "weekend"}),
    ("Oslo this weekend?", {"city": "Oslo", "day": "saturday"}, {"city": "Oslo", "day": "weekend"}),
    ("Oslo next weekend?", {"city": "Oslo", "day": 7, "days": 2}, {"city": "Oslo", "day": 7, "days": 2}),
    ("下周末北京", {"city": "北京", "day": 7, "days": 2}, {"city": "北京", "day": 7, "days": 2}),
    ("Oslo tomorrow?", {"city": "Oslo", "day": 1}, {"city": "Oslo", "day": 1}),
    # a day of the weekend named beside it is that day ("台南這週末要去玩，禮拜六天氣如何" got both days' range)
    ("台南这周末要去玩，礼拜六天气如何", {"city": "台南", "day": "saturday"}, {"city": "台南", "day": "saturday"}),
])
def test_this_weekend_asked_is_the_day_arguments_weekend(question, arguments, expected):
    schema = {"properties": {"city": CITY, "day": DAY,
                             "days": {"type": "integer", "default": 1, "description": "How many days from that day on"}},
              "required": ["city"]}
    assert with_asked_weekend(arguments, schema, question, TUESDAY) == expected


@pytest.mark.parametrize("question, today, day", [
    ("cities between 18 and 24 degrees this weekend?", TUESDAY, 4), ("周末有哪些城市在15到22度之间", TUESDAY, 4),
    ("which cities are above 30 this weekend?", TUESDAY + dt.timedelta(days=5), 0),  # on Sunday: today
    ("which cities are above 30 tomorrow?", TUESDAY, 0),  # no weekend asked: the router's day
])
def test_a_search_of_one_day_asked_of_the_weekend_searches_its_day_to_come(question, today, day):
    """A tool whose day is an offset and that counts no days gets the weekend's first day still to come."""
    search = {"properties": {"relation": {"type": "string"}, "day": {"type": "integer", "default": 0,
                                                                      "description": "0 = today, 1 = tomorrow"}}}
    assert with_asked_weekend({"relation": "between", "day": 0}, search, question, today) == \
        {"relation": "between", "day": day}


@pytest.mark.parametrize("question, added", [
    ("加上奉化呢，三个里面哪个最热", ["奉化"]), ("把丰宁也加进来，后天三个里哪个最冷", ["丰宁"]),
    ("加上Medicine Hat，明天哪个更冷", ["Medicine Hat"]),  # a Latin name added in a Chinese question
    ("再加上 Red Deer 呢", ["Red Deer"]), ("add Tennant Creek - which of the three is hottest?", ["Tennant Creek"]),
    ("再加上Red Deer呢", ["Red Deer"]),  # not "Red Deer呢"
    ("throw in Julia Creek too - which is hottest?", ["Julia Creek"]),
    ("加上明天呢", []),  # no name: a day
])
def test_names_a_follow_up_adds(question, added):
    assert added_names(question) == added
