"""Hugging Face safetensors directories load into the same `Checkpoint` shape as GGUF files."""
from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file
from transformers import Qwen2Config, Qwen2ForCausalLM

from llm_backend.weights import load_checkpoint
from llm_backend.weights.safetensors_stream import write_safetensors


@pytest.fixture(scope="module")
def tiny_qwen_dir(tmp_path_factory):
    """A randomly initialised two-layer Qwen2 saved by transformers, with SmolLM2's tokenizer."""
    directory = tmp_path_factory.mktemp("tiny-qwen")
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=49152, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         rope_theta=5000.0, rms_norm_eps=1e-6, tie_word_embeddings=False,
                         bos_token_id=1, eos_token_id=2)
    model = Qwen2ForCausalLM(config)
    model.save_pretrained(directory)
    (directory / "generation_config.json").write_text(json.dumps({"eos_token_id": [2, 0]}))
    load_checkpoint("smollm2-135m-instruct").tokenizer.hf_tokenizer.save_pretrained(directory)
    return directory, model.state_dict()


def test_config_and_tensors_from_safetensors(tiny_qwen_dir):
    directory, state = tiny_qwen_dir
    checkpoint = load_checkpoint(str(directory), torch.bfloat16)
    config = checkpoint.config
    assert (config.architecture, config.hidden_size, config.num_hidden_layers) == ("qwen2", 64, 2)
    assert (config.num_attention_heads, config.num_key_value_heads, config.head_dim) == (4, 2, 16)
    assert config.rope_theta == 5000.0 and config.attention_bias and not config.tie_word_embeddings
    assert config.eos_token_ids == (2, 0)
    assert checkpoint.name == directory.name and checkpoint.path == directory.resolve()
    assert checkpoint.tensors.keys() == state.keys()
    for name, tensor in state.items():
        assert torch.equal(checkpoint.tensors[name], tensor.to(torch.bfloat16)), name
    assert checkpoint.tokenizer.decode(checkpoint.tokenizer.encode("雨 tomorrow")) == "雨 tomorrow"


def test_streamed_file_reads_back_and_rejects_out_of_layout_tensors(tmp_path):
    tensors = {"a": torch.randn(3, 5).to(torch.bfloat16), "b.bias": torch.randn(7).to(torch.bfloat16)}
    layout = [(name, tuple(t.shape)) for name, t in tensors.items()]
    path = tmp_path / "w.safetensors"
    write_safetensors(path, layout, torch.bfloat16, tensors.items())
    loaded = load_file(path)
    assert loaded.keys() == tensors.keys()
    assert all(torch.equal(loaded[name], tensor) for name, tensor in tensors.items())
    with pytest.raises(ValueError, match="does not follow the layout"):
        write_safetensors(path, layout[::-1], torch.bfloat16, tensors.items())
    with pytest.raises(ValueError, match="fewer tensors"):
        write_safetensors(path, layout, torch.bfloat16, list(tensors.items())[:1])
