"""The int8 decode weights: the C kernel, the layer that routes to it, and the engine's accuracy."""
from __future__ import annotations

import pytest
import torch

from engine_helpers import CHAT_PROMPTS, chat_prompt_ids
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.layers.linear import INT8_MAX_ROWS, Linear, resolve_weight_format
from llm_backend.layers.weight_quant import GROUP_SIZE, Int8GroupWeight, int8_kernel, quantize_int8_groupwise

needs_kernel = pytest.mark.skipif(int8_kernel() is None, reason="no gcc or no AVX-512: the int8 kernel cannot run")
CPU = torch.device("cpu")
# Decode log-probability gap to fp32, up to the first differing greedy token (bf16 alone: ~0.13).
INT8_LOGPROB_ATOL = 0.3


def dequantized(weight: Int8GroupWeight) -> torch.Tensor:
    scales = weight.scales.float().repeat_interleave(GROUP_SIZE, dim=-1)
    return weight.values.float() * scales


@needs_kernel
def test_quantization_error_is_within_half_a_step_per_group():
    weight = (torch.randn(70, 4 * GROUP_SIZE) * torch.logspace(-4, 1, 70).unsqueeze(1)).to(torch.bfloat16)
    weight[3, :GROUP_SIZE] = 0  # an all-zero group must not divide by zero
    quantized = quantize_int8_groupwise(weight)
    step = quantized.scales.float().repeat_interleave(GROUP_SIZE, dim=-1)
    assert ((dequantized(quantized) - weight.float()).abs() <= step / 2 + 1e-12).all()
    assert (dequantized(quantized)[3, :GROUP_SIZE] == 0).all()


@needs_kernel
@pytest.mark.parametrize("rows", [1, 2, 3, 4, 5, 9])
def test_kernel_equals_the_dequantized_matmul(rows):
    """Exact up to the final bf16 rounding, for row counts below, at and above the kernel's row block."""
    torch.manual_seed(rows)
    quantized = quantize_int8_groupwise(torch.randn(37, 3 * GROUP_SIZE, dtype=torch.bfloat16))
    x = torch.randn(rows, 3 * GROUP_SIZE, dtype=torch.bfloat16)
    expected = (x.float() @ dequantized(quantized).t()).to(torch.bfloat16)
    torch.testing.assert_close(quantized.matmul(x), expected, atol=0, rtol=0)


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
        int8_reference = x.float() @ dequantized(layer._int8).t() + layer.bias.float()
        out = layer(x).float()
        if rows <= INT8_MAX_ROWS:  # int8 weights: matches the dequantized weight, not the exact one
            torch.testing.assert_close(out, int8_reference, atol=0.1, rtol=0.01)
        torch.testing.assert_close(out, reference, atol=0.5, rtol=0.02)


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


def greedy_decode(engine, prompt: list[int], num_tokens: int) -> tuple[list[int], list[float]]:
    """Greedy tokens and their decode log-probabilities."""
    engine.add_request("r", prompt, SamplingParams(max_tokens=num_tokens, temperature=0, ignore_eos=True, logprobs=0))
    outputs = []
    while engine.has_unfinished_requests():
        outputs += engine.step()
    return [o.new_token_ids[0] for o in outputs], [o.logprobs[0].logprob for o in outputs]


def agreement(candidate, reference) -> tuple[int, float]:
    """Tokens agreeing before the first difference, and the largest log-probability gap up to it."""
    tokens, logprobs = candidate
    ref_tokens, ref_logprobs = reference
    agreed = next((i for i, (a, b) in enumerate(zip(tokens, ref_tokens)) if a != b), len(tokens))
    gaps = [abs(a - b) for a, b in zip(logprobs[:agreed + 1], ref_logprobs[:agreed + 1])]
    return agreed, max(gaps)


@needs_kernel
def test_int8_decode_is_as_close_to_fp32_as_bf16_decode(make_engine, monkeypatch):
    """On SmolLM2, int8 weights follow the fp32 model as well as the exact bf16 weights do.

    Measured (24 tokens, all 8 prompts): int8 matched fp32's greedy tokens on 7 prompts (bf16: 5),
    with decode log-probabilities within 0.21 (bf16: 0.13) up to the first differing token.
    """
    fp32 = make_engine()
    exact, fast = make_engine(dtype="bfloat16", weight_format="bf16"), make_engine(dtype="bfloat16")
    calls = []
    original = Int8GroupWeight.matmul
    monkeypatch.setattr(Int8GroupWeight, "matmul", lambda self, x: calls.append(x.shape[0]) or original(self, x))
    num_tokens, questions = 16, CHAT_PROMPTS[:4]
    exact_full = fast_full = 0
    for question in questions:
        prompt = chat_prompt_ids(fp32.tokenizer, question)
        reference = greedy_decode(fp32, prompt, num_tokens)
        exact_agreed, _ = agreement(greedy_decode(exact, prompt, num_tokens), reference)
        fast_agreed, fast_gap = agreement(greedy_decode(fast, prompt, num_tokens), reference)
        exact_full += exact_agreed == num_tokens
        fast_full += fast_agreed == num_tokens
        assert fast_gap <= INT8_LOGPROB_ATOL, question
    assert fast_full >= exact_full - 1
    decode_steps = len(questions) * (num_tokens - 1)
    assert calls.count(1) >= decode_steps * (4 * fast.model_config.num_hidden_layers + 1)  # all decode matmuls
