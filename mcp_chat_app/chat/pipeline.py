"""One chat turn, as named stages in one direction: route and call (routing.py) → facts (facts.py) → write
(writing.py) → verify (verify.py) → render: the checked answer, or one corrective retry, or an answer composed
from the facts (compose.py), then the notices."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any

from mcp_chat_app import prompts
from mcp_chat_app.cancellation import Cancellation
from mcp_chat_app.mcp_client.elicitation import Asker
from mcp_chat_app.chat import compose, context, languages, writing
from mcp_chat_app.chat.assistant import Assistant
from mcp_chat_app.chat.facts import Facts, Notice, gather_facts
from mcp_chat_app.chat.routing import EventSink, Router, Turn
from mcp_chat_app.chat.verify import (
    Problem,
    asks_beyond,
    check_reply,
    invents_measurements,
    says_it_lacks,
    unusable,
)
from mcp_chat_app.llm.client import LlmClient
from mcp_chat_app.mcp_client.manager import McpManager
from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.tool_results import ToolOutcome

log = logging.getLogger(__name__)


@dataclass
class ChatResult:
    """Everything `POST /chat/<user>` returns."""

    response: str
    model: str
    language: str
    tool_calls: list[ToolOutcome] = field(default_factory=list)
    images: list[dict[str, str]] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    answer_source: str = "model"  # "model" (the checked answer of a model) or "composed" (from the facts)

    @property
    def calls(self) -> list[dict[str, Any]]:
        """The successful calls, as the history keeps them for follow-up questions."""
        return [{"tool": o.qualified_name, "arguments": o.arguments} for o in self.tool_calls if not o.is_error]

    def to_json(self) -> dict[str, Any]:
        return {
            "response": self.response,
            "language": self.language,
            "notices": [notice.to_json() for notice in self.notices],
            "tool_calls": [outcome.to_json() for outcome in self.tool_calls],
            "images": self.images,
            "timings": self.timings,
            "model": self.model,
            "answer_source": self.answer_source,
        }


class ChatPipeline:
    """Answers one message with the MCP tools, the router and writer models, and the assistant's identity."""

    def __init__(self, manager: McpManager, router: LlmClient, writer: LlmClient, media: MediaStore,
                 assistant: Assistant, max_tool_rounds: int = 5) -> None:
        self.manager = manager
        self.router = Router(manager, router, media, max_tool_rounds, writing.system_prompt(assistant))
        self.writer = writer
        self.assistant = assistant

    def is_hybrid(self) -> bool:
        """Whether a different model writes the answer than the one that picks the tools."""
        return self.router.client.endpoint != self.writer.endpoint

    def run(self, question: str, history: list[dict[str, Any]], use_tools: bool = True,
            emit: EventSink | None = None, cancellation: Cancellation | None = None,
            asker: Asker | None = None, units: str | None = None) -> ChatResult:
        """Answer `question` after the earlier turns; `emit` receives streaming events. Raises LlmUnavailable, and
        Cancelled once `cancellation` is set (the LLM stream and the tool calls in flight are stopped). `asker`
        relays a tool's questions to the user (MCP elicitation); without one they are cancelled. `units`
        ("imperial") is the user's preference, passed to the tools."""
        turn = Turn(emit or (lambda event, data: None), streaming=emit is not None,
                    cancellation=cancellation or Cancellation(), asker=asker, units=units,
                    asked=f"{context.earlier_question(history)}\n{question}")
        language = languages.detect(question)
        turns = context.plain_turns(history)
        tools = self.manager.tools() if use_tools else []
        if not tools:
            answer, source = self._chat(turn, question, turns, language, tools_connected=not use_tools)
            return self._result(turn, language, answer, source, Facts())
        stream_draft = not self.is_hybrid()
        draft = self.router.route(turn, tools, question, history, language, stream_answer=stream_draft)
        if not turn.outcomes:
            if draft and stream_draft and not unusable(draft, language) and not invents_measurements(draft):
                return self._result(turn, language, draft, "model", Facts())
            answer, source = self._chat(turn, question, turns, language, tools_connected=True, restart=bool(draft))
            if not invents_measurements(answer):
                return self._result(turn, language, answer, source, Facts())
            # Figures with no tool behind them are made up. When the router wanted calls (set aside as doubtful),
            # the question needed data after all: make them and answer from their results.
            turn.emit("rewrite", {})
            if not turn.doubtful:
                return self._result(turn, language, compose.cannot_answer(language), "composed", Facts())
            self.router.run_doubtful(turn, language)
        turn.cancellation.check()
        facts = gather_facts(turn.outcomes, question, language)
        if not facts.findings:
            # Every call failed: say what went wrong; a model would answer anyway, from nothing.
            return self._result(turn, language, compose.failures_only(facts, language), "composed", facts)
        answer, source = self._write(turn, question, facts, language, context.earlier_question(history),
                                     draft if stream_draft else "")
        return self._result(turn, language, answer, source, facts)

    def warm_up(self) -> None:
        """Fill the backend's prefix cache with the fixed start of the router's and the writer's prompts (one
        token each), so the first user does not wait for their prefill (~20 s on a CPU for the 1.5B model),
        nor for the compilation of the writer's constraint (~2 s)."""
        tools = self.manager.tools()
        messages = self.router.messages(tools, [], "hi")
        self.router.client.chat(messages, tools=self.router.tool_specs(tools), max_tokens=1)
        self.writer.chat(writing.writer_messages(self.assistant, "hi", Facts(), "en"), max_tokens=1,
                         regex=prompts.CITES_A_FIGURE if self.writer.endpoint.structured_outputs else None)

    def _write(self, turn: Turn, question: str, facts: Facts, language: str, earlier: str,
               draft: str) -> tuple[str, str]:
        """The written answer if it passes the check, else one corrective retry, else the facts themselves."""
        limit = self.writer.endpoint.max_written_records
        if not draft and limit is not None and facts.records_listed > limit and language in languages.FULLY_SERVED:
            # A long list (of days, of places) is shown as the server words it: a small writer summarising it
            # gets days wrong, and copying it costs seconds for nothing.
            composed = compose.from_facts(facts, question, language, earlier)
            turn.emit("token", {"text": composed})
            return composed, "composed"
        lead = compose.lead(facts, question, language, earlier)
        messages = writing.writer_messages(self.assistant, question, facts, language, earlier, lead)
        if not draft:
            draft = self._written(turn, messages, facts, lead)
        rules: set[str] = set()
        for attempt in (1, 2):
            problems = check_reply(draft, question, language, facts, earlier,
                                   frozenset(self.assistant.example_names))
            accepted = _accepted(draft, problems, language)
            if accepted is not None:
                if asks_beyond(question, facts) and not says_it_lacks(accepted):
                    # "下午两点" answered with the day's figures: true, but not what was asked; say so first.
                    accepted = f"{compose.lacking_sentence(language)}{'' if language == 'zh' else ' '}{accepted}"
                return accepted, "model"
            rules |= {problem.rule for problem in problems}
            log.info("answer %d rejected (%s): %r", attempt, "; ".join(p.detail for p in problems), draft)
            turn.emit("rewrite", {"problems": [problem.rule for problem in problems]})
            if attempt == 1:
                draft = self._written(turn, writing.retry_messages(messages, draft, problems), facts, lead)
        # A figure, a time or a term the facts lack: the question asks for what the facts do not hold.
        composed = compose.from_facts(facts, question, language, earlier, bool(rules & {"numbers", "times", "terms"}))
        turn.emit("token", {"text": composed})
        return composed, "composed"

    def _written(self, turn: Turn, messages: list[dict[str, str]], facts: Facts, lead: str) -> str:
        """The writer's answer; a backend with constrained decoding is held to begin with the verdict and to
        cite a figure in its first sentence."""
        regex = None
        if self.writer.endpoint.structured_outputs and (lead or facts.numbers_of_data):
            # A bare "yes, it will rain" leaves out what the user needs (how much, how likely); small models write
            # it often, and a figure in the data is then what they go on with once they may not stop without one.
            regex = _literal(lead) + (prompts.CITES_A_FIGURE if facts.numbers_of_data else r"[\s\S]*")
        # Everything before the question (rules and worked examples) holds no user data: shared across users.
        reply = self.writer.chat(messages, on_token=turn.token_sink, regex=regex,
                                 shared=writing.fixed_part(self.assistant), cancellation=turn.cancellation)
        return turn.record(reply).content.strip()

    def _chat(self, turn: Turn, question: str, turns: list[dict[str, str]], language: str,
              tools_connected: bool, restart: bool = False) -> tuple[str, str]:
        """A question no tool answers (or none can): the assistant replies as itself, never with made-up data."""
        if restart:
            turn.emit("rewrite", {})
        messages = writing.chat_messages(self.assistant, question, turns, language, tools_connected)
        reply = turn.record(self.writer.chat(messages, on_token=turn.token_sink,
                                             cancellation=turn.cancellation)).content.strip()
        if not tools_connected and invents_measurements(reply):
            turn.emit("rewrite", {})
            return compose.no_tools(language), "composed"
        accepted = _accepted(reply, [Problem("language", "")] if unusable(reply, language) else [], language)
        if accepted is None:
            turn.emit("rewrite", {})
            return compose.cannot_answer(language), "composed"
        return accepted, "model"

    def _result(self, turn: Turn, language: str, answer: str, source: str, facts: Facts) -> ChatResult:
        total_ms = (time.perf_counter() - turn.started) * 1000
        timings = {
            "total_ms": round(total_ms, 2),
            "llm_ms": round(turn.llm_ms, 2),
            "tools_ms": round(turn.tools_ms, 2),
            "gateway_ms": round(total_ms - turn.llm_ms - turn.tools_ms, 2),
            "rounds": turn.rounds,
        }
        return ChatResult(response=compose.with_notices(answer.strip(), facts.notices),
                          model=self.writer.endpoint.model, language=language, tool_calls=turn.outcomes,
                          images=turn.images, notices=facts.notices, timings=timings, answer_source=source)


def _literal(text: str) -> str:
    """`text` as a regex matching itself (spaces unescaped: the backend's regex reader takes "\\ " for an error)."""
    return re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\1", text)


def _accepted(reply: str, problems: list[Problem], language: str) -> str | None:
    """The reply to show, if any: one without problems, or an English one (with a note) to a question in a
    language the assistant does not fully serve."""
    if not problems:
        return reply
    if language not in languages.FULLY_SERVED and {p.rule for p in problems} == {"language"} \
            and reply.strip() and languages.detect(reply) == "en":
        return f"{compose.english_follows(language)} {reply}"
    return None
