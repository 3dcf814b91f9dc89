"""When a request's engine work must stop early: its client hung up, or its deadline passed.

Starlette notices a hang-up only when it next writes, and a non-streaming answer (or a stream still
in its prefill) writes nothing until the end, so a client that gave up would leave its request
running to `max_tokens`. `abort_when_gone` waits on the ASGI receive channel instead, which reports
`http.disconnect` as soon as the connection closes, and on the request's deadline: the optional
`X-Request-Timeout` header (seconds, as a client's own timeout), counted from arrival. Either way
the engine request is aborted, which frees its KV blocks before the next step.
"""
from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass
from typing import Any, Awaitable, TypeVar

from starlette.requests import Request

from llm_backend.server.errors import bad_request, deadline_exceeded

TIMEOUT_HEADER = "X-Request-Timeout"
T = TypeVar("T")


@dataclass(frozen=True)
class Deadline:
    timeout_s: float
    at: float  # time.monotonic()

    @classmethod
    def of(cls, request: Request) -> Deadline | None:
        """The request's deadline from its X-Request-Timeout header; None without one."""
        value = request.headers.get(TIMEOUT_HEADER)
        if value is None:
            return None
        try:
            timeout_s = float(value)
        except ValueError:
            timeout_s = math.nan
        if not (math.isfinite(timeout_s) and timeout_s > 0):
            raise bad_request(f"The X-Request-Timeout header must be a positive number of seconds, "
                              f"got {value!r}.", param="X-Request-Timeout")
        return cls(timeout_s, time.monotonic() + timeout_s)

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())


async def within(deadline: Deadline | None, work: Awaitable[T]) -> T:
    """`await work`, or a 504 once the deadline passes (work on a thread runs on, e.g. into a cache)."""
    if deadline is None:
        return await work
    try:
        return await asyncio.wait_for(work, deadline.remaining())
    except TimeoutError:
        raise deadline_exceeded(deadline.timeout_s) from None


async def abort_when_gone(request: Request, engine: Any, request_id: str, deadline: Deadline | None) -> str:
    """Abort `request_id` once the client disconnects ("disconnected") or the deadline passes ("deadline")."""
    try:
        async with asyncio.timeout(deadline.remaining() if deadline else None):
            while (await request.receive())["type"] != "http.disconnect":
                pass
        reason = "disconnected"
    except TimeoutError:
        reason = "deadline"
    await engine.abort(request_id)
    return reason
