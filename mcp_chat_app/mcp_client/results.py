"""What a tool call produced: its data, text and images, or why it failed."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

from mcp_types import CallToolResult, EmbeddedResource, ImageContent, TextContent


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
    # refused before it reached a server), "denied" (the user did not allow it), or "needs_authorization" (the
    # user has not authorized the gateway at that server yet: `structured_content.authorization_url`). Empty for a
    # success.
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
