"""`GET /openapi.json`."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from mcp_chat_app.gateway import gateway
from mcp_chat_app.web.openapi_spec import openapi_document

blueprint = Blueprint("openapi", __name__)


@blueprint.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI description of every route."""
    return jsonify(openapi_document(gateway().pipelines.names()))
