"""The web chat page at `/`: plain HTML, CSS and JS from the package's `static/` folder, no build step.

The page talks only to the gateway's public API (`POST /chat/<user>` with SSE, the history routes,
`/media/<id>` and `/health`), so it needs nothing the API does not already offer. Its script and
stylesheet are served by Flask's own `/static/` route, which the app points at `STATIC_FOLDER`.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, current_app

STATIC_FOLDER = Path(__file__).with_name("static")

blueprint = Blueprint("web", __name__)


@blueprint.get("/")
def index() -> Response:
    """The chat page."""
    return current_app.send_static_file("index.html")
