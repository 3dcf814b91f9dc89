"""The users' remembered approval decisions: a small SQLite file beside the history store.

A connection per operation, not a pool: rules are read once per tool call that may need asking and written when a
person answers a card, far below where opening a connection shows.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from mcp_chat_app.mcp_client.approval_policy import Rule, RuleDecision

# `conversation` '' is the "always" rule (a primary key column cannot usefully be NULL: NULLs never conflict).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS approval_rules (
    user TEXT NOT NULL,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    conversation TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
    created_at REAL NOT NULL,
    PRIMARY KEY (user, server, tool, conversation)
);
"""
_ALWAYS = ""
_COLUMNS = "server, tool, decision, conversation, created_at"


class SqliteApprovalRules:
    """Implements approval_policy.ApprovalRules, plus listing and revoking for the routes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._transaction() as connection:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(_SCHEMA)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.path, timeout=10)) as connection, connection:
            yield connection

    def matching(self, user: str, server: str, tool: str, conversation: str | None) -> list[Rule]:
        with self._transaction() as connection:
            rows = connection.execute(f"SELECT {_COLUMNS} FROM approval_rules WHERE user = ? AND server = ? "
                                      "AND tool = ? AND conversation IN (?, ?)",
                                      (user, server, tool, conversation or _ALWAYS, _ALWAYS)).fetchall()
        return [_rule(row) for row in rows]

    def remember(self, user: str, server: str, tool: str, decision: RuleDecision, conversation: str | None) -> Rule:
        rule = Rule(server, tool, decision, conversation or None, time.time())
        with self._transaction() as connection:
            connection.execute("INSERT INTO approval_rules (user, server, tool, conversation, decision, created_at) "
                               "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user, server, tool, conversation) DO UPDATE "
                               "SET decision = excluded.decision, created_at = excluded.created_at",
                               (user, server, tool, conversation or _ALWAYS, decision, rule.created_at))
        return rule

    def rules(self, user: str) -> list[Rule]:
        """All of `user`'s rules, by server and tool, the "always" one first."""
        with self._transaction() as connection:
            rows = connection.execute(f"SELECT {_COLUMNS} FROM approval_rules WHERE user = ? "
                                      "ORDER BY server, tool, conversation", (user,)).fetchall()
        return [_rule(row) for row in rows]

    def revoke(self, user: str, server: str | None = None, tool: str | None = None,
               conversation: str | None = None) -> int:
        """Forget `user`'s rules: all, or one tool's (of every scope, or only `conversation`'s); how many went."""
        where, values = "user = ?", [user]
        for column, value in (("server", server), ("tool", tool), ("conversation", conversation)):
            if value is not None:
                where, values = f"{where} AND {column} = ?", [*values, value]
        with self._transaction() as connection:
            return connection.execute(f"DELETE FROM approval_rules WHERE {where}", values).rowcount


def _rule(row: tuple) -> Rule:
    server, tool, decision, conversation, created_at = row
    return Rule(server, tool, decision, conversation or None, created_at)
