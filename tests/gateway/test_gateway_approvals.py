"""Ask before calling: a server registered with `"confirm": true` (or a request with `"confirm_tools": true`) gets
an SSE `approval` event before each call; the user approves or denies it at `POST /chat/<user>/approvals/<id>`;
a denied or unanswered call is never made and the answer says the user did not allow it. Real processes: the
gateway, the scripted LLM and the tiny MCP server."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx
import pytest

from mcp_chat_app.mcp_client.registry import parse_server_spec

from tests.support.gateway_processes import TINY_SERVER, GatewayProcess


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_approvals"),
                             {"guarded": {**TINY_SERVER, "confirm": True}, "free": TINY_SERVER}, fake_llm.url)
    yield process
    process.stop()


def _touch(server: str, path: Path) -> dict:
    return {"tool_calls": [{"name": f"{server}__sleep_then_touch", "arguments": {"path": str(path), "seconds": 0}}]}


def _chat_deciding(gateway: GatewayProcess, user: str, decision: dict | None, **body) -> tuple[list, list]:
    """Stream a chat; answer each approval request with `decision` (None: leave it unanswered)."""
    replies = []

    def decide(event: str, data: dict) -> None:
        if event == "approval" and decision is not None:
            replies.append(httpx.post(f"{gateway.url}/chat/{user}/approvals/{data['id']}", json=decision))

    return gateway.stream_chat(user, {"message": "touch the file", **body}, decide), replies


def test_an_approved_call_is_made_after_the_user_says_yes(gateway, fake_llm, tmp_path):
    target = tmp_path / "approved"
    fake_llm.script(_touch("guarded", target), {"content": "Done, the file exists."})
    events, (reply,) = _chat_deciding(gateway, "hana", {"decision": "approve"})
    names = [event for event, _ in events]
    assert names.index("tool_call") < names.index("approval") < names.index("approval_closed") \
        < names.index("tool_result") < names.index("done")
    request = dict(events)["approval"]
    assert (request["server"], request["tool"], request["arguments"]) == (
        "guarded", "sleep_then_touch", {"path": str(target), "seconds": 0})
    assert reply.status_code == 200 and reply.json() == {"id": request["id"], "decision": "approve",
                                                         "delivered": True}
    assert dict(events)["approval_closed"] == {"id": request["id"], "decision": "approve"}
    assert not dict(events)["tool_result"]["is_error"] and target.exists()
    assert dict(events)["done"]["response"] == "Done, the file exists."


def test_a_denied_call_is_not_made_and_the_answer_says_so(gateway, fake_llm, tmp_path):
    target = tmp_path / "denied"
    fake_llm.script(_touch("guarded", target), {"content": "I touched the file."})
    events, (reply,) = _chat_deciding(gateway, "ivan", {"decision": "deny"})
    assert reply.status_code == 200 and not target.exists()
    result = dict(events)["tool_result"]
    assert result["is_error"] and result["reason"] == "denied"
    assert result["text"] == "the user did not allow this call"
    # The model is told the user said no (not handed an error dump), and the answer says it, not the model's claim.
    fed_back = [m for m in fake_llm.requests()[1]["messages"] if m["role"] == "tool"]
    assert json.loads(fed_back[0]["content"]) == {"error": "the user did not allow this call"}
    assert dict(events)["done"]["response"] == (
        "You did not allow the call to sleep_then_touch (guarded), so I did not look that up.")


def test_read_only_tools_of_servers_without_confirm_are_called_unasked_unless_the_request_asks(gateway, fake_llm):
    echo = {"tool_calls": [{"name": "free__sleep_then_echo", "arguments": {"text": "hi", "seconds": 0}}]}
    fake_llm.script(echo, {"content": "Done."})
    events, _ = _chat_deciding(gateway, "jon", {"decision": "deny"})
    assert "approval" not in dict(events) and not dict(events)["tool_result"]["is_error"]
    fake_llm.script(echo, {"content": "Done."})
    events, _ = _chat_deciding(gateway, "jon", {"decision": "deny"}, confirm_tools=True)
    assert dict(events)["approval"]["server"] == "free" and dict(events)["tool_result"]["reason"] == "denied"


def test_without_a_stream_no_one_can_approve_so_the_call_is_not_made(gateway, fake_llm, tmp_path):
    fake_llm.script(_touch("guarded", tmp_path / "json"), {"content": "Done."})
    reply = gateway.chat("kim", {"message": "touch the file"}).json()
    assert reply["tool_calls"][0]["reason"] == "needs_approval" and not (tmp_path / "json").exists()
    (notice,) = reply["notices"]
    assert notice["kind"] == "approval"
    assert notice["allow"]["path"] == "/chat/kim/approvals/policy/guarded/sleep_then_touch"


def test_bad_decisions_are_refused_and_the_request_stays_open(gateway, fake_llm, tmp_path):
    fake_llm.script(_touch("guarded", tmp_path / "bad"), {"content": "Done."})
    outcomes: dict = {}

    def decide(approval_id: str) -> None:
        url = f"{gateway.url}/chat/lou/approvals/{approval_id}"
        outcomes["bad decision"] = httpx.post(url, json={"decision": "maybe"})
        outcomes["no decision"] = httpx.post(url, json={})
        outcomes["not JSON"] = httpx.post(url, content=b"approve", headers={"Content-Type": "text/plain"})
        outcomes["other user"] = httpx.post(f"{gateway.url}/chat/max/approvals/{approval_id}",
                                            json={"decision": "approve"})
        outcomes["as an elicitation"] = httpx.post(f"{gateway.url}/chat/lou/elicitations/{approval_id}",
                                                   json={"action": "accept", "content": {}})
        outcomes["good"] = httpx.post(url, json={"decision": "approve"})
        outcomes["again"] = httpx.post(url, json={"decision": "deny"})

    threads = []

    def decide_on_a_thread(event: str, data: dict) -> None:
        if event == "approval":
            threads.append(threading.Thread(target=decide, args=(data["id"],)))
            threads[0].start()

    gateway.stream_chat("lou", {"message": "touch"}, decide_on_a_thread)
    threads[0].join()
    statuses = {name: (reply.status_code, reply.json()["error"]["code"] if reply.status_code >= 400 else None)
                for name, reply in outcomes.items()}
    assert statuses == {"bad decision": (400, "bad_request"), "no decision": (400, "bad_request"),
                        "not JSON": (415, "unsupported_media_type"), "other user": (404, "unknown_approval"),
                        "as an elicitation": (404, "unknown_question"), "good": (200, None),
                        "again": (404, "unknown_approval")}
    assert (tmp_path / "bad").exists()


@pytest.fixture(scope="module")
def impatient_gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_approvals_timeout"),
                             {"guarded": {**TINY_SERVER, "confirm": True}}, fake_llm.url,
                             MCP_CHAT_ELICITATION_TIMEOUT="1")
    yield process
    process.stop()


def test_a_call_nobody_approves_in_time_is_denied(impatient_gateway, fake_llm, tmp_path):
    fake_llm.script(_touch("guarded", tmp_path / "late"), {"content": "Done."})
    events, _ = _chat_deciding(impatient_gateway, "nora", None)
    request = dict(events)["approval"]
    assert request["timeout_s"] == 1
    assert dict(events)["approval_closed"] == {"id": request["id"], "decision": "timeout"}
    assert dict(events)["tool_result"]["reason"] == "denied" and not (tmp_path / "late").exists()


def test_confirm_must_be_true_or_false():
    assert parse_server_spec("s", {"command": "x", "confirm": True}).confirm
    assert not parse_server_spec("s", {"command": "x"}).confirm
    with pytest.raises(ValueError, match="'confirm' must be a bool"):
        parse_server_spec("s", {"command": "x", "confirm": "yes"})
