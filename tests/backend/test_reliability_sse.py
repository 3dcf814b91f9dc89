"""A stream that fails after its 200 went out ends with an OpenAI-style error event, not a cut."""
from __future__ import annotations

import asyncio
import json

from llm_backend.server import sse


async def collect(events) -> list[str]:
    return [item async for item in events]


def test_a_failure_mid_stream_becomes_a_final_error_event():
    async def failing():
        yield sse.event({"choices": [{"delta": {"content": "Hel"}}]})
        raise RuntimeError("engine step failed: out of memory")

    items = asyncio.run(collect(sse.ending_in_an_error_event(failing())))
    assert items[0].startswith("data: ") and len(items) == 2
    error = json.loads(items[1].removeprefix("data: "))["error"]
    assert error["type"] == "server_error" and "engine step failed: out of memory" in error["message"]


def test_a_stream_that_ends_normally_is_passed_through_unchanged():
    async def fine():
        yield sse.event({"x": 1})
        yield sse.DONE

    assert asyncio.run(collect(sse.ending_in_an_error_event(fine()))) == [sse.event({"x": 1}), sse.DONE]
