"""`GET /chat/<user>/search?q=`: the user's messages that hold every term of `q` (full-text, history/search.py)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from mcp_chat_app.gateway import gateway
from mcp_chat_app.web.requests import search_query
from mcp_chat_app.web.routes.body import authorized_user

blueprint = Blueprint("search", __name__)


@blueprint.get("/chat/<user>/search")
def search(user: str) -> Response:
    """Matches across all of the user's conversations, newest first, with a snippet each."""
    user = authorized_user(user)
    query = search_query(request.args.get("q"))
    return jsonify({"user": user, "query": query, "results": gateway().history.search(user, query)})
