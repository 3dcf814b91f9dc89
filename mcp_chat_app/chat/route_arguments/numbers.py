"""Number arguments the question does not give: required numbers for a question that holds none, and measurements
other than the figures it writes."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from mcp_chat_app.chat.route_arguments.days import day_forms
from mcp_chat_app.chat.text.below_zero import below_zero_glosses
from mcp_chat_app.chat.text.clock import numeral
from mcp_chat_app.chat.text.day_words import COUNT_OF_THINGS, without_day_words
from mcp_chat_app.chat.text.vocabulary import Vocabulary

_NUMBER = re.compile(r"\d|[零〇一二两三四五六七八九十]")  # a figure in digits or Chinese numerals
_SIGNED = re.compile(r"(?<![A-Za-z0-9_.])([-−]?\d+(?:\.\d+)?)")  # "25-30" is 25 and 30, "-5" minus five
# Words that say zero without a figure ("below zero", "sub-zero", "freezing", 冰点).
_ZERO_WORDS = re.compile(r"zero|freez|冰点|冰冻|结冰", re.IGNORECASE)
_MINUS = re.compile(r"\bminus\s+(\d+(?:\.\d+)?)", re.IGNORECASE)


def made_up_numbers(arguments: dict[str, Any], schema: dict[str, Any], question: str) -> list[str]:
    """The required numbers (not a day; not 0 where words say it: "below zero", "freezing") a call was given for a
    question that holds no number at all: "济南、石家庄，明天谁更低" became a search of every city below 10, "现在敦化和
    扎兰屯哪个更冷" one below 0, "周六冈山和高松哪个更暖和" one from 15 to 20, "周末两天芽庄和美奈哪边更潮" one from 10 to
    20."""
    if _NUMBER.search(COUNT_OF_THINGS.sub(" ", without_day_words(question))):  # (周六's 六 and 两天's 两 are no figures)
        return []
    properties = schema.get("properties", {})
    return [name for name in schema.get("required", ()) if name in arguments
            and isinstance(arguments[name], (int, float)) and not isinstance(arguments[name], bool)
            and (arguments[name] != 0 or not _ZERO_WORDS.search(question)) and not day_forms(properties.get(name, {}))]


def misquoted_numbers(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                      vocabulary: Vocabulary) -> list[str]:
    """The measurement arguments (`number`-typed) whose values a question that writes figures does not write, or
    that repeat another's where it writes one they leave out: "cities below 0 F" searched below -1, "那后天10以下的有
    哪些" kept the earlier call's 20 to 25, "零下10度到零度" searched from -10 to -10."""
    written = written_numbers(question, vocabulary)
    if not written:
        return []
    numbers = {name: float(arguments[name]) for name in measurement_arguments(arguments, schema)}
    # One figure given twice where the question writes another ("零下10度到零度" searched from -10 to -10).
    unused = written - set(numbers.values())
    repeated = [name for i, (name, value) in enumerate(numbers.items()) if value in list(numbers.values())[:i]]
    return [name for name, value in numbers.items() if value not in written or (unused and name in repeated)]


def measurement_arguments(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The names of the call's measurements (`number`-typed arguments given a number), in the schema's order."""
    properties = schema.get("properties", {})
    return [name for name in properties if _is_number(properties[name]) and isinstance(arguments.get(name), int | float)
            and not isinstance(arguments.get(name), bool)]


def written_numbers(question: str, vocabulary: Vocabulary) -> set[float]:
    """The figures a question writes, signed as it signs them ("-5", "−5", "minus 5", "零下5度"), in digits or in
    Chinese numerals before a unit sign of the domain ("零度", "三十" and a sign); empty when such numerals read as
    no figure under 100."""
    numbers = set()
    for match in _zh_figure(vocabulary.unit_signs).finditer(question):
        value = numeral(match[1])
        if value is None:
            return set()
        numbers.add(float(value))
    numbers |= {float(match[1].replace("−", "-")) for match in _SIGNED.finditer(question)
                if not question[:match.start()].rstrip().endswith(("零下", "负"))}  # signed by its gloss below
    numbers |= {-float(match[1]) for match in _MINUS.finditer(question)}
    numbers |= {float(gloss.rpartition("= ")[2].removeprefix("below ")) for gloss in
                below_zero_glosses(question, vocabulary)}
    return numbers


@lru_cache(maxsize=8)
def _zh_figure(unit_signs: tuple[str, ...]) -> re.Pattern[str]:
    signs = "|".join(re.escape(sign) for sign in unit_signs) or "(?!)"
    # (not the figure of "零下五度" or "负五度": below_zero_glosses reads it, signed); the first of a range shares
    # the second's sign ("十五到二十度")
    digits = "零〇一二两三四五六七八九十"
    return re.compile(rf"(?<![{digits}负])(?<!零下)([{digits}]+)\s*"
                      rf"(?=(?:(?:到|至|~|～|-|—)\s*[{digits}]+\s*)?(?:{signs}))")


def _is_number(spec: dict[str, Any]) -> bool:
    return any(option.get("type") == "number" for option in spec.get("anyOf", [spec]))
