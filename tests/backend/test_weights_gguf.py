"""GGUF loading of the real SmolLM2 file: config, HF names and shapes, and the weights themselves.

The reference is transformers loading the same GGUF on its own (its own dequantization and Q/K
un-permutation), so a wrong permutation or name mapping changes the logits.
"""
from __future__ import annotations

import itertools
import shutil

import pytest
import torch
from gguf import GGUFReader
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM

from llm_backend.weights import load_checkpoint
from llm_backend.weights.derived_cache import derived_dir
from llm_backend.weights.gguf_loader import hf_parameter_name, iter_gguf_tensors, tensor_table

SMOLLM = "smollm2-135m-instruct"
QWEN_05B = "qwen2.5-coder-0.5b-instruct"
PROMPT = "The weather in Paris tomorrow will be sunny with a high of"


@pytest.fixture(scope="module")
def smollm_fp32(tmp_path_factory):
    """SmolLM2 dequantized now from a private copy of the GGUF, so no earlier cache is involved."""
    copy = tmp_path_factory.mktemp("cold") / "smollm.gguf"
    shutil.copyfile(load_checkpoint(SMOLLM).path, copy)
    return load_checkpoint(str(copy), torch.float32)


def test_smollm_config_from_metadata(smollm_fp32):
    config = smollm_fp32.config
    assert (config.architecture, config.vocab_size, config.hidden_size, config.intermediate_size) == \
        ("llama", 49152, 576, 1536)
    assert (config.num_hidden_layers, config.num_attention_heads, config.num_key_value_heads, config.head_dim) == \
        (30, 9, 3, 64)
    assert config.max_position_embeddings == 8192
    assert config.rope_theta == 100000.0
    assert config.rms_norm_eps == pytest.approx(1e-5)
    assert config.tie_word_embeddings and not config.attention_bias
    assert config.bos_token_id == 1
    assert 2 in config.eos_token_ids  # <|im_end|>


def llama_for(config) -> LlamaForCausalLM:
    return LlamaForCausalLM(LlamaConfig(
        vocab_size=config.vocab_size, hidden_size=config.hidden_size, intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_hidden_layers, num_attention_heads=config.num_attention_heads,
        num_key_value_heads=config.num_key_value_heads, head_dim=config.head_dim,
        max_position_embeddings=config.max_position_embeddings, rope_theta=config.rope_theta,
        rms_norm_eps=config.rms_norm_eps, tie_word_embeddings=config.tie_word_embeddings))


def test_tensors_load_strictly_into_transformers_llama(smollm_fp32):
    model = llama_for(smollm_fp32.config)
    tensors = dict(smollm_fp32.tensors)
    tensors["lm_head.weight"] = tensors["model.embed_tokens.weight"]  # tied: the state dict lists both
    model.load_state_dict(tensors, strict=True)
    assert all(t.dtype == torch.float32 for t in smollm_fp32.tensors.values())


def reference_and_ours(checkpoint):
    """Transformers' own GGUF load, and the same architecture holding our tensors."""
    path = checkpoint.path
    reference = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32)
    ours = AutoModelForCausalLM.from_config(reference.config, dtype=torch.float32)
    ours.load_state_dict(checkpoint.tensors, strict=False)
    if checkpoint.config.tie_word_embeddings:
        ours.tie_weights()
    return reference.eval(), ours.eval()


def assert_same_logits(checkpoint):
    reference, ours = reference_and_ours(checkpoint)
    ids = torch.tensor([checkpoint.tokenizer.encode(PROMPT)])
    with torch.no_grad():
        expected, actual = reference(ids).logits, ours(ids).logits
    # Same dequantized values in the same fp32 model: identical up to summation order.
    torch.testing.assert_close(actual, expected, atol=1e-4, rtol=1e-4)


def test_logits_match_transformers_gguf_loading(smollm_fp32):
    assert_same_logits(smollm_fp32)


@pytest.mark.slow
def test_qwen_logits_match_transformers_gguf_loading():
    checkpoint = load_checkpoint(QWEN_05B, torch.float32)
    assert checkpoint.config.architecture == "qwen2" and checkpoint.config.attention_bias
    assert_same_logits(checkpoint)


def test_bf16_is_the_fp32_weights_rounded(smollm_fp32):
    table = tensor_table(GGUFReader(smollm_fp32.path))
    first = itertools.islice(iter_gguf_tensors(smollm_fp32.path, table, smollm_fp32.config, torch.bfloat16), 12)
    for name, tensor in first:  # the embedding (Q8_0), norms (F32) and a layer's Q4_1 projections
        assert tensor.dtype == torch.bfloat16
        assert torch.equal(tensor, smollm_fp32.tensors[name].to(torch.bfloat16)), name


def test_warm_cache_equals_cold_load(smollm_fp32):
    cache = derived_dir(smollm_fp32.path)
    assert (cache / "weights-float32.safetensors").is_file()
    assert (cache / "tokenizer" / "tokenizer.json").is_file()
    warm = load_checkpoint(str(smollm_fp32.path), torch.float32)
    assert warm.name == smollm_fp32.name == "smollm"
    assert warm.config == smollm_fp32.config
    assert warm.tensors.keys() == smollm_fp32.tensors.keys()
    for name, tensor in smollm_fp32.tensors.items():
        assert torch.equal(warm.tensors[name], tensor), name
    assert warm.tokenizer.encode("北京 rain") == smollm_fp32.tokenizer.encode("北京 rain")


def test_store_name_loads_the_stored_file():
    checkpoint = load_checkpoint(SMOLLM, torch.bfloat16)
    assert checkpoint.name == SMOLLM and checkpoint.path.name == "model.gguf"
    assert checkpoint.config.name == SMOLLM


def test_replacing_the_gguf_invalidates_the_cache(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"one")
    (derived_dir(model) / "weights-float32.safetensors").write_bytes(b"stale")
    model.write_bytes(b"other")
    assert not (derived_dir(model) / "weights-float32.safetensors").exists()


def test_gguf_names_map_to_hf_names():
    assert hf_parameter_name("token_embd.weight") == "model.embed_tokens.weight"
    assert hf_parameter_name("blk.12.attn_k.bias") == "model.layers.12.self_attn.k_proj.bias"
    assert hf_parameter_name("blk.0.ffn_down.weight") == "model.layers.0.mlp.down_proj.weight"
    with pytest.raises(ValueError, match="blk.0.ffn_gate_exps.weight"):
        hf_parameter_name("blk.0.ffn_gate_exps.weight")
