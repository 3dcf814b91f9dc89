"""Every content type a tool can return, through the gateway process over HTTP: resource links, binary embedded
resources and audio from @modelcontextprotocol/server-everything (streamable HTTP) and the content server
(tests/support/content_mcp_server.py, stdio), the scripted LLM choosing the call. Each reaches the JSON answer
(`media`, beside `images`), the stored conversation and the media store, and the writer is told of it."""

from __future__ import annotations

import base64
import gzip
import json

import pytest

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.pipeline import ChatPipeline
from mcp_chat_app.config import CONFIG_DIR
from mcp_chat_app.llm.client import LlmClient
from mcp_chat_app.llm.profiles import Endpoint
from mcp_chat_app.mcp_client.manager import McpManager
from mcp_chat_app.mcp_client.registry import parse_server_spec
from mcp_chat_app.media_store import MediaStore

from tests.support.content_gateway import CONTENT_SERVER, content_gateway

NOTES = b"hello notes, compressed by the tool"


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    with content_gateway(tmp_path_factory.mktemp("content"), fake_llm.url) as process:
        yield process


def ask(gateway, fake_llm, tool: str, arguments: dict, answer: str, user: str = "cora") -> dict:
    fake_llm.script({"tool_calls": [{"name": tool, "arguments": arguments}]}, {"content": answer})
    reply = gateway.chat(user, {"message": "Show me what the tool has.", "use_tools": True})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert not any(call["is_error"] for call in body["tool_calls"]), body["tool_calls"]
    return body


def fed_to_model(fake_llm) -> str:
    """What the model that writes the answer read of the result (this profile's writer is its router: the tool
    message)."""
    (fed,) = [m["content"] for m in fake_llm.requests()[-1]["messages"] if m["role"] == "tool"]
    return fed


def test_resource_links_reach_the_answer_and_the_writer(gateway, fake_llm):
    body = ask(gateway, fake_llm, "everything__get-resource-links", {"count": 2}, "Here are the two resources.")
    assert body["images"] == []
    assert body["media"] == [
        {"kind": "link", "uri": "demo://resource/dynamic/blob/1", "name": "Blob Resource 1", "mime": "text/plain",
         "description": "Resource 1: plaintext resource", "server": "everything"},
        {"kind": "link", "uri": "demo://resource/dynamic/text/2", "name": "Text Resource 2", "mime": "text/plain",
         "description": "Resource 2: plaintext resource", "server": "everything"}]
    assert ("a link to Blob Resource 1 (text/plain) and a link to Text Resource 2 (text/plain) shown to the user "
            "beside the answer") in fed_to_model(fake_llm)
    # A link's server and URI read it through the gateway.
    link = body["media"][1]
    read = gateway.get("/resources/read", params={"server": link["server"], "uri": link["uri"]})
    assert read.status_code == 200 and read.json()["contents"][0]["text"].startswith("Resource 2: This is a plaintext")
    # A reopened conversation shows them again.
    (_, answer) = gateway.get("/chat/cora/history").json()["messages"][-2:]
    assert answer["media"] == body["media"]


def test_an_embedded_binary_resource_is_a_download_with_its_name_and_type(gateway, fake_llm):
    # The tool is not read-only: a plain JSON request makes it once the user keeps an allow for it.
    assert gateway.keep_rule("cora", "everything", "gzip-file-as-resource").status_code == 200
    data = "data:text/plain;base64," + base64.b64encode(NOTES).decode()
    body = ask(gateway, fake_llm, "everything__gzip-file-as-resource",
               {"name": "notes.txt.gz", "data": data, "outputType": "resource"}, "The file is ready.")
    (item,) = body["media"]
    assert {key: item[key] for key in ("kind", "name", "mime", "server")} == {
        "kind": "file", "name": "notes.txt.gz", "mime": "application/gzip", "server": "everything"}
    assert item["url"].startswith("/media/") and item["url"].endswith("/notes.txt.gz")
    download = gateway.get(item["url"])
    assert download.status_code == 200 and download.headers["content-type"] == "application/gzip"
    assert download.headers["content-disposition"] == "attachment; filename=notes.txt.gz"
    assert gzip.decompress(download.content) == NOTES
    assert "a file notes.txt.gz (application/gzip) shown to the user beside the answer" in fed_to_model(fake_llm)


def test_a_blob_without_an_extension_gets_its_types_and_never_opens_in_place(gateway, fake_llm):
    body = ask(gateway, fake_llm, "everything__get-resource-reference", {"resourceType": "Blob", "resourceId": 1},
               "Here is resource one.")
    (item,) = body["media"]
    assert item["kind"] == "file" and item["name"] == "1.txt" and item["mime"] == "text/plain"
    download = gateway.get(item["url"])
    assert download.headers["content-disposition"] == "attachment; filename=1.txt"
    assert download.text.startswith("Resource 1: This is a base64 blob")
    # The bare media URL of a type a browser would render as a page still only downloads, and is sandboxed.
    bare = gateway.get(item["url"].rsplit("/", 1)[0])
    assert bare.status_code == 200 and bare.headers["content-disposition"].startswith("attachment")
    assert bare.headers["content-security-policy"] == "sandbox" and bare.headers["x-content-type-options"] == "nosniff"
    # The text beside it still reaches the writer, and the download does too.
    facts = fed_to_model(fake_llm)
    assert "Returning resource reference for Resource 1" in facts and "a file 1 (text/plain)" in facts


def test_audio_is_stored_and_played_in_place(gateway, fake_llm):
    body = ask(gateway, fake_llm, "content__play_chime", {"seconds": 0.2}, "Here is the chime.")
    (item,) = body["media"]
    assert {key: item[key] for key in ("kind", "name", "mime", "server")} == {
        "kind": "audio", "name": "audio.wav", "mime": "audio/wav", "server": "content"}
    clip = gateway.get(item["url"])
    assert clip.status_code == 200 and clip.headers["content-type"].startswith("audio/")
    assert "content-disposition" not in clip.headers or "inline" in clip.headers["content-disposition"]
    assert clip.content[:4] == b"RIFF" and clip.content[8:12] == b"WAVE"
    assert json.loads(fed_to_model(fake_llm)) == {
        "result": "A 0.2 second chime.", "shown": "an audio clip (audio/wav) shown to the user beside the answer"}


def test_unknown_media_is_404(gateway):
    for path in ("/media/" + "0" * 32 + ".wav", "/media/not-an-id", "/media/" + "0" * 32 + ".txt/x.txt"):
        reply = gateway.get(path)
        assert reply.status_code == 404 and reply.json()["error"]["code"] == "unknown_media"



def test_a_writer_pass_reads_what_was_shown_among_the_facts(fake_llm, tmp_path):
    """A forced-call profile (as the local one) answers in a writer pass over the facts: the audio is named there."""
    manager = McpManager({"content": parse_server_spec("content", CONTENT_SERVER)}, tmp_path / "logs")
    manager.start()
    try:
        client = LlmClient(Endpoint("test", f"{fake_llm.url}/v1", "fake-model", "k", tool_choice="required"))
        pipeline = ChatPipeline(manager, client, client, MediaStore(tmp_path / "media"),
                                load_assistant(CONFIG_DIR / "assistant.json"))
        fake_llm.script({"tool_calls": [{"name": "content__play_chime", "arguments": {"seconds": 0.2}}]},
                        {"content": "Here is the chime."})
        result = pipeline.run("Play me a chime", [])
    finally:
        manager.close()
    assert [item["kind"] for item in result.media] == ["audio"] and result.response == "Here is the chime."
    facts = fake_llm.requests()[-1]["messages"][-1]["content"]
    assert "A 0.2 second chime. (an audio clip (audio/wav) shown to the user beside the answer)" in facts
