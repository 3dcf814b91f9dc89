"""The history store interface. SQLite is the embedded default; a shared store (Redis, Postgres)
implementing the same four methods lets several gateway instances share conversations."""

from __future__ import annotations

from typing import Any, Protocol

# `{"role", "content"}`, and on an answer `"calls"`: the tool calls behind it (`{"tool", "arguments"}`), which
# follow-up questions inherit their places and days from.
Message = dict[str, Any]


class HistoryStore(Protocol):
    """Per-user conversation turns, oldest first."""

    def append(self, user: str, messages: list[Message]) -> None:
        """Add turns atomically (a question and its answer land together or not at all)."""

    def messages(self, user: str, last: int | None = None) -> list[Message]:
        """The stored turns of `user` (only the `last` ones if given), oldest first."""

    def clear(self, user: str) -> int:
        """Forget `user`'s conversation; returns how many turns were removed."""

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
