"""The fused element-wise kernels (`pointwise.c`) against the same formulas in fp32 torch.

The kernels compute in fp32 and round to bf16 once, so each output is within half a bf16 step
(at most 2^-8 of its magnitude) of the fp32 reference, plus the reference's own float error; 1 and 37 tokens
(37: split between threads).
"""
from __future__ import annotations

import pytest
import torch

from llm_backend.layers import pointwise
from llm_backend.layers.rotary import RotaryEmbedding

pytestmark = pytest.mark.skipif(not pointwise.fused(torch.zeros(8, dtype=torch.bfloat16)), reason="no gcc or AVX2")
BF16_HALF_STEP = 2.0 ** -8  # 7 stored mantissa bits


def assert_rounded_from(out: torch.Tensor, expected: torch.Tensor) -> None:
    """`out` is `expected` rounded to bf16 (to within float noise)."""
    assert out.dtype == torch.bfloat16
    error = (out.double() - expected.double()).abs()
    assert (error <= BF16_HALF_STEP * expected.double().abs() * 1.01 + 1e-6).all(), f"max error {error.max():.3g}"


@pytest.mark.parametrize("tokens", [1, 37])
def test_add_rms_norm(tokens):
    torch.manual_seed(tokens)
    residual = torch.randn(tokens, 1536).to(torch.bfloat16)
    x = (4 * torch.randn(tokens, 1536)).to(torch.bfloat16)
    weight = torch.rand(1536).to(torch.bfloat16) + 0.5
    total = (residual.float() + x.float()).to(torch.bfloat16)  # the residual stream stays bf16
    normed = total.float() * torch.rsqrt(total.float().pow(2).mean(-1, keepdim=True) + 1e-6)
    out = pointwise.add_rms_norm(residual, x, weight, 1e-6)
    assert torch.equal(residual, total)  # added in place
    assert_rounded_from(out, normed * weight.float())
    alone = pointwise.add_rms_norm(total.clone(), None, weight, 1e-6)
    assert torch.equal(alone, out)


@pytest.mark.parametrize("tokens", [1, 37])
def test_rotary_rotates_q_and_k_in_place_and_leaves_v(tokens):
    rotary = RotaryEmbedding(128, 4096, 1e6, torch.bfloat16, torch.device("cpu"))
    heads, kv_heads = 12, 2
    qkv = torch.randn(tokens, (heads + 2 * kv_heads) * 128).to(torch.bfloat16)
    positions = torch.randint(0, 4096, (tokens,))
    q, k, v = qkv.split([heads * 128, kv_heads * 128, kv_heads * 128], dim=-1)
    cos, sin = rotary.cos[positions].float().unsqueeze(1), rotary.sin[positions].float().unsqueeze(1)

    def rotated(x, count):
        x = x.float().reshape(tokens, count, 128)
        return (x * cos + torch.cat([-x[..., 64:], x[..., :64]], dim=-1) * sin).reshape(tokens, -1)

    expected_q, expected_k, expected_v = rotated(q, heads), rotated(k, kv_heads), v.clone()
    assert rotary.rotate_in_place(positions, qkv, heads + kv_heads)
    assert_rounded_from(q, expected_q)
    assert_rounded_from(k, expected_k)
    assert torch.equal(v, expected_v)


@pytest.mark.parametrize("tokens", [1, 37])
def test_silu_and_mul(tokens):
    gate_up = (6 * torch.randn(tokens, 2 * 4864)).to(torch.bfloat16)
    gate_up[0, :4] = torch.tensor([-100.0, -30.0, 0.0, 90.0])  # underflow, far tails, zero
    gate, up = gate_up.float().split(4864, dim=-1)
    assert_rounded_from(pointwise.silu_and_mul(gate_up), torch.nn.functional.silu(gate) * up)
