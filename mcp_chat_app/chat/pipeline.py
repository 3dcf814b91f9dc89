"""One chat turn, as its stages in order: route → call → facts → write → verify → compose. Each stage takes what
the one before returned; only the auto router's rounds (route ↔ call), one more route → call for what the
question asks and no result holds, and the writer's one corrective retry (write ↔ verify) go round, and all are
spelled out here."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field, replace
from typing import Any

from mcp_chat_app.cancellation import Cancellation
from mcp_chat_app.chat.assistant import Assistant
from mcp_chat_app.chat.attachments import Attachment, Unread
from mcp_chat_app.chat.call import Called, call
from mcp_chat_app.chat.compose import Reply, compose
from mcp_chat_app.chat.facts import Facts, gather_facts
from mcp_chat_app.chat.notices import Notice
from mcp_chat_app.chat.route import Routed, Router, route, route_after_errors, route_for_lacking
from mcp_chat_app.chat.tool_media import MediaItem
from mcp_chat_app.chat.turn import EventSink, Turn
from mcp_chat_app.chat.verify import passes_so_far, verify
from mcp_chat_app.chat.write import Draft, rewrite, write
from mcp_chat_app.chat.write_prompt import CITES_A_FIGURE, writer_messages
from mcp_chat_app.mcp_client.elicitation import Asker
from mcp_chat_app.llm.client import LlmClient
from mcp_chat_app.mcp_client.results import ToolOutcome
from mcp_chat_app.mcp_client.manager import McpManager, ToolInfo
from mcp_chat_app.media_store import MediaStore


@dataclass
class ChatResult:
    """Everything `POST /chat/<user>` returns."""

    response: str
    model: str
    language: str
    tool_calls: list[ToolOutcome] = field(default_factory=list)
    images: list[dict[str, str]] = field(default_factory=list)
    media: list[MediaItem] = field(default_factory=list)  # audio, files and resource links
    notices: list[Notice] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    answer_source: str = "model"  # "model" (the checked answer of a model) or "composed" (from the facts)

    @property
    def calls(self) -> list[dict[str, Any]]:
        """The calls, as the history keeps them for follow-up questions; a failed one is marked (`failed`): a
        follow-up of "Kuopio 30 days from now?" (beyond the data's reach) asks of Kuopio, which only it named."""
        return [{"tool": o.qualified_name, "arguments": o.arguments, **({"failed": True} if o.is_error else {})}
                for o in self.tool_calls]

    def to_json(self) -> dict[str, Any]:
        return {
            "response": self.response,
            "language": self.language,
            "notices": [notice.to_json() for notice in self.notices],
            "tool_calls": [outcome.to_json() for outcome in self.tool_calls],
            "images": self.images,
            "media": self.media,
            "timings": self.timings,
            "model": self.model,
            "answer_source": self.answer_source,
        }


class ChatPipeline:
    """Answers one message with the MCP tools, the router and writer models, and the assistant's identity."""

    def __init__(self, manager: McpManager, router: LlmClient, writer: LlmClient, media: MediaStore,
                 assistant: Assistant, max_tool_rounds: int = 5) -> None:
        self.manager = manager
        self.media = media
        # An auto router's answer beside results streams before the facts stage: it is checked with their facts.
        self.router = Router(manager, router, writer, assistant, max_tool_rounds,
                             lambda turn, called: passes_so_far(turn, gather_facts(turn, called)))
        self.writer = writer
        self.assistant = assistant

    def run(self, question: str, history: list[dict[str, Any]], use_tools: bool = True,
            emit: EventSink | None = None, cancellation: Cancellation | None = None,
            asker: Asker | None = None, units: str | None = None,
            attachments: tuple[Attachment, ...] = (), unread: tuple[Unread, ...] = ()) -> ChatResult:
        """Answer `question` after the earlier turns; `emit` receives streaming events. Raises LlmUnavailable, and
        Cancelled once `cancellation` is set (the LLM stream and the tool calls in flight are stopped). `asker`
        relays a tool's questions to the user (MCP elicitation); without one they are cancelled. `units`
        ("imperial") is the user's preference, passed to the tools; `attachments`, the resources the user attached,
        go to the writer; `unread`, earlier ones that could not be read again, become notices."""
        turn = Turn.start(question, history, self.assistant, use_tools, emit, cancellation, asker, units, attachments,
                          unread)
        tools = self.manager.tools() if use_tools else []
        routed = route(turn, self.router, tools)
        called = call(turn, self.manager, self.media, routed)
        while routed.continues:  # an auto router reads the results, and may call again
            routed = route(turn, self.router, tools, routed, called)
            called = call(turn, self.manager, self.media, routed, called)
        if self.router.forced and called.outcomes and all(o.reason == "tool_error" for o in called.outcomes):
            routed, called = self._called_after_errors(turn, tools, routed, called)
        facts = gather_facts(turn, called)
        # Asked for what no result holds: another tool's results may, asked once (not when every call failed: the
        # errors say why, "the past reaches back 92 days", and another tool has no more of it).
        if facts.lacking and tools and not all(outcome.is_error for outcome in called.outcomes):
            routed, called, facts = self._called_for_lacking(turn, tools, routed, called, facts)
        draft = write(turn, self.writer, routed, facts)
        check = verify(turn, facts, draft)
        if check.may_retry:  # one corrective retry, told what is wrong
            draft = rewrite(turn, self.writer, facts, draft, check.reasons, check.rules)
            check = verify(turn, facts, draft)
        reply = compose(turn, facts, draft, check)
        return self._result(turn, routed, called, facts, draft, reply)

    def _called_for_lacking(self, turn: Turn, tools: list[ToolInfo], routed: Routed, called: Called,
                            facts: Facts) -> tuple[Routed, Called, Facts]:
        """The calls of a tool whose results hold the quantities the first calls lacked, in their place when
        they lack fewer; the first calls as they were otherwise."""
        again = route_for_lacking(turn, self.router, tools, called, facts.lacking)
        llm_ms = routed.llm_ms + again.llm_ms
        if not again.calls:
            return replace(routed, llm_ms=llm_ms), called, facts
        recalled = call(turn, self.manager, self.media, again)
        refacts = gather_facts(turn, recalled)
        recalled = replace(recalled, tools_ms=called.tools_ms + recalled.tools_ms)
        if len(refacts.lacking) >= len(facts.lacking) or not refacts.findings:
            return replace(routed, llm_ms=llm_ms), replace(called, tools_ms=recalled.tools_ms), facts
        turn.shown.discard()  # an auto router's draft beside the first results may have streamed
        return replace(again, rounds=routed.rounds + 1, llm_ms=llm_ms), recalled, refacts

    def _called_after_errors(self, turn: Turn, tools: list[ToolInfo], routed: Routed,
                             called: Called) -> tuple[Routed, Called]:
        """Calls the router makes told the errors of its first ones, in their place when one of them succeeds;
        the assistant's own answer and no calls, for a question none of the tools answers; the first calls, and
        their errors, otherwise."""
        again = route_after_errors(turn, self.router, tools, called)
        llm_ms = routed.llm_ms + again.llm_ms
        if again.own_answer:  # no question for the tools: their failed calls are no part of the answer
            return replace(again, llm_ms=llm_ms), Called(tools_ms=called.tools_ms)
        if not again.calls:
            return replace(routed, llm_ms=llm_ms), called
        recalled = call(turn, self.manager, self.media, again)
        if all(outcome.is_error for outcome in recalled.outcomes):
            return replace(routed, llm_ms=llm_ms), replace(called, tools_ms=called.tools_ms + recalled.tools_ms)
        return (replace(again, rounds=routed.rounds + 1, llm_ms=llm_ms),
                replace(recalled, tools_ms=called.tools_ms + recalled.tools_ms))

    def warm_up(self) -> None:
        """Fill the backend's prefix cache with the fixed start of the router's and the writer's prompts (one
        token each), so the first user does not wait for their prefill (~20 s on a CPU for the 1.5B model),
        nor for the compilation of the writer's constraint (~2 s)."""
        tools = self.manager.tools()
        messages = self.router.messages(tools, [], "hi", dt.date.today(), self.assistant.vocabulary)
        self.router.client.chat(messages, tools=self.router.tool_specs(tools), max_tokens=1)
        self.writer.chat(writer_messages(self.assistant, "hi", Facts(), "en"), max_tokens=1,
                         regex=CITES_A_FIGURE if self.writer.endpoint.structured_outputs else None)

    def _result(self, turn: Turn, routed: Routed, called: Called, facts: Facts, draft: Draft,
                reply: Reply) -> ChatResult:
        total_ms = (time.perf_counter() - turn.started) * 1000
        llm_ms = routed.llm_ms + draft.llm_ms
        timings = {
            "total_ms": round(total_ms, 2),
            "llm_ms": round(llm_ms, 2),
            "route_ms": round(routed.llm_ms, 2),  # the two models' shares: where a slow turn's time went
            "write_ms": round(draft.llm_ms, 2),
            "tools_ms": round(called.tools_ms, 2),
            "gateway_ms": round(total_ms - llm_ms - called.tools_ms, 2),
            "rounds": routed.rounds,
        }
        return ChatResult(response=reply.text, model=self.writer.endpoint.model, language=turn.language,
                          tool_calls=list(called.outcomes), images=list(called.images),
                          media=list(called.media), notices=facts.notices,
                          timings=timings, answer_source=reply.source)
