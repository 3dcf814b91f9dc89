"""All MCP sessions on one background asyncio loop, behind a small synchronous facade for Flask."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from mcp import MCPError

from mcp_chat_app.server_connection import ServerConnection, ServerUnavailable
from mcp_chat_app.server_registry import ServerSpec
from mcp_chat_app.tool_results import ToolOutcome, failed_outcome, outcome_from_result

_T = TypeVar("_T")
_STARTUP_WAIT_S = 20.0
SEPARATOR = "__"
LOCALE_META_KEY = "locale"


@dataclass(frozen=True)
class ToolInfo:
    """A tool as the LLM sees it: namespaced `server__tool`."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]

    @property
    def qualified_name(self) -> str:
        return f"{self.server}{SEPARATOR}{self.name}"


@dataclass(frozen=True)
class ToolRequest:
    """One call the orchestrator wants made."""

    server: str
    tool: str
    arguments: dict[str, Any]


class McpManager:
    """Opens every registered server once and keeps the sessions alive for the gateway's lifetime."""

    def __init__(self, specs: dict[str, ServerSpec], log_dir: Path, health_interval_s: float = 10.0) -> None:
        self._specs = dict(specs)
        self._log_dir = log_dir
        self._health_interval_s = health_interval_s
        self._connections: dict[str, ServerConnection] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-manager", daemon=True)

    def start(self, wait_s: float = _STARTUP_WAIT_S) -> None:
        """Start the loop thread and connect all enabled servers (waits up to `wait_s` for them)."""
        self._thread.start()
        self._run(self._start_all(wait_s), timeout=wait_s + 5)

    def close(self) -> None:
        """Close every session and stop the loop thread."""
        if not self._thread.is_alive():
            return
        self._run(self._stop_all(), timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    # --- facade used by the Flask handlers -------------------------------------------------

    def status(self) -> list[dict[str, Any]]:
        """One line per registered server: transport, up/down, tool count, last error, restarts."""
        rows = []
        for spec in list(self._specs.values()):
            connection = self._connections.get(spec.name)
            rows.append({
                "name": spec.name,
                "transport": spec.transport,
                "disabled": spec.disabled,
                "up": bool(connection and connection.up),
                "tools": [tool.name for tool in connection.tools] if connection else [],
                "resources": connection.resources if connection else [],
                "prompts": connection.prompts if connection else [],
                "last_error": connection.last_error if connection else None,
                "restarts": connection.restarts if connection else 0,
                "fallback": spec.fallback,
            })
        return rows

    def tools(self) -> list[ToolInfo]:
        """Every exposed tool of every live server, in a stable order (it goes into the prompt prefix)."""
        found = []
        for name, connection in list(self._connections.items()):
            for tool in connection.tools:
                found.append(ToolInfo(name, tool.name, tool.description or "", dict(tool.input_schema)))
        return found

    def instructions(self) -> dict[str, str]:
        """Each live server's usage notes (MCP `instructions`), by server name; servers without notes are left out."""
        return {name: connection.instructions for name, connection in list(self._connections.items())
                if connection.instructions and connection.tools}

    def call_tools(self, requests: list[ToolRequest], locale: str | None = None) -> list[ToolOutcome]:
        """Run the calls concurrently (each with its server's timeout); results keep the request order.

        `locale` ("zh-CN", "en") goes to the servers as the request's `_meta.locale`: servers that word their
        results (ours does) answer in the user's language; others ignore it."""
        longest = max((self._timeout_of(request.server) for request in requests), default=0)
        meta = {LOCALE_META_KEY: locale} if locale else None
        return self._run(self._call_all(requests, meta), timeout=2 * longest + 10)

    def add_server(self, spec: ServerSpec, wait_s: float = _STARTUP_WAIT_S) -> bool:
        """Register (or replace) a server at runtime; True when it came up within `wait_s`."""
        return self._run(self._add(spec, wait_s), timeout=wait_s + 35)

    def remove_server(self, name: str) -> bool:
        """Unregister a server and close its session; False if it was not registered."""
        return self._run(self._remove(name), timeout=35)

    # --- loop side ---------------------------------------------------------------------------

    def _run(self, coroutine: Coroutine[Any, Any, _T], timeout: float) -> _T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def _timeout_of(self, server: str) -> float:
        spec = self._specs.get(server)
        return spec.timeout if spec else 30.0

    async def _start_all(self, wait_s: float) -> None:
        for spec in self._specs.values():
            if not spec.disabled:
                self._open(spec)
        await asyncio.gather(*(c.wait_settled(wait_s) for c in self._connections.values()))

    async def _stop_all(self) -> None:
        await asyncio.gather(*(c.stop() for c in self._connections.values()))
        self._connections.clear()

    def _open(self, spec: ServerSpec) -> ServerConnection:
        connection = ServerConnection(spec, self._log_dir, self._health_interval_s)
        self._connections[spec.name] = connection
        connection.start()
        return connection

    async def _add(self, spec: ServerSpec, wait_s: float) -> bool:
        await self._remove(spec.name)
        self._specs[spec.name] = spec
        if spec.disabled:
            return False
        return await self._open(spec).wait_ready(wait_s)

    async def _remove(self, name: str) -> bool:
        connection = self._connections.pop(name, None)
        if connection is not None:
            await connection.stop()
        return self._specs.pop(name, None) is not None

    async def _call_all(self, requests: list[ToolRequest], meta: dict[str, Any] | None) -> list[ToolOutcome]:
        return list(await asyncio.gather(*(self._call(request, meta) for request in requests)))

    async def _call(self, request: ToolRequest, meta: dict[str, Any] | None) -> ToolOutcome:
        started = time.perf_counter()
        outcome = await self._call_with_fallback(request, meta)
        outcome.duration_ms = (time.perf_counter() - started) * 1000
        return outcome

    async def _call_with_fallback(self, request: ToolRequest, meta: dict[str, Any] | None) -> ToolOutcome:
        spec = self._specs.get(request.server)
        try:
            return await self._call_on(request.server, request, meta)
        except ServerUnavailable as error:
            if spec is None or not spec.fallback or spec.fallback not in self._connections:
                return failed_outcome(request.server, request.tool, request.arguments, str(error))
        try:
            return await self._call_on(spec.fallback, request, meta)
        except ServerUnavailable as error:
            return failed_outcome(spec.fallback, request.tool, request.arguments, str(error))

    async def _call_on(self, server: str, request: ToolRequest, meta: dict[str, Any] | None) -> ToolOutcome:
        """Call on one server; after a dropped session, wait for the automatic restart and, when the tool is
        declared read-only or idempotent, retry once (anything else may already have had its effect)."""
        connection = self._connections.get(server)
        if connection is None:
            raise ServerUnavailable(f"server {server!r} is not registered or disabled")
        timeout = connection.spec.timeout
        # Only a session that was up and then broke is worth a second try (it is being restarted).
        attempts = 2 if connection.up and connection.is_repeatable(request.tool) else 1
        try:
            for attempt in range(1, attempts + 1):
                try:
                    result = await connection.call_tool(request.tool, request.arguments, timeout, meta)
                    return outcome_from_result(server, request.tool, request.arguments, result)
                except ServerUnavailable:
                    if attempt == attempts:
                        raise
        except TimeoutError:
            message, reason = f"tool {request.tool!r} on {server!r} timed out after {timeout:g}s", "timeout"
        except MCPError as error:
            message, reason = f"tool {request.tool!r} on {server!r} failed: {error.message}", "protocol_error"
        return failed_outcome(server, request.tool, request.arguments, message, reason)
