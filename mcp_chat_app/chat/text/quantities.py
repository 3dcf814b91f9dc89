"""The quantities a question asks for by name (the vocabulary's `quantities`: "UV", "紫外线" for the fields named
`uv_index...`; parts joined by "|" are alternatives: "height|tall" for `height` and `tall_max`), and
whether a tool result holds one: a field whose name has one of those parts, with a value. A word of the
vocabulary may give, after "=", the name to call the quantity by when a question asks with that word: with
"how tall is he=height", an answer says it lacks "height", not "how tall is he"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_chat_app.chat.text.result_view import leaves, measured
from mcp_chat_app.chat.text.vocabulary import Vocabulary, inside_another, words_pattern


@dataclass(frozen=True)
class Quantity:
    """A quantity a question asks for: the word it uses, the part of a field name it stands for, and all its
    words (any language), by which a text is seen to speak of it."""

    word: str
    field: str
    words: tuple[str, ...]

    def named_in(self, text: str) -> bool:
        """Whether the text speaks of it, by one of its words or its field name ("uv_index" in a JSON view)."""
        pattern = words_pattern((*self.words, *field_names(self.field)))
        return bool(pattern and pattern.search(text))


def asked_quantities(question: str, vocabulary: Vocabulary) -> list[Quantity]:
    """The quantities the question names, each with the word it uses for it (or that word's name)."""
    found = []
    for field, words in vocabulary.quantities.items():
        names = {said.casefold(): name for said, _, name in (word.partition("=") for word in words) if name}
        pattern = words_pattern(tuple(word.partition("=")[0] for word in words))
        match = pattern.search(question) if pattern else None
        if match:
            forms = tuple(dict.fromkeys(form for word in words for form in word.split("=")))
            found.append((match.span(), Quantity(names.get(match[0].casefold(), match[0]), field, forms)))
    # A word inside another quantity's longer one is that one's: "blood pressure" asks no air pressure.
    return [quantity for span, quantity in found if not inside_another(span, (other for other, _ in found))]


def quantity_starts(text: str, vocabulary: Vocabulary) -> set[int]:
    """Where in the text a word of a quantity begins ("开盘价" at 0 of "开盘价是什么")."""
    patterns = (words_pattern(tuple(word.partition("=")[0] for word in words))
                for words in vocabulary.quantities.values())
    return {match.start() for pattern in patterns if pattern for match in pattern.finditer(text)}


def field_names(field: str) -> list[str]:
    """The parts of field names a quantity's fields have ("price|fare" of "price|fare|!tax"), less those excluded."""
    return [part for part in field.split("|") if not part.startswith("!")]


def field_matches(key: str, field: str) -> bool:
    """Whether a data field (its last name, "uv_index_max", "birch_pollen") is one of the quantity's: it has one of
    their parts and none of those marked "!" ("price|!change": a price's change is another quantity)."""
    name = f"_{key.rsplit('.', 1)[-1]}_"
    excluded = [part[1:] for part in field.split("|") if part.startswith("!")]
    return any(f"_{part}_" in name for part in field_names(field)) and not any(f"_{part}_" in name for part in excluded)


def holds(content: Any, quantity: Quantity) -> bool:
    """Whether structured content has a value for the quantity (a null is no value, nor is its unit)."""
    return any(field_matches(key, quantity.field) for key, _ in leaves(measured(content)))


def described(schema: Any, quantity: Quantity) -> bool:
    """Whether a JSON schema (a tool's outputSchema, its `$defs` included) has a property for the quantity."""
    if isinstance(schema, list):
        return any(described(item, quantity) for item in schema)
    if not isinstance(schema, dict):
        return False
    properties = schema.get("properties")
    if isinstance(properties, dict) and any(field_matches(name, quantity.field) for name in properties):
        return True
    return any(described(value, quantity) for value in schema.values() if isinstance(value, (dict, list)))
