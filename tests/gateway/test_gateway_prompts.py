"""MCP prompts through the gateway process over HTTP: the real weather server's `weather_report` and `trip_planning`
listed by GET /prompts, and answered as a chat turn (`prompt` in place of `message`) with the scripted LLM."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.support.gateway_processes import WEATHER_SERVER, GatewayProcess

PAGED_SERVER = {"command": "python", "args": [str(Path(__file__).parent / "paged_prompts_server.py")], "timeout": 5}
# A server that exits at once: it stays down, and GET /prompts must say so rather than fail.
BROKEN_SERVER = {"command": "python", "args": ["-c", "import sys; sys.exit('broken on purpose')"], "timeout": 2}
PARIS_REPORT = {"server": "weather", "name": "weather_report", "arguments": {"city": "Paris", "language": "French"}}
PARIS_TEXT = "Write a short weather report for Paris in French."


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_prompts"),
                             {"weather": WEATHER_SERVER, "paged": PAGED_SERVER, "broken": BROKEN_SERVER}, fake_llm.url)
    yield process
    process.stop()


def _user_texts(requests: list[dict]) -> list[str]:
    return [m["content"] for request in requests for m in request["messages"] if m["role"] == "user"]


def test_the_weather_servers_prompts_are_listed_with_their_arguments(gateway):
    reply = gateway.get("/prompts")
    assert reply.status_code == 200
    body = reply.json()
    prompts = {(p["server"], p["name"]): p for p in body["prompts"]}
    report, trip = prompts["weather", "weather_report"], prompts["weather", "trip_planning"]
    assert report["title"] == "Weather report" and report["description"].startswith("Ask for a short weather")
    assert [(a["name"], a["required"]) for a in report["arguments"]] == [("city", True), ("language", False)]
    assert [(a["name"], a["required"]) for a in trip["arguments"]] == [("cities", True), ("days", False)]
    # The server that is down is reported with its error, and has no prompts listed.
    (down,) = body["unavailable"]
    assert down["server"] == "broken" and down["error"]
    assert not any(p["server"] == "broken" for p in body["prompts"])


def _paged_prompts(gateway) -> list[str]:
    return [p["name"] for p in gateway.get("/prompts").json()["prompts"] if p["server"] == "paged"]


def test_every_page_is_listed_and_a_list_change_is_followed(gateway, fake_llm):
    assert _paged_prompts(gateway) == ["first", "second", "third"]  # three pages of one
    assert gateway.keep_rule("pat", "paged", "add_prompt").status_code == 200  # not read-only: allowed first
    fake_llm.script({"tool_calls": [{"name": "paged__add_prompt", "arguments": {}}]}, {"content": "Added."})
    assert gateway.chat("pat", {"message": "add the late prompt"}).json()["tool_calls"][0]["is_error"] is False
    deadline = time.monotonic() + 10
    while "late" not in _paged_prompts(gateway) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _paged_prompts(gateway) == ["first", "second", "third", "late"]


def test_a_prompt_is_rendered_answered_and_stored_as_its_text(gateway, fake_llm):
    fake_llm.script({"content": "Paris : doux et sec."})
    reply = gateway.chat("pia", {"prompt": PARIS_REPORT, "use_tools": False})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["response"] == "Paris : doux et sec."
    assert body["prompt"]["server"] == "weather" and body["prompt"]["name"] == "weather_report"
    assert body["prompt"]["text"].startswith(PARIS_TEXT) and body["prompt"]["left_out"] == []
    # What the model read as the user's turn is the rendered prompt, and the history keeps that text.
    assert any(PARIS_TEXT in text for text in _user_texts(fake_llm.requests()))
    history = gateway.get("/chat/pia/history").json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert history[0]["content"] == body["prompt"]["text"]


def test_a_streamed_prompt_turn_ends_with_the_rendered_text(gateway, fake_llm):
    fake_llm.script({"content": "Compared."})
    trip = {"server": "weather", "name": "trip_planning", "arguments": {"cities": "Rome, Madrid", "days": "2"}}
    events = gateway.stream_chat("sam", {"prompt": trip, "use_tools": False})
    done = next(data for event, data in events if event == "done")
    assert done["prompt"]["text"].startswith("I am choosing between these destinations: Rome, Madrid.")
    assert "days=2" in done["prompt"]["text"]


@pytest.mark.parametrize("prompt, code, named", [
    ({"server": "weather", "name": "no_such_prompt"}, "unknown_prompt", "'no_such_prompt'"),
    ({"server": "nowhere", "name": "weather_report", "arguments": {"city": "Paris"}}, "unknown_server", "'nowhere'"),
])
def test_an_unknown_prompt_or_server_is_a_404(gateway, prompt, code, named):
    reply = gateway.chat("quinn", {"prompt": prompt})
    assert reply.status_code == 404
    assert reply.json()["error"]["code"] == code and named in reply.json()["error"]["message"]


def test_a_prompt_of_a_server_that_is_down_is_a_503(gateway):
    reply = gateway.chat("quinn", {"prompt": {"server": "broken", "name": "anything"}})
    assert reply.status_code == 503 and reply.json()["error"]["code"] == "server_unavailable"
    assert "'broken' is not connected" in reply.json()["error"]["message"]


def test_a_missing_required_argument_is_a_400_and_nothing_is_stored(gateway, fake_llm):
    fake_llm.script({"content": "never asked"})
    for arguments in ({"language": "German"}, {"city": "  "}):
        reply = gateway.chat("quinn", {"prompt": {"server": "weather", "name": "weather_report",
                                                  "arguments": arguments}})
        assert reply.status_code == 400
        error = reply.json()["error"]
        assert error["code"] == "bad_prompt_arguments" and "'city'" in error["message"]
    unknown = gateway.chat("quinn", {"prompt": {"server": "weather", "name": "weather_report",
                                                "arguments": {"city": "Paris", "colour": "red"}}})
    assert unknown.status_code == 400 and "'colour'" in unknown.json()["error"]["message"]
    # The same errors for a stream: the prompt is rendered before the stream starts.
    streamed = gateway.chat("quinn", {"prompt": {"server": "weather", "name": "weather_report"}, "stream": True})
    assert streamed.status_code == 400 and streamed.json()["error"]["code"] == "bad_prompt_arguments"
    assert fake_llm.requests() == [] and gateway.get("/chat/quinn/history").json()["messages"] == []


def test_the_servers_own_refusal_is_a_400_with_its_message(gateway):
    trip = {"server": "weather", "name": "trip_planning", "arguments": {"cities": "Rome", "days": "99"}}
    reply = gateway.chat("quinn", {"prompt": trip})
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error["code"] == "prompt_error" and "days must be a whole number from 1 to 16, got '99'" in error["message"]


@pytest.mark.parametrize("body", [
    {"message": "hi", "prompt": PARIS_REPORT},
    {"prompt": "weather_report"},
    {"prompt": {"server": "weather"}},
    {"prompt": {"server": "weather", "name": "weather_report", "arguments": {"city": 3}}},
    {"prompt": {"server": "weather", "name": "weather_report", "arguments": {"city": "Pa\u0007ris"}}},
])
def test_malformed_prompt_requests_are_400(gateway, body):
    reply = gateway.chat("quinn", body)
    assert reply.status_code == 400 and reply.json()["error"]["code"] == "bad_request"
