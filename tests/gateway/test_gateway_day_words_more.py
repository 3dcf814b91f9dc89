"""More of how the gateway reads the days, clock times and quantities a question names: shorthand for tomorrow
and tonight. Pure text functions first, then the gateway process over HTTP with the real weather server (simulated
data) and the scripted LLM where what the call and the answer become matters."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.support.gateway_processes import weather_call as call

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.text.clock import parts_of_day
from mcp_chat_app.chat.text.day_words import asked_day, day_words, glossed
from mcp_chat_app.config import CONFIG_DIR

VOCABULARY = load_assistant(CONFIG_DIR / "assistant.json").vocabulary
MONDAY = dt.date(2026, 3, 2)


@pytest.mark.parametrize("question, offset", [
    ("whats tmrw looking like in Ipoh", 1), ("tmr in Ipoh?", 1), ("tmw in Ipoh?", 1), ("rain 2morrow?", 1),
    ("tomoz in Leeds, will it be cold?", 1), ("2mrw in Hanoi", 1), ("what about 2morow", 1),
    ("day after tmw?", 2), ("Ipoh tonite?", 0), ("Ipoh 2nite", 0),
])
def test_shorthand_for_tomorrow_and_tonight_is_read_as_the_day(question, offset):
    asked = asked_day(question, MONDAY)
    assert (asked.offset, asked.span) == (offset, False)
    if offset:
        assert glossed(question, MONDAY, VOCABULARY).endswith(f"{offset} day{'s' * (offset > 1)} from today)")


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
])
def test_a_day_counted_in_weeks_from_today_is_that_one_day(question, today, offset):
    asked = asked_day(question, today)
    assert (asked.offset, asked.span, asked.weekday) == (offset, False, None)
    assert glossed(question, today, VOCABULARY).endswith(f"({asked.word} = {offset} days from today)")


@pytest.mark.parametrize("question", ["Oslo over the next three weeks", "北京这两周", "in the next 2 weeks in Rome"])
def test_weeks_counted_as_a_stretch_name_no_single_day(question):
    assert asked_day(question, MONDAY) is None


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
