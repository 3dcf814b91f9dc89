"""No request may starve the others: a running stream keeps its pace while another request is costly.

Two costs arrive with a request before its first token: compiling its grammar (seconds for a big
schema) and prefilling its prompt (seconds to minutes). The first ran on the event loop, which
serves every stream, so every stream froze for the whole compilation; it now runs on a worker thread.
The second shares each step with the running decodes: a chunk's size follows its attention cost, so
a late chunk of a long prompt makes a step no slower than the budget allows (the slow test measures
the worst gap; `tests/backend/test_scheduler.py` checks the rule itself).
"""
from __future__ import annotations

import threading
import time

import httpx
import pytest

from llm_backend.server.process import running_server

MODEL = "smollm2-135m-instruct"
# 12,000 enum values: xgrammar takes ~3-4 s to compile it on this machine; the JSON body is ~250 KB.
BIG_SCHEMA = {"type": "json_schema", "json_schema": {"name": "city", "schema": {
    "type": "object", "properties": {"city": {"enum": [f"city number {i}" for i in range(12_000)]}},
    "required": ["city"]}}}


@pytest.fixture(scope="module")
def base_url():
    with running_server(MODEL, "--kv-cache-memory", "128MiB", "--max-model-len", "4096") as url:
        yield url


class Stream:
    """A long greedy completion read in the background: when each of its tokens arrived."""

    def __init__(self, base_url: str) -> None:
        self.arrivals: list[float] = []
        self._stop = threading.Event()
        body = {"model": MODEL, "prompt": "Once upon a time", "max_tokens": 4000, "ignore_eos": True,
                "stream": True, "temperature": 0}
        self._thread = threading.Thread(target=self._read, args=(f"{base_url}/v1/completions", body))
        self._thread.start()
        while len(self.arrivals) < 5:
            time.sleep(0.01)

    def _read(self, url: str, body: dict) -> None:
        with httpx.stream("POST", url, json=body, timeout=120) as response:
            for line in response.iter_lines():
                if line.startswith("data: "):
                    self.arrivals.append(time.monotonic())
                if self._stop.is_set():
                    return

    def worst_gap(self, start: float, end: float) -> float:
        """The longest wait for a token between `start` and `end` (a token still awaited at `end` counts)."""
        times = [start] + [t for t in self.arrivals if start < t < end] + [min(end, time.monotonic())]
        return max(b - a for a, b in zip(times, times[1:]))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def chat(base_url: str, **extra) -> float:
    """Seconds one chat completion takes."""
    started = time.monotonic()
    body = {"model": MODEL, "messages": [{"role": "user", "content": "Which city?"}], "max_tokens": 1, **extra}
    response = httpx.post(f"{base_url}/v1/chat/completions", json=body, timeout=120)
    assert response.status_code == 200, response.text
    return time.monotonic() - started


def test_a_grammar_compiling_does_not_stall_a_running_stream_and_compiles_once(base_url):
    stream = Stream(base_url)
    try:
        started = time.monotonic()
        first = chat(base_url, response_format=BIG_SCHEMA)
        gap = stream.worst_gap(started, started + first)
        again = chat(base_url, response_format=BIG_SCHEMA)
    finally:
        stream.close()
    assert first > 1.5, "the schema compiled too fast to show anything"
    assert gap < 0.75, f"the stream waited {gap:.2f} s for a token while a grammar compiled for {first:.2f} s"
    assert again < first / 3  # the compiled grammar came from the cache


@pytest.mark.slow
def test_a_long_prefill_keeps_a_running_streams_gaps_within_the_budget(base_url):
    """The worst inter-token gap of a stream while a ~3,500-token prompt arrives, against the gap a
    single full-budget chunk (512 tokens, no context before it) causes."""
    stream = Stream(base_url)
    try:
        budget_gaps = []
        for i in range(3):  # distinct ~500-token prompts: one chunk each, no cache hits
            started = time.monotonic()
            took = chat(base_url, messages=[{"role": "user", "content": f"{i} " + "word " * 480}])
            budget_gaps.append(stream.worst_gap(started, started + took))
        started = time.monotonic()
        took = chat(base_url, messages=[{"role": "user", "content": "long " + "word " * 3500}])
        long_gap = stream.worst_gap(started, started + took)
    finally:
        stream.close()
    budget_gap = max(budget_gaps)
    print(f"\nworst gap: {long_gap:.3f} s during a 3.5k-token prefill of {took:.1f} s; "
          f"{budget_gap:.3f} s for one full-budget chunk")
    assert long_gap < 2.0 * budget_gap
