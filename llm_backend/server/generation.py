"""Running one request through the engine, with timing and clean cancellation.

The engine's iterator aborts its request when closed; `aclosing` guarantees that close on
every exit path (client disconnect, error, normal end), which is what frees the KV blocks.
"""
from __future__ import annotations

import time
from contextlib import aclosing
from typing import Any, AsyncIterator, Callable

from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.server.errors import bad_request
from llm_backend.server.state import ServerState


async def run_request(state: ServerState, endpoint: str, request_id: str, prompt_ids: list[int],
                      params: SamplingParams, constraint_factory: Callable | None
                      ) -> AsyncIterator[Any]:
    """Yield the engine's RequestOutputs, recording TTFT, generated tokens and the outcome."""
    started = time.monotonic()
    first_token_seen = False
    outcome = "aborted"
    try:
        async with aclosing(state.engine.generate(request_id, prompt_ids, params,
                                                  constraint_factory)) as outputs:
            async for output in outputs:
                if output.new_token_ids and not first_token_seen:
                    first_token_seen = True
                    state.metrics.record_ttft(time.monotonic() - started)
                state.metrics.record_generated(len(output.new_token_ids))
                yield output
        outcome = "completed"
    finally:
        state.metrics.record_request(endpoint, outcome)


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
