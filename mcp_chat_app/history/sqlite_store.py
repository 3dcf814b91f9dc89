"""SQLite conversation store: one file in the data directory, WAL, one connection per thread."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_user ON messages (user, id);
"""


class SqliteHistoryStore:
    """Safe under concurrent requests: WAL lets readers run beside the single writer, and
    `busy_timeout` makes writers queue instead of failing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._connection().executescript(_SCHEMA)

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            self._local.connection = connection
            with self._lock:
                self._all.append(connection)
        return connection

    def append(self, user: str, messages: list[dict[str, str]]) -> None:
        now = time.time()
        with self._connection() as connection:  # one transaction
            connection.executemany(
                "INSERT INTO messages (user, role, content, created_at) VALUES (?, ?, ?, ?)",
                [(user, message["role"], message["content"], now) for message in messages],
            )

    def messages(self, user: str) -> list[dict[str, str]]:
        rows = self._connection().execute(
            "SELECT role, content FROM messages WHERE user = ? ORDER BY id", (user,)
        ).fetchall()
        return [{"role": role, "content": content} for role, content in rows]

    def clear(self, user: str) -> int:
        with self._connection() as connection:
            return connection.execute("DELETE FROM messages WHERE user = ?", (user,)).rowcount

    def close(self) -> None:
        with self._lock:
            for connection in self._all:
                connection.close()
            self._all.clear()
