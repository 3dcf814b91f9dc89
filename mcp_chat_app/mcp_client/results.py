"""What a tool call produced: its data, text, images, audio, files and resource links, or why it failed."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Any

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
)


@dataclass
class ToolImage:
    """An image a tool returned; the gateway stores it and hands the caller a URL."""

    mime: str
    data: bytes
    alt: str = ""


@dataclass
class ToolFile:
    """Audio (`kind` "audio") or an embedded binary resource ("file") a tool returned; stored like an image, the
    page plays or offers to download it."""

    kind: str
    mime: str
    data: bytes
    name: str = ""  # the resource's file name, from its URI ("" for audio)


@dataclass
class ToolLink:
    """A resource a tool pointed to (`resource_link`): its server can read it by `uri` (resources/read)."""

    uri: str
    name: str
    mime: str = ""
    description: str = ""


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
    files: list[ToolFile] = field(default_factory=list)
    links: list[ToolLink] = field(default_factory=list)
    duration_ms: float = 0.0
    # Why a call failed: "tool_error" (the server answered with an error, in its own words), "unavailable"
    # (the server could not be reached), "timeout", "protocol_error", "invalid_call" (the model's call was
    # refused before it reached a server), "denied" (the user did not allow it), "needs_approval" (not made: it
    # needed the user's approval and nobody could be asked; `structured_content.allow`), or "needs_authorization"
    # (the user has not authorized the gateway at that server yet: `structured_content.authorization_url`). Empty
    # for a success.
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
    """Split an MCP result into structured data, text, images, audio and files, and resource links."""
    texts: list[str] = []
    images: list[ToolImage] = []
    files: list[ToolFile] = []
    links: list[ToolLink] = []
    # A tool that describes its image for people who cannot see it (ours: `alt_text`) gives the image its alt text.
    structured = result.structured_content
    described = structured.get("alt_text") if isinstance(structured, dict) else None
    alt = described if isinstance(described, str) and described.strip() else f"{tool} chart"
    for block in result.content:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ImageContent):
            images.append(ToolImage(mime=block.mime_type, data=base64.b64decode(block.data), alt=alt))
        elif isinstance(block, AudioContent):
            files.append(ToolFile("audio", block.mime_type, base64.b64decode(block.data)))
        elif isinstance(block, ResourceLink):
            links.append(ToolLink(block.uri, block.title or block.name, block.mime_type or "", block.description or ""))
        elif isinstance(block, EmbeddedResource) and isinstance(block.resource, BlobResourceContents):
            mime = block.resource.mime_type or "application/octet-stream"
            kind = "audio" if mime.startswith("audio/") else "file"
            files.append(ToolFile(kind, mime, base64.b64decode(block.resource.blob), _file_name(block.resource.uri)))
        elif isinstance(block, EmbeddedResource):
            texts.append(block.resource.text)
    return ToolOutcome(
        server=server,
        tool=tool,
        arguments=arguments,
        is_error=bool(result.is_error),
        structured_content=result.structured_content,
        text="\n".join(texts),
        images=images,
        files=files,
        links=links,
        reason="tool_error" if result.is_error else "",
    )


def _file_name(uri: str) -> str:
    """The last segment of a resource URI ("demo://resource/session/report.gz" -> "report.gz")."""
    return uri.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]


_TOOL_ERROR_PREFIX = re.compile(r"^Error executing tool \w+: ")  # the MCP SDK's wrapper, noise to a reader


def tool_error_text(text: str) -> str:
    """A tool's error message without the SDK's "Error executing tool x:" wrapper."""
    return _TOOL_ERROR_PREFIX.sub("", text).strip()
