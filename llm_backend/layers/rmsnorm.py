"""Root-mean-square layer norm, computed in fp32 like the reference implementations.

With `residual`, the norm also does the layer's residual add first (vLLM's fused_add_rms_norm):
residual += x, then the norm of the sum; bf16 on CPU runs both as one call of `pointwise.c`.
"""
from __future__ import annotations

import torch
from torch import nn

from llm_backend.layers import pointwise


class RMSNorm(nn.Module):
    def __init__(self, size: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(size))

    def forward(self, x: torch.Tensor, residual: torch.Tensor | None = None
                ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """norm(x); with `residual`: (norm(residual + x), residual + x), the sum made in place."""
        if pointwise.fused(x, self.weight) and (residual is None or pointwise.fused(residual)):
            if residual is None:
                return pointwise.add_rms_norm(x, None, self.weight, self.eps)  # x is only read
            return pointwise.add_rms_norm(residual, x, self.weight, self.eps), residual
        if residual is None:
            return self._norm(x)
        residual += x
        return self._norm(residual), residual

    def _norm(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)
