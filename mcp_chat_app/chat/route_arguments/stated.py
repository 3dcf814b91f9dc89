"""Which free-text arguments (a place, a name: no enum, no pattern) the question states: a value, or one of its
words, written in it as a word, accents aside; a day word is no value."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from mcp_chat_app.chat.text.day_words import day_words, without_day_words


def states_its_arguments(arguments: Iterable[dict[str, Any]], schemas: Iterable[dict[str, Any]],
                         question: str) -> bool:
    """Whether the question writes every free-text argument of the calls (see unstated_arguments)."""
    return not unstated_arguments(arguments, schemas, question)


def unstated_arguments(arguments: Iterable[dict[str, Any]], schemas: Iterable[dict[str, Any]],
                       question: str) -> list[str]:
    """The free-text arguments of the calls (a place, a name: no enum, no pattern) the question does not write.
    Asked alone, a model fills what a follow-up leaves out with something made up ("北京")."""
    asked = question.casefold()
    return [item for values, schema in zip(arguments, schemas) for _, item in _free_text_items(values, schema)
            if not mentioned(item, asked)]


def stated_arguments(arguments: dict[str, Any], schema: dict[str, Any], question: str) -> dict[str, str]:
    """The free-text arguments of one call (not lists) the question writes."""
    asked = question.casefold()
    return {name: item for name, item in _free_text_items(arguments, schema)
            if arguments[name] == item and mentioned(item, asked)}


def _free_text_items(arguments: dict[str, Any], schema: dict[str, Any]) -> Iterable[tuple[str, str]]:
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        spec = properties.get(name, {})
        items = value if isinstance(value, list) else [value]
        if free_text(spec.get("items", {}) if isinstance(value, list) else spec):
            yield from ((name, item) for item in items if isinstance(item, str))


def free_text(spec: dict[str, Any]) -> bool:
    return spec.get("type") == "string" and "enum" not in spec and "pattern" not in spec


def mentioned(value: str, asked: str) -> bool:
    """The value, or one of its words ("New York City" for "New York"), is in the (casefolded) question, as a
    word: "Rome" is not in "Romeo"; accents aside ("Zurich" for "Zürich")."""
    if only_day_words(value.strip()):  # as written: "Sat" is a day, "sat" a word
        return False  # "Thursday" as the place of "Thursday any better?": the question's day, not a value of it
    value = value.casefold().strip()
    initials = _initials(value)
    # "nyc" for "New York": the initials with the "City" a model leaves out
    words = [value, *re.findall(r"[a-z\u00c0-\u024f]{3,}|[\u3400-\u9fff]{2,}", value), initials,
             f"{initials}c" if initials and not initials.endswith("c") else ""]
    return any(re.search(_as_word(word), asked) or re.search(_as_word(_unaccented(word)), _unaccented(asked))
               for word in words if word) or _contracted(value, asked) or _without_its_particle(value, asked)


def _without_its_particle(value: str, asked: str) -> bool:
    """A Chinese name the question writes with 的 between its qualifier and itself ("吉尔吉斯斯坦奥什" for
    "吉尔吉斯斯坦的奥什": the call was refused as made up, and the question answered that nothing was found)."""
    return len(value) >= 3 and bool(_HAN.fullmatch(value)) and "的" in asked and value in asked.replace("的", "")


_HAN = re.compile(r"[\u3400-\u9fff]+")


# Two letters that are a word more often than a name's initials ("no" of "new orleans", "so" of "south ossetia").
_TWO_LETTER_WORDS = frozenset("am an as at be by do go he hi if in is it me my no of oh ok on or so to up us we".split())


def _initials(value: str) -> str:
    """The initials of a name of two words or more, by which people write it ("nyc" for "new york city", "hk" for
    "hong kong", "sf" for "san francisco"); "" for one word, or two whose letters are a word ("no" of "new
    orleans")."""
    words = re.findall(r"[a-z\u00c0-\u024f]+", value)
    initials = "".join(word[0] for word in words)
    return initials if len(words) >= 3 or (len(words) == 2 and initials not in _TWO_LETTER_WORDS) else ""


# Chat shorthand that reads as a contraction of a name ("pls" of "Palos", "thx" of "Thorax").
_SHORTHAND = frozenset("btw hrs idk lol mins omg pls plz thx tho tmr tmrw wknd".split())


def _contracted(value: str, asked: str) -> bool:
    """Whether the question writes a word of the value contracted, as people shorten names: its first and last
    letters and others of it in order, with at most one vowel ("phx" for "Phoenix", "ldn" for "London", "mpls" for
    "Minneapolis", "bham" for "Birmingham")."""
    shortened = [token for token in re.findall(r"(?<![a-z])[a-z]{3,5}(?![a-z])", _unaccented(asked))
                 if len(re.findall(r"[aeiouy]", token)) <= 1 and token not in _SHORTHAND]
    return any(len(word) > len(token) and token[0] == word[0] and token[-1] == word[-1]
               and re.fullmatch(".*?".join(map(re.escape, token)), word)
               for word in re.findall(r"[a-z]{5,}", _unaccented(value)) for token in shortened)


def _unaccented(text: str) -> str:
    """Latin letters without their accents ("zürich" as "zurich")."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


# A day counted from another ("Lyon tomorrow vs the day after" was compared for Lyon and a place "the day after").
_A_DAY_AFTER = re.compile(r"(?:the\s+)?(?:day|night)\s+(?:after|before)(?:\s+that)?|(?:the\s+)?next\s+day|第二天|前一天|后一天",
                          re.IGNORECASE)


def only_day_words(value: str) -> bool:
    """Whether a value says nothing but days ("thursday", "周日", "明天", "the day after")."""
    return bool(_A_DAY_AFTER.fullmatch(value.strip())) \
        or bool(day_words(value)) and not re.sub(r"[\W_]+", "", without_day_words(value))


def _as_word(text: str) -> str:
    """A pattern for `text` standing alone: Latin letters may not run on either side (Chinese has no spaces)."""
    return rf"(?<![a-z\u00c0-\u024f]){re.escape(text)}(?![a-z\u00c0-\u024f])"
