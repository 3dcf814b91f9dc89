"""Running one request through the engine, with timing and clean cancellation.

The engine's iterator aborts its request when closed; `aclosing` guarantees that close on
every exit path (error, normal end), which is what frees the KV blocks. A client that hangs up
or a deadline that passes aborts the request from the side (`lifetime.abort_when_gone`), even
while nothing is being written to the client.
"""
from __future__ import annotations

import asyncio
import time
from contextlib import aclosing
from typing import Any, AsyncIterator, Callable

from starlette.requests import ClientDisconnect, Request

from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.engine.sequence import CacheScope
from llm_backend.server.errors import bad_request, deadline_exceeded
from llm_backend.server.lifetime import Deadline, abort_when_gone
from llm_backend.server.state import ServerState


async def run_request(state: ServerState, http_request: Request, endpoint: str, request_id: str,
                      prompt_ids: list[int], params: SamplingParams, constraint_factory: Callable | None,
                      cache_scope: CacheScope, deadline: Deadline | None) -> AsyncIterator[Any]:
    """Yield the engine's RequestOutputs, recording TTFT, generated tokens and the outcome.

    Ends with ClientDisconnect when the client went away, a 504 when the deadline passed."""
    started = time.monotonic()
    first_token_seen = False
    finished = 0
    watch = asyncio.create_task(abort_when_gone(http_request, state.engine, request_id, deadline))
    try:
        async with aclosing(state.engine.generate(request_id, prompt_ids, params, constraint_factory,
                                                  cache_scope)) as outputs:
            async for output in outputs:
                if output.new_token_ids and not first_token_seen:
                    first_token_seen = True
                    state.metrics.record_ttft(time.monotonic() - started)
                state.metrics.record_generated(len(output.new_token_ids))
                finished += output.finished
                yield output
        if finished < params.n:  # aborted from the side
            if watch.done() and watch.result() == "deadline":
                raise deadline_exceeded(deadline.timeout_s)
            raise ClientDisconnect()
    finally:
        watch.cancel()
        state.metrics.record_request(endpoint, "completed" if finished == params.n else "aborted")


async def first_output(outputs: AsyncIterator[Any]) -> Any:
    """The first output, turning the engine's refusal of a request into a 400."""
    try:
        return await anext(outputs)
    except ValueError as exc:
        raise bad_request(str(exc)) from exc


async def chain(first: Any, rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """`first` (already taken by `first_output`) followed by the rest of the outputs."""
    yield first
    async for output in rest:
        yield output
