"""A user's remembered approval decisions ("allow for this conversation", "always allow", "always deny"): list
and revoke. They are made on the approval card (`POST /chat/<user>/approvals/<id>` with `remember`)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from mcp_chat_app.gateway import gateway
from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.requests import checked_conversation, checked_tool_name
from mcp_chat_app.web.routes.body import authorized_user

blueprint = Blueprint("approvals", __name__)


@blueprint.get("/chat/<user>/approvals/policy")
def list_rules(user: str) -> Response:
    """Every remembered decision of the user, by server and tool."""
    user = authorized_user(user)
    return jsonify({"user": user, "rules": [rule.to_json() for rule in gateway().approvals.rules(user)]})


@blueprint.delete("/chat/<user>/approvals/policy")
def revoke_all(user: str) -> Response:
    """Forget every remembered decision of the user: each call is decided by its defaults again."""
    user = authorized_user(user)
    return jsonify({"user": user, "deleted": gateway().approvals.revoke(user)})


@blueprint.delete("/chat/<user>/approvals/policy/<server>/<tool>")
def revoke_tool(user: str, server: str, tool: str) -> Response:
    """Forget the decisions remembered for one tool: all of them, or with `?conversation=` that conversation's."""
    user = authorized_user(user)
    server, tool = checked_tool_name("server", server), checked_tool_name("tool", tool)
    conversation = request.args.get("conversation")
    if conversation is not None:
        conversation = checked_conversation(conversation)
    deleted = gateway().approvals.revoke(user, server, tool, conversation)
    if not deleted:
        raise GatewayError(404, "unknown_rule", f"{user!r} has no remembered decision for {tool!r} on {server!r}"
                           + (f" in conversation {conversation!r}" if conversation else ""))
    return jsonify({"user": user, "server": server, "tool": tool, "deleted": deleted})
