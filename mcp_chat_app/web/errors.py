"""Every error leaves the gateway as JSON: `{"error": {"code", "message"}}` with a precise status."""

from __future__ import annotations

import logging

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from mcp_chat_app.llm.client import LlmBadResponse, LlmPromptTooLong, LlmTimeout, LlmUnavailable

logger = logging.getLogger(__name__)


class GatewayError(Exception):
    """A request the gateway refuses, with its HTTP status and a stable machine-readable code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    """The JSON error shape shared by responses and SSE `error` events."""
    return {"error": {"code": code, "message": message}}


def llm_error_status(error: LlmUnavailable) -> tuple[int, str]:
    """The HTTP status and code for a failed model call: 504 slow, 502 garbled, 503 down."""
    if isinstance(error, LlmTimeout):
        return 504, "llm_timeout"
    if isinstance(error, LlmBadResponse):
        return 502, "llm_bad_response"
    if isinstance(error, LlmPromptTooLong):
        return 413, "prompt_too_long"
    return 503, "llm_unavailable"


def register_error_handlers(app: Flask) -> None:
    """JSON instead of Flask's HTML error pages."""

    @app.errorhandler(GatewayError)
    def gateway_error(error: GatewayError):
        return jsonify(error_body(error.code, error.message)), error.status

    @app.errorhandler(LlmUnavailable)
    def llm_unavailable(error: LlmUnavailable):
        status, code = llm_error_status(error)
        return jsonify(error_body(code, str(error))), status

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        code = (error.name or "error").lower().replace(" ", "_")
        return jsonify(error_body(code, error.description or error.name)), error.code

    @app.errorhandler(Exception)
    def unexpected(error: Exception):
        logger.exception("unhandled error")
        return jsonify(error_body("internal_error", f"{type(error).__name__}: {error}")), 500
