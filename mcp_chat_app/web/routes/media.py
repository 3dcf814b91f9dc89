"""`GET /media/<id>`: the images (charts), audio and files that tools returned; `GET /media/<id>/<name>`: the
same file as a download named <name>."""

from __future__ import annotations

from flask import Blueprint, Response, send_file
from werkzeug.utils import secure_filename

from mcp_chat_app.gateway import gateway
from mcp_chat_app.media_store import media_type, shown_in_place
from mcp_chat_app.web.errors import GatewayError

blueprint = Blueprint("media", __name__)


def _sent(media_id: str, download_name: str | None = None) -> Response:
    path = gateway().media.path(media_id)
    if path is None:
        raise GatewayError(404, "unknown_media", f"no media {media_id!r}")
    mime = media_type(media_id)
    download = download_name is not None or not shown_in_place(mime)
    response = send_file(path, mimetype=mime, max_age=86400, as_attachment=download,
                         download_name=download_name or media_id)
    # A tool's file is never a page of this origin: no sniffing it into HTML, no scripts if opened (an SVG).
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = "sandbox"
    return response


@blueprint.get("/media/<media_id>")
def get_media(media_id: str) -> Response:
    """The stored file: images and audio in place, anything else as a download."""
    return _sent(media_id)


@blueprint.get("/media/<media_id>/<name>", merge_slashes=False)  # "//etc/passwd" is no name: 404, not a redirect
def download_media(media_id: str, name: str) -> Response:
    """The stored file as a download named `name` (made safe: no path, no odd characters)."""
    return _sent(media_id, secure_filename(name) or media_id)
