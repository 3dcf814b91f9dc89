"""Conversation memory: an interface and its embedded SQLite implementation."""

from mcp_chat_app.history.sqlite_store import SqliteHistoryStore
from mcp_chat_app.history.store import HistoryStore, estimate_tokens, most_turns_within, trim_to_budget

__all__ = ["HistoryStore", "SqliteHistoryStore", "estimate_tokens", "most_turns_within", "trim_to_budget"]
