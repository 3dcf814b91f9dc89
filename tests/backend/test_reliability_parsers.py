"""Property tests on the request parsers: whatever a client sends, the answer is a 4xx error
object or a request the engine accepts, never an unexpected exception (which would be a 500).

Runs in-process on the parsing functions themselves (no model), so hypothesis can try
thousands of bodies in seconds; the HTTP-level fuzzing is in test_reliability_fuzz.py.
"""
from __future__ import annotations

import asyncio
import json
import math
from types import SimpleNamespace

import pydantic
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.requests import Request

from llm_backend.server.errors import OpenAIError, from_validation_error, parse_json_body
from llm_backend.server.params import sampling_params
from llm_backend.server.protocol import ChatCompletionRequest, CompletionRequest

MAX_MODEL_LEN = 2048
LIMIT = 4096

junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)
numbers = st.integers(-(2**70), 2**70) | st.floats() | st.sampled_from([0, 1, -1, 2, 0.5, 1e-300, 1e308])
# Each field: plausible values (so some bodies get through to sampling_params) or anything at all.
FIELDS = {
    "max_tokens": numbers | st.none(), "max_completion_tokens": numbers | st.none(),
    "temperature": numbers, "top_p": numbers, "top_k": numbers, "min_p": numbers, "n": numbers,
    "presence_penalty": numbers, "frequency_penalty": numbers, "repetition_penalty": numbers,
    "seed": numbers | st.none(), "logprobs": st.booleans() | numbers, "top_logprobs": numbers,
    "stop": st.text(max_size=4) | st.lists(st.text(max_size=4), max_size=20),
    "stop_token_ids": st.lists(st.integers(-5, 2**66), max_size=70),
    "stream": st.booleans(), "ignore_eos": st.booleans(), "echo": st.booleans(),
}


def bodies(base: dict) -> st.SearchStrategy[dict]:
    fields = st.fixed_dictionaries({}, optional={name: values | junk for name, values in FIELDS.items()})
    return st.builds(lambda extra: {**base, **extra}, fields)


CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
COMPLETION = {"model": "m", "prompt": "hi"}


def check_parse(model: type[pydantic.BaseModel], body: dict, prompt_tokens: int) -> None:
    """Validation then parameter building: a SamplingParams that fits, or a 400 with a message."""
    try:
        request = model.model_validate(body)
    except pydantic.ValidationError as exc:
        error = from_validation_error(exc)
        assert error.status == 400 and error.message
        json.dumps(error.body(), allow_nan=False)  # the error object itself is valid JSON
        return
    try:
        params = sampling_params(request, prompt_tokens, MAX_MODEL_LEN)
    except OpenAIError as exc:
        assert exc.status == 400 and exc.message
        return
    params.validate()
    assert 1 <= params.max_tokens and prompt_tokens + params.max_tokens <= MAX_MODEL_LEN
    for value in (params.temperature, params.top_p, params.min_p, params.repetition_penalty,
                  params.presence_penalty, params.frequency_penalty):
        assert math.isfinite(value)


@settings(max_examples=400, deadline=None)
@given(body=bodies(CHAT), prompt_tokens=st.integers(1, MAX_MODEL_LEN + 5))
def test_chat_bodies_become_valid_params_or_400(body, prompt_tokens):
    check_parse(ChatCompletionRequest, body, prompt_tokens)


@settings(max_examples=400, deadline=None)
@given(body=bodies(COMPLETION), prompt_tokens=st.integers(1, MAX_MODEL_LEN + 5))
def test_completion_bodies_become_valid_params_or_400(body, prompt_tokens):
    check_parse(CompletionRequest, body, prompt_tokens)


@settings(max_examples=200, deadline=None)
@given(body=junk)
def test_any_json_value_as_a_body_validates_or_gets_400(body):
    for model in (ChatCompletionRequest, CompletionRequest):
        try:
            model.model_validate(body)
        except pydantic.ValidationError as exc:
            assert from_validation_error(exc).status == 400


def parse_raw(raw: bytes, chunk: int = 1000) -> dict:
    """Run `parse_json_body` on `raw`, delivered in chunks without a Content-Length."""
    parts = [raw[i:i + chunk] for i in range(0, len(raw), chunk)] or [b""]
    messages = [{"type": "http.request", "body": part, "more_body": i < len(parts) - 1}
                for i, part in enumerate(parts)]

    async def receive() -> dict:
        return messages.pop(0)

    app = SimpleNamespace(state=SimpleNamespace(server=SimpleNamespace(max_request_bytes=LIMIT)))
    request = Request({"type": "http", "method": "POST", "headers": [], "app": app}, receive)
    return asyncio.run(parse_json_body(request))


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=LIMIT + 200)
       | st.text().map(lambda text: text.encode("utf-8", "surrogatepass"))
       | junk.map(lambda value: json.dumps(value).encode()))
def test_any_bytes_parse_to_an_object_or_get_400_or_413(raw):
    try:
        body = parse_raw(raw)
    except OpenAIError as exc:
        assert exc.status == (413 if len(raw) > LIMIT else 400) and exc.message
        return
    assert isinstance(body, dict) and len(raw) <= LIMIT
    json.dumps(body, ensure_ascii=False).encode("utf-8")  # valid Unicode all the way down
