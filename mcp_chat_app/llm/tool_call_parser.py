"""Lenient parsing of tool calls that a model wrote as text (prompt-JSON mode, or a model that
ignores native tool calling and prints JSON anyway)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_NAME_KEYS = ("name", "tool", "function", "tool_name")
_ARGUMENT_KEYS = ("arguments", "args", "parameters", "params", "input")


@dataclass(frozen=True)
class ParsedCall:
    """A tool call recovered from text; `arguments` may still be invalid for the tool."""

    name: str
    arguments: Any


def parse_tool_calls(text: str) -> list[ParsedCall]:
    """Find tool calls in a reply: fenced or bare JSON, `name`/`tool`, a list or `tool_calls`. [] if none."""
    for candidate in _json_candidates(text):
        calls = _calls_from(candidate)
        if calls:
            return calls
    return []


def _json_candidates(text: str) -> list[Any]:
    chunks = [match.group(1) for match in _FENCE.finditer(text)] + [text]
    found = []
    decoder = json.JSONDecoder()
    for chunk in chunks:
        for start, char in enumerate(chunk):
            if char not in "{[":
                continue
            try:
                value, _ = decoder.raw_decode(chunk[start:])
            except ValueError:
                continue
            found.append(value)
            break
    return found


def _calls_from(value: Any) -> list[ParsedCall]:
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        value = value["tool_calls"]
    items = value if isinstance(value, list) else [value]
    calls = [call for call in (_one_call(item) for item in items) if call is not None]
    return calls if len(calls) == len(items) else []


def _one_call(item: Any) -> ParsedCall | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):  # OpenAI's own shape, printed as text
        item = item["function"]
    name = next((item[key] for key in _NAME_KEYS if isinstance(item.get(key), str)), None)
    if name is None:
        return None
    arguments = next((item[key] for key in _ARGUMENT_KEYS if key in item), {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass
    return ParsedCall(name=name, arguments=arguments)
