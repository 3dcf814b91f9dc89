"""The architecture description shared by the weight loaders and the model definitions."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ModelConfig:
    """Hyper-parameters of a decoder-only transformer, named as in Hugging Face configs.

    Loaders (GGUF, safetensors) produce it; `llm_backend.models` consumes it. Tensors that
    accompany it use Hugging Face parameter names (``model.layers.0.self_attn.q_proj.weight``)
    so that our models and transformers' can load the very same state dict.
    """

    architecture: str  # "qwen2" | "llama" | "qwen3"
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    max_position_embeddings: int
    rope_theta: float
    rms_norm_eps: float
    tie_word_embeddings: bool
    attention_bias: bool  # qkv projections carry a bias (qwen2)
    bos_token_id: int | None = None
    eos_token_ids: tuple[int, ...] = field(default_factory=tuple)
    name: str = ""
