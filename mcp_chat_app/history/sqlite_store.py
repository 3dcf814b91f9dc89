"""SQLite conversation store: one file in the data directory, WAL, a pool of connections."""

from __future__ import annotations

import json
import queue
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mcp_chat_app.history.store import Message

_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at REAL NOT NULL,
    calls TEXT
);
CREATE INDEX IF NOT EXISTS messages_by_user ON messages (user, id);
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

    def append(self, user: str, messages: list[Message]) -> None:
        now = time.time()
        with self._connection() as connection, connection:  # the inner `with`: one transaction
            connection.executemany(
                "INSERT INTO messages (user, role, content, created_at, calls) VALUES (?, ?, ?, ?, ?)",
                [(user, message["role"], message["content"], now,
                  json.dumps(message["calls"], ensure_ascii=False) if message.get("calls") else None)
                 for message in messages],
            )

    def messages(self, user: str, last: int | None = None) -> list[Message]:
        with self._connection() as connection:
            rows = connection.execute(
                "SELECT role, content, calls FROM messages WHERE user = ? ORDER BY id DESC LIMIT ?",
                (user, -1 if last is None else last),  # LIMIT -1: no limit
            ).fetchall()
        return [{"role": role, "content": content, **({"calls": json.loads(calls)} if calls else {})}
                for role, content, calls in reversed(rows)]

    def clear(self, user: str) -> int:
        with self._connection() as connection, connection:
            return connection.execute("DELETE FROM messages WHERE user = ?", (user,)).rowcount

    def close(self) -> None:
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return
