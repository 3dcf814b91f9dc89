"""The boundary between the sampler and grammar-constrained decoding.

The engine knows nothing about JSON schemas or tools: a sequence may carry a
`TokenConstraint`, and the sampler asks it which tokens are allowed before sampling and
tells it which token was chosen afterwards. `llm_backend.structured` implements it with
xgrammar.
"""
from __future__ import annotations

from typing import Protocol

import torch


class TokenConstraint(Protocol):
    def fill_next_token_bitmask(self, bitmask: torch.Tensor, row: int) -> bool:
        """Write the allowed-token bitmask (xgrammar's int32 packed layout) into `bitmask[row]`.

        Returns False when every token is allowed (the row may then be skipped)."""

    def accept_token(self, token_id: int) -> bool:
        """Advance the grammar by one sampled token; False if the token was not allowed."""

    def forced_tokens(self) -> list[int]:
        """Tokens the grammar forces next (jump-forward); empty when there is a choice."""

    def is_terminated(self) -> bool:
        """True once the grammar has reached an accepting end state."""

    def rollback(self, num_tokens: int) -> None:
        """Undo the last `num_tokens` accepted tokens (used on preemption)."""
