"""`POST /chat/<user>` (JSON or SSE) and the per-user history."""

from __future__ import annotations

import logging
import re
from typing import Any

from flask import Blueprint, Response, jsonify, request

from mcp_chat_app.errors import GatewayError, error_body
from mcp_chat_app.history import trim_to_budget
from mcp_chat_app.llm_client import LlmUnavailable
from mcp_chat_app.orchestrator import ChatResult
from mcp_chat_app.resources import Gateway, gateway
from mcp_chat_app.sse import Emit, event_stream

logger = logging.getLogger(__name__)
blueprint = Blueprint("chat", __name__)

_USER_ID = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
_MAX_MESSAGE_CHARS = 8000


def _checked_user(user: str) -> str:
    if not _USER_ID.match(user):
        raise GatewayError(400, "bad_user", "user must be 1-64 characters of letters, digits, '_', '.', '@', '-'")
    return user


def _flag(body: dict[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise GatewayError(400, "bad_request", f"'{name}' must be true or false")
    return value


def _parse_chat_body() -> tuple[str, bool, bool]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise GatewayError(400, "bad_request", "the body must be a JSON object with a 'message'")
    message = body.get("message")
    if not isinstance(message, str) or not message.strip():
        raise GatewayError(400, "bad_request", "'message' must be a non-empty string")
    if len(message) > _MAX_MESSAGE_CHARS:
        raise GatewayError(400, "bad_request", f"'message' is longer than {_MAX_MESSAGE_CHARS} characters")
    return message.strip(), _flag(body, "use_tools", True), _flag(body, "stream", False)


def _answer(resources: Gateway, user: str, message: str, use_tools: bool, emit: Emit | None) -> ChatResult:
    history = trim_to_budget(resources.history.messages(user), resources.config.history_token_budget)
    result = resources.orchestrator.run(message, history, use_tools=use_tools, emit=emit)
    # Saved only after a full answer, so a failed request leaves the history as it was.
    resources.history.append(user, [{"role": "user", "content": message},
                                    {"role": "assistant", "content": result.response}])
    return result


@blueprint.post("/chat/<user>")
def chat(user: str) -> Any:
    """Answer one message; with `"stream": true` the reply is an SSE stream."""
    user = _checked_user(user)
    message, use_tools, stream = _parse_chat_body()
    resources = gateway()
    if not stream:
        return jsonify(_answer(resources, user, message, use_tools, None).to_json())

    def work(emit: Emit) -> None:
        try:
            emit("done", _answer(resources, user, message, use_tools, emit).to_json())
        except LlmUnavailable as error:
            emit("error", {**error_body("llm_unavailable", str(error)), "status": 503})
        except Exception as error:  # boundary: the stream must end with an event, whatever happened
            logger.exception("chat stream failed")
            emit("error", {**error_body("internal_error", f"{type(error).__name__}: {error}"), "status": 500})

    return event_stream(work)


@blueprint.get("/chat/<user>/history")
def get_history(user: str) -> Response:
    """The stored conversation, oldest first."""
    return jsonify({"user": user, "messages": gateway().history.messages(_checked_user(user))})


@blueprint.delete("/chat/<user>/history")
def delete_history(user: str) -> Response:
    """Forget the conversation."""
    return jsonify({"user": user, "deleted": gateway().history.clear(_checked_user(user))})
