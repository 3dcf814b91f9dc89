"""One persistent MCP session, owned by a supervisor task that reconnects with backoff.

The protocol version is negotiated (`mode="auto"`): `server/discover` at the SDK's newest revision, falling back to
the `initialize` handshake for older servers. What differs by era is handled here: liveness is `ping` on
handshake-era sessions and `server/discover` on 2026-07-28 ones (which have no ping); list changes and resource
updates arrive as plain notifications on the former (resources subscribed with `resources/subscribe`) and through a
`subscriptions/listen` stream on the latter (`listen_stream.py`), where a kept read also lasts only its `ttlMs`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import shutil
import sys
import time
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.caching import MAX_TTL_MS
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.dispatcher import ProgressFnT
from mcp_types import (
    CONNECTION_CLOSED,
    CallToolResult,
    ElicitRequestFormParams,
    ElicitResult,
    GetPromptResult,
    Prompt,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    Tool,
    ToolAnnotations,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp_chat_app.mcp_client.approval_policy import ToolHints
from mcp_chat_app.mcp_client.elicitation import CANCELLED, Asker, current_asker
from mcp_chat_app.mcp_client.listen_stream import ListenStream
from mcp_chat_app.mcp_client.oauth import OAuthSettings, ServerAuthorization
from mcp_chat_app.mcp_client.prompts import check_arguments, find_prompt
from mcp_chat_app.mcp_client.registry import ServerSpec

logger = logging.getLogger(__name__)

_BACKOFF_START_S = 0.2
_BACKOFF_MAX_S = 30.0
_CONNECT_TIMEOUT_S = 30.0
_HEALTH_TIMEOUT_S = 5.0
_MAX_SUBSCRIPTIONS = 32  # resource URIs one session subscribes to (and keeps the last read of)
# The SDK's own HTTP defaults: a long read timeout, because a server may hold a response stream open.
_HTTP_TIMEOUT_S, _HTTP_READ_TIMEOUT_S = 30.0, 300.0
# Errors that mean the session itself is gone (process died, HTTP server dropped), not that a tool failed.
_TRANSPORT_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError,
                     httpx2.TransportError)
# How the SDK says a result broke its tool's declared outputSchema (it checks every result): a plain RuntimeError,
# told apart from its other RuntimeErrors only by these words of `ClientSession.validate_tool_result`.
_OUTPUT_SCHEMA_ERRORS = ("Invalid structured content returned by tool ",
                         " has an output schema but did not return structured content", "Invalid schema for tool ")
_LIST_CHANGED = {
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
}


def _dumped(items: list[Any]) -> list[dict[str, Any]]:
    """MCP models as the OAuth catalog stores them (JSON)."""
    return [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in items]


def _kept_until(client: Client, result: ReadResourceResult) -> float | None:
    """Until when (monotonic) a subscribed read may be served again: on handshake-era sessions until the server says
    it changed; on 2026-07-28 ones also only for the `ttlMs` it came with (that revision's caching rule: 0 is stale at
    once, so not kept; capped as the SDK caps it)."""
    if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return math.inf
    return time.monotonic() + min(result.ttl_ms, MAX_TTL_MS) / 1000 if result.ttl_ms > 0 else None


def _describe(error: BaseException) -> str:
    """The root cause in one line (anyio wraps transport failures in exception groups)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"


class _Call:
    """A tool call in flight: who may be asked about it, and its deadline, which stops while a person answers."""

    def __init__(self, tool: str, asker: Asker | None, deadline: asyncio.Timeout) -> None:
        self.tool = tool
        self.asker = asker
        self._deadline = deadline
        self._questions = 0
        self._left_s = 0.0

    def question_opened(self) -> None:
        self._questions += 1
        if self._questions == 1 and (when := self._deadline.when()) is not None:
            self._left_s = when - asyncio.get_running_loop().time()
            self._deadline.reschedule(None)

    def question_closed(self) -> None:
        self._questions -= 1
        if self._questions == 0:
            self._deadline.reschedule(asyncio.get_running_loop().time() + self._left_s)


# The call this task is making (a 2026-07-28 session asks inside it; an older one asks from its reader task).
_current_call: ContextVar[_Call | None] = ContextVar("mcp_call", default=None)


class ServerUnavailable(Exception):
    """The server cannot take calls right now (down, restarting, or the session just broke)."""


class InvalidToolAnswer(Exception):
    """The server's result broke its own tool's outputSchema (the session is fine; only this answer is unusable)."""


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

    def __init__(self, spec: ServerSpec, log_dir: Path, health_interval_s: float,
                 oauth: OAuthSettings | None = None, user: str | None = None,
                 on_discovered: Callable[[ServerConnection], None] | None = None) -> None:
        """`user`: this is that user's own session (OAuth as them); `on_discovered` hears each fresh tool list."""
        self.spec = spec
        self.user = user
        self.tools: list[Tool] = []
        self.instructions = ""  # the server's own usage notes (initialize result), shown to the router
        self.resources: list[Resource] = []
        self.templates: list[ResourceTemplate] = []
        self.prompts: list[Prompt] = []  # as listed (`prompts/list`), refreshed on list changes
        self.last_error: str | None = None
        self.restarts = 0
        self.protocol_version: str | None = None  # negotiated on the live session
        self.authorization: ServerAuthorization | None = None  # OAuth, for url servers that may answer 401
        if oauth is not None and spec.uses_oauth:
            self.authorization = ServerAuthorization(spec, oauth, self._waiting_on_person, user)
        # The shared session found that the server asks each user to authorize: it stops, each user's session
        # (user_sessions.py) makes that user's calls, and this one keeps the catalog they discover.
        self.per_user = False
        self._on_discovered = on_discovered
        self._connect_scope: anyio.CancelScope | None = None  # bounds the handshake, lifted once up
        self._log_dir = log_dir
        self._health_interval_s = health_interval_s
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._lost = asyncio.Event()
        self._refresh_wanted = asyncio.Event()
        self._settled = asyncio.Event()  # set after the first connection attempt, success or not
        self._retry_now = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None
        self._calls: set[_Call] = set()
        self._subscribed: set[str] = set()  # resource URIs this session is subscribed to
        # Their last reads, with until when they may be served (`_kept_until`), unless the server updates them first.
        self._kept_reads: dict[str, tuple[ReadResourceResult, float]] = {}
        self._updates: dict[str, int] = {}  # how many updates of each URI the server has sent
        self._questions = 0  # how many questions (elicitations) the server has asked on this connection
        self._listen: ListenStream | None = None  # a live 2026-07-28 session's subscriptions/listen stream

    @property
    def up(self) -> bool:
        """Calls can be made: the session is live, or (per user) the tools are known."""
        return self._ready.is_set() or (self.per_user and bool(self.tools))

    def is_repeatable(self, tool_name: str) -> bool:
        """Whether the server declares the tool read-only or idempotent (MCP annotations): safe to run twice."""
        annotations = self._annotations(tool_name)
        return annotations is not None and bool(annotations.read_only_hint or annotations.idempotent_hint)

    def hints(self, tool_name: str, server_confirms: bool) -> ToolHints:
        """What the tool's MCP annotations declare, for the approval policy (an unknown tool declares nothing)."""
        annotations = self._annotations(tool_name)
        if annotations is None:
            return ToolHints(server_confirms=server_confirms)
        return ToolHints(bool(annotations.read_only_hint), bool(annotations.destructive_hint), server_confirms)

    def _annotations(self, tool_name: str) -> ToolAnnotations | None:
        return next((tool.annotations for tool in self.tools if tool.name == tool_name), None)

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
                        meta: dict[str, Any] | None = None,
                        on_progress: ProgressFnT | None = None) -> CallToolResult:
        """Call a tool on the live session (`meta` goes out as the request's `_meta`; `on_progress` gets the
        server's progress notifications for it); ServerUnavailable if the session is down or breaks, InvalidToolAnswer
        if the result breaks the tool's outputSchema."""
        client = await self._live_client(timeout)
        try:
            async with asyncio.timeout(timeout) as deadline, self._session_errors():
                call = _Call(tool, current_asker.get(), deadline)
                _current_call.set(call)
                self._calls.add(call)
                try:
                    return await client.call_tool(tool, arguments, progress_callback=on_progress, meta=meta)
                finally:
                    self._calls.discard(call)
        except RuntimeError as error:
            if not any(words in str(error) for words in _OUTPUT_SCHEMA_ERRORS):
                raise
            raise InvalidToolAnswer(str(error)) from error

    async def read_resource(self, uri: str, timeout: float, subscribe: bool = False) -> ReadResourceResult:
        """Read `uri` on the live session (errors as `call_tool`'s; the server's refusal is an MCPError). With
        `subscribe`, a server that supports subscriptions is subscribed to it, and the read is kept until the server
        says it changed (`notifications/resources/updated`; on 2026-07-28, no longer than its `ttlMs`): later reads of
        it cost no round trip. A read during which the server asked a question (an elicitation, such as a 2026-07-28
        input round) is never kept: its contents may depend on the answer, and on who gave it."""
        kept = self._kept_reads.get(uri)
        if kept is not None and self._ready.is_set() and time.monotonic() < kept[1]:
            return kept[0]
        client = await self._live_client(timeout)
        async with asyncio.timeout(timeout), self._session_errors():
            subscribed = subscribe and await self._subscribe(client, uri)
            updates, questions = self._updates.get(uri, 0), self._questions
            result = await client.read_resource(uri, cache_mode="bypass")  # what is kept is kept here, by uri
        # Kept only if no update came while it was read (it may predate that update) and no question was asked
        # meanwhile (which request a question belongs to is not always known, so any question counts).
        if subscribed and self._updates.get(uri, 0) == updates and self._questions == questions \
                and (until := _kept_until(client, result)) is not None:
            self._kept_reads[uri] = (result, until)
        return result

    async def get_prompt(self, name: str, arguments: dict[str, str], timeout: float) -> GetPromptResult:
        """MCP `prompts/get` on the live session, once `arguments` fit the prompt as listed: UnknownPrompt or
        BadPromptArguments before anything is sent, ServerUnavailable as for tools, MCPError as the server says."""
        client = await self._live_client(timeout)
        check_arguments(self.spec.name, find_prompt(self.spec.name, self.prompts, name), arguments)
        async with asyncio.timeout(timeout), self._session_errors():
            return await client.get_prompt(name, arguments)

    async def _subscribe(self, client: Client, uri: str) -> bool:
        """Subscribe to `uri` once per session where the server supports it: `resources/subscribe` on handshake-era
        sessions, the session's `subscriptions/listen` stream on 2026-07-28 ones. False: the read is not kept."""
        capability = client.server_capabilities.resources
        if not (capability and capability.subscribe):
            return False
        if uri in self._subscribed:
            return True
        if len(self._subscribed) >= _MAX_SUBSCRIPTIONS:
            return False  # what is kept stays bounded: past this, reads are simply made each time
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            if self._listen is None or not await self._listen.subscribe(uri):
                return False
        else:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # deprecated only for 2026-07-28 sessions
                    await client.subscribe_resource(uri)
            except MCPError as error:  # refused: the read is still made, just not kept
                logger.info("MCP server %s: no subscription to %s (%s)", self.spec.name, uri, error.message)
                return False
        self._subscribed.add(uri)
        return True

    async def _live_client(self, timeout: float) -> Client:
        """The session's client, waiting up to `timeout` for it to come up; ServerUnavailable if it does not."""
        if not self._ready.is_set():
            self._retry_now.set()  # a caller is waiting: skip what is left of the backoff
        if not await self.wait_ready(timeout) or self._client is None:
            reason = self.last_error or "no MCP handshake yet"
            raise ServerUnavailable(f"server {self.spec.name!r} is not connected: {reason}")
        return self._client

    @asynccontextmanager
    async def _session_errors(self) -> AsyncIterator[None]:
        """A broken session as ServerUnavailable (and marked lost); a slow answer stays a TimeoutError."""
        try:
            yield
        except TimeoutError:
            raise  # TimeoutError is an OSError, but it means a slow server, not a dead session
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
                if self.authorization is not None and self.authorization.each_user_signs_in:
                    self._become_per_user()
                    return
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

    def _become_per_user(self) -> None:
        self.per_user = True
        stored = self.authorization.storage.server_value("catalog") if self.authorization else None
        if stored:
            self.tools = [tool for tool in map(Tool.model_validate, stored["tools"]) if self.spec.exposes(tool.name)]
            self.instructions = stored["instructions"]
            self.resources = [Resource.model_validate(item) for item in stored.get("resources", [])]
            self.templates = [ResourceTemplate.model_validate(item) for item in stored.get("templates", [])]
            self.prompts = [Prompt.model_validate(item) for item in stored.get("prompts", [])]
        self.last_error = None if self.tools else (
            f"each user authorizes it: POST /chat/<user>/oauth/{self.spec.name}, or a first tool call")
        self._settled.set()
        logger.info("MCP server %s asks each user to authorize: calls go through per-user sessions (%d tools known)",
                    self.spec.name, len(self.tools))

    def adopt_catalog(self, source: ServerConnection) -> None:
        """Take the tools a user's session discovered (per-user servers list them before that user signs in);
        kept with the server's OAuth documents, so a restart lists them again."""
        self.tools, self.instructions = list(source.tools), source.instructions
        self.resources, self.templates = list(source.resources), list(source.templates)
        self.prompts = list(source.prompts)
        self.protocol_version, self.last_error = source.protocol_version, None
        if self.authorization is not None:
            self.authorization.storage.set_server_value("catalog", {
                "tools": _dumped(self.tools), "instructions": self.instructions, "resources": _dumped(self.resources),
                "templates": _dumped(self.templates), "prompts": _dumped(self.prompts)})

    def _waiting_on_person(self, waiting: bool) -> None:
        """The OAuth flow waits on a person: the connect deadline stops meanwhile (the consent has its own), and
        start-up need not wait for it."""
        if waiting:
            self.last_error = f"needs authorization by {self.user}: POST /chat/{self.user}/oauth/{self.spec.name}"
            self._settled.set()
        if self._connect_scope is not None:
            self._connect_scope.deadline = math.inf if waiting else anyio.current_time() + _CONNECT_TIMEOUT_S

    async def _run_session(self) -> None:
        self._lost.clear()
        self._subscribed.clear()  # a new session has no subscriptions, so nothing kept is known to be current
        self._kept_reads.clear()
        async with AsyncExitStack() as resources:
            client = Client(self._transport(resources), mode="auto", message_handler=self._on_message,
                            elicitation_callback=self._on_elicitation)
            # One scope around the whole session keeps anyio's nesting intact; its deadline only
            # bounds the handshake and discovery, then it is lifted.
            with anyio.CancelScope(deadline=anyio.current_time() + _CONNECT_TIMEOUT_S) as connect_scope:
                self._connect_scope = connect_scope
                async with client:
                    await self._discover(client)
                    connect_scope.deadline = math.inf
                    self._connect_scope = None
                    self._client = client
                    self.protocol_version = client.protocol_version
                    self.last_error = None
                    self._ready.set()
                    self._settled.set()
                    logger.info("MCP server %s up (protocol %s) with %d tools", self.spec.name,
                                self.protocol_version, len(self.tools))
                    try:
                        await self._watch(client)
                    finally:
                        self._ready.clear()
                        self._client = None
            self._connect_scope = None
            if connect_scope.cancelled_caught:
                raise TimeoutError(f"no handshake within {_CONNECT_TIMEOUT_S:g}s")

    async def _watch(self, client: Client) -> None:
        """Return when the session is lost; meanwhile answer list changes and run health checks (on 2026-07-28,
        with the session's listen stream, closed with it)."""
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            self._listen = ListenStream(client, self.spec.name, self._change_filter(client), self._not_covered)
        try:
            async with anyio.create_task_group() as tasks:
                if self._listen is not None:
                    tasks.start_soon(self._keep_listening, self._listen)
                await self._watch_health(client)
                tasks.cancel_scope.cancel()
        finally:
            self._listen = None

    @staticmethod
    def _change_filter(client: Client) -> dict[str, bool]:
        capabilities = client.server_capabilities
        announced = {"tools_list_changed": capabilities.tools, "resources_list_changed": capabilities.resources,
                     "prompts_list_changed": capabilities.prompts}
        return {key: True for key, capability in announced.items() if capability and capability.list_changed}

    async def _keep_listening(self, stream: ListenStream) -> None:
        """2026-07-28 servers send list changes and resource updates only to a `subscriptions/listen` stream; its
        events reach `_on_message`."""
        try:
            await stream.run()
        except (MCPError, SubscriptionLost, ListenNotSupportedError, *_TRANSPORT_ERRORS) as error:
            logger.info("MCP server %s: no change notifications (%s)", self.spec.name, _describe(error))

    def _not_covered(self, uris: frozenset[str]) -> None:
        """The listen stream ended, so changes may have been missed: the lists are fetched again, and reads of
        `uris` are no longer kept (the next subscribed read subscribes again)."""
        self._refresh_wanted.set()
        for uri in uris:
            self._subscribed.discard(uri)
            self._resource_changed(uri)

    async def _watch_health(self, client: Client) -> None:
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
                if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                    await client.session.send_discover(client.protocol_version)  # 2026-07-28 has no ping
                else:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # ping is deprecated only for 2026-07-28 sessions
                        await client.send_ping()
        except (TimeoutError, MCPError, *_TRANSPORT_ERRORS) as error:
            self._mark_lost(f"health check failed: {error!r}")

    async def _discover(self, client: Client) -> None:
        capabilities = client.server_capabilities
        self.instructions = (client.instructions or "").strip()
        tools = await self._list_all(client.list_tools, "tools") if capabilities.tools else []
        self.tools = [tool for tool in tools if self.spec.exposes(tool.name)]
        if capabilities.resources:
            self.resources = await self._list_all(client.list_resources, "resources")
            try:
                self.templates = await self._list_all(client.list_resource_templates, "resource_templates")
            except MCPError as error:  # templates are optional: a server may not answer `resources/templates/list`
                logger.info("MCP server %s lists no resource templates: %s", self.spec.name, error.message)
        if capabilities.prompts:
            self.prompts = await self._list_all(client.list_prompts, "prompts")
        if self._on_discovered is not None:
            self._on_discovered(self)

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

    async def _on_elicitation(self, context: Any, params: Any) -> ElicitResult:
        """Relay a server's question to the user of the call it belongs to; `cancel` when no one can be asked."""
        self._questions += 1  # a read in flight is not kept (read_resource)
        call = _current_call.get()
        if call is None:  # asked from the session's reader task: the call is known only if it is the one
            askers = [c for c in self._calls if c.asker is not None]
            call = askers[0] if len(askers) == 1 and len(self._calls) == 1 else None
        # URL mode (a page to open outside the chat) is not relayed.
        if call is None or call.asker is None or not isinstance(params, ElicitRequestFormParams):
            logger.info("MCP server %s asked a question no one can answer: cancelled", self.spec.name)
            return ElicitResult(action=CANCELLED.action)
        call.question_opened()
        try:
            answer = await call.asker.ask(self.spec.name, call.tool, params.message, params.requested_schema)
        finally:
            call.question_closed()
        return ElicitResult(action=answer.action, content=answer.content)

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method in _LIST_CHANGED:
            self._refresh_wanted.set()
        elif method == "notifications/resources/updated":
            self._resource_changed(str(message.params.uri))

    def _resource_changed(self, uri: str) -> None:
        self._kept_reads.pop(uri, None)  # the next read asks the server again
        self._updates[uri] = self._updates.get(uri, 0) + 1

    def _transport(self, resources: AsyncExitStack) -> Any:
        """The transport for `Client`; what it needs (log file, HTTP client) closes with `resources`."""
        spec = self.spec
        if spec.transport == "stdio":
            # A server's stderr goes to a per-server log file, not into the gateway's console.
            self._log_dir.mkdir(parents=True, exist_ok=True)
            errlog = resources.enter_context(open(self._log_dir / f"{spec.name}.log", "a", encoding="utf-8"))
            parameters = StdioServerParameters(command=resolve_command(spec.command), args=spec.args,
                                               env=spec.env or None, cwd=spec.cwd)
            return stdio_client(parameters, errlog=errlog)
        auth = self.authorization.provider if self.authorization is not None else None
        if spec.transport == "sse":
            return sse_client(spec.url, headers=spec.headers, timeout=_HTTP_TIMEOUT_S,
                              sse_read_timeout=_HTTP_READ_TIMEOUT_S, auth=auth)
        http_client = httpx2.AsyncClient(headers=spec.headers, auth=auth,
                                         timeout=httpx2.Timeout(_HTTP_TIMEOUT_S, read=_HTTP_READ_TIMEOUT_S))
        resources.push_async_callback(http_client.aclose)
        return streamable_http_client(spec.url, http_client=http_client)
