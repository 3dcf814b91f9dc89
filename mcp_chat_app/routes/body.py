"""The raw request body, with the size limit enforced for every kind of upload."""

from __future__ import annotations

from flask import current_app, request

from mcp_chat_app.errors import GatewayError


def request_body() -> bytes:
    """The body bytes. Flask answers 413 for a declared Content-Length over MAX_CONTENT_LENGTH,
    but silently cuts a chunked body at the limit; that case is refused here too."""
    data = request.get_data()
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if request.content_length is None and limit is not None and len(data) >= limit:
        raise GatewayError(413, "request_entity_too_large", f"the body is larger than {limit} bytes")
    return data
