"""McpManager against real servers: ours over stdio and HTTP, and the third-party mcp-server-time."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from mcp_chat_app.mcp_client.manager import McpManager, ToolRequest
from mcp_chat_app.mcp_client.registry import parse_server_spec

from tests.support.gateway_processes import TINY_SERVER, start_tiny_http
from tests.support.processes import free_port, stop


@pytest.fixture(scope="module")
def tiny_http(tmp_path_factory):
    port = free_port()
    process = start_tiny_http(port, tmp_path_factory.mktemp("tiny_http") / "server.log")
    yield f"http://127.0.0.1:{port}/mcp"
    stop(process)


@pytest.fixture(scope="module")
def manager(tiny_http, tmp_path_factory):
    marker = tmp_path_factory.mktemp("marker") / "started"
    entries = {
        "tiny": {**TINY_SERVER, "excluded_tools": ["always_fails"], "timeout": 1},
        "remote": {"url": tiny_http, "allowed_tools": ["add", "echo"]},
        "time": {"command": "mcp-server-time"},
        "primary": {**TINY_SERVER, "env": {"TINY_START_ONCE": str(marker)}, "fallback": "tiny", "timeout": 2},
        "off": {**TINY_SERVER, "disabled": True},
    }
    specs = {name: parse_server_spec(name, entry) for name, entry in entries.items()}
    mcp = McpManager(specs, tmp_path_factory.mktemp("logs"), health_interval_s=1)
    mcp.start()
    yield mcp
    mcp.close()


def test_discovery_namespaces_and_filters(manager):
    names = {tool.qualified_name for tool in manager.tools()}
    assert {"tiny__add", "remote__add", "remote__echo", "time__get_current_time", "primary__echo"} <= names
    assert "tiny__always_fails" not in names and "remote__sleep_then_echo" not in names
    assert not any(name.startswith("off__") for name in names)
    status = {row["name"]: row for row in manager.status()}
    assert status["off"]["disabled"] and not status["off"]["up"]
    assert all(status[name]["up"] for name in ("tiny", "remote", "time", "primary"))


def test_third_party_server_and_http_transport(manager):
    time_result, http_result = manager.call_tools([
        ToolRequest("time", "get_current_time", {"timezone": "Asia/Shanghai"}),
        ToolRequest("remote", "add", {"a": 20, "b": 22}),
    ])
    assert not time_result.is_error and time_result.structured_content["timezone"] == "Asia/Shanghai"
    assert not http_result.is_error and '"sum": 42' in http_result.text


def test_timeout_cancels_the_call_and_the_session_survives(manager):
    started = time.monotonic()
    (slow,) = manager.call_tools([ToolRequest("tiny", "sleep_then_echo", {"text": "zz", "seconds": 5})])
    assert slow.is_error and "timed out" in slow.text and time.monotonic() - started < 4
    (fast,) = manager.call_tools([ToolRequest("tiny", "echo", {"text": "still here"})])
    assert not fast.is_error and fast.text == "still here"


def test_unknown_server_and_tool_errors_are_outcomes(manager):
    ghost, unknown = manager.call_tools([ToolRequest("ghost", "x", {}), ToolRequest("tiny", "nope", {})])
    assert ghost.is_error and "not registered" in ghost.text
    assert unknown.is_error and "nope" in unknown.text


def test_list_changed_refreshes_the_tools(manager):
    manager.call_tools([ToolRequest("tiny", "enable_shout", {})])
    deadline = time.monotonic() + 10
    while "tiny__shout" not in {t.qualified_name for t in manager.tools()} and time.monotonic() < deadline:
        time.sleep(0.05)
    (loud,) = manager.call_tools([ToolRequest("tiny", "shout", {"text": "hi"})])
    assert loud.text == "HI"


def _child_with_env(variable: bytes) -> int:
    children = subprocess.run(["pgrep", "-P", str(os.getpid())], capture_output=True, text=True).stdout.split()
    return next(int(pid) for pid in children if variable in Path(f"/proc/{pid}/environ").read_bytes())


def test_dead_server_routes_to_its_fallback(manager):
    os.kill(_child_with_env(b"TINY_START_ONCE"), signal.SIGKILL)
    (result,) = manager.call_tools([ToolRequest("primary", "echo", {"text": "via backup"})])
    assert not result.is_error and result.server == "tiny" and result.text == "via backup"
    primary = next(row for row in manager.status() if row["name"] == "primary")
    assert not primary["up"] and primary["last_error"]


def test_http_server_that_drops_is_reconnected(tmp_path):
    port = free_port()
    log = tmp_path / "server.log"
    server = start_tiny_http(port, log)
    spec = parse_server_spec("flaky", {"url": f"http://127.0.0.1:{port}/mcp", "timeout": 3})
    manager = McpManager({"flaky": spec}, tmp_path / "logs", health_interval_s=0.5)
    manager.start()
    try:
        server.kill()
        server.wait()
        (down,) = manager.call_tools([ToolRequest("flaky", "echo", {"text": "lost"})])
        assert down.is_error and "flaky" in down.text
        server = start_tiny_http(port, log)
        (back,) = manager.call_tools([ToolRequest("flaky", "echo", {"text": "back"})])
        assert not back.is_error and back.text == "back"
        assert manager.status()[0]["restarts"] >= 1
    finally:
        manager.close()
        stop(server)
