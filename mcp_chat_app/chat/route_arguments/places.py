"""Place arguments: which argument a schema calls a place (its name or description holds one of the vocabulary's
place words), and the places of a call that neither the question nor the conversation names."""

from __future__ import annotations

import logging
from typing import Any

from mcp_chat_app.chat.route_arguments.stated import free_text, mentioned
from mcp_chat_app.chat.text.vocabulary import Vocabulary

log = logging.getLogger(__name__)


class UnnamedArgument(ValueError):
    """A call that cannot be made as is: it needs values (places) that neither the question nor the conversation
    names. `argument` is the list that fell short, `named` the items of it that are named."""

    def __init__(self, message: str, argument: str, named: list[Any]) -> None:
        super().__init__(message)
        self.argument = argument
        self.named = named


def without_unnamed_places(arguments: dict[str, Any], schema: dict[str, Any], said: str,
                           vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments less the places (an argument or list item the schema calls one of the vocabulary's
    `place_words`) that the question and the conversation (`said`) never name: "周三北京冷吗" became a
    comparison of 北京 with 上海. A list keeps its named items, and all of them when none is named (they may be
    translations: "北京" for "Beijing"); below its `minItems`, the call is not made (UnnamedArgument). An
    optional place is dropped; a required one is left to the router's own check of made-up arguments."""
    asked = said.casefold()
    kept = dict(arguments)
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        spec = properties.get(name, {})
        if isinstance(value, list) and is_place(name, spec.get("items", {}), vocabulary, spec):
            named = [item for item in value if not isinstance(item, str) or mentioned(item, asked)]
            if not named or len(named) == len(value):
                continue
            unnamed = [item for item in value if item not in named]
            if len(named) < spec.get("minItems", 0):
                raise UnnamedArgument(f"{name}: {', '.join(map(str, unnamed))} not named in the question; "
                                      f"call a tool for the {len(named)} named", name, named)
            log.info("dropped %s %r: not named in the question or the conversation", name, unnamed)
            kept[name] = named
        elif isinstance(value, str) and name not in schema.get("required", ()) \
                and is_place(name, spec, vocabulary) and not mentioned(value, asked):
            log.info("dropped %s=%r: not named in the question or the conversation", name, value)
            del kept[name]
    return kept


def without_repeated_places(arguments: dict[str, Any], schema: dict[str, Any], vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each list of places (items the schema calls places) naming each place once: dev50's
    "Honolulu vs Nadi, Fiji" was called for Honolulu and Nadi, Fiji twice, and the answer listed Nadi twice. A
    list kept to its `minItems` keeps its repeats, the schema's refusal being the clearer error."""
    kept = dict(arguments)
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        spec = properties.get(name, {})
        if not isinstance(value, list) or not is_place(name, spec.get("items", {}), vocabulary, spec):
            continue
        once, seen = [], set()
        for item in value:
            key = item.strip().casefold() if isinstance(item, str) else repr(item)
            if key not in seen:
                seen.add(key)
                once.append(item)
        if len(once) < len(value) and len(once) >= spec.get("minItems", 0):
            log.info("%s %r: each place once", name, value)
            kept[name] = once
    return kept


def unnamed_places(arguments: dict[str, Any], schema: dict[str, Any], said: str, vocabulary: Vocabulary) -> list[str]:
    """The places of a call that `said`, the question and the conversation, never names."""
    asked = said.casefold()
    return [place for place in place_values(arguments, schema, vocabulary) if not mentioned(place, asked)]


def place_values(arguments: dict[str, Any], schema: dict[str, Any], vocabulary: Vocabulary) -> list[str]:
    """The places of a call: the arguments, or list items, the schema calls places."""
    found = []
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if isinstance(value, list) and is_place(name, spec.get("items", {}), vocabulary, spec):
            found += [item for item in value if isinstance(item, str)]
        elif isinstance(value, str) and is_place(name, spec, vocabulary):
            found.append(value)
    return found


def place_argument(schema: dict[str, Any], vocabulary: Vocabulary) -> str | None:
    """The required free-text argument a schema calls a place ("city"), if it has one."""
    properties = schema.get("properties", {})
    return next((name for name in schema.get("required", ()) if is_place(name, properties.get(name, {}), vocabulary)),
                None)


def place_list_argument(schema: dict[str, Any], vocabulary: Vocabulary) -> str | None:
    """The required list argument whose items a schema calls places ("cities"), if it has one."""
    properties = schema.get("properties", {})
    return next((name for name in schema.get("required", ()) if properties.get(name, {}).get("type") == "array"
                 and is_place(name, properties[name].get("items", {}), vocabulary, properties[name])), None)


def is_place(name: str, spec: dict[str, Any], vocabulary: Vocabulary, outer: dict[str, Any] | None = None) -> bool:
    """Whether the schema calls a free-text argument a place: its name or description (or its list's) holds one
    of the vocabulary's place words."""
    if not free_text(spec) or not vocabulary.place_words:
        return False
    text = " ".join([name.replace("_", " "), spec.get("description", ""), (outer or {}).get("description", "")])
    return any(mentioned(word, text.casefold()) for word in vocabulary.place_words)
