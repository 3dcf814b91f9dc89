"""One generated continuation: its tokens, how many are in the KV cache, and where they live."""
from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from llm_backend.engine.constraint import TokenConstraint
from llm_backend.engine.sampling_params import SamplingParams

if TYPE_CHECKING:
    from llm_backend.engine.detokenizer import IncrementalDetokenizer


class SequenceStatus(enum.Enum):
    WAITING = "waiting"
    RUNNING = "running"
    FINISHED = "finished"


@dataclass
class TokenLogprob:
    """The chosen token's log-probability and the top alternatives at that position."""

    token_id: int
    text: str
    logprob: float
    top: list[tuple[int, str, float]]


class Sequence:
    """Prompt plus generated tokens of one of a request's `n` choices.

    `num_computed_tokens` counts the tokens whose K/V are already in the cache; the
    scheduler computes the rest, a chunk per step. Preemption resets it to 0 and the
    tokens are recomputed (the prefix cache usually makes that cheap).
    """

    def __init__(self, seq_id: int, request_id: str, index: int, prompt_token_ids: list[int],
                 params: SamplingParams, constraint: TokenConstraint | None = None) -> None:
        self.seq_id = seq_id
        self.request_id = request_id
        self.index = index
        self.token_ids = list(prompt_token_ids)
        self.num_prompt_tokens = len(prompt_token_ids)
        self.params = params
        self.constraint = constraint
        self.arrival_time = time.monotonic()
        self.status = SequenceStatus.WAITING
        self.num_computed_tokens = 0
        self.num_cached_tokens = 0  # prompt tokens served from the prefix cache on first admission
        self.draft_token_ids: list[int] = []  # speculative tokens this step verifies after the real ones
        self.block_table: list[int] = []
        self.block_hashes: list[int] = []  # chain hashes of the leading full, registered blocks
        self.finish_reason: str | None = None
        self.stop_reason: str | int | None = None
        self.generator: torch.Generator | None = None
        if params.seed is not None:
            self.generator = torch.Generator().manual_seed(params.seed + index)
        self.detokenizer: IncrementalDetokenizer | None = None
        self.first_token_time: float | None = None

    @property
    def num_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def num_output_tokens(self) -> int:
        return len(self.token_ids) - self.num_prompt_tokens

    @property
    def output_token_ids(self) -> list[int]:
        return self.token_ids[self.num_prompt_tokens:]

    @property
    def num_uncomputed_tokens(self) -> int:
        return len(self.token_ids) - self.num_computed_tokens

    @property
    def is_finished(self) -> bool:
        return self.status is SequenceStatus.FINISHED

    def finish(self, reason: str, stop_reason: str | int | None = None) -> None:
        self.status = SequenceStatus.FINISHED
        self.finish_reason = reason
        self.stop_reason = stop_reason

    def __repr__(self) -> str:
        return (f"Sequence({self.request_id}#{self.index}, tokens={self.num_tokens}, "
                f"computed={self.num_computed_tokens}, blocks={self.block_table})")
