"""A 2026-07-28 session's `subscriptions/listen` stream: the list changes and the resources it listens for.

That revision has no `resources/subscribe`: a client names resource URIs in a stream's filter, which is fixed when
the stream opens. So subscribing to one more URI opens a stream with the wider filter and closes the old one only once
the new one is acknowledged: no update falls between them, and the server holds one stream. The SDK hands every
event on a stream to the session's message handler too, which drops kept reads and refreshes lists; this task only
keeps a stream open, and says which URIs it no longer covers when one is lost (updates may have been missed; it is
reopened after a pause) or closed by the server (not reopened).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Literal

from mcp import Client, MCPError
from mcp.client.subscriptions import Subscription, SubscriptionLost

logger = logging.getLogger(__name__)

_RELISTEN_DELAY_S = 1.0


class ListenStream:
    """The one stream of a session; `run()` drives it, `subscribe()` widens it."""

    def __init__(self, client: Client, server: str, list_changes: dict[str, bool],
                 on_uncovered: Callable[[frozenset[str]], None]) -> None:
        """`list_changes`: `Client.listen`'s list flags; `on_uncovered` hears URIs whose updates may have been missed."""
        self._client = client
        self._server = server
        self._list_changes = list_changes
        self._on_uncovered = on_uncovered
        self._covered: frozenset[str] = frozenset()  # URIs the open stream's acknowledgment honored
        self._wanted: dict[str, list[asyncio.Future[bool]]] = {}  # URIs for the next stream, with who waits on each
        self._wake = asyncio.Event()
        self._ended = False

    async def subscribe(self, uri: str) -> bool:
        """Listen for updates of `uri`: True once an open stream covers it; False if the server did not honor it or
        no stream can be opened."""
        if uri in self._covered:
            return True
        if self._ended:
            return False
        waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._wanted.setdefault(uri, []).append(waiter)
        self._wake.set()
        return await waiter

    async def run(self) -> None:
        """Keep a stream open until the session ends (this task is cancelled) or the server closes it; raises
        MCPError or SubscriptionLost (or a transport error) when none can be opened."""
        stream: AsyncExitStack | None = None
        subscription: Subscription | None = None
        try:
            while True:
                if subscription is None and not self._list_changes and not self._wanted:
                    await self._wake.wait()  # nothing to listen for yet
                self._wake.clear()
                taken, self._wanted = self._wanted, {}
                opened = AsyncExitStack()
                try:
                    wider = await opened.enter_async_context(self._client.listen(
                        **self._list_changes, resource_subscriptions=[*self._covered, *taken]))
                except (MCPError, SubscriptionLost) as error:  # refused, or ended before its acknowledgment
                    self._answer(taken, frozenset())
                    if subscription is None:
                        raise
                    logger.info("MCP server %s: no wider subscription (%s); the open one stays", self._server, error)
                else:
                    if stream is not None:
                        await stream.aclose()  # after the new one is acknowledged: no gap
                    stream, subscription = opened, wider
                    honored = frozenset(wider.honored.resource_subscriptions or ())
                    dropped, self._covered = self._covered - honored, honored
                    if dropped:  # the server honors less than the stream before
                        self._on_uncovered(dropped)
                    self._answer(taken, honored)
                end = await self._drain(subscription)
                if end == "wanted":
                    continue
                await stream.aclose()
                stream = subscription = None
                missed, self._covered = self._covered, frozenset()
                self._on_uncovered(missed)
                if end == "closed":
                    logger.info("MCP server %s closed its subscriptions/listen stream", self._server)
                    return
                self._wanted.update({uri: [] for uri in missed if uri not in self._wanted})
                await asyncio.sleep(_RELISTEN_DELAY_S)
        finally:
            self._ended = True
            if stream is not None:
                await stream.aclose()  # the SDK cancels the listen request: the server drops the stream
            self._answer(self._wanted, frozenset())

    async def _drain(self, subscription: Subscription) -> Literal["wanted", "lost", "closed"]:
        """Consume events (the message handler has acted on them) until the stream ends or a URI is wanted."""
        wanted = asyncio.ensure_future(self._wake.wait())
        event: asyncio.Future[object] | None = None
        try:
            while True:
                event = asyncio.ensure_future(anext(subscription))
                await asyncio.wait({event, wanted}, return_when=asyncio.FIRST_COMPLETED)
                if not event.done():
                    return "wanted"  # cancelling a pending read loses nothing: the handler had every event
                try:
                    event.result()
                except StopAsyncIteration:
                    return "closed"
                except SubscriptionLost:
                    return "lost"
        finally:
            for waiter in (wanted, event):
                if waiter is not None:
                    waiter.cancel()

    @staticmethod
    def _answer(waiting: dict[str, list[asyncio.Future[bool]]], honored: frozenset[str]) -> None:
        for uri, waiters in waiting.items():
            for waiter in waiters:
                if not waiter.done():  # its read may have timed out meanwhile
                    waiter.set_result(uri in honored)
