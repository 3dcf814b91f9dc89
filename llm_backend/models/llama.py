"""The Llama-family decoder (Llama/SmolLM2, Qwen2 = Llama + qkv bias, Qwen3 = Llama + q/k norms).

It runs on a flat token batch [T] (all sequences of a step concatenated) and reads
past K/V through the paged cache. q/k/v and gate/up are fused into one matmul each; the
Hugging Face weights are concatenated into them by `load_weights`, or, for GGUF blocks kept
as stored, run as row segments of one matmul.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from llm_backend.layers import pointwise
from llm_backend.layers.attention import paged_attention, write_kv_cache
from llm_backend.layers.attention_metadata import AttentionMetadata
from llm_backend.layers.embedding import Embedding
from llm_backend.layers.gguf_weight import QuantizedTensor
from llm_backend.layers.linear import Linear
from llm_backend.layers.rmsnorm import RMSNorm
from llm_backend.layers.rotary import RotaryEmbedding
from llm_backend.weights.model_config import ModelConfig


class SelfAttention(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.num_kv_heads = config.num_key_value_heads
        self.head_dim = config.head_dim
        self.q_size = self.num_heads * self.head_dim
        self.kv_size = self.num_kv_heads * self.head_dim
        self.qkv_proj = Linear(config.hidden_size, self.q_size + 2 * self.kv_size, bias=config.attention_bias)
        self.o_proj = Linear(self.q_size, config.hidden_size, bias=False)
        self.qk_norm = config.architecture == "qwen3"
        if self.qk_norm:
            self.q_norm = RMSNorm(self.head_dim, config.rms_norm_eps)
            self.k_norm = RMSNorm(self.head_dim, config.rms_norm_eps)

    def forward(self, x: torch.Tensor, positions: torch.Tensor, rotary: RotaryEmbedding,
                kv_cache: tuple[torch.Tensor, torch.Tensor], meta: AttentionMetadata) -> torch.Tensor:
        qkv = self.qkv_proj(x)
        rotated = not self.qk_norm and rotary.rotate_in_place(positions, qkv, self.num_heads + self.num_kv_heads)
        q, k, v = qkv.split([self.q_size, self.kv_size, self.kv_size], dim=-1)
        q = q.view(-1, self.num_heads, self.head_dim)
        k = k.view(-1, self.num_kv_heads, self.head_dim)
        v = v.view(-1, self.num_kv_heads, self.head_dim)
        if self.qk_norm:
            q, k = self.q_norm(q), self.k_norm(k)
        if not rotated:
            q, k = rotary(positions, q, k)
        write_kv_cache(k, v, kv_cache[0], kv_cache[1], meta.slot_mapping)
        out = paged_attention(q, k, v, kv_cache[0], kv_cache[1], meta)
        return self.o_proj(out.flatten(1))


class GatedMLP(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.intermediate_size = config.intermediate_size
        self.gate_up_proj = Linear(config.hidden_size, 2 * config.intermediate_size, bias=False)
        self.down_proj = Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate_up = self.gate_up_proj(x)
        if pointwise.fused(gate_up, multiple=16):
            return self.down_proj(pointwise.silu_and_mul(gate_up))
        gate, up = gate_up.split(self.intermediate_size, dim=-1)
        return self.down_proj(F.silu(gate) * up)


class DecoderLayer(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = SelfAttention(config)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = GatedMLP(config)

    def forward(self, x: torch.Tensor, residual: torch.Tensor | None, positions: torch.Tensor,
                rotary: RotaryEmbedding, kv_cache: tuple[torch.Tensor, torch.Tensor],
                meta: AttentionMetadata) -> tuple[torch.Tensor, torch.Tensor]:
        """(this layer's output, the residual stream before it is added); layer 0 gets no residual.
        Each norm adds the output before it to the residual stream (vLLM's layout)."""
        if residual is None:
            x, residual = self.input_layernorm(x), x
        else:
            x, residual = self.input_layernorm(x, residual)
        x = self.self_attn(x, positions, rotary, kv_cache, meta)
        x, residual = self.post_attention_layernorm(x, residual)
        return self.mlp(x), residual


class LlamaForCausalLM(nn.Module):
    """Decoder-only LM. `forward` returns hidden states; `compute_logits` applies the LM head."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.embed_tokens = Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.lm_head = Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.embed_tokens.weight
        self.rotary: RotaryEmbedding | None = None

    def init_rotary(self, max_positions: int) -> None:
        """Precompute cos/sin once the weights sit on their final device and dtype."""
        weight = self.embed_tokens.weight
        self.rotary = RotaryEmbedding(self.config.head_dim, max_positions, self.config.rope_theta,
                                      weight.dtype, weight.device)

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor,
                kv_caches: list[tuple[torch.Tensor, torch.Tensor]], meta: AttentionMetadata) -> torch.Tensor:
        x, residual = self.embed_tokens(input_ids), None
        for layer, kv_cache in zip(self.layers, kv_caches):
            x, residual = layer(x, residual, positions, self.rotary, kv_cache, meta)
        return self.norm(x, residual)[0]

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden, out_dtype=torch.float32)

    def prepare_for_cpu(self, weight_format: str) -> None:
        """Re-lay out or quantize every matmul weight (bf16 on CPU only; a no-op elsewhere)."""
        for module in self.modules():
            if isinstance(module, Linear):
                shared_with_embedding = module.weight is self.embed_tokens.weight
                module.prepare_for_cpu(weight_format, release_weight=not shared_with_embedding)

    @torch.no_grad()
    def load_weights(self, tensors: dict[str, torch.Tensor | QuantizedTensor], keep_blocks: bool = False) -> None:
        """Copy a Hugging Face-named state dict in, fusing q/k/v and gate/up. Every parameter must be set.

        With `keep_blocks`, matmul weights and the embedding that are GGUF blocks stay blocks (a fused
        weight only when all its parts are); otherwise they are dequantized into the parameters.
        """
        if self.config.tie_word_embeddings:  # re-tie: moving off the meta device may have split them
            self.lm_head.weight = self.embed_tokens.weight
        params = dict(self.named_parameters())
        loaded: set[str] = set()

        def put(name: str, value: torch.Tensor) -> None:
            param = params[name]
            if param.shape != value.shape:
                raise ValueError(f"{name}: checkpoint shape {tuple(value.shape)} != model {tuple(param.shape)}")
            param.copy_(value)
            loaded.add(name)

        def put_weight(name: str, parts: list[torch.Tensor | QuantizedTensor]) -> None:
            """The weight of module `name`: blocks as they are, or dense (concatenated if fused)."""
            module = self.get_submodule(name)
            if keep_blocks and all(isinstance(part, QuantizedTensor) for part in parts):
                module.use_blocks(parts if isinstance(module, Linear) else parts[0])
                loaded.add(f"{name}.weight")
                return
            dense = [part.dequantize() if isinstance(part, QuantizedTensor) else part for part in parts]
            put(f"{name}.weight", torch.cat(dense) if len(dense) > 1 else dense[0])

        for name, param_name in _direct_names(self.config).items():
            if param_name.endswith("norm.weight"):
                put(param_name, tensors[name])
            else:
                put_weight(param_name.removesuffix(".weight"), [tensors[name]])
        if self.config.tie_word_embeddings and self.embed_tokens.blocks is not None:
            self.lm_head.use_blocks([self.embed_tokens.blocks])
        for i in range(self.config.num_hidden_layers):
            prefix = f"model.layers.{i}"
            attn = f"{prefix}.self_attn"
            put_weight(f"layers.{i}.self_attn.qkv_proj", [tensors[f"{attn}.{p}_proj.weight"] for p in "qkv"])
            if self.config.attention_bias:
                put(f"layers.{i}.self_attn.qkv_proj.bias",
                    torch.cat([tensors[f"{attn}.{p}_proj.bias"] for p in "qkv"]))
            put_weight(f"layers.{i}.mlp.gate_up_proj",
                       [tensors[f"{prefix}.mlp.gate_proj.weight"], tensors[f"{prefix}.mlp.up_proj.weight"]])
        missing = set(params) - loaded
        if missing:
            raise ValueError(f"checkpoint lacks {sorted(missing)[:5]}")


def _direct_names(config: ModelConfig) -> dict[str, str]:
    """Hugging Face name -> our parameter name for the tensors that map one to one."""
    names = {"model.embed_tokens.weight": "embed_tokens.weight", "model.norm.weight": "norm.weight"}
    if not config.tie_word_embeddings:
        names["lm_head.weight"] = "lm_head.weight"
    for i in range(config.num_hidden_layers):
        hf, ours = f"model.layers.{i}", f"layers.{i}"
        names[f"{hf}.self_attn.o_proj.weight"] = f"{ours}.self_attn.o_proj.weight"
        names[f"{hf}.mlp.down_proj.weight"] = f"{ours}.mlp.down_proj.weight"
        names[f"{hf}.input_layernorm.weight"] = f"{ours}.input_layernorm.weight"
        names[f"{hf}.post_attention_layernorm.weight"] = f"{ours}.post_attention_layernorm.weight"
        if config.architecture == "qwen3":
            names[f"{hf}.self_attn.q_norm.weight"] = f"{ours}.self_attn.q_norm.weight"
            names[f"{hf}.self_attn.k_norm.weight"] = f"{ours}.self_attn.k_norm.weight"
    return names
