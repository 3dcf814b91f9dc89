"""`weather-mcp --transport http` (a real server process): it binds 127.0.0.1 unless told otherwise and warns when
told otherwise without auth; with `WEATHER_MCP_TOKEN` it answers only clients that send that bearer token (the
SDK's resource-server checks); contradictory auth settings stop it before it starts. The OAuth resource-server
mode is tested with a real authorization server in tests/gateway/test_gateway_oauth.py."""

from __future__ import annotations

import subprocess
import sys

import httpx
import httpx2
import psutil
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.processes import free_port
from tests.weather.conftest import REPO, running_http_server, server_env

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


def test_it_binds_loopback_by_default():
    with running_http_server(server_env()) as (process, _):
        listening = {connection.laddr.ip for connection in psutil.Process(process.pid).net_connections("tcp")
                     if connection.status == psutil.CONN_LISTEN}
    assert listening == {"127.0.0.1"}


@pytest.mark.parametrize("token, warned", [(None, True), ("t0ken", False)])
def test_binding_beyond_loopback_without_auth_is_a_warning(token, warned):
    env = server_env(**({"WEATHER_MCP_TOKEN": token} if token else {}))
    with running_http_server(env, "--host", "0.0.0.0") as (process, _):
        pass
    stderr = process.stderr.read().decode()
    assert ("WARNING: serving MCP on 0.0.0.0 without authentication" in stderr) == warned


@pytest.mark.anyio
async def test_with_a_token_only_its_bearers_are_served():
    with running_http_server(server_env(WEATHER_MCP_TOKEN="t0ken")) as (_, url):
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic dDBrZW4="}):
            refused = httpx.post(url, json=INITIALIZE, headers={**MCP_ACCEPT, **headers})
            assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer ")
        async with httpx2.AsyncClient(headers={"Authorization": "Bearer t0ken"}) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                tools = {tool.name for tool in (await client.list_tools()).tools}
    assert "get_forecast" in tools


@pytest.mark.parametrize("settings, message", [
    ({"WEATHER_MCP_TOKEN": "a", "WEATHER_MCP_OAUTH_ISSUER": "http://127.0.0.1:9"}, "not both"),
    ({"WEATHER_MCP_OAUTH_ISSUER": "http://127.0.0.1:9"}, "needs WEATHER_MCP_OAUTH_INTROSPECTION_URL"),
])
def test_incomplete_or_contradictory_auth_stops_the_start(settings, message):
    command = [sys.executable, "-m", "weather_mcp_server", "--transport", "http", "--port", str(free_port())]
    result = subprocess.run(command, env=server_env(**settings), cwd=REPO, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode != 0 and message in result.stderr and "Traceback" not in result.stderr
