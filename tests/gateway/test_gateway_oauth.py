"""A remote MCP server behind OAuth 2.1, registered with the gateway like any url server (real processes over
HTTP): the weather server as resource server (protected-resource metadata, token introspection), the local
authorization server of oauth_authorization_server.py (registration, PKCE, 2-second access tokens, refresh), the
gateway, and the test as the person who opens the authorization URL (two users: test_gateway_oauth_users.py)."""

from __future__ import annotations

import re
import stat
import time
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from cryptography.fernet import Fernet
from mcp.client.auth import PKCEParameters

from tests.support.gateway_processes import GatewayProcess, start_weather_http
from tests.support.oauth_processes import running_authorization_server
from tests.support.processes import free_port, stop

ACCESS_TTL_S = 2


def _poll(read, until, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while not until(value := read()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return value


@pytest.fixture(scope="module")
def authorization_server(tmp_path_factory):
    with running_authorization_server(tmp_path_factory.mktemp("authorization_server"), ACCESS_TTL_S) as url:
        yield url


@pytest.fixture(scope="module")
def protected_weather(authorization_server, tmp_path_factory):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    process = start_weather_http(
        port, tmp_path_factory.mktemp("protected_weather") / "weather.log",
        WEATHER_MCP_OAUTH_ISSUER=authorization_server,
        WEATHER_MCP_OAUTH_INTROSPECTION_URL=f"{authorization_server}/introspect",
        WEATHER_MCP_RESOURCE_URL=url, WEATHER_MCP_OAUTH_SCOPES="weather",
        WEATHER_MCP_OAUTH_CLIENT_ID="weather-rs", WEATHER_MCP_OAUTH_CLIENT_SECRET="rs-secret")
    yield url
    stop(process)


@pytest.fixture(scope="module")
def gateway(protected_weather, fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("oauth_gateway"),
                             {"secure": {"type": "http", "url": protected_weather, "timeout": 20}}, fake_llm.url,
                             MCP_CHAT_TOKEN_KEY=Fernet.generate_key().decode())
    yield process
    process.stop()


def _stats(authorization_server: str) -> dict[str, int]:
    return httpx.get(f"{authorization_server}/_stats").json()


def _secure(gateway: GatewayProcess) -> dict:
    return next(row for row in gateway.get("/servers").json()["servers"] if row["name"] == "secure")


def _weather_via_chat(gateway: GatewayProcess, fake_llm, city: str) -> dict:
    fake_llm.script({"tool_calls": [{"name": "secure__get_current_weather", "arguments": {"city": city}}]},
                    {"content": f"Weather for {city}."})
    return gateway.chat("olga", {"message": f"weather in {city}?"}).json()["tool_calls"][0]


def test_the_resource_server_sends_clients_to_its_authorization_server(protected_weather, authorization_server):
    refused = httpx.post(protected_weather, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert refused.status_code == 401
    metadata_url = re.search(r'resource_metadata="([^"]+)"', refused.headers["www-authenticate"]).group(1)
    metadata = httpx.get(metadata_url).json()
    assert metadata["resource"] == protected_weather and metadata["authorization_servers"] == [authorization_server]


def test_a_user_authorizes_once_then_tokens_are_refreshed(gateway, fake_llm, authorization_server, protected_weather):
    pending = _poll(lambda: _secure(gateway), lambda row: row["needs_authorization"])
    assert pending["needs_authorization"] and not pending["up"] and "each user authorizes" in pending["last_error"]
    authorization_url = httpx.post(f"{gateway.url}/chat/olga/oauth/secure").json()["authorization_url"]
    query = parse_qs(urlparse(authorization_url).query)
    assert query["code_challenge_method"] == ["S256"] and len(query["code_challenge"][0]) == 43  # PKCE
    assert query["resource"] == [protected_weather] and query["scope"] == ["weather"]  # RFC 8707, from the metadata
    # The person consents at the authorization server, whose redirect lands on the gateway's callback.
    redirect = httpx.get(authorization_url)
    assert redirect.status_code == 302 and redirect.headers["location"].startswith(f"{gateway.url}/oauth/callback?")
    assert httpx.get(f"{gateway.url}/oauth/callback", params={"state": "forged", "code": "x"}).status_code == 404
    callback = httpx.get(redirect.headers["location"])
    assert callback.status_code == 200 and callback.json()["server"] == "secure" and callback.json()["user"] == "olga"
    assert _poll(lambda: _secure(gateway), lambda row: row["up"])["up"]  # olga's session listed the tools
    assert not _weather_via_chat(gateway, fake_llm, "Tokyo")["is_error"]
    stats = _stats(authorization_server)
    assert (stats["registrations"], stats["consents"], stats["code_exchanges"]) == (1, 1, 1)  # one registration
    time.sleep(ACCESS_TTL_S + 0.5)  # the access token has expired: the next request refreshes it first
    assert not _weather_via_chat(gateway, fake_llm, "Lima")["is_error"]
    after = _stats(authorization_server)
    assert after["refreshes"] >= 1 and after["consents"] == 1 and after["introspections"] >= 2


def test_a_restarted_gateway_refreshes_its_stored_token_without_asking(gateway, fake_llm, authorization_server):
    tokens = gateway.work_dir / "data" / "oauth" / "secure" / "users" / "olga.fernet"
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    refreshes = _stats(authorization_server)["refreshes"]
    gateway.restart()
    assert _poll(lambda: _secure(gateway), lambda row: row["up"])["up"]  # the stored catalog lists the tools
    assert not _weather_via_chat(gateway, fake_llm, "Cairo")["is_error"]
    stats = _stats(authorization_server)
    assert stats["consents"] == 1 and stats["registrations"] == 1 and stats["refreshes"] > refreshes


def _token_for(authorization_server: str, resource: str) -> str:
    """An access token obtained the way any OAuth client would: registration, consent with PKCE, code exchange."""
    redirect_uri = "http://127.0.0.1:9/callback"
    client = httpx.post(f"{authorization_server}/register", json={
        "redirect_uris": [redirect_uri], "token_endpoint_auth_method": "none", "scope": "weather",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}).json()
    pkce = PKCEParameters.generate()
    consent = httpx.get(f"{authorization_server}/authorize", params={
        "response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect_uri, "state": "s",
        "code_challenge": pkce.code_challenge, "code_challenge_method": "S256", "resource": resource,
        "scope": "weather"})
    code = parse_qs(urlparse(consent.headers["location"]).query)["code"][0]
    return httpx.post(f"{authorization_server}/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
        "client_id": client["client_id"], "code_verifier": pkce.code_verifier, "resource": resource,
    }).json()["access_token"]


# Last in the module: it registers clients of its own, which the counts above would see.
def test_only_tokens_issued_for_this_server_are_accepted(protected_weather, authorization_server):
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
    for resource, status in ((protected_weather, 200), ("http://127.0.0.1:1/mcp", 401)):
        token = _token_for(authorization_server, resource)
        answer = httpx.post(protected_weather, json=initialize, headers={
            "Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"})
        assert answer.status_code == status, resource
