"""A chat request's cancellation: set when its client goes away, seen by every stage that waits on something.

The LLM stream is closed (so the backend aborts the generation and frees its KV blocks), pending tool calls are
cancelled (the MCP client tells the server), and no answer is stored: the user never saw it.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any

_POLL_S = 0.1


class Cancelled(Exception):
    """The request was cancelled: its client went away."""


class Cancellation:
    """Set once; callbacks registered while it is unset run when it is set (at once if it already is)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def check(self) -> None:
        """Raise Cancelled if the request was cancelled."""
        if self._event.is_set():
            raise Cancelled("the client went away")

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when cancelled; returns a function that unregisters it."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return lambda: self._discard(callback)
        callback()
        return lambda: None

    def _discard(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


def watch_client(environ: dict[str, Any], cancellation: Cancellation) -> Callable[[], None]:
    """Cancel when the request's client closes its connection (the development server exposes the socket as
    `werkzeug.socket`; elsewhere nothing is watched). Returns the function that stops watching."""
    connection = environ.get("werkzeug.socket")
    if not isinstance(connection, socket.socket):
        return lambda: None
    done = threading.Event()

    def watch() -> None:
        while not done.wait(_POLL_S):
            try:
                # The client sends nothing more during a response: end of stream means it hung up.
                if connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                    cancellation.cancel()
                    return
            except BlockingIOError:
                continue
            except OSError:
                cancellation.cancel()
                return

    threading.Thread(target=watch, name="client-watch", daemon=True).start()
    return done.set
