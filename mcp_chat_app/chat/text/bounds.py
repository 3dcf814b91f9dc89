"""Bounds a question writes in few characters, spelled out for the router: Chinese words that bound a figure from
one side (30度以上, 10度以下; "30度以上的呢" after a search between 20 and 25 was called "between 30 and nothing";
given "30度以上 = above 30", it asks above), and two figures joined by a dash ("25-30 度": no call was made)."""

from __future__ import annotations

import re
from functools import lru_cache

from mcp_chat_app.chat.text.vocabulary import Vocabulary

_SIDES = {"以上": "above", "之上": "above", "以下": "below", "之下": "below"}


@lru_cache(maxsize=8)
def _bound(unit_signs: tuple[str, ...]) -> re.Pattern[str]:
    """A figure, one of the domain's unit signs or none, then the word of its side ("3天以上" is no such bound)."""
    signs = "|".join(re.escape(sign) for sign in unit_signs) or "(?!)"
    return re.compile(rf"((?:零下|负|-)?\s*\d+(?:\.\d+)?)\s*(?:{signs})?\s*(以上|之上|以下|之下)")


def bound_glosses(question: str, vocabulary: Vocabulary) -> list[str]:
    """"30度以上 = above 30" for each figure the question bounds with 以上 or 以下."""
    glosses = []
    for match in _bound(vocabulary.unit_signs).finditer(question):
        figure = re.sub(r"\s+", "", match[1]).replace("零下", "-").replace("负", "-")
        glosses.append(f"{match[0].strip()} = {_SIDES[match[2]]} {figure}")
    return glosses


@lru_cache(maxsize=8)
def _dashed(unit_signs: tuple[str, ...]) -> re.Pattern[str] | None:
    """Two figures joined by a dash or a tilde, the second with one of the domain's unit signs (not a date, "12-25")."""
    if not unit_signs:
        return None
    signs = "|".join(re.escape(sign) for sign in unit_signs)
    return re.compile(rf"(?<![\d.])(-?\d+(?:\.\d+)?)\s*(?:{signs})?\s*[-–—~～]\s*(-?\d+(?:\.\d+)?)\s*(?:{signs})")


def range_glosses(question: str, vocabulary: Vocabulary) -> list[str]:
    """"25-30度 = between 25 and 30" for each range the question writes with a dash."""
    pattern = _dashed(vocabulary.unit_signs)
    return [f"{match[0].strip()} = between {match[1]} and {match[2]}"
            for match in (pattern.finditer(question) if pattern else ())]
