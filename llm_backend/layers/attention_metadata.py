"""What attention needs to know about a step's flat token batch, built once per step.

The batch is laid out decodes first (one token each), then prefill chunks. Every
layer reuses the same metadata, so the masks and padded block tables are made once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import torch


@dataclass
class PrefillChunk:
    """A run of `length` query tokens at `start` in the flat batch, ending at `context_len` tokens.

    `block_table` is None when the chunk is the sequence's whole context so far (nothing
    cached before it): attention then uses the fresh K/V directly with a causal mask.
    """

    start: int
    length: int
    context_len: int
    block_table: torch.Tensor | None = None
    mask: torch.Tensor | None = None  # [length, context_len] bool, True = may attend

    @cached_property
    def as_decode_queries(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The chunk as one decode query per token: block tables [length, n] and context lengths [length].

        Made once per step, on first use by a layer (needs `block_table`)."""
        tables = self.block_table.expand(self.length, -1).contiguous()
        first = self.context_len - self.length + 1
        return tables, torch.arange(first, self.context_len + 1, device=self.block_table.device)


@dataclass
class AttentionMetadata:
    slot_mapping: torch.Tensor  # [T] flat cache slot (block * block_size + offset) of every token
    num_decode_tokens: int = 0
    decode_block_tables: torch.Tensor | None = None  # [D, max_blocks], padded with block 0
    decode_context_lens: torch.Tensor | None = None  # [D] int64 keys each decode attends to
    decode_bias: torch.Tensor | None = None  # [D, 1, 1, max_blocks * block_size] fp32: 0 or -inf (padding)
    prefills: list[PrefillChunk] = field(default_factory=list)
