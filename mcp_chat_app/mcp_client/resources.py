"""MCP resources as the gateway hands them on: listed entries and templates of a server, and one read's contents.

A read's contents are text or bytes (MCP `blob`, base64 on the wire); `ResourceRead.to_json` is the shape of
`GET /resources/read`, blobs base64 again, so a read of several parts keeps one JSON shape.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from mcp_types import BlobResourceContents, ReadResourceResult, Resource, ResourceTemplate

# The codes servers answer an unknown URI with: the spec's "resource not found", and "invalid params", which the
# Python and TypeScript SDKs send for a URI no resource or template matches.
RESOURCE_NOT_FOUND_CODES = (-32002, -32602)


class UnknownServer(Exception):
    """No registered, enabled server has this name."""


@dataclass(frozen=True)
class ResourceEntry:
    """A resource (`uri`) or a resource template (`uri_template`, RFC 6570) of one server."""

    server: str
    name: str
    mime_type: str | None
    description: str
    uri: str | None = None
    uri_template: str | None = None

    @classmethod
    def of(cls, server: str, item: Resource | ResourceTemplate) -> ResourceEntry:
        uri, template = (item.uri, None) if isinstance(item, Resource) else (None, item.uri_template)
        return cls(server, item.title or item.name, item.mime_type, item.description or "", uri, template)

    def to_json(self) -> dict[str, Any]:
        location = {"uri": self.uri} if self.uri is not None else {"uriTemplate": self.uri_template}
        return {"server": self.server, "name": self.name, **location, "mimeType": self.mime_type,
                "description": self.description}


@dataclass(frozen=True)
class ResourcePart:
    """One item of a read: its text, or its bytes."""

    uri: str
    mime_type: str | None
    text: str | None = None
    data: bytes | None = None

    def to_json(self) -> dict[str, Any]:
        body = {"text": self.text} if self.text is not None else \
            {"blob": base64.b64encode(self.data or b"").decode("ascii"), "size": len(self.data or b"")}
        return {"uri": self.uri, "mimeType": self.mime_type, **body}


@dataclass(frozen=True)
class ResourceRead:
    """What reading one URI of one server returned."""

    server: str
    uri: str
    parts: tuple[ResourcePart, ...]

    @classmethod
    def of(cls, server: str, uri: str, result: ReadResourceResult) -> ResourceRead:
        parts = tuple(ResourcePart(item.uri, item.mime_type, data=base64.b64decode(item.blob))
                      if isinstance(item, BlobResourceContents) else ResourcePart(item.uri, item.mime_type, item.text)
                      for item in result.contents)
        return cls(server, uri, parts)

    @property
    def text(self) -> str:
        """The text parts, one after another (a binary part reads as a line saying what it is)."""
        return "\n".join(part.text if part.text is not None else
                         f"(binary {part.mime_type or 'data'}, {len(part.data or b'')} bytes, not shown)"
                         for part in self.parts)

    def to_json(self) -> dict[str, Any]:
        return {"server": self.server, "uri": self.uri, "contents": [part.to_json() for part in self.parts]}
