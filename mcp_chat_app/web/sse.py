"""Server-sent events for `POST /chat/<user>` with `"stream": true` (format in docs/gateway.md)."""

from __future__ import annotations

import contextvars
import json
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response

Emit = Callable[[str, dict[str, Any]], None]


def format_event(event: str, data: dict[str, Any]) -> str:
    """One SSE frame: `event: <name>` and a single-line JSON `data:`."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def event_stream(work: Callable[[Emit], None], on_close: Callable[[], None]) -> Response:
    """Run `work(emit)` on a worker thread and stream what it emits; `work` must emit `done` or `error`.
    `on_close` runs when the stream ends before `work` does: the client went away."""
    events: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()

    def run() -> None:
        try:
            work(lambda event, data: events.put((event, data)))
        finally:
            events.put(None)

    def frames() -> Iterator[str]:
        finished = False
        try:
            while (item := events.get()) is not None:
                yield format_event(*item)
            finished = True
        finally:
            if not finished:  # the server closed the generator: writing to the client failed
                on_close()

    # In the request's context: what it set (the user whose cache salt LLM calls carry) holds in the worker too.
    threading.Thread(target=contextvars.copy_context().run, args=(run,), name="chat-stream", daemon=True).start()
    return Response(frames(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
