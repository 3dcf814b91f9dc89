"""`TokenConstraint` (the sampler's contract) implemented with an xgrammar matcher."""
from __future__ import annotations

from collections.abc import Mapping

import torch
import xgrammar


class GrammarConstraint:
    """One sequence's grammar state: masks next tokens and follows the sampled ones.

    `added_token_text` says how the jump-forward writes the tokenizer's added tokens. A forced string
    such as `</tool_call>` is one added token but also plain text pieces, and a model must continue
    from the form it writes itself: Qwen2.5-Coder writes its tool tags as text, and handed the added
    token instead it went on with another call, every time, until max_tokens. So the jump inserts
    an added token's text pieces (`tuple` of ids) but the last, then stops: the model writes the
    last piece, which it may merge with what follows (`>` + newline is one token, `>\n`, and the
    1.5B's second call of a comparison followed only that form). An added token without a text
    form (`None`: special tokens) stops the jump before it.
    """

    def __init__(self, compiled: xgrammar.CompiledGrammar,
                 added_token_text: Mapping[int, tuple[int, ...] | None] | None = None) -> None:
        self._matcher = xgrammar.GrammarMatcher(compiled)
        self._added_token_text = added_token_text or {}

    def fill_next_token_bitmask(self, bitmask: torch.Tensor, row: int) -> bool:
        return self._matcher.fill_next_token_bitmask(bitmask, row)

    def accept_token(self, token_id: int) -> bool:
        return self._matcher.accept_token(token_id)

    def forced_tokens(self) -> list[int]:
        forced = self._matcher.find_jump_forward_tokens()
        for index, token_id in enumerate(forced):
            if token_id in self._added_token_text:
                pieces = self._added_token_text[token_id] or ()
                return forced[:index] + list(pieces[:-1])
        return forced

    def is_terminated(self) -> bool:
        return self._matcher.is_terminated()

    def rollback(self, num_tokens: int) -> None:
        self._matcher.rollback(num_tokens)
