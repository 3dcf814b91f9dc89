"""A request whose client has gone, or whose deadline has passed, stops costing the engine anything.

The gateway's openai client gives up after its profile's `timeout_s`; before, the backend went on
generating for nobody (a non-streaming request ran to max_tokens, a stream in its prefill ran until
its first token). Each test hangs up (or lets the deadline pass) while the request is busy, then
measures how long the backend takes to abort it: no request running, every KV block back in the
pool, as the between-steps audit sees it.
"""
from __future__ import annotations

import json
import time

import httpx
import openai
import pytest

from bench.backend_load import metric
from test_reliability_load import assert_pool_intact, kv_report, outcome_delta, outcomes
from tests.support.backend_server import TEST_THREADS, running_server

MODEL = "smollm2-135m-instruct"
# An abort waits for the step under way; the server sizes a step with a prefill chunk to CHUNK_SECONDS on any
# CPU (the first, unmeasured chunk is smaller), and a decode step is far shorter.
CHUNK_SECONDS = 0.5
ABORT_WITHIN_S = 4 * CHUNK_SECONDS
STORY = {"model": MODEL, "messages": [{"role": "user", "content": "Tell me a long story."}],
         "max_tokens": 1500, "ignore_eos": True}


@pytest.fixture(scope="module")
def base_url():
    with running_server(MODEL, "--kv-cache-memory", "128MiB", "--max-model-len", "4096",
                        "--chunk-seconds", str(CHUNK_SECONDS), "--debug-endpoints", threads=TEST_THREADS) as url:
        yield url


def sdk(body: dict) -> dict:
    """`body` as openai SDK arguments (vLLM-style extensions go in extra_body)."""
    return {**{k: v for k, v in body.items() if k != "ignore_eos"}, "extra_body": {"ignore_eos": True}}


def seconds_until_idle(base_url: str, since: float, timeout_s: float = 30) -> float:
    """Seconds from `since` until nothing runs or waits and no KV block is in use."""
    while time.monotonic() - since < timeout_s:
        text = httpx.get(f"{base_url}/metrics").text
        if metric(text, "num_requests_running") == metric(text, "kv_cache_blocks_used") == 0:
            return time.monotonic() - since
        time.sleep(0.02)
    return float("inf")




def test_a_non_streaming_client_that_times_out_aborts_its_request(base_url):
    before = outcomes(base_url, "/v1/chat/completions")
    client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0, timeout=1.0)
    with pytest.raises(openai.APITimeoutError):  # as the gateway's client, with its timeout_s
        client.chat.completions.create(**sdk(STORY))
    gave_up = time.monotonic()
    assert seconds_until_idle(base_url, gave_up) < ABORT_WITHIN_S
    assert_pool_intact(kv_report(base_url))
    assert outcome_delta(before, outcomes(base_url, "/v1/chat/completions")) == {"aborted": 1}


def test_a_stream_closed_during_its_prefill_is_aborted_before_its_first_token(base_url):
    # ~3,600 prompt tokens: SmolLM2 takes several seconds to prefill them.
    body = {**STORY, "max_tokens": 100, "stream": True, "messages": [{"role": "user", "content": "word " * 3600}]}
    before = outcomes(base_url, "/v1/chat/completions")
    with pytest.raises(httpx.ReadTimeout):  # no byte comes during the prefill
        with httpx.stream("POST", f"{base_url}/v1/chat/completions", json=body,
                          timeout=httpx.Timeout(30, read=1.0)) as response:
            response.read()
    gave_up = time.monotonic()
    assert seconds_until_idle(base_url, gave_up) < ABORT_WITHIN_S
    assert_pool_intact(kv_report(base_url))
    assert outcome_delta(before, outcomes(base_url, "/v1/chat/completions")) == {"aborted": 1}


def test_a_request_past_its_timeout_header_is_aborted_with_a_504(base_url):
    started = time.monotonic()
    response = httpx.post(f"{base_url}/v1/chat/completions", json=STORY, timeout=30,
                          headers={"X-Request-Timeout": "1"})
    assert response.status_code == 504 and response.json()["error"]["code"] == "request_timeout"
    assert time.monotonic() - started < 1 + ABORT_WITHIN_S
    assert seconds_until_idle(base_url, time.monotonic()) < ABORT_WITHIN_S
    assert_pool_intact(kv_report(base_url))


def test_a_stream_past_its_timeout_header_ends_with_an_error_event(base_url):
    with httpx.stream("POST", f"{base_url}/v1/chat/completions", json={**STORY, "stream": True}, timeout=30,
                      headers={"X-Request-Timeout": "1"}) as response:
        events = [line.removeprefix("data: ") for line in response.iter_lines() if line.startswith("data: ")]
    assert len(events) > 3  # tokens came, then the deadline
    assert json.loads(events[-1])["error"]["code"] == "request_timeout"
    assert seconds_until_idle(base_url, time.monotonic()) < ABORT_WITHIN_S
    with pytest.raises(openai.APIError, match="X-Request-Timeout"):  # what the SDK makes of it
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        for _ in client.chat.completions.create(**sdk(STORY), stream=True,
                                                extra_headers={"X-Request-Timeout": "1"}):
            pass


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_malformed_timeout_header_is_a_400(base_url, value):
    response = httpx.post(f"{base_url}/v1/completions", headers={"X-Request-Timeout": value},
                          json={"model": MODEL, "prompt": "Hi", "max_tokens": 2})
    assert response.status_code == 400 and response.json()["error"]["param"] == "X-Request-Timeout"
