"""A linear layer whose weight can be re-laid out once for oneDNN's CPU matmul.

With a plain [out, in] weight, oneDNN re-packs the weight on every bf16 call; packing it
once at load time made decode matmuls ~1.6x faster on this CPU (bench/serve_bench.py).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

# oneDNN picks its blocking for this batch size; decode batches are around it.
PACKING_BATCH_HINT = 8


class Linear(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = False) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features)) if bias else None
        self._packed: torch.Tensor | None = None

    def pack_for_cpu(self, release_weight: bool) -> None:
        """Keep a oneDNN-blocked copy for bf16 CPU inference; optionally drop the plain weight."""
        weight = self.weight
        if weight.device.type != "cpu" or weight.dtype != torch.bfloat16 or not torch.backends.mkldnn.is_available():
            return
        self._packed = torch.ops.mkldnn._reorder_linear_weight(weight.detach(), PACKING_BATCH_HINT)
        if release_weight:
            weight.data = torch.empty(0, dtype=weight.dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self._packed is not None:
            return torch.ops.mkldnn._linear_pointwise(x, self._packed, self.bias, "none", [], "")
        return F.linear(x, self.weight, self.bias)
