"""AsyncLLMEngine: streaming from the loop thread, concurrency, cancellation freeing blocks."""
from __future__ import annotations

import asyncio
import time

import pytest

from engine_helpers import CHAT_PROMPTS, assert_all_blocks_free, chat_prompt_ids
from llm_backend.config import EngineConfig
from llm_backend.engine.async_engine import AsyncLLMEngine
from llm_backend.engine.sampling_params import SamplingParams


@pytest.fixture
def async_engine(smollm_checkpoint):
    engine = AsyncLLMEngine(EngineConfig(dtype="float32", kv_cache_memory="32MiB"), smollm_checkpoint)
    engine.start()
    yield engine
    engine.shutdown()
    assert_all_blocks_free(engine.engine)


async def collect(engine, request_id, prompt, params):
    return [out async for out in engine.generate(request_id, prompt, params)]


async def wait_until_idle(engine: AsyncLLMEngine, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stats = engine.stats()
        if stats.kv_blocks_used == 0 and stats.num_running == stats.num_waiting == 0:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"engine still busy: {engine.stats()}")


def test_concurrent_streams_match_offline_generation(async_engine):
    tokenizer = async_engine.tokenizer
    prompts = [chat_prompt_ids(tokenizer, q) for q in CHAT_PROMPTS[:3]]
    params = SamplingParams(max_tokens=8, temperature=0, ignore_eos=True)

    async def main():
        return await asyncio.gather(*(collect(async_engine, f"r{i}", p, params) for i, p in enumerate(prompts)))

    streams = asyncio.run(main())
    for outputs in streams:
        # A step may bring several tokens (accepted speculative drafts), all in one output.
        assert sum(len(o.new_token_ids) for o in outputs) == 8
        assert outputs[-1].finished and not any(o.finished for o in outputs[:-1])
    async_engine.shutdown()  # the loop thread must not step while we use the engine directly
    expected = async_engine.engine.generate(prompts, params)
    assert ["".join(o.new_text for o in outputs) for outputs in streams] == [c.text for c in expected]


def test_closing_the_stream_aborts_and_frees_blocks(async_engine):
    prompt = chat_prompt_ids(async_engine.tokenizer, CHAT_PROMPTS[0])

    async def main():
        stream = async_engine.generate("long", prompt, SamplingParams(max_tokens=500, ignore_eos=True))
        async for out in stream:
            if out.completion_tokens == 2:
                break
        await stream.aclose()
        await wait_until_idle(async_engine)

    asyncio.run(main())


def test_cancelled_task_and_abort_end_the_request(async_engine):
    prompt = chat_prompt_ids(async_engine.tokenizer, CHAT_PROMPTS[0])
    params = SamplingParams(max_tokens=500, ignore_eos=True)

    async def main():
        task = asyncio.create_task(collect(async_engine, "cancel-me", prompt, params))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await wait_until_idle(async_engine)
        aborted = asyncio.create_task(collect(async_engine, "abort-me", prompt, params))
        await asyncio.sleep(0.3)
        await async_engine.abort("abort-me")
        outputs = await aborted
        assert len(outputs) < 500
        await wait_until_idle(async_engine)

    asyncio.run(main())


def test_bad_request_raises_and_the_engine_keeps_serving(async_engine):
    prompt = chat_prompt_ids(async_engine.tokenizer, CHAT_PROMPTS[4])

    async def main():
        with pytest.raises(ValueError, match="context"):
            await collect(async_engine, "too-long", [1] * async_engine.max_model_len, SamplingParams())
        return await collect(async_engine, "ok", prompt, SamplingParams(max_tokens=2))

    assert asyncio.run(main())[-1].finished
