"""`POST /chat/<user>` (JSON or SSE), the answers to the questions a streaming chat asks, and the default
conversation's history (the other conversations: routes/conversations.py)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from flask import Blueprint, Response, jsonify, request

from mcp_chat_app.cancellation import Cancellation, Cancelled, watch_client
from mcp_chat_app.gateway import Gateway, gateway
from mcp_chat_app.history import ATTACHMENTS_KEY, SHOWN_KEYS
from mcp_chat_app.llm.client import LlmUnavailable, set_progress_listener
from mcp_chat_app.mcp_client.approval_policy import ApprovalPolicy, UserDecision
from mcp_chat_app.mcp_client.elicitation import Answer, InvalidAnswer, Kind, UnknownQuestion
from mcp_chat_app.mcp_client.prompts import RenderedPrompt
from mcp_chat_app.web.errors import GatewayError, error_body, llm_error_status
from mcp_chat_app.web.requests import ChatRequest, approval_decision, chat_request, elicitation_answer
from mcp_chat_app.web.routes.body import authorized_user, json_body
from mcp_chat_app.web.routes.profiles import turn_profile
from mcp_chat_app.web.routes.prompts import rendered_prompt
from mcp_chat_app.web.routes.chat_context import TurnContext, turn_context
from mcp_chat_app.web.sse import Emit, event_stream

logger = logging.getLogger(__name__)
blueprint = Blueprint("chat", __name__)


def _answer(resources: Gateway, user: str, body: ChatRequest, profile: str, emit: Emit | None,
            cancellation: Cancellation, context: TurnContext, prompt: RenderedPrompt | None = None) -> dict[str, Any]:
    # Only a streaming client can be asked a tool's question or for an approval (and answer with their routes);
    # the user's remembered decisions hold either way, and a JSON request does not make a call they would ask about.
    policy = ApprovalPolicy(resources.approvals, user, body.conversation)
    asker = resources.elicitations.asker(user, emit, body.confirm_tools, policy)
    pipeline = resources.pipelines.pipeline(profile)
    result = pipeline.run(body.message, context.history, use_tools=body.use_tools, emit=emit,
                          cancellation=cancellation, asker=asker, units=body.units, attachments=context.attachments,
                          unread=context.unread)
    # Saved only after a full answer that can still be delivered: a failed request, or one whose client went
    # away, leaves the history as it was (a follow-up must not build on a reply the user never saw). The answer
    # keeps its calls: a follow-up question inherits their places and days; the question keeps its attachments.
    cancellation.check()
    reply = result.to_json()
    question = {"role": "user", "content": body.message, **({ATTACHMENTS_KEY: context.kept} if context.kept else {})}
    resources.history.append(user, [question,
                                    {"role": "assistant", "content": result.response, "calls": result.calls,
                                     **{key: reply[key] for key in SHOWN_KEYS}}],
                             conversation=body.conversation, replace_last=body.regenerate,
                             profile=body.profile)  # a profile the request picked stays the conversation's
    return {**reply, "conversation": body.conversation, "profile": profile,
            **({"prompt": prompt.to_json()} if prompt else {})}


@blueprint.post("/chat/<user>")
def chat(user: str) -> Any:
    """Answer one message; with `"stream": true` the reply is an SSE stream."""
    user = authorized_user(user)
    body = chat_request(json_body())
    resources = gateway()
    conversation = resources.history.conversation(user, body.conversation)
    if conversation is None:
        raise GatewayError(404, "unknown_conversation", f"{user!r} has no conversation {body.conversation!r}")
    profile = turn_profile(resources.pipelines, body.profile, conversation)
    # A prompt is rendered before any answer starts, so its errors are plain HTTP errors even for a stream.
    prompt = rendered_prompt(body.prompt) if body.prompt else None
    if prompt is not None:
        body = replace(body, message=prompt.text)
    context = turn_context(resources, user, body)
    # A client that hangs up cancels the work: the LLM generation is aborted and the tool calls are cancelled.
    cancellation = Cancellation()
    stop_watching = watch_client(request.environ, cancellation)
    if not body.stream:
        try:
            return jsonify(_answer(resources, user, body, profile, None, cancellation, context, prompt))
        except Cancelled:
            logger.info("chat for %s cancelled: the client went away", user)
            return jsonify(error_body("client_closed_request", "the client went away")), 499
        finally:
            stop_watching()

    def work(emit: Emit) -> None:
        # A long prefill (a cold prompt on a slow CPU) shows as it goes: `prefill` events until the first token.
        set_progress_listener(lambda progress: emit("prefill", {"done": progress.done, "total": progress.total}))
        try:
            emit("done", _answer(resources, user, body, profile, emit, cancellation, context, prompt))
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


def _deliver(user: str, question_id: str, answer: Answer | UserDecision, kind: Kind) -> None:
    try:
        gateway().elicitations.answer(user, question_id, answer, kind)
    except UnknownQuestion as error:
        raise GatewayError(404, f"unknown_{'question' if kind == 'elicitation' else 'approval'}",
                           f"no open {'question' if kind == 'elicitation' else 'approval request'} {question_id!r} "
                           f"for {user!r}: it was answered already, timed out, or never asked") from error
    except InvalidAnswer as error:
        raise GatewayError(400, "bad_answer", f"the answer does not fit the question's form: {error}") from error


@blueprint.post("/chat/<user>/elicitations/<question_id>")
def answer_elicitation(user: str, question_id: str) -> Response:
    """Answer the question a tool asked during this user's streaming chat (SSE `elicitation` event)."""
    user = authorized_user(user)
    answer = elicitation_answer(json_body())
    _deliver(user, question_id, answer, "elicitation")
    return jsonify({"id": question_id, "action": answer.action, "delivered": True})


@blueprint.post("/chat/<user>/approvals/<approval_id>")
def decide_approval(user: str, approval_id: str) -> Response:
    """Approve or deny the tool call the gateway asked about during this user's streaming chat (SSE `approval`),
    for this call only or, with `remember`, for the conversation or always."""
    user = authorized_user(user)
    decision = approval_decision(json_body())
    _deliver(user, approval_id, decision, "approval")
    return jsonify({"id": approval_id, **decision.to_json(), "delivered": True})


@blueprint.get("/chat/<user>/history")
def get_history(user: str) -> Response:
    """The default conversation, oldest first."""
    return jsonify({"user": user, "messages": gateway().history.messages(authorized_user(user))})


@blueprint.delete("/chat/<user>/history")
def delete_history(user: str) -> Response:
    """Forget the default conversation's turns."""
    return jsonify({"user": user, "deleted": gateway().history.clear(authorized_user(user))})
