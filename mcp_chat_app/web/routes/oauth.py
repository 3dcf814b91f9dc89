"""OAuth for remote MCP servers: the admin fetches the authorization URL, the browser comes back to the callback."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request

from mcp_chat_app.gateway import gateway
from mcp_chat_app.web.errors import GatewayError

blueprint = Blueprint("oauth", __name__)


@blueprint.get("/servers/<name>/authorization")
def authorization(name: str) -> Any:
    """Where to authorize the gateway for server `name` (admin only: whoever signs in there, every user's
    calls to that server act as them)."""
    gateway().access.check_admin(request.headers.get("Authorization"))
    url = gateway().manager.authorization_url(name)
    if url is None:
        raise GatewayError(404, "no_authorization_pending", f"server {name!r} is not waiting for an authorization")
    return jsonify({"server": name, "authorization_url": url})


@blueprint.get("/oauth/callback")
def callback() -> Any:
    """The authorization server's redirect (`code` and `state`, or `error`); open, as a browser follows it. The
    `state` must be one a waiting flow issued, and the SDK checks it again before the code is exchanged."""
    state = request.args.get("state")
    if not state:
        raise GatewayError(400, "bad_request", "the callback needs the 'state' the authorization URL carried")
    server = gateway().manager.complete_authorization(state, request.args.get("code"), request.args.get("iss"),
                                                      request.args.get("error"))
    if server is None:
        raise GatewayError(404, "unknown_state", "no authorization is waiting for this state (it may have expired)")
    return jsonify({"server": server, "received": True,
                    "message": "Authorization received; the gateway finishes the connection. You may close this tab."})
