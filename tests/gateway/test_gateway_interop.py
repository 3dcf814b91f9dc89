"""McpManager against servers of both protocol eras: ours and mcp-server-time (Python SDK, 2026-07-28 over
`server/discover`) and the TypeScript reference server @modelcontextprotocol/server-everything (handshake era,
2025-11-25) over stdio, SSE and streamable HTTP; progress notifications reaching `call_tools(on_progress=)`; and a
handshake-era server's question (elicitation) reaching `call_tools(asker=)`."""

from __future__ import annotations

import threading

import pytest

from mcp_chat_app.mcp_client.elicitation import Answer, Elicitations
from mcp_chat_app.mcp_client.manager import McpManager, ToolProgress, ToolRequest
from mcp_chat_app.mcp_client.registry import parse_server_spec

from tests.support.gateway_processes import WEATHER_SERVER, everything_server, start_everything
from tests.support.processes import free_port, stop

MODERN, HANDSHAKE_ERA = "2026-07-28", "2025-11-25"


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    logs = tmp_path_factory.mktemp("interop")
    sse_port, http_port = free_port(), free_port()
    remote = [start_everything("sse", sse_port, logs / "everything-sse.log"),
              start_everything("streamableHttp", http_port, logs / "everything-http.log")]
    entries = {
        "weather": WEATHER_SERVER,
        "time": {"command": "mcp-server-time"},
        "everything": {"command": str(everything_server()), "args": ["stdio"]},
        "everything-sse": {"type": "sse", "url": f"http://127.0.0.1:{sse_port}/sse"},
        "everything-http": {"type": "http", "url": f"http://127.0.0.1:{http_port}/mcp"},
    }
    mcp = McpManager({name: parse_server_spec(name, entry) for name, entry in entries.items()}, logs / "logs",
                     health_interval_s=1)
    mcp.start(wait_s=60)
    yield mcp
    mcp.close()
    for process in remote:
        stop(process)


def test_each_server_gets_the_newest_protocol_it_speaks(manager):
    status = {row["name"]: row for row in manager.status()}
    assert all(row["up"] for row in status.values()), {name: row["last_error"] for name, row in status.items()}
    versions = {name: row["protocol_version"] for name, row in status.items()}
    assert versions == {"weather": MODERN, "time": MODERN, "everything": HANDSHAKE_ERA,
                        "everything-sse": HANDSHAKE_ERA, "everything-http": HANDSHAKE_ERA}
    assert {row["transport"] for row in status.values()} == {"stdio", "sse", "http"}
    assert "get-sum" in status["everything-sse"]["tools"] and "get_forecast" in status["weather"]["tools"]


def test_tools_answer_on_every_transport_and_era(manager):
    outcomes = manager.call_tools([
        ToolRequest("weather", "get_current_weather", {"city": "Beijing"}),
        ToolRequest("time", "get_current_time", {"timezone": "Europe/Paris"}),
        *(ToolRequest(name, "get-sum", {"a": 20, "b": 22}) for name in ("everything", "everything-sse",
                                                                        "everything-http")),
    ])
    assert not any(outcome.is_error for outcome in outcomes), [outcome.text for outcome in outcomes]
    weather, clock, *sums = outcomes
    assert weather.structured_content["location"]["english_name"] == "Beijing"
    assert clock.structured_content["timezone"] == "Europe/Paris"
    assert all("42" in outcome.text for outcome in sums)


def test_the_sessions_stay_up_across_health_checks(manager):
    # health_interval_s=1: a ping on the handshake-era sessions, server/discover on the 2026-07-28 ones (which
    # have no ping: a ping there failed with "Method not found" and dropped the session every interval).
    threading.Event().wait(2.5)
    status = {row["name"]: row for row in manager.status()}
    assert all(row["up"] and row["restarts"] == 0 for row in status.values()), status


def test_progress_reaches_the_callback_for_each_call(manager):
    updates: list[ToolProgress] = []
    search, operation, plain = manager.call_tools([
        ToolRequest("weather", "find_cities_by_temperature", {"relation": "above", "temp": 10}),
        ToolRequest("everything-http", "trigger-long-running-operation", {"duration": 0.3, "steps": 3}),
        ToolRequest("weather", "get_current_weather", {"city": "Paris"}),
    ], on_progress=updates.append)
    assert not search.is_error and not operation.is_error and not plain.is_error
    ours = [update for update in updates if update.index == 0]
    theirs = [update for update in updates if update.index == 1]
    assert not [update for update in updates if update.index == 2]  # a call that reports nothing
    assert {(u.server, u.tool) for u in ours} == {("weather", "find_cities_by_temperature")}
    assert len(ours) >= 3 and ours[0].message.startswith("resolved ")
    assert [u.progress for u in ours] == sorted(u.progress for u in ours) and ours[-1].progress == ours[-1].total
    assert [(u.server, u.progress, u.total) for u in theirs] == [("everything-http", step, 3) for step in (1, 2, 3)]


def test_a_failing_progress_callback_does_not_break_the_call(manager):
    def broken(update: ToolProgress) -> None:
        raise RuntimeError("callback bug")

    (result,) = manager.call_tools([ToolRequest("everything", "trigger-long-running-operation",
                                                {"duration": 0.2, "steps": 2})], on_progress=broken)
    assert not result.is_error and "completed" in result.text


def test_a_handshake_era_question_reaches_the_asker(manager):
    """server-everything asks with a plain `elicitation/create` mid-call (2025-11-25): the call is found from the
    session's reader task, the asker gets the form, and the tool reads the answer; with no asker it is cancelled."""
    questions = Elicitations(timeout_s=10)
    asked = []

    def client(event: str, data: dict) -> None:
        asked.append((event, data))
        if event == "elicitation":
            questions.answer("ada", data["id"], Answer("accept", {"name": "Ada Lovelace", "integer": 7}))

    request = ToolRequest("everything", "trigger-elicitation-request", {})
    (answered,) = manager.call_tools([request], asker=questions.asker("ada", client))
    assert not answered.is_error and "Name: Ada Lovelace" in answered.text and "Favorite Integer: 7" in answered.text
    question = dict(asked)["elicitation"]
    assert question["server"] == "everything" and question["tool"] == "trigger-elicitation-request"
    assert question["schema"]["required"] == ["name"]
    (unasked,) = manager.call_tools([request])
    assert "User cancelled" in unasked.text and questions.pending() == 0


def test_a_third_party_servers_prompts_list_and_render_on_every_transport(manager):
    listed = {(p["server"], p["name"]): p for p in manager.prompts()}
    for server in ("everything", "everything-sse", "everything-http"):
        arguments = listed[server, "args-prompt"]["arguments"]
        assert [(a["name"], a["required"]) for a in arguments] == [("city", True), ("state", False)]
        assert manager.get_prompt(server, "args-prompt", {"city": "Oslo"}).text == "What's weather in Oslo?"
    # An embedded text resource is part of the turn's text; a binary one is left out, and said so.
    text = manager.get_prompt("everything", "resource-prompt", {"resourceType": "Text", "resourceId": "1"})
    assert "Resource 1: This is a plaintext resource" in text.text and text.left_out == []
    blob = manager.get_prompt("everything", "resource-prompt", {"resourceType": "Blob", "resourceId": "1"})
    assert blob.text.startswith("This prompt includes the Blob resource") and blob.left_out == ["resource"]
