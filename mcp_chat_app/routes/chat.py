"""`POST /chat/<user>` (JSON or SSE) and the per-user history."""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, jsonify, request

from mcp_chat_app.cancellation import Cancellation, Cancelled, watch_client
from mcp_chat_app.elicitation import Asker, InvalidAnswer, UnknownQuestion
from mcp_chat_app.errors import GatewayError, error_body, llm_error_status
from mcp_chat_app.history import most_turns_within, trim_to_budget
from mcp_chat_app.llm_client import LlmUnavailable
from mcp_chat_app.chat.pipeline import ChatResult
from mcp_chat_app.request_parsing import ChatRequest, chat_request, checked_user, elicitation_answer
from mcp_chat_app.resources import Gateway, gateway
from mcp_chat_app.routes.body import request_body
from mcp_chat_app.sse import Emit, event_stream

logger = logging.getLogger(__name__)
blueprint = Blueprint("chat", __name__)


def _authorized_user(user: str) -> str:
    """The validated path user, after checking the request's token against it."""
    user = checked_user(user)
    gateway().access.check_user(user, request.headers.get("Authorization"))
    return user


def _answer(resources: Gateway, user: str, body: ChatRequest, emit: Emit | None,
            cancellation: Cancellation) -> ChatResult:
    budget = resources.config.history_token_budget
    history = trim_to_budget(resources.history.messages(user, last=most_turns_within(budget)), budget)
    # Only a streaming client can be asked a tool's question (and answer it with the elicitation route).
    asker: Asker | None = resources.elicitations.asker(user, emit) if emit is not None else None
    result = resources.pipeline.run(body.message, history, use_tools=body.use_tools, emit=emit,
                                    cancellation=cancellation, asker=asker, units=body.units)
    # Saved only after a full answer that can still be delivered: a failed request, or one whose client went
    # away, leaves the history as it was (a follow-up must not build on a reply the user never saw). The answer
    # keeps its calls: a follow-up question inherits their places and days.
    cancellation.check()
    resources.history.append(user, [{"role": "user", "content": body.message},
                                    {"role": "assistant", "content": result.response, "calls": result.calls}])
    return result


@blueprint.post("/chat/<user>")
def chat(user: str) -> Any:
    """Answer one message; with `"stream": true` the reply is an SSE stream."""
    user = _authorized_user(user)
    if not request.is_json:
        raise GatewayError(415, "unsupported_media_type", "send the body as 'Content-Type: application/json'")
    body = chat_request(request_body())
    resources = gateway()
    # A client that hangs up cancels the work: the LLM generation is aborted and the tool calls are cancelled.
    cancellation = Cancellation()
    stop_watching = watch_client(request.environ, cancellation)
    if not body.stream:
        try:
            return jsonify(_answer(resources, user, body, None, cancellation).to_json())
        except Cancelled:
            logger.info("chat for %s cancelled: the client went away", user)
            return jsonify(error_body("client_closed_request", "the client went away")), 499
        finally:
            stop_watching()

    def work(emit: Emit) -> None:
        try:
            emit("done", _answer(resources, user, body, emit, cancellation).to_json())
        except Cancelled:
            logger.info("chat stream for %s cancelled: the client went away", user)
        except LlmUnavailable as error:
            status, code = llm_error_status(error)
            emit("error", {**error_body(code, str(error)), "status": status})
        except Exception as error:  # boundary: the stream must end with an event, whatever happened
            logger.exception("chat stream failed")
            emit("error", {**error_body("internal_error", f"{type(error).__name__}: {error}"), "status": 500})
        finally:
            stop_watching()

    return event_stream(work, on_close=cancellation.cancel)


@blueprint.post("/chat/<user>/elicitations/<question_id>")
def answer_elicitation(user: str, question_id: str) -> Response:
    """Answer the question a tool asked during this user's streaming chat (SSE `elicitation` event)."""
    user = _authorized_user(user)
    if not request.is_json:
        raise GatewayError(415, "unsupported_media_type", "send the body as 'Content-Type: application/json'")
    answer = elicitation_answer(request_body())
    try:
        gateway().elicitations.answer(user, question_id, answer)
    except UnknownQuestion as error:
        raise GatewayError(404, "unknown_question", f"no open question {question_id!r} for {user!r}: it was "
                           "answered already, timed out, or never asked") from error
    except InvalidAnswer as error:
        raise GatewayError(400, "bad_answer", f"the answer does not fit the question's form: {error}") from error
    return jsonify({"id": question_id, "action": answer.action, "delivered": True})


@blueprint.get("/chat/<user>/history")
def get_history(user: str) -> Response:
    """The stored conversation, oldest first."""
    return jsonify({"user": user, "messages": gateway().history.messages(_authorized_user(user))})


@blueprint.delete("/chat/<user>/history")
def delete_history(user: str) -> Response:
    """Forget the conversation."""
    return jsonify({"user": user, "deleted": gateway().history.clear(_authorized_user(user))})
