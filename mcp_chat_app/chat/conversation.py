"""What a turn needs of the conversation before it: the earlier calls (their places and days, for follow-ups
like "那后天呢？" or "What about Chicago?"), the question before this one, and whether this one follows on."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

_CALL_TURNS = 2  # the calls of the last two answers: enough for "which of the two is warmer?"
# How a question says it continues the one before ("那后天呢？", "What about Chicago?"), in any domain.
_FOLLOW_UP = re.compile(r"呢[？?。!！\s]*$|^\s*(那|那么|还有|然后)|^\s*(what|how)\s+about\b|^\s*and\b", re.IGNORECASE)


def earlier_calls(history: list[dict[str, Any]]) -> str:
    """The tool calls behind the latest answers, the latest first, as the router reads them ("" for none)."""
    answers = [m for m in history if m.get("role") == "assistant" and m.get("calls")][-_CALL_TURNS:]
    said = ["; ".join(f"{call['tool']} {json.dumps(call['arguments'], ensure_ascii=False, separators=(',', ':'))}"
                      for call in answer["calls"]) for answer in reversed(answers)]
    return "; before that: ".join(said)


def is_follow_up(question: str) -> bool:
    """Whether the question says it continues the previous one."""
    return bool(_FOLLOW_UP.search(question))


def states_its_arguments(arguments: Iterable[dict[str, Any]], schemas: Iterable[dict[str, Any]],
                         question: str) -> bool:
    """Whether every free-text argument of the calls (a place, a name: no enum, no pattern) is written in the
    question. Asked alone, a model fills what a follow-up leaves out with something made up ("北京")."""
    asked = question.casefold()
    for values, schema in zip(arguments, schemas):
        properties = schema.get("properties", {})
        for name, value in values.items():
            spec = properties.get(name, {})
            items = value if isinstance(value, list) else [value]
            if _free_text(spec.get("items", {}) if isinstance(value, list) else spec) and any(
                    isinstance(item, str) and not _mentioned(item, asked) for item in items):
                return False
    return True


def without_unasked_flags(arguments: dict[str, Any], schema: dict[str, Any], question: str) -> dict[str, Any]:
    """The arguments less the optional flags turned on that the question does not name: a small model turns on
    what it was not asked for ("fahrenheit" for Chicago). A flag is named by its own name or by a symbol or
    Chinese term its description quotes ("°F", "华氏")."""
    asked = question.casefold()
    kept = dict(arguments)
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if value is not True or spec.get("type") != "boolean" or spec.get("default") is not False:
            continue
        terms = [name.replace("_", " "), *_QUOTED_TERM.findall(spec.get("description", ""))]
        if not any(_mentioned(term, asked) if term.isascii() and term.isalpha() else term.casefold() in asked
                   for term in terms):
            del kept[name]
    return kept


def _mentioned(value: str, asked: str) -> bool:
    """The value, or one of its words ("New York City" for "New York"), is in the (casefolded) question, as a
    word: "Rome" is not in "Romeo"."""
    value = value.casefold().strip()
    words = [value, *re.findall(r"[a-z\u00c0-\u024f]{3,}|[\u3400-\u9fff]{2,}", value)]
    return any(re.search(_as_word(word), asked) for word in words if word)


# Terms a description may quote for a flag: a symbol with its letter ("°F") or Chinese words ("华氏").
_QUOTED_TERM = re.compile(r"°\w+|[\u3400-\u9fff]{2,}")


def _as_word(text: str) -> str:
    """A pattern for `text` standing alone: Latin letters may not run on either side (Chinese has no spaces)."""
    return rf"(?<![a-z\u00c0-\u024f]){re.escape(text)}(?![a-z\u00c0-\u024f])"


def _free_text(spec: dict[str, Any]) -> bool:
    return spec.get("type") == "string" and "enum" not in spec and "pattern" not in spec


def earlier_question(history: list[dict[str, Any]]) -> str:
    """The user's previous question ("" at the start of a conversation)."""
    return next((m["content"] for m in reversed(history) if m.get("role") == "user"), "")


def plain_turns(history: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The turns as chat messages (role and content only)."""
    return [{"role": m["role"], "content": m["content"]} for m in history]
