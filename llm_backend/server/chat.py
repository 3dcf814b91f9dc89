"""POST /v1/chat/completions: prompt rendering, grammar choice, and both response modes."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from llm_backend.server import responses, sse
from llm_backend.server.chat_render import render_chat
from llm_backend.server.errors import bad_request, parse_request_model
from llm_backend.server.generation import chain, first_output, run_request
from llm_backend.server.params import sampling_params
from llm_backend.server.protocol import ChatCompletionRequest
from llm_backend.server.state import ServerState
from llm_backend.structured.tool_parser import ToolCallParser
from llm_backend.structured.tools import ToolSpecError, resolve_tool_choice, validate_tools


@dataclass
class _Choice:
    """One choice's accumulated state while its tokens arrive."""

    parser: ToolCallParser | None
    text: list[str] = field(default_factory=list)
    logprobs: list[Any] = field(default_factory=list)
    completion_tokens: int = 0
    finish_reason: str | None = None


async def create_chat_completion(request: Request) -> Response:
    state: ServerState = request.app.state.server
    req = await parse_request_model(request, ChatCompletionRequest)
    state.check_model(req.model)
    try:
        tools = validate_tools(req.tools or [])
        choice = resolve_tool_choice(req.tool_choice, tools)
    except ToolSpecError as exc:
        raise bad_request(str(exc), param=exc.param) from exc
    offered_tools = tools if choice.mode != "none" else None
    prompt = render_chat(state.tokenizer, req.messages, offered_tools)
    prompt_ids = state.tokenizer.encode(prompt, add_special_tokens=False)
    params = sampling_params(req, len(prompt_ids), state.max_model_len)
    # Compiled only once the prompt is known to fit: a huge tool list takes a minute to compile,
    # which an over-long request must not cost (the event loop waits on it) before its 400.
    try:
        if choice.mode != "none":
            compiled = state.grammars.for_tools(tools, choice, req.parallel_tool_calls)
        elif req.structured_outputs is not None:
            compiled = state.grammars.for_regex(req.structured_outputs.regex)
        else:
            compiled = state.grammars.for_response_format(req.response_format)
    except ToolSpecError as exc:
        raise bad_request(str(exc), param=exc.param) from exc
    factory = state.grammars.constraint_factory(compiled) if req.constrained_decoding else None

    request_id = f"chatcmpl-{uuid.uuid4().hex}"
    outputs = run_request(state, "/v1/chat/completions", request_id, prompt_ids, params, factory)
    first = await first_output(outputs)
    choices = {i: _Choice(ToolCallParser() if offered_tools else None) for i in range(req.n)}
    if req.stream:
        include_usage = bool(req.stream_options and req.stream_options.include_usage)
        return sse.sse_response(_stream(state, request_id, first, outputs, choices, include_usage))
    try:
        return JSONResponse(await _complete(state, request_id, first, outputs, choices))
    finally:
        await outputs.aclose()


async def _complete(state: ServerState, request_id: str, first: Any, outputs: AsyncIterator[Any],
                    choices: dict[int, _Choice]) -> dict:
    prompt_tokens = cached_tokens = 0
    async for output in chain(first, outputs):
        choice = choices[output.index]
        choice.text.append(output.new_text)
        choice.logprobs += output.logprobs or []
        choice.completion_tokens = output.completion_tokens
        prompt_tokens, cached_tokens = output.prompt_tokens, output.cached_tokens
        if output.finished:
            choice.finish_reason = output.finish_reason
    body = responses.envelope(request_id, "chat.completion", state.served_model_name)
    body["choices"] = [_final_choice(index, choice) for index, choice in sorted(choices.items())]
    body["usage"] = responses.usage(prompt_tokens, sum(c.completion_tokens for c in choices.values()),
                                    cached_tokens)
    return body


def _final_choice(index: int, choice: _Choice) -> dict:
    text = "".join(choice.text)
    message: dict = {"role": "assistant", "content": text}
    calls = []
    if choice.parser is not None:
        deltas = choice.parser.feed(text) + choice.parser.finish()
        calls = choice.parser.calls
        content = "".join(d.content for d in deltas if d.content is not None)
        message["content"] = content if content.strip() or not calls else None
        if calls:
            message["tool_calls"] = responses.tool_call_objects(calls)
    return {"index": index, "message": message,
            "logprobs": responses.chat_logprobs(choice.logprobs) if choice.logprobs else None,
            "finish_reason": responses.finish_reason(choice.finish_reason,
                                                     _all_calls_complete(choice))}


def _all_calls_complete(choice: _Choice) -> bool:
    """Whether the reply made calls and none was cut off (tool_parser: a cut call is content)."""
    return bool(choice.parser and choice.parser.calls and choice.parser.cut_call is None)


async def _stream(state: ServerState, request_id: str, first: Any, outputs: AsyncIterator[Any],
                  choices: dict[int, _Choice], include_usage: bool) -> AsyncIterator[str]:
    base = responses.envelope(request_id, "chat.completion.chunk", state.served_model_name)
    extra = {"usage": None} if include_usage else {}

    def chunk(index: int, delta: dict, finish: str | None = None, logprobs: Any = None) -> str:
        return sse.event({**base, "choices": [{"index": index, "delta": delta, "logprobs": logprobs,
                                                "finish_reason": finish}], **extra})

    prompt_tokens = cached_tokens = 0
    try:
        for index in choices:
            yield chunk(index, {"role": "assistant", "content": ""})
        async for output in chain(first, outputs):
            choice = choices[output.index]
            choice.completion_tokens = output.completion_tokens
            prompt_tokens, cached_tokens = output.prompt_tokens, output.cached_tokens
            logprobs = responses.chat_logprobs(output.logprobs) if output.logprobs else None
            if choice.parser is None:
                deltas = [{"content": output.new_text}] if output.new_text or logprobs else []
            else:
                parsed = choice.parser.feed(output.new_text)
                if output.finished:
                    parsed += choice.parser.finish()
                deltas = [responses.delta_object(d) for d in parsed]
            for position, delta in enumerate(deltas):
                yield chunk(output.index, delta, logprobs=logprobs if position == 0 else None)
            if output.finished:
                reason = responses.finish_reason(output.finish_reason, _all_calls_complete(choice))
                yield chunk(output.index, {}, reason)
        if include_usage:
            completion = sum(c.completion_tokens for c in choices.values())
            yield sse.event({**base, "choices": [],
                             "usage": responses.usage(prompt_tokens, completion, cached_tokens)})
        yield sse.DONE
    finally:
        await outputs.aclose()
