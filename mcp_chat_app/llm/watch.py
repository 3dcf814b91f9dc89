"""Whether an LLM endpoint answers, learned from the gateway's own calls at the HTTP layer.

`GET /models` answering says the server is up, not that it answers: a generation loop can hang behind a live
HTTP server, and then every chat waits until its timeout while `/health` says "ok". `LlmWatch` wraps the
HTTP transport of the endpoint's client and sees each call start, each byte come back and each call end. The
endpoint is *hung* when the gateway has been waiting on it (a call in flight, or the last call timed out) and no
byte has come back for `hung_after_s`. A timed-out call keeps the gateway waiting until a later call is answered;
`LlmClient.probe` is that later call when no user sends one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import httpx2


class LlmWatch:
    """The answer clock of one endpoint; thread-safe (every Flask thread shares the client)."""

    def __init__(self, hung_after_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.hung_after_s = hung_after_s
        self._clock = clock
        self._lock = threading.Lock()
        self._in_flight = 0
        self._waiting_since: float | None = None
        self._last_byte = float("-inf")
        self._probing = False

    def transport(self) -> httpx2.BaseTransport:
        """An HTTP transport for the endpoint's client that reports to this watch."""
        return _WatchedTransport(httpx2.HTTPTransport(), self)

    def silent_s(self) -> float | None:
        """Seconds the endpoint has kept the gateway waiting without a byte; None when nothing waits on it."""
        with self._lock:
            if self._waiting_since is None:
                return None
            return self._clock() - max(self._waiting_since, self._last_byte)

    def hung(self) -> bool:
        silent = self.silent_s()
        return silent is not None and silent >= self.hung_after_s

    def claim_probe(self) -> bool:
        """True (once, until `probe_done`) when a probe is worth sending: hung, and no call in flight to learn
        from."""
        hung = self.hung()
        with self._lock:
            if not hung or self._in_flight or self._probing:
                return False
            self._probing = True
            return True

    def probe_done(self) -> None:
        with self._lock:
            self._probing = False

    def _sent(self) -> None:
        with self._lock:
            self._in_flight += 1
            if self._waiting_since is None:
                self._waiting_since = self._clock()

    def _received(self) -> None:
        with self._lock:
            self._last_byte = self._clock()

    def _finished(self, timed_out: bool) -> None:
        with self._lock:
            self._in_flight -= 1
            if not timed_out:
                self._last_byte = self._clock()
                if not self._in_flight:
                    self._waiting_since = None


class _WatchedStream(httpx2.SyncByteStream):
    """A response body that reports each chunk, and the end of the call once."""

    def __init__(self, inner: httpx2.SyncByteStream, watch: LlmWatch) -> None:
        self._inner = inner
        self._watch = watch
        self._open = True

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self._inner:
                self._watch._received()
                yield chunk
        except httpx2.TimeoutException:
            self._finish(timed_out=True)
            raise

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._finish(timed_out=False)

    def _finish(self, timed_out: bool) -> None:
        if self._open:
            self._open = False
            self._watch._finished(timed_out)


class _WatchedTransport(httpx2.BaseTransport):
    def __init__(self, inner: httpx2.BaseTransport, watch: LlmWatch) -> None:
        self._inner = inner
        self._watch = watch

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self._watch._sent()
        try:
            response = self._inner.handle_request(request)
        except Exception as error:
            self._watch._finished(timed_out=isinstance(error, httpx2.TimeoutException))
            raise
        self._watch._received()  # the status line and headers
        response.stream = _WatchedStream(response.stream, self._watch)
        return response

    def close(self) -> None:
        self._inner.close()
