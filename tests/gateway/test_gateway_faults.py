"""MCP servers that crash, hang, speak garbage or break their own output schema: each call gets a clear error
within its timeout, the other calls of a turn go on, the gateway keeps serving, and a crashed server is restarted
for the next call. An HTTP server down
at start-up is picked up later; a gateway killed mid-request loses no stored history."""

from __future__ import annotations

import os
import subprocess
import threading
import time

import httpx
import pytest

from mcp_chat_app.mcp_client.manager import McpManager, ToolRequest
from mcp_chat_app.mcp_client.registry import parse_server_spec
from mcp_chat_app.mcp_client.results import ToolOutcome

from tests.support.gateway_processes import HERE, TINY_SERVER, GatewayProcess, free_port, start_tiny_http, stop

MISBEHAVING = str(HERE / "misbehaving_server.py")


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    entries = {
        "tiny": {**TINY_SERVER, "timeout": 5},
        "mute": {"command": "python", "args": [MISBEHAVING, "mute"], "timeout": 1},
        "garbage": {"command": "python", "args": [MISBEHAVING, "garbage"], "timeout": 1},
    }
    mcp = McpManager({name: parse_server_spec(name, entry) for name, entry in entries.items()},
                     tmp_path_factory.mktemp("logs"), health_interval_s=1)
    mcp.start(wait_s=3)  # the two broken servers never finish a handshake: don't wait the full 20 s
    yield mcp
    mcp.close()


def _tiny_pid() -> int:
    children = subprocess.run(["pgrep", "-f", "-P", str(os.getpid()), "tiny_mcp_server"],
                              capture_output=True, text=True).stdout.split()
    (pid,) = children
    return int(pid)


def _status(manager: McpManager, name: str) -> dict:
    return next(row for row in manager.status() if row["name"] == name)


def test_a_tool_that_kills_its_server_gets_a_clear_error_and_the_next_call_succeeds(manager):
    restarts = _status(manager, "tiny")["restarts"]
    started = time.monotonic()
    (crashed,) = manager.call_tools([ToolRequest("tiny", "crash", {})])
    assert crashed.is_error and "dropped the connection" in crashed.text
    assert time.monotonic() - started < 15
    (after,) = manager.call_tools([ToolRequest("tiny", "echo", {"text": "back again"})])
    assert not after.is_error and after.text == "back again"
    assert _status(manager, "tiny")["restarts"] > restarts


def _call_while_killing_tiny(manager: McpManager, request: ToolRequest) -> tuple[ToolOutcome, int]:
    """Run `request` (a 2 s call) and SIGKILL the tiny server half a second into it; returns the outcome and the
    killed pid."""
    manager.call_tools([ToolRequest("tiny", "echo", {"text": "warm"})])
    pid = _tiny_pid()
    killer = threading.Timer(0.5, subprocess.run, (["kill", "-9", str(pid)],))
    killer.start()
    (result,) = manager.call_tools([request])
    killer.join()
    return result, pid


def test_a_server_killed_during_a_call_is_restarted_and_the_call_retried(manager):
    request = ToolRequest("tiny", "sleep_then_echo", {"text": "survived", "seconds": 2})
    result, pid = _call_while_killing_tiny(manager, request)
    # Read-only tools are safe to repeat: the call ran again on the restarted server.
    assert not result.is_error and result.text == "survived"
    assert _tiny_pid() != pid


def test_a_tool_with_effects_killed_mid_call_gets_a_clear_error_and_the_next_call_succeeds(manager):
    request = ToolRequest("tiny", "sleep_then_record", {"text": "order", "seconds": 2})
    result, pid = _call_while_killing_tiny(manager, request)
    # Not declared read-only or idempotent: it may have had its effect, so it is not run twice.
    assert result.is_error and "dropped the connection" in result.text
    (after,) = manager.call_tools([ToolRequest("tiny", "sleep_then_record", {"text": "again", "seconds": 0})])
    assert not after.is_error and after.text == "recorded again" and _tiny_pid() != pid


def test_a_server_that_never_answers_times_out_and_others_keep_working(manager):
    started = time.monotonic()
    mute, tiny = manager.call_tools([ToolRequest("mute", "anything", {}), ToolRequest("tiny", "add", {"a": 1, "b": 2})])
    assert mute.is_error and "'mute' is not connected" in mute.text
    assert time.monotonic() - started < 3  # its 1 s timeout, not the 30 s handshake limit
    assert not tiny.is_error and '"sum": 3' in tiny.text
    assert not _status(manager, "mute")["up"]


def test_a_server_that_writes_garbage_is_reported_and_others_keep_working(manager):
    garbage, tiny = manager.call_tools([ToolRequest("garbage", "anything", {}),
                                        ToolRequest("tiny", "echo", {"text": "fine"})])
    assert garbage.is_error and "'garbage' is not connected" in garbage.text
    assert not tiny.is_error and tiny.text == "fine"


def test_a_garbage_line_inside_a_session_is_skipped(manager):
    (noisy,) = manager.call_tools([ToolRequest("tiny", "noisy_echo", {"text": "through the noise"})])
    assert not noisy.is_error and noisy.text == "through the noise"
    (after,) = manager.call_tools([ToolRequest("tiny", "echo", {"text": "still up"})])
    assert not after.is_error and _status(manager, "tiny")["up"]


def test_an_answer_that_breaks_its_own_output_schema_fails_only_that_call(manager, caplog):
    bad, good = manager.call_tools([ToolRequest("tiny", "off_schema_reading", {}),
                                    ToolRequest("tiny", "echo", {"text": "fine"})])
    assert bad.is_error and bad.reason == "invalid_answer"
    assert bad.text == "the server's answer did not match its own schema"
    assert not good.is_error and good.text == "fine"
    assert "7 is not of type 'string'" in caplog.text  # the SDK's detail is for the operator, in the log


class _FaultyAsker:
    """Asks before every call, and breaks (a bug of the gateway's own) when asked about `add`."""

    confirm_every_call = True

    async def approve(self, server: str, tool: str, arguments: dict, hints: object) -> str:
        if tool == "add":
            raise ValueError("the approval relay broke")
        return "allow"


def test_an_unexpected_error_in_one_call_fails_only_that_call(manager, caplog):
    broken, fine = manager.call_tools([ToolRequest("tiny", "add", {"a": 1, "b": 1}),
                                       ToolRequest("tiny", "echo", {"text": "fine"})], asker=_FaultyAsker())
    assert broken.is_error and broken.reason == "unexpected_error"
    assert broken.text == "tool 'add' on 'tiny' failed unexpectedly"
    assert not fine.is_error and fine.text == "fine"
    assert "the approval relay broke" in caplog.text


# --- the whole gateway process --------------------------------------------------------------------------

def test_an_http_server_down_at_start_up_is_reported_then_picked_up(fake_llm, tmp_path):
    port = free_port()
    gateway = GatewayProcess(tmp_path / "gateway", {"remote": {"url": f"http://127.0.0.1:{port}/mcp", "timeout": 5}},
                             fake_llm.url)
    server = None
    try:
        remote = gateway.get("/health").json()["servers"]["remote"]
        assert not remote["up"] and "connect" in remote["last_error"].lower()
        fake_llm.script({"content": "fine without tools"})
        assert gateway.chat("hana", {"message": "hello", "use_tools": False}).status_code == 200
        server = start_tiny_http(port, tmp_path / "tiny.log")
        deadline = time.monotonic() + 40  # the reconnect backoff, not a request, brings it back
        while not gateway.get("/health").json()["servers"]["remote"]["up"]:
            assert time.monotonic() < deadline, "the HTTP server was not picked up"
            time.sleep(0.5)
        fake_llm.script({"tool_calls": [{"name": "remote__echo", "arguments": {"text": "hi"}}]}, {"content": "echoed"})
        body = gateway.chat("hana", {"message": "echo hi"}).json()
        assert [(c["server"], c["is_error"]) for c in body["tool_calls"]] == [("remote", False)]
    finally:
        gateway.stop()
        if server is not None:
            stop(server)


def test_history_survives_a_gateway_killed_mid_request(fake_llm, tmp_path):
    gateway = GatewayProcess(tmp_path / "gateway", {"tiny": TINY_SERVER}, fake_llm.url)
    try:
        for turn in range(3):
            fake_llm.script({"content": f"answer {turn}"})
            assert gateway.chat("ivan", {"message": f"question {turn}", "use_tools": False}).status_code == 200
        fake_llm.script({"tool_calls": [{"name": "tiny__sleep_then_echo", "arguments": {"text": "x", "seconds": 3}}]},
                        {"content": "never delivered"})
        in_flight = threading.Thread(target=lambda: _swallow(lambda: gateway.chat("ivan", {"message": "slow one"})))
        in_flight.start()
        time.sleep(1.0)
        gateway.process.kill()  # SIGKILL: no cleanup, no flush
        gateway.process.wait()
        in_flight.join()
        gateway.start()
        expected = [text for turn in range(3) for text in (f"question {turn}", f"answer {turn}")]
        assert [m["content"] for m in gateway.get("/chat/ivan/history").json()["messages"]] == expected
        fake_llm.script({"content": "answer 3"})
        gateway.chat("ivan", {"message": "question 3", "use_tools": False})
        assert len(gateway.get("/chat/ivan/history").json()["messages"]) == 8
    finally:
        gateway.stop()


def test_a_turn_with_an_answer_off_its_own_schema_answers_with_the_other_call(fake_llm, tmp_path):
    gateway = GatewayProcess(tmp_path / "gateway", {"tiny": TINY_SERVER}, fake_llm.url)
    try:
        fake_llm.script({"tool_calls": [{"name": "tiny__off_schema_reading", "arguments": {}},
                                        {"name": "tiny__echo", "arguments": {"text": "The door is locked."}}]},
                        # Both drafts name a tool, so the gateway composes the answer from the facts itself.
                        {"content": "tiny__echo says so."}, {"content": "tiny__echo says so."})
        reply = gateway.chat("kim", {"message": "read the meter, and is the door locked?"})
        assert reply.status_code == 200
        body = reply.json()
        assert [(c["tool"], c["is_error"], c["reason"], c["text"]) for c in body["tool_calls"]] == [
            ("off_schema_reading", True, "invalid_answer", "the server's answer did not match its own schema"),
            ("echo", False, "", "The door is locked.")]
        assert body["answer_source"] == "composed"
        assert body["response"] == ("The door is locked. Sorry, the answer of off_schema_reading (tiny) did not match "
                                    "its own schema, so I could not use it.")
        # The SDK's detail is in the gateway's log, not in what the user gets.
        assert "7 is not of type 'string'" not in reply.text
        assert "7 is not of type 'string'" in (tmp_path / "gateway" / "gateway.log").read_text()
    finally:
        gateway.stop()


def _swallow(request) -> None:
    try:
        request()
    except httpx.HTTPError:
        pass  # the gateway died under it, as intended
