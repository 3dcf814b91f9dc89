"""The domain's words that the gateway's text checks need (configs/assistant.json `vocabulary`): the units that
make a figure a measurement, the comparatives of the domain, words that are no names, the data fields a model
never quotes, the domain words that tell languages apart, and the words that make a tool argument a place. The code holds only words of any domain."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from collections.abc import Iterable
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
    negations: tuple[str, ...] = ()  # words that make a clause say no ("not", "不"), every language's
    low_chances: tuple[str, ...] = ()  # words that make a clause on a topic a no too ("unlikely", "概率低")
    exceptions: tuple[str, ...] = ()  # a clause with one speaks of days other than it names ("until", "其他")
    # Verdict topics whose yes or no every clause of a reply is held to, with the words (beside the verdict's
    # keywords) a reply says it with; a matter of degree ("not cold" beside "cool mornings") is left out.
    claim_topics: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Quantities a question asks for by name: a part of the data's field names ("uv_index" of "uv_index_max")
    # and the words each language asks for it with.
    quantities: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Chinese characters that begin the domain's own words of a question ("冷" of 冷不冷): a Chinese name joined
    # to another ("北京和上海冷不冷") ends before one.
    name_ends_zh: str = ""
    # The unit systems a question may ask its answer in (MCP `_meta.units`: "imperial"), with the words it names
    # each by: a server that honours the preference answers every tool in it, those with no unit argument too.
    unit_systems: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Words that say a message is about the domain at all ("stocks", "股票"), every language's: a question with
    # none, that asks none of the tools' data, may be none for the tools ("What is the capital of France?").
    topic_words: tuple[str, ...] = ()
    # Words that ask for the domain's data as a whole ("stocks", "行情"): a question with one asks something every
    # result holds, whatever else it names ("今天行情怎么样 想买黄金" is no question for the gold price alone).
    overview_words: tuple[str, ...] = ()

    @cached_property
    def own_words(self) -> frozenset[str]:
        """Every word of the domain's own (topic, overview, quantity and verdict words), casefolded: none of them
        names a place ("boston stocks", a place called "Windy")."""
        groups = (self.topic_words, self.overview_words, *self.quantities.values(), *self.claim_topics.values())
        return frozenset(word.partition("=")[0].casefold() for words in groups for word in words)

    def names_the_topic(self, text: str) -> bool:
        """Whether the text says one of the domain's topic words, or a comparative of them ("hotter there or in
        Monterrey at the moment?" had been answered from memory)."""
        pattern = words_pattern((*self.topic_words, *self.comparatives))
        return bool(pattern and pattern.search(text))

    def asks_overview(self, text: str) -> bool:
        """Whether the text asks for the domain's data as a whole (one of the overview words)."""
        pattern = words_pattern(self.overview_words)
        return bool(pattern and pattern.search(text))

    def unit_system(self, text: str) -> str | None:
        """The unit system the text names (the one named last where it names two), or None."""
        found = [(match.start(), system) for system, words in self.unit_systems.items() if words
                 for match in words_pattern(words).finditer(text)]
        return max(found)[1] if found else None

    def unit_systems_named(self, text: str) -> set[str]:
        """Every unit system the text names."""
        return {system for system, words in self.unit_systems.items() if words and words_pattern(words).search(text)}

    @cached_property
    def measurement(self) -> re.Pattern[str] | None:
        """A figure followed by a unit; None when the domain has no units."""
        if not self.units:
            return None
        # A unit of Latin letters only must end as a word ("5 min", not "5 mint").
        units = "|".join(re.escape(unit) + (r"\b" if unit.isascii() and unit.isalpha() else "") for unit in self.units)
        return re.compile(rf"\d\s*({units})")

    @cached_property
    def negation(self) -> re.Pattern[str] | None:
        """Any of the negations; None when the vocabulary has none."""
        return words_pattern(self.negations)

    @cached_property
    def low_chance(self) -> re.Pattern[str] | None:
        return words_pattern(self.negations + self.low_chances)

    @cached_property
    def exception(self) -> re.Pattern[str] | None:
        return words_pattern(self.exceptions)


def inside_another(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    """Whether a matched span lies within another, longer one: a word inside another's ("blood pressure" holds
    "pressure") is that word's."""
    start, end = span
    return any(s <= start and end <= e and (s, e) != span for s, e in spans)


def words_pattern(words: tuple[str, ...], whole: bool = True) -> re.Pattern[str] | None:
    """Any of the words, case-insensitive; one of Latin letters and digits must stand as a word of its own ("no",
    not "now"; "ab" in "AB型"), or only begin one when not `whole` ("run" of "running", not of "rerun"); any
    other (Chinese, "n't") wherever it is. None for no words."""
    if not words:
        return None
    end = r"(?![a-z0-9])" if whole else ""
    alternatives = [rf"(?<![a-z0-9]){re.escape(word)}{end}" if word[:1].isascii() and word[:1].isalnum()
                    else re.escape(word) for word in sorted(words, key=len, reverse=True)]
    return re.compile("|".join(alternatives), re.IGNORECASE)


def _per_language(words: dict[str, list[str]]) -> tuple[str, ...]:
    """`{"en": [...], "zh": [...]}` as one tuple: a text may mix languages."""
    return tuple(word for language_words in words.values() for word in language_words)


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
        negations=_per_language(data.get("negations", {})),
        low_chances=_per_language(data.get("low_chances", {})),
        exceptions=_per_language(data.get("exceptions", {})),
        claim_topics={topic: _per_language(words) for topic, words in data.get("claim_topics", {}).items()},
        quantities={part: _per_language(words) for part, words in data.get("quantities", {}).items()},
        name_ends_zh=data.get("name_ends_zh", ""),
        unit_systems={system: tuple(words) for system, words in data.get("unit_systems", {}).items()},
        topic_words=_per_language(data.get("topic_words", {})),
        overview_words=_per_language(data.get("overview_words", {})),
    )
