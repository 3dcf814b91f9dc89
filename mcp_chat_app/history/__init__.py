"""Conversation memory: an interface and its embedded SQLite implementation."""

from mcp_chat_app.history.sqlite_store import SqliteHistoryStore
from mcp_chat_app.history.store import (
    ATTACHMENTS_KEY,
    DEFAULT_CONVERSATION,
    MAX_CONVERSATIONS,
    SHOWN_KEYS,
    Conversation,
    HistoryStore,
    TooManyConversations,
    estimate_tokens,
    most_turns_within,
    trim_to_budget,
)

__all__ = ["ATTACHMENTS_KEY", "DEFAULT_CONVERSATION", "MAX_CONVERSATIONS", "SHOWN_KEYS", "Conversation", "HistoryStore",
           "SqliteHistoryStore", "TooManyConversations", "estimate_tokens", "most_turns_within", "trim_to_budget"]
