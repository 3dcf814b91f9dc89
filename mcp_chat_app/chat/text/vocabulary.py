"""The domain's words that the gateway's text checks need (configs/assistant.json `vocabulary`): the units that
make a figure a measurement, the comparatives of the domain, words that are no names, the data fields a model
never quotes, the domain words that tell languages apart, and the words that make a tool argument a place. The code holds only words of any domain."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class Vocabulary:
    """One domain's words; the empty vocabulary knows none (a gateway for any MCP server)."""

    units: tuple[str, ...] = ()  # written right after a figure, they make it a measurement ("12 kg")
    unit_signs: tuple[str, ...] = ()  # signs that end a figure, not a clock's minutes ("两点12.7" and a sign)
    comparatives: tuple[str, ...] = ()  # the domain's "more" words
    lesser_comparatives: tuple[str, ...] = ()  # the domain's "less" words: the winner is named second
    quoted_symbols: tuple[str, ...] = ()  # with a letter, they name a flag in a tool's description
    plain_words: frozenset[str] = frozenset()  # capitalised words that name nothing (units' names)
    hidden_fields: frozenset[str] = frozenset()  # data fields an answer never quotes
    label_fields: tuple[str, ...] = ()  # an object with the first (a string) and any marker is shown as these
    label_markers: tuple[str, ...] = ()
    language_words: dict[str, frozenset[str]] = field(default_factory=dict)  # per language code
    place_words: tuple[str, ...] = ()  # in a tool argument's name or description, they make it a place

    @cached_property
    def measurement(self) -> re.Pattern[str] | None:
        """A figure followed by a unit; None when the domain has no units."""
        if not self.units:
            return None
        # A unit of Latin letters only must end as a word ("5 min", not "5 mint").
        units = "|".join(re.escape(unit) + (r"\b" if unit.isascii() and unit.isalpha() else "") for unit in self.units)
        return re.compile(rf"\d\s*({units})")


def vocabulary_from_json(data: dict[str, Any]) -> Vocabulary:
    """The `vocabulary` section of configs/assistant.json (every key optional)."""
    label = data.get("label_fields", {})
    return Vocabulary(
        units=tuple(data.get("units", ())),
        unit_signs=tuple(data.get("unit_signs", ())),
        comparatives=tuple(data.get("comparatives", ())),
        lesser_comparatives=tuple(data.get("lesser_comparatives", ())),
        quoted_symbols=tuple(data.get("quoted_symbols", ())),
        plain_words=frozenset(word.lower() for word in data.get("plain_words", ())),
        hidden_fields=frozenset(data.get("hidden_fields", ())),
        label_fields=tuple(label.get("fields", ())),
        label_markers=tuple(label.get("markers", ())),
        language_words={code: frozenset(words) for code, words in data.get("language_words", {}).items()},
        place_words=tuple(word.casefold() for word in data.get("place_words", ())),
    )
