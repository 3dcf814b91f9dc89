"""POST /v1/chat/completions: both response modes (chat_inputs.py makes the prompt and the grammar)."""
from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from llm_backend.engine.sequence import CacheScope
from llm_backend.server import responses, sse
from llm_backend.server.chat_inputs import compile_grammar, render_prompt, reply_constraint
from llm_backend.server.errors import parse_request_model
from llm_backend.server.generation import chain, first_output, run_request
from llm_backend.server.lifetime import Deadline, within
from llm_backend.server.params import sampling_params
from llm_backend.server.protocol import ChatCompletionRequest
from llm_backend.server.state import ServerState
from llm_backend.structured.tool_parser import ToolCallParser


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
    deadline = Deadline.of(request)
    req = await parse_request_model(request, ChatCompletionRequest)
    state.check_model(req.model)
    # Rendering and tokenizing a 4 MiB body takes seconds: off the event loop, which serves every stream.
    prompt = await asyncio.to_thread(render_prompt, state, req)
    params = sampling_params(req, len(prompt.ids), state.max_model_len)
    # Compiled only once the prompt is known to fit, and on a worker thread: a big schema takes seconds.
    compiled = await within(deadline, asyncio.to_thread(compile_grammar, state, req, prompt))
    factory = reply_constraint(state, req, compiled)

    request_id = f"chatcmpl-{uuid.uuid4().hex}"
    outputs = run_request(state, request, "/v1/chat/completions", request_id, prompt.ids, params, factory,
                          CacheScope(req.cache_salt, prompt.shared_tokens), deadline)
    first = await first_output(outputs)
    choices = {i: _Choice(ToolCallParser() if prompt.choice.mode != "none" else None) for i in range(req.n)}
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
            if output.is_progress:
                yield sse.event({**base, "choices": [], "prefill": responses.prefill_progress(output), **extra})
                continue
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
