"""Flag arguments (optional, off unless turned on: another unit): those turned on that the question does not name,
those the question names and the call leaves off, and those the conversation's latest calls turned on, kept in a
follow-up."""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

from mcp_chat_app.chat.route_arguments.stated import mentioned
from mcp_chat_app.chat.text.vocabulary import Vocabulary

log = logging.getLogger(__name__)


def without_unasked_flags(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                          vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments less the optional flags turned on that the question does not name: a small model turns on
    what it was not asked for (another unit for a place that uses it). A flag is named by its own name or by a
    symbol of the domain (with its letter) or Chinese term its description quotes."""
    asked = question.casefold()
    kept = dict(arguments)
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if value is not True or not _is_flag(spec):
            continue
        if not any(mentioned(term, asked) if term.isascii() and term.isalpha() else term.casefold() in asked
                   for term in _flag_terms(name, spec, vocabulary)):
            del kept[name]
    return kept


def with_asked_flags(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                     vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with the optional flags the question names turned on: "between 85 and 100 F", "in Kelvin
    again please" were called with the unit left off, and answered in the other. A symbol's letter right after a
    figure, "in" or "degrees" names it too ("100 F", "in F pls", "under 32 degrees F")."""
    kept = dict(arguments)
    for name, spec in schema.get("properties", {}).items():
        if not _is_flag(spec) or kept.get(name) is True:
            continue
        if any(_names(term, question, vocabulary) for term in _flag_terms(name, spec, vocabulary)):
            log.info("%s=True: the question names it", name)
            kept[name] = True
    return kept


def _names(term: str, question: str, vocabulary: Vocabulary) -> bool:
    if term.isascii() and term.isalpha():
        return mentioned(term, question.casefold())
    symbol = next((symbol for symbol in vocabulary.quoted_symbols if term.startswith(symbol)), None)
    letter = term[len(symbol):] if symbol else ""
    # "100 F", "in F pls", "32 degrees F"
    return term.casefold() in question.casefold() or bool(
        letter and re.search(rf"(?:\d ?|\bin |\bdeg(?:ree)?s? ){re.escape(letter)}\b", question))


def with_earlier_flags(arguments: dict[str, Any], schema: dict[str, Any], earlier: list[dict[str, Any]],
                       question: str, vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with the optional flags that the conversation's latest calls (`earlier`: their arguments, of
    the same server) turned on and this call leaves off, unless the question names a unit of its own (one of the
    vocabulary's units' names that is none of the flag's terms: "in kelvins please"): a follow-up keeps the
    conversation's choice ("and tonight's low?" after a question in another unit was answered in the default)."""
    kept = dict(arguments)
    for name, spec in schema.get("properties", {}).items():
        if not _is_flag(spec) or kept.get(name) or not any(call.get(name) is True for call in earlier):
            continue
        terms = {term.casefold() for term in _flag_terms(name, spec, vocabulary)}
        chosen = [unit for unit in vocabulary.plain_words if unit not in terms and mentioned(unit, question.casefold())]
        if chosen:
            log.info("%s left off: the question names %s", name, ", ".join(chosen))
            continue
        log.info("%s=True as the conversation's latest calls had it", name)
        kept[name] = True
    return kept


def _is_flag(spec: dict[str, Any]) -> bool:
    """Whether an argument is an optional flag, off unless turned on."""
    return spec.get("type") == "boolean" and spec.get("default") is False


def _flag_terms(name: str, spec: dict[str, Any], vocabulary: Vocabulary) -> list[str]:
    """What names a flag: its own name, and the symbols of the domain (with their letter) and Chinese terms its
    description quotes."""
    return [name.replace("_", " "), *_quoted_term(vocabulary.quoted_symbols).findall(spec.get("description", ""))]


@lru_cache(maxsize=8)
def _quoted_term(symbols: tuple[str, ...]) -> re.Pattern[str]:
    """Terms a description may quote for a flag: one of the domain's symbols with its letter, or Chinese words."""
    with_letter = "".join(f"{re.escape(symbol)}\\w+|" for symbol in symbols)
    return re.compile(rf"{with_letter}[\u3400-\u9fff]{{2,}}")
