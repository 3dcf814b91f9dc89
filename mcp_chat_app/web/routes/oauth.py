"""OAuth for remote MCP servers, per user: a user lists, starts and revokes their own authorizations; the browser
comes back to the callback, which completes the flow of the user who started it."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request

from mcp_chat_app.gateway import gateway
from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.oauth_page import callback_page, wants_page
from mcp_chat_app.web.routes.body import authorized_user

blueprint = Blueprint("oauth", __name__)


@blueprint.get("/chat/<user>/oauth")
def authorizations(user: str) -> Any:
    """The servers that ask each user to authorize, and whether this user has."""
    user = authorized_user(user)
    return jsonify({"user": user, "servers": gateway().manager.authorizations(user)})


@blueprint.post("/chat/<user>/oauth/<name>")
def authorize(user: str, name: str) -> Any:
    """Start this user's OAuth flow for server `name`: `authorization_url` is where they consent (null once
    connected)."""
    user = authorized_user(user)
    state = gateway().manager.authorize(name, user)
    if state is None:
        raise GatewayError(404, "unknown_server", f"no server {name!r} that asks each user to authorize")
    return jsonify({"user": user, **state})


@blueprint.delete("/chat/<user>/oauth/<name>")
def revoke(user: str, name: str) -> Any:
    """Close this user's session to server `name` and forget their tokens (other users keep theirs)."""
    user = authorized_user(user)
    return jsonify({"user": user, "server": name, "revoked": gateway().manager.revoke_authorization(name, user)})


@blueprint.get("/oauth/callback")
def callback() -> Any:
    """The authorization server's redirect (`code` and `state`, or `error`); open, as a browser follows it. The
    `state` must be one a waiting flow issued (it names the user who started it), and the SDK checks it again
    before the code is exchanged. A browser gets a page saying so (oauth_page.py), an API caller JSON."""
    refused = request.args.get("error")
    try:
        server, user = _completed(request.args.get("state"), refused)
    except GatewayError as error:
        if wants_page():
            return callback_page(error.status, None, None, error.message)
        raise
    if wants_page():
        reason = request.args.get("error_description") or refused
        return callback_page(200, server, user, f"the authorization server refused ({reason})" if refused else None)
    message = (f"The authorization server refused ({refused}): nothing was connected. You may close this tab."
               if refused else "Authorization received; the gateway finishes the connection. You may close this tab.")
    return jsonify({"server": server, "user": user, "received": True, "message": message,
                    **({"error": refused} if refused else {})})


def _completed(state: str | None, error: str | None) -> tuple[str, str]:
    """(server, user) of the waiting flow the callback went to."""
    if not state:
        raise GatewayError(400, "bad_request", "the callback needs the 'state' the authorization URL carried")
    completed = gateway().manager.complete_authorization(state, request.args.get("code"), request.args.get("iss"),
                                                         error)
    if completed is None:
        raise GatewayError(404, "unknown_state", "no authorization is waiting for this state (it may have expired)")
    return completed
