"""Turns a step's logits into next tokens, vectorised over the batch.

Order per row: grammar mask -> logit_bias -> penalties -> temperature -> top-k / top-p /
min-p -> sample. Greedy rows take the argmax of the masked, penalised logits. Each stage runs
only when some row of the step asks for it. Logprobs are those of the model's own
distribution (before any of the processing above), as in vLLM.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from llm_backend.engine.sequence import Sequence

BITS_PER_WORD = 32


@dataclass
class SampledToken:
    token_id: int
    logprob: float | None = None
    top: list[tuple[int, float]] | None = None  # (token id, logprob) best first


class Sampler:
    def __call__(self, logits: torch.Tensor, seqs: list[Sequence]) -> list[SampledToken]:
        """`logits` [R, V] fp32 (modified in place), one row per sequence in `seqs`."""
        raw_logprobs = None
        if any(seq.params.logprobs is not None for seq in seqs):
            raw_logprobs = torch.log_softmax(logits, dim=-1)
        apply_grammar_masks(logits, seqs)
        apply_logit_bias(logits, seqs)
        if any(seq.params.needs_penalties for seq in seqs):
            apply_penalties(logits, seqs)
        token_ids = logits.argmax(dim=-1)
        sampled_rows = [i for i, seq in enumerate(seqs) if not seq.params.greedy]
        if sampled_rows:
            rows = torch.tensor(sampled_rows)
            token_ids[rows] = sample(logits[rows], [seqs[i] for i in sampled_rows])
        return [self._result(i, int(token), seq, raw_logprobs)
                for i, (token, seq) in enumerate(zip(token_ids.tolist(), seqs))]

    @staticmethod
    def _result(row: int, token_id: int, seq: Sequence, raw_logprobs: torch.Tensor | None) -> SampledToken:
        k = seq.params.logprobs
        if k is None or raw_logprobs is None:
            return SampledToken(token_id)
        top = []
        if k:
            values, ids = raw_logprobs[row].topk(k)
            top = list(zip(ids.tolist(), values.tolist()))
        return SampledToken(token_id, raw_logprobs[row, token_id].item(), top)


def apply_grammar_masks(logits: torch.Tensor, seqs: list[Sequence]) -> None:
    """Fill one packed int32 bitmask for the step's constrained rows and mask them together."""
    constrained = [i for i, seq in enumerate(seqs) if seq.constraint is not None]
    if not constrained:
        return
    vocab_size = logits.shape[-1]
    bitmask = torch.full((len(seqs), -(-vocab_size // BITS_PER_WORD)), -1, dtype=torch.int32)
    masked_rows = [i for i in constrained if seqs[i].constraint.fill_next_token_bitmask(bitmask, i)]
    if not masked_rows:
        return
    rows = torch.tensor(masked_rows)
    shifts = torch.arange(BITS_PER_WORD, dtype=torch.int32)
    allowed = ((bitmask[rows].unsqueeze(-1) >> shifts) & 1).bool().flatten(1)[:, :vocab_size]
    logits[rows] = logits[rows].masked_fill(~allowed.to(logits.device), float("-inf"))


def apply_logit_bias(logits: torch.Tensor, seqs: list[Sequence]) -> None:
    """Add each row's `logit_bias` to its logits (OpenAI: -100 bans a token, 100 all but forces it).

    After the grammar mask, so a bias can never revive a token the grammar forbids (-inf stays -inf)."""
    for row, seq in enumerate(seqs):
        bias = seq.params.logit_bias
        if bias:
            ids = torch.tensor(list(bias), device=logits.device)
            logits[row, ids] += torch.tensor(list(bias.values()), dtype=logits.dtype, device=logits.device)


def apply_penalties(logits: torch.Tensor, seqs: list[Sequence]) -> None:
    """Repetition penalty over prompt + output; presence/frequency over the output (OpenAI semantics)."""
    for row, seq in enumerate(seqs):
        params = seq.params
        if not params.needs_penalties:
            continue
        if params.repetition_penalty != 1.0:
            seen = torch.tensor(sorted(set(seq.token_ids)), device=logits.device)
            values = logits[row, seen]
            logits[row, seen] = torch.where(values > 0, values / params.repetition_penalty,
                                            values * params.repetition_penalty)
        if (params.presence_penalty or params.frequency_penalty) and seq.num_output_tokens:
            output = torch.tensor(seq.output_token_ids, device=logits.device)
            counts = torch.zeros_like(logits[row]).index_add_(0, output, torch.ones_like(output, dtype=logits.dtype))
            logits[row] -= params.frequency_penalty * counts + params.presence_penalty * (counts > 0)


def sample(logits: torch.Tensor, seqs: list[Sequence]) -> torch.Tensor:
    """Temperature, top-k, top-p, min-p, then one draw per row (seeded rows use their own generator)."""
    temperatures = torch.tensor([seq.params.temperature for seq in seqs], device=logits.device)
    logits = logits / temperatures.unsqueeze(1)
    top_k = [seq.params.top_k for seq in seqs]
    top_p = [seq.params.top_p for seq in seqs]
    if any(k > 0 for k in top_k) or any(p < 1.0 for p in top_p):
        logits = _top_k_top_p(logits, top_k, top_p)
    probs = torch.softmax(logits, dim=-1)
    min_p = torch.tensor([seq.params.min_p for seq in seqs], device=logits.device)
    if bool((min_p > 0).any()):
        floor = min_p.unsqueeze(1) * probs.max(dim=-1, keepdim=True).values
        probs = probs.masked_fill(probs < floor, 0.0)
    # Exponential-race sampling: argmax(p / E) with E ~ Exp(1) draws from p, and lets each
    # seeded row draw its noise from its own generator.
    noise = torch.empty_like(probs).exponential_()
    for row, seq in enumerate(seqs):
        if seq.generator is not None:
            noise[row] = torch.empty(probs.shape[1]).exponential_(generator=seq.generator).to(probs.device)
    return (probs / noise).argmax(dim=-1)


def _top_k_top_p(logits: torch.Tensor, top_k: list[int], top_p: list[float]) -> torch.Tensor:
    vocab_size = logits.shape[-1]
    sorted_logits, order = logits.sort(dim=-1, descending=True)
    ranks = torch.arange(vocab_size, device=logits.device).unsqueeze(0)
    k = torch.tensor([k if k > 0 else vocab_size for k in top_k], device=logits.device).unsqueeze(1)
    remove = ranks >= k
    sorted_logits = sorted_logits.masked_fill(remove, float("-inf"))
    sorted_probs = torch.softmax(sorted_logits, dim=-1)
    mass_before = sorted_probs.cumsum(dim=-1) - sorted_probs
    p = torch.tensor(top_p, device=logits.device).unsqueeze(1)
    remove |= mass_before >= p  # keeps the smallest prefix reaching p, always at least one token
    sorted_logits = sorted_logits.masked_fill(remove, float("-inf"))
    return torch.empty_like(logits).scatter_(1, order, sorted_logits)
