"""Owns the model and the KV tensors; turns a scheduled batch into one forward pass.

Every sequence of the step goes into a single flat token batch (decodes first, then
prefill chunks), so the model runs each layer once per step whatever the batch size.
Only the rows that need a next token (finished prefills and decodes, and a decode's drafts) reach
the LM head.
"""
from __future__ import annotations

import math
import mmap

import torch

from llm_backend.engine.scheduler import ScheduledBatch
from llm_backend.engine.sequence import Sequence
from llm_backend.layers.attention_metadata import AttentionMetadata, PrefillChunk
from llm_backend.models.llama import LlamaForCausalLM
from llm_backend.weights.model_config import ModelConfig


def kv_block_bytes(config: ModelConfig, block_size: int, dtype: torch.dtype) -> int:
    """Bytes one block takes across all layers, keys and values."""
    element_size = torch.empty((), dtype=dtype).element_size()
    return 2 * config.num_hidden_layers * block_size * config.num_key_value_heads * config.head_dim * element_size


def _zeroed_pool(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A zero tensor; on CPU an anonymous memory map, whose pages only take memory once written.

    So the KV budget is reserved, not resident: RSS grows with the blocks actually used.
    """
    if device.type != "cpu":
        return torch.zeros(shape, dtype=dtype, device=device)
    nbytes = math.prod(shape) * torch.empty((), dtype=dtype).element_size()
    return torch.frombuffer(mmap.mmap(-1, nbytes), dtype=dtype).view(shape)


class ModelRunner:
    def __init__(self, model: LlamaForCausalLM, num_blocks: int, block_size: int) -> None:
        self.model = model
        self.block_size = block_size
        config = model.config
        weight = model.embed_tokens.weight
        self.device, self.dtype = weight.device, weight.dtype
        shape = (num_blocks, block_size, config.num_key_value_heads, config.head_dim)
        pool = _zeroed_pool((config.num_hidden_layers, 2, *shape), self.dtype, self.device)
        self.kv_caches = [(layer[0], layer[1]) for layer in pool]

    @torch.inference_mode()
    def execute(self, batch: ScheduledBatch) -> tuple[list[Sequence], torch.Tensor]:
        """Run the step; returns the sequences that get a next token and their fp32 logits rows:
        one each, plus one per draft for a sequence with drafts."""
        self._copy_blocks(batch.block_copies)
        # Plain decodes first (stable); a decode with drafts runs as a short chunk.
        items = sorted(batch.items, key=lambda item: item[1] + len(item[0].draft_token_ids) != 1)
        input_ids, positions, slots = [], [], []
        sample_seqs, sample_rows = [], []
        decode_tables, decode_lens = [], []
        prefills: list[PrefillChunk] = []
        for seq, num_tokens in items:
            drafts = seq.draft_token_ids  # after the real tokens: verified by their own logits rows
            start_pos = seq.num_computed_tokens
            end_pos = start_pos + num_tokens + len(drafts)
            row = len(input_ids)
            input_ids += seq.token_ids[start_pos:start_pos + num_tokens] + drafts
            positions += range(start_pos, end_pos)
            slots += self._slots(seq.block_table, start_pos, end_pos)
            if end_pos - start_pos == 1:
                decode_tables.append(seq.block_table)
                decode_lens.append(end_pos)
            else:
                prefills.append(self._prefill_chunk(seq, row, start_pos, end_pos))
            if start_pos + num_tokens == seq.num_tokens:
                sample_seqs.append(seq)
                sample_rows += range(row + num_tokens - 1, row + num_tokens + len(drafts))
        meta = AttentionMetadata(slot_mapping=self._tensor(slots), prefills=prefills)
        if decode_lens:
            self._add_decode_metadata(meta, decode_tables, decode_lens)
        hidden = self.model(self._tensor(input_ids), self._tensor(positions), self.kv_caches, meta)
        logits = self.model.compute_logits(hidden[self._tensor(sample_rows)]).float()
        return sample_seqs, logits

    def _slots(self, block_table: list[int], start: int, end: int) -> list[int]:
        bs = self.block_size
        return [block_table[p // bs] * bs + p % bs for p in range(start, end)]

    def _prefill_chunk(self, seq: Sequence, row: int, start_pos: int, end_pos: int) -> PrefillChunk:
        chunk = PrefillChunk(start=row, length=end_pos - start_pos, context_len=end_pos)
        if start_pos > 0:  # earlier tokens are in the cache: attend through the block table
            num_blocks = -(-end_pos // self.block_size)
            chunk.block_table = self._tensor(seq.block_table[:num_blocks])
            key_pos = torch.arange(end_pos, device=self.device)
            query_pos = torch.arange(start_pos, end_pos, device=self.device)
            chunk.mask = key_pos[None, :] <= query_pos[:, None]
        return chunk

    def _add_decode_metadata(self, meta: AttentionMetadata, tables: list[list[int]], lens: list[int]) -> None:
        max_blocks = max(len(t) for t in tables)
        padded = [t + [0] * (max_blocks - len(t)) for t in tables]
        meta.num_decode_tokens = len(lens)
        meta.decode_block_tables = self._tensor(padded)
        meta.decode_context_lens = self._tensor(lens)
        key_pos = torch.arange(max_blocks * self.block_size, device=self.device)
        padding = key_pos[None, :] >= meta.decode_context_lens[:, None]
        bias = torch.zeros(padding.shape, dtype=torch.float32, device=self.device).masked_fill_(padding, float("-inf"))
        meta.decode_bias = bias.view(len(lens), 1, 1, -1)

    def _copy_blocks(self, copies: list[tuple[int, int]]) -> None:
        if not copies:
            return
        src = self._tensor([s for s, _ in copies])
        dst = self._tensor([d for _, d in copies])
        for k_cache, v_cache in self.kv_caches:
            k_cache[dst] = k_cache[src]
            v_cache[dst] = v_cache[src]

    def _tensor(self, values: list) -> torch.Tensor:
        return torch.tensor(values, dtype=torch.long, device=self.device)
