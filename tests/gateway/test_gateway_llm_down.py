"""With no LLM listening, chat answers 503 with a clear JSON error and nothing is stored."""

from __future__ import annotations

import json

import httpx
import pytest

from .gateway_processes import GatewayProcess, free_port


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    dead_llm = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_llm_down"), {}, dead_llm)
    yield process
    process.stop()


def test_chat_is_503_with_a_json_error(gateway):
    for use_tools in (True, False):
        reply = gateway.chat("frank", {"message": "北京今天天气怎么样？", "use_tools": use_tools})
        assert reply.status_code == 503
        error = reply.json()["error"]
        assert error["code"] == "llm_unavailable" and "unavailable" in error["message"]
    assert gateway.get("/chat/frank/history").json()["messages"] == []


def test_stream_ends_with_an_error_event(gateway):
    reply = httpx.post(f"{gateway.url}/chat/frank", json={"message": "hi", "stream": True}, timeout=30)
    last = [frame for frame in reply.text.split("\n\n") if frame][-1]
    assert last.startswith("event: error")
    assert json.loads(last.split("data: ", 1)[1])["status"] == 503


def test_health_reports_the_llm_down_and_validation_still_works(gateway):
    health = gateway.get("/health").json()
    assert health["status"] == "degraded" and not health["llm"][0]["reachable"]
    assert gateway.chat("frank", {"nothing": 1}).status_code == 400
