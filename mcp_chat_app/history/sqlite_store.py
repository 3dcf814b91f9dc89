"""SQLite conversation store: one file in the data directory, WAL, a pool of connections."""

from __future__ import annotations

import json
import queue
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mcp_chat_app.history.search import Match, install_index, search_messages
from mcp_chat_app.history.store import (
    ATTACHMENTS_KEY,
    DEFAULT_CONVERSATION,
    MAX_CONVERSATIONS,
    SHOWN_KEYS,
    Conversation,
    Message,
    TooManyConversations,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at REAL NOT NULL,
    calls TEXT,
    conversation TEXT NOT NULL DEFAULT 'default',
    shown TEXT
);
CREATE TABLE IF NOT EXISTS conversations (
    user TEXT NOT NULL,
    id TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    profile TEXT,
    PRIMARY KEY (user, id)
);
"""
# After the migrations: an older file gets the column first.
_INDEXES = """
DROP INDEX IF EXISTS messages_by_user;
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages (user, conversation, id);
"""
# What the `shown` column keeps of a message, as one JSON object: an answer's notices and media, a question's
# attachments (a row from before any of them has NULL there, and reads as before).
_SHOWN = (*SHOWN_KEYS, ATTACHMENTS_KEY)
# A conversation row with its turn count; the default conversation has a row once it is used or titled.
_CONVERSATION_ROWS = """
SELECT c.id, c.title, c.created_at, c.updated_at, c.profile,
       (SELECT COUNT(*) FROM messages m WHERE m.user = c.user AND m.conversation = c.id) AS turns
FROM conversations c WHERE c.user = ?
"""


# Enough pooled connections for the usual concurrency; each keeps a small page cache (the user
# index makes every query a short range scan), so memory stays flat as the file grows.
_MAX_IDLE_CONNECTIONS = 8
_CACHE_KIB = 512


class SqliteHistoryStore:
    """Safe under concurrent requests: WAL lets readers run beside the single writer, and
    `busy_timeout` makes writers queue instead of failing. Connections are pooled, not kept per
    thread: the HTTP server starts a thread per connection, and per-thread connections would pile
    up, two file descriptors each, until the process runs out."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._idle: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue()
        with self._connection() as connection:
            connection.execute("PRAGMA journal_mode=WAL")  # a property of the file: once is enough
            connection.executescript(_SCHEMA)
            columns = {row[1] for row in connection.execute("PRAGMA table_info(messages)")}
            if "calls" not in columns:  # a file from before answers kept their calls
                connection.execute("ALTER TABLE messages ADD COLUMN calls TEXT")
            if "shown" not in columns:  # a file from before answers kept their notices and images
                connection.execute("ALTER TABLE messages ADD COLUMN shown TEXT")
            if "conversation" not in columns:  # a file from before conversations: its turns are the default one's
                connection.execute("ALTER TABLE messages ADD COLUMN conversation TEXT NOT NULL DEFAULT 'default'")
            if "profile" not in {row[1] for row in connection.execute("PRAGMA table_info(conversations)")}:
                # a file from before conversations kept their model profile: theirs is the gateway's default
                connection.execute("ALTER TABLE conversations ADD COLUMN profile TEXT")
            connection.executescript(_INDEXES)
            self._indexed = install_index(connection)  # full-text search (history/search.py)

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A pooled connection for one operation; beyond the idle limit, extra ones are closed after use."""
        try:
            connection = self._idle.get_nowait()
        except queue.Empty:
            connection = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
        try:
            yield connection
        finally:
            if self._idle.qsize() < _MAX_IDLE_CONNECTIONS:
                self._idle.put(connection)
            else:
                connection.close()

    def append(self, user: str, messages: list[Message], conversation: str = DEFAULT_CONVERSATION,
               replace_last: bool = False, profile: str | None = None) -> None:
        now = time.time()
        with self._connection() as connection, connection:  # the inner `with`: one transaction
            if replace_last:
                last = connection.execute("SELECT id, role FROM messages WHERE user = ? AND conversation = ? "
                                          "ORDER BY id DESC LIMIT 2", (user, conversation)).fetchall()
                if [role for _, role in last] == ["assistant", "user"]:
                    connection.executemany("DELETE FROM messages WHERE id = ?", [(row_id,) for row_id, _ in last])
            connection.executemany(
                "INSERT INTO messages (user, role, content, created_at, calls, conversation, shown) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(user, message["role"], message["content"], now, _json_or_null(message.get("calls")), conversation,
                  _json_or_null({key: message[key] for key in _SHOWN if message.get(key)}))
                 for message in messages],
            )
            connection.execute(
                "INSERT INTO conversations (user, id, created_at, updated_at, profile) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (user, id) DO UPDATE SET updated_at = excluded.updated_at, "
                "profile = COALESCE(excluded.profile, conversations.profile)",
                (user, conversation, now, now, profile))

    def messages(self, user: str, last: int | None = None,
                 conversation: str = DEFAULT_CONVERSATION) -> list[Message]:
        with self._connection() as connection:
            rows = connection.execute(
                "SELECT role, content, calls, shown FROM messages WHERE user = ? AND conversation = ? "
                "ORDER BY id DESC LIMIT ?",
                (user, conversation, -1 if last is None else last),  # LIMIT -1: no limit
            ).fetchall()
        return [{"role": role, "content": content, **({"calls": json.loads(calls)} if calls else {}),
                 **(json.loads(shown) if shown else {})}
                for role, content, calls, shown in reversed(rows)]

    def clear(self, user: str, conversation: str = DEFAULT_CONVERSATION) -> int:
        with self._connection() as connection, connection:
            return connection.execute("DELETE FROM messages WHERE user = ? AND conversation = ?",
                                      (user, conversation)).rowcount

    def conversations(self, user: str) -> list[Conversation]:
        with self._connection() as connection:
            found = [_conversation(row) for row in connection.execute(_CONVERSATION_ROWS, (user,))]
        if all(item["id"] != DEFAULT_CONVERSATION for item in found):
            found.append(_unused_default())
        return sorted(found, key=lambda item: item["updated_at"], reverse=True)

    def conversation(self, user: str, conversation: str) -> Conversation | None:
        with self._connection() as connection:
            row = connection.execute(_CONVERSATION_ROWS + " AND c.id = ?", (user, conversation)).fetchone()
        if row is None:
            return _unused_default() if conversation == DEFAULT_CONVERSATION else None
        return _conversation(row)

    def create_conversation(self, user: str, title: str) -> Conversation:
        now = time.time()
        conversation = secrets.token_hex(6)
        with self._connection() as connection, connection:
            (count,) = connection.execute("SELECT COUNT(*) FROM conversations WHERE user = ? AND id != ?",
                                          (user, DEFAULT_CONVERSATION)).fetchone()
            if count >= MAX_CONVERSATIONS - 1:  # the default one counts too
                raise TooManyConversations(user)
            connection.execute("INSERT INTO conversations (user, id, title, created_at, updated_at) "
                               "VALUES (?, ?, ?, ?, ?)", (user, conversation, title, now, now))
        return {"id": conversation, "title": title, "turns": 0, "created_at": now, "updated_at": now,
                "profile": None}

    def rename_conversation(self, user: str, conversation: str, title: str) -> Conversation | None:
        with self._connection() as connection, connection:
            if conversation == DEFAULT_CONVERSATION:  # it exists before it has a row
                now = time.time()
                connection.execute("INSERT INTO conversations (user, id, created_at, updated_at) VALUES "
                                   "(?, ?, ?, ?) ON CONFLICT (user, id) DO NOTHING", (user, conversation, now, now))
            changed = connection.execute("UPDATE conversations SET title = ? WHERE user = ? AND id = ?",
                                         (title, user, conversation)).rowcount
        return self.conversation(user, conversation) if changed else None

    def delete_conversation(self, user: str, conversation: str) -> int | None:
        with self._connection() as connection, connection:
            rows = connection.execute("DELETE FROM conversations WHERE user = ? AND id = ?",
                                      (user, conversation)).rowcount
            if not rows and conversation != DEFAULT_CONVERSATION:
                return None
            return connection.execute("DELETE FROM messages WHERE user = ? AND conversation = ?",
                                      (user, conversation)).rowcount

    def search(self, user: str, query: str) -> list[Match]:
        with self._connection() as connection:
            return search_messages(connection, user, query, self._indexed)

    def close(self) -> None:
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return


def _json_or_null(value: object) -> str | None:
    return json.dumps(value, ensure_ascii=False) if value else None


def _conversation(row: tuple) -> Conversation:
    conversation, title, created_at, updated_at, profile, turns = row
    return {"id": conversation, "title": title, "turns": turns, "created_at": created_at, "updated_at": updated_at,
            "profile": profile}


def _unused_default() -> Conversation:
    return {"id": DEFAULT_CONVERSATION, "title": "", "turns": 0, "created_at": 0.0, "updated_at": 0.0,
            "profile": None}
