"""A client that hangs up cancels its request: the LLM stream is closed (so the backend aborts the generation),
the tool calls in flight are cancelled on their servers, and nothing is stored, since the user never saw the
reply. Real processes: the gateway, the scripted LLM and the tiny MCP server."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from tests.support.gateway_processes import TINY_SERVER, GatewayProcess

# 200 chunks: ten seconds of generation, in sentences (a streaming client is shown each once it has passed).
# (no clause said three times: a looping answer is stopped early, own_answer.py)
LONG_REPLY = {"content": " ".join(f"Part {number} goes on." for number in range(50)), "token_gap": 0.05}


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_cancel"), {"tiny": TINY_SERVER}, fake_llm.url)
    yield process
    process.stop()


def _send(gateway: GatewayProcess, user: str, body: dict) -> socket.socket:
    """A raw HTTP request, so the test decides when the connection closes."""
    payload = json.dumps(body).encode()
    connection = socket.create_connection(("127.0.0.1", gateway.port))
    connection.sendall(f"POST /chat/{user} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
    return connection


def _hang_up(connection: socket.socket) -> float:
    connection.close()
    return time.time()


def _wait_for(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def _assert_still_serving(gateway: GatewayProcess, fake_llm, user: str) -> None:
    fake_llm.script({"content": "Still here."})
    reply = gateway.chat(user, {"message": "hello", "use_tools": False})
    assert reply.status_code == 200 and reply.json()["response"] == "Still here."
    history = gateway.get(f"/chat/{user}/history").json()["messages"]
    assert [m["content"] for m in history] == ["hello", "Still here."]  # the cancelled turn left nothing


def _assert_llm_stream_closed(fake_llm, hung_up: float, within_s: float) -> None:
    """The one LLM stream was closed by the gateway within `within_s` of the hang-up, never read to its end."""
    _wait_for(lambda: fake_llm.closed_streams())
    (closed,) = fake_llm.closed_streams()
    assert closed - hung_up < within_s and fake_llm.finished_streams() == 0


def test_hanging_up_during_the_answer_aborts_the_llm_stream(gateway, fake_llm):
    fake_llm.script(LONG_REPLY)
    connection = _send(gateway, "hana", {"message": "Tell me a long story", "use_tools": False})
    time.sleep(1.0)
    hung_up = _hang_up(connection)
    _assert_llm_stream_closed(fake_llm, hung_up, within_s=1.0)
    _assert_still_serving(gateway, fake_llm, "hana")


def test_hanging_up_before_the_llm_answers_closes_its_stream_when_it_opens(gateway, fake_llm):
    """The server sends nothing until its prefill is done; the gateway does not wait for it, and closes the
    stream as soon as it opens."""
    fake_llm.script({**LONG_REPLY, "delay": 2.0})
    connection = _send(gateway, "ivan", {"message": "Tell me a long story", "use_tools": False})
    time.sleep(0.5)
    hung_up = _hang_up(connection)
    _assert_llm_stream_closed(fake_llm, hung_up, within_s=2.5)
    _assert_still_serving(gateway, fake_llm, "ivan")


def test_hanging_up_a_stream_aborts_the_llm_stream(gateway, fake_llm):
    fake_llm.script(LONG_REPLY)
    connection = _send(gateway, "jade", {"message": "Tell me a long story", "use_tools": False, "stream": True})
    received = b""
    while b"event: token" not in received:  # the answer is being written
        received += connection.recv(4096)
    hung_up = _hang_up(connection)
    _assert_llm_stream_closed(fake_llm, hung_up, within_s=1.0)
    _assert_still_serving(gateway, fake_llm, "jade")


def test_hanging_up_during_a_tool_call_cancels_it_on_its_server(gateway, fake_llm, tmp_path: Path):
    marker = tmp_path / "touched"
    # It changes something: a plain JSON request makes it only once allowed (else the call would never start).
    assert gateway.keep_rule("kurt", "tiny", "sleep_then_touch").status_code == 200
    fake_llm.script({"tool_calls": [{"name": "tiny__sleep_then_touch",
                                     "arguments": {"path": str(marker), "seconds": 3}}]},
                    {"content": "Done."})
    connection = _send(gateway, "kurt", {"message": "touch the file"})
    _wait_for(lambda: len(fake_llm.requests()) == 1)
    time.sleep(0.5)  # the call is on the tiny server now
    _hang_up(connection)
    time.sleep(4.0)  # past the tool's sleep: a call left running would have created the file
    assert not marker.exists()
    assert len(fake_llm.requests()) == 1  # no answer was written for a client that had gone
    _assert_still_serving(gateway, fake_llm, "kurt")
