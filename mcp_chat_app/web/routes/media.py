"""`GET /media/<id>`: images (charts) that tools returned."""

from __future__ import annotations

from flask import Blueprint, Response, send_file

from mcp_chat_app.gateway import gateway
from mcp_chat_app.web.errors import GatewayError

blueprint = Blueprint("media", __name__)


@blueprint.get("/media/<media_id>")
def get_media(media_id: str) -> Response:
    """The stored image file."""
    path = gateway().media.path(media_id)
    if path is None:
        raise GatewayError(404, "unknown_media", f"no media {media_id!r}")
    return send_file(path, max_age=86400)
