"""Security over HTTP with user tokens on: per-user tokens checked against the path user, the admin
token for registration, no path traversal under /media, and tool output that tries to take over
the model stays data while the gateway's own policies (allowed tools, argument checks) hold."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from mcp_chat_app.app import create_app
from mcp_chat_app.config import GatewayConfig
from mcp_chat_app.gateway import EXTENSION_KEY
from mcp_chat_app.web.auth import issue_token, revoke_token

from tests.support.gateway_processes import REPO, TINY_SERVER, GatewayProcess

ADMIN = "security-admin-token"
INJECTION_MARK = "IGNORE PREVIOUS INSTRUCTIONS"


@pytest.fixture(scope="module")
def tokens_file(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("tokens") / "user_tokens.json"


@pytest.fixture(scope="module")
def alice(tokens_file) -> str:
    return issue_token(tokens_file, "alice")


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory, tokens_file, alice):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_security"),
                             {"tiny": {**TINY_SERVER, "excluded_tools": ["always_fails"]}}, fake_llm.url,
                             MCP_CHAT_AUTH="on", MCP_CHAT_TOKENS_FILE=str(tokens_file), MCP_CHAT_ADMIN_TOKEN=ADMIN)
    yield process
    process.stop()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def history(gateway, user: str, token: str | None) -> httpx.Response:
    return gateway.get(f"/chat/{user}/history", headers=bearer(token) if token else {})


def test_user_routes_need_the_path_users_own_token(gateway, fake_llm, alice):
    assert history(gateway, "alice", None).status_code == 401
    assert history(gateway, "alice", "guessed").status_code == 403
    fake_llm.script({"content": "Hello Alice."})
    reply = httpx.post(f"{gateway.url}/chat/alice", json={"message": "my secret is 42", "use_tools": False},
                       headers=bearer(alice), timeout=30)
    assert reply.status_code == 200
    assert [m["content"] for m in history(gateway, "alice", alice).json()["messages"]] == [
        "my secret is 42", "Hello Alice."]
    # Alice's token opens no other user's history, however the path is spelled.
    for other in ("bob", "Alice", "alice.", "alice%0A", "alice%2F..%2Fbob"):
        reply = history(gateway, other, alice)
        assert reply.status_code in (400, 403, 404) and "my secret" not in reply.text
    assert httpx.post(f"{gateway.url}/chat/bob", json={"message": "hi"}, headers=bearer(alice)).status_code == 403
    assert httpx.delete(f"{gateway.url}/chat/bob/history", headers=bearer(alice)).status_code == 403
    # The admin token may act for any user.
    assert history(gateway, "alice", ADMIN).json()["messages"][0]["content"] == "my secret is 42"


def test_conversation_and_approval_routes_need_the_path_users_own_token(gateway, alice):
    created = httpx.post(f"{gateway.url}/chat/alice/conversations", json={"title": "private plans"},
                         headers=bearer(alice))
    assert created.status_code == 201
    mine = f"{gateway.url}/chat/alice/conversations/{created.json()['id']}"
    for headers, status in (({}, 401), (bearer("guessed"), 403)):
        assert httpx.get(f"{gateway.url}/chat/alice/conversations", headers=headers).status_code == status
        assert httpx.post(f"{gateway.url}/chat/alice/conversations", json={}, headers=headers).status_code == status
        assert httpx.get(mine, headers=headers).status_code == status
        assert httpx.patch(mine, json={"title": "x"}, headers=headers).status_code == status
        assert httpx.delete(mine, headers=headers).status_code == status
        assert httpx.post(f"{gateway.url}/chat/alice/approvals/0123456789abcdef", json={"decision": "approve"},
                          headers=headers).status_code == status
    # Alice's token opens none of Bob's routes, and Bob's list never shows her conversation.
    assert httpx.get(f"{gateway.url}/chat/bob/conversations", headers=bearer(alice)).status_code == 403
    assert httpx.post(f"{gateway.url}/chat/bob/conversations", json={}, headers=bearer(alice)).status_code == 403
    assert httpx.post(f"{gateway.url}/chat/bob/approvals/0123456789abcdef", json={"decision": "approve"},
                      headers=bearer(alice)).status_code == 403
    assert "private plans" not in httpx.get(f"{gateway.url}/chat/bob/conversations", headers=bearer(ADMIN)).text
    assert httpx.get(mine, headers=bearer(alice)).json()["title"] == "private plans"


def test_tokens_are_read_again_when_the_file_changes(gateway, tokens_file):
    carol = issue_token(tokens_file, "carol")
    assert history(gateway, "carol", carol).status_code == 200
    assert revoke_token(tokens_file, "carol")
    assert history(gateway, "carol", carol).status_code == 403
    stored = tokens_file.read_text()
    assert carol not in stored and "sha256:" in stored  # the file holds hashes, not tokens


def test_deployment_routes_need_a_token_but_health_and_the_page_do_not(gateway, alice):
    for path in ("/servers", "/tools", "/prompts"):
        assert gateway.get(path).status_code == 401
        assert gateway.get(path, headers=bearer(alice)).status_code == 200
    for path in ("/health", "/openapi.json", "/", "/static/js/app.js"):
        assert gateway.get(path).status_code == 200


def test_registration_with_a_user_token_runs_nothing(gateway, alice, tmp_path):
    canary = tmp_path / "ran"
    entry = {"name": "evil", "command": "touch", "args": [str(canary)]}
    for headers in ({}, bearer(alice), bearer("nope")):
        assert httpx.post(f"{gateway.url}/servers", json=entry, headers=headers).status_code == 401
    assert httpx.delete(f"{gateway.url}/servers/tiny", headers=bearer(alice)).status_code == 401
    assert not canary.exists() and "evil" not in gateway.get("/servers", headers=bearer(ADMIN)).text


def test_without_an_admin_token_registration_is_disabled(tmp_path):
    canary = tmp_path / "ran"
    config = GatewayConfig(data_dir=tmp_path, servers_config=tmp_path / "none.json",
                           base_url_override="http://127.0.0.1:9/v1", tokens_file=tmp_path / "tokens.json")
    app = create_app(config)
    try:
        reply = app.test_client().post("/servers", json={"name": "evil", "command": "touch", "args": [str(canary)]},
                                       headers=bearer(""))
        assert reply.status_code == 403 and reply.get_json()["error"]["code"] == "admin_disabled"
        assert not canary.exists()
    finally:
        app.extensions[EXTENSION_KEY].close()


@pytest.mark.parametrize("host, needs_token", [("127.0.0.1", False), ("::1", False), ("localhost", False),
                                               ("0.0.0.0", True), ("192.168.1.20", True)])
def test_auto_mode_requires_tokens_exactly_beyond_loopback(tmp_path, host, needs_token):
    config = GatewayConfig(data_dir=tmp_path, servers_config=tmp_path / "none.json", host=host,
                           base_url_override="http://127.0.0.1:9/v1", tokens_file=tmp_path / "tokens.json")
    app = create_app(config)
    try:
        status = app.test_client().get("/chat/alice/history").status_code
        assert status == (401 if needs_token else 200)
    finally:
        app.extensions[EXTENSION_KEY].close()


def _raw_get(gateway, path: str) -> tuple[int, bytes]:
    # http.client sends the path byte for byte: no client-side normalisation of dots or escapes.
    connection = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize("path", [
    "/media/../history.sqlite3",
    "/media/..%2Fhistory.sqlite3",
    "/media/%2e%2e%2fhistory.sqlite3",
    "/media/..%5Chistory.sqlite3",
    "/media/%2Fetc%2Fpasswd",
    "/media/....//....//history.sqlite3",
    "/media/0123456789abcdef0123456789abcdef.png%00.sqlite3",
    "/media/0123456789abcdef0123456789abcdef.png/..%2F..%2Fhistory.sqlite3",
    "/media/history.sqlite3",
])
def test_media_has_no_path_traversal(gateway, path):
    status, body = _raw_get(gateway, path)
    assert status in (400, 404) and b"SQLite format" not in body and b"root:" not in body


def test_tool_output_cannot_take_over_the_model_or_the_gateway(gateway, fake_llm, alice):
    def calls(*pairs):
        return {"tool_calls": [{"name": name, "arguments": arguments} for name, arguments in pairs]}

    obey = calls(("tiny__always_fails", {}), ("tiny__add", {"a": "all", "b": 1}))
    fake_llm.script(calls(("tiny__read_note", {})), obey, obey, {"content": "I will not do that."})
    reply = httpx.post(f"{gateway.url}/chat/alice", json={"message": "read my note"}, headers=bearer(alice),
                       timeout=60)
    assert reply.status_code == 200
    body = reply.json()
    sent = fake_llm.requests()
    # The payload reached the model only as the tool's data, never as an instruction.
    system_prompt = sent[0]["messages"][0]
    for request in sent:
        assert request["messages"][0] == system_prompt
        assert [m for m in request["messages"] if INJECTION_MARK in json.dumps(m)] in (
            [], [m for m in request["messages"] if m["role"] == "tool" and INJECTION_MARK in m["content"]])
        assert {tool["function"]["name"] for tool in request.get("tools", [])} <= {
            "tiny__add", "tiny__echo", "tiny__sleep_then_echo", "tiny__sleep_then_record", "tiny__sleep_then_touch",
            "tiny__crash", "tiny__noisy_echo", "tiny__read_note", "tiny__enable_shout", "tiny__env_value",
            "tiny__choose_size", "tiny__off_schema_reading", "answer_directly"}
    note = next(m for m in sent[1]["messages"] if m["role"] == "tool")
    assert INJECTION_MARK in note["content"]  # delivered, but in the tool's slot, as its data
    # The gateway's policies held: the excluded tool and the bad arguments never reached the server.
    executed = [(c["tool"], c["is_error"]) for c in body["tool_calls"]]
    assert ("read_note", False) in executed
    assert "tiny tool failed" not in reply.text
    refused = [c for c in body["tool_calls"] if c["is_error"]]
    assert refused and all("unknown tool" in c["text"] or "invalid arguments" in c["text"] for c in refused)


def test_the_token_command_issues_and_revokes(tmp_path):
    tokens = tmp_path / "tokens.json"
    env = {"MCP_CHAT_TOKENS_FILE": str(tokens), "PATH": str(Path(sys.executable).parent)}
    issued = subprocess.run([sys.executable, "-m", "mcp_chat_app.cli", "token", "dora"], cwd=REPO, env=env,
                            capture_output=True, text=True, check=True)
    token = issued.stdout.strip()
    assert len(token) >= 40 and token not in tokens.read_text() and "dora" in tokens.read_text()
    bad = subprocess.run([sys.executable, "-m", "mcp_chat_app.cli", "token", "bad user"], cwd=REPO, env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "user must be" in bad.stderr
    revoked = subprocess.run([sys.executable, "-m", "mcp_chat_app.cli", "token", "--revoke", "dora"], cwd=REPO,
                             env=env, capture_output=True, text=True)
    assert revoked.returncode == 0 and "dora" not in tokens.read_text()
