"""Who can use the backend and what one caller can learn about another.

A real server with an API key (given through LLM_BACKEND_API_KEY, as `mcp-chat up` does): every
model route needs the key; /metrics only from loopback; no debug routes unless asked for; it will
not listen beyond loopback without a key. And the prefix cache, which a caller could otherwise probe
through `cached_tokens` to confirm what another caller wrote, is isolated by `cache_salt`.
"""
from __future__ import annotations

import asyncio

import httpx
import openai
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from llm_backend import cli
from llm_backend.server.access import AccessControl
from llm_backend.server.openapi import openapi_spec
from llm_backend.server.options import ServeOptions
from tests.support.backend_server import TEST_THREADS, running_server

MODEL = "smollm2-135m-instruct"
KEY = "test-key-5f2c"
AUTH = {"Authorization": f"Bearer {KEY}"}
CHAT = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}


@pytest.fixture(scope="module")
def base_url():
    with running_server(MODEL, "--kv-cache-memory", "64MiB", "--max-model-len", "2048",
                        env={"LLM_BACKEND_API_KEY": KEY}, threads=TEST_THREADS) as url:
        yield url


@pytest.mark.parametrize("method, path, body", [
    ("GET", "/v1/models", None), ("POST", "/v1/chat/completions", CHAT),
    ("POST", "/v1/completions", {"model": MODEL, "prompt": "Hi", "max_tokens": 2}),
    ("POST", "/tokenize", {"prompt": "Hi"}),
])
def test_model_routes_need_the_key(base_url, method, path, body):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}):
        refused = httpx.request(method, f"{base_url}{path}", json=body, headers=headers, timeout=30)
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        assert refused.json()["error"]["code"] == "invalid_api_key"
    assert httpx.request(method, f"{base_url}{path}", json=body, headers=AUTH, timeout=30).status_code == 200


def test_the_sdk_gets_an_authentication_error_without_the_key(base_url):
    anonymous = openai.OpenAI(base_url=f"{base_url}/v1", api_key="not-the-key", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        anonymous.chat.completions.create(**CHAT)
    keyed = openai.OpenAI(base_url=f"{base_url}/v1", api_key=KEY, max_retries=0)
    assert keyed.chat.completions.create(**CHAT).usage.completion_tokens >= 1


def test_health_openapi_and_loopback_metrics_need_no_key(base_url):
    assert httpx.get(f"{base_url}/health").json() == {"status": "ok"}
    assert httpx.get(f"{base_url}/openapi.json").json() == openapi_spec(MODEL)
    assert "llm_backend_kv_cache_blocks_total" in httpx.get(f"{base_url}/metrics").text


def test_debug_routes_are_off_unless_asked_for(base_url):
    assert httpx.get(f"{base_url}/debug/kv_cache", headers=AUTH).status_code == 404
    assert "/debug/kv_cache" not in openapi_spec(MODEL)["paths"]
    assert "/debug/kv_cache" in openapi_spec(MODEL, debug_endpoints=True)["paths"]


def metrics_from(client_host: str, api_key: str | None, headers: dict | None = None) -> httpx.Response:
    """GET /metrics through the access middleware, as a client at `client_host` would."""
    app = Starlette(routes=[Route("/metrics", lambda request: PlainTextResponse("metrics"))],
                    middleware=[Middleware(AccessControl, api_key=api_key)])
    transport = httpx.ASGITransport(app=app, client=(client_host, 40000))

    async def get() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://backend") as client:
            return await client.get("/metrics", headers=headers or {})
    return asyncio.run(get())


def test_metrics_from_beyond_loopback_need_the_key():
    assert metrics_from("127.0.0.1", None).status_code == 200
    assert metrics_from("::ffff:127.0.0.1", KEY).status_code == 200
    assert metrics_from("192.0.2.7", None).status_code == 403  # no key configured: loopback only
    assert metrics_from("192.0.2.7", KEY).status_code == 401
    assert metrics_from("192.0.2.7", KEY, AUTH).status_code == 200


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7", "gpu-box.example"])
def test_serving_beyond_loopback_without_a_key_is_refused_before_the_model_loads(host, capsys, monkeypatch):
    monkeypatch.delenv("LLM_BACKEND_API_KEY", raising=False)
    with pytest.raises(SystemExit) as exited:
        cli.main(["serve", "--host", host])
    assert exited.value.code == 2
    assert f"refusing to serve on '{host}' without an API key" in capsys.readouterr().err


def test_a_key_or_insecure_lets_the_server_bind_anywhere(monkeypatch):
    parser = cli.build_parser()
    monkeypatch.delenv("LLM_BACKEND_API_KEY", raising=False)
    cli.serve_options(parser.parse_args(["serve", "--host", "0.0.0.0", "--insecure"])).check()
    cli.serve_options(parser.parse_args(["serve", "--host", "0.0.0.0", "--api-key", KEY])).check()
    monkeypatch.setenv("LLM_BACKEND_API_KEY", KEY)
    options = cli.serve_options(parser.parse_args(["serve", "--host", "0.0.0.0"]))
    options.check()
    assert options.api_key == KEY
    for loopback in ("127.0.0.1", "localhost", "::1"):
        ServeOptions(host=loopback).check()


# ---- the prefix-cache side channel -----------------------------------------------------------------

SYSTEM = {"role": "system", "content": "You are the assistant of a bank. Answer briefly and politely. " * 12}
SECRET = ("My card PIN is 4821. Please keep it for me, with my account number, 99-1234-5678, and my sort "
          "code, 40-11-62.")
WRONG_GUESS = SECRET.replace("4821", "0000")


def cached_tokens(base_url: str, text: str, salt: str | None, shared_messages: int = 1) -> int:
    body = {**CHAT, "max_tokens": 1, "messages": [SYSTEM, {"role": "user", "content": text}]}
    if salt is not None:
        body.update(cache_salt=salt, cache_shared_messages=shared_messages)
    response = httpx.post(f"{base_url}/v1/chat/completions", json=body, headers=AUTH, timeout=30)
    return response.json()["usage"]["prompt_tokens_details"]["cached_tokens"]


def system_prompt_tokens(base_url: str) -> int:
    """Whole cache blocks (16 tokens) of the rendered system turn: what every salt may share."""
    rendered = httpx.post(f"{base_url}/tokenize", headers=AUTH, json={
        "messages": [SYSTEM], "add_generation_prompt": False}).json()["count"]
    return rendered // 16 * 16


def test_without_salts_a_probe_confirms_another_callers_prompt(base_url):
    """The channel the salt closes: the guess that matches hits more of the cache than one that does not."""
    victim, wrong = f"[unsalted] {SECRET}", f"[unsalted] {WRONG_GUESS}"
    cached_tokens(base_url, victim, None)
    assert cached_tokens(base_url, victim, None) > cached_tokens(base_url, wrong, None) + 16


def test_across_salts_cached_tokens_reveal_nothing_but_the_system_prompt_stays_shared(base_url):
    shared = system_prompt_tokens(base_url)
    cached_tokens(base_url, SECRET, "alice")  # the victim's conversation is in the cache now
    assert cached_tokens(base_url, SECRET, "alice") > shared + 16  # for her, her own turn hits too
    probes = {"right guess": cached_tokens(base_url, SECRET, "mallory"),
              "wrong guess": cached_tokens(base_url, WRONG_GUESS, "mallory-2")}
    # Each probe finds exactly the shared system prompt (so none reprocesses it, and each takes as long
    # as any other): the right guess looks like the wrong one.
    assert shared >= 160 and set(probes.values()) == {shared}, probes
    # A salt alone (vLLM's semantics) isolates the whole prompt, system prompt included.
    assert cached_tokens(base_url, SECRET, "mallory-3", shared_messages=0) == 0
