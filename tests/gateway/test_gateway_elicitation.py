"""A tool's question to the user (MCP elicitation) relayed through the gateway: the SSE `elicitation` event, the
answer route, the call resuming with the answer; requests that cannot ask; bad answers; a question nobody answers.
Real processes: the gateway, the scripted LLM and the tiny MCP server (2026-07-28, `InputRequiredResult`)."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from tests.support.gateway_processes import TINY_SERVER, WEATHER_SERVER, GatewayProcess

ASK_SIZE = {"tool_calls": [{"name": "tiny__choose_size", "arguments": {"item": "shirt"}}]}


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    # A 2 s tool timeout, shorter than the person's answer in one test: the timeout stops while they answer.
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_elicit"),
                             {"tiny": {**TINY_SERVER, "timeout": 2}, "weather": WEATHER_SERVER}, fake_llm.url)
    yield process
    process.stop()


def _chat_answering(gateway: GatewayProcess, user: str, answer: dict, after_s: float = 0.0,
                    message: str = "I want a shirt"):
    """Stream a chat, answer its question with `answer` (after `after_s`), and return every event and the reply
    of the answer route."""
    replies = []

    def answer_question(event: str, data: dict) -> None:
        if event == "elicitation":
            time.sleep(after_s)
            replies.append(httpx.post(f"{gateway.url}/chat/{user}/elicitations/{data['id']}", json=answer, timeout=10))

    events = gateway.stream_chat(user, {"message": message}, answer_question)
    return events, replies


def test_the_question_reaches_the_client_and_its_answer_the_tool(gateway, fake_llm):
    fake_llm.script(ASK_SIZE, {"content": "Your shirt comes in size M."})
    events, (reply,) = _chat_answering(gateway, "lena", {"action": "accept", "content": {"size": "M"}})
    names = [event for event, _ in events]
    assert names.index("tool_call") < names.index("elicitation") < names.index("elicitation_closed") \
        < names.index("tool_result") < names.index("done")
    question = dict(events)["elicitation"]
    assert question["server"] == "tiny" and question["tool"] == "choose_size"
    assert question["message"] == "Which size of shirt?"
    assert question["schema"]["properties"]["size"]["enum"] == ["S", "M", "L"]
    assert reply.status_code == 200 and reply.json() == {"id": question["id"], "action": "accept", "delivered": True}
    assert dict(events)["elicitation_closed"] == {"id": question["id"], "action": "accept"}
    assert dict(events)["tool_result"]["text"] == "shirt in size M"
    assert dict(events)["done"]["response"] == "Your shirt comes in size M."
    # The answer reached the model as the tool's result.
    assert any(m["role"] == "tool" and m["content"] == "shirt in size M" for m in fake_llm.requests()[1]["messages"])


def test_the_weather_server_asks_which_springfield(gateway, fake_llm):
    fake_llm.script({"tool_calls": [{"name": "weather__get_forecast", "arguments": {"city": "Springfield", "day": 1}}]},
                    {"content": "Springfield tomorrow: light snow."})
    illinois = "Springfield, Illinois, United States"
    events, (reply,) = _chat_answering(gateway, "lars", {"action": "accept", "content": {"place": illinois}},
                                       message="Weather in Springfield tomorrow?")
    question = dict(events)["elicitation"]
    assert question["server"] == "weather" and question["message"] == "Which Springfield do you mean?"
    assert illinois in question["schema"]["properties"]["place"]["enum"] and reply.status_code == 200
    result = dict(events)["tool_result"]
    # The forecast is Illinois' (39.8 N), not the most populous Springfield's (Missouri, 37.2 N).
    assert not result["is_error"] and round(result["structured_content"]["location"]["latitude"], 1) == 39.8


def test_the_call_timeout_stops_while_the_person_answers(gateway, fake_llm):
    fake_llm.script(ASK_SIZE, {"content": "Size L it is."})
    events, (reply,) = _chat_answering(gateway, "milo", {"action": "accept", "content": {"size": "L"}}, after_s=3)
    assert reply.status_code == 200
    result = dict(events)["tool_result"]
    assert not result["is_error"] and result["text"] == "shirt in size L"  # 3 s of answering, a 2 s timeout


def test_a_declined_question_reaches_the_tool_as_declined(gateway, fake_llm):
    fake_llm.script(ASK_SIZE, {"content": "No size then."})
    events, (reply,) = _chat_answering(gateway, "nina", {"action": "decline"})
    assert reply.status_code == 200
    assert dict(events)["tool_result"]["text"] == "no size chosen for shirt (decline)"


def test_a_request_that_cannot_ask_answers_cancel_at_once(gateway, fake_llm):
    fake_llm.script(ASK_SIZE, {"content": "Which size would you like?"})
    started = time.monotonic()
    reply = gateway.chat("omar", {"message": "I want a shirt"}).json()
    assert time.monotonic() - started < 5
    assert reply["tool_calls"][0]["text"] == "no size chosen for shirt (cancel)"


def test_bad_answers_are_refused_and_the_question_stays_open(gateway, fake_llm):
    fake_llm.script(ASK_SIZE, {"content": "Size S."})
    outcomes: dict = {}

    def answer_badly_then_well(question_id: str) -> None:
        url = f"{gateway.url}/chat/pia/elicitations/{question_id}"
        outcomes["wrong size"] = httpx.post(url, json={"action": "accept", "content": {"size": "XXL"}})
        outcomes["no content"] = httpx.post(url, json={"action": "accept"})
        outcomes["bad action"] = httpx.post(url, json={"action": "maybe"})
        outcomes["other user"] = httpx.post(f"{gateway.url}/chat/quinn/elicitations/{question_id}",
                                            json={"action": "decline"})
        outcomes["unknown id"] = httpx.post(f"{gateway.url}/chat/pia/elicitations/0123456789abcdef",
                                            json={"action": "decline"})
        outcomes["good"] = httpx.post(url, json={"action": "accept", "content": {"size": "S"}})
        outcomes["again"] = httpx.post(url, json={"action": "accept", "content": {"size": "S"}})

    answering = []

    def answer_on_a_thread(event: str, data: dict) -> None:
        if event == "elicitation":
            answering.append(threading.Thread(target=answer_badly_then_well, args=(data["id"],)))
            answering[0].start()

    events = gateway.stream_chat("pia", {"message": "I want a shirt"}, answer_on_a_thread)
    answering[0].join()
    statuses = {name: (reply.status_code, reply.json().get("error", {}).get("code")) for name, reply in
                outcomes.items()}
    assert statuses == {"wrong size": (400, "bad_answer"), "no content": (400, "bad_answer"),
                        "bad action": (400, "bad_request"), "other user": (404, "unknown_question"),
                        "unknown id": (404, "unknown_question"), "good": (200, None),
                        "again": (404, "unknown_question")}
    assert "'XXL' is not one of" in outcomes["wrong size"].json()["error"]["message"]
    assert dict(events)["tool_result"]["text"] == "shirt in size S"


@pytest.fixture(scope="module")
def impatient_gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_elicit_timeout"), {"tiny": TINY_SERVER},
                             fake_llm.url, MCP_CHAT_ELICITATION_TIMEOUT="1")
    yield process
    process.stop()


def test_a_question_nobody_answers_is_cancelled_after_the_timeout(impatient_gateway, fake_llm):
    fake_llm.script(ASK_SIZE, {"content": "No answer came."})
    events = dict(impatient_gateway.stream_chat("rosa", {"message": "I want a shirt"}))
    assert events["elicitation_closed"] == {"id": events["elicitation"]["id"], "action": "cancel"}
    assert events["tool_result"]["text"] == "no size chosen for shirt (cancel)"
    assert events["done"]["response"] == "No answer came."
