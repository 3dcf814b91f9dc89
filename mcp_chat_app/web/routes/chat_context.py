"""What a chat turn is answered from besides its message: the conversation before it (within the history budget)
and the resources attached to it, read before the turn starts, so a bad one is the request's HTTP error.

A follow-up is also given the attachments of the earlier questions in that history, and a regenerated answer its
question's, read again (they may have changed): one that can no longer be read is left out with a notice, never
the request's error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_chat_app.chat.attachments import Attachment, Unread, earlier_references
from mcp_chat_app.gateway import Gateway
from mcp_chat_app.history import ATTACHMENTS_KEY, most_turns_within, trim_to_budget
from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.requests import MAX_ATTACHMENTS, ChatRequest
from mcp_chat_app.web.routes.resources import read_resource


@dataclass(frozen=True)
class TurnContext:
    """What `turn_context` found for one request."""

    history: list[dict[str, Any]]  # the earlier turns that fit the budget, oldest first
    attachments: tuple[Attachment, ...]  # the question's own, then the earlier questions' (newest first)
    unread: tuple[Unread, ...]  # those read again that could not be
    kept: list[dict[str, str]]  # the references stored with the question


def turn_context(resources: Gateway, user: str, body: ChatRequest) -> TurnContext:
    """The history and attachments of this request's turn; the HTTP error of an attachment it brings that cannot
    be read."""
    budget = resources.config.history_token_budget
    stored = resources.history.messages(user, last=most_turns_within(budget), conversation=body.conversation)
    answered_again: list[dict[str, str]] = []
    if body.regenerate and [m["role"] for m in stored[-2:]] == ["user", "assistant"]:
        # The answer being replaced, and its question, are not the conversation before it; the question's
        # attachments are this turn's again, unless it brings its own.
        answered_again = [] if body.attachments else stored[-2].get(ATTACHMENTS_KEY, [])
        stored = stored[:-2]
    history = trim_to_budget(stored, budget)
    # Subscribed where the server can, so attaching it again next turn costs no read until it changes.
    own = [Attachment.of(read_resource(ref.server, ref.uri, subscribe=True)) for ref in body.attachments]
    kept = [attachment.reference for attachment in own] + answered_again
    again, unread = _read_again(answered_again, earlier=False)
    # The writer's room for attachments is what one message may bring.
    earlier, unread_earlier = _read_again(earlier_references(history, kept, MAX_ATTACHMENTS - len(kept)),
                                          earlier=True)
    return TurnContext(history, (*own, *again, *earlier), (*unread, *unread_earlier), kept)


def _read_again(references: list[dict[str, str]], earlier: bool) -> tuple[list[Attachment], list[Unread]]:
    read: list[Attachment] = []
    unread: list[Unread] = []
    for ref in references:
        try:
            read.append(Attachment.of(read_resource(ref["server"], ref["uri"], subscribe=True), earlier))
        except GatewayError as error:  # gone, refused, down or slow: said in the reply, the turn goes on
            unread.append(Unread(ref["server"], ref["uri"], error.message))
    return read, unread
