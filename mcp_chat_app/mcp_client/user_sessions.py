"""Each user's own sessions to the servers that ask every user to authorize (OAuth): one user's token never
carries another's call.

A session opens on the user's first call (or `POST /chat/<user>/oauth/<server>`), runs that user's OAuth flow
(the authorization URL goes back to that user as the call's `needs_authorization` outcome) and closes after
`idle_s` without calls; the user's tokens stay stored, so the next call refreshes instead of asking again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from mcp_chat_app.mcp_client.connection import ServerConnection, ServerUnavailable
from mcp_chat_app.mcp_client.oauth import OAuthSettings, OAuthStorage
from mcp_chat_app.mcp_client.results import ToolOutcome, failed_outcome

logger = logging.getLogger(__name__)
# The user the tool calls running in this task are for (set by McpManager for one `call_tools`).
current_user: ContextVar[str | None] = ContextVar("mcp_user", default=None)


class AuthorizationNeeded(Exception):
    """The user has not authorized the gateway at this server yet; `url` is where they do (None: no user)."""

    def __init__(self, server: str, url: str | None) -> None:
        self.server, self.url = server, url
        super().__init__(f"To use {server}, authorize it for your account: {url}" if url else
                         f"server {server!r} acts for each user, and this call is for no user")


class UserSessions:
    """(server, user) -> that user's `ServerConnection`, on the manager's event loop."""

    def __init__(self, oauth: OAuthSettings, log_dir: Path, health_interval_s: float) -> None:
        self._oauth = oauth
        self._log_dir = log_dir
        self._health_interval_s = health_interval_s
        self._sessions: dict[tuple[str, str], ServerConnection] = {}
        self._used: dict[tuple[str, str], float] = {}
        self._reaper: asyncio.Task[None] | None = None

    async def ready(self, shared: ServerConnection, user: str | None, timeout: float) -> ServerConnection:
        """`user`'s live session to `shared`'s server; AuthorizationNeeded while that user has not authorized,
        ServerUnavailable when it does not come up."""
        if user is None:
            raise AuthorizationNeeded(shared.spec.name, None)
        session = self._open(shared, user)
        await session.wait_settled(timeout)
        url = session.authorization.authorization_url if session.authorization else None
        if url is not None:
            raise AuthorizationNeeded(shared.spec.name, url)
        if not session.up and not await session.wait_ready(timeout):
            raise ServerUnavailable(f"server {shared.spec.name!r} is not connected for {user!r}: "
                                    f"{session.last_error or 'no MCP handshake yet'}")
        return session

    async def authorize(self, shared: ServerConnection, user: str, timeout: float) -> None:
        """Start (or find) `user`'s flow; `connections` then shows its URL, the session up, or why it is down."""
        try:
            await self.ready(shared, user, timeout)
        except (AuthorizationNeeded, ServerUnavailable):
            pass

    def complete(self, state: str, code: str | None, iss: str | None,
                 error: str | None) -> tuple[str, str] | None:
        """Deliver a callback to the flow that issued `state`: (server, user), or None if none did."""
        for (server, user), session in self._sessions.items():
            if session.authorization is not None and session.authorization.complete(state, code, iss, error):
                return server, user
        return None

    def connections(self, shared: ServerConnection, user: str) -> dict[str, object]:
        """Whether `user` holds tokens for the server, and the URL while their flow waits."""
        session = self._sessions.get((shared.spec.name, user))
        pending = session.authorization.authorization_url if session and session.authorization else None
        stored = OAuthStorage(self._oauth.store, shared.spec.name, user).user_value("tokens") is not None
        return {"server": shared.spec.name, "connected": stored and pending is None,
                "session_up": bool(session and session.up), "authorization_url": pending,
                "last_error": session.last_error if session else None}

    async def revoke(self, server: str, user: str) -> bool:
        """Close `user`'s session to `server` and forget their tokens; False if they had none (nor a session)."""
        session = self._sessions.pop((server, user), None)
        self._used.pop((server, user), None)
        if session is not None:
            await session.stop()
        return OAuthStorage(self._oauth.store, server, user).forget_user() or session is not None

    async def close(self, server: str | None = None) -> None:
        """Close the sessions to `server` (all servers: None); tokens stay stored."""
        keys = [key for key in self._sessions if server is None or key[0] == server]
        await asyncio.gather(*(self._sessions.pop(key).stop() for key in keys))
        for key in keys:
            self._used.pop(key, None)
        if server is None and self._reaper is not None:
            self._reaper.cancel()
            await asyncio.gather(self._reaper, return_exceptions=True)
            self._reaper = None

    def _open(self, shared: ServerConnection, user: str) -> ServerConnection:
        key = (shared.spec.name, user)
        self._used[key] = time.monotonic()
        session = self._sessions.get(key)
        if session is None:
            session = ServerConnection(shared.spec, self._log_dir, self._health_interval_s, self._oauth, user,
                                       on_discovered=shared.adopt_catalog)
            self._sessions[key] = session
            session.start()
            if self._reaper is None:
                self._reaper = asyncio.get_running_loop().create_task(self._reap(), name="mcp:user-sessions")
        return session

    async def _reap(self) -> None:
        """Close the sessions nobody used for `idle_s` (a waiting consent included: its URL is good for less)."""
        while True:
            await asyncio.sleep(min(60.0, self._oauth.idle_s / 4))
            now = time.monotonic()
            idle = [key for key, used in self._used.items() if now - used > self._oauth.idle_s]
            for key in idle:
                self._used.pop(key, None)
                session = self._sessions.pop(key, None)
                if session is not None:
                    logger.info("closing %s's idle session to MCP server %s", key[1], key[0])
                    await session.stop()


def needs_authorization(needed: AuthorizationNeeded, tool: str, arguments: dict[str, Any]) -> ToolOutcome:
    """The outcome of a call the user must first authorize: the URL is in its data, and a notice says so."""
    outcome = failed_outcome(needed.server, tool, arguments, str(needed), reason="needs_authorization")
    outcome.structured_content = {"authorization_url": needed.url}
    return outcome
