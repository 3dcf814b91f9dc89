"""Questions a tool asks its user mid-call (MCP elicitation), relayed to the chat client and answered there.

A server asks with `elicitation/create` (handshake-era sessions) or an `InputRequiredResult` (2026-07-28 ones); the
SDK hands both to the session's elicitation callback, which finds the asking call's `Asker`. A streaming chat
request has one: its client gets an SSE `elicitation` event with an id, answers with
`POST /chat/<user>/elicitations/<id>`, and the call resumes (its timeout stops while the person reads). A request
that cannot ask (plain JSON, the CLI) answers `cancel` at once, and the server falls back on its own (ours then
lists the places a name may mean).

The same registry holds the gateway's own question before a call to a server registered with `"confirm": true`
(or a request sent with `"confirm_tools": true`): an SSE `approval` event, answered with
`POST /chat/<user>/approvals/<id>`; a call nobody approves in time is denied. Whether a call is asked about at
all is the user's approval policy's to say (approval_policy.py); a decision may be remembered there. A request
that cannot ask does not make a call the policy would ask about (its verdict stays "ask").
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

import jsonschema

from mcp_chat_app.mcp_client.approval_policy import ApprovalPolicy, ToolHints, UserDecision, Verdict

Action = Literal["accept", "decline", "cancel"]
ACTIONS: tuple[Action, ...] = ("accept", "decline", "cancel")
Kind = Literal["elicitation", "approval"]
Emit = Callable[[str, dict[str, Any]], None]


class UnknownQuestion(LookupError):
    """No open question of that kind has that id for that user (never asked, answered already, or timed out)."""


class InvalidAnswer(ValueError):
    """An accepted answer whose content does not match the question's schema."""


@dataclass(frozen=True)
class Question:
    """What the chat client is shown: the server's message and the form it asks to be filled."""

    id: str
    server: str
    tool: str
    message: str
    schema: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "server": self.server, "tool": self.tool, "message": self.message,
                "schema": self.schema}


@dataclass(frozen=True)
class Answer:
    action: Action
    content: dict[str, Any] | None = None


CANCELLED = Answer("cancel")


@dataclass
class _Open:
    user: str
    kind: Kind
    check: Callable[[Any], None]  # raises InvalidAnswer for an answer that does not fit the question
    loop: asyncio.AbstractEventLoop
    answered: asyncio.Future[Any]


class Elicitations:
    """The questions waiting for their users; one registry per gateway, shared by the chat handlers."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s  # how long a question waits for its person before it is cancelled
        self._lock = threading.Lock()
        self._open: dict[str, _Open] = {}

    def asker(self, user: str, emit: Emit | None, confirm_every_call: bool = False,
              policy: ApprovalPolicy | None = None) -> Asker:
        """What one chat request asks with: questions go to `emit` as `elicitation` and `approval` events (None:
        a request that cannot ask); `confirm_every_call` asks before every tool call; `policy` decides which calls
        are asked about (without one: only those of `confirm` servers)."""
        return Asker(self, user, emit, confirm_every_call, policy)

    def answer(self, user: str, question_id: str, answer: Answer | UserDecision, kind: Kind = "elicitation") -> None:
        """Deliver the user's answer (an Answer to an elicitation, a UserDecision on an approval); UnknownQuestion
        or InvalidAnswer (nothing is delivered then)."""
        with self._lock:
            waiting = self._open.get(question_id)
            # Another user's question, or one of the other kind, is as unknown as none.
            if waiting is None or waiting.user != user or waiting.kind != kind:
                raise UnknownQuestion(question_id)
            waiting.check(answer)
            del self._open[question_id]
        waiting.loop.call_soon_threadsafe(_settle, waiting.answered, answer)

    def pending(self) -> int:
        with self._lock:
            return len(self._open)

    def _register(self, question_id: str, waiting: _Open) -> None:
        with self._lock:
            self._open[question_id] = waiting

    def _forget(self, question_id: str) -> None:
        with self._lock:
            self._open.pop(question_id, None)


class Asker:
    """Asks one chat request's user; `ask` and `approve` run on the MCP manager's event loop."""

    def __init__(self, registry: Elicitations, user: str, emit: Emit | None, confirm_every_call: bool = False,
                 policy: ApprovalPolicy | None = None) -> None:
        self._registry = registry
        self._user = user
        self._emit = emit
        self.confirm_every_call = confirm_every_call
        self._policy = policy

    async def ask(self, server: str, tool: str, message: str, schema: dict[str, Any]) -> Answer:
        """The user's answer, or `cancel` when none comes within the registry's timeout (or nobody can answer)."""
        if self._emit is None:
            return CANCELLED
        question = Question(secrets.token_hex(8), server, tool, message, schema)

        def check(answer: Answer) -> None:
            if answer.action == "accept":
                _check_content(answer.content, schema)

        answer = await self._wait("elicitation", question.id, question.to_json(), check, CANCELLED)
        self._emit("elicitation_closed", {"id": question.id, "action": answer.action})
        return answer

    async def approve(self, server: str, tool: str, arguments: dict[str, Any], hints: ToolHints) -> Verdict:
        """Whether this call may be made: "allow" or "deny" by the user's policy or by their answer (none within the
        registry's timeout is a denial); "ask" when it must be asked about and nobody can be (a plain JSON
        request): it is not made either."""
        asked_by_default = hints.server_confirms or self.confirm_every_call
        # The rules are read (and written, below) on a worker thread: SQLite must not stall the MCP loop.
        verdict = (await asyncio.to_thread(self._policy.verdict, server, tool, hints, self.confirm_every_call)
                   if self._policy is not None else "ask" if asked_by_default else "allow")
        if verdict != "ask" or self._emit is None:
            return verdict
        remember = self._policy.offered(hints) if self._policy is not None else ("once",)
        question_id = secrets.token_hex(8)
        request = {"id": question_id, "server": server, "tool": tool, "arguments": arguments,
                   "timeout_s": self._registry.timeout_s, "remember": list(remember),
                   "read_only": hints.read_only, "destructive": hints.destructive}

        def check(answer: UserDecision) -> None:
            if answer.remember not in remember:
                raise InvalidAnswer(f"'remember' must be one of {', '.join(remember)} for this call")

        answer = await self._wait("approval", question_id, request, check, None)
        if answer is not None and self._policy is not None:
            await asyncio.to_thread(self._policy.remember, server, tool, answer)
        self._emit("approval_closed", {"id": question_id, **(answer.to_json() if answer else
                                                              {"decision": "timeout"})})
        return "allow" if answer is not None and answer.decision == "approve" else "deny"

    def how_to_allow(self, server: str, tool: str, hints: ToolHints) -> dict[str, Any] | None:
        """For a call that could not be asked about: the request that allows it next time; None where no kept
        decision would (the request asks about every call) or the user has no policy."""
        if self._policy is None or self.confirm_every_call:
            return None
        return self._policy.how_to_allow(server, tool, hints)

    async def _wait(self, kind: Kind, question_id: str, shown: dict[str, Any], check: Callable[[Any], None],
                    unanswered: Any) -> Any:
        """Register the question, show it to the client as a `kind` event, and wait for its answer."""
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Any] = loop.create_future()
        self._registry._register(question_id, _Open(self._user, kind, check, loop, answered))
        self._emit(kind, shown)
        try:
            return await asyncio.wait_for(answered, self._registry.timeout_s)
        except TimeoutError:
            return unanswered
        finally:
            self._registry._forget(question_id)


# The asker of the tool calls running in this task (set by McpManager for one `call_tools`).
current_asker: ContextVar[Asker | None] = ContextVar("elicitation_asker", default=None)


def _settle(answered: asyncio.Future[Any], answer: Any) -> None:
    if not answered.done():
        answered.set_result(answer)


def _check_content(content: dict[str, Any] | None, schema: dict[str, Any]) -> None:
    if not isinstance(content, dict):
        raise InvalidAnswer("an accepted answer needs 'content', an object with the form's fields")
    validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema)
    problem = jsonschema.exceptions.best_match(validator.iter_errors(content))
    if problem is not None:
        where = "/".join(str(part) for part in problem.path) or "content"
        raise InvalidAnswer(f"{where}: {problem.message}")
