"""A model profile per conversation, over HTTP: GET /profiles without secrets, a conversation's turns going to the
profile it picked (each profile a scripted LLM of its own, with its own model name), the stored profile used by
later turns, switching, and a precise 4xx for an unknown or unavailable profile. Real processes: the gateway and two
scripted LLMs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
import pytest

from mcp_chat_app.history import SqliteHistoryStore

from tests.support.gateway_processes import FakeLlm, GatewayProcess

ALPHA_KEY = "sk-alpha-7f3c9e-never-shown"
URL_SECRET = "hunter2-url-password"


def _models(alpha_url: str, beta_url: str, with_beta: bool = True) -> dict:
    profiles = {
        "alpha": {"base_url": f"{alpha_url}/v1", "model": "alpha-model", "api_key_env": "PROFILES_TEST_ALPHA_KEY"},
        "beta": {"base_url": f"{beta_url}/v1", "model": "beta-model"},
        # Beyond this machine and without its key: listed, never called.
        "cloud": {"base_url": f"https://svc:{URL_SECRET}@api.example.invalid/v1", "model": "cloud-model",
                  "api_key_env": "PROFILES_TEST_CLOUD_KEY"},
        "pair": {"router": "alpha", "writer": "beta"},
        "broken": {"base_url": f"{beta_url}/v1"},  # no model: the others still serve
    }
    if not with_beta:
        del profiles["beta"], profiles["pair"]
    return {"profiles": profiles}


@pytest.fixture(scope="module")
def gateway(fake_llm, second_fake_llm, tmp_path_factory):
    work_dir = tmp_path_factory.mktemp("gateway_profiles")
    models = work_dir / "models.json"
    models.write_text(json.dumps(_models(fake_llm.url, second_fake_llm.url)))
    process = GatewayProcess(work_dir, {}, fake_llm.url, MCP_CHAT_MODELS_CONFIG=str(models),
                             MCP_CHAT_PROFILE="alpha", PROFILES_TEST_ALPHA_KEY=ALPHA_KEY, PROFILES_TEST_CLOUD_KEY="")
    yield process
    process.stop()


@pytest.fixture
def alpha(fake_llm):
    fake_llm.script(*[{"content": f"alpha answer {n}"} for n in range(4)])
    return fake_llm


@pytest.fixture
def beta(second_fake_llm):
    second_fake_llm.script(*[{"content": f"beta answer {n}"} for n in range(4)])
    return second_fake_llm


def _turn(gateway: GatewayProcess, user: str, conversation: str, **body) -> httpx.Response:
    return gateway.chat(user, {"message": "hello", "use_tools": False, "conversation": conversation, **body})


def _new_conversation(gateway: GatewayProcess, user: str) -> str:
    return httpx.post(f"{gateway.url}/chat/{user}/conversations", json={}, timeout=10).json()["id"]


def _stored_profile(gateway: GatewayProcess, user: str, conversation: str) -> str | None:
    return gateway.get(f"/chat/{user}/conversations/{conversation}").json()["profile"]


def _models_asked(llm: FakeLlm) -> list[str]:
    return [request["model"] for request in llm.requests()]


def test_profiles_lists_each_with_its_availability_and_no_secret(gateway):
    reply = gateway.get("/profiles")
    assert reply.status_code == 200
    listed = reply.json()
    assert listed["default"] == "alpha"
    by_name = {profile["name"]: profile for profile in listed["profiles"]}
    assert list(by_name) == ["alpha", "beta", "cloud", "pair", "broken"]  # the configuration's order
    assert by_name["alpha"] == {"name": "alpha", "model": "alpha-model", "host": by_name["alpha"]["host"],
                                "default": True, "available": True, "reason": None}
    assert by_name["beta"]["model"] == "beta-model" and by_name["beta"]["available"]
    assert by_name["cloud"] == {"name": "cloud", "model": "cloud-model", "host": "api.example.invalid",
                                "default": False, "available": False, "reason": "PROFILES_TEST_CLOUD_KEY is not set"}
    assert by_name["pair"]["router"]["model"] == "alpha-model" and by_name["pair"]["writer"]["model"] == "beta-model"
    assert by_name["broken"]["available"] is False and "invalid" in by_name["broken"]["reason"]
    # Neither the key the alpha profile really uses nor the password in a base URL leaves the gateway.
    assert ALPHA_KEY not in reply.text and URL_SECRET not in reply.text and "svc" not in reply.text


def test_a_conversation_keeps_the_profile_it_picked_and_can_switch(gateway, alpha, beta):
    conversation = _new_conversation(gateway, "pia")
    first = _turn(gateway, "pia", conversation, profile="beta")
    assert first.status_code == 200, first.text
    assert first.json()["profile"] == "beta" and first.json()["model"] == "beta-model"
    assert _stored_profile(gateway, "pia", conversation) == "beta"
    assert _turn(gateway, "pia", conversation).json()["profile"] == "beta"  # no profile: the stored one
    assert _models_asked(beta) == ["beta-model", "beta-model"] and _models_asked(alpha) == []
    # The second turn was shown the first, as any conversation's turn is.
    assert "beta answer 0" in json.dumps(beta.requests()[-1]["messages"])

    switched = _turn(gateway, "pia", conversation, profile="alpha")
    assert switched.status_code == 200 and switched.json()["model"] == "alpha-model"
    assert _stored_profile(gateway, "pia", conversation) == "alpha"
    assert _turn(gateway, "pia", conversation).json()["profile"] == "alpha"
    assert _models_asked(alpha) == ["alpha-model", "alpha-model"] and len(beta.requests()) == 2
    assert {headers["authorization"] for headers in alpha.headers()} == {f"Bearer {ALPHA_KEY}"}
    # The profile that answered each turn follows the switch; the conversation has all four turns.
    assert gateway.get(f"/chat/pia/conversations/{conversation}").json()["turns"] == 8


def test_a_conversation_that_never_picked_one_follows_the_default(gateway, alpha, beta):
    reply = _turn(gateway, "quinn", "default")
    assert reply.status_code == 200 and reply.json()["profile"] == "alpha"
    assert _stored_profile(gateway, "quinn", "default") is None
    assert _models_asked(alpha) == ["alpha-model"] and beta.requests() == []


def test_a_streamed_turn_uses_the_picked_profile(gateway, alpha, beta):
    events = gateway.stream_chat("rosa", {"message": "hello", "use_tools": False, "profile": "beta"})
    (done,) = [data for event, data in events if event == "done"]
    assert done["profile"] == "beta" and done["response"] == "beta answer 0"
    assert _stored_profile(gateway, "rosa", "default") == "beta" and alpha.requests() == []


def test_an_unknown_profile_is_refused_with_the_known_ones(gateway, alpha, beta):
    conversation = _new_conversation(gateway, "sam")
    for stream in (False, True):
        reply = _turn(gateway, "sam", conversation, profile="gpt-9", stream=stream)
        assert reply.status_code == 400 and reply.json()["error"]["code"] == "unknown_profile"
        message = reply.json()["error"]["message"]
        assert "'gpt-9'" in message and all(name in message for name in ("alpha", "beta", "cloud", "pair"))
    for bad in (7, "", "x" * 65):
        reply = _turn(gateway, "sam", conversation, profile=bad)
        assert (reply.status_code, reply.json()["error"]["code"]) == (400, "bad_request")
    assert _stored_profile(gateway, "sam", conversation) is None
    assert gateway.get(f"/chat/sam/conversations/{conversation}").json()["turns"] == 0
    assert alpha.requests() == [] and beta.requests() == []


def test_an_unavailable_profile_is_refused_with_the_reason(gateway, alpha, beta):
    conversation = _new_conversation(gateway, "tara")
    reply = _turn(gateway, "tara", conversation, profile="cloud")
    assert reply.status_code == 400 and reply.json()["error"] == {
        "code": "profile_unavailable", "message": "profile 'cloud' is unavailable: PROFILES_TEST_CLOUD_KEY is not set"}
    reply = _turn(gateway, "tara", conversation, profile="broken")
    assert (reply.status_code, reply.json()["error"]["code"]) == (400, "profile_unavailable")
    assert _stored_profile(gateway, "tara", conversation) is None
    assert alpha.requests() == [] and beta.requests() == []
    assert _turn(gateway, "tara", conversation).status_code == 200  # the gateway keeps serving


def test_health_watches_the_llms_of_the_profiles_in_use(gateway, alpha, beta):
    _turn(gateway, "uma", "default", profile="beta")
    llm = gateway.get("/health").json()["llm"]
    assert [item["model"] for item in llm][0] == "alpha-model"  # the default first
    assert {item["model"] for item in llm} == {"alpha-model", "beta-model"} and all(i["reachable"] for i in llm)


def test_a_stored_profile_gone_from_the_configuration_is_a_conflict(gateway, fake_llm, second_fake_llm):
    conversation = _new_conversation(gateway, "vic")
    second_fake_llm.script({"content": "beta answer"})
    assert _turn(gateway, "vic", conversation, profile="beta").status_code == 200
    models = gateway.work_dir / "models.json"
    models.write_text(json.dumps(_models(fake_llm.url, second_fake_llm.url, with_beta=False)))
    gateway.restart()
    reply = _turn(gateway, "vic", conversation)
    assert reply.status_code == 409 and reply.json()["error"]["code"] == "unknown_profile"
    assert "send 'profile' to pick another" in reply.json()["error"]["message"]
    fake_llm.script({"content": "alpha answer"})
    switched = _turn(gateway, "vic", conversation, profile="alpha")
    assert switched.status_code == 200 and _stored_profile(gateway, "vic", conversation) == "alpha"


def test_a_history_file_from_before_profiles_opens_and_then_keeps_them(tmp_path: Path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as old:  # conversations without a profile column
        old.executescript("CREATE TABLE conversations (user TEXT NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL "
                          "DEFAULT '', created_at REAL NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (user, id));"
                          "INSERT INTO conversations VALUES ('ola', 'trip', 'Trip', 1, 1);")
    store = SqliteHistoryStore(path)
    assert store.conversation("ola", "trip")["profile"] is None
    turn = [{"role": "user", "content": "hei"}, {"role": "assistant", "content": "hei!"}]
    store.append("ola", turn, conversation="trip", profile="beta")
    store.append("ola", turn, conversation="trip")  # a turn that names none keeps the stored one
    assert store.conversation("ola", "trip")["profile"] == "beta"
    store.append("ola", turn, conversation="trip", profile="alpha")
    assert [c["profile"] for c in store.conversations("ola") if c["id"] == "trip"] == ["alpha"]
    store.close()
