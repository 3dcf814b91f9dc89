"""A drop-in for McpManager with scripted tools, for tests of the routing logic."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from mcp_chat_app.mcp_client.manager import ProgressCallback, ToolInfo, ToolRequest
from mcp_chat_app.mcp_client.registry import ServerSpec
from mcp_chat_app.mcp_client.results import ToolImage, ToolOutcome

ToolHandler = Callable[[dict[str, Any]], Any]


class ScriptedToolError(Exception):
    """Raise it from a handler to produce an `is_error` result."""


@dataclass
class ScriptedTool:
    """A fake tool: its schema and a handler returning structured content (or ToolImage list)."""

    server: str
    name: str
    handler: ToolHandler
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    description: str = ""


class MockMcpManager:
    """Same public surface as McpManager; calls run the handlers concurrently in threads."""

    def __init__(self, tools: list[ScriptedTool]) -> None:
        self._tools = {f"{tool.server}__{tool.name}": tool for tool in tools}
        self.calls: list[ToolRequest] = []
        self.locales: list[str | None] = []

    def start(self, wait_s: float = 0) -> None:
        """Nothing to connect."""

    def close(self) -> None:
        """Nothing to close."""

    def status(self) -> list[dict[str, Any]]:
        return [{"name": server, "transport": "scripted", "description": "", "disabled": False, "up": True,
                 "protocol_version": None, "tools": [t.name for t in self._tools.values() if t.server == server],
                 "resources": [], "prompts": [], "last_error": None, "config_error": None, "ignored_keys": [],
                 "needs_authorization": False, "restarts": 0, "fallback": None}
                for server in self._servers()]

    def tools(self) -> list[ToolInfo]:
        return [ToolInfo(t.server, t.name, t.description, t.input_schema) for t in self._tools.values()]

    def instructions(self) -> dict[str, str]:
        return {}

    def warnings(self) -> list[str]:
        return []

    def call_tools(self, requests: list[ToolRequest], locale: str | None = None, units: str | None = None,
                   on_progress: ProgressCallback | None = None, cancellation: object = None,
                   asker: object = None, user: str | None = None,
                   earlier: Mapping[str, list[dict[str, Any]]] | None = None) -> list[ToolOutcome]:
        """Scripted tools report no progress, ask nothing, need no one's OAuth and settle no names by earlier
        calls, so `on_progress`, `asker`, `user` and `earlier` are never used."""
        self.calls.extend(requests)
        self.locales.append(locale)
        with ThreadPoolExecutor(max_workers=max(1, len(requests))) as pool:
            return list(pool.map(self._call, requests))

    def add_server(self, spec: ServerSpec, wait_s: float = 0) -> bool:
        return False

    def remove_server(self, name: str) -> bool:
        return False

    def authorizations(self, user: str) -> list[dict[str, Any]]:
        return []

    def authorize(self, name: str, user: str) -> dict[str, Any] | None:
        return None

    def revoke_authorization(self, name: str, user: str) -> bool:
        return False

    def complete_authorization(self, state: str, code: str | None, iss: str | None = None,
                               error: str | None = None) -> tuple[str, str] | None:
        return None

    def _servers(self) -> list[str]:
        return list(dict.fromkeys(tool.server for tool in self._tools.values()))

    def _call(self, request: ToolRequest) -> ToolOutcome:
        started = time.perf_counter()
        outcome = ToolOutcome(server=request.server, tool=request.tool, arguments=request.arguments)
        tool = self._tools.get(f"{request.server}__{request.tool}")
        try:
            if tool is None:
                raise ScriptedToolError(f"Unknown tool: {request.tool}")
            value = tool.handler(request.arguments)
            if isinstance(value, list) and value and isinstance(value[0], ToolImage):
                outcome.images = value
            else:
                outcome.structured_content = value
        except ScriptedToolError as error:
            outcome.is_error = True
            outcome.text = str(error)
            outcome.reason = "tool_error"
        outcome.duration_ms = (time.perf_counter() - started) * 1000
        return outcome
