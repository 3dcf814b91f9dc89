"""The int8 decode weights: the C kernel, the layer that routes to it, and the engine's accuracy."""
from __future__ import annotations

import pytest
import torch

from engine_helpers import CHAT_PROMPTS, chat_prompt_ids, greedy_decode
from llm_backend.layers.linear import INT8_MAX_ROWS, Linear, resolve_weight_format
from llm_backend.layers.weight_quant import (GROUP_SIZE, Int8GroupWeight, deinterleave_groups, int8_kernel,
                                             interleave_groups, quantize_int8_groupwise)

needs_kernel = pytest.mark.skipif(int8_kernel() is None, reason="no gcc or no AVX-512 VNNI: the int8 kernel cannot run")
CPU = torch.device("cpu")
# Against fp32 on SmolLM2, measured: decode log-probabilities within 0.21 (exact bf16 weights: 0.17).
INT8_LOGPROB_ATOL = 0.3
# Two tokens whose log-probabilities each move by up to the tolerance can swap places when
# fp32 has them this close (measured: the closest swap was 0.41 apart).
NEAR_TIE = 2 * INT8_LOGPROB_ATOL


def quantized_activations(x: torch.Tensor) -> torch.Tensor:
    """What the kernel multiplies instead of x: int8 levels with one scale per group, as fp32."""
    groups = x.float().unflatten(-1, (-1, GROUP_SIZE))
    amax = groups.abs().amax(-1, keepdim=True)
    # Not `127 / amax`: torch computes that as 127 * (1 / amax), which rounds differently from C.
    inverse = torch.where(amax > 0, torch.full_like(amax, 127).div(amax), 0)
    return ((groups * inverse).round() * (amax / 127)).flatten(-2)


@needs_kernel
def test_quantization_error_is_within_half_a_step_per_group():
    weight = (torch.randn(70, 4 * GROUP_SIZE) * torch.logspace(-4, 1, 70).unsqueeze(1)).to(torch.bfloat16)
    weight[3, :GROUP_SIZE] = 0  # an all-zero group must not divide by zero
    quantized = quantize_int8_groupwise(weight)
    step = quantized.scales.float().repeat_interleave(GROUP_SIZE, dim=-1)
    assert ((quantized.dequantize() - weight.float()).abs() <= step / 2 + 1e-12).all()
    assert (quantized.dequantize()[3, :GROUP_SIZE] == 0).all()


def test_interleaving_is_undone_exactly():
    values = torch.randint(-127, 128, (3, 21 * GROUP_SIZE), dtype=torch.int8)  # a full block and a short one
    interleaved = interleave_groups(values)
    assert not torch.equal(interleaved, values)
    # In a block of 16 groups, bytes 4-7 of the layout are the first 4 bytes of the second group.
    assert torch.equal(interleaved[:, 4:8], values[:, GROUP_SIZE:GROUP_SIZE + 4])
    assert torch.equal(deinterleave_groups(interleaved), values)


@needs_kernel
@pytest.mark.parametrize("groups", [3, 16, 21])
@pytest.mark.parametrize("rows", [1, 2, 3, 4, 5, 9])
def test_kernel_equals_the_matmul_of_the_quantized_operands(rows, groups):
    """Up to fp32 summation order and the final bf16 rounding, for row counts below, at and above
    the kernel's row block, and rows of a short block, a full one, and a full one plus a short one."""
    torch.manual_seed(rows)
    quantized = quantize_int8_groupwise(torch.randn(37, groups * GROUP_SIZE, dtype=torch.bfloat16))
    x = torch.randn(rows, groups * GROUP_SIZE, dtype=torch.bfloat16)
    x[0, :GROUP_SIZE] = 0  # an all-zero activation group must not divide by zero
    expected = quantized_activations(x) @ quantized.dequantize().t()
    torch.testing.assert_close(quantized.matmul(x).float(), expected, atol=1e-4, rtol=2 ** -8)


def test_input_size_must_be_a_multiple_of_the_group():
    with pytest.raises(ValueError, match="multiple of 32"):
        quantize_int8_groupwise(torch.zeros(4, 40, dtype=torch.bfloat16))


@needs_kernel
def test_linear_uses_int8_for_small_steps_and_bf16_for_large_ones():
    layer = Linear(64, 48, bias=True).to(torch.bfloat16)
    torch.nn.init.normal_(layer.weight)
    torch.nn.init.normal_(layer.bias)
    exact = layer.weight.detach().float().clone()
    layer.prepare_for_cpu("int8", release_weight=True)
    for rows in (1, INT8_MAX_ROWS, INT8_MAX_ROWS + 1, 16):
        x = torch.randn(rows, 64, dtype=torch.bfloat16)
        reference = x.float() @ exact.t() + layer.bias.float()
        int8_reference = quantized_activations(x) @ layer._int8.dequantize().t() + layer.bias.float()
        out = layer(x).float()
        if rows <= INT8_MAX_ROWS:  # int8 operands: matches their matmul, not the exact one
            torch.testing.assert_close(out, int8_reference, atol=0.1, rtol=0.01)
        torch.testing.assert_close(out, reference, atol=0.5, rtol=0.02)


@needs_kernel
def test_a_layer_whose_input_is_not_a_multiple_of_the_group_stays_bf16():
    layer = Linear(40, 8).to(torch.bfloat16)
    layer.prepare_for_cpu("int8", release_weight=True)
    assert layer._int8 is None and layer._packed is not None
    assert layer(torch.ones(1, 40, dtype=torch.bfloat16)).shape == (1, 8)


def test_weight_format_resolution():
    assert resolve_weight_format("auto", CPU, torch.float32) == "bf16"
    assert resolve_weight_format("bf16", CPU, torch.bfloat16) == "bf16"
    with pytest.raises(ValueError, match="unknown weight format"):
        resolve_weight_format("int3", CPU, torch.bfloat16)
    with pytest.raises(ValueError, match="int8 needs bf16"):
        resolve_weight_format("int8", CPU, torch.float32)


@needs_kernel
def test_auto_picks_int8_for_bf16_on_this_cpu():
    assert resolve_weight_format("auto", CPU, torch.bfloat16) == "int8"


@needs_kernel
def test_int8_decode_follows_the_fp32_model(make_engine, monkeypatch):
    """On SmolLM2, the int8 decode path's greedy tokens and log-probabilities follow fp32's.

    Tokens may differ only where fp32 itself had a near tie (the exact bf16 weights flip
    such ties too); up to there, log-probabilities agree within `INT8_LOGPROB_ATOL`.
    """
    fp32, fast = make_engine(), make_engine(dtype="bfloat16")
    calls = []
    original = Int8GroupWeight.matmul
    monkeypatch.setattr(Int8GroupWeight, "matmul", lambda self, x: calls.append(x.shape[0]) or original(self, x))
    num_tokens, questions = 16, CHAT_PROMPTS[:4]
    for question in questions:
        prompt = chat_prompt_ids(fp32.tokenizer, question)
        reference = greedy_decode(fp32, prompt, num_tokens, top=5)
        for (token, logprob, _), (ref_token, ref_logprob, ref_top) in zip(greedy_decode(fast, prompt, num_tokens, 0),
                                                                        reference):
            if token != ref_token:
                assert ref_logprob - ref_top.get(token, float("-inf")) <= NEAR_TIE, question
                break
            assert logprob == pytest.approx(ref_logprob, abs=INT8_LOGPROB_ATOL), question
    decode_steps = len(questions) * (num_tokens - 1)
    assert calls.count(1) >= decode_steps * (4 * fast.model_config.num_hidden_layers + 1)  # all decode matmuls
