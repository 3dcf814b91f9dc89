"""The web chat page at `/`: plain HTML, CSS and JS from the package's `static/` folder, no build step.

The page talks only to the gateway's public API (`POST /chat/<user>` with SSE, the history routes,
`/media/<id>` and `/health`), so it needs nothing the API does not already offer. Its script and
stylesheet are served by Flask's own `/static/` route of the app, whose root is this package.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app

blueprint = Blueprint("web", __name__)


@blueprint.get("/")
def index() -> Response:
    """The chat page."""
    return current_app.send_static_file("index.html")
