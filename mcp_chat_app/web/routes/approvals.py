"""A user's remembered approval decisions ("allow for this conversation", "always allow", "always deny"): list,
set and revoke. A streaming client makes them on the approval card (`POST /chat/<user>/approvals/<id>` with
`remember`); a plain JSON client, which is never asked, sets them with `PUT .../policy/<server>/<tool>`."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from mcp_chat_app.gateway import gateway
from mcp_chat_app.mcp_client.approval_policy import scopes
from mcp_chat_app.mcp_client.manager import UnknownTool
from mcp_chat_app.mcp_client.resources import UnknownServer
from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.requests import checked_conversation, checked_tool_name, policy_rule
from mcp_chat_app.web.routes.body import authorized_user, json_body

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


@blueprint.put("/chat/<user>/approvals/policy/<server>/<tool>")
def keep_rule(user: str, server: str, tool: str) -> Response:
    """Keep a decision for one tool, for a conversation or always (the one of that scope is replaced): what the
    card's `remember` keeps, for a client that cannot be asked."""
    user = authorized_user(user)
    server, tool = checked_tool_name("server", server), checked_tool_name("tool", tool)
    rule = policy_rule(json_body())
    resources = gateway()
    try:
        hints = resources.manager.tool_hints(server, tool)  # None: its server is down, its tools unknown now
    except UnknownServer as error:
        raise GatewayError(404, "unknown_server", str(error)) from error
    except UnknownTool as error:
        raise GatewayError(404, "unknown_tool", str(error)) from error
    if hints is not None and rule.scope not in scopes(hints, rule.decision):
        raise GatewayError(400, "bad_scope", f"{tool!r} on {server!r} is destructive: it is allowed only 'always' "
                                             "(a conversation's allow never covers it)")
    if rule.conversation is not None and resources.history.conversation(user, rule.conversation) is None:
        raise GatewayError(404, "unknown_conversation", f"{user!r} has no conversation {rule.conversation!r}")
    kept = resources.approvals.remember(user, server, tool, rule.decision, rule.conversation)
    return jsonify({"user": user, **kept.to_json()})


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
