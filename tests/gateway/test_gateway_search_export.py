"""Searching a user's conversations (SQLite FTS5) and exporting one as Markdown or JSON, through the gateway
process over HTTP with the real weather server (simulated data: a notice, a chart), the content server (audio) and
the scripted LLM; and the index itself on an older history file and on an SQLite without FTS5."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
import pytest

from mcp_chat_app.history import SqliteHistoryStore
from mcp_chat_app.history.search import search_messages

from tests.support.content_gateway import CONTENT_SERVER
from tests.support.gateway_processes import WEATHER_SERVER, GatewayProcess


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("search"), {
        "weather": WEATHER_SERVER,
        "content": CONTENT_SERVER}, fake_llm.url)
    yield process
    process.stop()


def say(gateway, fake_llm, user: str, message: str, answer: str, conversation: str = "default",
        *calls: dict) -> dict:
    fake_llm.script(*([{"tool_calls": list(calls)}] if calls else []), {"content": answer})
    reply = gateway.chat(user, {"message": message, "conversation": conversation, "use_tools": bool(calls)})
    assert reply.status_code == 200, reply.text
    return reply.json()


def search(gateway, user: str, query: str | None) -> httpx.Response:
    return gateway.get(f"/chat/{user}/search", params={} if query is None else {"q": query})


def test_a_search_finds_only_that_users_messages_in_every_conversation(gateway, fake_llm):
    trip = httpx.post(f"{gateway.url}/chat/alice/conversations", json={"title": "Trip"}).json()["id"]
    say(gateway, fake_llm, "alice", "Packing list for Reykjavik?", "Bring a warm coat and gloves.")
    say(gateway, fake_llm, "alice", "北京下周适合去玩吗？", "北京下周天气晴朗，适合出游。", trip)
    say(gateway, fake_llm, "bob", "Is Reykjavik cold in winter?", "Yes, bring a coat.")
    found = search(gateway, "alice", "reykjavik").json()
    assert found["user"] == "alice" and found["query"] == "reykjavik"
    (match,) = found["results"]
    assert match["conversation"] == "default" and match["role"] == "user" and match["title"] == ""
    assert match["snippet"] == "Packing list for Reykjavik?" and isinstance(match["created_at"], float)
    # A coat is in an answer of each user: each sees their own; a term of two Chinese characters is found too.
    assert [m["snippet"] for m in search(gateway, "alice", "COAT").json()["results"]] == \
        ["Bring a warm coat and gloves."]
    assert [m["snippet"] for m in search(gateway, "bob", "coat").json()["results"]] == ["Yes, bring a coat."]
    chinese = search(gateway, "alice", "北京").json()["results"]
    assert [(m["conversation"], m["title"], m["role"]) for m in chinese] == [(trip, "Trip", "assistant"),
                                                                           (trip, "Trip", "user")]
    # Every term must match; FTS5 syntax in a query is just text.
    assert len(search(gateway, "alice", "warm gloves").json()["results"]) == 1
    assert search(gateway, "alice", "warm Paris").json()["results"] == []
    assert search(gateway, "alice", 'coat" OR "x NEAR(').json()["results"] == []
    assert search(gateway, "carol", "coat").json()["results"] == []
    # A deleted conversation's messages are gone from the index.
    assert httpx.delete(f"{gateway.url}/chat/alice/conversations/{trip}").status_code == 200
    assert search(gateway, "alice", "北京").json()["results"] == []


@pytest.mark.parametrize("query", [None, "", "   ", "x" * 201, "two\nlines", "bell\x07"])
def test_a_bad_query_is_400(gateway, query):
    reply = search(gateway, "alice", query)
    assert reply.status_code == 400 and reply.json()["error"]["code"] == "bad_query"


def test_an_export_has_the_turns_notices_and_media_links(gateway, fake_llm):
    chart = say(gateway, fake_llm, "erin", "画出北京未来三天的温度曲线", "这是北京未来三天的温度曲线。", "default",
                {"name": "weather__get_weather_chart", "arguments": {"city": "北京", "days": 3, "kind": "temperature"}})
    chime = say(gateway, fake_llm, "erin", "Play a chime", "Here is the chime.", "default",
                {"name": "content__play_chime", "arguments": {}})
    (image,), (notice,), (audio,) = chart["images"], chart["notices"], chime["media"]
    assert httpx.patch(f"{gateway.url}/chat/erin/conversations/default", json={"title": "Charts & sounds"}) \
        .status_code == 200

    markdown = gateway.get("/chat/erin/conversations/default/export", params={"format": "md"})
    assert markdown.status_code == 200 and markdown.headers["content-type"] == "text/markdown; charset=utf-8"
    assert markdown.headers["content-disposition"] == 'attachment; filename="Charts__sounds-default.md"'
    text = markdown.text
    assert text.startswith("# Charts & sounds\n") and "**You:** 画出北京未来三天的温度曲线" in text
    assert f"**Assistant:** 这是北京未来三天的温度曲线。\n\n> {notice['text']}\n\n![{image['alt']}]" \
           f"({gateway.url}{image['url']})" in text
    assert f"- Audio: [audio.wav]({gateway.url}{audio['url']}) (audio/wav)" in text
    assert httpx.get(f"{gateway.url}{image['url']}").headers["content-type"] == "image/png"  # the links work

    exported = gateway.get("/chat/erin/conversations/default/export", params={"format": "json"})
    assert exported.headers["content-disposition"] == 'attachment; filename="Charts__sounds-default.json"'
    body = exported.json()
    assert body["id"] == "default" and body["title"] == "Charts & sounds" and body["turns"] == 4
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user", "assistant"]
    assert body["messages"][1]["notices"] == [notice]
    assert body["messages"][1]["images"] == [{**image, "url": f"{gateway.url}{image['url']}"}]
    assert body["messages"][3]["media"] == [{**audio, "url": f"{gateway.url}{audio['url']}"}]
    # Without a format: Markdown.
    assert gateway.get("/chat/erin/conversations/default/export").text.startswith("# Charts & sounds")


@pytest.mark.parametrize(("path", "status", "code"), [
    ("/chat/erin/conversations/nope/export", 404, "unknown_conversation"),
    ("/chat/erin/conversations/default/export?format=pdf", 400, "bad_format"),
    ("/chat/erin/conversations/bad%20id/export", 400, "bad_conversation"),
    ("/chat/bad%20user/conversations/default/export", 400, "bad_user"),
])
def test_a_bad_export_says_why(gateway, path, status, code):
    reply = gateway.get(path)
    assert reply.status_code == status and reply.json()["error"]["code"] == code


def test_an_older_history_file_gets_its_messages_indexed(tmp_path: Path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as old:  # the schema before search
        old.executescript("CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, user TEXT NOT NULL, role TEXT "
                          "NOT NULL, content TEXT NOT NULL, created_at REAL NOT NULL, calls TEXT);"
                          "INSERT INTO messages (user, role, content, created_at) VALUES ('ola', 'user', "
                          "'Is it windy in Bergen?', 1);")
    store = SqliteHistoryStore(path)
    assert [m["snippet"] for m in store.search("ola", "bergen")] == ["Is it windy in Bergen?"]
    store.close()
    with sqlite3.connect(path) as reopened:  # the index is kept, not rebuilt on every start
        (count,) = reopened.execute("SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'windy'").fetchone()
        assert count == 1


def test_without_fts5_the_same_messages_are_found(tmp_path: Path):
    store = SqliteHistoryStore(tmp_path / "h.sqlite3")
    long_answer = "Sunny spells at first. " * 10 + "Then heavy rain in Oslo by the evening."
    store.append("ola", [{"role": "user", "content": "奥斯陆明天下雨吗？"}, {"role": "assistant", "content": long_answer}])
    connection = sqlite3.connect(tmp_path / "h.sqlite3")
    for query in ("oslo", "下雨", "heavy RAIN", "rain 奥斯陆", "sunny", "snow"):
        assert search_messages(connection, "ola", query, indexed=True) == \
            search_messages(connection, "ola", query, indexed=False), query
    (match,) = store.search("ola", "evening")
    assert match["snippet"].startswith("…") and match["snippet"].endswith("Oslo by the evening.")
    connection.close()
    store.close()
