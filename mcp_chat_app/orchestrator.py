"""The tool loop: the model picks tools, we validate and call them (in parallel), feed the results
back, and repeat until it answers; then the answer is checked and, if need be, rewritten."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp_chat_app import prompts
from mcp_chat_app.answer_rendering import answer_is_usable, fallback_answer, quotes_measurements, user_language
from mcp_chat_app.argument_validation import decode_arguments, tidy_arguments, validation_error
from mcp_chat_app.llm_client import ChatTurn, LlmClient, ModelToolCall
from mcp_chat_app.mcp_manager import McpManager, ToolInfo, ToolRequest
from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.tool_call_parser import parse_tool_calls
from mcp_chat_app.tool_results import ToolOutcome, failed_outcome, model_view

EventSink = Callable[[str, dict[str, Any]], None]

PLAIN_CHAT_PROMPT = "You are a helpful assistant. Answer briefly, in the user's language."


@dataclass
class ChatResult:
    """Everything `POST /chat/<user>` returns."""

    response: str
    model: str
    tool_calls: list[ToolOutcome] = field(default_factory=list)
    images: list[dict[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    answer_source: str = "model"

    def to_json(self) -> dict[str, Any]:
        return {
            "response": self.response,
            "tool_calls": [outcome.to_json() for outcome in self.tool_calls],
            "images": self.images,
            "timings": self.timings,
            "model": self.model,
            "answer_source": self.answer_source,
        }


@dataclass
class _PlannedCall:
    """A model tool call after resolution and validation: either a request or an error to feed back."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    request: ToolRequest | None = None
    error: str | None = None
    outcome: ToolOutcome | None = None


class _Run:
    """State of one chat request: messages, outcomes, clocks."""

    def __init__(self, emit: EventSink | None) -> None:
        self.emit = emit or (lambda event, data: None)
        # Streaming is only worth its per-chunk cost when someone listens to the tokens.
        self.token_sink = self.on_token if emit is not None else None
        self.messages: list[dict[str, Any]] = []
        self.outcomes: list[ToolOutcome] = []
        self.images: list[dict[str, str]] = []
        self.repairs_left: dict[str, int] = {}
        self.llm_ms = 0.0
        self.tools_ms = 0.0
        self.rounds = 0
        self.started = time.perf_counter()

    def on_token(self, token: str) -> None:
        self.emit("token", {"text": token})

    def record(self, turn: ChatTurn) -> ChatTurn:
        self.llm_ms += turn.duration_ms
        return turn


class Orchestrator:
    """Runs one chat turn against the MCP manager and the router/writer models."""

    def __init__(self, manager: McpManager, router: LlmClient, writer: LlmClient, media: MediaStore,
                 max_tool_rounds: int = 5) -> None:
        self.manager = manager
        self.router = router
        self.writer = writer
        self.media = media
        self.max_tool_rounds = max_tool_rounds

    def run(self, question: str, history: list[dict[str, str]], use_tools: bool = True,
            emit: EventSink | None = None) -> ChatResult:
        """Answer `question` given earlier turns; `emit` receives streaming events. Raises LlmUnavailable."""
        run = _Run(emit)
        if not use_tools:
            answer = self._plain_chat(run, question, history)
            return self._result(run, answer, self.writer, "model")
        tools = self.manager.tools()
        answer = self._tool_loop(run, question, history, tools)
        return self._finish(run, question, history, answer)

    def warm_up(self) -> None:
        """Fill the backend's prefix cache with the fixed start of the router's and the writer's prompts (one
        token each), so the first user does not wait for their prefill (~20 s on a CPU for the 1.5B model),
        nor for the compilation of the writer's constraint (~2 s)."""
        tools = self.manager.tools()
        specs = prompts.openai_tools(tools) if tools and self.router.endpoint.tool_mode == "native" else None
        if specs and self.router.endpoint.tool_choice == "required":
            specs = self._forced_round_tools(specs)  # the tool list the first round really sends
        system = prompts.router_system_prompt(tools, self.router.endpoint.tool_mode, self.manager.instructions())
        self.router.chat([{"role": "system", "content": system}, {"role": "user", "content": "hi"}],
                         tools=specs, max_tokens=1)
        self.writer.chat(prompts.writer_messages("hi", [], "English"), max_tokens=1,
                         regex=prompts.CITES_A_FIGURE if self.writer.endpoint.structured_outputs else None)

    def _plain_chat(self, run: _Run, question: str, history: list[dict[str, str]]) -> str:
        messages = [{"role": "system", "content": PLAIN_CHAT_PROMPT}, *history, {"role": "user", "content": question}]
        return run.record(self.writer.chat(messages, on_token=run.token_sink)).content

    def _tool_loop(self, run: _Run, question: str, history: list[dict[str, str]], tools: list[ToolInfo]) -> str:
        native = self.router.endpoint.tool_mode == "native"
        run.messages = [
            {"role": "system", "content": prompts.router_system_prompt(
                tools, self.router.endpoint.tool_mode, self.manager.instructions())},
            *history,
            {"role": "user", "content": question},
        ]
        tool_specs = prompts.openai_tools(tools) if native and tools else None
        by_name = {tool.qualified_name: tool for tool in tools}
        max_rounds = self.router.endpoint.max_tool_rounds or self.max_tool_rounds
        while run.rounds < max_rounds:
            run.rounds += 1
            # Only a native-mode reply can be streamed as it comes: in prompt-JSON mode it may be a call.
            stream = run.token_sink if native and not self.is_hybrid() else None
            if tool_specs and run.rounds == 1 and self.router.endpoint.tool_choice == "required":
                turn = run.record(self._forced_call(run, tool_specs))
                calls = self._real_calls(turn)
            else:
                turn = run.record(self.router.chat(run.messages, tools=tool_specs, on_token=stream))
                calls = turn.tool_calls or self._calls_in_text(turn.content, by_name)
            if not calls and tool_specs and not run.outcomes and self.router.endpoint.tool_choice == "auto" and (
                    not answer_is_usable(turn.content, question) or quotes_measurements(turn.content)):
                run.emit("rewrite", {})
                turn = run.record(self._forced_call(run, tool_specs))
                calls = self._real_calls(turn)
            if not calls:
                return turn.content
            planned = [self._plan(run, call, by_name) for call in calls]
            if all(self._already_made(run, plan) for plan in planned):
                # Small models often repeat the same call instead of answering: answer from what we have.
                return ""
            self._execute(run, planned)
            self._feed_back(run, turn, planned, native)
        return ""  # out of rounds: the writer answers from what was gathered

    def _forced_call(self, run: _Run, tool_specs: list[dict[str, Any]]) -> ChatTurn:
        """Small models sometimes print garbage, or invent weather data, instead of calling a tool; a backend
        with constrained decoding can be made to pick a tool (or `answer_directly`) instead. Calls of one tool
        only: the same request for each place asked about; under `required`, small models otherwise go on
        calling every tool."""
        return self.router.chat(run.messages, tools=self._forced_round_tools(tool_specs), tool_choice="required",
                                parallel_tool_calls=True, calls_of_one_tool=True)

    @staticmethod
    def _forced_round_tools(tool_specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [*tool_specs, prompts.NO_TOOL_SPEC]

    @staticmethod
    def _real_calls(forced: ChatTurn) -> list[ModelToolCall]:
        """The distinct calls of a forced turn's first tool, unless it took the escape."""
        kept: list[ModelToolCall] = []
        for call in forced.tool_calls:
            if call.name == prompts.NO_TOOL or call.name != forced.tool_calls[0].name:
                break
            if all(call.arguments != earlier.arguments for earlier in kept):
                kept.append(call)
        return kept

    def is_hybrid(self) -> bool:
        """Whether a different model writes the answer than the one that picks the tools."""
        return self.router.endpoint != self.writer.endpoint

    def _calls_in_text(self, content: str, by_name: dict[str, ToolInfo]) -> list[ModelToolCall]:
        """Tool calls written as JSON text, accepted only when every name is a known tool."""
        parsed = parse_tool_calls(content)
        if not parsed or any(self._resolve(call.name, by_name) is None for call in parsed):
            return []
        return [ModelToolCall(f"call_{i}", call.name, prompts.dump_arguments(call.arguments)
                              if isinstance(call.arguments, dict) else str(call.arguments))
                for i, call in enumerate(parsed)]

    @staticmethod
    def _resolve(name: str, by_name: dict[str, ToolInfo]) -> ToolInfo | None:
        """`server__tool`, or a bare tool name when exactly one server has it."""
        if name in by_name:
            return by_name[name]
        matches = [tool for tool in by_name.values() if tool.name == name]
        return matches[0] if len(matches) == 1 else None

    def _plan(self, run: _Run, call: ModelToolCall, by_name: dict[str, ToolInfo]) -> _PlannedCall:
        tool = self._resolve(call.name, by_name)
        if tool is None:
            known = ", ".join(by_name)
            return _PlannedCall(call.id, call.name, {}, error=f"unknown tool {call.name!r}; available: {known}")
        try:
            arguments = tidy_arguments(decode_arguments(call.arguments), tool.input_schema)
        except ValueError as error:
            return _PlannedCall(call.id, tool.qualified_name, {}, error=str(error))
        problem = validation_error(arguments, tool.input_schema)
        if problem is None:
            return _PlannedCall(call.id, tool.qualified_name, arguments,
                                request=ToolRequest(tool.server, tool.name, arguments))
        return _PlannedCall(call.id, tool.qualified_name, arguments, error=f"invalid arguments: {problem}")

    @staticmethod
    def _already_made(run: _Run, plan: _PlannedCall) -> bool:
        request = plan.request
        return request is not None and any(
            (outcome.server, outcome.tool, outcome.arguments) == (request.server, request.tool, request.arguments)
            for outcome in run.outcomes
        )

    def _execute(self, run: _Run, planned: list[_PlannedCall]) -> None:
        requests = [plan.request for plan in planned if plan.request is not None]
        for request in requests:
            run.emit("tool_call", {"server": request.server, "tool": request.tool, "arguments": request.arguments})
        started = time.perf_counter()
        outcomes = iter(self.manager.call_tools(requests) if requests else [])
        run.tools_ms += (time.perf_counter() - started) * 1000
        for plan in planned:
            if plan.request is not None:
                self._keep(run, plan, next(outcomes))
            elif run.repairs_left.setdefault(plan.name, 1) > 0:
                # The model gets the validation error once, to repair the call in the next round.
                run.repairs_left[plan.name] -= 1
            else:
                server, _, tool = plan.name.partition("__")
                self._keep(run, plan, failed_outcome(server, tool or server, plan.arguments, plan.error or ""))

    def _keep(self, run: _Run, plan: _PlannedCall, outcome: ToolOutcome) -> None:
        images = [self._store_image(image.data, image.mime, image.alt) for image in outcome.images]
        run.images.extend(images)
        run.outcomes.append(outcome)
        run.emit("tool_result", {**outcome.to_json(), "images": images})
        plan.outcome = outcome

    def _store_image(self, data: bytes, mime: str, alt: str) -> dict[str, str]:
        media_id = self.media.save(data, mime)
        return {"url": f"/media/{media_id}", "alt": alt, "mime": mime}

    def _feed_back(self, run: _Run, turn: ChatTurn, planned: list[_PlannedCall], native: bool) -> None:
        views = [(plan.name, self._view(plan)) for plan in planned]
        if native:
            run.messages.append({
                "role": "assistant",
                "content": turn.content or None,
                "tool_calls": [
                    {"id": plan.call_id, "type": "function",
                     "function": {"name": plan.name, "arguments": prompts.dump_arguments(plan.arguments)}}
                    for plan in planned
                ],
            })
            for plan, (_, view) in zip(planned, views):
                run.messages.append({"role": "tool", "tool_call_id": plan.call_id, "content": view})
        else:
            run.messages.append({"role": "assistant", "content": turn.content})
            run.messages.append({"role": "user", "content": prompts.tool_results_message(views)})

    @staticmethod
    def _view(plan: _PlannedCall) -> str:
        if plan.outcome is not None:
            return model_view(plan.outcome)
        return json.dumps({"error": f"{plan.error}. Call the tool again with corrected arguments."},
                          ensure_ascii=False)

    def _finish(self, run: _Run, question: str, history: list[dict[str, str]], answer: str) -> ChatResult:
        if run.outcomes and all(outcome.is_error for outcome in run.outcomes):
            # Every call failed: small models answer anyway, so the reply states the failures itself.
            return self._result(run, fallback_answer(question, run.outcomes), self.writer, "fallback")
        if self.is_hybrid() or not answer_is_usable(answer, question):
            # One more pass by the writer: from the tool data if there is any, else as plain chat.
            run.emit("rewrite", {})
            if run.outcomes:
                answer = self._write_answer(run, question)
            else:
                answer = self._plain_chat(run, question, history)
        if answer_is_usable(answer, question):
            return self._result(run, answer, self.writer, "model")
        return self._result(run, fallback_answer(question, run.outcomes), self.writer, "fallback")

    def _write_answer(self, run: _Run, question: str) -> str:
        """A focused second pass: the question, the compact results, the language; no tool list."""
        results = [(outcome.qualified_name, model_view(outcome)) for outcome in run.outcomes]
        messages = prompts.writer_messages(question, results, user_language(question))
        # A bare "yes, it will rain" leaves out what the user needs (how much, how likely); small models write it
        # often, and a figure in the data is then what they go on with once they may not stop without one.
        cite = self.writer.endpoint.structured_outputs and any(_has_digit(view) for _, view in results)
        return run.record(self.writer.chat(messages, on_token=run.token_sink,
                                           regex=prompts.CITES_A_FIGURE if cite else None)).content

    def _result(self, run: _Run, answer: str, client: LlmClient, source: str) -> ChatResult:
        total_ms = (time.perf_counter() - run.started) * 1000
        timings = {
            "total_ms": round(total_ms, 2),
            "llm_ms": round(run.llm_ms, 2),
            "tools_ms": round(run.tools_ms, 2),
            "gateway_ms": round(total_ms - run.llm_ms - run.tools_ms, 2),
            "rounds": run.rounds,
        }
        return ChatResult(response=answer.strip(), model=client.endpoint.model, tool_calls=run.outcomes,
                          images=run.images, timings=timings, answer_source=source)


def _has_digit(text: str) -> bool:
    return any(character.isdigit() for character in text)
