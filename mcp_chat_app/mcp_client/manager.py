"""All MCP sessions on one background asyncio loop, behind a small synchronous facade for Flask."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from mcp import MCPError

from mcp_chat_app.cancellation import Cancellation, Cancelled
from mcp_chat_app.mcp_client.approval_policy import ToolHints, Verdict, needs_approval
from mcp_chat_app.mcp_client.connection import InvalidToolAnswer, ServerConnection, ServerUnavailable
from mcp_chat_app.mcp_client.elicitation import Asker, current_asker
from mcp_chat_app.mcp_client.oauth import OAuthSettings
from mcp_chat_app.mcp_client import resource_tool
from mcp_chat_app.mcp_client.prompts import RenderedPrompt, UnknownPrompt, prompt_entry, render
from mcp_chat_app.mcp_client.registry import Registry, ServerSpec
from mcp_chat_app.mcp_client.resources import ResourceEntry, ResourceRead, UnknownServer
from mcp_chat_app.mcp_client.results import ToolOutcome, failed_outcome, outcome_from_result
from mcp_chat_app.mcp_client.user_sessions import AuthorizationNeeded, UserSessions, current_user, needs_authorization

logger = logging.getLogger(__name__)
_T = TypeVar("_T")
_STARTUP_WAIT_S = 20.0
SEPARATOR = "__"
LOCALE_META_KEY = "locale"
UNITS_META_KEY = "units"
# The arguments of the server's own calls earlier in the conversation, latest first: what a follow-up's bare
# value may be settled by ("and Santa Fe?" after Albuquerque is New Mexico's).
EARLIER_META_KEY = "earlier_arguments"


@dataclass(frozen=True)
class ToolInfo:
    """A tool as the LLM sees it: namespaced `server__tool`."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None  # what its structured results hold, when the server says

    @property
    def qualified_name(self) -> str:
        return f"{self.server}{SEPARATOR}{self.name}"


@dataclass(frozen=True)
class ToolRequest:
    """One call the chat pipeline wants made."""

    server: str
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolProgress:
    """A progress notification of one running call (`McpManager.call_tools(..., on_progress=...)`)."""

    index: int  # the call's position in the `requests` list
    server: str  # the server running it: the fallback's name when the call went there
    tool: str
    progress: float
    total: float | None
    message: str | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


ProgressCallback = Callable[[ToolProgress], None]


class UnknownTool(LookupError):
    """A live server that does not offer a tool of this name (or the registry hides it)."""


class McpManager:
    """Opens every registered server once and keeps the sessions alive for the gateway's lifetime."""

    def __init__(self, specs: dict[str, ServerSpec], log_dir: Path, health_interval_s: float = 10.0, *,
                 rejected: dict[str, str] | None = None, registry_error: str | None = None,
                 oauth: OAuthSettings | None = None) -> None:
        """`rejected`: registry entries that could not be used, with why (shown in `status()`); `registry_error`:
        why the registry file could not be read at all; `oauth`: lets url servers that answer 401 use OAuth."""
        self._specs = dict(specs)
        self._rejected = dict(rejected or {})
        self._registry_error = registry_error
        self._log_dir = log_dir
        self._health_interval_s = health_interval_s
        self._oauth = oauth
        self._connections: dict[str, ServerConnection] = {}
        # Servers that ask each user to authorize are called through that user's own session.
        self._user_sessions = UserSessions(oauth, log_dir, health_interval_s) if oauth else None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-manager", daemon=True)

    @classmethod
    def from_registry(cls, registry: Registry, log_dir: Path, health_interval_s: float = 10.0,
                      oauth: OAuthSettings | None = None) -> McpManager:
        """A manager for what `load_registry` read, its rejected entries and file error included."""
        return cls(registry.servers, log_dir, health_interval_s, rejected=registry.rejected,
                   registry_error=registry.error, oauth=oauth)

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
        """One line per registry entry: transport, up/down, negotiated protocol, tools, last error, restarts.
        An entry that could not be used is listed too, down, with its `config_error`."""
        rows = []
        for spec in list(self._specs.values()):
            connection = self._connections.get(spec.name)
            rows.append({
                "name": spec.name,
                "transport": spec.transport,
                "description": spec.description,
                "disabled": spec.disabled,
                "up": bool(connection and connection.up),
                "protocol_version": connection.protocol_version if connection else None,
                "tools": [tool.name for tool in connection.tools] if connection else [],
                "resources": [resource.uri for resource in connection.resources] if connection else [],
                "prompts": [prompt.name for prompt in connection.prompts] if connection else [],
                "last_error": connection.last_error if connection else None,
                "config_error": None,
                "ignored_keys": list(spec.ignored_keys),
                "needs_authorization": bool(connection and connection.per_user),  # each user authorizes
                "restarts": connection.restarts if connection else 0,
                "fallback": spec.fallback,
            })
        for name, error in list(self._rejected.items()):
            rows.append({"name": name, "transport": None, "description": "", "disabled": False, "up": False,
                         "protocol_version": None, "tools": [], "resources": [], "prompts": [], "last_error": error,
                         "config_error": error, "ignored_keys": [], "needs_authorization": False, "restarts": 0,
                         "fallback": None})
        return rows

    def warnings(self) -> list[str]:
        """What an operator must hear about: an unreadable registry, or no server whose tools can be used."""
        found = [f"the MCP server registry could not be read: {self._registry_error}"] if self._registry_error else []
        if not any(connection.up and connection.tools for connection in list(self._connections.values())):
            enabled = [spec.name for spec in self._specs.values() if not spec.disabled]
            found.append(f"no usable MCP servers ({len(enabled)} enabled, none up with tools; "
                         f"{len(self._rejected)} rejected entries): questions are answered without tools")
        return found

    def tools(self) -> list[ToolInfo]:
        """Every exposed tool of every live server, in a stable order (it goes into the prompt prefix)."""
        found = []
        for name, connection in list(self._connections.items()):
            for tool in connection.tools:
                found.append(ToolInfo(name, tool.name, tool.description or "", dict(tool.input_schema),
                                      dict(tool.output_schema) if tool.output_schema else None))
        offered = self._resources_for_tool()
        if offered:
            servers = sorted({entry.server for entry in offered})
            found.append(ToolInfo(resource_tool.SERVER, resource_tool.NAME, resource_tool.description(offered),
                                  resource_tool.input_schema(servers)))
        return found

    def tool_hints(self, server: str, tool: str) -> ToolHints | None:
        """What the approval policy knows of one tool; None while its server has not listed its tools (down: any
        name may be one of them). UnknownServer for a name no enabled server has, UnknownTool for a tool the
        server's list lacks."""
        if server == resource_tool.SERVER and server not in self._connections and self._resources_for_tool():
            if tool != resource_tool.NAME:
                raise UnknownTool(f"{server!r} has no tool {tool!r}")
            return self._hints(server, tool)
        connection = self._connections.get(server)
        if connection is None:
            raise UnknownServer(f"no server named {server!r} is registered and enabled")
        if not connection.up and not connection.tools:
            return None
        if all(known.name != tool for known in connection.tools):
            raise UnknownTool(f"{server!r} has no tool {tool!r}")
        return self._hints(server, tool)

    def resources(self) -> list[ResourceEntry]:
        """Every live server's resources, then its resource templates, in a stable order."""
        return [ResourceEntry.of(name, item) for name, connection in list(self._connections.items()) if connection.up
                for item in (*connection.resources, *connection.templates)]

    def read_resource(self, server: str, uri: str, subscribe: bool = False) -> ResourceRead:
        """Read `uri` of `server` (`subscribe`: keep it subscribed, see `ServerConnection.read_resource`). Raises
        UnknownServer, ServerUnavailable, TimeoutError, or MCPError with the server's refusal."""
        return self._run(self._read(server, uri, subscribe), timeout=self._timeout_of(server) + 5)

    def instructions(self) -> dict[str, str]:
        """Each live server's usage notes (MCP `instructions`), by server name; servers without notes are left out."""
        return {name: connection.instructions for name, connection in list(self._connections.items())
                if connection.instructions and connection.tools}

    def prompts(self) -> list[dict[str, Any]]:
        """Every live server's prompts (`prompts/list`, all pages, refreshed on list changes), as GET /prompts
        lists them."""
        return [prompt_entry(name, prompt) for name, connection in list(self._connections.items())
                if connection.up for prompt in connection.prompts]

    def unavailable(self) -> dict[str, str]:
        """The enabled servers that are not up now, with why."""
        return {name: connection.last_error or "not connected yet"
                for name, connection in list(self._connections.items()) if not connection.up}

    def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> RenderedPrompt:
        """Fetch (`prompts/get`) and render one prompt; UnknownPrompt, BadPromptArguments, ServerUnavailable,
        TimeoutError (after the server's timeout) or the server's MCPError."""
        connection = self._connections.get(server)
        if connection is None:
            raise UnknownPrompt("unknown_server", f"no enabled server named {server!r}")
        timeout = connection.spec.timeout
        result = self._run(connection.get_prompt(name, arguments, timeout), timeout=2 * timeout + 5)
        return render(server, name, result)

    def call_tools(self, requests: list[ToolRequest], locale: str | None = None, units: str | None = None,
                   on_progress: ProgressCallback | None = None, cancellation: Cancellation | None = None,
                   asker: Asker | None = None, user: str | None = None,
                   earlier: Mapping[str, list[dict[str, Any]]] | None = None) -> list[ToolOutcome]:
        """Run the calls concurrently (each with its server's timeout); results keep the request order.

        `locale` ("zh-CN", "en") goes to the servers as the request's `_meta.locale`: servers that word their
        results (ours does) answer in the user's language; others ignore it; `units` ("imperial") likewise as
        `_meta.units`. `on_progress` receives a
        `ToolProgress` for each progress notification a server sends about one of the calls. It runs on the
        manager's event-loop thread while the calls are in flight, so it must return quickly and not call back
        into the manager (queue the update, e.g. as an SSE event); an exception it raises is logged and does
        not affect the call. A `cancellation` cancels the calls still running (the MCP client tells their
        servers) and raises Cancelled. An `asker` relays the servers' questions (elicitation) to the user; without
        one they are answered `cancel`. `user`: whom the calls are for; a server that asks each user to authorize
        acts as that user (without one, its calls fail with `needs_authorization`). `earlier`: by server, the
        arguments of its calls earlier in the conversation, latest first, sent to that server alone as
        `_meta.earlier_arguments`."""
        longest = max((self._timeout_of(request.server) for request in requests), default=0)
        meta = {key: value for key, value in ((LOCALE_META_KEY, locale), (UNITS_META_KEY, units)) if value}
        metas = [{**meta, EARLIER_META_KEY: earlier[request.server]} if earlier and earlier.get(request.server)
                 else meta or None for request in requests]
        future = asyncio.run_coroutine_threadsafe(self._call_all(requests, metas, on_progress, asker, user),
                                                  self._loop)
        stop_watching = cancellation.on_cancel(future.cancel) if cancellation else (lambda: None)
        # Each call keeps its own timeout; a person answering a question stops it, so only then is this open.
        bound = None if asker else 2 * longest + 10
        try:
            return future.result(bound)
        except concurrent.futures.CancelledError as error:
            raise Cancelled("the client went away during the tool calls") from error
        finally:
            stop_watching()

    def add_server(self, spec: ServerSpec, wait_s: float = _STARTUP_WAIT_S) -> bool:
        """Register (or replace) a server at runtime; True when it came up within `wait_s`."""
        return self._run(self._add(spec, wait_s), timeout=wait_s + 35)

    def authorizations(self, user: str) -> list[dict[str, Any]]:
        """The servers that ask each user to authorize, with whether `user` has (and their pending URL)."""
        return self._run(self._authorizations(user), timeout=5)

    def authorize(self, name: str, user: str) -> dict[str, Any] | None:
        """Start `user`'s OAuth flow for server `name` (or find it done): its state, or None when `name` is not
        a server that asks each user to authorize."""
        # The user's session may take its timeout to settle, and as long again to come up.
        return self._run(self._authorize(name, user), timeout=2 * self._timeout_of(name) + 5)

    def revoke_authorization(self, name: str, user: str) -> bool:
        """Close `user`'s session to server `name` and forget their tokens; False if they had none."""
        return self._run(self._revoke(name, user), timeout=35)

    def complete_authorization(self, state: str, code: str | None, iss: str | None = None,
                               error: str | None = None) -> tuple[str, str] | None:
        """Deliver an OAuth callback to the flow that issued `state`: (server, user), or None if none did."""
        return self._run(self._complete_authorization(state, code, iss, error), timeout=5)

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
        if self._user_sessions is not None:
            await self._user_sessions.close()
        await asyncio.gather(*(c.stop() for c in self._connections.values()))
        self._connections.clear()

    def _open(self, spec: ServerSpec) -> ServerConnection:
        connection = ServerConnection(spec, self._log_dir, self._health_interval_s, self._oauth)
        self._connections[spec.name] = connection
        connection.start()
        return connection

    async def _add(self, spec: ServerSpec, wait_s: float) -> bool:
        await self._remove(spec.name)
        self._specs[spec.name] = spec
        if spec.disabled:
            return False
        # Settled, not ready: a server whose OAuth flow waits on a person answers now, as not up yet.
        connection = self._open(spec)
        await connection.wait_settled(wait_s)
        return connection.up

    async def _remove(self, name: str) -> bool:
        connection = self._connections.pop(name, None)
        if connection is not None:
            await connection.stop()
        if self._user_sessions is not None:
            await self._user_sessions.close(name)
        return (self._specs.pop(name, None) or self._rejected.pop(name, None)) is not None

    def _per_user(self, name: str) -> ServerConnection | None:
        """The shared connection of `name` when it asks each user to authorize (only OAuth servers can)."""
        connection = self._connections.get(name)
        return connection if connection is not None and connection.per_user else None

    async def _authorizations(self, user: str) -> list[dict[str, Any]]:
        if self._user_sessions is None:
            return []
        return [self._user_sessions.connections(connection, user) for connection in self._connections.values()
                if connection.per_user]

    async def _authorize(self, name: str, user: str) -> dict[str, Any] | None:
        connection = self._per_user(name)
        if connection is None or self._user_sessions is None:
            return None
        await self._user_sessions.authorize(connection, user, connection.spec.timeout)
        return self._user_sessions.connections(connection, user)

    async def _revoke(self, name: str, user: str) -> bool:
        return self._user_sessions is not None and await self._user_sessions.revoke(name, user)

    async def _complete_authorization(self, state: str, code: str | None, iss: str | None,
                                      error: str | None) -> tuple[str, str] | None:
        return self._user_sessions.complete(state, code, iss, error) if self._user_sessions else None

    async def _call_all(self, requests: list[ToolRequest], metas: list[dict[str, Any] | None],
                        on_progress: ProgressCallback | None, asker: Asker | None,
                        user: str | None) -> list[ToolOutcome]:
        current_asker.set(asker)  # this task's calls (gathered below, in copies of its context) ask through it
        current_user.set(user)  # ... and act as this user on servers that ask each user to authorize
        return list(await asyncio.gather(*(self._call(index, request, meta, on_progress)
                                           for index, (request, meta) in enumerate(zip(requests, metas)))))

    async def _call(self, index: int, request: ToolRequest, meta: dict[str, Any] | None,
                    on_progress: ProgressCallback | None) -> ToolOutcome:
        try:
            return await self._approved_call(index, request, meta, on_progress)
        except Exception:  # boundary: whatever breaks one call is that call's failure, never the turn's
            logger.exception("tool %s on %s failed unexpectedly", request.tool, request.server)
            return failed_outcome(request.server, request.tool, request.arguments,
                                  f"tool {request.tool!r} on {request.server!r} failed unexpectedly",
                                  reason="unexpected_error")

    async def _approved_call(self, index: int, request: ToolRequest, meta: dict[str, Any] | None,
                             on_progress: ProgressCallback | None) -> ToolOutcome:
        refused = await self._refusal(request)
        if refused is not None:
            return refused
        started = time.perf_counter()  # after the approval: a person's reading time is no tool time
        outcome = await self._call_with_fallback(index, request, meta, on_progress)
        outcome.duration_ms = (time.perf_counter() - started) * 1000
        return outcome

    async def _refusal(self, request: ToolRequest) -> ToolOutcome | None:
        """Why the call may not be made, or None: the request's asker decides (its user's policy, or the user
        asked); with no asker (the CLI, the gateway's own calls) a `confirm` server's call is not made, any other
        is."""
        hints = self._hints(request.server, request.tool)
        asker = current_asker.get()
        verdict: Verdict
        if asker is None:
            verdict = "deny" if hints.server_confirms else "allow"
        else:
            verdict = await asker.approve(request.server, request.tool, request.arguments, hints)
        if verdict == "allow":
            return None
        if verdict == "deny" or asker is None:
            return failed_outcome(request.server, request.tool, request.arguments,
                                  "the user did not allow this call", reason="denied")
        return needs_approval(request.server, request.tool, request.arguments,
                              asker.how_to_allow(request.server, request.tool, hints))

    def _hints(self, server: str, tool: str) -> ToolHints:
        spec = self._specs.get(server)
        confirms = spec is not None and spec.confirm
        connection = self._connections.get(server)
        if connection is not None:
            return connection.hints(tool, confirms)
        if server == resource_tool.SERVER:  # the gateway's own `read_resource`: it only reads
            return ToolHints(read_only=True)
        return ToolHints(server_confirms=confirms)

    async def _call_with_fallback(self, index: int, request: ToolRequest, meta: dict[str, Any] | None,
                                  on_progress: ProgressCallback | None) -> ToolOutcome:
        spec = self._specs.get(request.server)
        try:
            return await self._call_on(request.server, request, meta,
                                       _forwarder(index, request.server, request.tool, on_progress))
        except ServerUnavailable as error:
            if spec is None or not spec.fallback or spec.fallback not in self._connections:
                return failed_outcome(request.server, request.tool, request.arguments, str(error))
        try:
            return await self._call_on(spec.fallback, request, meta,
                                       _forwarder(index, spec.fallback, request.tool, on_progress))
        except ServerUnavailable as error:
            return failed_outcome(spec.fallback, request.tool, request.arguments, str(error))

    def _resources_for_tool(self) -> list[ResourceEntry]:
        """What `read_resource` offers: the resources of the servers that opt in (none if a server is named like
        the tool's namespace)."""
        if resource_tool.SERVER in self._specs:
            return []
        return [entry for entry in self.resources() if self._specs[entry.server].resource_tool]

    async def _read(self, server: str, uri: str, subscribe: bool = False) -> ResourceRead:
        connection = self._connections.get(server)
        if connection is None:
            raise UnknownServer(f"no server named {server!r} is registered and enabled")
        return ResourceRead.of(server, uri, await connection.read_resource(uri, connection.spec.timeout, subscribe))

    async def _read_as_call(self, request: ToolRequest) -> ToolOutcome:
        """A `read_resource` call: the read as its result, or why it failed."""
        server, uri = request.arguments.get("server"), request.arguments.get("uri")
        if server not in {entry.server for entry in self._resources_for_tool()} or not isinstance(uri, str):
            message, reason = f"{resource_tool.NAME} reads only the resources it lists", "invalid_call"
        else:
            try:
                return resource_tool.outcome(request.arguments, await self._read(server, uri))
            except (UnknownServer, ServerUnavailable) as error:
                message, reason = str(error), "unavailable"
            except TimeoutError:
                message, reason = f"reading {uri!r} on {server!r} timed out", "timeout"
            except MCPError as error:
                message, reason = f"{server!r} could not read {uri!r}: {error.message}", "tool_error"
        return failed_outcome(request.server, request.tool, request.arguments, message, reason)

    async def _call_on(self, server: str, request: ToolRequest, meta: dict[str, Any] | None,
                       on_progress: Any) -> ToolOutcome:
        """Call on one server; after a dropped session, wait for the automatic restart and, when the tool is
        declared read-only or idempotent, retry once (anything else may already have had its effect)."""
        if server == resource_tool.SERVER and server not in self._connections:
            return await self._read_as_call(request)
        connection = self._connections.get(server)
        if connection is None:
            raise ServerUnavailable(f"server {server!r} is not registered or disabled")
        if (shared := self._per_user(server)) is not None and self._user_sessions is not None:
            try:
                connection = await self._user_sessions.ready(shared, current_user.get(), shared.spec.timeout)
            except AuthorizationNeeded as needed:
                return needs_authorization(needed, request.tool, request.arguments)
        timeout = connection.spec.timeout
        # Only a session that was up and then broke is worth a second try (it is being restarted).
        attempts = 2 if connection.up and connection.is_repeatable(request.tool) else 1
        try:
            for attempt in range(1, attempts + 1):
                try:
                    result = await connection.call_tool(request.tool, request.arguments, timeout, meta,
                                                        on_progress)
                    return outcome_from_result(server, request.tool, request.arguments, result)
                except ServerUnavailable:
                    if attempt == attempts:
                        raise
        except TimeoutError:
            message, reason = f"tool {request.tool!r} on {server!r} timed out after {timeout:g}s", "timeout"
        except MCPError as error:
            message, reason = f"tool {request.tool!r} on {server!r} failed: {error.message}", "protocol_error"
        except InvalidToolAnswer as error:
            logger.warning("tool %s on %s: %s", request.tool, server, error)  # the detail is the operator's
            message, reason = "the server's answer did not match its own schema", "invalid_answer"
        return failed_outcome(server, request.tool, request.arguments, message, reason)


def _forwarder(index: int, server: str, tool: str, on_progress: ProgressCallback | None) -> Any:
    """The SDK progress callback for one call, or None (then no progress token is sent at all)."""
    if on_progress is None:
        return None

    async def forward(progress: float, total: float | None, message: str | None) -> None:
        try:
            on_progress(ToolProgress(index, server, tool, progress, total, message))
        except Exception:  # boundary: the caller's callback must not break the call
            logger.exception("progress callback failed")

    return forward
