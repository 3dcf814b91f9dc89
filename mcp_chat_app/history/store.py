"""The history store interface. SQLite is the embedded default; a shared store (Redis, Postgres)
implementing the same methods lets several gateway instances share conversations."""

from __future__ import annotations

from typing import Any, Protocol

# `{"role", "content"}`, and on an answer `"calls"`: the tool calls behind it (`{"tool", "arguments"}`, and
# `"failed": true` on one the server answered with an error), which
# follow-up questions inherit their places and days from; and what the page showed beside it (SHOWN_KEYS). On a
# question, `"attachments"`: the resources attached to it (`{"server", "uri", "mime"?}`), read again for follow-ups.
Message = dict[str, Any]
# An answer's notice badges, images and other media, kept so a reopened conversation shows them again.
SHOWN_KEYS = ("notices", "images", "media")
ATTACHMENTS_KEY = "attachments"
# `{"id", "title", "turns", "created_at", "updated_at", "profile"}` (times as Unix seconds; `title` "" until one is
# given; `profile` the model profile its turns use, None until a turn picks one: the gateway's default).
Conversation = dict[str, Any]

# Every user has this conversation: the one a chat without a conversation id goes to.
DEFAULT_CONVERSATION = "default"
MAX_CONVERSATIONS = 100  # per user: the list is a menu, not an archive


class TooManyConversations(Exception):
    """The user already has MAX_CONVERSATIONS conversations."""


class HistoryStore(Protocol):
    """Per-user conversations, each a list of turns, oldest first. `conversation` defaults to the default one."""

    def append(self, user: str, messages: list[Message], conversation: str = DEFAULT_CONVERSATION,
               replace_last: bool = False, profile: str | None = None) -> None:
        """Add turns atomically (a question and its answer land together or not at all); `replace_last` first
        removes the conversation's last question and answer, in the same transaction (a regenerated answer);
        `profile`, when given, becomes the conversation's model profile in it too."""

    def messages(self, user: str, last: int | None = None,
                 conversation: str = DEFAULT_CONVERSATION) -> list[Message]:
        """The stored turns of one conversation of `user` (only the `last` ones if given), oldest first."""

    def clear(self, user: str, conversation: str = DEFAULT_CONVERSATION) -> int:
        """Forget one conversation's turns (it stays, with its title); returns how many turns were removed."""

    def conversations(self, user: str) -> list[Conversation]:
        """`user`'s conversations, the default one included, most recently used first."""

    def conversation(self, user: str, conversation: str) -> Conversation | None:
        """One conversation, or None if `user` has none by that id."""

    def create_conversation(self, user: str, title: str) -> Conversation:
        """A new, empty conversation with a fresh id; TooManyConversations past the limit."""

    def rename_conversation(self, user: str, conversation: str, title: str) -> Conversation | None:
        """Set the title; None if there is no such conversation."""

    def delete_conversation(self, user: str, conversation: str) -> int | None:
        """Remove a conversation and its turns (the default one is emptied and untitled instead); how many turns
        went, or None if there is no such conversation."""

    def search(self, user: str, query: str) -> list[Any]:
        """`user`'s messages holding every term of `query`, newest first: `{"conversation", "title", "role",
        "snippet", "created_at"}` each (history/search.py)."""

    def close(self) -> None:
        """Release connections."""


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: ~3 UTF-8 bytes per token (1 CJK character, or 3-4 Latin letters)."""
    return max(1, len(text.encode("utf-8")) // 3)


def most_turns_within(budget: int) -> int:
    """How many turns can fit in `budget` at most (each costs at least 5): what to load for a prompt."""
    return max(0, budget // 5)


def trim_to_budget(messages: list[Message], budget: int) -> list[Message]:
    """The most recent turns that fit in `budget` tokens, never starting with an orphan answer."""
    kept: list[Message] = []
    used = 0
    for message in reversed(messages):
        used += estimate_tokens(message["content"]) + 4  # role markers: at least 5 per turn in all
        if used > budget:
            break
        kept.append(message)
    kept.reverse()
    while kept and kept[0]["role"] != "user":
        kept.pop(0)
    return kept
