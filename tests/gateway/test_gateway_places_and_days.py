"""Places asked on days of their own ("Lisbon tomorrow then Seville in 3 days"): each place's call on its own day;
and the words that name a list of places, a weekday typed short, a qualifier said apart, a unit asked alone, or no
place at all."""

from __future__ import annotations

import datetime as dt

import pytest

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.route_arguments.place_names import (
    as_the_question_spells,
    chinese_name_said,
    names_no_place,
    qualified,
    siblings,
)
from mcp_chat_app.chat.route_own_days import dated_clauses
from mcp_chat_app.chat.text.clock import parts_of_day
from mcp_chat_app.chat.text.day_words import asked_day, day_words
from mcp_chat_app.config import CONFIG_DIR
from tests.support.gateway_processes import forced_asker, made_calls, weather_call as call

VOCABULARY = load_assistant(CONFIG_DIR / "assistant.json").vocabulary
MONDAY = dt.date(2026, 12, 7)
AIR = {"properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}


def _two(first: dict, second: dict) -> dict:
    return {"tool_calls": first["tool_calls"] + second["tool_calls"]}


@pytest.mark.parametrize("question, planned, made", [
    # dev44: both places given the first day, one call of the second ...
    ("Amman tomorrow and Petra the day after. What should I pack weather-wise?",
     _two(call("get_forecast", city="Amman", day=1), call("get_forecast", city="Petra", day=1)),
     [("get_forecast", {"city": "Amman", "day": 1}), ("get_forecast", {"city": "Petra", "day": 2})]),
    ("明天去乌镇，后天去西塘，两天天气咋样",
     _two(call("get_forecast", city="乌镇", day=2, days=1), call("get_forecast", city="西塘", day=2, days=1)),
     [("get_forecast", {"city": "乌镇", "day": 1}), ("get_forecast", {"city": "西塘", "day": 2})]),
    # ... weekdays passed as such
    ("Cusco on Wednesday then Arequipa on Friday — weather for each leg?",
     _two(call("get_forecast", city="Cusco", day=4, days=1), call("get_forecast", city="Arequipa", day=4, days=1)),
     [("get_forecast", {"city": "Cusco", "day": "wednesday"}),
      ("get_forecast", {"city": "Arequipa", "day": "friday"})]),
    # ... the first place alone called: the second added, like it
    ("Penang tomorrow then Kuala Lumpur the day after — weather for both?", call("get_forecast", city="Penang", day=1),
     [("get_forecast", {"city": "Penang", "day": 1}), ("get_forecast", {"city": "Kuala Lumpur", "day": 2})]),
    # ... a comparison over a span: a call of each place on its day, of the tool that takes the day
    ("Lisbon tomorrow then Seville in 3 days — which of the two days looks nicer?",
     call("compare_weather", cities=["Lisbon", "Seville"], day=0, days=3),
     [("get_forecast", {"city": "Lisbon", "day": 1}), ("get_forecast", {"city": "Seville", "day": 3})]),
])
def test_over_http_each_place_is_called_on_the_day_its_clause_names(forced_gateway, fake_llm, question, planned,
                                                                     made):
    assert made_calls(forced_asker(forced_gateway, fake_llm, "own-days")(question, planned)) == made


def test_a_question_is_read_as_places_on_their_own_days_only_where_its_clauses_name_different_days():
    assert [(clause.strip(), day.offset) for clause, day in dated_clauses(
        "Silk Road trip: Samarkand tomorrow, Bukhara in 3 days. Weather?", MONDAY)] \
        == [("Samarkand tomorrow", 1), ("Bukhara in 3 days", 3)]
    for one_day in ("moving from Chattanooga, TN to Asheville, NC on Saturday. rain in either?",
                    "Is it colder in Oslo today or tomorrow?", "tomorrow and the day after in Oslo?"):
        assert dated_clauses(one_day, MONDAY) == [], one_day
    # a place and the day after it are two days, not tomorrow's alone
    assert asked_day("Amman tomorrow and Petra the day after", MONDAY) is None
    assert asked_day("tomorrow and the day after?", MONDAY).count == 2


@pytest.mark.parametrize("question, planned, made", [
    # a day's own clause with no place is no leg of a plan: "明天北京多少度，后天呢" keeps the router's call
    ("明天北京多少度，后天呢", call("get_forecast", city="北京", day=2), [("get_forecast", {"city": "北京", "day": 2})]),
    ("today and tomorrow in Paris?", call("get_forecast", city="Paris", day=0, days=2),
     [("get_forecast", {"city": "Paris", "day": 0, "days": 2})]),
])
def test_over_http_days_without_places_of_their_own_leave_the_calls(forced_gateway, fake_llm, question, planned, made):
    assert made_calls(forced_asker(forced_gateway, fake_llm, "no-own-days")(question, planned)) == made


@pytest.mark.parametrize("question, day", [
    ("forecst for reykjavik fri", "friday"), ("portland forecast sat", "saturday"), ("leeds sat", "saturday"),
    ("temp in boulder co at 5 am sat, trail run", "saturday"), ("Halifax NS sailing sat. gusts?", "saturday"),
    ("Penang this thurs — gonna be a scorcher?", "thursday"), ("forecast cambridge uk wed", "wednesday"),
    ("sunset there sun", "sunday"),
])
def test_a_weekday_typed_short_at_a_clauses_end_is_that_day(question, day):
    """dev45's "forecst for reykjavik fri" was called for a place "Reykjavik, fri" on no day."""
    assert day_words(question) == {day}


@pytest.mark.parametrize("question", ["any sun", "sea and sun?", "is the sat signal bad there", "lots of sun",
                                      "Sun protection in Bali?"])
def test_sun_and_sat_as_words_are_no_days(question):
    assert not day_words(question)


def test_over_http_a_weekday_typed_short_is_no_part_of_the_place(forced_gateway, fake_llm):
    planned = call("get_forecast", city="Reykjavik, fri")
    body = forced_asker(forced_gateway, fake_llm, "short-day")("forecst for reykjavik fri", planned)
    assert made_calls(body) == [("get_forecast", {"city": "Reykjavik", "day": "friday"})]


def test_names_listed_with_spaces_in_a_chinese_comparison_are_each_a_place():
    """dev45's "哈尔滨 长春 沈阳 后天谁的最低温最低" was called for 哈尔滨 alone."""
    assert siblings("哈尔滨", "哈尔滨 长春 沈阳 后天谁的最低温最低", VOCABULARY) == ["长春", "沈阳"]
    assert siblings("北京", "北京 明天哪个更冷", VOCABULARY) == []


def test_words_of_the_domain_and_their_start_name_no_place():
    """dev45's "露点温度是啥意思" was called for a place "露点温"; 日照 is a city, though 日照时长 is a word."""
    assert names_no_place("露点温", VOCABULARY) and names_no_place("露点温度", VOCABULARY)
    assert not any(names_no_place(name, VOCABULARY) for name in ("日照", "温州", "温岭", "上海", "天津"))
    assert chinese_name_said("露点温度是啥意思", VOCABULARY) == ""
    assert chinese_name_said("周末三都会冷吗", VOCABULARY) == "三都"


def test_a_quantity_before_a_code_of_two_letters_is_no_name_of_it():
    """dev45's "air quality la tomorrow" was called for a place "air quality, LA": "la" is Los Angeles."""
    assert as_the_question_spells({"city": "la"}, AIR, "air quality la tomorrow, i have asthma", VOCABULARY) \
        == {"city": "la"}
    assert as_the_question_spells({"city": "mi"}, AIR, "traverse city mi for the weekend", VOCABULARY) \
        == {"city": "traverse city, mi"}


def test_over_http_a_unit_asked_alone_asks_the_latest_answer_again_in_it(forced_gateway, fake_llm):
    """dev45's "in F" after 9 pm in New York was called for the present moment."""
    asked = forced_asker(forced_gateway, fake_llm, "in-f")
    asked("nyc temp at 9pm tonight", call("get_forecast", city="New York", day=0, hours=[21]))
    body = asked("in F", call("get_current_weather", city="New York", fahrenheit=True))
    assert made_calls(body) == [("get_forecast", {"city": "New York", "day": 0, "hours": [21], "fahrenheit": True})]


@pytest.mark.parametrize("value, question, written", [
    ("Valencia, Venezuela", "and the spanish one", "Valencia, spanish"),
    ("Cambridge, GB", "Cambridge明天会下雨吗 麻省那个", "Cambridge, 麻省"),
    ("Córdoba", "Córdoba明天会不会上40度 西班牙那个", "Córdoba, 西班牙"),
    ("San Jose", "weather for san jose tomorrow - costa rica, not california", "San Jose, costa rica"),
    ("Hyderabad", "Hyderabad today? the one in Pakistan", "Hyderabad, Pakistan"),
    # no qualifier: "the other one", a day's "那个"
    ("Paris", "Paris tomorrow, the other one", "Paris"), ("Oslo", "明天那个", "Oslo"),
])
def test_a_qualifier_said_apart_from_the_name_qualifies_it(value, question, written):
    """dev45's "Cambridge明天会下雨吗 麻省那个" was called for Cambridge, GB, "and the spanish one" for the Valencia of
    Venezuela again."""
    assert qualified(value, question, VOCABULARY) == written


@pytest.mark.parametrize("question", ["did it snow in boston last night?", "昨晚boston下雪了吗"])
def test_over_http_last_night_is_yesterdays_night(forced_gateway, fake_llm, question):
    """dev45's "did it snow in boston last night?" was called for tonight."""
    planned = call("get_precipitation", city="Boston", day=0, hours="night")
    body = forced_asker(forced_gateway, fake_llm, "last-night")(question, planned)
    assert made_calls(body) == [("get_precipitation", {"city": "Boston", "day": -1, "hours": "night"})]


def test_over_http_the_day_before_is_the_day_before_the_conversations(forced_gateway, fake_llm):
    """dev45's "and the day before" after yesterday in San Jose was called for yesterday again."""
    asked = forced_asker(forced_gateway, fake_llm, "day-before")
    yesterday = call("get_forecast", city="San Jose, CA", day=-1)
    asked("san jose ca how about yesterday", yesterday)
    assert made_calls(asked("and the day before", yesterday)) == [("get_forecast", {"city": "San Jose, CA", "day": -2})]


def test_over_http_compare_with_a_place_typed_in_lowercase_adds_it(forced_gateway, fake_llm):
    """dev45's "compare w/ sacramento today, who's hotter" after San Jose got Sacramento's forecast alone."""
    asked = forced_asker(forced_gateway, fake_llm, "compare-w")
    asked("san jose ca temp rn", call("get_current_weather", city="San Jose, CA"))
    body = asked("compare w/ sacramento today, who's hotter", call("get_forecast", city="Sacramento", day=0, days=1))
    assert made_calls(body) == [("compare_weather", {"day": 0, "days": 1, "cities": ["San Jose, CA", "Sacramento"]})]


def test_days_out_are_days_from_today():
    """dev45's "what about 20 days out" was answered with tomorrow's forecast."""
    assert asked_day("what about 20 days out", MONDAY).offset == 20
    assert asked_day("3 days out in Oslo?", MONDAY).offset == 3


@pytest.mark.parametrize("first, second, planned, made", [
    # (asking nothing of its own: the latest question again, of that place)
    ("Cambridge明天会下雨吗", "不对不对，是英国的那个", call("get_current_weather", city="伦敦"),
     ("get_forecast", {"city": "Cambridge, 英国", "day": 1})),
    ("victoria weather tmrw", "nah the canadian one, BC", call("get_forecast", city="Victoria Seychelles", day=2),
     ("get_forecast", {"city": "victoria, canadian", "day": 1})),
])
def test_over_http_which_one_said_apart_is_the_conversations_place_so_qualified(forced_gateway, fake_llm, first,
                                                                                 second, planned, made):
    """dev45's "不对不对，是英国的那个" after Cambridge was called for London."""
    asked = forced_asker(forced_gateway, fake_llm, f"apart-{len(first)}")
    asked(first, call("get_forecast", city=first.split("明天")[0].split(" weather")[0], day=1))
    assert made_calls(asked(second, planned)) == [made]


def test_over_http_a_place_compared_with_itself_is_compared_with_the_conversations(forced_gateway, fake_llm):
    """dev44's "跟清莱比明天哪个更热" after 清迈's high was compared as 清莱 with 清莱."""
    asked = forced_asker(forced_gateway, fake_llm, "itself")
    asked("明天清迈最高温多少", call("get_forecast", city="清迈", day=1))
    body = asked("跟清莱比明天哪个更热", call("compare_weather", cities=["清莱", "清莱"], day=1))
    assert made_calls(body) == [("compare_weather", {"cities": ["清迈", "清莱"], "day": 1})]


@pytest.mark.parametrize("question, cities, made", [
    ("drier over next 5 days, seattle or portland oregon?", ["Seattle", "Portland", "Oregon"],
     ["Seattle", "Portland, Oregon"]),
    ("Seattle or Portland, Oregon: which is drier over the next 5 days?", ["Seattle", "Portland", "Oregon"],
     ["Seattle", "Portland, Oregon"]),
    ("Oslo, Bergen and Tromsø: which is drier over the next 5 days?", ["Oslo", "Bergen", "Tromsø"],
     ["Oslo", "Bergen", "Tromsø"]),  # a list, no qualifier
])
def test_over_http_a_place_and_its_qualifier_listed_apart_are_one(forced_gateway, fake_llm, question, cities, made):
    """dev45's "drier over next 5 days, seattle or portland oregon?" was compared for Seattle, Portland and
    Oregon, and answered "Oregon gets less rain"."""
    asked = forced_asker(forced_gateway, fake_llm, f"qualified-{len(question)}")
    body = asked(question, call("compare_weather", cities=cities, day=0, days=5))
    ((tool, arguments),) = made_calls(body)
    assert (tool, [city.casefold() for city in arguments["cities"]]) == ("compare_weather", [
        city.casefold() for city in made])


def test_over_http_namesakes_are_each_qualified_where_the_question_writes_them(forced_gateway, fake_llm):
    """dev51's "Which has the lower high tomorrow, Cambridge MA or Cambridge in England?" was called for one place,
    its namesake added as a sibling, and both qualified as the first ("Cambridge MA" twice)."""
    asked = forced_asker(forced_gateway, fake_llm, "namesakes")
    body = asked("Which has the lower high tomorrow, Cambridge MA or Cambridge in England?",
                 call("get_forecast", city="Cambridge", day=1))
    ((tool, arguments),) = made_calls(body)
    assert (tool, arguments["cities"]) == ("compare_weather", ["Cambridge MA", "Cambridge, England"])


def test_over_http_a_place_compared_with_is_compared_with_the_latest_calls(forced_gateway, fake_llm):
    """"跟Burlington, Vermont比，明天哪边更冷" after Portland, Maine's wind (and, turns before, Boise compared with
    Spokane) was compared as Boise with Burlington: the place of the latest call is the one compared with."""
    asked = forced_asker(forced_gateway, fake_llm, "latest-place")
    asked("compare Boise, Idaho with Spokane tomorrow, which one gets more rain?",
          call("compare_weather", cities=["Boise, Idaho", "Spokane"], day=1))
    asked("我在Portland, Maine，明天想出海钓鱼，风大吗", call("get_forecast", city="Portland, Maine", day=1))
    body = asked("跟Burlington, Vermont比，明天哪边更冷",
                 call("compare_weather", cities=["Boise, Idaho", "Burlington, Vermont"], day=1))
    assert made_calls(body) == [("compare_weather", {"cities": ["Portland, Maine", "Burlington, Vermont"], "day": 1})]


@pytest.mark.parametrize("first, second, planned, made", [
    ("Tromsø weather today?", "any snow expected over the next 3 days?",
     call("get_precipitation", city="any", day=0, days=3),
     ("get_precipitation", {"city": "Tromsø", "day": 0, "days": 3})),
    ("大连今天下午四点多少度", "晚上八点呢", call("get_forecast", city="八点", hours=[20]),
     ("get_forecast", {"city": "大连", "hours": [20]})),
])
def test_over_http_a_word_of_the_question_is_no_place(forced_gateway, fake_llm, first, second, planned, made):
    """dev47's "any snow expected over the next 3 days?" was called for a place named "any", "晚上八点呢" for one
    named "八点": the conversation's place is meant."""
    asked = forced_asker(forced_gateway, fake_llm, f"word-{len(second)}")
    asked(first, call("get_forecast", city=first[:6].split(" ")[0].removesuffix("今天下午"), day=0))
    assert made_calls(asked(second, planned)) == [made]


def test_over_http_a_greeting_is_no_place_and_no_part_of_the_day(forced_gateway, fake_llm):
    """dev46's "早上好！今天心情特别好" was called for a place named "早上好" (the router's 北京 replaced by the name
    the question begins with), and "早上好！北京今天冷吗" asks of the whole day, not of its morning."""
    asked = forced_asker(forced_gateway, fake_llm, "greeting")
    body = asked("早上好！今天心情特别好", call("get_forecast", city="北京", day=0, hours=[6]))
    assert made_calls(body) == []
    assert list(parts_of_day("早上好！北京今天冷吗", VOCABULARY)) == [] and list(parts_of_day("明天早上好冷", VOCABULARY))


@pytest.mark.parametrize("first, planned_first, second, planned, made", [
    ("Bologna tomorrow, how warm?", call("get_forecast", city="Bologna", day=1), "hotter than florence?",
     call("compare_weather", cities=["Bologna", "Florence"], day=1),
     ("compare_weather", {"cities": ["Bologna", "Florence"], "day": 1})),
    ("Gdańsk on Saturday, windy?", call("get_forecast", city="Gdańsk", day="saturday"),
     "windier than kraków on saturday?", call("get_forecast", city="Kraków", day="saturday"),
     ("compare_weather", {"cities": ["Gdańsk", "Kraków"], "day": "saturday"})),
])
def test_over_http_more_than_a_place_typed_in_lowercase_compares_it_with_the_conversations(
        forced_gateway, fake_llm, first, planned_first, second, planned, made):
    """dev47's "hotter than florence?" after Bologna was made Florence's forecast alone (the follow-up "says only"
    Florence), and "windier than kraków on saturday?" after Gdańsk was Kraków's (Kraków is not in the question as
    written, in lowercase)."""
    asked = forced_asker(forced_gateway, fake_llm, f"than-{len(second)}")
    asked(first, planned_first)
    assert made_calls(asked(second, planned)) == [made]


def test_over_http_which_day_wins_compares_days_not_the_conversations_places(forced_gateway, fake_llm):
    """dev47's "warmest day of the next ten there?" after Tucson and Boise were compared: a superlative of a day
    compares days, and the router's call for one place stands."""
    asked = forced_asker(forced_gateway, fake_llm, "which-day")
    asked("tucson vs boise over the next 7 days, which one gets hotter",
          call("compare_weather", cities=["Tucson", "Boise"], day=0, days=7))
    body = asked("warmest day of the next ten there?", call("get_forecast", city="Boise", day=0, days=10))
    assert made_calls(body) == [("get_forecast", {"city": "Boise", "day": 0, "days": 10})]


def test_over_http_a_day_compared_with_a_day_is_no_place(forced_gateway, fake_llm):
    """dev47's "Lyon tomorrow vs the day after - which is nicer for a picnic?" was compared for Lyon and a place
    named "the day after": the two days of Lyon are meant."""
    asked = forced_asker(forced_gateway, fake_llm, "day-vs-day")
    body = asked("Lyon tomorrow vs the day after - which is nicer for a picnic?",
                 call("compare_weather", cities=["Lyon", "the day after"], day=1))
    ((tool, arguments),) = made_calls(body)
    assert arguments.get("city") == "Lyon" and (arguments.get("day"), arguments.get("days")) == (1, 2)


def test_over_http_one_of_the_compared_places_asked_alone_is_asked_of_alone(forced_gateway, fake_llm):
    """dev47's "ok, ljubljana forecast for that day then" after Salzburg and Ljubljana were compared was compared
    again: it names one of them and compares nothing. "Bergen too?" adds one."""
    asked = forced_asker(forced_gateway, fake_llm, "one-of-two")
    asked("which is less likely to rain tomorrow, salzburg or ljubljana",
          call("compare_weather", cities=["Salzburg", "Ljubljana"], day=1))
    body = asked("ok, ljubljana forecast for that day then",
                 call("compare_weather", cities=["Salzburg", "Ljubljana"], day=1))
    assert made_calls(body) == [("get_forecast", {"city": "Ljubljana", "day": 1})]
    body = asked("and Salzburg too, which is less likely then?",
                 call("compare_weather", cities=["Ljubljana", "Salzburg"], day=1))
    assert made_calls(body)[0][0] == "compare_weather"
