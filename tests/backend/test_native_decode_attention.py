"""The C decode-attention kernel against the torch paths, on the same paged cache."""
from __future__ import annotations

import pytest
import torch

from llm_backend.layers import attention
from llm_backend.layers.attention import (_decode_attention, _gather, _native_decode_attention, native_decode_supported,
                                          paged_attention)
from llm_backend.layers.attention_metadata import AttentionMetadata, PrefillChunk

BLOCK_SIZE = 4


def decode_metadata(lengths: list[int], num_blocks: int) -> AttentionMetadata:
    """Each sequence gets its own shuffled blocks; tables are padded with block 0 like the runner's."""
    blocks = torch.randperm(num_blocks).tolist()
    max_blocks = max(-(-n // BLOCK_SIZE) for n in lengths)
    tables = []
    for n in lengths:
        needed = -(-n // BLOCK_SIZE)
        tables.append([blocks.pop() for _ in range(needed)] + [0] * (max_blocks - needed))
    key_pos = torch.arange(max_blocks * BLOCK_SIZE)
    lens = torch.tensor(lengths)
    bias = torch.zeros(len(lengths), max_blocks * BLOCK_SIZE).masked_fill_(key_pos >= lens[:, None], float("-inf"))
    return AttentionMetadata(slot_mapping=torch.zeros(len(lengths), dtype=torch.long), num_decode_tokens=len(lengths),
                             decode_block_tables=torch.tensor(tables), decode_context_lens=lens,
                             decode_bias=bias.view(len(lengths), 1, 1, -1))


@pytest.mark.parametrize("num_heads,num_kv_heads,head_dim", [(14, 2, 64), (9, 3, 64), (4, 4, 128)])
def test_native_decode_attention_matches_the_fp32_torch_path(num_heads, num_kv_heads, head_dim):
    torch.manual_seed(num_heads)
    lengths = [1, 5, 17, 64, 3]
    k_cache = torch.randn(80, BLOCK_SIZE, num_kv_heads, head_dim).to(torch.bfloat16)
    v_cache = torch.randn_like(k_cache)
    q = torch.randn(len(lengths), num_heads, head_dim).to(torch.bfloat16)
    if not native_decode_supported(q, k_cache):
        pytest.skip("no gcc: the native decode kernel cannot be built")
    meta = decode_metadata(lengths, num_blocks=80)
    keys, values = (_gather(cache.float(), meta.decode_block_tables) for cache in (k_cache, v_cache))
    expected = _decode_attention(q.float(), keys, values, meta.decode_bias)
    out = _native_decode_attention(q, k_cache, v_cache, meta.decode_block_tables, meta.decode_context_lens)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.float(), expected, atol=2e-2, rtol=1e-2)  # bf16 output rounding


@pytest.mark.parametrize("length", [1, 6, attention.NATIVE_CHUNK_MAX_TOKENS])
def test_a_short_chunk_after_cached_context_matches_the_sdpa_path(length, monkeypatch):
    """Each token of the chunk sees the cached keys and the chunk's keys up to itself, never later ones."""
    torch.manual_seed(length)
    num_heads, num_kv_heads, head_dim, context_len = 6, 2, 64, 45
    k_cache = torch.randn(40, BLOCK_SIZE, num_kv_heads, head_dim).to(torch.bfloat16)
    v_cache = torch.randn_like(k_cache)
    q = torch.randn(length, num_heads, head_dim).to(torch.bfloat16)
    if not native_decode_supported(q, k_cache):
        pytest.skip("no gcc: the native decode kernel cannot be built")
    key_pos, query_pos = torch.arange(context_len), torch.arange(context_len - length, context_len)
    chunk = PrefillChunk(start=0, length=length, context_len=context_len,
                         block_table=torch.randperm(40)[:-(-context_len // BLOCK_SIZE)],
                         mask=key_pos[None, :] <= query_pos[:, None])
    meta = AttentionMetadata(slot_mapping=torch.zeros(length, dtype=torch.long), prefills=[chunk])
    own_kv = torch.zeros(length, num_kv_heads, head_dim, dtype=torch.bfloat16)  # already in the cache
    out = paged_attention(q, own_kv, own_kv, k_cache, v_cache, meta)
    monkeypatch.setattr(attention, "NATIVE_CHUNK_MAX_TOKENS", 0)
    expected = paged_attention(q.float(), own_kv.float(), own_kv.float(), k_cache.float(), v_cache.float(), meta)
    torch.testing.assert_close(out.float(), expected, atol=2e-2, rtol=1e-2)  # bf16 output rounding
