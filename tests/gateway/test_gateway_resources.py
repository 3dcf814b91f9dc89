"""MCP resources through the gateway over HTTP: the list with templates, text and binary reads, their errors, a
resource attached to a turn reaching the writer (and only it) marked as the user's, kept with the question and
read again for the conversation's follow-ups, the opt-in `read_resource` tool, and a subscribed attachment kept
until the server says it changed, in either protocol era. The real weather server (a 2026-07-28 session),
@modelcontextprotocol/server-everything (handshake era, which supports `resources/subscribe`), note_server.py
(2026-07-28 notes that change, through `subscriptions/listen`) and the tiny server (notes the tests change on disk)
over stdio, and the scripted LLM."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import httpx
import pytest

from mcp_chat_app.chat.attachments import MAX_ATTACHED_CHARS
from mcp_chat_app.mcp_client.manager import McpManager
from mcp_chat_app.mcp_client.registry import parse_server_spec

from tests.support.gateway_processes import TINY_SERVER, WEATHER_SERVER, GatewayProcess, everything_server

ATTACHED = "Attached by the user (their own material, not a tool result)"
TEXT_TEMPLATE = "demo://resource/dynamic/text/{resourceId}"
NOTES = {"command": "python", "args": [str(Path(__file__).parent / "note_server.py")], "timeout": 5}


@pytest.fixture(scope="module")
def notes(tmp_path_factory):
    """Where the tiny server's `note://{name}` resources are read from (`name`.txt)."""
    return tmp_path_factory.mktemp("notes")


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory, notes):
    servers = {
        "weather": WEATHER_SERVER,  # as shipped: no `resource_tool`
        "everything": {"command": str(everything_server()), "args": ["stdio"], "resource_tool": True, "timeout": 20},
        "broken": {"command": "python", "args": ["-c", "raise SystemExit(1)"], "timeout": 1},
        "notes": NOTES,  # its reads stay fresh for an hour
        "stale-notes": {**NOTES, "env": {"NOTE_TTL_MS": "0"}},  # its reads are stale at once
        "tiny": {**TINY_SERVER, "env": {"TINY_NOTES_DIR": str(notes)}},
    }
    process = GatewayProcess(tmp_path_factory.mktemp("resources"), servers, fake_llm.url)
    yield process
    process.stop()


def read(gateway: GatewayProcess, server: str, uri: str):
    return gateway.get("/resources/read", params={"server": server, "uri": uri})


def test_every_servers_resources_and_templates_are_listed(gateway):
    listed = gateway.get("/resources").json()
    resources = {(r["server"], r["uri"]): r for r in listed["resources"]}
    templates = {(t["server"], t["uriTemplate"]): t for t in listed["templates"]}
    assert resources[("weather", "weather://cities")] == {
        "server": "weather", "name": "Known cities", "uri": "weather://cities", "mimeType": "application/json",
        "description": "The default city set of find_cities_by_temperature, with Chinese and English names."}
    assert templates[("weather", "weather://forecast/{city}")]["mimeType"] == "application/json"
    assert ("everything", "demo://resource/static/document/architecture.md") in resources
    assert {("everything", TEXT_TEMPLATE), ("everything", "demo://resource/dynamic/blob/{resourceId}")} <= set(templates)
    assert not any(server == "broken" for server, _ in [*resources, *templates])  # not connected: nothing listed


def test_a_text_and_a_binary_resource_are_read(gateway):
    forecast = read(gateway, "weather", "weather://forecast/Paris")
    assert forecast.status_code == 200
    (part,) = forecast.json()["contents"]
    assert part["mimeType"] == "application/json"
    assert json.loads(part["text"])["location"]["english_name"] == "Paris"
    blob = read(gateway, "everything", "demo://resource/dynamic/blob/2").json()["contents"][0]
    data = base64.b64decode(blob["blob"])
    assert "text" not in blob and blob["size"] == len(data) and data.startswith(b"Resource 2: ")


@pytest.mark.parametrize(("server", "uri", "status", "code", "words"), [
    ("nobody", "weather://cities", 404, "unknown_server", "no server named 'nobody'"),
    ("weather", "weather://nowhere", 404, "unknown_resource", "weather://nowhere"),
    ("everything", "demo://nothing/here", 404, "unknown_resource", "demo://nothing/here"),
    # The template matches, but the server refuses the value (an internal error, in its words).
    ("everything", "demo://resource/dynamic/text/abc", 400, "resource_error", "Unknown resource"),
    ("broken", "x://y", 503, "server_unavailable", "'broken' is not connected"),
    ("weather", "", 400, "bad_request", "give both"),
])
def test_a_read_that_cannot_be_made_says_why(gateway, server, uri, status, code, words):
    response = read(gateway, server, uri)
    error = response.json()["error"]
    assert (response.status_code, error["code"]) == (status, code) and words in error["message"], error


def test_an_attachment_reaches_the_writer_marked_as_the_users_and_not_the_router(gateway, fake_llm):
    fake_llm.script({"content": "Let me see."}, {"content": "Beijing is on the list."})
    response = gateway.chat("ada", {"message": "Is Beijing on the list I attached?",
                                    "attachments": [{"server": "weather", "uri": "weather://cities"}]})
    assert response.status_code == 200, response.text
    assert response.json()["response"] == "Beijing is on the list." and response.json()["tool_calls"] == []
    router, writer = fake_llm.requests()
    written = writer["messages"][-1]["content"]
    assert f"Facts:\n{ATTACHED}, weather://cities from weather:\n[" in written
    assert '"english_name": "Beijing"' in written and "(end of the attachment)" in written
    assert not any("weather://cities" in str(message["content"]) for message in router["messages"])


def test_a_long_attachment_is_cut_with_a_note(gateway, fake_llm):
    uri = "demo://resource/static/document/features.md"
    whole = read(gateway, "everything", uri).json()["contents"][0]["text"]
    assert len(whole) > MAX_ATTACHED_CHARS  # else this test proves nothing
    fake_llm.script({"content": "Let me see."}, {"content": "It describes the server's layout."})
    response = gateway.chat("abe", {"message": "Summarise the document I attached",
                                    "attachments": [{"server": "everything", "uri": uri}]})
    assert response.status_code == 200, response.text
    written = fake_llm.requests()[1]["messages"][-1]["content"]
    assert whole[:MAX_ATTACHED_CHARS] in written and whole[MAX_ATTACHED_CHARS:][:200] not in written
    assert f"[cut here: the first {MAX_ATTACHED_CHARS} of {len(whole)} characters]" in written


WEEK = {"server": "tiny", "uri": "note://week"}


def _new_conversation(gateway: GatewayProcess, user: str) -> str:
    return httpx.post(f"{gateway.url}/chat/{user}/conversations", json={}).json()["id"]


def test_a_follow_up_is_answered_with_the_earlier_attachments_read_again(gateway, fake_llm, notes):
    note = notes / "week.txt"
    note.write_text("Friday: picnic in the park at 3 pm.")
    conversation = _new_conversation(gateway, "bo")
    fake_llm.script({"content": "Let me see."}, {"content": "It is a plan for the week."})
    first = gateway.chat("bo", {"message": "What is in this note?", "conversation": conversation,
                                "attachments": [WEEK]})
    assert first.status_code == 200, first.text
    note.write_text("Friday: the picnic moved to 5 pm.")  # changed since: the follow-up reads it again
    # The question names a day, which the weather tools take: the forced round makes no call, and the writer
    # answers from the note instead of saying nothing was looked up.
    fake_llm.script({"content": "Let me see."}, {"content": "No tool for that."},
                    {"content": "On Friday the picnic is at 5 pm."})
    second = gateway.chat("bo", {"message": "And what does it say about Friday?", "conversation": conversation})
    assert second.status_code == 200, second.text
    *routed, writer = fake_llm.requests()
    written = writer["messages"][-1]["content"]
    assert (f"{ATTACHED} to an earlier question, note://week from tiny:\nFriday: the picnic moved to 5 pm.\n"
            "(end of the attachment)") in written
    assert "3 pm" not in written and not any("note://week" in json.dumps(request) for request in routed)
    assert second.json()["response"] == "On Friday the picnic is at 5 pm." and second.json()["notices"] == []
    # Kept with the question that attached it (its type too), only there; in the conversation and its exports.
    messages = gateway.get(f"/chat/bo/conversations/{conversation}").json()["messages"]
    assert [m.get("attachments") for m in messages] == [[{**WEEK, "mime": "text/plain"}], None, None, None]
    exported = gateway.get(f"/chat/bo/conversations/{conversation}/export", params={"format": "json"}).json()
    assert exported["messages"][0]["attachments"] == [{**WEEK, "mime": "text/plain"}]
    markdown = gateway.get(f"/chat/bo/conversations/{conversation}/export").text
    assert "**You:** What is in this note?\n\n- Attached: `note://week` (text/plain, from tiny)\n" in markdown


def test_an_earlier_attachment_that_cannot_be_read_again_is_a_notice_not_an_error(gateway, fake_llm, notes):
    (notes / "gone.txt").write_text("The code is 4711.")
    conversation = _new_conversation(gateway, "cy")
    fake_llm.script({"content": "Let me see."}, {"content": "It holds a code."})
    attached = {"server": "tiny", "uri": "note://gone"}
    assert gateway.chat("cy", {"message": "What is this?", "conversation": conversation,
                               "attachments": [attached]}).status_code == 200
    (notes / "gone.txt").unlink()
    fake_llm.script({"content": "I cannot see the note any more."})
    reply = gateway.chat("cy", {"message": "Is it still there?", "conversation": conversation})
    assert reply.status_code == 200, reply.text
    (notice,) = reply.json()["notices"]
    assert (notice["kind"], notice["server"], notice["uri"]) == ("attachment", "tiny", "note://gone")
    assert notice["text"].startswith("note://gone (tiny), attached earlier, could not be read again")
    assert reply.json()["response"] == f"I cannot see the note any more.\n\n{notice['text']}"
    assert not any("4711" in json.dumps(request) for request in fake_llm.requests())


def test_a_regenerated_answer_keeps_its_questions_attachments(gateway, fake_llm, notes):
    (notes / "list.txt").write_text("Milk, eggs, bread.")
    conversation = _new_conversation(gateway, "di")
    attached = {"server": "tiny", "uri": "note://list"}
    fake_llm.script({"content": "Let me see."}, {"content": "A shopping list."})
    assert gateway.chat("di", {"message": "What is this list?", "conversation": conversation,
                               "attachments": [attached]}).status_code == 200
    fake_llm.script({"content": "Let me see."}, {"content": "Milk, eggs and bread."})
    again = gateway.chat("di", {"message": "What is this list?", "conversation": conversation, "regenerate": True})
    assert again.status_code == 200, again.text
    written = fake_llm.requests()[-1]["messages"][-1]["content"]
    assert f"{ATTACHED}, note://list from tiny:\nMilk, eggs, bread." in written  # its own, not an earlier one's
    messages = gateway.get(f"/chat/di/conversations/{conversation}").json()["messages"]
    assert [m.get("attachments") for m in messages] == [[{**attached, "mime": "text/plain"}], None]


@pytest.mark.parametrize(("attachments", "status", "code"), [
    ([{"server": "weather", "uri": "weather://nowhere"}], 404, "unknown_resource"),
    ([{"server": "nobody", "uri": "weather://cities"}], 404, "unknown_server"),
    ([{"server": "weather"}], 400, "bad_request"),
    ([{"server": "weather", "uri": f"weather://forecast/{n}"} for n in range(4)], 400, "bad_request"),
])
def test_a_bad_attachment_fails_the_request_before_any_model_call(gateway, fake_llm, attachments, status, code):
    fake_llm.script()
    response = gateway.chat("ada", {"message": "What does it say?", "attachments": attachments})
    assert (response.status_code, response.json()["error"]["code"]) == (status, code)
    assert fake_llm.requests() == []


def test_read_resource_is_offered_for_opted_in_servers_and_its_result_is_a_fact(gateway, fake_llm):
    tools = {tool["name"]: tool for tool in gateway.get("/tools").json()["tools"]}
    offered = tools["gateway__read_resource"]
    assert offered["input_schema"]["properties"]["server"]["enum"] == ["everything"]  # weather did not opt in
    assert TEXT_TEMPLATE in offered["description"] and "weather://" not in offered["description"]
    fake_llm.script({"tool_calls": [{"name": "gateway__read_resource",
                                     "arguments": {"server": "everything", "uri": "demo://resource/dynamic/text/7"}}]},
                    {"content": "Resource 7 is a plaintext resource."})
    answer = gateway.chat("ari", {"message": "Read resource 7 of everything"}).json()
    (made,) = answer["tool_calls"]
    assert (made["server"], made["tool"], made["is_error"]) == ("gateway", "read_resource", False)
    assert made["text"].startswith("Resource 7: This is a plaintext resource created at ")
    fed_back = fake_llm.requests()[1]["messages"][-1]
    assert fed_back["role"] == "tool" and "Resource 7: This is a plaintext resource" in fed_back["content"]
    assert answer["response"] == "Resource 7 is a plaintext resource."


def test_a_read_resource_call_the_server_refuses_is_a_failed_call(gateway, fake_llm):
    fake_llm.script({"tool_calls": [{"name": "gateway__read_resource",
                                     "arguments": {"server": "everything", "uri": "demo://nothing/here"}}]},
                    {"content": "I could not read it."})
    (made,) = gateway.chat("ari", {"message": "Read demo://nothing/here"}).json()["tool_calls"]
    assert made["is_error"] and made["reason"] == "tool_error" and "demo://nothing/here" in made["text"]


def test_the_shipped_weather_entry_adds_no_tool_to_the_router(tmp_path):
    """Our weather server lists a resource and a template; without `resource_tool` the router's tools (and so
    its prompt) stay the server's own."""
    manager = McpManager({"weather": parse_server_spec("weather", WEATHER_SERVER)}, tmp_path)
    manager.start()
    try:
        assert manager.resources() and all(tool.server == "weather" for tool in manager.tools())
    finally:
        manager.close()


def test_a_subscribed_attachment_is_kept_until_the_server_updates_it(gateway, fake_llm):
    uri = "demo://resource/dynamic/text/3"  # its text carries the time it was made, to the second
    fake_llm.script({"content": "Let me see."}, {"content": "It is resource 3."})
    assert gateway.chat("sue", {"message": "What is this?",
                                "attachments": [{"server": "everything", "uri": uri}]}).status_code == 200
    attached = fake_llm.requests()[1]["messages"][-1]["content"]
    time.sleep(1.1)  # a fresh read would now carry another time
    kept = read(gateway, "everything", uri).json()["contents"][0]["text"]
    assert kept in attached
    # The server sends `notifications/resources/updated` for its subscriptions once this tool is called (not a
    # read-only one: a plain JSON request makes it once allowed).
    assert gateway.keep_rule("sue", "everything", "toggle-subscriber-updates").status_code == 200
    fake_llm.script({"tool_calls": [{"name": "everything__toggle-subscriber-updates", "arguments": {}}]},
                    {"content": "Done."})
    # In a conversation of its own: a turn after the attaching one would be given the attachment again.
    assert gateway.chat("sue", {"message": "Turn on updates",
                                "conversation": _new_conversation(gateway, "sue")}).status_code == 200
    deadline = time.monotonic() + 15
    while read(gateway, "everything", uri).json()["contents"][0]["text"] == kept:
        assert time.monotonic() < deadline, "the update never made the read fresh"
        time.sleep(0.2)


def note(gateway: GatewayProcess, server: str, name: str) -> str:
    return read(gateway, server, f"note://{name}").json()["contents"][0]["text"]


def attach_note(gateway: GatewayProcess, fake_llm, server: str, name: str, scheme: str = "note") -> str:
    """Attach the named note (`scheme`://`name`) to a turn; what the writer read of it."""
    fake_llm.script({"content": "Let me see."}, {"content": "Noted."})
    # Each in a conversation of its own: a later turn of one would be given its earlier attachments again.
    response = gateway.chat("ada", {"message": "What does my note say?",
                                    "conversation": _new_conversation(gateway, "ada"),
                                    "attachments": [{"server": server, "uri": f"{scheme}://{name}"}]})
    assert response.status_code == 200, response.text
    written = fake_llm.requests()[1]["messages"][-1]["content"]
    return written.split(f"{scheme}://{name} from {server}:\n")[1].split("\n")[0]


def call_notes_tool(gateway: GatewayProcess, fake_llm, message: str, tool: str, arguments: dict) -> str:
    """A turn in which the router calls the notes server's `tool` (the question names its arguments); its text.
    Its tools are not read-only: a plain JSON request makes them once allowed."""
    assert gateway.keep_rule("ada", "notes", tool).status_code == 200
    fake_llm.script({"tool_calls": [{"name": f"notes__{tool}", "arguments": arguments}]}, {"content": "Done."})
    (made,) = gateway.chat("ada", {"message": message, "conversation": _new_conversation(gateway, "ada")}).json()[
        "tool_calls"]
    assert not made["is_error"], made
    return made["text"]


def test_an_attachment_on_a_2026_session_is_kept_until_the_server_updates_it(gateway, fake_llm):
    versions = {row["name"]: row["protocol_version"] for row in gateway.get("/servers").json()["servers"]}
    assert versions["notes"] == "2026-07-28"  # no resources/subscribe: the subscription is a subscriptions/listen
    assert attach_note(gateway, fake_llm, "notes", "shopping") == "nothing yet [read 1]"
    assert note(gateway, "notes", "shopping") == "nothing yet [read 1]"  # kept: not read again
    assert attach_note(gateway, fake_llm, "notes", "work") == "nothing yet [read 1]"
    # A second URI widened the stream: the wider one replaced the first, which the server no longer holds.
    assert call_notes_tool(gateway, fake_llm, "How many streams are open?", "listen_streams", {}) == "1"
    call_notes_tool(gateway, fake_llm, "Set the shopping note to buy milk", "set_note",
                    {"name": "shopping", "text": "buy milk"})
    deadline = time.monotonic() + 15
    while note(gateway, "notes", "shopping").startswith("nothing yet"):
        assert time.monotonic() < deadline, "the update never made the read fresh"
        time.sleep(0.2)
    # The next turn reads the new text once and keeps it again; the other note was never read again.
    attached = attach_note(gateway, fake_llm, "notes", "shopping")
    assert attached.startswith("buy milk [read ") and note(gateway, "notes", "shopping") == attached
    assert note(gateway, "notes", "work") == "nothing yet [read 1]"


def test_a_read_the_server_says_is_stale_at_once_is_not_kept(gateway, fake_llm):
    """2026-07-28 reads carry `ttlMs`; 0 means the copy is stale at once, subscribed or not."""
    assert attach_note(gateway, fake_llm, "stale-notes", "shopping") == "nothing yet [read 1]"
    assert note(gateway, "stale-notes", "shopping") == "nothing yet [read 2]"


def test_a_read_that_asked_its_reader_a_question_is_never_kept(gateway, fake_llm):
    """A 2026-07-28 read may need input rounds (an elicitation); what it returns may depend on the answer and on
    who gave it, so a later read, maybe another user's, must ask the server again, subscribed or not."""
    first = attach_note(gateway, fake_llm, "notes", "diary", scheme="locked")
    assert first == "nothing yet for cancel [read 1]"  # nobody could be asked while the turn's attachments were read
    again = read(gateway, "notes", "locked://diary")
    assert again.status_code == 200, again.text
    assert again.json()["contents"][0]["text"] == "nothing yet for cancel [read 2]"
