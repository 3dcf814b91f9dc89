"""Clean-ups of the router's arguments the schema cannot express: which free-text arguments the question states
(a small model fills what a follow-up leaves out with something made up), and flags it turned on unasked."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from mcp_chat_app.chat.text.vocabulary import Vocabulary


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


def without_unasked_flags(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                          vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments less the optional flags turned on that the question does not name: a small model turns on
    what it was not asked for (another unit for a place that uses it). A flag is named by its own name or by a
    symbol of the domain (with its letter) or Chinese term its description quotes."""
    asked = question.casefold()
    kept = dict(arguments)
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if value is not True or spec.get("type") != "boolean" or spec.get("default") is not False:
            continue
        terms = [name.replace("_", " "), *_quoted_term(vocabulary.quoted_symbols).findall(spec.get("description", ""))]
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


@lru_cache(maxsize=8)
def _quoted_term(symbols: tuple[str, ...]) -> re.Pattern[str]:
    """Terms a description may quote for a flag: one of the domain's symbols with its letter, or Chinese words."""
    with_letter = "".join(f"{re.escape(symbol)}\\w+|" for symbol in symbols)
    return re.compile(rf"{with_letter}[\u3400-\u9fff]{{2,}}")


def _as_word(text: str) -> str:
    """A pattern for `text` standing alone: Latin letters may not run on either side (Chinese has no spaces)."""
    return rf"(?<![a-z\u00c0-\u024f]){re.escape(text)}(?![a-z\u00c0-\u024f])"


def _free_text(spec: dict[str, Any]) -> bool:
    return spec.get("type") == "string" and "enum" not in spec and "pattern" not in spec
