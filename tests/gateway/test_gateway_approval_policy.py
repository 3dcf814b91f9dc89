"""The approval policy: which calls are asked about follows the tools' MCP annotations (read-only ones are called
unasked, others asked, a `confirm` server's always asked), and what the user answers on the card can be remembered
for the conversation or always (allow or deny), per user, listed and revoked at `/chat/<user>/approvals/policy`.
A plain JSON request, which cannot be asked, does not make a call that needs asking: its reply says which and how
to allow it, a rule a JSON client keeps with `PUT /chat/<user>/approvals/policy/<server>/<tool>`. Real processes:
the gateway, the scripted LLM and an MCP server with annotated tools (tests/support/annotated_mcp_server.py), whose
tools leave files behind, so each test sees what really ran."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from mcp_chat_app.mcp_client.approval_policy import Rule, ToolHints, verdict
from tests.support.gateway_processes import ANNOTATED_SERVER as ANNOTATED
from tests.support.gateway_processes import GatewayProcess

ALL_FOR_ONE = ["once", "conversation", "always"]


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_approval_policy"),
                             {"notes": ANNOTATED, "vault": {**ANNOTATED, "confirm": True}}, fake_llm.url)
    yield process
    process.stop()


def _call(gateway: GatewayProcess, fake_llm, user: str, tool: str, path: Path,
          decision: dict | list[dict] | None = None, **body) -> dict:
    """One streamed chat in which the model calls `tool` on `path`; an approval card is answered with `decision`
    (a list: each in turn; None: a card must not come). The events by name, and the replies to the decisions."""
    server, _, name = tool.partition("__")
    fake_llm.script({"tool_calls": [{"name": tool, "arguments": {"path": str(path)}}]}, {"content": "Done."})
    replies = []

    def decide(event: str, data: dict) -> None:
        if event == "approval":
            assert decision is not None, f"asked about {tool} unexpectedly"
            for each in decision if isinstance(decision, list) else [decision]:
                replies.append(httpx.post(f"{gateway.url}/chat/{user}/approvals/{data['id']}", json=each))

    events = dict(gateway.stream_chat(user, {"message": f"{name} {path}", **body}, decide))
    assert (events["tool_result"]["server"], events["tool_result"]["tool"]) == (server, name)
    return {**events, "replies": replies}


def _json_call(gateway: GatewayProcess, fake_llm, user: str, tool: str, path: Path, **body) -> dict:
    """One plain JSON chat in which the model calls `tool` on `path`: the reply."""
    fake_llm.script({"tool_calls": [{"name": tool, "arguments": {"path": str(path)}}]}, {"content": "Done."})
    reply = gateway.chat(user, {"message": f"{tool.partition('__')[2]} {path}", **body})
    assert reply.status_code == 200, reply.text
    return reply.json()


def _new_conversation(gateway: GatewayProcess, user: str) -> str:
    reply = httpx.post(f"{gateway.url}/chat/{user}/conversations", json={"title": "another"})
    assert reply.status_code == 201
    return reply.json()["id"]


def _rules(gateway: GatewayProcess, user: str) -> list[tuple]:
    body = gateway.get(f"/chat/{user}/approvals/policy").json()
    assert body["user"] == user
    return [(rule["server"], rule["tool"], rule["decision"], rule["scope"], rule["conversation"])
            for rule in body["rules"]]


def test_by_default_read_only_tools_run_unasked_and_the_others_are_asked_about(gateway, fake_llm, tmp_path):
    looked = _call(gateway, fake_llm, "ada", "notes__look", tmp_path / "a")
    assert "approval" not in looked and (tmp_path / "a.looked").exists()
    written = _call(gateway, fake_llm, "ada", "notes__write", tmp_path / "b", {"decision": "approve"})
    assert written["approval"]["remember"] == ALL_FOR_ONE and (tmp_path / "b").exists()
    assert (written["approval"]["read_only"], written["approval"]["destructive"]) == (False, False)
    erased = _call(gateway, fake_llm, "ada", "notes__erase", tmp_path / "b", {"decision": "deny"})
    # A destructive tool's allow is never only for a conversation.
    assert erased["approval"]["remember"] == ["once", "always"] and erased["approval"]["destructive"]
    assert erased["tool_result"]["reason"] == "denied" and (tmp_path / "b").exists()
    # A server registered with `confirm` is asked about even for its read-only tools.
    guarded = _call(gateway, fake_llm, "ada", "vault__look", tmp_path / "c", {"decision": "approve"})
    assert guarded["approval"]["read_only"] and (tmp_path / "c.looked").exists()
    assert _rules(gateway, "ada") == []  # answered once each: nothing remembered


def test_allow_for_this_conversation_stops_asking_there_only_and_ends_with_it(gateway, fake_llm, tmp_path):
    first = _call(gateway, fake_llm, "bea", "notes__write", tmp_path / "1",
                  {"decision": "approve", "remember": "conversation"})
    assert first["replies"][0].json() == {"id": first["approval"]["id"], "decision": "approve",
                                          "remember": "conversation", "delivered": True}
    assert first["approval_closed"] == {"id": first["approval"]["id"], "decision": "approve",
                                        "remember": "conversation"}
    again = _call(gateway, fake_llm, "bea", "notes__write", tmp_path / "2")
    assert "approval" not in again and (tmp_path / "2").exists()
    assert _rules(gateway, "bea") == [("notes", "write", "allow", "conversation", "default")]
    other = _new_conversation(gateway, "bea")
    elsewhere = _call(gateway, fake_llm, "bea", "notes__write", tmp_path / "3", {"decision": "deny"},
                      conversation=other)
    assert "approval" in elsewhere and not (tmp_path / "3").exists()
    # Only this tool: the server's other tools are still asked about in the conversation.
    assert "approval" in _call(gateway, fake_llm, "bea", "notes__erase", tmp_path / "1", {"decision": "deny"})
    assert httpx.delete(f"{gateway.url}/chat/bea/conversations/default").status_code == 200
    assert _rules(gateway, "bea") == []
    assert "approval" in _call(gateway, fake_llm, "bea", "notes__write", tmp_path / "4", {"decision": "deny"})


def test_always_allow_holds_in_every_conversation_and_after_a_restart(fake_llm, tmp_path):
    gateway = GatewayProcess(tmp_path / "gateway", {"notes": ANNOTATED}, fake_llm.url)
    try:
        _call(gateway, fake_llm, "cai", "notes__write", tmp_path / "1", {"decision": "approve", "remember": "always"})
        other = _new_conversation(gateway, "cai")
        assert "approval" not in _call(gateway, fake_llm, "cai", "notes__write", tmp_path / "2", conversation=other)
        gateway.restart()
        assert "approval" not in _call(gateway, fake_llm, "cai", "notes__write", tmp_path / "3", conversation=other)
        assert all((tmp_path / name).exists() for name in "123")
        assert _rules(gateway, "cai") == [("notes", "write", "allow", "always", None)]
    finally:
        gateway.stop()


def test_a_destructive_tool_asks_every_time_until_it_is_always_allowed(gateway, fake_llm, tmp_path):
    target = tmp_path / "precious"
    # "For this conversation" is refused for it, and the card stays open for a decision that fits.
    first = _call(gateway, fake_llm, "dov", "notes__erase", target,
                  [{"decision": "approve", "remember": "conversation"}, {"decision": "approve"}])
    refused, accepted = first["replies"]
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_answer"
    assert "'remember' must be one of once, always" in refused.json()["error"]["message"]
    assert accepted.status_code == 200 and (tmp_path / "precious.erased").exists()
    asked = [first]
    for decision in ({"decision": "approve"}, {"decision": "approve", "remember": "always"}, None):
        asked.append(_call(gateway, fake_llm, "dov", "notes__erase", target, decision))
    assert ["approval" in events for events in asked] == [True, True, True, False]
    assert not asked[-1]["tool_result"]["is_error"]
    assert _rules(gateway, "dov") == [("notes", "erase", "allow", "always", None)]


def test_a_denied_tool_is_refused_without_asking_streamed_or_not(gateway, fake_llm, tmp_path):
    _call(gateway, fake_llm, "eli", "notes__write", tmp_path / "1", {"decision": "deny", "remember": "always"})
    refused = _call(gateway, fake_llm, "eli", "notes__write", tmp_path / "2", confirm_tools=True)
    assert "approval" not in refused and refused["tool_result"]["reason"] == "denied"
    assert refused["tool_result"]["text"] == "the user did not allow this call"
    # Denying a read-only tool always refuses it too, also where nobody could be asked (a plain JSON request).
    _call(gateway, fake_llm, "eli", "vault__look", tmp_path / "3", {"decision": "deny", "remember": "always"})
    fake_llm.script({"tool_calls": [{"name": "vault__look", "arguments": {"path": str(tmp_path / "4")}}]},
                    {"content": "Done."})
    (call,) = gateway.chat("eli", {"message": "look"}).json()["tool_calls"]
    assert call["reason"] == "denied"
    assert not any((tmp_path / name).exists() for name in ("1", "2", "3.looked", "4.looked"))


def test_an_always_allowed_call_of_a_confirm_server_runs_in_a_plain_json_request(gateway, fake_llm, tmp_path):
    _call(gateway, fake_llm, "fay", "vault__write", tmp_path / "1", {"decision": "approve", "remember": "always"})
    fake_llm.script({"tool_calls": [{"name": "vault__write", "arguments": {"path": str(tmp_path / "2")}}]},
                    {"content": "Done."})
    (call,) = gateway.chat("fay", {"message": "write"}).json()["tool_calls"]
    assert not call["is_error"] and (tmp_path / "2").exists()
    # ... but a request that asks about every call still asks (and, unable to ask, does not make it: no kept
    # decision would let it through, so the notice offers none).
    fake_llm.script({"tool_calls": [{"name": "vault__write", "arguments": {"path": str(tmp_path / "3")}}]},
                    {"content": "Done."})
    reply = gateway.chat("fay", {"message": "write", "confirm_tools": True}).json()
    (call,), (notice,) = reply["tool_calls"], reply["notices"]
    assert call["reason"] == "needs_approval" and not (tmp_path / "3").exists()
    assert notice["allow"] is None and '"confirm_tools": true' in notice["text"]
    asked = _call(gateway, fake_llm, "fay", "vault__write", tmp_path / "4", {"decision": "approve"},
                  confirm_tools=True)
    assert "approval" in asked and (tmp_path / "4").exists()


def test_rules_are_listed_and_revoked_one_by_one_or_all(gateway, fake_llm, tmp_path):
    conversation = _new_conversation(gateway, "gus")
    _call(gateway, fake_llm, "gus", "notes__write", tmp_path / "1", {"decision": "approve", "remember": "always"})
    _call(gateway, fake_llm, "gus", "notes__write", tmp_path / "2", {"decision": "deny", "remember": "conversation"},
          conversation=conversation, confirm_tools=True)
    _call(gateway, fake_llm, "gus", "vault__look", tmp_path / "3", {"decision": "approve", "remember": "always"})
    assert _rules(gateway, "gus") == [("notes", "write", "allow", "always", None),
                                      ("notes", "write", "deny", "conversation", conversation),
                                      ("vault", "look", "allow", "always", None)]
    base = f"{gateway.url}/chat/gus/approvals/policy"
    one = httpx.delete(f"{base}/notes/write", params={"conversation": conversation})
    assert one.json() == {"user": "gus", "server": "notes", "tool": "write", "deleted": 1}
    assert _rules(gateway, "gus") == [("notes", "write", "allow", "always", None),
                                      ("vault", "look", "allow", "always", None)]
    again = httpx.delete(f"{base}/notes/write", params={"conversation": conversation})
    assert again.status_code == 404 and again.json()["error"]["code"] == "unknown_rule"
    bad = [httpx.delete(f"{base}/notes/wr%20ite"), httpx.delete(f"{base}/notes/write", params={"conversation": "a b"}),
           httpx.delete(f"{gateway.url}/chat/g%20us/approvals/policy")]
    assert [(reply.status_code, reply.json()["error"]["code"]) for reply in bad] == [
        (400, "bad_request"), (400, "bad_conversation"), (400, "bad_user")]
    assert httpx.delete(base).json() == {"user": "gus", "deleted": 2}
    assert _rules(gateway, "gus") == []
    assert "approval" in _call(gateway, fake_llm, "gus", "vault__look", tmp_path / "4", {"decision": "deny"})


def test_one_users_rules_never_apply_to_another(gateway, fake_llm, tmp_path):
    _call(gateway, fake_llm, "hal", "notes__write", tmp_path / "1", {"decision": "approve", "remember": "always"})
    assert "approval" in _call(gateway, fake_llm, "ivy", "notes__write", tmp_path / "2", {"decision": "deny"})
    assert _rules(gateway, "ivy") == [] and len(_rules(gateway, "hal")) == 1
    # Another user cannot revoke them either: for ivy there is nothing there.
    assert httpx.delete(f"{gateway.url}/chat/ivy/approvals/policy/notes/write").status_code == 404
    assert httpx.delete(f"{gateway.url}/chat/ivy/approvals/policy").json()["deleted"] == 0
    assert len(_rules(gateway, "hal")) == 1


def test_a_decision_with_an_unknown_remember_is_refused_and_the_card_stays_open(gateway, fake_llm, tmp_path):
    events = _call(gateway, fake_llm, "jay", "notes__write", tmp_path / "1",
                   [{"decision": "approve", "remember": "forever"}, {"decision": "approve", "remember": True},
                    {"decision": "deny", "remember": "once"}])
    assert [(reply.status_code, reply.json().get("error", {}).get("code")) for reply in events["replies"]] == [
        (400, "bad_request"), (400, "bad_request"), (200, None)]
    assert events["replies"][2].json() == {"id": events["approval"]["id"], "decision": "deny", "delivered": True}
    assert events["tool_result"]["reason"] == "denied" and _rules(gateway, "jay") == []


def test_a_json_request_does_not_make_a_call_that_needs_approval_and_says_how_to_allow_it(gateway, fake_llm,
                                                                                         tmp_path):
    target = tmp_path / "1"
    reply = _json_call(gateway, fake_llm, "kit", "notes__write", target)
    (call,) = reply["tool_calls"]
    assert (call["reason"], call["text"]) == ("needs_approval", "not run: this tool needs the user's approval")
    assert not target.exists()  # the server never got the call
    # The model read that it was not run; the answer names the tool and why, and uses nothing the model wrote.
    (fed_back,) = [m for m in fake_llm.requests()[1]["messages"] if m["role"] == "tool"]
    assert json.loads(fed_back["content"]) == {"error": "not run: this tool needs the user's approval"}
    allow = {"method": "PUT", "path": "/chat/kit/approvals/policy/notes/write",
             "body": {"decision": "allow", "scope": "conversation", "conversation": "default"},
             "scopes": ["conversation", "always"]}
    (notice,) = reply["notices"]
    assert notice == {"server": "notes", "kind": "approval", "tool": "write", "arguments": {"path": str(target)},
                      "allow": allow, "text": notice["text"]}
    assert ('send PUT /chat/kit/approvals/policy/notes/write {"decision": "allow", "scope": "conversation", '
            '"conversation": "default"}') in notice["text"]
    assert reply["response"] == f"I did not run write (notes): it needs your approval first.\n\n{notice['text']}"
    # A read-only tool is made unasked.
    assert not _json_call(gateway, fake_llm, "kit", "notes__look", target)["tool_calls"][0]["is_error"]
    assert (tmp_path / "1.looked").exists()
    # The client sends what the notice says; the same request then makes the call.
    kept = httpx.put(f"{gateway.url}{allow['path']}", json=allow["body"])
    assert kept.status_code == 200 and kept.json() == {
        "user": "kit", "server": "notes", "tool": "write", "decision": "allow", "scope": "conversation",
        "conversation": "default", "created_at": kept.json()["created_at"]}
    again = _json_call(gateway, fake_llm, "kit", "notes__write", target)
    assert not again["tool_calls"][0]["is_error"] and again["notices"] == [] and target.exists()
    assert _rules(gateway, "kit") == [("notes", "write", "allow", "conversation", "default")]
    # Another user is not covered by kit's rule.
    elsewhere = tmp_path / "2"
    assert _json_call(gateway, fake_llm, "lea", "notes__write", elsewhere)["tool_calls"][0]["reason"] == \
        "needs_approval"
    assert not elsewhere.exists() and _rules(gateway, "lea") == []


def test_a_deny_kept_over_http_refuses_the_tool_streamed_or_not(gateway, fake_llm, tmp_path):
    kept = gateway.keep_rule("max", "notes", "write", "deny")
    assert kept.status_code == 200 and (kept.json()["decision"], kept.json()["scope"]) == ("deny", "always")
    refused = _json_call(gateway, fake_llm, "max", "notes__write", tmp_path / "1")
    assert refused["tool_calls"][0]["reason"] == "denied" and refused["notices"] == []
    assert refused["response"] == "You did not allow the call to write (notes), so I did not look that up."
    streamed = _call(gateway, fake_llm, "max", "notes__write", tmp_path / "2")  # no card may come
    assert streamed["tool_result"]["reason"] == "denied"
    assert not (tmp_path / "1").exists() and not (tmp_path / "2").exists()
    # Kept again, the rule of that scope is replaced: the tool runs.
    assert gateway.keep_rule("max", "notes", "write").status_code == 200
    assert not _json_call(gateway, fake_llm, "max", "notes__write", tmp_path / "3")["tool_calls"][0]["is_error"]
    assert (tmp_path / "3").exists() and _rules(gateway, "max") == [("notes", "write", "allow", "always", None)]


def test_a_destructive_tool_is_allowed_over_http_only_always(gateway, fake_llm, tmp_path):
    target = tmp_path / "precious"
    (notice,) = _json_call(gateway, fake_llm, "ned", "notes__erase", target)["notices"]
    assert notice["allow"]["body"] == {"decision": "allow", "scope": "always"}
    assert notice["allow"]["scopes"] == ["always"] and not (tmp_path / "precious.erased").exists()
    refused = gateway.keep_rule("ned", "notes", "erase", scope="conversation")
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "bad_scope")
    assert "only 'always'" in refused.json()["error"]["message"] and _rules(gateway, "ned") == []
    assert gateway.keep_rule("ned", "notes", "erase").status_code == 200
    assert not _json_call(gateway, fake_llm, "ned", "notes__erase", target)["tool_calls"][0]["is_error"]
    assert (tmp_path / "precious.erased").exists()


ALWAYS_ALLOW = {"decision": "allow", "scope": "always"}


@pytest.mark.parametrize(("path", "body", "status", "code"), [
    ("notes/write", b'{"decision": "allow"', 400, "bad_json"),
    ("notes/write", ["allow"], 400, "bad_request"),
    ("notes/write", {"decision": "approve", "scope": "always"}, 400, "bad_decision"),
    ("notes/write", {"scope": "always"}, 400, "bad_decision"),
    ("notes/write", {"decision": "allow"}, 400, "bad_scope"),
    ("notes/write", {"decision": "allow", "scope": "forever"}, 400, "bad_scope"),
    ("notes/write", {**ALWAYS_ALLOW, "conversation": "default"}, 400, "bad_scope"),
    ("notes/write", {"decision": "allow", "scope": "conversation", "conversation": "a b"}, 400, "bad_conversation"),
    ("notes/write", {**ALWAYS_ALLOW, "remember": "always"}, 400, "bad_request"),
    ("notes/wr%20ite", ALWAYS_ALLOW, 400, "bad_request"),
    ("nobody/write", ALWAYS_ALLOW, 404, "unknown_server"),
    ("notes/launch", ALWAYS_ALLOW, 404, "unknown_tool"),
    ("notes/write", {"decision": "allow", "scope": "conversation", "conversation": "nope"}, 404,
     "unknown_conversation"),
])
def test_a_rule_that_cannot_be_kept_is_refused_and_nothing_is_stored(gateway, path, body, status, code):
    url = f"{gateway.url}/chat/ora/approvals/policy/{path}"
    reply = (httpx.put(url, content=body, headers={"Content-Type": "application/json"}) if isinstance(body, bytes)
             else httpx.put(url, json=body))
    assert (reply.status_code, reply.json()["error"]["code"]) == (status, code), reply.text
    assert _rules(gateway, "ora") == []


READ_ONLY, PLAIN, DESTRUCTIVE = ToolHints(read_only=True), ToolHints(), ToolHints(destructive=True)
ALLOW_HERE, ALLOW_ALWAYS = Rule("s", "t", "allow", "c1", 0.0), Rule("s", "t", "allow", None, 0.0)
DENY_HERE, DENY_ALWAYS = Rule("s", "t", "deny", "c1", 0.0), Rule("s", "t", "deny", None, 0.0)


@pytest.mark.parametrize(("hints", "rules", "every_call", "expected"), [
    (READ_ONLY, [], False, "allow"), (PLAIN, [], False, "ask"), (DESTRUCTIVE, [], False, "ask"),
    (ToolHints(read_only=True, server_confirms=True), [], False, "ask"),
    (ToolHints(read_only=True, destructive=True), [], False, "ask"),  # contradictory hints: the careful one wins
    (PLAIN, [ALLOW_HERE], False, "allow"), (DESTRUCTIVE, [ALLOW_HERE], False, "ask"),
    (DESTRUCTIVE, [ALLOW_ALWAYS], False, "allow"), (ToolHints(server_confirms=True), [ALLOW_ALWAYS], False, "allow"),
    (READ_ONLY, [ALLOW_ALWAYS], True, "ask"), (READ_ONLY, [DENY_HERE], False, "deny"),
    (PLAIN, [ALLOW_HERE, DENY_ALWAYS], False, "deny"), (PLAIN, [DENY_ALWAYS], True, "deny"),
])
def test_the_verdict_table(hints, rules, every_call, expected):
    """The precedence in one place: a kept deny, then `confirm_tools`, then kept allows (a destructive tool's only
    when always), then the defaults from the hints and the registry."""
    assert verdict(hints, rules, every_call) == expected
