"""What the gateway tells the model server about each call: whose it is, and how long it will wait.

On a profile with `cache_salt` (the local ones), every LLM call made for a user carries that user's own
cache salt, the same on every call of theirs, streamed or not, and shares only the leading system
messages (system prompt and tool list, no user data), so llm_backend's prefix cache never shows one user
another's conversation. Every call carries the profile's API key and its `timeout_s` as
`X-Request-Timeout`, after which the backend stops generating for a client that has given up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_chat_app.llm.profiles import load_roles

from tests.support.gateway_processes import TINY_SERVER, GatewayProcess

KEY = "gateway-to-backend-key"


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_llm_scope"), {"tiny": TINY_SERVER}, fake_llm.url,
                             profile={"cache_salt": True, "timeout_s": 45, "api_key_env": "SCOPE_TEST_LLM_KEY"},
                             SCOPE_TEST_LLM_KEY=KEY)
    yield process
    process.stop()


def ask(gateway, user: str, stream: bool = False) -> None:
    body = {"message": f"Hello, I am {user}.", "use_tools": False, "stream": stream}
    response = gateway.chat(user, body)
    assert response.status_code == 200, response.text
    if stream:
        assert "event: done" in response.text, response.text


def test_each_user_has_a_salt_of_their_own_on_every_call_and_shares_the_system_prompt(gateway, fake_llm):
    fake_llm.script(*[{"content": "Hi!"}] * 4)
    ask(gateway, "alice")
    ask(gateway, "bob")
    ask(gateway, "alice", stream=True)  # on the SSE worker thread
    ask(gateway, "alice")
    sent = fake_llm.requests()
    salts = [request["cache_salt"] for request in sent]
    assert salts[0] == salts[2] == salts[3] != salts[1]
    assert all(len(salt) == 32 and "alice" not in salt for salt in salts)
    for request in sent:
        assert request["messages"][0]["role"] == "system" and request["cache_shared_messages"] == 1


def test_every_call_carries_the_key_and_the_timeout(gateway, fake_llm):
    fake_llm.script({"content": "Hi!"})
    ask(gateway, "carol")
    assert fake_llm.headers() == [{"authorization": f"Bearer {KEY}", "x-request-timeout": "45"}]


def test_a_profile_without_cache_salt_sends_none(fake_llm, tmp_path):
    plain = GatewayProcess(tmp_path, {"tiny": TINY_SERVER}, fake_llm.url)
    try:
        fake_llm.script({"content": "Hi!"})
        ask(plain, "alice")
    finally:
        plain.stop()
    (sent,) = fake_llm.requests()
    assert "cache_salt" not in sent and "cache_shared_messages" not in sent, json.dumps(sent)[:300]


def test_the_shipped_local_profiles_salt_and_the_remote_ones_do_not():
    path = Path(__file__).resolve().parents[2] / "configs" / "models.json"
    assert all(load_roles(path, name).router.cache_salt for name in ("local", "local-0.5b", "local-prompt-json"))
    assert not load_roles(path, "openai").router.cache_salt
    hybrid = load_roles(path, "hybrid")
    assert hybrid.router.cache_salt and not hybrid.writer.cache_salt
    assert load_roles(path, "local").router.api_key_env == "LOCAL_LLM_API_KEY"
