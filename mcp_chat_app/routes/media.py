"""`GET /media/<id>`: images (charts) that tools returned."""

from __future__ import annotations

from flask import Blueprint, Response, send_file

from mcp_chat_app.errors import GatewayError
from mcp_chat_app.resources import gateway

blueprint = Blueprint("media", __name__)


@blueprint.get("/media/<media_id>")
def get_media(media_id: str) -> Response:
    """The stored image file."""
    path = gateway().media.path(media_id)
    if path is None:
        raise GatewayError(404, "unknown_media", f"no media {media_id!r}")
    return send_file(path, max_age=86400)
