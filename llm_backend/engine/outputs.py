"""What the engine hands back: per-step request outputs and engine-wide statistics."""
from __future__ import annotations

from dataclasses import dataclass, field

from llm_backend.engine.sequence import TokenLogprob


@dataclass
class RequestOutput:
    """New tokens and text of one choice (`index`) of a request since the previous step.

    With `SamplingParams.report_progress`, each prefill chunk is also reported, before the step's
    token (if any): `is_progress`, no tokens, and `prefilled_tokens` of `prompt_tokens` now in the KV
    cache (the prefix cache's hits included; the last such output has all of them).
    """

    request_id: str
    index: int
    new_token_ids: list[int]
    new_text: str
    finished: bool
    finish_reason: str | None  # "stop" | "length" | "abort" | None
    stop_reason: str | int | None
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    logprobs: list[TokenLogprob] | None = None
    prefilled_tokens: int = 0
    is_progress: bool = False


@dataclass
class Completion:
    """A whole generated choice, as returned by `LLMEngine.generate`."""

    token_ids: list[int]
    text: str
    finish_reason: str | None
    cached_tokens: int


@dataclass
class EngineStats:
    num_running: int
    num_waiting: int
    kv_blocks_used: int
    kv_blocks_total: int
    kv_blocks_peak_used: int  # the most blocks ever in use at once: never above kv_blocks_total
    prefix_cache_queried_tokens: int
    prefix_cache_hit_tokens: int
    prompt_tokens_total: int
    generation_tokens_total: int
    num_preemptions: int
    ttft_seconds: list[float] = field(default_factory=list)  # samples since the previous stats() call
    draft_tokens_total: int = 0  # prompt-lookup drafts verified
    accepted_draft_tokens_total: int = 0  # of those, the ones that stood
