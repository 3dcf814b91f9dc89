"""One persistent MCP session, owned by a supervisor task that reconnects with backoff."""

from __future__ import annotations

import asyncio
import logging
import math
import os
import shutil
import sys
import time
import warnings
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CONNECTION_CLOSED, CallToolResult, Tool

from mcp_chat_app.server_registry import ServerSpec

logger = logging.getLogger(__name__)

_BACKOFF_START_S = 0.2
_BACKOFF_MAX_S = 30.0
_CONNECT_TIMEOUT_S = 30.0
_HEALTH_TIMEOUT_S = 5.0
# Errors that mean the session itself is gone (process died, HTTP server dropped), not that a tool failed.
_TRANSPORT_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError,
                     httpx2.TransportError)
_LIST_CHANGED = {
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
}


def _describe(error: BaseException) -> str:
    """The root cause in one line (anyio wraps transport failures in exception groups)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"


class ServerUnavailable(Exception):
    """The server cannot take calls right now (down, restarting, or the session just broke)."""


def resolve_command(command: str) -> str:
    """Find a stdio server's executable: `python` means this interpreter, other names prefer our venv."""
    if command in ("python", "python3"):
        return sys.executable
    if os.path.isabs(command):
        return command
    search_path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return shutil.which(command, path=search_path) or command


class ServerConnection:
    """Keeps one server's session alive and exposes its tools, resources and prompts."""

    def __init__(self, spec: ServerSpec, log_dir: Path, health_interval_s: float) -> None:
        self.spec = spec
        self.tools: list[Tool] = []
        self.instructions = ""  # the server's own usage notes (initialize result), shown to the router
        self.resources: list[str] = []
        self.prompts: list[str] = []
        self.last_error: str | None = None
        self.restarts = 0
        self._log_dir = log_dir
        self._health_interval_s = health_interval_s
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._lost = asyncio.Event()
        self._refresh_wanted = asyncio.Event()
        self._settled = asyncio.Event()  # set after the first connection attempt, success or not
        self._retry_now = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None

    @property
    def up(self) -> bool:
        return self._ready.is_set()

    def is_repeatable(self, tool_name: str) -> bool:
        """Whether the server declares the tool read-only or idempotent (MCP annotations): safe to run twice."""
        for tool in self.tools:
            if tool.name == tool_name and tool.annotations is not None:
                return bool(tool.annotations.read_only_hint or tool.annotations.idempotent_hint)
        return False

    def start(self) -> None:
        """Start the supervisor task on the running loop."""
        self._supervisor = asyncio.get_running_loop().create_task(self._supervise(), name=f"mcp:{self.spec.name}")

    async def stop(self) -> None:
        """Close the session (and stop a stdio server process)."""
        if self._supervisor is not None:
            self._supervisor.cancel()
            await asyncio.gather(self._supervisor, return_exceptions=True)
        self._ready.clear()

    async def wait_ready(self, timeout: float) -> bool:
        """Wait until the session is up; False on timeout."""
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def wait_settled(self, timeout: float) -> None:
        """Wait until the first connection attempt has succeeded or failed."""
        try:
            await asyncio.wait_for(self._settled.wait(), timeout)
        except TimeoutError:
            pass

    async def call_tool(self, tool: str, arguments: dict[str, Any], timeout: float,
                        meta: dict[str, Any] | None = None) -> CallToolResult:
        """Call a tool on the live session; ServerUnavailable if the session is down or breaks."""
        if not self._ready.is_set():
            self._retry_now.set()  # a caller is waiting: skip what is left of the backoff
        if not await self.wait_ready(timeout) or self._client is None:
            reason = self.last_error or "no MCP handshake yet"
            raise ServerUnavailable(f"server {self.spec.name!r} is not connected: {reason}")
        client = self._client
        try:
            async with asyncio.timeout(timeout):
                return await client.call_tool(tool, arguments, meta=meta)
        except TimeoutError:
            raise  # TimeoutError is an OSError, but it means a slow tool, not a dead session
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                self._mark_lost(f"connection closed: {error.message}")
                raise ServerUnavailable(f"server {self.spec.name!r} dropped the connection") from error
            raise
        except _TRANSPORT_ERRORS as error:
            self._mark_lost(f"transport error: {error!r}")
            raise ServerUnavailable(f"server {self.spec.name!r} dropped the connection") from error

    def _mark_lost(self, reason: str) -> None:
        if self._ready.is_set():
            logger.warning("MCP server %s lost: %s", self.spec.name, reason)
        self.last_error = reason
        self._ready.clear()
        self._lost.set()

    async def _supervise(self) -> None:
        backoff = _BACKOFF_START_S
        while True:
            started = time.monotonic()
            try:
                await self._run_session()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # boundary: any failure of one server must not stop the gateway
                self.last_error = _describe(error)
                logger.warning("MCP server %s failed: %s", self.spec.name, self.last_error)
            self._settled.set()
            self._ready.clear()
            self._client = None
            # A session that stayed up for a while earns a fast reconnect; a crash loop backs off.
            if time.monotonic() - started > _BACKOFF_MAX_S:
                backoff = _BACKOFF_START_S
            self._retry_now.clear()
            try:
                await asyncio.wait_for(self._retry_now.wait(), backoff)
            except TimeoutError:
                pass
            backoff = min(backoff * 2, _BACKOFF_MAX_S)
            self.restarts += 1

    async def _run_session(self) -> None:
        self._lost.clear()
        async with AsyncExitStack() as resources:
            client = Client(self._transport(resources), mode="legacy", message_handler=self._on_message)
            # One scope around the whole session keeps anyio's nesting intact; its deadline only
            # bounds the handshake and discovery, then it is lifted.
            with anyio.CancelScope(deadline=anyio.current_time() + _CONNECT_TIMEOUT_S) as connect_scope:
                async with client:
                    await self._discover(client)
                    connect_scope.deadline = math.inf
                    self._client = client
                    self.last_error = None
                    self._ready.set()
                    self._settled.set()
                    logger.info("MCP server %s up with %d tools", self.spec.name, len(self.tools))
                    try:
                        await self._watch(client)
                    finally:
                        self._ready.clear()
                        self._client = None
            if connect_scope.cancelled_caught:
                raise TimeoutError(f"no handshake within {_CONNECT_TIMEOUT_S:g}s")

    async def _watch(self, client: Client) -> None:
        """Return when the session is lost; meanwhile answer list_changed and run health checks."""
        while not self._lost.is_set():
            waiters = [asyncio.ensure_future(self._lost.wait()), asyncio.ensure_future(self._refresh_wanted.wait())]
            try:
                done, _ = await asyncio.wait(waiters, timeout=self._health_interval_s,
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
            if self._lost.is_set():
                return
            if self._refresh_wanted.is_set():
                self._refresh_wanted.clear()
                await self._discover(client)
            elif not done:
                await self._health_check(client)

    async def _health_check(self, client: Client) -> None:
        try:
            async with asyncio.timeout(_HEALTH_TIMEOUT_S):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # ping is deprecated only for 2026 sessions; ours are legacy
                    await client.send_ping()
        except (TimeoutError, MCPError, *_TRANSPORT_ERRORS) as error:
            self._mark_lost(f"health check failed: {error!r}")

    async def _discover(self, client: Client) -> None:
        capabilities = client.server_capabilities
        self.instructions = (client.instructions or "").strip()
        tools = await self._list_all(client.list_tools, "tools") if capabilities.tools else []
        self.tools = [tool for tool in tools if self.spec.exposes(tool.name)]
        if capabilities.resources:
            self.resources = [r.uri for r in await self._list_all(client.list_resources, "resources")]
        if capabilities.prompts:
            self.prompts = [p.name for p in await self._list_all(client.list_prompts, "prompts")]

    @staticmethod
    async def _list_all(list_page: Any, attribute: str) -> list[Any]:
        items: list[Any] = []
        cursor = None
        while True:
            page = await list_page(cursor=cursor, cache_mode="refresh")
            items.extend(getattr(page, attribute))
            cursor = page.next_cursor
            if cursor is None:
                return items

    async def _on_message(self, message: Any) -> None:
        if getattr(message, "method", None) in _LIST_CHANGED:
            self._refresh_wanted.set()

    def _transport(self, resources: AsyncExitStack) -> Any:
        """The transport for `Client`; what it needs (log file, HTTP client) closes with `resources`."""
        spec = self.spec
        if spec.command:
            # A server's stderr goes to a per-server log file, not into the gateway's console.
            self._log_dir.mkdir(parents=True, exist_ok=True)
            errlog = resources.enter_context(open(self._log_dir / f"{spec.name}.log", "a", encoding="utf-8"))
            parameters = StdioServerParameters(command=resolve_command(spec.command), args=spec.args,
                                               env=spec.env or None, cwd=spec.cwd)
            return stdio_client(parameters, errlog=errlog)
        # The SDK's own defaults: a long read timeout, because a server may hold a response stream open.
        http_client = httpx2.AsyncClient(headers=spec.headers, timeout=httpx2.Timeout(30.0, read=300.0))
        resources.push_async_callback(http_client.aclose)
        return streamable_http_client(spec.url, http_client=http_client)
