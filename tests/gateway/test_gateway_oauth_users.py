"""Per-user OAuth, with real processes over HTTP: the local authorization server (oauth_authorization_server.py,
where the test signs in as the person who consents), an OAuth-protected MCP server that answers `whoami` with the
token's subject (oauth_identity_server.py), and the gateway with a token key. Two users, two identities: each
call acts as its own user, a user who has not authorized gets the link, never someone else's identity."""

from __future__ import annotations

import stat
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from cryptography.fernet import Fernet

from tests.gateway.test_gateway_oauth import _poll
from tests.support.gateway_processes import GatewayProcess
from tests.support.oauth_processes import running_authorization_server, running_identity_server

TOKEN_KEY = Fernet.generate_key().decode()


@pytest.fixture(scope="module")
def authorization_server(tmp_path_factory):
    with running_authorization_server(tmp_path_factory.mktemp("users_as"), access_ttl_s=60) as url:
        yield url


@pytest.fixture(scope="module")
def identity_server(authorization_server, tmp_path_factory):
    with running_identity_server(tmp_path_factory.mktemp("identity"), authorization_server) as url:
        yield url


@pytest.fixture(scope="module")
def gateway(identity_server, fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("users_gateway"),
                             {"ident": {"type": "http", "url": identity_server, "timeout": 20}}, fake_llm.url,
                             MCP_CHAT_TOKEN_KEY=TOKEN_KEY)
    yield process
    process.stop()


def _consent(authorization_server: str, gateway: GatewayProcess, person: str, authorization_url: str) -> dict:
    """`person` signs in at the authorization server, consents, and their browser follows the redirect back."""
    httpx.post(f"{authorization_server}/_login", json={"subject": person}).raise_for_status()
    redirect = httpx.get(authorization_url)
    assert redirect.status_code == 302 and redirect.headers["location"].startswith(f"{gateway.url}/oauth/callback?")
    callback = httpx.get(redirect.headers["location"])
    assert callback.status_code == 200, callback.text
    return callback.json()


def _server(gateway: GatewayProcess) -> dict:
    return next(row for row in gateway.get("/servers").json()["servers"] if row["name"] == "ident")


def _authorizations(gateway: GatewayProcess, user: str) -> dict:
    return {row["server"]: row for row in gateway.get(f"/chat/{user}/oauth").json()["servers"]}


def _whoami(gateway: GatewayProcess, fake_llm, user: str) -> dict:
    fake_llm.script({"tool_calls": [{"name": "ident__whoami", "arguments": {}}]}, {"content": "Checked."})
    reply = gateway.chat(user, {"message": "who am I at the identity server?"})
    assert reply.status_code == 200, reply.text
    return reply.json()


def _subject(reply: dict) -> str | None:
    call = reply["tool_calls"][0]
    assert not call["is_error"], call
    return call["text"].removeprefix("subject=")


def test_each_user_acts_as_themselves_and_revokes_only_their_own(gateway, fake_llm, authorization_server):
    row = _poll(lambda: _server(gateway), lambda r: r["needs_authorization"])
    assert row["needs_authorization"] and row["tools"] == []  # nobody has authorized: no tools known yet
    assert gateway.get("/health").json()["servers"]["ident"]["needs_authorization"] is True
    assert _authorizations(gateway, "alice")["ident"]["connected"] is False

    # Alice connects from the page (nobody has yet, so no tool lists it).
    started = httpx.post(f"{gateway.url}/chat/alice/oauth/ident").json()
    assert started["user"] == "alice" and started["connected"] is False and started["authorization_url"]
    assert httpx.get(f"{gateway.url}/oauth/callback", params={"state": "forged", "code": "x"}).status_code == 404
    assert _consent(authorization_server, gateway, "alice", started["authorization_url"])["user"] == "alice"
    assert _poll(lambda: _authorizations(gateway, "alice")["ident"], lambda r: r["session_up"])["connected"]
    assert _subject(_whoami(gateway, fake_llm, "alice")) == "alice"

    # Bob has not authorized: his call gets the link to do so (a notice, an SSE event), not Alice's identity.
    fake_llm.script({"tool_calls": [{"name": "ident__whoami", "arguments": {}}]}, {"content": "Checked."})
    events = gateway.stream_chat("bob", {"message": "who am I at the identity server?"})
    [authorization] = [data for event, data in events if event == "authorization"]
    done = next(data for event, data in events if event == "done")
    call = done["tool_calls"][0]
    assert call["is_error"] and call["reason"] == "needs_authorization"
    assert call["structured_content"]["authorization_url"] == authorization["authorization_url"]
    assert authorization["server"] == "ident" and "alice" not in str(done)
    [notice] = [n for n in done["notices"] if n["kind"] == "authorization"]
    assert authorization["authorization_url"] in notice["text"]
    assert authorization["authorization_url"] in done["response"], done["response"]
    assert "authorize it with the link below" in done["response"], done["response"]
    assert _authorizations(gateway, "bob")["ident"]["authorization_url"] == authorization["authorization_url"]

    assert _consent(authorization_server, gateway, "bob", authorization["authorization_url"])["user"] == "bob"
    _poll(lambda: _authorizations(gateway, "bob")["ident"], lambda r: r["session_up"])
    assert _subject(_whoami(gateway, fake_llm, "bob")) == "bob"
    assert _subject(_whoami(gateway, fake_llm, "alice")) == "alice"

    # At rest: one file per user, owner-only, encrypted: no token the authorization server issued is readable,
    # while the key does open each user's own.
    oauth_dir = gateway.work_dir / "data" / "oauth"
    files = sorted(path for path in oauth_dir.rglob("*") if path.is_file())
    assert {path.relative_to(oauth_dir).as_posix() for path in files} == {
        "ident.fernet", "ident/users/alice.fernet", "ident/users/bob.fernet"}
    issued = httpx.get(f"{authorization_server}/_issued").json()
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        sealed = path.read_bytes()
        assert not any(token.encode() in sealed for token in issued["access"] + issued["refresh"])
    opened = Fernet(TOKEN_KEY.encode()).decrypt((oauth_dir / "ident" / "users" / "bob.fernet").read_bytes()).decode()
    assert any(token in opened for token in issued["refresh"])

    # Alice revokes: her session and tokens go, Bob keeps his.
    revoked = httpx.delete(f"{gateway.url}/chat/alice/oauth/ident")
    assert revoked.status_code == 200 and revoked.json() == {"user": "alice", "server": "ident", "revoked": True}
    assert not (oauth_dir / "ident" / "users" / "alice.fernet").exists()
    assert _authorizations(gateway, "alice")["ident"]["connected"] is False
    again = _whoami(gateway, fake_llm, "alice")["tool_calls"][0]
    assert again["reason"] == "needs_authorization"
    assert _subject(_whoami(gateway, fake_llm, "bob")) == "bob"
    assert httpx.delete(f"{gateway.url}/chat/carol/oauth/ident").json()["revoked"] is False


def test_an_idle_session_closes_and_the_next_call_refreshes_without_asking(identity_server, fake_llm,
                                                                           authorization_server, tmp_path):
    idle = GatewayProcess(tmp_path, {"ident": {"type": "http", "url": identity_server, "timeout": 20}}, fake_llm.url,
                          MCP_CHAT_TOKEN_KEY=TOKEN_KEY, MCP_CHAT_OAUTH_IDLE="2")
    try:
        _poll(lambda: _authorizations(idle, "dora"), lambda rows: "ident" in rows)
        started = httpx.post(f"{idle.url}/chat/dora/oauth/ident").json()
        _consent(authorization_server, idle, "dora", started["authorization_url"])
        assert _poll(lambda: _server(idle), lambda r: r["up"])["up"]  # dora's session listed the tools
        assert _subject(_whoami(idle, fake_llm, "dora")) == "dora"
        closed = _poll(lambda: _authorizations(idle, "dora")["ident"], lambda r: not r["session_up"])
        assert closed["connected"] and not closed["session_up"]  # the session went, the tokens stayed
        stats = httpx.get(f"{authorization_server}/_stats").json()
        assert _subject(_whoami(idle, fake_llm, "dora")) == "dora"  # a new session, from the stored refresh token
        after = httpx.get(f"{authorization_server}/_stats").json()
        assert after["consents"] == stats["consents"] and after["refreshes"] > stats["refreshes"]
    finally:
        idle.stop()


def test_routes_refuse_what_is_not_a_per_user_oauth_server(gateway):
    assert httpx.post(f"{gateway.url}/chat/alice/oauth/nosuch").status_code == 404
    assert httpx.post(f"{gateway.url}/chat/bad user/oauth/ident").status_code == 400


BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}  # as Chromium sends it


def _state(authorization_url: str) -> str:
    return parse_qs(urlparse(authorization_url).query)["state"][0]


def test_a_browser_ends_on_a_page_saying_who_signed_in_or_why_not(gateway, authorization_server):
    started = httpx.post(f"{gateway.url}/chat/carol/oauth/ident").json()
    httpx.post(f"{authorization_server}/_login", json={"subject": "carol"}).raise_for_status()
    redirect = httpx.get(started["authorization_url"])
    page = httpx.get(redirect.headers["location"], headers=BROWSER)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<h1>Signed in to ident as carol.</h1><p>You can close this window.</p>" in page.text
    assert 'data-server="ident" data-user="carol" data-ok="true"' in page.text  # what signed_in.js broadcasts
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert _poll(lambda: _authorizations(gateway, "carol")["ident"], lambda r: r["session_up"])["connected"]

    # Refused at the authorization server: the page says why, with the reason escaped; nothing is connected.
    started = httpx.post(f"{gateway.url}/chat/dave/oauth/ident").json()
    page = httpx.get(f"{gateway.url}/oauth/callback", headers=BROWSER,
                     params={"state": _state(started["authorization_url"]), "error": "access_denied",
                             "error_description": "<b>no</b>"})
    assert page.status_code == 200 and 'class="failed"' in page.text and 'data-ok="false"' in page.text
    assert "<h1>Sign-in to ident failed: the authorization server refused (&lt;b&gt;no&lt;/b&gt;)</h1>" in page.text
    assert _poll(lambda: _authorizations(gateway, "dave")["ident"], lambda r: r["last_error"])["connected"] is False

    # The errors too, with their status, as a page for a browser and JSON for an API caller.
    forged = httpx.get(f"{gateway.url}/oauth/callback", params={"state": "forged"}, headers=BROWSER)
    assert forged.status_code == 404 and "<h1>Sign-in failed: no authorization is waiting for this state" in forged.text
    missing = httpx.get(f"{gateway.url}/oauth/callback", headers=BROWSER)
    assert missing.status_code == 400 and "the callback needs the &#x27;state&#x27;" in missing.text
    api = httpx.get(f"{gateway.url}/oauth/callback", params={"state": "forged"}, headers={"Accept": "application/json"})
    assert api.status_code == 404 and api.json()["error"]["code"] == "unknown_state"


def test_an_api_caller_is_told_of_a_refusal_in_json(gateway):
    started = httpx.post(f"{gateway.url}/chat/erin/oauth/ident").json()
    reply = httpx.get(f"{gateway.url}/oauth/callback", headers={"Accept": "application/json"},
                      params={"state": _state(started["authorization_url"]), "error": "access_denied"})
    assert reply.status_code == 200
    assert reply.json() == {"server": "ident", "user": "erin", "received": True, "error": "access_denied",
                            "message": "The authorization server refused (access_denied): nothing was connected. "
                                       "You may close this tab."}
