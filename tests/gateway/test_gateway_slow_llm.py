"""A slow LLM is not a stalled one: against an endpoint that reports its prefill (`prefill_progress`), `timeout_s`
is the longest silence, so a prompt read slowly for longer than that still answers, a streaming client sees the
reading as `prefill` events, and only an endpoint that goes silent gets a 504. An endpoint without the flag is
called as before: no progress asked for, and the deadline in `X-Request-Timeout`."""

from __future__ import annotations

import time

import pytest

from tests.support.gateway_processes import GatewayProcess

TIMEOUT_S = 1.5
# Six chunks of 0.5 s: 3 s in all, twice the timeout, yet never 1.5 s without a byte.
SLOW_PREFILL = {"total": 3000, "chunk_s": [0.5] * 6}


@pytest.fixture(scope="module")
def reporting_gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_reporting_llm"), {}, fake_llm.url,
                             profile={"timeout_s": TIMEOUT_S, "prefill_progress": True})
    yield process
    process.stop()


@pytest.fixture(scope="module")
def plain_gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_plain_llm"), {}, fake_llm.url,
                             profile={"timeout_s": TIMEOUT_S})
    yield process
    process.stop()


def test_a_json_caller_gets_the_answer_of_a_prefill_longer_than_the_timeout(reporting_gateway, fake_llm):
    fake_llm.script({"prefill": SLOW_PREFILL, "content": "Slow but sure."})
    started = time.monotonic()
    reply = reporting_gateway.chat("ivan", {"message": "hello", "use_tools": False})
    assert reply.status_code == 200, reply.text
    assert reply.json()["response"] == "Slow but sure."
    assert time.monotonic() - started > 2 * TIMEOUT_S
    # Streamed with progress reports, and no deadline for the whole call.
    [request] = fake_llm.requests()
    assert request["stream"] is True and request["stream_options"] == {"include_progress": True}
    assert fake_llm.headers()[0]["x-request-timeout"] is None


def test_a_stalled_prefill_is_a_504_within_about_the_timeout(reporting_gateway, fake_llm):
    fake_llm.script({"prefill": {"total": 3000, "chunk_s": [0.2, 30]}, "content": "never"})
    started = time.monotonic()
    reply = reporting_gateway.chat("leo", {"message": "hello", "use_tools": False})
    elapsed = time.monotonic() - started
    assert reply.status_code == 504 and reply.json()["error"]["code"] == "llm_timeout"
    assert "stalled" in reply.json()["error"]["message"]
    assert TIMEOUT_S < elapsed < TIMEOUT_S + 5
    assert fake_llm.closed_streams()  # the gateway hung up, so the backend stops reading the prompt
    assert reporting_gateway.get("/chat/leo/history").json()["messages"] == []


def test_a_streaming_client_sees_the_prefill_then_the_answer(reporting_gateway, fake_llm):
    fake_llm.script({"prefill": SLOW_PREFILL, "content": "Read it all."})
    events = reporting_gateway.stream_chat("judy", {"message": "hello", "use_tools": False})
    names = [event for event, _ in events]
    prefill = [data for event, data in events if event == "prefill"]
    assert prefill == [{"done": 500 * n, "total": 3000} for n in range(1, 7)]
    assert names.index("token") > max(index for index, name in enumerate(names) if name == "prefill")
    assert names[-1] == "done" and events[-1][1]["response"] == "Read it all."


def test_an_endpoint_without_progress_reports_is_called_as_before(plain_gateway, fake_llm):
    fake_llm.script({"content": "Quick."}, {"delay": 3, "content": "too late"})
    assert plain_gateway.chat("kate", {"message": "hello", "use_tools": False}).json()["response"] == "Quick."
    [request] = fake_llm.requests()
    assert "stream_options" not in request
    assert fake_llm.headers()[0]["x-request-timeout"] == f"{TIMEOUT_S:g}"
    # A reply that takes longer than the timeout to begin is a 504.
    late = plain_gateway.chat("kate", {"message": "hello", "use_tools": False})
    assert late.status_code == 504 and late.json()["error"]["code"] == "llm_timeout"
