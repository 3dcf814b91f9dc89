"""Our model definition against Hugging Face transformers on the same weights."""
from __future__ import annotations

import logging

import pytest
import torch

from engine_helpers import CHAT_PROMPTS, QWEN_05B, chat_prompt_ids, hf_reference_model
from llm_backend.config import EngineConfig
from llm_backend.engine.llm_engine import LLMEngine
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.layers.attention_metadata import AttentionMetadata, PrefillChunk
from llm_backend.layers.cpu_features import native_bf16_gemm
from llm_backend.layers.linear import Linear
from llm_backend.weights import load_checkpoint
from tests.support.hf_reference import build_hf_model

# fp32 on both sides: differences come only from summation order (SDPA vs eager
# attention, fused vs separate projections). Logits are O(10); 1e-3 is far below the gaps
# that decide greedy tokens.
LOGITS_ATOL = 1e-3
NUM_GREEDY_TOKENS = 32


def all_position_logits(engine: LLMEngine, prompt: list[int]) -> torch.Tensor:
    """Our logits at every prompt position: one fresh prefill through the model's own forward."""
    runner = engine.model_runner
    n = len(prompt)
    meta = AttentionMetadata(slot_mapping=torch.arange(n), prefills=[PrefillChunk(start=0, length=n, context_len=n)])
    with torch.inference_mode():
        hidden = runner.model(torch.tensor(prompt), torch.arange(n), runner.kv_caches, meta)
        return runner.model.compute_logits(hidden).float()


def hf_greedy(hf_model, prompt: list[int], num_tokens: int) -> list[int]:
    with torch.inference_mode():
        out = hf_model.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                                max_new_tokens=num_tokens, do_sample=False)
    return out[0, len(prompt):].tolist()


def check_parity(engine: LLMEngine, hf_model, prompts: list[list[int]]) -> None:
    for prompt in prompts:
        with torch.inference_mode():
            expected = hf_model(torch.tensor([prompt])).logits[0].float()
        torch.testing.assert_close(all_position_logits(engine, prompt), expected, atol=LOGITS_ATOL, rtol=0)
    greedy = SamplingParams(max_tokens=NUM_GREEDY_TOKENS, temperature=0, ignore_eos=True)
    ours = engine.generate(prompts, greedy)
    for prompt, completion in zip(prompts, ours):
        assert completion.token_ids == hf_greedy(hf_model, prompt, NUM_GREEDY_TOKENS)


@pytest.fixture(scope="module")
def smollm_hf(smollm_checkpoint):
    return hf_reference_model(smollm_checkpoint)


def test_logits_and_greedy_tokens_match_transformers(make_engine, smollm_hf):
    engine = make_engine()
    prompts = [chat_prompt_ids(engine.tokenizer, q) for q in CHAT_PROMPTS[:3]]
    check_parity(engine, smollm_hf, prompts)


def test_decode_logprobs_match_transformers(make_engine, smollm_hf):
    """The decode path (attention through block tables) gives the same distribution as HF."""
    engine = make_engine(block_size=4)  # many blocks per sequence
    prompt = chat_prompt_ids(engine.tokenizer, CHAT_PROMPTS[1])
    engine.add_request("r", prompt, SamplingParams(max_tokens=12, temperature=0, logprobs=3, ignore_eos=True))
    outputs = []
    while engine.has_unfinished_requests():
        outputs += engine.step()
    tokens = prompt + [o.new_token_ids[0] for o in outputs]
    with torch.inference_mode():
        expected = torch.log_softmax(smollm_hf(torch.tensor([tokens])).logits[0].float(), dim=-1)
    for step, output in enumerate(outputs):
        row = expected[len(prompt) - 1 + step]
        entry = output.logprobs[0]
        assert entry.logprob == pytest.approx(row[entry.token_id].item(), abs=LOGITS_ATOL)
        assert [t for t, _, _ in entry.top] == row.topk(3).indices.tolist()


@pytest.mark.slow
def test_qwen_05b_matches_transformers():
    checkpoint = load_checkpoint(QWEN_05B, torch.float32)
    engine = LLMEngine(EngineConfig(model=QWEN_05B, dtype="float32", kv_cache_memory="256MiB"), checkpoint)
    prompts = [chat_prompt_ids(engine.tokenizer, q) for q in CHAT_PROMPTS[:2]]
    check_parity(engine, hf_reference_model(checkpoint), prompts)


def test_bf16_default_path_is_as_accurate_as_transformers_bf16(make_engine, smollm_checkpoint):
    """bf16 (oneDNN-packed weights where the CPU packs them, plain ones elsewhere) drifts from fp32 no
    more than HF's bf16 does."""
    fp32, bf16 = make_engine(), make_engine(dtype="bfloat16")
    packed = bf16.model_runner.model.layers[0].mlp.down_proj._packed is not None
    assert packed == native_bf16_gemm()
    prompt = chat_prompt_ids(fp32.tokenizer, CHAT_PROMPTS[6])
    exact, ours = all_position_logits(fp32, prompt), all_position_logits(bf16, prompt)
    hf_bf16 = build_hf_model(smollm_checkpoint.config, smollm_checkpoint.tensors, torch.bfloat16)
    with torch.inference_mode():
        theirs = hf_bf16(torch.tensor([prompt])).logits[0].float()
    assert (exact - ours).abs().mean() <= 1.5 * (exact - theirs).abs().mean()
    assert (exact.argmax(-1) == ours.argmax(-1)).float().mean() >= 0.9


def bf16_layer() -> tuple[Linear, torch.Tensor, torch.Tensor]:
    """A bf16 layer with bias, an input and the plain layer's output for it."""
    layer = Linear(64, 96, bias=True).to(torch.bfloat16)
    torch.nn.init.normal_(layer.weight)
    torch.nn.init.normal_(layer.bias)
    x = torch.randn(5, 64, dtype=torch.bfloat16)
    return layer, x, layer(x)


@pytest.mark.skipif(not native_bf16_gemm(), reason="oneDNN packs bf16 only with AVX-512 or AVX-NE-CONVERT")
def test_packed_linear_equals_plain_linear():
    layer, x, expected = bf16_layer()
    layer.prepare_for_cpu("bf16", release_weight=True)
    assert layer._packed is not None and layer.weight.numel() == 0
    torch.testing.assert_close(layer(x), expected)


def test_where_bf16_is_not_packed_the_layer_keeps_its_plain_weight(monkeypatch, caplog):
    """LLM_BACKEND_ISA=avx2 stands for a CPU without AVX-512: no packing, asked or not, and one warning."""
    monkeypatch.setenv("LLM_BACKEND_ISA", "avx2")
    native_bf16_gemm.cache_clear()
    try:
        layer, x, expected = bf16_layer()
        with caplog.at_level(logging.WARNING):
            layer.prepare_for_cpu("bf16", release_weight=True)
            bf16_layer()[0].prepare_for_cpu("bf16", release_weight=True)
        assert layer._packed is None and layer.weight.numel() == 64 * 96
        assert torch.equal(layer(x), expected)
        assert [r.getMessage() for r in caplog.records].count(
            "LLM_BACKEND_ISA=avx2: bf16 matmuls take the path of a CPU without AVX-512") == 1
    finally:
        native_bf16_gemm.cache_clear()
