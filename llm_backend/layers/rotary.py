"""Rotary position embedding (the "rotate half" layout of Hugging Face checkpoints).

cos/sin for every position are computed once, so a step only indexes a table. bf16 on CPU
rotates q and k in place in the fused q/k/v output, one call of `pointwise.c` per layer.
"""
from __future__ import annotations

import torch

from llm_backend.layers import pointwise


class RotaryEmbedding:
    def __init__(self, head_dim: int, max_positions: int, theta: float, dtype: torch.dtype,
                 device: torch.device) -> None:
        inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
        freqs = torch.outer(torch.arange(max_positions, dtype=torch.float32), inv_freq)
        angles = torch.cat([freqs, freqs], dim=-1)
        self.cos = angles.cos().to(dtype=dtype, device=device)
        self.sin = angles.sin().to(dtype=dtype, device=device)

    def rotate_in_place(self, positions: torch.Tensor, qkv: torch.Tensor, heads: int) -> bool:
        """Rotate the first `heads` heads (q's, then k's) of each row of qkv [T, ...] in place, if
        the fused kernel takes it; False (nothing done) otherwise."""
        if not pointwise.fused(qkv, self.cos, multiple=16) or positions.dtype != torch.int64:
            return False
        pointwise.rotary_(qkv, positions.contiguous(), heads, self.cos.shape[-1], self.cos, self.sin)
        return True

    def __call__(self, positions: torch.Tensor, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Rotate q [T, Hq, D] and k [T, Hkv, D] by the angles of `positions` [T]."""
        cos = self.cos[positions].unsqueeze(1)
        sin = self.sin[positions].unsqueeze(1)
        return q * cos + _rotate_half(q) * sin, k * cos + _rotate_half(k) * sin


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)
