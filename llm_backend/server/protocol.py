"""Pydantic models of the OpenAI-compatible requests we accept.

Only the request side is modelled: responses are plain dicts built in `responses.py`,
which keeps the wire format visible in one place. A top-level parameter this server does
not implement is refused (a 400 naming it) rather than silently ignored, as OpenAI's own API
does; inside messages unknown keys are ignored, since SDKs echo back assistant messages with
fields such as `refusal` or `annotations` that carry nothing to act on. Types are strict (no
"true" for true, no 1.0 for 1), NaN and infinities are refused everywhere, and the lists
that cost work per token or per request (stop strings and ids, tools) are bounded, so
that no single request can slow down the whole batch.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_STOP_SEQUENCES = 16
MAX_STOP_TOKEN_IDS = 64
MAX_TOOLS = 128
MAX_REGEX_CHARS = 4096
MAX_LOGIT_BIAS = 300  # OpenAI's cap on logit_bias entries; each costs a write per sampled token
MAX_CACHE_SALT_CHARS = 256
# torch generators take 64-bit seeds, and choice i of n samples with seed + i.
SEED_RANGE = (-(2**63), 2**63 - 1 - 16)


class _Request(BaseModel):
    """A request body, or an option object in it: unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class _Part(BaseModel):
    """A message or a part of one: unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False, strict=True)


class StreamOptions(_Request):
    include_usage: bool = False
    # Extension: a `prefill` chunk (no choices) after each prefill chunk, so a slow prompt shows it is alive.
    include_progress: bool = False


class ToolCallFunction(_Part):
    name: str
    arguments: str | dict[str, Any] = "{}"


class ToolCall(_Part):
    id: str = ""
    type: Literal["function"] = "function"
    function: ToolCallFunction


class ChatMessage(_Part):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None
    name: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None


class _SamplingFields(_Request):
    """Fields shared by chat and text completions."""

    model: str
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: float = Field(default=1.0, ge=0.0, le=2.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    top_k: int = Field(default=0, ge=-1)
    min_p: float = Field(default=0.0, ge=0.0, le=1.0)
    n: int = Field(default=1, ge=1, le=16)
    stop: str | Annotated[list[str], Field(max_length=MAX_STOP_SEQUENCES)] | None = None
    stop_token_ids: list[int] | None = Field(default=None, max_length=MAX_STOP_TOKEN_IDS)
    stream: bool = False
    stream_options: StreamOptions | None = None
    presence_penalty: float = Field(default=0.0, ge=-2.0, le=2.0)
    frequency_penalty: float = Field(default=0.0, ge=-2.0, le=2.0)
    repetition_penalty: float = Field(default=1.0, gt=0.0)
    seed: int | None = Field(default=None, ge=SEED_RANGE[0], le=SEED_RANGE[1])
    ignore_eos: bool = False
    # Token id (as a string, the JSON key) -> a bias added to its logit before sampling.
    logit_bias: dict[str, Annotated[float, Field(ge=-100.0, le=100.0)]] | None = Field(
        default=None, max_length=MAX_LOGIT_BIAS)
    # vLLM's extension: prefix-cache entries are shared only between requests with the same salt.
    cache_salt: str | None = Field(default=None, min_length=1, max_length=MAX_CACHE_SALT_CHARS)
    user: str | None = None  # OpenAI's end-user id: accepted, nothing here depends on it


class StructuredOutputs(_Request):
    regex: str = Field(min_length=1, max_length=MAX_REGEX_CHARS)


class ChatCompletionRequest(_SamplingFields):
    messages: list[ChatMessage] = Field(min_length=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    logprobs: bool = False
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    # Tools stay raw dicts here: `structured.tools` validates them and says precisely what is wrong.
    # OpenAI's own cap; validating and compiling thousands of tools would stall every stream.
    tools: list[Any] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool = True
    response_format: dict[str, Any] | None = None
    # Extension, as vLLM names it: {"regex": "..."} makes the reply text match the pattern.
    structured_outputs: StructuredOutputs | None = None
    # Extension: false turns grammar-constrained decoding off (for measuring what it buys).
    constrained_decoding: bool = True
    # Extension, with cache_salt: the first N messages (with the tool list) hold no caller data, so their
    # cache blocks stay shared across salts; the salt isolates everything after them.
    cache_shared_messages: int = Field(default=0, ge=0)


class CompletionRequest(_SamplingFields):
    prompt: str | list[str] | list[int]
    logprobs: int | None = Field(default=None, ge=0, le=20)
    echo: bool = False


class TokenizeRequest(_Request):
    model: str | None = None
    prompt: str | None = None
    messages: list[ChatMessage] | None = None
    add_generation_prompt: bool = True
