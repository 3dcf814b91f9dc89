"""POST /v1/completions: raw-prompt text completion, non-streaming and streaming."""
from __future__ import annotations

import asyncio
import uuid
from typing import Any, AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from llm_backend.engine.sequence import CacheScope
from llm_backend.server import responses, sse
from llm_backend.server.errors import bad_request, parse_request_model
from llm_backend.server.generation import chain, first_output, run_request
from llm_backend.server.lifetime import Deadline
from llm_backend.server.params import sampling_params
from llm_backend.server.protocol import CompletionRequest
from llm_backend.server.state import ServerState


async def create_completion(request: Request) -> Response:
    state: ServerState = request.app.state.server
    deadline = Deadline.of(request)
    req = await parse_request_model(request, CompletionRequest)
    state.check_model(req.model)
    if req.echo:
        raise bad_request("echo is not supported.", param="echo")
    if isinstance(req.prompt, list) and req.prompt and isinstance(req.prompt[0], str):
        raise bad_request("prompt: send one prompt per request (a string or a list of token ids).",
                          param="prompt")
    if isinstance(req.prompt, list):
        prompt_ids = req.prompt
    else:  # seconds for a 4 MiB prompt: off the event loop, which serves every stream
        prompt_ids = await asyncio.to_thread(state.tokenizer.encode, req.prompt)
    if not prompt_ids:
        raise bad_request("prompt: must not be empty.", param="prompt")
    state.check_prompt_tokens(len(prompt_ids))
    params = sampling_params(req, len(prompt_ids), state.max_model_len)

    request_id = f"cmpl-{uuid.uuid4().hex}"
    outputs = run_request(state, request, "/v1/completions", request_id, prompt_ids, params, None,
                          CacheScope(req.cache_salt), deadline)
    first = await first_output(outputs)
    if req.stream:
        include_usage = bool(req.stream_options and req.stream_options.include_usage)
        return sse.sse_response(_stream(state, request_id, first, outputs, include_usage))
    try:
        return JSONResponse(await _complete(state, request_id, first, outputs, req.n))
    finally:
        await outputs.aclose()


async def _complete(state: ServerState, request_id: str, first: Any,
                    outputs: AsyncIterator[Any], n: int) -> dict:
    texts: dict[int, list[str]] = {i: [] for i in range(n)}
    logprobs: dict[int, list[Any]] = {i: [] for i in range(n)}
    finish: dict[int, str | None] = {}
    completion_tokens: dict[int, int] = {}
    prompt_tokens = cached_tokens = 0
    async for output in chain(first, outputs):
        texts[output.index].append(output.new_text)
        logprobs[output.index] += output.logprobs or []
        completion_tokens[output.index] = output.completion_tokens
        prompt_tokens, cached_tokens = output.prompt_tokens, output.cached_tokens
        if output.finished:
            finish[output.index] = output.finish_reason
    body = responses.envelope(request_id, "text_completion", state.served_model_name)
    body["choices"] = [
        {"index": i, "text": "".join(texts[i]),
         "logprobs": responses.completion_logprobs(logprobs[i], 0) if logprobs[i] else None,
         "finish_reason": finish.get(i)}
        for i in range(n)]
    body["usage"] = responses.usage(prompt_tokens, sum(completion_tokens.values()), cached_tokens)
    return body


async def _stream(state: ServerState, request_id: str, first: Any, outputs: AsyncIterator[Any],
                  include_usage: bool) -> AsyncIterator[str]:
    base = responses.envelope(request_id, "text_completion", state.served_model_name)
    extra = {"usage": None} if include_usage else {}
    offsets: dict[int, int] = {}
    completion_tokens: dict[int, int] = {}
    prompt_tokens = cached_tokens = 0
    try:
        async for output in chain(first, outputs):
            if output.is_progress:
                yield sse.event({**base, **extra, "choices": [], "prefill": responses.prefill_progress(output)})
                continue
            completion_tokens[output.index] = output.completion_tokens
            prompt_tokens, cached_tokens = output.prompt_tokens, output.cached_tokens
            offset = offsets.get(output.index, 0)
            offsets[output.index] = offset + len(output.new_text)
            if not output.new_text and not output.finished:
                continue
            logprobs = (responses.completion_logprobs(output.logprobs, offset)
                        if output.logprobs else None)
            yield sse.event({**base, **extra, "choices": [
                {"index": output.index, "text": output.new_text, "logprobs": logprobs,
                 "finish_reason": output.finish_reason if output.finished else None}]})
        if include_usage:
            yield sse.event({**base, "choices": [], "usage": responses.usage(
                prompt_tokens, sum(completion_tokens.values()), cached_tokens)})
        yield sse.DONE
    finally:
        await outputs.aclose()
