"""Builders for the JSON bodies of OpenAI responses (usage, logprobs, choices, chunks)."""
from __future__ import annotations

import time
from typing import Any

from llm_backend.structured.tool_parser import Delta, ToolCall


def usage(prompt_tokens: int, completion_tokens: int, cached_tokens: int) -> dict:
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens}}


def prefill_progress(output: Any) -> dict:
    """A progress output's `prefill` object: prompt tokens in the KV cache, of all, from the prefix cache."""
    return {"done": output.prefilled_tokens, "total": output.prompt_tokens, "cached": output.cached_tokens}


def envelope(request_id: str, object_name: str, model: str, created: int | None = None) -> dict:
    return {"id": request_id, "object": object_name, "created": created or int(time.time()),
            "model": model}


def _token_bytes(text: str) -> list[int]:
    return list(text.encode("utf-8"))


def chat_logprobs(entries: list[Any]) -> dict:
    """Engine TokenLogprobs -> the chat `logprobs.content` list."""
    return {"content": [
        {"token": e.text, "logprob": e.logprob, "bytes": _token_bytes(e.text),
         "top_logprobs": [{"token": text, "logprob": logprob, "bytes": _token_bytes(text)}
                          for _, text, logprob in e.top]}
        for e in entries]}


def completion_logprobs(entries: list[Any], text_offset: int) -> dict:
    """Engine TokenLogprobs -> the legacy completions `logprobs` object."""
    offsets, position = [], text_offset
    for e in entries:
        offsets.append(position)
        position += len(e.text)
    return {"tokens": [e.text for e in entries], "token_logprobs": [e.logprob for e in entries],
            "top_logprobs": [{text: logprob for _, text, logprob in e.top} for e in entries],
            "text_offset": offsets}


def tool_call_objects(calls: list[ToolCall]) -> list[dict]:
    return [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls]


def delta_object(delta: Delta) -> dict:
    """A parser Delta -> the `delta` field of a chat.completion.chunk choice."""
    if delta.content is not None:
        return {"content": delta.content}
    call: dict = {"index": delta.index, "function": {}}
    if delta.call_id is not None:
        call.update(id=delta.call_id, type="function")
        call["function"] = {"name": delta.name, "arguments": ""}
    if delta.arguments is not None:
        call["function"]["arguments"] = delta.arguments
    return {"tool_calls": [call]}


def finish_reason(engine_reason: str | None, made_complete_calls: bool) -> str | None:
    """OpenAI's reason: a reply that ended normally after complete calls finished 'tool_calls'."""
    if engine_reason == "stop" and made_complete_calls:
        return "tool_calls"
    return engine_reason
