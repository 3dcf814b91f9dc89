"""The gateway's own `read_resource` tool: the router reads a server's resource like any tool's result.

Offered only for servers whose registry entry opts in with `"resource_tool": true` and that list resources or
templates: every tool is part of the router's prompt, which is kept small (a server whose tools already give the
data its resources hold gains nothing from it).
"""

from __future__ import annotations

from typing import Any

from mcp_chat_app.mcp_client.resources import ResourceEntry, ResourceRead
from mcp_chat_app.mcp_client.results import ToolOutcome

SERVER = "gateway"  # the tool's namespace: `gateway__read_resource` (a server registered as "gateway" shadows it)
NAME = "read_resource"


def description(entries: list[ResourceEntry]) -> str:
    """One paragraph (the router reads the first): what the tool does, and the URIs and templates it can read."""
    listed = "; ".join(f"{entry.server}: {entry.uri or entry.uri_template}"
                       + (f" ({entry.name})" if entry.name else "") for entry in entries)
    return (f"Read a resource (a document or data an MCP server publishes) by its server and URI; fill a "
            f"template's {{variables}}. Resources: {listed}.")


def input_schema(servers: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": {
        "server": {"type": "string", "enum": servers, "description": "the server that publishes it"},
        "uri": {"type": "string", "description": "the resource's URI"},
    }, "required": ["server", "uri"]}


def outcome(arguments: dict[str, Any], read: ResourceRead) -> ToolOutcome:
    """A read as the result of a `read_resource` call (its text; a JSON text is data the writer reads as such)."""
    return ToolOutcome(server=SERVER, tool=NAME, arguments=arguments, text=read.text)
