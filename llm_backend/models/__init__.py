"""Model definitions. One Llama-family decoder covers every supported architecture."""
from __future__ import annotations

import torch

from llm_backend.layers.gguf_weight import QuantizedTensor
from llm_backend.models.llama import LlamaForCausalLM
from llm_backend.weights.model_config import ModelConfig

SUPPORTED_ARCHITECTURES = ("llama", "qwen2", "qwen3")


def build_model(config: ModelConfig, tensors: dict[str, torch.Tensor | QuantizedTensor], dtype: torch.dtype,
                device: torch.device, max_positions: int, weight_format: str = "bf16") -> LlamaForCausalLM:
    """Instantiate the model for `config` without random init, then load `tensors` into it.

    `weight_format` (`gguf`, `bf16` or `int8`, see layers/linear.py) is how CPU matmul weights are kept:
    `gguf` keeps the checkpoint's GGUF blocks as they are.
    """
    if config.architecture not in SUPPORTED_ARCHITECTURES:
        raise ValueError(f"unsupported architecture {config.architecture!r}; "
                         f"supported: {', '.join(SUPPORTED_ARCHITECTURES)}")
    with torch.device("meta"):
        model = LlamaForCausalLM(config).to(dtype)
    model = model.to_empty(device=device)
    model.load_weights(tensors, keep_blocks=weight_format == "gguf")
    model.init_rotary(max_positions)
    model.prepare_for_cpu(weight_format)
    return model.eval().requires_grad_(False)
