"""More of how the gateway reads the days, clock times and quantities a question names: shorthand for tomorrow
and tonight. Pure text functions first, then the gateway process over HTTP with the real weather server (simulated
data) and the scripted LLM where what the call and the answer become matters."""

from __future__ import annotations

import datetime as dt

import pytest

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
