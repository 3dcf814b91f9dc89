"""Conversations: a follow-up keeps what the conversation asked (its day, its span, its unit choice) unless it says
otherwise, and small talk (an acknowledgement, a question about the assistant) calls no tool. Each kind with its
pure functions, then a conversation with the gateway process over HTTP, the real weather server (simulated data)
and the scripted LLM, scripted as the small model answered in the evaluation."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from mcp_chat_app.chat import conversation
from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.own_answer import needs_tool_data
from mcp_chat_app.chat.route_arguments.days import span_days, with_asked_span
from mcp_chat_app.chat.route_arguments.flags import with_earlier_flags
from mcp_chat_app.chat.route_arguments.place_names import with_names_capitalized, without_opening
from mcp_chat_app.chat.route_arguments.places import unnamed_places
from mcp_chat_app.chat.route_arguments.stated import mentioned
from mcp_chat_app.chat.route_mends import asks_a_day
from mcp_chat_app.chat.text.claims import asks_a_language_task
from mcp_chat_app.chat.text.day_words import asked_day
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.config import CONFIG_DIR
from mcp_chat_app.mcp_client.manager import ToolInfo

from tests.support.gateway_processes import forced_asker, made_calls, weather_call as call

ASSISTANT = load_assistant(CONFIG_DIR / "assistant.json")
VOCABULARY = ASSISTANT.vocabulary
TUESDAY = dt.date(2026, 12, 1)
FORECAST = {"properties": {"city": {"type": "string", "description": "City name"},
                           "day": {"type": "integer", "default": 0, "description": "0 = today, 1 = tomorrow"},
                           "days": {"type": "integer", "default": 1, "description": "How many days from that day on"}},
            "required": ["city"]}
FORECAST_TOOL = ToolInfo("weather", "get_forecast", "Forecast in one city for days.", FORECAST)


@pytest.mark.parametrize("question, days", [
    ("Any snow expected over the next 3 days?", 3), ("未来三天会下雨吗", 3), ("未来一周冷不冷", 7),
    ("the coming week in Rome", 7), ("接下来的五天", 5), ("Oslo this week?", 7), ("这周武汉会下雨吗", 7),
    # a few days are three ("海口这几天会下雨吗" was called for today alone)
    ("这几天冷吗", 3), ("next few days?", 3), ("海口这几天会下雨吗", 3),
    # two weeks ("武汉未来两周降水柱状图" was called for 2 days)
    ("武汉未来两周降水柱状图", 14), ("这两天济南下不下雨啊", 2), ("any rain over those 5 days", 5), ("未来两个星期", 14), ("the next two weeks in Boise", 14),
])
def test_a_span_counts_its_own_days(question, days):
    asked = asked_day(question, TUESDAY)
    assert asked is not None and asked.span and span_days(asked.word) == days
    expected = {"city": "Oslo", "day": 0, **({"days": days} if days else {})}
    assert with_asked_span({"city": "Oslo", "day": 0}, FORECAST, asked) == expected
    # A call that counts more days already keeps them.
    assert with_asked_span({"city": "Oslo", "days": 16}, FORECAST, asked) == {"city": "Oslo", "days": 16}


@pytest.mark.parametrize("question, asks", [
    ("lows for the next 5 days", True), ("未来三天呢", True), ("tomorrow?", True), ("how cold is it right now", False),
    ("humidity in Oslo?", False),
])
def test_days_from_today_on_ask_a_day_not_the_present_moment(question, asks):
    """"lows for the next 5 days" after tonight's question on Saskatoon was called for the weather now."""
    assert asks_a_day(Turn.start(question, [], ASSISTANT)) is asks


def test_a_run_of_days_is_called_for_each_of_them():
    asked = asked_day("金边明后天热不热", TUESDAY)
    assert with_asked_span({"city": "金边", "day": 1}, FORECAST, asked) == {"city": "金边", "day": 1, "days": 2}


def test_over_http_a_follow_up_on_the_next_days_is_called_for_all_of_them(forced_gateway, fake_llm):
    """"Any snow expected over the next 3 days?" after questions on Trondheim was called for today only: the
    call covers the three days it counts."""
    fake_llm.script(call("get_forecast", city="Trondheim", day=1), {"content": "Tomorrow's high is mild."}, auto=True)
    forced_gateway.chat("tor", {"message": "What about tomorrow's high in Trondheim?"})
    fake_llm.script(call("get_forecast", city="Oslo", day=0), call("get_forecast", city="Trondheim", day=0),
                    {"content": "See the outlook above."}, auto=True)
    body = forced_gateway.chat("tor", {"message": "Any snow expected over the next 3 days?"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "Trondheim", "day": 0, "days": 3})]


def test_over_http_the_next_days_counted_in_figures_begin_today_after_a_question_on_tomorrow(forced_gateway,
                                                                                               fake_llm):
    """"给我画个未来5天的降雨图" after "成都明天多少度" was called from tomorrow: 未来5天 was read only in words (五)."""
    fake_llm.script(call("get_forecast", city="成都", day=1), {"content": "成都明天2.4~11.5°C。"}, auto=True)
    forced_gateway.chat("five", {"message": "成都明天多少度"})
    fake_llm.script(call("get_forecast", city="成都", day=1, days=5), {"content": "见上。"}, auto=True)
    body = forced_gateway.chat("five", {"message": "成都未来5天天气"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "成都", "day": 0, "days": 5})]


@pytest.mark.parametrize("message, acknowledges", [
    ("行", True), ("ok 多谢哈", True), ("OK谢了", True), ("辛苦了", True), ("cheers mate", True), ("好的，谢谢", True),
    ("Got it, thanks!", True), ("ta", True), ("👍", True), ("行吗", False), ("好冷", False), ("那明天呢", False),
    ("What about Nice?", False), ("ok, and tomorrow?", False), ("北京", False), ("", False),
    # thanks and a remark asks nothing either; thanks and a terse request does
    ("谢啦，图很清楚", True), ("thanks, the chart is clear", True), ("Thanks! This is great.", True),
    ("谢谢，那明天呢？", False), ("thanks, Rome tomorrow", False), ("thanks. will it snow?", False), ("谢谢，北京明天", False),
    # an acknowledgement and what the speaker will do tells; one that asks for something, or of a place, asks
    ("好的，明天出门记得戴口罩", True), ("哈哈，我明天要去那边看看", True), ("ok, I'll bring a jacket tomorrow then", True),
    ("got it, we'll leave early on Saturday", True), ("好，那明天呢", False), ("好的，我想知道明天杭州的天气", False),
    ("ok, I want tomorrow too", False), ("ok, I'm in Rome", False), ("好的，我明天去杭州会下雨吗", False),
    ("ok, tomorrow I'll go to Rome", False), ("ok, I wonder about tomorrow", False), ("sweet as, ta", True),
    ("我明天要过去泡温泉嘞", True), ("行吧，那我带件外套", True), ("好的，明天戴口罩出门", True), ("好，那就周六去", True),
    # a remark on the answer, or what must come along
    ("sweet, sounds like a nice evening for the vineyards", True), ("great, looks like hiking weather", True),
    ("懂了，防晒霜得带上", True), ("ok, looks like Rome is warmer", False), ("好，那明天得带伞吗", False),
    ("防晒霜得带上", False), ("ok, sounds like rain, what about tomorrow?", False),
    ("好的，去杭州呢", False), ("好吧，北京明天冷吗", False), ("I'll pack a jacket then", True), ("我明天去杭州，冷吗", False), ("I'm in Oslo", False),
    # a correction asks again ("我说的是明天不是今天" had been taken for what the speaker will do)
    ("我说的是明天不是今天", False), ("哦我说错了，是周三不是周四", False), ("ok, I meant Friday", False),
    # a choice made, then thanks (dev44's "那就明天吧，谢谢！" was looked up as tomorrow's forecast)
    ("那就明天吧，谢谢！", True), ("saturday it is then, thanks", True), ("ok let's go with Sunday, thanks!", True),
    ("那就明天吧，会下雨吗？谢谢", False), ("明天北京呢，谢谢", False),
])
def test_an_acknowledgement_is_told_from_a_question(message, acknowledges):
    assert conversation.acknowledges(message) is acknowledges


def test_over_http_an_acknowledgement_gets_the_assistants_own_answer_with_no_tool(forced_gateway, fake_llm):
    """"行" after a search of cities was called as the current conditions of a place named "行": an
    acknowledgement asks nothing; the writer answers it, offered no tool."""
    fake_llm.script(call("find_cities_by_temperature", relation="below", temp=-10, day=1),
                    {"content": "明天没有城市低于零下10度。"}, auto=True)
    forced_gateway.chat("ack", {"message": "那明天零下10度以下的呢"})
    fake_llm.script({"content": "不客气，有需要随时问我。"})
    body = forced_gateway.chat("ack", {"message": "行"}).json()
    assert body["tool_calls"] == [] and body["response"] == "不客气，有需要随时问我。"
    (own,) = fake_llm.requests()
    assert "tools" not in own and own["messages"][-1]["content"] == "行"


def test_over_http_an_acknowledgement_naming_a_quantity_calls_no_tool_for_it(forced_gateway, fake_llm):
    """"谢啦，我多穿件外套" after a comparison was answered with the comparison again: 外套 (a jacket) names the
    temperature, which no result of the turn held, so a tool was called for it."""
    fake_llm.script(call("get_current_weather", city="温州"), {"content": "温州现在10°C。"}, auto=True)
    forced_gateway.chat("coat", {"message": "现在温州冷吗"})
    fake_llm.script({"content": "不客气，注意保暖。"})
    body = forced_gateway.chat("coat", {"message": "谢啦，我多穿件外套"}).json()
    assert body["tool_calls"] == [] and body["response"] == "不客气，注意保暖。"
    assert len(fake_llm.requests()) == 1


def test_over_http_a_translation_calls_no_tool(forced_gateway, fake_llm):
    """"帮我把“晴转多云”翻译成英文" was called as the forecast of a place named 晴转多云: a translation of quoted words
    is a language task; the writer answers it, offered no tool."""
    fake_llm.script({"content": "“晴转多云”的英文是 \"sunny, becoming cloudy\"。"})
    body = forced_gateway.chat("translate", {"message": "帮我把“晴转多云”翻译成英文"}).json()
    assert body["tool_calls"] == [] and "sunny, becoming cloudy" in body["response"]
    (own,) = fake_llm.requests()
    assert "tools" not in own


@pytest.mark.parametrize("message, translation", [
    ("帮我把“晴转多云”翻译成英文", True), ("how do you say 'drizzle' in French?", True), ("“雷阵雨”用英语怎么说", True),
    ("translate the forecast for Paris into Chinese", False), ("明天巴黎天气怎么样，用英文回答", False),
    ("给我讲个冷笑话呗", True), ("write me a haiku about the rain", True), ("写一首关于雪的诗", True),
    ("is it a good day for a poetry reading outside?", False),
])
def test_a_language_task_is_told_from_a_question(message, translation):
    assert asks_a_language_task(message) is translation


def test_over_http_a_question_about_the_assistant_calls_no_tool(forced_gateway, fake_llm):
    """"对了，你是谁开发的" in a conversation on 蒙自 was called as 蒙自's forecast and answered with data: who the
    assistant is needs no tool; an own answer that does not name it gives way to its introduction."""
    fake_llm.script(call("get_forecast", city="蒙自", day=1), {"content": "蒙自明天的预报如上。"}, auto=True)
    forced_gateway.chat("who", {"message": "蒙自明天怎么样"})
    fake_llm.script({"content": "我是由一个开发团队开发的。"})
    body = forced_gateway.chat("who", {"message": "对了，你是谁开发的"}).json()
    assert body["tool_calls"] == [] and body["response"].startswith("我是MCP 天气助手")
    (own,) = fake_llm.requests()
    assert "tools" not in own


def test_over_http_a_follow_up_for_a_tool_of_the_present_moment_is_asked_of_the_conversations_day(
        forced_gateway, fake_llm):
    """"紫外线强吗" after questions on 金边 tomorrow was called as 金边's present conditions: it names no day, so it
    asks about the conversation's; told so once, the router called the same tool again, and the call is moved to
    the server's tool that takes a day, for that day."""
    fake_llm.script(call("get_forecast", city="金边", day=1), {"content": "金边明天很热。"}, auto=True)
    forced_gateway.chat("uv", {"message": "哈喽，想问下金边明天热不热"})
    fake_llm.script(call("get_current_weather", city="北京"), call("get_current_weather", city="金边"),
                    call("get_current_weather", city="金边"), {"content": "金边明天紫外线很强。"}, auto=True)
    body = forced_gateway.chat("uv", {"message": "紫外线强吗"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "金边", "day": 1})]
    # Named as such, the present moment is no earlier day.
    fake_llm.script(call("get_current_weather", city="金边"), {"content": "金边现在紫外线很弱。"}, auto=True)
    body = forced_gateway.chat("uv", {"message": "金边现在紫外线强吗"}).json()
    assert made_calls(body) == [("get_current_weather", {"city": "金边"})]


def test_over_http_a_quantity_asked_again_of_another_tool_keeps_the_conversations_day(forced_gateway, fake_llm):
    """"紫外线强不强" after 仰光 tomorrow's rain: the rain tool's result has no UV, and asked again, the router took
    the tool of the present moment; the tools offered take a day, and the call is on the conversation's."""
    fake_llm.script(call("get_precipitation", city="仰光", day=1), {"content": "仰光明天不下雨。"}, auto=True)
    forced_gateway.chat("uvday", {"message": "仰光明天出门要不要带伞"})
    fake_llm.script(call("get_precipitation", city="仰光", day=1), call("get_precipitation", city="仰光", day=1),
                    call("get_forecast", city="仰光"), {"content": "placeholder"}, {"content": "placeholder"})
    # (it says what the rain tool does, or the call would move at once: from_a_yes_or_no_tool)
    body = forced_gateway.chat("uvday", {"message": "会下雨吗，紫外线强不强"}).json()
    assert made_calls(body)[-1] == ("get_forecast", {"city": "仰光", "day": 1})
    note = next(r for r in fake_llm.requests() if "(The question asks for 紫外线" in r["messages"][-1]["content"])
    assert "weather__get_current_weather" not in note["messages"][-1]["content"].rsplit("(The question asks", 1)[1]


def test_over_http_the_high_asked_after_a_rain_question_is_asked_of_the_tool_that_has_it(forced_gateway, fake_llm):
    """"用华氏度说一下那天的最高温" after 西宁's rain on a day was called for the rain again: 最高温 names the
    temperature, which the rain tool's result lacks."""
    fake_llm.script(call("get_precipitation", city="西宁", day=3), {"content": "西宁那天不会下雨。"}, auto=True)
    forced_gateway.chat("high", {"message": "西宁大后天会下雨吗"})
    fake_llm.script(call("get_precipitation", city="西宁", day=3), call("get_precipitation", city="西宁", day=3),
                    call("get_forecast", city="西宁", day=3), {"content": "placeholder"}, {"content": "placeholder"})
    body = forced_gateway.chat("high", {"message": "说一下那天的最高温"}).json()
    assert made_calls(body)[-1] == ("get_forecast", {"city": "西宁", "day": 3})


def test_over_http_a_comparison_asked_again_for_the_hours_keeps_every_place(forced_gateway, fake_llm):
    """"And tomorrow night - which one gets colder?": told the question asks about a time of day, the router gave
    one place's forecast at 23:00 for the comparison of two; the comparison is kept, for the day."""
    fake_llm.script(call("compare_weather", cities=["Oulu", "Umeå"], day=0), {"content": "Oulu is colder."},
                    auto=True)
    forced_gateway.chat("night", {"message": "Which is colder right now, Oulu or Umeå?"})
    fake_llm.script(call("compare_weather", cities=["Oulu", "Umeå"], day=1),
                    call("compare_weather", cities=["Oulu", "Umeå"], day=1),
                    call("get_forecast", city="Oulu", day=1, hours=[23]), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("night", {"message": "And tomorrow night - which one gets colder?"}).json()
    assert made_calls(body) == [("compare_weather", {"cities": ["Oulu", "Umeå"], "day": 1})]


def test_over_http_one_name_twice_in_a_comparison_is_each_place_the_conversation_named(forced_gateway, fake_llm):
    """"Which Charleston will be warmer tomorrow?" after questions on Charleston, West Virginia and Charleston,
    South Carolina was called for ["Charleston", "Charleston"]: each is the conversation's longer form."""
    for city in ("Charleston, West Virginia", "Charleston, South Carolina"):
        fake_llm.script(call("get_forecast", city=city, day=1), {"content": "As above."}, auto=True)
        forced_gateway.chat("two", {"message": f"What's the weather in {city} tomorrow?"})
    fake_llm.script(call("compare_weather", cities=["Charleston", "Charleston"], day=1), {"content": "placeholder"},
                    auto=True)
    body = forced_gateway.chat("two", {"message": "Which Charleston will be warmer tomorrow?"}).json()
    assert made_calls(body) == [
        ("compare_weather", {"cities": ["Charleston, West Virginia", "Charleston, South Carolina"],
                             "day": 1})]


def test_over_http_one_place_in_other_writings_is_compared_once(forced_gateway, fake_llm):
    """"stronger uv tmrw brisbane or perth wa" was called for ["Brisbane", "Perth, WA", "perth, WA", "perth wa"],
    and its answer listed Perth three times."""
    fake_llm.script(call("compare_weather", cities=["Brisbane", "Perth, WA", "perth, WA", "perth wa"], day=1),
                    {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("uv", {"message": "stronger uv tmrw brisbane or perth wa"}).json()
    assert made_calls(body) == [("compare_weather", {"cities": ["Brisbane", "Perth, WA"], "day": 1})]


def test_over_http_a_comparative_word_taken_for_a_place_is_left_out(forced_gateway, fake_llm):
    """"Rainier on Saturday: Glasgow or Belfast?" was called for ["Rainier", "Glasgow", "Belfast"], and answered
    that Rainier is ambiguous."""
    fake_llm.script(call("compare_weather", cities=["Rainier", "Glasgow", "Belfast"], day="saturday"),
                    {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("rainier", {"message": "Rainier on Saturday: Glasgow or Belfast?"}).json()
    assert made_calls(body) == [("compare_weather", {"cities": ["Glasgow", "Belfast"], "day": "saturday"})]


def test_over_http_which_wins_asked_of_no_place_compares_the_conversations_places(forced_gateway, fake_llm):
    """"哪个更冷" after Ann Arbor's and then Detroit's tomorrow was called as a search of all cities below a made-up
    0 °C today: it compares the conversation's two places, on their day. A bound the question writes keeps it."""
    for city in ("Ann Arbor", "Detroit"):
        fake_llm.script(call("get_forecast", city=city, day=1), {"content": "As above."}, auto=True)
        forced_gateway.chat("which", {"message": f"{city}明天天气怎么样"})
    search = call("find_cities_by_temperature", relation="below", temp=0, day=0)
    fake_llm.script(search, search, {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("which", {"message": "哪个更冷"}).json()
    assert made_calls(body) == [("compare_weather", {"cities": ["Ann Arbor", "Detroit"], "day": 1})]
    fake_llm.script(search, search, {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("which", {"message": "哪些城市更冷，零度以下的？"}).json()
    assert made_calls(body)[0][0] == "find_cities_by_temperature"


def test_over_http_which_wins_asked_of_one_new_place_compares_it_with_the_conversations(forced_gateway, fake_llm):
    """dev26's "Compare with Montevideo on Saturday — which is warmer?" after Buenos Aires got Montevideo's forecast
    alone: the place named and the conversation's one, as one comparison. Which day wins is no comparison of
    places."""
    fake_llm.script(call("get_precipitation", city="Buenos Aires", day="saturday"), {"content": "No rain."},
                    auto=True)
    forced_gateway.chat("mvd", {"message": "Buenos Aires on Saturday — will it rain?"})
    montevideo = call("get_forecast", city="Montevideo", day="saturday")
    fake_llm.script(montevideo, montevideo, {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("mvd", {"message": "Compare with Montevideo on Saturday — which is warmer?"}).json()
    assert made_calls(body) == [("compare_weather", {"cities": ["Buenos Aires", "Montevideo"], "day": "saturday"})]
    week = call("get_forecast", city="Montevideo", day=0, days=7)
    fake_llm.script(week, week, {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("mvd", {"message": "which day is warmest in Montevideo this week?"}).json()
    assert made_calls(body)[0][0] == "get_forecast"


def test_over_http_a_follow_up_after_a_turn_with_no_call_is_asked_with_the_conversation(forced_gateway, fake_llm):
    """dev27's "青岛下个月天气怎么样" is no day a call can ask (not looked up); "那今晚呢" then had no earlier call to take
    青岛 from and was not looked up either: it is asked with the conversation all the same."""
    fake_llm.script(call("get_forecast", city="青岛", day=1))
    forced_gateway.chat("qd", {"message": "青岛下个月天气怎么样"})
    fake_llm.script(call("get_forecast", city="北京", day=0, hours="night"),
                    call("get_forecast", city="青岛", day=0, hours="night"), {"content": "青岛今晚晴。"}, auto=True)
    body = forced_gateway.chat("qd", {"message": "那今晚呢"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "青岛", "day": 0, "hours": "night"})]
    # ... and a weekday abbreviated is the day, not a place ("and Sat?" was called for a place "Sat")
    assert not mentioned("Sat", "and Sat?") and mentioned("Oslo", "oslo tomorrow")


def test_over_http_a_follow_up_of_a_failed_call_is_asked_with_it(forced_gateway, fake_llm):
    """"Weather in Kuopio, Finland 30 days from now?" is beyond the forecast (the call fails); "ok then, what about
    this Thursday?" was called for a city nobody named: the failed call is kept, marked, and the router is shown it,
    so the follow-up asks of Kuopio. A failed call lends no day or tool to the mends of successful ones."""
    fake_llm.script(call("get_forecast", city="Kuopio", day=30), {"content": "placeholder"}, auto=True)
    first = forced_gateway.chat("kuopio", {"message": "Weather in Kuopio, Finland 30 days from now?"}).json()
    assert [c["is_error"] for c in first["tool_calls"]] == [True]
    stored = forced_gateway.get("/chat/kuopio/history").json()["messages"][-1]["calls"]
    assert stored == [{"tool": "weather__get_forecast", "arguments": {"city": "Kuopio", "day": 30}, "failed": True}]
    fake_llm.script(call("get_forecast", city="南宁", day="thursday"), call("get_forecast", city="Kuopio",
                                                                         day="thursday"),
                    {"content": "placeholder"}, {"content": "placeholder"})
    body = forced_gateway.chat("kuopio", {"message": "ok then, what about this Thursday?"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "Kuopio", "day": "thursday"})]
    again = fake_llm.requests()[1]["messages"][-1]["content"]
    assert 'weather__get_forecast {"city":"Kuopio","day":30}' in again


def test_over_http_a_follow_up_of_a_new_day_alone_asks_the_latest_calls_tool(forced_gateway, fake_llm):
    """"and how about tomorrow?" after the air in Heidelberg today (and, before it, yesterday's rain there) was
    called as tomorrow's rain: a follow-up that says only a day asks the latest call's tool, on that day."""
    asked = forced_asker(forced_gateway, fake_llm, "air")
    asked("Did it rain in Heidelberg, Germany yesterday?", call("get_precipitation", city="Heidelberg, Germany", day=-1))
    asked("How's the air there today?", call("get_air_quality", city="Heidelberg, Germany"))
    body = asked("and how about tomorrow?", call("get_precipitation", city="Heidelberg, Germany", day=1))
    assert made_calls(body) == [("get_air_quality", {"city": "Heidelberg, Germany", "day": 1})]


def test_over_http_a_follow_up_asking_for_other_units_asks_the_latest_calls_tool(forced_gateway, fake_llm):
    """"in fahrenheit pls" after tonight's low in Mont Tremblant was called as today's rain in °F: a follow-up that
    names only units asks the latest call again, in them."""
    asked = forced_asker(forced_gateway, fake_llm, "units")
    asked("how cold will it get in Mont Tremblant tonight", call("get_forecast", city="Mont Tremblant", day=0,
                                                               hours="night"))
    body = asked("in fahrenheit pls", call("get_precipitation", city="Mont Tremblant", day=0, fahrenheit=True))
    # (the latest call again, tonight's hours and all: the unit is all the question changes)
    assert made_calls(body) == [
        ("get_forecast", {"city": "Mont Tremblant", "day": 0, "hours": "night", "fahrenheit": True})]


def test_over_http_a_part_of_the_conversations_place_said_by_no_name_is_that_place(forced_gateway, fake_llm):
    """"山上冷不冷" after a question on 华山 was called for a place "山上冷": on the mountain, at the sea (山上, 海边)
    is the conversation's one place."""
    asked = forced_asker(forced_gateway, fake_llm, "mountain")
    asked("这周六去爬华山 天气怎么样", call("get_forecast", city="华山", day="saturday"))
    body = asked("山上冷不冷", call("get_forecast", city="山上冷", day="saturday"))
    assert made_calls(body) == [("get_forecast", {"city": "华山", "day": "saturday"})]
    body = asked("热不热啊 要在工地干一天活", call("get_forecast", city="工地干", day="saturday"))  # at the site
    assert [arguments["city"] for _, arguments in made_calls(body)] == ["华山"]
    # nor words that open with a part of the day (dev43's "明天呢？我明天晚上回" was called for a place "晚上回")
    body = asked("明天呢？我明天晚上回", call("get_precipitation", city="晚上回", day=1, hours="night"))
    assert [arguments["city"] for _, arguments in made_calls(body)] == ["华山"]
    # ... nor the name sharing a character with the router's ("晚上回" of 上海: 上)
    asked = forced_asker(forced_gateway, fake_llm, "evening-back")
    asked("那现在呢，上海在下吗", call("get_current_weather", city="上海"))
    body = asked("明天呢？我明天晚上回", call("get_precipitation", city="上海", day=1))
    assert [arguments["city"] for _, arguments in made_calls(body)] == ["上海"]


def test_over_http_a_word_of_the_domain_called_as_a_place_is_the_conversations_place(forced_gateway, fake_llm):
    """"windy then?" after tomorrow at 6 in Burlington was called for a place named "Windy" (Vidin, Bulgaria)."""
    asked = forced_asker(forced_gateway, fake_llm, "windy")
    asked("temp in Burlington VT tmrw at 6pm?", call("get_forecast", city="Burlington, VT", day=1, hours=[18]))
    body = asked("windy then?", call("get_forecast", city="Windy", day=1))
    assert [(tool, arguments["city"].replace(",", "")) for tool, arguments in made_calls(body)] == [
        ("get_forecast", "Burlington VT")]


def test_over_http_a_word_that_sets_places_side_by_side_is_the_conversations_place(forced_gateway, fake_llm):
    """"vs Abisko tonight — which one will be colder?" after tonight in Tromsø was compared for Abisko and "vs"."""
    asked = forced_asker(forced_gateway, fake_llm, "versus")
    asked("how cold will it get overnight in Tromsø?", call("get_forecast", city="Tromsø", day=0))
    body = asked("vs Abisko tonight — which one will be colder?", call("compare_weather", cities=["Abisko", "vs"],
                                                                         day=0))
    assert made_calls(body) == [("compare_weather", {"cities": ["Abisko", "Tromsø"], "day": 0})]


def test_over_http_a_correction_keeps_the_conversations_day(forced_gateway, fake_llm):
    """"oops, I meant Lafayette, Indiana" after tomorrow's forecast for Lafayette, Louisiana was called for today:
    a correction asks the question before again, of what it says, on its day."""
    asked = forced_asker(forced_gateway, fake_llm, "laf")
    asked("What's tomorrow's forecast for Lafayette, Louisiana?", call("get_forecast", city="Lafayette, Louisiana",
                                                                     day=1))
    body = asked("oops, I meant Lafayette, Indiana", call("get_forecast", city="Lafayette, Indiana", day=0))
    assert made_calls(body) == [("get_forecast", {"city": "Lafayette, Indiana", "day": 1})]
    # ... however it says the place before was the wrong one
    asked = forced_asker(forced_gateway, fake_llm, "pwm")
    asked("Portland, Oregon weather tomorrow?", call("get_forecast", city="Portland, Oregon", day=1))
    body = asked("sorry, wrong Portland. Maine.", call("get_forecast", city="Portland, Maine", day=0))
    assert made_calls(body) == [("get_forecast", {"city": "Portland, Maine", "day": 1})]
    asked = forced_asker(forced_gateway, fake_llm, "tz")
    asked("泰州明天天气怎么样", call("get_forecast", city="泰州", day=1))
    body = asked("不是那个，是浙江的台州", call("get_forecast", city="浙江的台州", day=0))
    assert [arguments["day"] for _, arguments in made_calls(body)] == [1]
    asked = forced_asker(forced_gateway, fake_llm, "sgf")
    asked("will it rain in Springfield, Illinois tomorrow?", call("get_precipitation", city="Springfield, Illinois",
                                                                 day=1))
    body = asked("ugh no, the other one — Springfield, Missouri",
                 call("get_precipitation", city="Springfield, Missouri", day=0))
    assert [arguments["day"] for _, arguments in made_calls(body)] == [1]


def test_over_http_places_joined_in_one_value_or_added_by_a_follow_up_are_each_compared(forced_gateway, fake_llm):
    """"明天夜里海林和尚志哪边更冷" was called for one place, "海林和尚志"; "加上奉化呢，三个里面哪个最热" copied the two places
    of the call before, and "把丰宁也加进来" was called for 丰宁 alone: each named place is in the comparison."""
    fake_llm.script(call("get_forecast", city="海林和尚志", day=1), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("join", {"message": "明天海林和尚志哪边更冷"}).json()
    assert made_calls(body) == [("compare_weather", {"cities": ["海林", "尚志"], "day": 1})]
    asked = forced_asker(forced_gateway, fake_llm, "add")
    two = call("compare_weather", cities=["东阳", "嵊州"], day=1)
    asked("明天东阳和嵊州哪个更热", two)
    body = asked("加上奉化呢，三个里面哪个最热", two)
    assert made_calls(body) == [("compare_weather", {"cities": ["东阳", "嵊州", "奉化"], "day": 1})]
    # the added place alone, called on its own, is added to the comparison, on the day this question asks
    body = asked("把丰宁也加进来，后天三个里哪个最冷", call("get_forecast", city="丰宁", day=2))
    assert made_calls(body) == [("compare_weather", {"cities": ["东阳", "嵊州", "奉化", "丰宁"], "day": 2})]
    # no comparison before: the places asked of one by one, and the added one
    asked = forced_asker(forced_gateway, fake_llm, "add-one-by-one")
    asked("Is it going to be hot in Kununurra tomorrow?", call("get_forecast", city="Kununurra", day=1))
    asked("what about Katherine, NT?", call("get_forecast", city="Katherine, NT", day=1))
    body = asked("add Tennant Creek - which of the three is hottest tomorrow?",
                 call("get_forecast", city="Tennant Creek", day=1))
    assert made_calls(body) == [
        ("compare_weather", {"cities": ["Kununurra", "Katherine, NT", "Tennant Creek"], "day": 1})]
    # ... in Chinese, a Latin name after 加上 is added, not qualified by it ("加上Kirkland Lake" was no place)
    asked = forced_asker(forced_gateway, fake_llm, "add-latin")
    asked("明天Cochrane, Ontario多少度", call("get_forecast", city="Cochrane, Ontario", day=1))
    body = asked("加上Kirkland Lake，明天哪个更冷", call("get_forecast", city="Kirkland Lake", day=1))
    assert made_calls(body) == [("compare_weather", {"cities": ["Cochrane, Ontario", "Kirkland Lake"], "day": 1})]
    # "compared to" a place: the conversation's place the router called alone, with it
    asked = forced_asker(forced_gateway, fake_llm, "compared-to")
    asked("how cold is it in Katoomba right now", call("get_current_weather", city="Katoomba"))
    body = asked("compared to Sydney, which is colder tomorrow?", call("get_forecast", city="Katoomba", day=1))
    assert made_calls(body) == [("compare_weather", {"cities": ["Sydney", "Katoomba"], "day": 1})]
    # ... "compare with" too (dev43's "compare with Spokane for the same 10 days" got Spokane's forecast alone)
    asked = forced_asker(forced_gateway, fake_llm, "compare-with")
    asked("how cold is it in Katoomba right now", call("get_current_weather", city="Katoomba"))
    body = asked("compare with Sydney, which is colder tomorrow?", call("get_forecast", city="Sydney", day=1))
    assert made_calls(body) == [("compare_weather", {"cities": ["Katoomba", "Sydney"], "day": 1})]
    # ... and in Chinese ("跟长春比" after Harbin's week was called for Harbin's rain alone)
    asked = forced_asker(forced_gateway, fake_llm, "compared-with-zh")
    asked("哈尔滨这一周内会不会下雪", call("get_precipitation", city="哈尔滨", day=0, days=7))
    body = asked("明天跟长春比哪个更冷", call("get_precipitation", city="哈尔滨", day=1))
    assert made_calls(body) == [("compare_weather", {"cities": ["长春", "哈尔滨"], "day": 1})]


def test_over_http_same_for_a_place_asks_the_latest_question_of_it(forced_gateway, fake_llm):
    """"same for paris" after a chart of London's next 10 days got the weather now in Paris: it asks the latest
    question again, of Paris."""
    asked = forced_asker(forced_gateway, fake_llm, "same-for")
    asked("chart the rain in London for the next 10 days",
          call("get_weather_chart", city="London", kind="precipitation", day=0, days=10))
    body = asked("same for paris", call("get_current_weather", city="Paris"))
    assert made_calls(body) == [("get_weather_chart", {"city": "Paris", "kind": "precipitation", "day": 0, "days": 10})]


def test_over_http_a_new_place_alone_asks_the_latest_question_not_an_older_comparison(forced_gateway, fake_llm):
    """"what about Tartu?" after Oulu's snow tomorrow (and before it, a comparison of Oulu and Umeå): the router
    copied the comparison, for Oulu and Tartu; the follow-up says one place, so it is the latest call's question,
    for it (by the tool that holds the most: a follow-up of a yes or no asks nothing of its own)."""
    fake_llm.script(call("compare_weather", cities=["Oulu", "Umeå"]), {"content": "Oulu is colder."}, auto=True)
    forced_gateway.chat("tartu", {"message": "Which is colder right now, Oulu or Umeå?"})
    fake_llm.script(call("get_precipitation", city="Oulu", day=1), {"content": "Snow in Oulu."}, auto=True)
    forced_gateway.chat("tartu", {"message": "Any snow coming to Oulu tomorrow?"})
    fake_llm.script(call("get_current_weather", city="Tartu"), call("compare_weather", cities=["Oulu", "Tartu"]),
                    {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("tartu", {"message": "what about Tartu?"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "Tartu", "day": 1})]
    # ... also on "the same day" (dev28's "and Puerto Natales the same day?" was compared with El Calafate)
    fake_llm.script(call("get_current_weather", city="Tartu"), call("compare_weather", cities=["Oulu", "Tallinn"]),
                    {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("tartu", {"message": "and Tallinn the same day?"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "Tallinn", "day": 1})]


def test_over_http_a_place_alone_after_a_search_of_places_asks_the_latest_question_of_it(forced_gateway, fake_llm):
    """dev42's "哈尔滨呢" after "漠河明天最低多少" (and, before it, which cities are below -20 tomorrow) was called as
    that search again: a tool that takes no place cannot be asked of the one the follow-up says."""
    asked = forced_asker(forced_gateway, fake_llm, "after-search")
    asked("明天有哪些城市低于零下20度", call("find_cities_by_temperature", relation="below", temp=-20, day=1))
    asked("漠河明天最低多少", call("get_forecast", city="漠河", day=1))
    search = call("find_cities_by_temperature", relation="below", temp=-20, day=1, measure="min")
    fake_llm.script(search, search, search, {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("after-search", {"message": "哈尔滨呢"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "哈尔滨", "day": 1})]


@pytest.mark.parametrize("again, language", [("能用中文再说一遍吗？我要发给我妈看", "zh"), ("Again in Chinese?", "zh"),
                                             ("say that again in English", "en"),
                                             # a doubt: the figures said again ("Africa" was called for the air)
                                             ("seems low for Africa lol, are you sure?", "en")])
def test_over_http_the_latest_answer_asked_again_makes_its_calls_again(forced_gateway, fake_llm, again, language):
    """dev43's "能用中文再说一遍吗？我要发给我妈看" after a comparison of the UV was taken for a task of words and
    answered "抱歉，我现在无法回答这个问题": the latest calls are made again and answered in the language asked."""
    asked = forced_asker(forced_gateway, fake_llm, f"again-{language}-{len(again)}")
    asked("Perth or Adelaide, which one has the higher UV tomorrow?",
          call("compare_weather", cities=["Perth", "Adelaide"], day=1))
    body = asked(again, {"content": "Sorry, I cannot do that."})
    assert made_calls(body) == [("compare_weather", {"cities": ["Perth", "Adelaide"], "day": 1})]
    assert body["language"] == language


def test_over_http_a_place_alone_after_one_day_asks_of_that_day_not_an_older_span(forced_gateway, fake_llm):
    """dev42's "平潭呢" after tomorrow's wind in 厦门 (and before it, 厦门's next three days) was called for three
    days, copied from the first question: the latest call was of one day."""
    asked = forced_asker(forced_gateway, fake_llm, "one-day-after-span")
    asked("厦门未来三天降雨量多少", call("get_forecast", city="厦门", day=0, days=3))
    asked("风大吗？明天最大风速多少", call("get_forecast", city="厦门", day=1))
    body = asked("平潭呢", call("get_forecast", city="平潭", day=1, days=3))
    assert made_calls(body) == [("get_forecast", {"city": "平潭", "day": 1})]


def test_over_http_a_yes_or_no_of_the_conversations_place_is_no_search_of_places(forced_gateway, fake_llm):
    """dev43's "Is it going to drop below freezing any night in that stretch?" after a chart of Boise's next 10
    days was called as the search of every city below 0: a yes or no, asking no "which", of the one place."""
    asked = forced_asker(forced_gateway, fake_llm, "stretch")
    asked("Boise, Idaho: can you make me a temperature chart for the next 10 days?",
          call("get_weather_chart", city="Boise, Idaho", kind="temperature", day=0, days=10))
    body = asked("Is it going to drop below freezing any night in that stretch?",
                 call("find_cities_by_temperature", relation="below", temp=0, day=0, measure="min"))
    assert made_calls(body) == [("get_forecast", {"city": "Boise, Idaho", "day": 0, "days": 10})]
    # ... but "which" asks the search
    body = asked("Which cities drop below freezing tonight?",
                 call("find_cities_by_temperature", relation="below", temp=0, day=0, measure="min"))
    assert [tool for tool, _ in made_calls(body)] == ["find_cities_by_temperature"]


def test_over_http_the_weather_asked_after_a_chart_is_no_chart(forced_gateway, fake_llm):
    """dev42's "格尔木明天天气呢" after a chart of 西宁's week was drawn for 格尔木: the weather is asked, not a
    drawing. A place alone asks for the chart again."""
    asked = forced_asker(forced_gateway, fake_llm, "after-chart")
    asked("西宁未来一周气温走势图", call("get_weather_chart", city="西宁", kind="temperature", day=0, days=7))
    body = asked("格尔木明天天气呢", call("get_weather_chart", city="格尔木", kind="temperature", day=1, days=7))
    assert [(tool, arguments["city"], arguments["day"]) for tool, arguments in made_calls(body)] == [
        ("get_forecast", "格尔木", 1)]
    asked = forced_asker(forced_gateway, fake_llm, "after-chart-place")
    asked("西宁未来一周气温走势图", call("get_weather_chart", city="西宁", kind="temperature", day=0, days=7))
    body = asked("那玉树呢", call("get_weather_chart", city="玉树", kind="temperature", day=0, days=7))
    assert [tool for tool, _ in made_calls(body)] == ["get_weather_chart"]


def test_over_http_a_place_asked_about_on_that_day_is_moved_to_a_tool_that_takes_it(forced_gateway, fake_llm):
    """"顺便看看黄石那天的天气" after a question on 荆州 next Thursday was called as 黄石's present conditions: "那天"
    is the conversation's day, which only a tool that takes a day answers."""
    fake_llm.script(call("get_forecast", city="荆州", day=9), {"content": "荆州下周四的预报如上。"}, auto=True)
    first = forced_gateway.chat("trip", {"message": "下周四去荆州出差，天气怎么样"}).json()
    thursday = first["tool_calls"][0]["arguments"]["day"]
    fake_llm.script(call("get_current_weather", city="黄石"), call("get_current_weather", city="黄石"),
                    {"content": "黄石那天的预报如上。"}, auto=True)
    body = forced_gateway.chat("trip", {"message": "顺便看看黄石那天的天气"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "黄石", "day": thursday})]


def test_a_follow_ups_opening_is_no_part_of_a_place():
    places = {"properties": {"city": FORECAST["properties"]["city"],
                             "cities": {"type": "array", "items": {"type": "string"}, "description": "The places"}}}
    assert without_opening({"city": "那贡布"}, places, conversation.opening("那贡布呢"), VOCABULARY) == {"city": "贡布"}
    assert without_opening({"cities": ["and Paris", "Lyon"]}, places, conversation.opening("and Paris vs Lyon?"),
                           VOCABULARY) == {"cities": ["Paris", "Lyon"]}
    # A place the opening's characters begin, with too little left without them, and a question with no opening.
    assert without_opening({"city": "那曲"}, places, conversation.opening("那曲呢"), VOCABULARY) == {"city": "那曲"}
    # Text cannot tell "那坡县" from "那" and "坡县": the route stage makes the router's form first.
    assert without_opening({"city": "那坡县"}, places, conversation.opening("那坡县明天冷吗"), VOCABULARY) == {
        "city": "坡县"}
    assert conversation.opening("贡布呢") == "" and conversation.opening("Andover tomorrow?") == ""


def test_over_http_a_follow_up_naming_a_place_is_called_for_it_not_for_its_opening(forced_gateway, fake_llm):
    """"那贡布呢" after a question on 金边 tomorrow was called as the present conditions of "那贡布": 那 ("and") is
    the follow-up's, not the place's (the call falls back to 贡布 when the tool knows no "那贡布"), and the
    follow-up asks the earlier question of 贡布, on its day. A place that 那 begins is called as it is."""
    fake_llm.script(call("get_forecast", city="金边", day=1), {"content": "金边明天很热。"}, auto=True)
    forced_gateway.chat("kampot", {"message": "哈喽，想问下金边明天热不热"})
    fake_llm.script(call("get_current_weather", city="那贡布"), call("get_current_weather", city="那贡布"),
                    {"content": "贡布明天的预报如上。"}, auto=True)
    body = forced_gateway.chat("kampot", {"message": "那贡布呢"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "贡布", "day": 1})] and not body["tool_calls"][0]["is_error"]
    fake_llm.script(call("get_forecast", city="那曲", day=1), call("get_forecast", city="那曲", day=1),
                    {"content": "那曲明天的预报如上。"}, auto=True)
    body = forced_gateway.chat("kampot", {"message": "那曲呢"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "那曲", "day": 1})] and not body["tool_calls"][0]["is_error"]


def test_a_flag_the_conversation_turned_on_is_kept_unless_the_question_names_another_unit():
    schema = {"properties": {"city": {"type": "string"}, "fahrenheit": {
        "type": "boolean", "default": False, "description": "true only if °F, Fahrenheit or 华氏 is asked"}}}
    on = [{"city": "Missoula", "fahrenheit": True}]
    for asked in ("and tonight's low?", "Will it snow there on Saturday?", "明天呢", "Still in Fahrenheit?",
                  "how many degrees tomorrow?"):
        assert with_earlier_flags({"city": "Missoula", "fahrenheit": False}, schema, on, asked, VOCABULARY) == {
            "city": "Missoula", "fahrenheit": True}, asked
    for asked in ("And in Celsius please?", "明天呢，用摄氏度"):
        assert with_earlier_flags({"city": "Missoula"}, schema, on, asked, VOCABULARY) == {"city": "Missoula"}, asked
    # Nothing turned on before, nothing carried.
    assert with_earlier_flags({"city": "Missoula"}, schema, [{"city": "Missoula", "fahrenheit": False}],
                              "and tonight's low?", VOCABULARY) == {"city": "Missoula"}


def test_over_http_a_follow_up_keeps_the_conversations_unit_until_the_user_changes_it(forced_gateway, fake_llm):
    """After a question in Fahrenheit, "and tonight's low?" and "Will it snow there on Saturday?" were answered in
    °C: the conversation's choice carries over, until "in Celsius please", which then carries over in its turn."""
    fake_llm.script(call("get_current_weather", city="Missoula, Montana", fahrenheit=True),
                    {"content": "It is 38.8°F now."}, auto=True)
    forced_gateway.chat("msla", {"message": "Missoula, Montana - current temp in Fahrenheit?"})
    for question, alone, again in (
            ("and tonight's low?", call("get_forecast", city="Missoula", hours="night"),
             call("get_forecast", city="Missoula, Montana", hours="night")),
            ("Will it snow there on Saturday?", call("get_precipitation", city="Paris", day="saturday"),
             call("get_precipitation", city="Missoula, Montana", day="saturday", fahrenheit=False))):
        fake_llm.script(alone, again, {"content": "See the figures above."}, auto=True)
        body = forced_gateway.chat("msla", {"message": question}).json()
        ((_, arguments),) = made_calls(body)
        assert arguments["fahrenheit"] is True, question
    for question in ("And on Sunday, in Celsius please?", "and Monday?"):
        fake_llm.script(call("get_forecast", city="Missoula, Montana"), call("get_forecast", city="Missoula, Montana"),
                        {"content": "See the figures above."}, auto=True)
        body = forced_gateway.chat("msla", {"message": question}).json()
        ((_, arguments),) = made_calls(body)
        assert not arguments.get("fahrenheit"), question


def test_over_http_a_tool_with_no_unit_argument_answers_in_the_unit_system_the_question_asks(forced_gateway,
                                                                                               fake_llm):
    """"say that again in Fahrenheit - which one's warmer?" was compared in °C: the comparison takes no unit, and
    the unit system the question names goes to the server as `_meta.units` ("imperial")."""
    fake_llm.script(call("compare_weather", cities=["Oslo", "Rome"]), {"content": "As above."}, auto=True)
    body = forced_gateway.chat("unit", {"message": "say that again in Fahrenheit - which one's warmer, Oslo or Rome?"})
    (made,) = body.json()["tool_calls"]
    assert made["structured_content"]["units"]["temperature"] == "°F"


@pytest.mark.parametrize("question, said, units", [
    ("which is warmer?", ["Oslo in Fahrenheit please"], "imperial"),  # the conversation's choice carries over
    ("用摄氏度说", ["Oslo in Fahrenheit please"], "metric"),  # until it names another
    ("and Rome?", ["in °C please", "Oslo in Fahrenheit please"], "imperial"),  # the latest one
    ("and Rome?", [], None),
    # the unit of another quantity, or the letter alone ("inches pls" had been answered in mm)
    ("how much snow is Marquette getting over the next 3 days? inches pls", [], "imperial"),
    ("is it too cold to walk to school in Fargo ND right now? F please", [], "imperial"),
    ("current wind in Westport in mph", [], "imperial"),
])
def test_the_unit_system_a_conversation_names_lately_is_the_turns(question, said, units):
    history = [message for text in said for message in ({"role": "user", "content": text},
                                                         {"role": "assistant", "content": "OK."})]
    assert Turn.start(question, history, ASSISTANT).units == units


def test_over_http_small_talk_calls_no_tool_for_a_place_nobody_named(forced_gateway, fake_llm):
    """"今天心情不错，跟你聊两句" ("good mood today, let's chat") was called as the forecast of 北京, which nobody
    named: a remark with a day word asks nothing of the data, and a call for a place nobody named is not made."""
    fake_llm.script(call("get_forecast", city="北京", day=0), {"content": "很高兴听到你心情不错！想聊点什么？"})
    body = forced_gateway.chat("chat", {"message": "今天心情不错，跟你聊两句"}).json()
    assert body["tool_calls"] == [] and body["response"] == "很高兴听到你心情不错！想聊点什么？"
    # Told that a tool has the data, a small model made the place up: said to be not looked up, never guessed.
    fake_llm.script({"tool_calls": [{"name": "answer_directly", "arguments": {}}]},
                    call("get_forecast", city="北京", day=0))
    body = forced_gateway.chat("wear", {"message": "今天出门穿什么好？"}).json()
    assert body["tool_calls"] == [] and body["response"] == ASSISTANT.not_looked_up["zh"]
    assert needs_tool_data("今天出门穿什么好？", [FORECAST_TOOL], VOCABULARY)
    assert not needs_tool_data("今天心情不错，跟你聊两句", [FORECAST_TOOL], VOCABULARY)
    # a comparative of the topic, of the present moment ("hotter there or in Monterrey at the moment?" had been
    # answered "Guadalajara is currently hotter" from memory)
    assert needs_tool_data("hotter there or in Monterrey at the moment?", [FORECAST_TOOL], VOCABULARY)
    assert needs_tool_data("明天上海", [FORECAST_TOOL], VOCABULARY)
    # a plan and a question in 咋样 asks ("周末带娃去周庄玩，天气咋样" got no call and a guess)
    assert needs_tool_data("周末带娃去周庄玩，天气咋样", [FORECAST_TOOL], VOCABULARY)
    # a few words with one of the topic's ("nyc rain?" was answered "Yes, it is raining in New York City")
    assert needs_tool_data("nyc rain?", [FORECAST_TOOL], VOCABULARY)
    assert not needs_tool_data("do you like rain?", [FORECAST_TOOL], VOCABULARY)
    # ... or of the present moment ("Yes, it is raining in Kotor, Montenegro right now." had no call behind it)
    assert needs_tool_data("Currently in Kotor, Montenegro. Is it raining there right now?", [FORECAST_TOOL],
                           VOCABULARY)


def test_over_http_a_verdict_after_charts_is_asked_of_the_tool_its_own_words_name(forced_gateway, fake_llm):
    """"这周末冷不冷" after two charts of 衢州 was called as the week's chart again: shown the earlier calls, the
    router repeated them; asked alone it called the forecast, whose listed words ("周末") the question says and
    none of the chart's ("图"). "再来一张降水图" says the chart's, and stays a chart."""
    fake_llm.script(call("get_weather_chart", city="衢州", kind="temperature", days=7),
                    {"content": "衢州未来7天的气温图如上。"}, auto=True)
    forced_gateway.chat("chart", {"message": "给我画张衢州未来7天的气温图"})
    fake_llm.script(call("get_weather_chart", city="北京", kind="precipitation"),
                    call("get_weather_chart", city="衢州", kind="precipitation", day=0, days=7),
                    {"content": "衢州未来7天的降水图如上。"}, auto=True)
    body = forced_gateway.chat("chart", {"message": "再来一张降水图"}).json()
    assert made_calls(body) == [("get_weather_chart", {"city": "衢州", "kind": "precipitation", "day": 0, "days": 7})]
    fake_llm.script(call("get_forecast", city="北京", day="weekend"),
                    call("get_weather_chart", city="衢州", kind="temperature", day=0, days=7),
                    {"content": "衢州周末不算冷。"}, auto=True)
    body = forced_gateway.chat("chart", {"message": "这周末冷不冷"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "衢州", "day": "weekend"})]
    # A new place and a day alone keep the conversation's tool (dev27's "阿姆利则明天呢" after the air of 德里 got the
    # forecast: its description lists 明天).
    fake_llm.script(call("get_air_quality", city="德里", day=0), {"content": "德里空气良。"}, auto=True)
    forced_gateway.chat("air", {"message": "德里今天空气咋样"})
    fake_llm.script(call("get_forecast", city="阿姆利则", day=1), call("get_air_quality", city="阿姆利则", day=1),
                    {"content": "阿姆利则明天空气良。"}, auto=True)
    body = forced_gateway.chat("air", {"message": "阿姆利则明天呢"}).json()
    assert [c["tool"] for c in body["tool_calls"]] == ["get_air_quality"]


def test_a_place_is_named_by_the_question_or_the_conversation_accents_aside():
    schema = {"properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}
    assert unnamed_places({"city": "北京"}, schema, "今天心情不错，跟你聊两句", VOCABULARY) == ["北京"]
    assert unnamed_places({"city": "北京"}, schema, "我住在北京。\n好的。\n今天出门穿什么好？", VOCABULARY) == []
    assert unnamed_places({"city": "Zurich"}, schema, "Is it cold in Zürich?", VOCABULARY) == []
    assert unnamed_places({"city": "Missoula, MT"}, schema, "Missoula, Montana - any snow?", VOCABULARY) == []


@pytest.mark.parametrize("message, only_a_day", [
    ("and how about tomorrow?", True), ("那后天呢", True), ("ok then, what about this Thursday?", True),
    ("那明天呢，会好点吗", True), ("tomorrow?", True), ("and tomorrow in Oslo?", False), ("明天会下雨吗", False),
    ("what about tomorrow night?", False), ("Is it cold tomorrow?", False), ("那边呢", False),
])
def test_a_follow_up_that_says_only_a_day_is_told_apart(message, only_a_day):
    assert conversation.says_only_a_day(message) is only_a_day


def test_over_http_a_new_place_after_a_failed_call_asks_that_calls_question_of_it(forced_gateway, fake_llm):
    """"ok fair, how about Roseau, Dominica?" after the weather of a place of stories (refused) was called as a
    comparison of Roseau with itself over a week: the follow-up says one place, so it is the failed call's
    question, of it."""
    asked = forced_asker(forced_gateway, fake_llm, "roseau")
    failed = asked("what's the weather in King's Landing today?", call("get_forecast", city="King's Landing", day=0))
    assert [made["is_error"] for made in failed["tool_calls"]] == [True]
    body = asked("ok fair, how about Roseau, Dominica?",
                 call("compare_weather", cities=["Roseau, Dominica", "Roseau, Dominica"], day=0, days=7))
    assert made_calls(body) == [("get_forecast", {"city": "Roseau, Dominica", "day": 0})]


def test_over_http_a_follow_up_that_says_one_name_alone_asks_of_it(forced_gateway, fake_llm):
    """"and Berbera?" after Djibouti's temperature was called for Djibouti again: the name said alone is the
    call's place; "and UV?" names a quantity, not a place."""
    asked = forced_asker(forced_gateway, fake_llm, "berbera")
    djibouti = call("get_current_weather", city="Djibouti")
    asked("How hot is it in Djibouti right now?", djibouti)
    assert made_calls(asked("and Berbera?", djibouti)) == [("get_current_weather", {"city": "Berbera"})]
    assert made_calls(asked("and UV?", djibouti)) == [("get_current_weather", {"city": "Djibouti"})]
    # beside the day it asks, too ("and Split the day before yesterday?" had been called for Dubrovnik); a unit is
    # no place
    asked = forced_asker(forced_gateway, fake_llm, "split")
    dubrovnik = call("get_forecast", city="Dubrovnik", day=-2)
    asked("what was Dubrovnik like the day before yesterday?", dubrovnik)
    assert made_calls(asked("and Split the day before yesterday?", dubrovnik)) == [
        ("get_forecast", {"city": "Split", "day": -2})]
    assert made_calls(asked("And in Fahrenheit yesterday?", call("get_forecast", city="Split", day=-1))) == [
        ("get_forecast", {"city": "Split", "day": -1, "fahrenheit": True})]
    # ... or beside "at the same time" (dev51's "ok and Johor Bahru at the same time?" was called for Singapore)
    asked = forced_asker(forced_gateway, fake_llm, "johor")
    singapore = call("get_forecast", city="Singapore", day=1, hours=[17])
    asked("What's the temp in Singapore at 5pm tomorrow?", singapore)
    assert made_calls(asked("ok and Johor Bahru at the same time?", singapore)) == [
        ("get_forecast", {"city": "Johor Bahru", "day": 1, "hours": [17]})]
    # "那里冷吗" asks of there: 里冷吗 is no name said alone
    asked = forced_asker(forced_gateway, fake_llm, "there")
    yangshuo = call("get_current_weather", city="阳朔")
    asked("阳朔现在多少度", yangshuo)
    assert made_calls(asked("那里冷吗", yangshuo)) == [("get_current_weather", {"city": "阳朔"})]


def test_over_http_a_follow_up_on_a_dated_day_keeps_the_date(forced_gateway, fake_llm):
    """"需要带伞吗" after 下周五 was called for 2026-12-11 went to the tool as day 2026 (the router copied the year):
    a follow-up that names no day asks about the conversation's day."""
    asked = forced_asker(forced_gateway, fake_llm, "dated")
    # (next week's Friday counted in 昆明's calendar, whatever the day of the run)
    ((_, first),) = made_calls(asked("昆明下周五天气怎么样", call("get_forecast", city="昆明", day="2026-12-11", days=1)))
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", first["day"])
    body = asked("需要带伞吗", call("get_precipitation", city="昆明", day=2026, days=1))
    assert made_calls(body) == [("get_precipitation", {"city": "昆明", "day": first["day"], "days": 1})]


@pytest.mark.parametrize("question, said, meant", [
    ("我在昆明，下周五去西双版纳，那天天气怎么样", "昆明", "西双版纳"),
    ("I'm in Denver, flying to Boise tomorrow - will it be cold?", "Denver", "Boise"),
    ("我在杭州，去年这时候杭州冷吗", "杭州", "杭州"),  # 去年 is last year, and 杭州 is named again
    ("周日从赫尔辛基坐渡轮去塔林，塔林周日天气怎么样", "赫尔辛基", "塔林"),
    ("Driving from Denver to Salt Lake City on Friday, any snow?", "Denver", "Salt Lake City"),
    ("从北京去上海出差，北京明天冷吗", "北京", "北京"),  # the place set out from, asked by name
    # a stop on the way (dev52)
    ("driving Adelaide to Darwin, stopping in Coober Pedy on tuesday next week. forecast for that day?", "Adelaide",
     "Coober Pedy"),
    ("周六自驾从昆明到大理，途经楚雄，那天天气如何", "昆明", "楚雄"),
])
def test_over_http_a_question_about_where_the_user_is_going_is_called_for_that_place(forced_gateway, fake_llm,
                                                                                     question, said, meant):
    """"我在昆明，下周五去西双版纳，那天天气怎么样" was called for 昆明, where the user is, not where they are going."""
    fake_llm.script(call("get_forecast", city=said, day=1), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat(f"going{len(question)}", {"message": question}).json()  # (a conversation each)
    assert [made["arguments"]["city"] for made in body["tool_calls"]] == [meant]


@pytest.mark.parametrize("question, said, rest, meant", [
    ("我在上海，想知道开罗那边现在的天气", "上海", "开罗", "开罗"),
    ("I'm in Denver. What's it like in Reykjavik right now?", "Denver", "Reykjavik", "Reykjavik"),
    ("我在上海，现在天气怎么样", "上海", "北京", "上海"),  # the rest names no place: 上海 itself is asked of
])
def test_over_http_a_question_about_elsewhere_is_not_called_for_where_the_user_is(forced_gateway, fake_llm,
                                                                                   question, said, rest, meant):
    """"我在上海，想知道开罗那边现在的天气" was called for 上海: the question less where the user is is asked alone."""
    fake_llm.script(call("get_current_weather", city=said), call("get_current_weather", city=rest),
                    {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("elsewhere", {"message": question}).json()
    assert [made["arguments"]["city"] for made in body["tool_calls"]] == [meant]


def test_over_http_a_call_made_again_after_its_error_is_asked_once_more_of_the_other_tools(forced_gateway,
                                                                                          fake_llm):
    """"gonna be wet in Bergen on saturday?" was called for the air's data, which end before Saturday; told so, the
    router made the same call again, and the answer was the error. The third time, the other tools alone."""
    air = call("get_air_quality", city="Bergen", day=6)
    fake_llm.script(air, air, call("get_precipitation", city="Bergen", day=6), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("wet", {"message": "gonna be wet in Bergen 6 days from now?"}).json()
    assert [(c["tool"], c["is_error"]) for c in body["tool_calls"]] == [("get_precipitation", False)]


def test_over_http_a_name_written_without_capitals_and_misread_is_asked_capitalized(forced_gateway, fake_llm):
    """"rain in papeete today y/n" was called for Papua New Guinea, and again without that tool: asked once more with
    the name capitalized ("in Papeete"), the router calls for the place the question names."""
    misread = call("get_precipitation", city="Papua New Guinea", day=0)
    fake_llm.script(misread, call("get_current_weather", city="Papua New Guinea"),
                    call("get_precipitation", city="Papeete", day=0), {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("caps", {"message": "rain in papeete today y/n"}).json()
    assert made_calls(body) == [("get_precipitation", {"city": "Papeete", "day": 0})]
    assert with_names_capitalized("is it good for running in ho chi minh city now", VOCABULARY) == \
        "is it good for running in Ho Chi Minh City now"
    assert with_names_capitalized("what is it like in the morning", VOCABULARY) == "what is it like in the morning"


def test_over_http_a_question_of_there_after_one_place_is_not_a_comparison(forced_gateway, fake_llm):
    """"do I need a rain jacket there tomorrow?" after Victoria Falls, then Livingstone, was a comparison of both:
    "there" is the latest answer's one place; the router is asked once more, of it alone."""
    asked = forced_asker(forced_gateway, fake_llm, "there")
    asked("What's the weather at Victoria Falls today?", call("get_forecast", city="Victoria Falls", day=0))
    asked("what about tomorrow in Livingstone, Zambia?", call("get_forecast", city="Livingstone, Zambia", day=1))
    both = call("compare_weather", cities=["Victoria Falls", "Livingstone, Zambia"], day=1)
    fake_llm.script(both, both, call("get_precipitation", city="Livingstone", day=1), {"content": "x"})
    body = forced_gateway.chat("there", {"message": "do I need a rain jacket there tomorrow?"}).json()
    assert made_calls(body) == [("get_precipitation", {"city": "Livingstone, Zambia", "day": 1})]
    assert any("Livingstone, Zambia alone" in request["messages"][-1]["content"] for request in fake_llm.requests())
    # asked which of the two, or of both by name: the comparison stands
    fake_llm.script(both, both, {"content": "x"}, auto=True)
    body = forced_gateway.chat("there", {"message": "which one is wetter there tomorrow?"}).json()
    assert [made["tool"] for made in body["tool_calls"]] == ["compare_weather"]


def test_over_http_a_quantity_asked_again_of_one_place_is_no_comparison(forced_gateway, fake_llm):
    """"do I need a jacket there tomorrow?" got the rain of Livingstone, then (a jacket asks the temperature, which
    those results lack) a comparison of the conversation's two places: asked again for a quantity, calls of one
    place are offered only the tools of one place, and the call made moves to the one that holds it."""
    asked = forced_asker(forced_gateway, fake_llm, "jacket")
    asked("What's the weather at Victoria Falls today?", call("get_forecast", city="Victoria Falls", day=0))
    asked("what about tomorrow in Livingstone, Zambia?", call("get_forecast", city="Livingstone, Zambia", day=1))
    rain = call("get_precipitation", city="Livingstone, Zambia", day=1)
    fake_llm.script(rain, rain, call("compare_weather", cities=["Victoria Falls", "Livingstone, Zambia"], day=1),
                    {"content": "x"})
    body = forced_gateway.chat("jacket", {"message": "will it rain there tomorrow, do I need a jacket?"}).json()
    assert [(made["tool"], made["arguments"]) for made in body["tool_calls"]] == [
        ("get_forecast", {"city": "Livingstone, Zambia", "day": 1})]
    note = fake_llm.requests()[2]["messages"][-1]["content"]
    assert "weather__get_forecast" in note and "compare_weather" not in note


def test_a_place_written_by_its_initials_is_stated():
    """"nyc rain?" was called for "New York City", taken for a place nobody named, and answered from memory ("Yes,
    it is raining in New York City"). Initials are the name ("which is warmer tmrw, la or sf" and "how many mm of rain
    is hk getting tomorrow" had been answered "I could not look that up"), but two that are a word are not."""
    assert mentioned("New York City", "nyc rain?") and mentioned("Salt Lake City", "slc tmrw")
    assert mentioned("Hong Kong", "how many mm of rain is hk getting tomorrow")
    assert mentioned("New York", "temp in nyc at 7am tmrw?")  # the "City" a model left out
    assert mentioned("Los Angeles", "which is warmer tmrw, la or sf") and mentioned("San Francisco", "la or sf")
    assert not mentioned("New Orleans", "no rain today?") and not mentioned("New York City", "nycx rain")
    assert not mentioned("Santa Ana", "as warm as yesterday?") and not mentioned("Hong Kong", "hkg")


def test_a_chinese_place_written_with_its_particle_is_stated():
    """"吉尔吉斯斯坦的奥什现在什么天气" was called for "吉尔吉斯斯坦奥什", taken for a place nobody named, and answered
    that nothing was found: the name with the 的 between its country and itself left out is the question's."""
    assert mentioned("吉尔吉斯斯坦奥什", "吉尔吉斯斯坦的奥什现在什么天气")
    assert mentioned("美国缅因州波特兰", "美国缅因州的波特兰和俄勒冈州的波特兰")
    assert not mentioned("北京", "吉尔吉斯斯坦的奥什现在什么天气") and not mentioned("奥什城", "吉尔吉斯斯坦的奥什")


def test_a_place_written_contracted_is_stated():
    """"is it gonna be hot in phx tmrw lol" was called for Phoenix, taken for a place nobody named, and answered "I
    could not look that up": a name shortened to its first and last letters and a few between is the name; a word of
    the question, or chat shorthand, is not."""
    assert mentioned("Phoenix", "is it gonna be hot in phx tmrw lol") and mentioned("London", "ldn rain?")
    assert mentioned("Minneapolis", "mpls snow sat") and mentioned("Birmingham, UK", "bham tmrw")
    assert not mentioned("Toronto", "tomorrow?") and not mentioned("Paris", "weather pls")
    assert not mentioned("Houston", "is it hot") and not mentioned("Phoenix", "phoenixes")


def test_over_http_a_place_written_by_its_initials_is_looked_up(forced_gateway, fake_llm):
    fake_llm.script(call("get_precipitation", city="New York City", day=0), {"content": "No rain today."})
    body = forced_gateway.chat("nyc", {"message": "nyc rain?"}).json()
    assert made_calls(body) == [("get_precipitation", {"city": "New York City", "day": 0})]


def test_over_http_a_follow_up_asking_its_own_day_leaves_the_earlier_hour(forced_gateway, fake_llm):
    """"那大屿山呢，明天会下雨吗" after tomorrow at 8 was called for 8 o'clock only: the question after the place asks
    of the whole day; "那深圳呢" alone asks the hour's question again."""
    asked = forced_asker(forced_gateway, fake_llm, "hour")
    asked("明天早上八点香港多少度", call("get_forecast", city="香港", day=1, hours=[8]))
    body = asked("那深圳呢，明天会下雨吗", call("get_precipitation", city="深圳", day=1, hours=[8]))
    assert made_calls(body) == [("get_precipitation", {"city": "深圳", "day": 1})]
    asked = forced_asker(forced_gateway, fake_llm, "hour2")
    asked("明天早上八点香港多少度", call("get_forecast", city="香港", day=1, hours=[8]))
    body = asked("那深圳呢", call("get_forecast", city="深圳", day=1, hours=[8]))
    assert made_calls(body) == [("get_forecast", {"city": "深圳", "day": 1, "hours": [8]})]
    # A day the question before it did not name: dev52's "and how much rain fell in Dodge City yesterday?" after
    # tomorrow night was called for yesterday night.
    asked = forced_asker(forced_gateway, fake_llm, "night")
    asked("will it freeze tomorrow night in Dodge City, KS?", call("get_forecast", city="Dodge City, KS", day=1,
                                                                     hours="night"))
    body = asked("and how much rain fell in Dodge City yesterday?",
                 call("get_precipitation", city="Dodge City, KS", day=-1, hours="night"))
    assert made_calls(body) == [("get_precipitation", {"city": "Dodge City, KS", "day": -1})]


def test_over_http_a_question_of_knowledge_called_for_words_of_the_domain_is_answered_without_a_call(
        forced_gateway, fake_llm):
    """"is a typhoon the same thing as a hurricane?" was compared for places named "Typhoon" and "Hurricane" (a
    town of Utah), and answered with the error of the first: words of the domain name no place."""
    fake_llm.script(call("compare_weather", cities=["Typhoon", "Hurricane"]), {"content": "They are the same kind of "
                    "storm, named by the ocean where it forms."}, auto=True)
    body = forced_gateway.chat("storms", {"message": "is a typhoon the same thing as a hurricane, or are they "
                                                    "different?"}).json()
    assert body["tool_calls"] == [] and body["response"].startswith("They are the same kind of storm")


def test_over_http_a_follow_ups_search_for_numbers_nobody_gave_is_asked_again_without_it(forced_gateway, fake_llm):
    """"那哪天最适合晒" after a week's rain in 武夷山 became a search of cities between 10 and 20 degrees, which the next
    turns copied: no question of the conversation gives a number, so the router is asked again without the search."""
    # numbers a question of the conversation gave are kept: "那后天呢" after a search above 30
    asked = forced_asker(forced_gateway, fake_llm, "hot")
    asked("明天哪些城市超过30度", call("find_cities_by_temperature", relation="above", temp=30, day=1))
    later = call("find_cities_by_temperature", relation="above", temp=30, day=2)
    fake_llm.script(later, later, later, {"content": "placeholder"}, auto=True)  # (alone, without its tool, then
    body = forced_gateway.chat("hot", {"message": "那后天呢"}).json()             # with the conversation)
    assert [(tool, arguments.get("temp")) for tool, arguments in made_calls(body)] == \
        [("find_cities_by_temperature", 30)]
    asked = forced_asker(forced_gateway, fake_llm, "tea")
    asked("武夷山未来7天会不会下雨？茶青要晒", call("get_precipitation", city="武夷山", day=0, days=7))
    search = call("find_cities_by_temperature", relation="between", temp=10, temp2=20, day=0)
    # alone, without its tool (copied), with the conversation (copied again), then without it in the conversation
    fake_llm.script(search, search, search, call("get_forecast", city="武夷山", day=0, days=7),
                    {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("tea", {"message": "那哪天最适合晒"}).json()
    assert made_calls(body) == [("get_forecast", {"city": "武夷山", "day": 0, "days": 7})]  # no place "哪天最适合晒"
    assert conversation.named_alone("那哪天最适合晒") == "" and conversation.named_alone("那贡布呢") == "贡布"


def test_over_http_a_follow_up_writing_no_figure_searches_with_the_latest_calls_figures(forced_gateway, fake_llm):
    """dev51: "what about the day after?" after "hmm make it 20 to 25" after "Which cities are between 25 and 30
    tomorrow?" was searched from 20 to 30, one bound of each search."""
    asked = forced_asker(forced_gateway, fake_llm, "bounds")
    asked("Which cities are between 25 and 30 tomorrow?",
          call("find_cities_by_temperature", relation="between", temp=25, temp2=30, day=1))
    asked("hmm make it 20 to 25", call("find_cities_by_temperature", relation="between", temp=20, temp2=25, day=1))
    mixed = call("find_cities_by_temperature", relation="between", temp=20, temp2=30, day=2)
    fake_llm.script(mixed, mixed, mixed, {"content": "placeholder"}, auto=True)
    body = forced_gateway.chat("bounds", {"message": "what about the day after?"}).json()
    assert [(tool, arguments.get("temp"), arguments.get("temp2"), arguments.get("day"))
            for tool, arguments in made_calls(body)] == [("find_cities_by_temperature", 20, 25, 2)]
