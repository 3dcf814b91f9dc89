"""How a tool result reads to a model: its structured data trimmed to what an answer quotes (no fields the domain
hides, places as one label, floats to one decimal, long lists cut, near days named), or the server's own summary."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from typing import Any

from mcp_chat_app.chat.text.vocabulary import Vocabulary
from mcp_chat_app.mcp_client.results import ToolOutcome

# Small models read every byte of a tool message on a 2-core CPU: cap what they get.
_MAX_LIST_ITEMS = 10
_MAX_MODEL_CHARS = 1500
_MAX_SUMMARY_CHARS = 700  # a server's text summary longer than this is not a summary
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NEAR_DAYS = ("today", "tomorrow", "day after tomorrow")


def _label(value: dict[str, Any], vocabulary: Vocabulary) -> str | None:
    """An object the vocabulary labels (`{"name": "Lyon", "country": "France", ...}`) as one string: "Lyon, France"."""
    fields = vocabulary.label_fields
    if fields and isinstance(value.get(fields[0]), str) and any(key in value for key in vocabulary.label_markers):
        return ", ".join(str(value[key]) for key in fields if value.get(key))
    return None


def essentials(value: Any, vocabulary: Vocabulary, today: dt.date) -> Any:
    """Structured content trimmed to what an answer quotes: no hidden fields, no nulls, labelled objects as one
    string, floats to one decimal (whole ones as ints), long lists cut, today/tomorrow marked."""
    if isinstance(value, float):
        rounded = round(value, 1)
        return int(rounded) if rounded.is_integer() else rounded
    if isinstance(value, dict):
        label = _label(value, vocabulary)
        if label is not None:
            return label
        return {key: essentials(item, vocabulary, today) for key, item in value.items()
                if item is not None and key not in vocabulary.hidden_fields}
    if isinstance(value, list):
        return [essentials(item, vocabulary, today) for item in value[:_MAX_LIST_ITEMS]]
    if isinstance(value, str):
        return _with_relative_day(value, today)
    return value


def _with_relative_day(text: str, today: dt.date) -> str:
    """`2026-11-30` → `2026-11-30 (tomorrow)`, a later day of the coming week → `2026-12-04 (Friday)`: small
    models otherwise quote the first day listed, and cannot tell which days are the weekend."""
    labels = {(today + dt.timedelta(days=offset)).isoformat(): label for offset, label in enumerate(_NEAR_DAYS)}
    for offset in range(len(_NEAR_DAYS), 7):
        day = today + dt.timedelta(days=offset)
        labels[day.isoformat()] = day.strftime("%A")
    return _ISO_DATE.sub(lambda date: f"{date[0]} ({labels[date[0]]})" if date[0] in labels else date[0], text)


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Scalar fields as (dotted key, value), in order."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item, prefix)
    elif value not in (None, ""):
        yield prefix, value


def model_view(outcome: ToolOutcome, vocabulary: Vocabulary, today: dt.date) -> str:
    """The tool message content fed back to the model: the server's own short text summary when it gives one
    beside structured data (the same facts in a fraction of the tokens), else the trimmed structured data,
    else the text."""
    if outcome.is_error:
        payload: Any = {"error": outcome.text or "the tool failed"}
    elif outcome.structured_content is not None and 0 < len(outcome.text) <= _MAX_SUMMARY_CHARS:
        images = f" ({len(outcome.images)} image(s) shown to the user)" if outcome.images else ""
        return _with_relative_day(outcome.text, today) + images
    else:
        payload = _data(outcome, vocabulary, today)
    if outcome.images:
        payload = {"result": payload, "images": f"{len(outcome.images)} image(s) shown to the user"}
    rendered = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return rendered[:_MAX_MODEL_CHARS]


def data_view(outcome: ToolOutcome, vocabulary: Vocabulary, today: dt.date) -> str:
    """A result's data, trimmed to what an answer quotes, as compact JSON with today/tomorrow marked."""
    return json.dumps(_data(outcome, vocabulary, today), ensure_ascii=False, separators=(",", ":"))[:_MAX_MODEL_CHARS]


def _data(outcome: ToolOutcome, vocabulary: Vocabulary, today: dt.date) -> Any:
    if outcome.structured_content is not None:
        return essentials(outcome.structured_content, vocabulary, today)
    # Many servers put JSON in a TextContent; re-encoding it compactly saves tokens.
    try:
        return essentials(json.loads(outcome.text), vocabulary, today)
    except ValueError:
        return outcome.text
