"""The raw request body, with the size limit enforced for every kind of upload; the user a route is for."""

from __future__ import annotations

from flask import current_app, request

from mcp_chat_app.gateway import gateway
from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.requests import checked_user


def request_body() -> bytes:
    """The body bytes. Flask answers 413 for a declared Content-Length over MAX_CONTENT_LENGTH,
    but silently cuts a chunked body at the limit; that case is refused here too."""
    data = request.get_data()
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if request.content_length is None and limit is not None and len(data) >= limit:
        raise GatewayError(413, "request_entity_too_large", f"the body is larger than {limit} bytes")
    return data


def json_body() -> bytes:
    """The body of a route that takes JSON: 415 for any other content type."""
    if not request.is_json:
        raise GatewayError(415, "unsupported_media_type", "send the body as 'Content-Type: application/json'")
    return request_body()


def authorized_user(user: str) -> str:
    """The validated path user, after checking the request's token against it."""
    user = checked_user(user)
    gateway().access.check_user(user, request.headers.get("Authorization"))
    return user
