"""Route and call: the router model picks tools and arguments, the gateway validates and runs the calls.

A `required` profile (small models behind a constrained-decoding backend) makes one forced round: calls of one
tool, or the `answer_directly` escape. It first asks with the question alone, since a small model copies
whatever earlier calls it is shown; only when the question follows on from the last one, or the calls carry
text the question does not (a place made up for "那后天呢？"), is it asked again with the earlier calls. An
`auto` profile sees the conversation and loops, feeding results back, until the model answers or the rounds
run out.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp_chat_app import prompts
from mcp_chat_app.argument_validation import decode_arguments, tidy_arguments, validation_error
from mcp_chat_app.cancellation import Cancellation
from mcp_chat_app.chat import context, languages
from mcp_chat_app.chat.day_words import glossed
from mcp_chat_app.chat.verify import invents_measurements, unusable
from mcp_chat_app.elicitation import Asker
from mcp_chat_app.llm_client import ChatTurn, LlmClient, ModelToolCall
from mcp_chat_app.mcp_manager import McpManager, ToolInfo, ToolRequest
from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.tool_call_parser import parse_tool_calls
from mcp_chat_app.tool_results import ToolOutcome, failed_outcome, model_view

EventSink = Callable[[str, dict[str, Any]], None]


@dataclass
class _PlannedCall:
    """A model tool call after resolution and validation: either a request or an error to feed back."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    request: ToolRequest | None = None
    error: str | None = None
    outcome: ToolOutcome | None = None


@dataclass
class Turn:
    """One chat request in flight: its events, what the tools returned, and the clocks."""

    emit: EventSink
    streaming: bool
    outcomes: list[ToolOutcome] = field(default_factory=list)
    images: list[dict[str, str]] = field(default_factory=list)
    llm_ms: float = 0.0
    tools_ms: float = 0.0
    rounds: int = 0
    started: float = field(default_factory=time.perf_counter)
    doubtful: list[_PlannedCall] = field(default_factory=list)  # calls set aside: made-up arguments
    cancellation: Cancellation = field(default_factory=Cancellation)
    asker: Asker | None = None  # relays the servers' questions to the user (a streaming request only)
    asked: str = ""  # the question and the one before it, as written: what a call's flags may come from
    units: str | None = None  # the user's unit system ("imperial"), for the servers that honour `_meta.units`

    def on_token(self, token: str) -> None:
        self.emit("token", {"text": token})

    @property
    def token_sink(self) -> Callable[[str], None] | None:
        """Streaming is only worth its per-chunk cost when someone listens to the tokens."""
        return self.on_token if self.streaming else None

    def record(self, reply: ChatTurn) -> ChatTurn:
        self.llm_ms += reply.duration_ms
        return reply


class Router:
    """Gets the tool results a question needs; returns the router's own answer text when it wrote one."""

    def __init__(self, manager: McpManager, client: LlmClient, media: MediaStore, max_rounds: int,
                 identity: str) -> None:
        self.manager = manager
        self.client = client
        self.media = media
        self.max_rounds = client.endpoint.max_tool_rounds or max_rounds
        self.identity = identity

    @property
    def forced(self) -> bool:
        return self.client.endpoint.tool_choice == "required" and self.client.endpoint.tool_mode == "native"

    def messages(self, tools: list[ToolInfo], history: list[dict[str, str]], question: str,
                 earlier_calls: str = "") -> list[dict[str, Any]]:
        """The router's conversation: the byte-stable system prompt first, the earlier calls with the question."""
        system = prompts.router_system_prompt(self.identity, tools, self.client.endpoint.tool_mode,
                                              self.manager.instructions())
        asked = glossed(question, dt.date.today())
        if earlier_calls:
            asked += f"\n\n(What this question does not say, it takes from the previous request: {earlier_calls})"
        return [{"role": "system", "content": system}, *history, {"role": "user", "content": asked}]

    def tool_specs(self, tools: list[ToolInfo]) -> list[dict[str, Any]] | None:
        """The native `tools` parameter as the first round sends it (the escape added when forced)."""
        if self.client.endpoint.tool_mode != "native" or not tools:
            return None
        specs = prompts.openai_tools(tools)
        return [*specs, prompts.NO_TOOL_SPEC] if self.forced else specs

    def route(self, turn: Turn, tools: list[ToolInfo], question: str, history: list[dict[str, Any]],
              language: str, stream_answer: bool) -> str:
        """Get the results the question needs; the text the router answered with, if any ("" after calls)."""
        by_name = {tool.qualified_name: tool for tool in tools}
        turns, earlier = context.plain_turns(history), context.earlier_calls(history)
        if not self.forced:
            return self._rounds(turn, self.messages(tools, turns, question, earlier), tools, by_name, language,
                                stream_answer)
        turn.rounds = 1
        specs = self.tool_specs(tools) or []
        calls = _real_calls(turn.record(self._forced_call(turn, self.messages(tools, [], question), specs)))
        stated = self._states_its_arguments(calls, by_name, question)
        if calls and earlier and (context.is_follow_up(question) or not stated):
            calls = _real_calls(turn.record(self._forced_call(turn, self.messages(tools, turns, question, earlier),
                                                              specs)))
        elif calls and not stated:
            # Made-up arguments with nothing before them to take them from ("Paris" for "What is the capital of
            # France?", "北京" for a poem): a forced model calling a tool for a question that needs none.
            turn.doubtful = [self._plan(call, by_name, turn.asked) for call in calls]
            return ""
        if calls:
            planned = [self._plan(call, by_name, turn.asked) for call in calls]
            self._execute(turn, planned, {}, languages.locale(language))
        return ""

    def run_doubtful(self, turn: Turn, language: str) -> None:
        """Make the calls set aside as doubtful after all (the question did need data)."""
        planned, turn.doubtful = turn.doubtful, []
        self._execute(turn, planned, {}, languages.locale(language))

    def _rounds(self, turn: Turn, messages: list[dict[str, Any]], tools: list[ToolInfo],
                by_name: dict[str, ToolInfo], language: str, stream_answer: bool) -> str:
        """Auto tool choice: call, feed back, repeat until the model answers or the rounds run out."""
        native = self.client.endpoint.tool_mode == "native"
        specs = self.tool_specs(tools)
        repairs_left: dict[str, int] = {}
        while turn.rounds < self.max_rounds:
            turn.rounds += 1
            # Only a native-mode reply can be streamed as it comes: in prompt-JSON mode it may be a call.
            sink = turn.token_sink if native and stream_answer else None
            reply = turn.record(self.client.chat(messages, tools=specs, on_token=sink,
                                                 cancellation=turn.cancellation))
            calls = reply.tool_calls or self._calls_in_text(reply.content, by_name)
            if not calls and specs and not turn.outcomes and (
                    invents_measurements(reply.content) or unusable(reply.content, language)):
                # Figures before any tool ran are made up, and garbage is no answer: make the model pick a
                # tool (or the escape) instead.
                turn.emit("rewrite", {})
                calls = _real_calls(turn.record(self._forced_call(turn, messages, [*specs, prompts.NO_TOOL_SPEC])))
            if not calls:
                return reply.content
            planned = [self._plan(call, by_name, turn.asked) for call in calls]
            if all(self._already_made(turn, plan) for plan in planned):
                return ""  # small models often repeat a call instead of answering: answer from what we have
            self._execute(turn, planned, repairs_left, languages.locale(language))
            self._feed_back(messages, reply, planned, native)
        return ""

    @staticmethod
    def _states_its_arguments(calls: list[ModelToolCall], by_name: dict[str, ToolInfo], question: str) -> bool:
        planned = [(_decode_or_empty(call.arguments), _resolve(call.name, by_name)) for call in calls]
        return context.states_its_arguments([arguments for arguments, _ in planned],
                                            [tool.input_schema if tool else {} for _, tool in planned], question)

    def _forced_call(self, turn: Turn, messages: list[dict[str, Any]], specs: list[dict[str, Any]]) -> ChatTurn:
        """Calls of one tool only: the same request for each place asked about; under `required`, small models
        otherwise go on calling every tool."""
        return self.client.chat(messages, tools=specs, tool_choice="required", parallel_tool_calls=True,
                                calls_of_one_tool=True, cancellation=turn.cancellation)

    def _calls_in_text(self, content: str, by_name: dict[str, ToolInfo]) -> list[ModelToolCall]:
        """Tool calls written as JSON text, accepted only when every name is a known tool."""
        parsed = parse_tool_calls(content)
        if not parsed or any(_resolve(call.name, by_name) is None for call in parsed):
            return []
        return [ModelToolCall(f"call_{i}", call.name, prompts.dump_arguments(call.arguments)
                              if isinstance(call.arguments, dict) else str(call.arguments))
                for i, call in enumerate(parsed)]

    @staticmethod
    def _plan(call: ModelToolCall, by_name: dict[str, ToolInfo], question: str) -> _PlannedCall:
        tool = _resolve(call.name, by_name)
        if tool is None:
            known = ", ".join(by_name)
            return _PlannedCall(call.id, call.name, {}, error=f"unknown tool {call.name!r}; available: {known}")
        try:
            arguments = tidy_arguments(decode_arguments(call.arguments), tool.input_schema)
            arguments = context.without_unasked_flags(arguments, tool.input_schema, question)
        except ValueError as error:
            return _PlannedCall(call.id, tool.qualified_name, {}, error=str(error))
        problem = validation_error(arguments, tool.input_schema)
        if problem is None:
            return _PlannedCall(call.id, tool.qualified_name, arguments,
                                request=ToolRequest(tool.server, tool.name, arguments))
        return _PlannedCall(call.id, tool.qualified_name, arguments, error=f"invalid arguments: {problem}")

    @staticmethod
    def _already_made(turn: Turn, plan: _PlannedCall) -> bool:
        request = plan.request
        return request is not None and any(
            (outcome.server, outcome.tool, outcome.arguments) == (request.server, request.tool, request.arguments)
            for outcome in turn.outcomes
        )

    def _execute(self, turn: Turn, planned: list[_PlannedCall], repairs_left: dict[str, int], locale: str) -> None:
        requests = [plan.request for plan in planned if plan.request is not None]
        for request in requests:
            turn.emit("tool_call", {"server": request.server, "tool": request.tool, "arguments": request.arguments})
        started = time.perf_counter()
        # Progress (the multi-city search sends it) goes out as SSE `progress` events to a listening client.
        on_progress = (lambda update: turn.emit("progress", update.to_json())) if turn.streaming else None
        outcomes = iter(self.manager.call_tools(requests, locale=locale, units=turn.units, on_progress=on_progress,
                                                cancellation=turn.cancellation, asker=turn.asker)
                        if requests else [])
        turn.tools_ms += (time.perf_counter() - started) * 1000
        for plan in planned:
            if plan.request is not None:
                self._keep(turn, plan, next(outcomes))
            elif not self.forced and repairs_left.setdefault(plan.name, 1) > 0:
                # The model gets the validation error once, to repair the call in the next round.
                repairs_left[plan.name] -= 1
            else:
                server, _, tool = plan.name.partition("__")
                self._keep(turn, plan, failed_outcome(server, tool or server, plan.arguments, plan.error or "",
                                                      reason="invalid_call"))

    def _keep(self, turn: Turn, plan: _PlannedCall, outcome: ToolOutcome) -> None:
        images = [self._store_image(image.data, image.mime, image.alt) for image in outcome.images]
        turn.images.extend(images)
        turn.outcomes.append(outcome)
        turn.emit("tool_result", {**outcome.to_json(), "images": images})
        plan.outcome = outcome

    def _store_image(self, data: bytes, mime: str, alt: str) -> dict[str, str]:
        media_id = self.media.save(data, mime)
        return {"url": f"/media/{media_id}", "alt": alt, "mime": mime}

    @staticmethod
    def _feed_back(messages: list[dict[str, Any]], reply: ChatTurn, planned: list[_PlannedCall],
                   native: bool) -> None:
        views = [(plan.name, _view(plan)) for plan in planned]
        if native:
            messages.append({
                "role": "assistant",
                "content": reply.content or None,
                "tool_calls": [
                    {"id": plan.call_id, "type": "function",
                     "function": {"name": plan.name, "arguments": prompts.dump_arguments(plan.arguments)}}
                    for plan in planned
                ],
            })
            for plan, (_, view) in zip(planned, views):
                messages.append({"role": "tool", "tool_call_id": plan.call_id, "content": view})
        else:
            messages.append({"role": "assistant", "content": reply.content})
            messages.append({"role": "user", "content": prompts.tool_results_message(views)})


def _decode_or_empty(arguments: str) -> dict[str, Any]:
    """A call's arguments, or {} when they are not a JSON object (the plan then reports the error)."""
    try:
        return decode_arguments(arguments)
    except ValueError:
        return {}


def _real_calls(forced: ChatTurn) -> list[ModelToolCall]:
    """The distinct calls of a forced turn's first tool, unless it took the escape."""
    kept: list[ModelToolCall] = []
    for call in forced.tool_calls:
        if call.name == prompts.NO_TOOL or call.name != forced.tool_calls[0].name:
            break
        if all(call.arguments != earlier.arguments for earlier in kept):
            kept.append(call)
    return kept


def _resolve(name: str, by_name: dict[str, ToolInfo]) -> ToolInfo | None:
    """`server__tool`, or a bare tool name when exactly one server has it."""
    if name in by_name:
        return by_name[name]
    matches = [tool for tool in by_name.values() if tool.name == name]
    return matches[0] if len(matches) == 1 else None


def _view(plan: _PlannedCall) -> str:
    if plan.outcome is not None:
        return model_view(plan.outcome)
    return json.dumps({"error": f"{plan.error}. Call the tool again with corrected arguments."}, ensure_ascii=False)
