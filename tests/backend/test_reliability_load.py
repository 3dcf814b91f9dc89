"""Concurrent streams and disconnecting clients against a real backend with a tight KV pool.

The pool (~22 blocks) is far smaller than the streams need at once, so requests queue and are
preempted. While the load runs, `/metrics` and the between-steps audit at `/debug/kv_cache`
are sampled: the pool must never be over-committed (every block's ref count equals the
block-table entries naming it) and, once idle, every block is free or a ref-0 cached prefix.
"""
from __future__ import annotations

import asyncio
import re
import time

import httpx
import pytest

from bench.backend_load import MODEL, SERVER_ARGS, metric, run_load
from tests.support.backend_server import TEST_THREADS, running_server


@pytest.fixture(scope="module")
def base_url():
    with running_server(MODEL, *SERVER_ARGS, threads=TEST_THREADS) as url:
        yield url


def kv_report(base_url: str) -> dict:
    return httpx.get(f"{base_url}/debug/kv_cache", timeout=30).json()


def wait_until_idle(base_url: str, timeout_s: float = 30) -> dict:
    """The audit once no request runs or waits (disconnects are noticed at the next token)."""
    deadline = time.monotonic() + timeout_s
    while True:
        text = httpx.get(f"{base_url}/metrics", timeout=30).text
        idle = metric(text, "num_requests_running") == 0 and metric(text, "num_requests_waiting") == 0
        if idle or time.monotonic() > deadline:
            return kv_report(base_url)
        time.sleep(0.05)


def outcomes(base_url: str, endpoint: str) -> dict[str, int]:
    """Requests to `endpoint` by outcome (completed, aborted, error_400, ...) so far."""
    text = httpx.get(f"{base_url}/metrics", timeout=30).text
    pattern = rf'^llm_backend_requests_total{{[^}}]*endpoint="{endpoint}",outcome="(\w+)"}} (\d+)$'
    return {outcome: int(count) for outcome, count in re.findall(pattern, text, re.M)}


def outcome_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {key: after[key] - before.get(key, 0) for key in after if after[key] != before.get(key, 0)}


def assert_pool_intact(report: dict) -> None:
    assert report["problems"] == []
    assert report["in_use"] == 0 and report["free"] + report["cached"] == report["total"]
    assert report["peak_in_use"] <= report["total"]


def check_load(base_url: str, streams: int) -> None:
    result = asyncio.run(run_load(base_url, streams, max_tokens=24))
    failures = [s.error for s in result.streams if not s.ok]
    assert failures == [] and result.completed == streams
    assert result.samples > 3 and result.audit_problems == []
    assert result.max_used_blocks <= result.peak_used_blocks <= result.total_blocks
    assert result.preemptions > 0, "the pool was not tight: the load proved nothing about over-commit"
    assert_pool_intact(result.final_report)


def test_16_concurrent_streams_complete_and_leave_the_pool_intact(base_url):
    check_load(base_url, 16)


@pytest.mark.slow
def test_64_concurrent_streams_complete_and_leave_the_pool_intact(base_url):
    check_load(base_url, 64)


def stream_then_hang_up(base_url: str, body: dict, lines_to_read: int) -> None:
    """Read a few SSE lines of a streaming request, then close the connection."""
    with httpx.stream("POST", f"{base_url}{body.pop('path')}", json=body, timeout=60) as response:
        assert response.status_code == 200, response.read()
        for i, _ in enumerate(response.iter_lines()):
            if i == lines_to_read:
                assert kv_report(base_url)["in_use"] > 0  # alive and holding blocks
                break


@pytest.mark.parametrize("body", [
    # n=3: three choices share the prompt's blocks after one prefill (copy on write).
    {"path": "/v1/completions", "prompt": "Once upon a time", "n": 3, "temperature": 1.0,
     "max_tokens": 200, "ignore_eos": True, "stream": True},
    # The chat path, with per-token logprobs, on two forked choices.
    {"path": "/v1/chat/completions", "messages": [{"role": "user", "content": "Tell me a story."}],
     "n": 2, "logprobs": True, "top_logprobs": 2, "max_tokens": 150, "ignore_eos": True,
     "stream": True},
], ids=["completions-n3", "chat-n2-logprobs"])
def test_disconnect_mid_stream_frees_every_block(base_url, body):
    endpoint = body["path"]
    before = outcomes(base_url, endpoint)
    stream_then_hang_up(base_url, {"model": MODEL, **body}, lines_to_read=4)
    assert_pool_intact(wait_until_idle(base_url))
    assert outcome_delta(before, outcomes(base_url, endpoint)) == {"aborted": 1}


def test_disconnect_while_queued_frees_every_block(base_url):
    """A client that gives up before its first token: its request must not outlive it."""
    hog = {"model": MODEL, "prompt": "Count: 1, 2, 3,", "max_tokens": 150, "ignore_eos": True,
           "stream": True}

    async def scenario() -> None:
        async with httpx.AsyncClient(timeout=60) as client:
            # 16 long streams fill the batch, so the 17th request waits in the queue.
            hogs = [asyncio.create_task(_read_all(client, base_url, hog)) for _ in range(16)]
            await asyncio.sleep(1.0)
            with pytest.raises(httpx.ReadTimeout):  # gives up while queued: closes the socket
                await client.post(f"{base_url}/v1/completions", timeout=httpx.Timeout(60, read=0.5),
                                  json={**hog, "max_tokens": 200})
            for task in hogs:
                task.cancel()
            await asyncio.gather(*hogs, return_exceptions=True)

    before = outcomes(base_url, "/v1/completions")
    asyncio.run(scenario())
    assert_pool_intact(wait_until_idle(base_url))
    assert outcome_delta(before, outcomes(base_url, "/v1/completions")) == {"aborted": 17}


async def _read_all(client: httpx.AsyncClient, base_url: str, body: dict) -> None:
    async with client.stream("POST", f"{base_url}/v1/completions", json=body) as response:
        async for _ in response.aiter_lines():
            pass
