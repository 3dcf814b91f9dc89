"""The warm-up: a gateway whose LLM is on loopback reads the router's and the writer's fixed prompts at start, with
`/health` saying `warming` (and how far) until it is done, and again when the tool list changes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.support.gateway_processes import TINY_SERVER, GatewayProcess

ADMIN_TOKEN = "warm-up-admin-token"
# The router's prompt read in five chunks of 0.4 s, then the writer's in two.
ROUTER_WARM_UP = {"prefill": {"total": 2500, "chunk_s": [0.4] * 5}, "content": "x"}
WRITER_WARM_UP = {"prefill": {"total": 800, "chunk_s": [0.4] * 2}, "content": "x"}


def _health_until(gateway: GatewayProcess, done: Callable[[dict[str, Any]], bool],
                  timeout: float = 60) -> list[dict[str, Any]]:
    """Every distinct /health body until `done(body)`."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while not seen or not done(seen[-1]):
        assert time.monotonic() < deadline, seen
        body = gateway.get("/health").json()
        if not seen or body != seen[-1]:
            seen.append(body)
        time.sleep(0.1)
    return seen


@pytest.fixture(scope="module")
def warming_gateway(fake_llm, tmp_path_factory):
    fake_llm.script(ROUTER_WARM_UP, WRITER_WARM_UP)
    # MCP_CHAT_WARM_UP unset: on, as the LLM is on loopback.
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_warm_up"), {"tiny": TINY_SERVER}, fake_llm.url,
                             profile={"prefill_progress": True}, MCP_CHAT_WARM_UP="",
                             MCP_CHAT_ADMIN_TOKEN=ADMIN_TOKEN)
    yield process
    process.stop()


def test_health_says_warming_with_progress_then_ok(warming_gateway, fake_llm):
    seen = _health_until(warming_gateway, lambda body: body["warm_up"]["state"] == "ready")
    warming = [body for body in seen if body["status"] == "warming"]
    assert warming and all(body["warm_up"]["state"] == "warming" for body in warming)
    progress = [(body["warm_up"]["done"], body["warm_up"]["total"]) for body in warming]
    assert progress == sorted(progress) and len(set(progress)) > 2  # it advanced while it was read
    assert any(0 < done < total for done, total in progress)
    ready = seen[-1]
    assert ready["status"] == "ok"
    assert ready["warm_up"] == {"state": "ready", "done": 3300, "total": 3300, "error": None}
    router, writer = fake_llm.requests()
    assert router["max_tokens"] == writer["max_tokens"] == 1
    assert "tiny__echo" in {tool["function"]["name"] for tool in router["tools"]}


def test_a_new_tool_list_is_warmed_in_the_background(warming_gateway, fake_llm):
    _health_until(warming_gateway, lambda body: body["warm_up"]["state"] == "ready")
    fake_llm.script(ROUTER_WARM_UP, WRITER_WARM_UP)
    added = httpx.post(f"{warming_gateway.url}/servers", json={"name": "tiny2", **TINY_SERVER},
                       headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=60)
    assert added.status_code == 201, added.text
    seen = _health_until(warming_gateway, lambda body: body["warm_up"]["state"] == "ready"
                         and len(fake_llm.requests()) == 2)
    assert any(body["status"] == "warming" for body in seen)
    router, _ = fake_llm.requests()
    assert {"tiny__echo", "tiny2__echo"} <= {tool["function"]["name"] for tool in router["tools"]}
    # Chat goes on meanwhile and after.
    fake_llm.script({"content": "Hello there."})
    assert warming_gateway.chat("mia", {"message": "hi", "use_tools": False}).json()["response"] == "Hello there."


def test_a_warm_up_the_llm_refused_with_a_server_error_is_tried_again_until_it_is_done(fake_llm, tmp_path):
    # A backend started after the gateway, or still loading, answers 5xx (or nothing): the warm-up must not give up.
    fake_llm.script({"status": 503}, ROUTER_WARM_UP, WRITER_WARM_UP)
    process = GatewayProcess(tmp_path, {"tiny": TINY_SERVER}, fake_llm.url, profile={"prefill_progress": True},
                             MCP_CHAT_WARM_UP="")
    try:
        seen = _health_until(process, lambda body: body["warm_up"]["state"] == "ready")
        failed = [body["warm_up"] for body in seen if body["warm_up"]["state"] == "failed"]
        assert failed and "503" in failed[0]["error"]
        assert seen[-1]["warm_up"]["error"] is None
        assert len(fake_llm.requests()) == 3  # the refused router call, then the router's and the writer's
    finally:
        process.stop()
