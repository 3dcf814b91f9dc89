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


@dataclass(frozen=True)
class CacheScope:
    """Which prefix-cache entries a sequence may find and publish: vLLM's `cache_salt`, with a shared start.

    Without a salt every block belongs to the one shared cache. With one, a block's hash includes the salt,
    so only requests with the same salt can find it (and its reuse shows in no one else's `cached_tokens`
    or timing), except the blocks wholly within the first `shared_tokens` tokens: a system prompt and tool
    list that hold no caller's data stay shared by every salt.
    """

    salt: str | None = None
    shared_tokens: int = 0

    def salt_of_block(self, index: int, block_size: int) -> str | None:
        """The salt in block `index`'s hash; None for a block in the shared cache."""
        if self.salt is None or (index + 1) * block_size <= self.shared_tokens:
            return None
        return self.salt


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
                 params: SamplingParams, constraint: TokenConstraint | None = None,
                 cache_scope: CacheScope = CacheScope()) -> None:
        self.seq_id = seq_id
        self.request_id = request_id
        self.index = index
        self.token_ids = list(prompt_token_ids)
        self.num_prompt_tokens = len(prompt_token_ids)
        self.params = params
        self.constraint = constraint
        self.cache_scope = cache_scope
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
