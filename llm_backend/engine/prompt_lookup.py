"""Prompt-lookup drafts for speculative decoding: guess the next tokens from the sequence itself.

The assistant's answers copy a lot of their context: the writer quotes the tool results' figures
and names, and a tool call's JSON repeats the schema's keys and the user's words. So when the last
few tokens of a sequence occurred earlier in it, the tokens that followed them then are likely to
follow now. Those drafts are verified in one multi-row forward pass (`LLMEngine._verify_drafts`):
a draft stands only if it is the greedy token, so the output is the same token for token.

Only greedy choices without logprobs or penalties are drafted for (their tokens are the argmax of
each row, nothing else), and a draft never goes past what the grammar, `max_tokens` or the
context length allows.
"""
from __future__ import annotations

from llm_backend.engine.sequence import Sequence

MAX_NGRAM = 3  # the longest suffix looked up, tried first
MIN_NGRAM = 2  # a single repeated token predicts too little to be worth the extra rows


def can_draft(seq: Sequence) -> bool:
    params = seq.params
    return params.greedy and params.logprobs is None and not params.needs_penalties and params.n == 1


def propose_drafts(seq: Sequence, max_drafts: int, max_model_len: int) -> list[int]:
    """Up to `max_drafts` tokens that followed the latest earlier occurrence of the sequence's last
    MAX_NGRAM (else fewer, down to MIN_NGRAM) tokens; trimmed to the first one the grammar rejects."""
    tokens = seq.token_ids
    max_drafts = min(max_drafts, seq.params.max_tokens - seq.num_output_tokens - 1, max_model_len - seq.num_tokens)
    if max_drafts <= 0 or not can_draft(seq):
        return []
    for n in range(min(MAX_NGRAM, len(tokens) - 1), MIN_NGRAM - 1, -1):
        suffix = tokens[-n:]
        for start in range(len(tokens) - n - 1, -1, -1):  # the latest occurrence before the suffix itself
            if tokens[start:start + n] == suffix:
                drafts = tokens[start + n:start + n + max_drafts]
                return _allowed_prefix(seq, drafts) if seq.constraint is not None else drafts
    return []


def _allowed_prefix(seq: Sequence, drafts: list[int]) -> list[int]:
    """The drafts up to the first the grammar would reject; the grammar's state is left as it was."""
    accepted = 0
    for token_id in drafts:
        if seq.constraint.is_terminated() or not seq.constraint.accept_token(token_id):
            break
        accepted += 1
    if accepted:
        seq.constraint.rollback(accepted)
    return drafts[:accepted]
