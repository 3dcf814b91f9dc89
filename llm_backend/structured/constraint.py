"""`TokenConstraint` (the sampler's contract) implemented with an xgrammar matcher."""
from __future__ import annotations

import torch
import xgrammar


class GrammarConstraint:
    """One sequence's grammar state: masks next tokens and follows the sampled ones.

    `model_written_ids` are tokens the jump-forward never inserts (the tokenizer's added tokens). A forced
    string such as `</tool_call>` is one added token but also plain text pieces, and a model must continue
    from the form it would write itself: Qwen2.5-Coder writes the tag as text, and handed the added token
    instead it went on with another call, every time, until max_tokens.
    """

    def __init__(self, compiled: xgrammar.CompiledGrammar, model_written_ids: frozenset[int] = frozenset()) -> None:
        self._matcher = xgrammar.GrammarMatcher(compiled)
        self._model_written_ids = model_written_ids

    def fill_next_token_bitmask(self, bitmask: torch.Tensor, row: int) -> bool:
        return self._matcher.fill_next_token_bitmask(bitmask, row)

    def accept_token(self, token_id: int) -> bool:
        return self._matcher.accept_token(token_id)

    def forced_tokens(self) -> list[int]:
        forced = self._matcher.find_jump_forward_tokens()
        for index, token_id in enumerate(forced):
            if token_id in self._model_written_ids:
                return forced[:index]
        return forced

    def is_terminated(self) -> bool:
        return self._matcher.is_terminated()

    def rollback(self, num_tokens: int) -> None:
        self._matcher.rollback(num_tokens)
