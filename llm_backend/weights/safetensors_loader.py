"""Hugging Face model directories (config.json + *.safetensors) -> `ModelConfig` and a state dict."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open

from llm_backend.weights.model_config import ModelConfig

SUPPORTED_MODEL_TYPES = ("llama", "qwen2", "qwen3")


def load_safetensors_dir(model_dir: Path, dtype: torch.dtype,
                         name: str = "") -> tuple[ModelConfig, dict[str, torch.Tensor]]:
    """Read every ``*.safetensors`` shard of `model_dir`, casting tensor by tensor to `dtype`."""
    tensors: dict[str, torch.Tensor] = {}
    for shard in sorted(model_dir.glob("*.safetensors")):
        with safe_open(shard, framework="pt") as reader:
            for key in reader.keys():
                tensors[key] = reader.get_tensor(key).to(dtype)
    hf_config = json.loads((model_dir / "config.json").read_text())
    config = config_from_hf(hf_config, _generation_eos(model_dir), "lm_head.weight" in tensors,
                            name or model_dir.name)
    return config, tensors


def config_from_hf(hf_config: dict[str, Any], extra_eos: list[int], has_lm_head: bool, name: str) -> ModelConfig:
    """Translate a transformers ``config.json`` into our `ModelConfig`."""
    model_type = hf_config.get("model_type")
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise ValueError(f"model_type {model_type!r} is not supported (supported: {', '.join(SUPPORTED_MODEL_TYPES)})")
    heads = hf_config["num_attention_heads"]
    # transformers 5 moved rope_theta into rope_parameters; older configs have it at top level.
    rope_theta = hf_config.get("rope_theta") or (hf_config.get("rope_parameters") or {}).get("rope_theta", 10000.0)
    return ModelConfig(
        architecture=model_type,
        vocab_size=hf_config["vocab_size"],
        hidden_size=hf_config["hidden_size"],
        intermediate_size=hf_config["intermediate_size"],
        num_hidden_layers=hf_config["num_hidden_layers"],
        num_attention_heads=heads,
        num_key_value_heads=hf_config.get("num_key_value_heads") or heads,
        head_dim=hf_config.get("head_dim") or hf_config["hidden_size"] // heads,
        max_position_embeddings=hf_config.get("max_position_embeddings", 2048),
        rope_theta=float(rope_theta),
        rms_norm_eps=float(hf_config.get("rms_norm_eps", 1e-6)),
        tie_word_embeddings=bool(hf_config.get("tie_word_embeddings", not has_lm_head)),
        # Qwen2 always has q/k/v biases and its config does not say so.
        attention_bias=model_type == "qwen2" or bool(hf_config.get("attention_bias", False)),
        bos_token_id=hf_config.get("bos_token_id"),
        eos_token_ids=tuple(dict.fromkeys(_as_list(hf_config.get("eos_token_id")) + extra_eos)),
        name=name,
    )


def _generation_eos(model_dir: Path) -> list[int]:
    path = model_dir / "generation_config.json"
    return _as_list(json.loads(path.read_text()).get("eos_token_id")) if path.is_file() else []


def _as_list(value: int | list[int] | None) -> list[int]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]
