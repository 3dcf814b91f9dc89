"""Attention over the paged KV cache.

The kernel boundary is `write_kv_cache` + `paged_attention`: both take the cache as
[num_blocks, block_size, num_kv_heads, head_dim] tensors and the step's block tables,
so a fused CUDA paged-attention kernel can replace them without touching the models.
On CPU, decode tokens of a bf16 cache go to our C kernel (`paged_decode_attention.c`),
which reads the blocks in place, and so do short chunks after cached context, one decode
query per token; elsewhere, and for longer chunks, each sequence's blocks are gathered and
SDPA or two batched matmuls do the attention.
"""
from __future__ import annotations

import ctypes

import torch
import torch.nn.functional as F

from llm_backend.layers.attention_metadata import AttentionMetadata, PrefillChunk
from llm_backend.layers.native import native_function

MAX_NATIVE_HEAD_DIM = 256  # MAX_HEAD_DIM in the C source
MAX_NATIVE_GROUP = 16  # MAX_GROUP: query heads per kv head
# Up to here a chunk after cached context (jump-forward text, a short new turn) runs faster as
# decode queries than as batched SDPA: with 1,900 cached keys, 8 tokens took 1.7 vs 2.2 ms per
# layer, 16 tokens 3.3 vs 2.8 ms.
NATIVE_CHUNK_MAX_TOKENS = 12


def _decode_kernel() -> ctypes._CFuncPtr | None:
    """The C kernel, or None where it cannot be built (no gcc)."""
    return native_function("paged_decode_attention",
                           (ctypes.c_void_p,) * 7 + (ctypes.c_int64,) * 6 + (ctypes.c_float, ctypes.c_int))


def native_decode_supported(q: torch.Tensor, k_cache: torch.Tensor) -> bool:
    """Whether `_native_decode_attention` can serve these tensors."""
    return (q.device.type == "cpu" and q.dtype == k_cache.dtype == torch.bfloat16
            and q.shape[-1] <= MAX_NATIVE_HEAD_DIM and q.shape[1] // k_cache.shape[2] <= MAX_NATIVE_GROUP
            and _decode_kernel() is not None)


def _native_decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                             tables: torch.Tensor, context_lens: torch.Tensor) -> torch.Tensor:
    """q [B, Hq, D] -> [B, Hq, D]: query b attends to the first context_lens[b] keys of block table b."""
    batch, num_heads, head_dim = q.shape
    _, block_size, num_kv_heads, _ = k_cache.shape
    q = q.contiguous()
    out = torch.empty_like(q)
    scores = torch.empty(batch * num_heads * tables.shape[1] * block_size, dtype=torch.float32)
    _decode_kernel()(q.data_ptr(), k_cache.data_ptr(), v_cache.data_ptr(), tables.data_ptr(),
                     context_lens.data_ptr(), out.data_ptr(), scores.data_ptr(), batch, num_heads,
                     num_kv_heads, head_dim, block_size, tables.shape[1], head_dim**-0.5, torch.get_num_threads())
    return out


def write_kv_cache(k: torch.Tensor, v: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                   slot_mapping: torch.Tensor) -> None:
    """Store the step's new keys/values [T, Hkv, D] at their slots."""
    num_kv_heads, head_dim = k.shape[1], k.shape[2]
    k_cache.view(-1, num_kv_heads, head_dim).index_copy_(0, slot_mapping, k)
    v_cache.view(-1, num_kv_heads, head_dim).index_copy_(0, slot_mapping, v)


def _gather(cache: torch.Tensor, block_table: torch.Tensor) -> torch.Tensor:
    """[..., n_blocks] block ids -> [..., Hkv, n_blocks * block_size, D] keys or values."""
    blocks = cache[block_table]  # [..., n, bs, Hkv, D]
    blocks = blocks.flatten(-4, -3)  # [..., n * bs, Hkv, D]
    return blocks.transpose(-3, -2)


def _decode_attention(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """One query token per sequence: q [B, Hq, D], keys/values [B, Hkv, L, D], bias [B, 1, 1, L].

    Two batched matmuls with an fp32 softmax. CPU SDPA with a padding mask was 5-25x
    slower for this shape (8 sequences x 512 keys: 6.5 ms vs 0.4 ms per layer).
    """
    batch, num_heads, head_dim = q.shape
    num_kv_heads = keys.shape[1]
    grouped = q.view(batch, num_kv_heads, num_heads // num_kv_heads, head_dim)  # query heads share a kv head
    scores = torch.matmul(grouped, keys.transpose(-1, -2)).float() * head_dim**-0.5 + bias
    probs = torch.softmax(scores, dim=-1).to(q.dtype)
    return torch.matmul(probs, values).view(batch, num_heads, head_dim)


def paged_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, k_cache: torch.Tensor,
                    v_cache: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
    """Attention for every token of the step: q [T, Hq, D] -> [T, Hq, D].

    `k`/`v` are the step's own keys/values, already written to the cache.
    """
    out = torch.empty_like(q)
    num_decode = meta.num_decode_tokens
    if num_decode and native_decode_supported(q, k_cache):
        out[:num_decode] = _native_decode_attention(q[:num_decode], k_cache, v_cache, meta.decode_block_tables,
                                                    meta.decode_context_lens)
    elif num_decode:
        keys = _gather(k_cache, meta.decode_block_tables)
        values = _gather(v_cache, meta.decode_block_tables)
        out[:num_decode] = _decode_attention(q[:num_decode], keys, values, meta.decode_bias)
    for chunk in meta.prefills:
        rows = slice(chunk.start, chunk.start + chunk.length)
        out[rows] = _chunk_attention(q[rows], k[rows], v[rows], k_cache, v_cache, chunk)
    return out


def _chunk_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, k_cache: torch.Tensor,
                     v_cache: torch.Tensor, chunk: PrefillChunk) -> torch.Tensor:
    """One prefill chunk: q [T, Hq, D] and its own k/v [T, Hkv, D] -> [T, Hq, D]."""
    if chunk.block_table is None:
        return _sdpa(q, k.transpose(0, 1), v.transpose(0, 1), is_causal=True)
    if chunk.length <= NATIVE_CHUNK_MAX_TOKENS and native_decode_supported(q, k_cache):
        return _native_decode_attention(q, k_cache, v_cache, *chunk.as_decode_queries)
    keys = _gather(k_cache, chunk.block_table)[:, :chunk.context_len]
    values = _gather(v_cache, chunk.block_table)[:, :chunk.context_len]
    return _sdpa(q, keys, values, attn_mask=chunk.mask)


def _sdpa(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, **mask: torch.Tensor | bool) -> torch.Tensor:
    """q [T, Hq, D], keys/values [Hkv, L, D] -> [T, Hq, D].

    With a batch dimension, CPU SDPA takes its flash kernel: 2-4x faster than with 3-d inputs
    (105 queries over 730 keys: 3.9 vs 7.3 ms per layer).
    """
    attended = F.scaled_dot_product_attention(q.transpose(0, 1).unsqueeze(0), keys.unsqueeze(0), values.unsqueeze(0),
                                              enable_gqa=True, **mask)
    return attended[0].transpose(0, 1)
