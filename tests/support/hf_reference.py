"""The same weights in Hugging Face transformers' own implementation.

The reference our model is checked against (tests) and the plain `generate` baseline
(bench). transformers is already a backend dependency.
"""
from __future__ import annotations

import torch

from llm_backend.weights.model_config import ModelConfig


def build_hf_model(config: ModelConfig, tensors: dict[str, torch.Tensor], dtype: torch.dtype) -> torch.nn.Module:
    """A transformers CausalLM with `tensors` loaded, in `dtype`, that never stops at EOS."""
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    common = dict(vocab_size=config.vocab_size, hidden_size=config.hidden_size,
                  intermediate_size=config.intermediate_size, num_hidden_layers=config.num_hidden_layers,
                  num_attention_heads=config.num_attention_heads, num_key_value_heads=config.num_key_value_heads,
                  head_dim=config.head_dim, max_position_embeddings=config.max_position_embeddings,
                  rope_theta=config.rope_theta, rms_norm_eps=config.rms_norm_eps,
                  tie_word_embeddings=config.tie_word_embeddings, bos_token_id=config.bos_token_id,
                  eos_token_id=None)  # generate() then always runs to max_new_tokens
    if config.architecture == "qwen2":
        model = Qwen2ForCausalLM(Qwen2Config(**common))
    elif config.architecture == "llama":
        model = LlamaForCausalLM(LlamaConfig(attention_bias=config.attention_bias, **common))
    else:
        raise ValueError(f"no transformers reference wired for {config.architecture!r}")
    model = model.to(dtype)
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    if unexpected or not set(missing) <= {"lm_head.weight"}:
        raise ValueError(f"checkpoint does not fit transformers' model: missing {missing}, unexpected {unexpected}")
    if config.tie_word_embeddings:
        model.tie_weights()
    return model.eval()
