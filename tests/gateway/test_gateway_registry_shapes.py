"""Registry files copied from Claude Desktop, Cursor, VS Code, Claude Code and Cline load unchanged
(tests/gateway/host_configs/), and every enabled server in them comes up and answers, over stdio, streamable HTTP
and SSE. Before, `"type"` stopped the gateway (`unknown keys ['type']`) and VS Code's `servers` loaded nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_chat_app.mcp_client.manager import McpManager, ToolRequest
from mcp_chat_app.mcp_client.registry import load_registry

from tests.support.gateway_processes import TINY_SERVER, start_everything, start_weather_http
from tests.support.processes import free_port, stop

HOSTS = Path(__file__).resolve().parent / "host_configs"
TOKEN = "shape-test-token"
# host file -> {server: transport}, the disabled ones, and the keys a gateway has no use for
SHAPES = {
    "claude_desktop/claude_desktop_config.json": ({"weather": "stdio", "time": "stdio"}, set(), set()),
    "cursor/.cursor/mcp.json": ({"tiny": "stdio", "weather-http": "http"}, set(), set()),
    "vscode/.vscode/mcp.json": ({"tiny": "stdio", "weather-http": "http", "everything": "sse"}, set(), {"dev"}),
    "claude_code/.mcp.json": ({"tiny": "stdio", "weather-http": "http", "everything": "sse"}, set(), set()),
    "cline/cline_mcp_settings.json": ({"time": "stdio", "weather-http": "http", "github": "stdio"}, {"github"},
                                      {"autoApprove", "alwaysAllow"}),
}
# what the tiny server's environment shows, by host: envFile (Cursor, VS Code), a ${VAR:-default} (Claude Code)
GREETINGS = {"cursor/.cursor/mcp.json": "from-the-env-file", "vscode/.vscode/mcp.json": "from-the-env-file",
             "claude_code/.mcp.json": "from-claude-code"}


@pytest.fixture(scope="module")
def weather_http(tmp_path_factory):
    """The weather server over streamable HTTP, behind a bearer token."""
    port = free_port()
    process = start_weather_http(port, tmp_path_factory.mktemp("weather_http") / "weather.log", WEATHER_MCP_TOKEN=TOKEN)
    yield str(port)
    stop(process)


@pytest.fixture(scope="module")
def everything_sse(tmp_path_factory):
    """server-everything over SSE (skipped without Node.js, and with it only the files that name it)."""
    port = free_port()
    process = start_everything("sse", port, tmp_path_factory.mktemp("everything_sse") / "everything.log")
    yield str(port)
    stop(process)


@pytest.fixture
def host_environment(request, monkeypatch, weather_http):
    transports = SHAPES[request.node.callspec.params["host_file"]][0]
    if "sse" in transports.values():
        monkeypatch.setenv("EVERYTHING_SSE_PORT", request.getfixturevalue("everything_sse"))
    for name, value in {"WEATHER_HTTP_PORT": weather_http, "WEATHER_MCP_TOKEN": TOKEN,
                        "MCP_INPUT_WEATHER_TOKEN": TOKEN, "TINY_SERVER": TINY_SERVER["args"][0]}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("TINY_GREETING", raising=False)


@pytest.mark.parametrize("host_file", SHAPES)
def test_a_host_file_loads_unchanged_and_its_servers_answer(host_file, host_environment, tmp_path):
    transports, disabled, host_only = SHAPES[host_file]
    registry = load_registry(HOSTS / host_file)
    assert registry.error is None and registry.rejected == {}
    assert {name: spec.transport for name, spec in registry.servers.items()} == transports
    assert {name for name, spec in registry.servers.items() if spec.disabled} == disabled
    assert {key for spec in registry.servers.values() for key in spec.ignored_keys} == host_only
    manager = McpManager.from_registry(registry, tmp_path / "logs")
    manager.start(wait_s=60)
    try:
        status = {row["name"]: row for row in manager.status()}
        enabled = set(transports) - disabled
        assert {name for name, row in status.items() if row["up"] and row["tools"]} == enabled, \
            {name: row["last_error"] for name, row in status.items()}
        assert manager.warnings() == []
        if "weather-http" in enabled:  # the token from the file's header reached the weather server
            (weather,) = manager.call_tools([ToolRequest("weather-http", "get_current_weather", {"city": "Oslo"})])
            assert not weather.is_error, weather.text
        if host_file in GREETINGS:
            (greeting,) = manager.call_tools([ToolRequest("tiny", "env_value", {"name": "TINY_GREETING"})])
            assert greeting.text == GREETINGS[host_file]
    finally:
        manager.close()
