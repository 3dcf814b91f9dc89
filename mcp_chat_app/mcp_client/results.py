"""What a tool call produced, and the compact view of it that small models read."""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp_types import CallToolResult, EmbeddedResource, ImageContent, TextContent

# Small models read every byte of a tool message on a 2-core CPU: cap what they get.
_MAX_LIST_ITEMS = 10
_MAX_MODEL_CHARS = 1500
_MAX_SUMMARY_CHARS = 700  # a server's text summary longer than this is not a summary


@dataclass
class ToolImage:
    """An image a tool returned; the gateway stores it and hands the caller a URL."""

    mime: str
    data: bytes
    alt: str = ""


@dataclass
class ToolOutcome:
    """One finished tool call, whatever happened to it."""

    server: str
    tool: str
    arguments: dict[str, Any]
    is_error: bool = False
    structured_content: Any = None
    text: str = ""
    images: list[ToolImage] = field(default_factory=list)
    duration_ms: float = 0.0
    # Why a call failed: "tool_error" (the server answered with an error, in its own words), "unavailable"
    # (the server could not be reached), "timeout", "protocol_error", "invalid_call" (the model's call was
    # refused before it reached a server), or "denied" (the user did not allow it). Empty for a success.
    reason: str = ""

    @property
    def qualified_name(self) -> str:
        return f"{self.server}__{self.tool}"

    def to_json(self) -> dict[str, Any]:
        """The `tool_calls[]` item of the HTTP response."""
        return {
            "server": self.server,
            "tool": self.tool,
            "arguments": self.arguments,
            "is_error": self.is_error,
            "structured_content": self.structured_content,
            "text": self.text,
            "duration_ms": round(self.duration_ms, 2),
            "reason": self.reason,
        }


def failed_outcome(server: str, tool: str, arguments: dict[str, Any], message: str,
                   reason: str = "unavailable") -> ToolOutcome:
    """An outcome for a call that never produced a result (unreachable server, timeout, bad args)."""
    return ToolOutcome(server=server, tool=tool, arguments=arguments, is_error=True, text=message, reason=reason)


def outcome_from_result(server: str, tool: str, arguments: dict[str, Any], result: CallToolResult) -> ToolOutcome:
    """Split an MCP result into structured data, text and images."""
    texts: list[str] = []
    images: list[ToolImage] = []
    # A tool that describes its image for people who cannot see it (ours: `alt_text`) gives the image its alt text.
    structured = result.structured_content
    described = structured.get("alt_text") if isinstance(structured, dict) else None
    alt = described if isinstance(described, str) and described.strip() else f"{tool} chart"
    for block in result.content:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ImageContent):
            images.append(ToolImage(mime=block.mime_type, data=base64.b64decode(block.data), alt=alt))
        elif isinstance(block, EmbeddedResource) and hasattr(block.resource, "text"):
            texts.append(block.resource.text)
    return ToolOutcome(
        server=server,
        tool=tool,
        arguments=arguments,
        is_error=bool(result.is_error),
        structured_content=result.structured_content,
        text="\n".join(texts),
        images=images,
        reason="tool_error" if result.is_error else "",
    )


# Fields a model never quotes in an answer; dropping them keeps the tool message short.
_NOISE_KEYS = frozenset({
    "latitude", "longitude", "timezone", "country_code", "weather_code", "wind_direction", "is_day",
    "source", "mime_type", "width", "height", "font", "alt_text", "english_name", "chinese_name",
})


def _place(value: dict[str, Any]) -> str | None:
    """`{"name": "Beijing", "country": "China", "latitude": ...}` → `"Beijing, China"`."""
    if isinstance(value.get("name"), str) and ("latitude" in value or "country" in value):
        return ", ".join(str(value[key]) for key in ("name", "country") if value.get(key))
    return None


def essentials(value: Any) -> Any:
    """Structured content trimmed to what an answer quotes: no noise fields, no nulls, places as
    one string, floats to one decimal (whole ones as ints), long lists cut, today/tomorrow marked."""
    if isinstance(value, float):
        rounded = round(value, 1)
        return int(rounded) if rounded.is_integer() else rounded
    if isinstance(value, dict):
        place = _place(value)
        if place is not None:
            return place
        return {key: essentials(item) for key, item in value.items() if item is not None and key not in _NOISE_KEYS}
    if isinstance(value, list):
        return [essentials(item) for item in value[:_MAX_LIST_ITEMS]]
    if isinstance(value, str):
        return _with_relative_day(value)
    return value


_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


_NEAR_DAYS = ("today", "tomorrow", "day after tomorrow")


def _with_relative_day(text: str) -> str:
    """`2026-11-30` → `2026-11-30 (tomorrow)`, a later day of the coming week → `2026-12-04 (Friday)`: small
    models otherwise quote the first forecast day, and cannot tell which days are the weekend."""
    today = dt.date.today()
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


def model_view(outcome: ToolOutcome) -> str:
    """The tool message content fed back to the model: the server's own short text summary when it gives one
    beside structured data (the same facts in a fraction of the tokens), else the trimmed structured data,
    else the text."""
    if outcome.is_error:
        payload: Any = {"error": outcome.text or "the tool failed"}
    elif outcome.structured_content is not None and 0 < len(outcome.text) <= _MAX_SUMMARY_CHARS:
        images = f" ({len(outcome.images)} image(s) shown to the user)" if outcome.images else ""
        return _with_relative_day(outcome.text) + images
    else:
        payload = _data(outcome)
    if outcome.images:
        payload = {"result": payload, "images": f"{len(outcome.images)} image(s) shown to the user"}
    rendered = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return rendered[:_MAX_MODEL_CHARS]


def data_view(outcome: ToolOutcome) -> str:
    """A result's data, trimmed to what an answer quotes, as compact JSON with today/tomorrow marked."""
    return json.dumps(_data(outcome), ensure_ascii=False, separators=(",", ":"))[:_MAX_MODEL_CHARS]


def _data(outcome: ToolOutcome) -> Any:
    if outcome.structured_content is not None:
        return essentials(outcome.structured_content)
    return _parse_json_text(outcome.text)


def _parse_json_text(text: str) -> Any:
    # Many servers put JSON in a TextContent; re-encoding it compactly saves tokens.
    try:
        return essentials(json.loads(text))
    except ValueError:
        return text
