"""A user's conversations: list, create, read, rename, delete (each has its own history; `POST /chat/<user>`
takes a `conversation` id, and without one uses the default conversation)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from mcp_chat_app.gateway import gateway
from mcp_chat_app.history import MAX_CONVERSATIONS, Conversation, TooManyConversations
from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.requests import checked_conversation, conversation_title
from mcp_chat_app.web.routes.body import authorized_user, json_body

blueprint = Blueprint("conversations", __name__)


def _found(user: str, conversation: str, found: Conversation | int | None) -> Conversation | int:
    if found is None:
        raise GatewayError(404, "unknown_conversation", f"{user!r} has no conversation {conversation!r}")
    return found


@blueprint.get("/chat/<user>/conversations")
def list_conversations(user: str) -> Response:
    """Every conversation of the user, the default one included, most recently used first."""
    user = authorized_user(user)
    return jsonify({"user": user, "conversations": gateway().history.conversations(user)})


@blueprint.post("/chat/<user>/conversations")
def create_conversation(user: str) -> tuple[Response, int]:
    """A new, empty conversation; `{"title"?: str}`."""
    user = authorized_user(user)
    title = conversation_title(json_body(), required=False)
    try:
        return jsonify(gateway().history.create_conversation(user, title)), 201
    except TooManyConversations as error:
        raise GatewayError(409, "too_many_conversations", f"{user!r} has {MAX_CONVERSATIONS} conversations, the "
                           "most one user may keep: delete one first") from error


@blueprint.get("/chat/<user>/conversations/<conversation>")
def get_conversation(user: str, conversation: str) -> Response:
    """One conversation with its turns, oldest first."""
    user, conversation = authorized_user(user), checked_conversation(conversation)
    history = gateway().history
    found = _found(user, conversation, history.conversation(user, conversation))
    return jsonify({**found, "messages": history.messages(user, conversation=conversation)})


@blueprint.patch("/chat/<user>/conversations/<conversation>")
def rename_conversation(user: str, conversation: str) -> Response:
    """Give a conversation a title: `{"title": str}`."""
    user, conversation = authorized_user(user), checked_conversation(conversation)
    title = conversation_title(json_body(), required=True)
    return jsonify(_found(user, conversation, gateway().history.rename_conversation(user, conversation, title)))


@blueprint.delete("/chat/<user>/conversations/<conversation>")
def delete_conversation(user: str, conversation: str) -> Response:
    """Remove a conversation and its turns; the default one is emptied and loses its title instead."""
    user, conversation = authorized_user(user), checked_conversation(conversation)
    deleted = _found(user, conversation, gateway().history.delete_conversation(user, conversation))
    gateway().approvals.revoke(user, conversation=conversation)  # its "allow for this conversation" ends with it
    return jsonify({"user": user, "id": conversation, "deleted": deleted})
