"""No request may starve the others: a running stream keeps its pace while another request is costly.

Two costs arrive with a request before its first token: compiling its grammar (seconds for a big
schema) and prefilling its prompt (seconds to minutes). The first ran on the event loop, which
serves every stream, so every stream froze for the whole compilation; it now runs on a worker thread.
The second shares each step with the running decodes: a chunk's size follows its attention cost, so
a late chunk of a long prompt makes a step no slower than the budget allows (the slow test measures
the worst gap; `tests/backend/test_scheduler.py` checks the rule itself).
"""
from __future__ import annotations

import time

import pytest

from bench.backend_isolation import Stream, chat, worst_gap_during
from tests.support.backend_server import TEST_THREADS, running_server

MODEL = "smollm2-135m-instruct"
# 12,000 enum values: xgrammar takes ~3-4 s to compile it on this machine; the JSON body is ~250 KB.
BIG_SCHEMA = {"type": "json_schema", "json_schema": {"name": "city", "schema": {
    "type": "object", "properties": {"city": {"enum": [f"city number {i}" for i in range(12_000)]}},
    "required": ["city"]}}}


@pytest.fixture(scope="module")
def base_url():
    with running_server(MODEL, "--kv-cache-memory", "128MiB", "--max-model-len", "4096", threads=TEST_THREADS) as url:
        yield url


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
    # Compiled on the engine's loop, the grammar would hold the stream for all of it; off the loop, the stream
    # only shares the CPU with it (a slow 2-core CPU: gaps of ~0.9 s while the compile takes ~4 s).
    assert gap < first / 3, f"the stream waited {gap:.2f} s for a token while a grammar compiled for {first:.2f} s"
    assert again < first / 3  # the compiled grammar came from the cache


@pytest.mark.slow
def test_a_long_prefill_keeps_a_running_streams_gaps_within_the_budget(base_url):
    """The worst inter-token gap of a stream while a ~3,500-token prompt arrives, against the gap a
    single full-budget chunk (512 tokens, no context before it) causes."""
    stream = Stream(base_url)
    try:
        # Distinct ~500-token prompts: one chunk each, no cache hits.
        budget_gap = max(worst_gap_during(base_url, stream, f"{i} " + "word " * 480)[0] for i in range(3))
        long_gap, took = worst_gap_during(base_url, stream, "long " + "word " * 3500)
    finally:
        stream.close()
    print(f"\nworst gap: {long_gap:.3f} s during a 3.5k-token prefill of {took:.1f} s; "
          f"{budget_gap:.3f} s for one full-budget chunk")
    assert long_gap < 2.0 * budget_gap
