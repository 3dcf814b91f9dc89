"""What a turn needs of the conversation before it: the earlier calls (their places and days, for follow-ups
like "那后天呢？" or "What about Chicago?"), the question before this one, and whether this one follows on."""

from __future__ import annotations

import json
import re
from typing import Any

_CALL_TURNS = 2  # the calls of the last two answers: enough for "which of the two is warmer?"
# How a question says it continues the one before ("那后天呢？", "What about Chicago?"), in any domain.
_FOLLOW_UP = re.compile(r"呢[？?。!！\s]*$|^\s*(那|那么|还有|然后)|^\s*(what|how)\s+about\b|^\s*and\b", re.IGNORECASE)


# What a follow-up says besides its values: the words that make it one, and punctuation.
_FOLLOW_UP_WORDS = re.compile(rf"{_FOLLOW_UP.pattern}|[\W_]+", re.IGNORECASE)


def says_only(question: str, values: list[str]) -> bool:
    """Whether a follow-up says nothing but the values and its follow-up words ("芽庄呢？", "What about Kingston,
    Ontario?"): it asks what the question before it asked, of them."""
    rest = question
    for value in sorted(values, key=len, reverse=True):
        rest = re.sub(re.escape(value), " ", rest, flags=re.IGNORECASE)
    return bool(values) and not _FOLLOW_UP_WORDS.sub("", rest.strip())


def earlier_calls(history: list[dict[str, Any]]) -> str:
    """The tool calls behind the latest answers, the latest first, as the router reads them ("" for none)."""
    answers = [m for m in history if m.get("role") == "assistant" and m.get("calls")][-_CALL_TURNS:]
    said = ["; ".join(f"{call['tool']} {json.dumps(call['arguments'], ensure_ascii=False, separators=(',', ':'))}"
                      for call in answer["calls"]) for answer in reversed(answers)]
    return "; before that: ".join(said)


def is_follow_up(question: str) -> bool:
    """Whether the question says it continues the previous one."""
    return bool(_FOLLOW_UP.search(question))


def latest_calls(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool calls behind the latest answer that made any ([] for none), as the history keeps them."""
    return next((list(m["calls"]) for m in reversed(history) if m.get("role") == "assistant" and m.get("calls")), [])


def earlier_question(history: list[dict[str, Any]]) -> str:
    """The user's previous question ("" at the start of a conversation)."""
    return next((m["content"] for m in reversed(history) if m.get("role") == "user"), "")


def plain_turns(history: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The turns as chat messages (role and content only)."""
    return [{"role": m["role"], "content": m["content"]} for m in history]
