"""`GET /chat/<user>/conversations/<id>/export?format=md|json`: one conversation as a file to download."""

from __future__ import annotations

import json

from flask import Blueprint, Response, request
from werkzeug.utils import secure_filename

from mcp_chat_app.gateway import gateway
from mcp_chat_app.history.export import conversation_json, conversation_markdown, export_title
from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.requests import checked_conversation, export_format
from mcp_chat_app.web.routes.body import authorized_user

blueprint = Blueprint("export", __name__)
_TYPES = {"md": "text/markdown", "json": "application/json"}  # werkzeug adds the charset to text/


@blueprint.get("/chat/<user>/conversations/<conversation>/export")
def export_conversation(user: str, conversation: str) -> Response:
    """The conversation with its notices and media links, as a Markdown or JSON attachment."""
    user, conversation = authorized_user(user), checked_conversation(conversation)
    file_format = export_format(request.args.get("format"))
    history = gateway().history
    found = history.conversation(user, conversation)
    if found is None:
        raise GatewayError(404, "unknown_conversation", f"{user!r} has no conversation {conversation!r}")
    messages = history.messages(user, conversation=conversation)
    if file_format == "json":
        body = json.dumps(conversation_json(found, messages, request.host_url), ensure_ascii=False, indent=2)
    else:
        body = conversation_markdown(found, messages, request.host_url)
    name = f"{secure_filename(export_title(found)) or 'chat'}-{conversation}.{file_format}"
    return Response(body, mimetype=_TYPES[file_format],
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
