"""Several conversations per user over HTTP: list, create, rename, delete, each with its own history (what the
model is shown, what is stored), the default conversation as before, and a precise 4xx for every bad input.
Real processes: the gateway and the scripted LLM."""

from __future__ import annotations

import re

import httpx
import pytest

from mcp_chat_app.history import MAX_CONVERSATIONS

from tests.support.gateway_processes import GatewayProcess


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_conversations"), {}, fake_llm.url)
    yield process
    process.stop()


def _create(gateway: GatewayProcess, user: str, body: object = None, **kwargs) -> httpx.Response:
    return httpx.post(f"{gateway.url}/chat/{user}/conversations", json={} if body is None else body, timeout=10,
                      **kwargs)


def _listed(gateway: GatewayProcess, user: str) -> list[dict]:
    reply = gateway.get(f"/chat/{user}/conversations")
    assert reply.status_code == 200
    return reply.json()["conversations"]


def _error(reply: httpx.Response) -> tuple[int, str]:
    return reply.status_code, reply.json()["error"]["code"]


def test_a_new_user_has_the_default_conversation_only(gateway):
    assert _listed(gateway, "newcomer") == [{"id": "default", "title": "", "turns": 0, "created_at": 0.0,
                                             "updated_at": 0.0, "profile": None}]


def test_each_conversation_keeps_its_own_turns_and_the_model_sees_only_them(gateway, fake_llm):
    fake_llm.script({"content": "Noted: you live in Shanghai."}, {"content": "Hello again."},
                    {"content": "You said Shanghai."})
    assert gateway.chat("cora", {"message": "I live in Shanghai", "use_tools": False}).json()["conversation"] \
        == "default"
    created = _create(gateway, "cora", {"title": "Trip to Oslo"})
    assert created.status_code == 201
    trip = created.json()
    assert re.fullmatch(r"[0-9a-f]{12}", trip["id"]) and trip["title"] == "Trip to Oslo" and trip["turns"] == 0

    reply = gateway.chat("cora", {"message": "Hi there", "use_tools": False, "conversation": trip["id"]})
    assert reply.status_code == 200 and reply.json()["conversation"] == trip["id"]
    # The new conversation starts empty: the model is not shown the default one's turns.
    prompt = " ".join(str(m["content"]) for m in fake_llm.requests()[-1]["messages"])
    assert "Shanghai" not in prompt
    reply = gateway.chat("cora", {"message": "Where do I live?", "use_tools": False})
    assert "Shanghai" in " ".join(str(m["content"]) for m in fake_llm.requests()[-1]["messages"])

    opened = gateway.get(f"/chat/cora/conversations/{trip['id']}").json()
    assert [m["content"] for m in opened["messages"]] == ["Hi there", "Hello again."]
    assert opened["turns"] == 2 and opened["title"] == "Trip to Oslo"
    assert [m["content"] for m in gateway.get("/chat/cora/history").json()["messages"]] == [
        "I live in Shanghai", "Noted: you live in Shanghai.", "Where do I live?", "You said Shanghai."]
    # Most recently used first: the default conversation had the last turn.
    assert [(c["id"], c["turns"]) for c in _listed(gateway, "cora")] == [("default", 4), (trip["id"], 2)]
    assert _listed(gateway, "someone_else")[0]["turns"] == 0  # per user


def test_a_streamed_answer_is_stored_in_its_conversation(gateway, fake_llm):
    fake_llm.script({"content": "Streamed hello."})
    side = _create(gateway, "dima").json()
    with httpx.stream("POST", f"{gateway.url}/chat/dima", timeout=30, json={
            "message": "hello", "use_tools": False, "stream": True, "conversation": side["id"]}) as response:
        done = [line for line in response.iter_lines() if '"conversation"' in line]
    assert done and f'"conversation": "{side["id"]}"' in done[-1]
    assert gateway.get(f"/chat/dima/conversations/{side['id']}").json()["turns"] == 2
    assert gateway.get("/chat/dima/history").json()["messages"] == []


def test_rename_and_delete(gateway, fake_llm):
    first = _create(gateway, "eli", {"title": "first"}).json()
    renamed = httpx.patch(f"{gateway.url}/chat/eli/conversations/{first['id']}", json={"title": "  北京出差  "})
    assert renamed.status_code == 200 and renamed.json()["title"] == "北京出差"
    assert {c["id"]: c["title"] for c in _listed(gateway, "eli")}[first["id"]] == "北京出差"
    fake_llm.script({"content": "ok"})
    gateway.chat("eli", {"message": "remember 7", "use_tools": False, "conversation": first["id"]})

    deleted = httpx.delete(f"{gateway.url}/chat/eli/conversations/{first['id']}")
    assert deleted.status_code == 200 and deleted.json() == {"user": "eli", "id": first["id"], "deleted": 2}
    assert [c["id"] for c in _listed(gateway, "eli")] == ["default"]
    assert _error(gateway.get(f"/chat/eli/conversations/{first['id']}")) == (404, "unknown_conversation")
    assert _error(gateway.chat("eli", {"message": "hi", "use_tools": False, "conversation": first["id"]})) == (
        404, "unknown_conversation")

    # The default conversation can be titled, and deleting it empties it (it is always there).
    fake_llm.script({"content": "ok"})
    gateway.chat("eli", {"message": "hello", "use_tools": False})
    assert httpx.patch(f"{gateway.url}/chat/eli/conversations/default", json={"title": "Main"}).json()["title"] \
        == "Main"
    assert httpx.delete(f"{gateway.url}/chat/eli/conversations/default").json()["deleted"] == 2
    assert _listed(gateway, "eli") == [{"id": "default", "title": "", "turns": 0, "created_at": 0.0,
                                        "updated_at": 0.0, "profile": None}]


def test_bad_input_gets_a_precise_status(gateway):
    base = f"{gateway.url}/chat/fay/conversations"
    real = _create(gateway, "fay").json()["id"]
    cases = {
        "bad id in path": httpx.get(f"{base}/no%20spaces"),
        "long id in path": httpx.patch(f"{base}/{'x' * 65}", json={"title": "t"}),
        "unknown id": httpx.get(f"{base}/0123456789ab"),
        "rename unknown": httpx.patch(f"{base}/0123456789ab", json={"title": "t"}),
        "delete unknown": httpx.delete(f"{base}/0123456789ab"),
        "title not a string": httpx.post(base, json={"title": 5}),
        "empty title": httpx.patch(f"{base}/{real}", json={"title": "  "}),
        "new with an empty title": httpx.post(base, json={"title": ""}),
        "no title": httpx.patch(f"{base}/{real}", json={}),
        "long title": httpx.post(base, json={"title": "t" * 101}),
        "two-line title": httpx.patch(f"{base}/{real}", json={"title": "one\ntwo"}),
        "control character": httpx.post(base, json={"title": "bell\u0007"}),
        "not JSON": httpx.post(base, content=b"title", headers={"Content-Type": "text/plain"}),
        "body not an object": httpx.post(base, json=["title"]),
        "chat: id not a string": gateway.chat("fay", {"message": "hi", "conversation": 5}),
        "chat: bad id": gateway.chat("fay", {"message": "hi", "conversation": "../default"}),
        "bad user": httpx.get(f"{gateway.url}/chat/no%20body/conversations"),
    }
    assert {name: _error(reply) for name, reply in cases.items()} == {
        "bad id in path": (400, "bad_conversation"), "long id in path": (400, "bad_conversation"),
        "unknown id": (404, "unknown_conversation"), "rename unknown": (404, "unknown_conversation"),
        "delete unknown": (404, "unknown_conversation"), "title not a string": (400, "bad_request"),
        "empty title": (400, "bad_request"), "new with an empty title": (400, "bad_request"),
        "no title": (400, "bad_request"), "long title": (400, "bad_request"),
        "two-line title": (400, "bad_request"), "control character": (400, "bad_request"),
        "not JSON": (415, "unsupported_media_type"), "body not an object": (400, "bad_request"),
        "chat: id not a string": (400, "bad_conversation"), "chat: bad id": (400, "bad_conversation"),
        "bad user": (400, "bad_user"),
    }
    assert "longer than 100 characters" in cases["long title"].json()["error"]["message"]
    assert gateway.get(f"/chat/fay/conversations/{real}").json()["title"] == ""  # nothing bad was stored


def test_a_user_may_keep_a_bounded_number_of_conversations(gateway):
    for _ in range(MAX_CONVERSATIONS - 1):  # the default one counts
        assert _create(gateway, "gus").status_code == 201
    assert _error(_create(gateway, "gus")) == (409, "too_many_conversations")
    some = _listed(gateway, "gus")[0]["id"]
    assert httpx.delete(f"{gateway.url}/chat/gus/conversations/{some}").status_code == 200
    assert _create(gateway, "gus").status_code == 201


def test_a_regenerated_answer_replaces_the_last_one(gateway, fake_llm):
    fake_llm.script({"content": "First try."}, {"content": "Second try."})
    gateway.chat("hal", {"message": "Tell me a joke", "use_tools": False})
    reply = gateway.chat("hal", {"message": "Tell me a joke", "use_tools": False, "regenerate": True})
    assert reply.status_code == 200 and reply.json()["response"] == "Second try."
    # The model answering again is not shown the answer it replaces.
    assert "First try." not in " ".join(str(m["content"]) for m in fake_llm.requests()[-1]["messages"])
    assert [m["content"] for m in gateway.get("/chat/hal/history").json()["messages"]] == [
        "Tell me a joke", "Second try."]
    assert _error(gateway.chat("hal", {"message": "x", "regenerate": "yes"})) == (400, "bad_request")
