"""Full-text search over a user's stored messages: an SQLite FTS5 index (trigram tokenizer: substrings in any
script, Chinese included, case-folded) kept in step with the `messages` table by triggers.

A trigram index finds terms of three characters or more; shorter ones ("北京", "UV") are matched as substrings
of the messages the longer terms left, or of all the user's messages when the query has no longer term. An
SQLite built without FTS5 gets the same answers from substring matching alone.
"""

from __future__ import annotations

import sqlite3
from typing import Any

_INDEX = """
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='id', tokenize='trigram');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
"""
_TRIGRAM = 3
_SNIPPET_CHARS = 60  # of context on each side of the first match
MAX_RESULTS = 50

# A match: `{"conversation", "title", "role", "snippet", "created_at"}`.
Match = dict[str, Any]


def install_index(connection: sqlite3.Connection) -> bool:
    """Create the index (filled from the messages already stored) unless the file has it; False if this SQLite
    has no FTS5 (or no trigram tokenizer, SQLite < 3.34)."""
    if _has_index(connection):
        return True
    try:
        connection.executescript(f"BEGIN; {_INDEX} COMMIT;")  # all or nothing: a half-made index never completes
    except sqlite3.OperationalError:
        connection.rollback()
        return _has_index(connection)  # another process made it meanwhile, or this SQLite cannot
    return True


def _has_index(connection: sqlite3.Connection) -> bool:
    return connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'messages_fts'").fetchone() is not None


def search_messages(connection: sqlite3.Connection, user: str, query: str, indexed: bool,
                    limit: int = MAX_RESULTS) -> list[Match]:
    """`user`'s messages holding every whitespace-separated term of `query` (case-insensitive), newest first."""
    terms = list(dict.fromkeys(query.split()))
    long_terms = [term for term in terms if indexed and len(term) >= _TRIGRAM]
    short_terms = [term for term in terms if term not in long_terms]
    sql = ("SELECT m.conversation, COALESCE(c.title, ''), m.role, m.content, m.created_at FROM messages m "
           "LEFT JOIN conversations c ON c.user = m.user AND c.id = m.conversation WHERE m.user = ?")
    parameters: list[Any] = [user]
    if long_terms:  # each a quoted phrase: the user's text is never read as FTS5 query syntax
        sql += " AND m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)"
        parameters.append(" AND ".join('"' + term.replace('"', '""') + '"' for term in long_terms))
    for term in short_terms:
        sql += " AND instr(lower(m.content), lower(?)) > 0"
        parameters.append(term)
    rows = connection.execute(sql + " ORDER BY m.id DESC LIMIT ?", (*parameters, limit)).fetchall()
    return [{"conversation": conversation, "title": title, "role": role, "snippet": snippet(content, terms),
             "created_at": created_at} for conversation, title, role, content, created_at in rows]


def snippet(content: str, terms: list[str]) -> str:
    """The part of `content` around its first match, "…" where it was cut."""
    lowered = content.lower()
    found = [index for index in (lowered.find(term.lower()) for term in terms) if index >= 0]
    first = min(found, default=0)
    start, end = max(0, first - _SNIPPET_CHARS), min(len(content), first + _SNIPPET_CHARS * 2)
    text = " ".join(content[start:end].split())
    return f"{'…' if start else ''}{text}{'…' if end < len(content) else ''}"
