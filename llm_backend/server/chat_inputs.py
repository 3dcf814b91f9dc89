"""A chat request -> what the engine runs: the prompt's tokens (with its tools) and the grammar of the reply.

The chat route (chat.py) runs these steps off the event loop; bench/spec_decode_bench.py replays captured
requests through the same steps, so a replayed prompt is token for token the one the server would run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from llm_backend.server.chat_render import render_chat
from llm_backend.server.errors import bad_request
from llm_backend.server.protocol import ChatCompletionRequest
from llm_backend.server.state import ServerState
from llm_backend.structured.tools import ToolChoice, ToolSpecError, resolve_tool_choice, validate_tools

if TYPE_CHECKING:
    from llm_backend.engine.llm_engine import ConstraintFactory


@dataclass
class ChatPrompt:
    """A chat request rendered and tokenized, with its validated tools."""

    ids: list[int]
    tools: list[dict]
    choice: ToolChoice
    shared_tokens: int  # leading tokens of `cache_shared_messages`, cached across salts


def render_prompt(state: ServerState, req: ChatCompletionRequest) -> ChatPrompt:
    """Validate the tools, render and tokenize the prompt, and check it against the token bound."""
    try:
        tools = validate_tools(req.tools or [])
        choice = resolve_tool_choice(req.tool_choice, tools)
    except ToolSpecError as exc:
        raise bad_request(str(exc), param=exc.param) from exc
    offered_tools = tools if choice.mode != "none" else None
    ids = _tokens(state, render_chat(state.tokenizer, req.messages, offered_tools))
    state.check_prompt_tokens(len(ids))
    shared_tokens = 0
    if req.cache_salt is not None and req.cache_shared_messages:
        if req.cache_shared_messages >= len(req.messages):
            raise bad_request("cache_shared_messages must be less than the number of messages: the last "
                              "message is always the caller's.", param="cache_shared_messages")
        shared = _tokens(state, render_chat(state.tokenizer, req.messages[:req.cache_shared_messages],
                                            offered_tools, add_generation_prompt=False))
        shared_tokens = _common_prefix_length(shared, ids)
    return ChatPrompt(ids, tools, choice, shared_tokens)


def compile_grammar(state: ServerState, req: ChatCompletionRequest, prompt: ChatPrompt) -> Any:
    """The compiled grammar the reply must follow (tools, regex or response_format); None for free text."""
    try:
        if prompt.choice.mode != "none":
            return state.grammars.for_tools(prompt.tools, prompt.choice, req.parallel_tool_calls)
        if req.structured_outputs is not None:
            return state.grammars.for_regex(req.structured_outputs.regex)
        return state.grammars.for_response_format(req.response_format)
    except ToolSpecError as exc:
        raise bad_request(str(exc), param=exc.param) from exc


def reply_constraint(state: ServerState, req: ChatCompletionRequest, compiled: Any) -> "ConstraintFactory | None":
    """The constraint each choice decodes under; None without a grammar or with `constrained_decoding` off."""
    return state.grammars.constraint_factory(compiled) if req.constrained_decoding else None


def _tokens(state: ServerState, text: str) -> list[int]:
    return state.tokenizer.encode(text, add_special_tokens=False)


def _common_prefix_length(a: list[int], b: list[int]) -> int:
    """Leading tokens `a` and `b` share: a prefix rendered alone may end in a token that merges on."""
    length = 0
    for x, y in zip(a, b):
        if x != y:
            break
        length += 1
    return length
