"""With no LLM listening chat answers 503, with a slow one 504, with a garbled one 502: always a clear
JSON error, nothing stored, and the gateway serves the next request."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.support.gateway_processes import GatewayProcess
from tests.support.processes import free_port


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


@pytest.fixture(scope="module")
def impatient_gateway(fake_llm, tmp_path_factory):
    work_dir = tmp_path_factory.mktemp("gateway_llm_slow")
    models = work_dir / "models.json"
    models.write_text(json.dumps({"profiles": {"local": {
        "base_url": f"{fake_llm.url}/v1", "model": "fake-model", "timeout_s": 1}}}))
    process = GatewayProcess(work_dir, {}, fake_llm.url, MCP_CHAT_MODELS_CONFIG=str(models), MCP_CHAT_PROFILE="local")
    yield process
    process.stop()


def test_a_slow_llm_is_a_504_and_a_garbled_one_a_502(impatient_gateway, fake_llm):
    for reply, status, code in (({"delay": 3, "content": "too late"}, 504, "llm_timeout"),
                                ({"raw": "<html>upstream error</html>"}, 502, "llm_bad_response"),
                                ({"raw": '{"choices": []}'}, 502, "llm_bad_response")):
        fake_llm.script(reply)
        answer = impatient_gateway.chat("gina", {"message": "hello", "use_tools": False})
        assert answer.status_code == status and answer.json()["error"]["code"] == code
    fake_llm.script({"delay": 3, "content": "too late"})
    streamed = httpx.post(f"{impatient_gateway.url}/chat/gina", json={"message": "hi", "stream": True,
                                                                      "use_tools": False}, timeout=30)
    last = [frame for frame in streamed.text.split("\n\n") if frame][-1]
    assert last.startswith("event: error") and json.loads(last.split("data: ", 1)[1])["status"] == 504
    assert impatient_gateway.get("/chat/gina/history").json()["messages"] == []
    fake_llm.script({"content": "Back to normal."})
    assert impatient_gateway.chat("gina", {"message": "hello", "use_tools": False}).json()["response"] == \
        "Back to normal."
