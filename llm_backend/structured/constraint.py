"""`TokenConstraint` (the sampler's contract) implemented with an xgrammar matcher."""
from __future__ import annotations

import torch
import xgrammar


class GrammarConstraint:
    """One sequence's grammar state: masks next tokens and follows the sampled ones."""

    def __init__(self, compiled: xgrammar.CompiledGrammar) -> None:
        self._matcher = xgrammar.GrammarMatcher(compiled)

    def fill_next_token_bitmask(self, bitmask: torch.Tensor, row: int) -> bool:
        return self._matcher.fill_next_token_bitmask(bitmask, row)

    def accept_token(self, token_id: int) -> bool:
        return self._matcher.accept_token(token_id)

    def forced_tokens(self) -> list[int]:
        return self._matcher.find_jump_forward_tokens()

    def is_terminated(self) -> bool:
        return self._matcher.is_terminated()

    def rollback(self, num_tokens: int) -> None:
        self._matcher.rollback(num_tokens)
