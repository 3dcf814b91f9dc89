"""The GGUF block kernels (`gguf_matmul.c`) against gguf's own dequantization and an fp32 matmul.

Blocks are random bytes (every bit pattern of the quants, sub-block scales and mins) with sane
fp16 super-block scales, plus real blocks of the SmolLM2 file. Two references:

- activations on the int8 grid (a power-of-two step, a +-127 in every 32 values): the kernel's
  activation quantization is then lossless, so it must equal the fp32 matmul of the dequantized
  blocks up to float summation: |error| <= 1e-4 * (|x| @ |W|.T), and a wrong scale or offset
  anywhere in a block (the mutation check) is far outside that;
- Gaussian activations: the only extra error is their int8 quantization (llama.cpp's, per 32
  or 256 values), within 1.5% of the output's norm.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from gguf import GGMLQuantizationType as T
from gguf.constants import GGML_QUANT_SIZES

from llm_backend.layers.cpu_features import native_bf16_gemm
from llm_backend.layers.gguf_weight import (DENSE_MIN_ROWS, KERNEL_TYPES, BlockWeight, QuantizedTensor,
                                            gguf_kernels_available, lookup_rows)
from llm_backend.weights import load_checkpoint

pytestmark = pytest.mark.skipif(not gguf_kernels_available(), reason="no gcc or no AVX2: no GGUF kernels")

# Byte offsets of each type's fp16 scales (d, and dmin / m) inside a block.
FP16_FIELDS = {T.Q4_1: (0, 2), T.Q5_0: (0,), T.Q8_0: (0,), T.Q4_K: (0, 2), T.Q6_K: (208,)}
# A byte holding (part of) a scale or an offset, for the mutation check: m of Q4_1, d of Q5_0 and
# Q8_0, a 6-bit sub-block scale of Q4_K, an int8 sub-block scale of Q6_K.
MUTATED_BYTE = {T.Q4_1: 3, T.Q5_0: 1, T.Q8_0: 1, T.Q4_K: 5, T.Q6_K: 195}
EXACT_RTOL = 1e-4
QUANTIZED_ACTIVATIONS_RTOL = 0.015


def random_blocks(qtype: T, rows: int, columns: int, seed: int) -> QuantizedTensor:
    block_values, block_bytes = GGML_QUANT_SIZES[qtype]
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 256, (rows, columns // block_values, block_bytes), dtype=np.uint8)
    for offset in FP16_FIELDS[qtype]:
        scales = rng.uniform(0.002, 0.02, (rows, columns // block_values)).astype(np.float16)
        blocks[:, :, offset:offset + 2] = scales.view(np.uint8).reshape(rows, -1, 2)
    return QuantizedTensor(qtype, torch.from_numpy(blocks.reshape(rows, -1)), columns)


def int8_grid_activations(rows: int, columns: int, seed: int) -> torch.Tensor:
    """Values 2^-3 * integers in [-127, 127], with a +-127 in every 32: quantized losslessly."""
    generator = torch.Generator().manual_seed(seed)
    levels = torch.randint(-127, 128, (rows, columns), generator=generator).float()
    levels[:, ::32] = 127 * torch.where(torch.rand(rows, columns // 32, generator=generator) < 0.5, -1, 1)
    return levels / 8


def reference(x: torch.Tensor, weights: list[QuantizedTensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """fp32 x @ W.T in float64, and |x| @ |W|.T (the scale of its rounding error)."""
    dense = torch.cat([w.dequantize() for w in weights]).double()
    return x.double() @ dense.T, x.double().abs() @ dense.abs().T


def assert_exact(out: torch.Tensor, expected: torch.Tensor, magnitude: torch.Tensor) -> None:
    error = (out.double() - expected).abs()
    assert (error <= EXACT_RTOL * magnitude + 1e-6).all(), f"max error {error.max():.3g}"


@pytest.mark.parametrize("qtype", KERNEL_TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("rows", [1, 2, 3, 4, 5, 7, 8, 13, 16, 37])
def test_kernel_equals_the_fp32_matmul_of_the_dequantized_blocks(qtype, rows):
    """1-16 rows (the decode path, by 4 rows and their remainders) and 37 (the prefill tiles); an
    odd number of weight rows and a few blocks per row."""
    columns = 3 * GGML_QUANT_SIZES[qtype][0] if qtype in (T.Q4_K, T.Q6_K) else 7 * 32
    weight = random_blocks(qtype, 37, columns, seed=rows)
    x = int8_grid_activations(rows, columns, seed=rows)
    expected, magnitude = reference(x, [weight])
    assert_exact(BlockWeight([weight], None).matmul(x, torch.float32), expected, magnitude)


@pytest.mark.parametrize("qtype", KERNEL_TYPES, ids=lambda t: t.name)
def test_a_wrong_scale_or_offset_fails_the_check(qtype):
    columns = GGML_QUANT_SIZES[qtype][0] * (1 if qtype in (T.Q4_K, T.Q6_K) else 8)
    weight = random_blocks(qtype, 16, columns, seed=1)
    x = int8_grid_activations(4, columns, seed=2)
    expected, magnitude = reference(x, [weight])
    mutated = weight.blocks.clone()
    mutated[5, MUTATED_BYTE[qtype]] ^= 0x05  # one block of one row
    out = BlockWeight([QuantizedTensor(qtype, mutated, columns)], None).matmul(x, torch.float32)
    with pytest.raises(AssertionError):
        assert_exact(out, expected, magnitude)
    assert_exact(out[:, :5], expected[:, :5], magnitude[:, :5])  # only that row changed


@pytest.mark.parametrize("rows", [1, 6, 16])
def test_any_activations_are_within_their_int8_quantization(rows):
    torch.manual_seed(rows)
    for qtype in KERNEL_TYPES:
        weight = random_blocks(qtype, 64, 512, seed=rows)
        x = torch.randn(rows, 512)
        expected, _ = reference(x, [weight])
        error = (BlockWeight([weight], None).matmul(x, torch.float32).double() - expected).norm()
        assert error <= QUANTIZED_ACTIVATIONS_RTOL * expected.norm(), qtype.name


def test_fused_segments_of_mixed_types_with_bias_in_bf16():
    """A q/k/v weight whose v is another type: one call, outputs in segment order, bias added."""
    parts = [random_blocks(T.Q4_K, 24, 512, 1), random_blocks(T.Q6_K, 8, 512, 2), random_blocks(T.Q4_K, 8, 512, 3)]
    bias = torch.randn(40)
    x = int8_grid_activations(3, 512, seed=4)
    expected, magnitude = reference(x, parts)
    fused = BlockWeight(parts, bias)
    assert_exact(fused.matmul(x, torch.float32), expected + bias.double(), magnitude)
    out = fused.matmul(x.to(torch.bfloat16), torch.bfloat16)  # the grid is exact in bf16; bf16 rounds the output
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.float(), (expected + bias.double()).float(), rtol=2 ** -8, atol=1e-3)


def test_long_steps_multiply_the_exactly_dequantized_weight_in_bf16_where_bf16_is_native():
    """From DENSE_MIN_ROWS rows: gguf's dequantization rounded to bf16 (bit for bit), then oneDNN's bf16 GEMM
    where it is native; elsewhere (an emulated bf16 GEMM is slower than the int8 kernel) the blocks' kernel."""
    parts = [random_blocks(qtype, 9, 512, seed=i) for i, qtype in enumerate(KERNEL_TYPES)]
    bias = torch.randn(9 * len(parts))
    fused = BlockWeight(parts, bias)
    dense = torch.cat([part.dequantize() for part in parts]).to(torch.bfloat16)
    assert torch.equal(fused._dense(), dense)
    x = int8_grid_activations(DENSE_MIN_ROWS, 512, seed=6)
    if native_bf16_gemm():
        expected = torch.nn.functional.linear(x.to(torch.bfloat16), dense, bias.to(torch.bfloat16))
        assert torch.equal(fused.matmul(x.to(torch.bfloat16), torch.bfloat16), expected)
    else:
        expected, magnitude = reference(x, parts)
        assert_exact(fused.matmul(x, torch.float32), expected + bias.double(), magnitude)


def test_fused_parts_need_the_same_input_size():
    with pytest.raises(ValueError, match="same input size"):
        BlockWeight([random_blocks(T.Q8_0, 4, 64, 0), random_blocks(T.Q8_0, 4, 96, 0)], None)


@pytest.mark.parametrize("qtype", KERNEL_TYPES, ids=lambda t: t.name)
def test_lookup_dequantizes_rows_exactly(qtype):
    table = random_blocks(qtype, 50, 512, seed=3)
    ids = torch.tensor([[0, 49], [7, 7]])
    dense = table.dequantize()
    assert torch.equal(lookup_rows(table, ids, torch.float32), dense[ids])
    assert torch.equal(lookup_rows(table, ids, torch.bfloat16), dense[ids].to(torch.bfloat16))


def test_real_smollm_blocks():
    """The SmolLM2 file's own Q8_0 embedding and Q4_1 projections, real activations' shapes."""
    tensors = load_checkpoint("smollm2-135m-instruct", torch.bfloat16, gguf_blocks=True).tensors
    embedding, gate = tensors["model.embed_tokens.weight"], tensors["model.layers.0.mlp.gate_proj.weight"]
    assert (embedding.qtype, gate.qtype) == (T.Q8_0, T.Q4_1)
    for weight in (embedding, gate):
        x = int8_grid_activations(2, weight.columns, seed=5)
        expected, magnitude = reference(x, [weight])
        assert_exact(BlockWeight([weight], None).matmul(x, torch.float32), expected, magnitude)
