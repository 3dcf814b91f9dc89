"""`/health` tells the truth (real gateway processes, the scripted LLM): a bad registry entry is disabled alone and
shown with its error, an unreadable registry or no usable server is a loud warning, and an LLM that takes requests
but does not answer them is degraded, not "ok"."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from tests.support.gateway_processes import TINY_SERVER, GatewayProcess

HUNG_AFTER_S = 1.0


def _poll(read, until, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if until(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


@pytest.fixture(scope="module")
def vscode_gateway(fake_llm, tmp_path_factory):
    """A VS Code `.vscode/mcp.json` with one good server and three bad entries."""
    work_dir = tmp_path_factory.mktemp("vscode_gateway")
    (work_dir / ".vscode").mkdir()
    registry = work_dir / ".vscode" / "mcp.json"
    registry.write_text(json.dumps({"inputs": [{"type": "promptString", "id": "never-answered"}], "servers": {
        "tiny": {"type": "stdio", **TINY_SERVER},
        "socket": {"type": "websocket", "url": "ws://127.0.0.1:9/mcp"},
        "keyed": {"type": "http", "url": "https://example.invalid/mcp",
                  "headers": {"Authorization": "Bearer ${input:never-answered}"}},
        "typo": {"comand": "python"},
    }}))
    process = GatewayProcess(work_dir, {}, fake_llm.url, MCP_CHAT_SERVERS_CONFIG=str(registry))
    yield process
    process.stop()


def test_one_bad_entry_disables_only_itself_with_its_error(vscode_gateway, fake_llm):
    health = vscode_gateway.get("/health").json()
    assert health["status"] == "degraded" and health["servers"]["tiny"]["up"]
    errors = {name: health["servers"][name]["config_error"] for name in ("socket", "keyed", "typo")}
    assert "unknown type 'websocket'" in errors["socket"]
    assert "MCP_INPUT_NEVER_ANSWERED" in errors["keyed"]
    assert "exactly one of 'command'" in errors["typo"] and "unknown keys: ['comand']" in errors["typo"]
    rows = {row["name"]: row for row in vscode_gateway.get("/servers").json()["servers"]}
    assert rows["socket"]["config_error"] == errors["socket"] and not rows["socket"]["up"]
    assert rows["tiny"]["up"] and rows["tiny"]["config_error"] is None
    fake_llm.script({"tool_calls": [{"name": "tiny__echo", "arguments": {"text": "still works"}}]},
                    {"content": "It said: still works."})
    answer = vscode_gateway.chat("vic", {"message": "echo please"}).json()
    assert answer["tool_calls"][0]["text"] == "still works" and not answer["tool_calls"][0]["is_error"]
    log = (vscode_gateway.work_dir / "gateway.log").read_text()
    assert "MCP server socket disabled: server 'socket': unknown type" in log


def test_an_unreadable_registry_is_a_loud_warning_and_the_gateway_serves(fake_llm, tmp_path):
    registry = tmp_path / "mcp_servers.json"
    registry.write_text('{"mcpServers": {"weather": {"command": "python",}}}')  # a trailing comma
    process = GatewayProcess(tmp_path / "gateway", {}, fake_llm.url, MCP_CHAT_SERVERS_CONFIG=str(registry))
    try:
        health = process.get("/health").json()
        assert health["status"] == "degraded" and health["servers"] == {}
        assert any("could not be read" in warning and "mcp_servers.json" in warning for warning in health["warnings"])
        assert any(warning.startswith("no usable MCP servers") for warning in health["warnings"])
        fake_llm.script({"content": "Hello without tools."})
        assert process.chat("wes", {"message": "hi"}).json()["response"] == "Hello without tools."
        log = (tmp_path / "gateway" / "gateway.log").read_text()
        assert "!!!!!!!!\n!! no usable MCP servers" in log and "!! registry: " in log
    finally:
        process.stop()


def test_zero_usable_servers_is_a_warning_in_health(fake_llm, tmp_path):
    only_disabled = GatewayProcess(tmp_path, {"tiny": {**TINY_SERVER, "disabled": True}}, fake_llm.url)
    try:
        health = only_disabled.get("/health").json()
        assert health["status"] == "degraded" and health["warnings"][0].startswith("no usable MCP servers (0 enabled")
    finally:
        only_disabled.stop()


@pytest.fixture(scope="module")
def watched_gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("watched_gateway"), {"tiny": TINY_SERVER}, fake_llm.url,
                             MCP_CHAT_LLM_HUNG_AFTER=str(HUNG_AFTER_S))
    yield process
    process.stop()


def test_a_reachable_llm_that_does_not_answer_is_degraded(watched_gateway, fake_llm):
    assert watched_gateway.get("/health").json()["status"] == "ok"
    fake_llm.script({"delay": 3, "content": "Finally."})
    answers: list[httpx.Response] = []
    asking = threading.Thread(target=lambda: answers.append(
        watched_gateway.chat("hal", {"message": "hello", "use_tools": False})))
    asking.start()
    health = _poll(lambda: watched_gateway.get("/health").json(), lambda h: h["llm"][0]["hung"], timeout=2.5)
    llm = health["llm"][0]
    assert llm["reachable"] and llm["hung"] and llm["silent_s"] >= HUNG_AFTER_S and llm["hung_after_s"] == HUNG_AFTER_S
    assert health["status"] == "degraded" and any("has not answered" in w for w in health["warnings"])
    asking.join(30)
    assert answers[0].json()["response"] == "Finally."
    healthy = watched_gateway.get("/health").json()
    assert healthy["status"] == "ok" and not healthy["llm"][0]["hung"] and healthy["llm"][0]["silent_s"] is None


def test_a_timed_out_call_stays_degraded_until_the_probe_is_answered(fake_llm, tmp_path):
    models = tmp_path / "models.json"
    models.write_text(json.dumps({"profiles": {"impatient": {
        "base_url": f"{fake_llm.url}/v1", "model": "fake-model", "timeout_s": 0.5}}}))
    process = GatewayProcess(tmp_path / "gateway", {"tiny": TINY_SERVER}, fake_llm.url,
                             MCP_CHAT_MODELS_CONFIG=str(models), MCP_CHAT_PROFILE="impatient",
                             MCP_CHAT_LLM_HUNG_AFTER=str(HUNG_AFTER_S))
    try:
        fake_llm.script({"delay": 3, "content": "too late"})
        assert process.chat("tim", {"message": "hello", "use_tools": False}).status_code == 504
        time.sleep(HUNG_AFTER_S)
        # Nothing is in flight now, but the last call got no answer: still hung, and /health sends a probe.
        hung = process.get("/health").json()
        assert hung["status"] == "degraded" and hung["llm"][0]["hung"]
        recovered = _poll(lambda: process.get("/health").json(), lambda h: h["status"] == "ok", timeout=5)
        assert recovered["status"] == "ok" and not recovered["llm"][0]["hung"]
        assert [request["max_tokens"] for request in fake_llm.requests()[1:]] == [1]  # one probe, one token
    finally:
        process.stop()
