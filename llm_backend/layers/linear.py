"""A linear layer whose weight is re-laid out once for fast CPU inference.

With the `gguf` weight format (the default for GGUF models) the layer runs on the file's own
quantized blocks (`gguf_weight`), for every step size, and keeps no dense weight at all.
Otherwise bf16 weights are kept in oneDNN's blocked layout: with a plain [out, in] weight, oneDNN
re-packs the weight on every bf16 call; packing it once at load time made decode matmuls
~1.6x faster on an AVX-512 CPU. oneDNN packs bf16 only where it multiplies bf16 natively
(`cpu_features.native_bf16_gemm`); elsewhere the weight stays plain and `F.linear` takes it. With the `int8` weight format the layer also keeps a groupwise
int8 copy (`weight_quant`), which serves steps of at most `INT8_MAX_ROWS` rows (decode, short
jump-forward chunks): there the matmul streams weights and int8 halves the bytes. Larger
steps (prefill, large decode batches) are compute-bound and stay on oneDNN's bf16 kernel.
"""
from __future__ import annotations

import logging

import torch
import torch.nn.functional as F
from torch import nn

from llm_backend.layers.gguf_weight import BlockWeight, QuantizedTensor, gguf_kernels_available
from llm_backend.layers.cpu_features import native_bf16_gemm
from llm_backend.layers.weight_quant import GROUP_SIZE, Int8GroupWeight, int8_kernel, quantize_int8_groupwise

# oneDNN picks its blocking for this batch size; decode batches are around it.
PACKING_BATCH_HINT = 8
# Up to here the int8 kernel beats oneDNN bf16 on this CPU (the five matmuls of a Qwen 1.5B layer:
# 1.3 vs 3.6 ms at 1 row, 3.4 vs 4.4 ms at 8; about even at 10-12 rows, slower from there).
INT8_MAX_ROWS = 8
WEIGHT_FORMATS = ("auto", "gguf", "bf16", "int8")

log = logging.getLogger(__name__)


def gguf_blocks_usable(weight_format: str, device: torch.device, dtype: torch.dtype) -> bool:
    """Whether a GGUF checkpoint should be loaded with its blocks kept (formats `auto` and `gguf`)."""
    if weight_format not in ("auto", "gguf") or device.type != "cpu" or dtype not in (torch.bfloat16, torch.float32):
        return False
    if gguf_kernels_available():
        return True
    log.warning("the GGUF block kernels cannot be built here (they need gcc and AVX2): the weights are "
                "dequantized to %s instead, which takes about 3x the memory and decodes slower", dtype)
    return False


def resolve_weight_format(weight_format: str, device: torch.device, dtype: torch.dtype,
                          has_blocks: bool = False) -> str:
    """`auto` -> `gguf` for a checkpoint that kept its GGUF blocks, else `int8` for bf16 on a CPU
    that can build the int8 kernel, else `bf16`."""
    if weight_format not in WEIGHT_FORMATS:
        raise ValueError(f"unknown weight format {weight_format!r}; choose from {', '.join(WEIGHT_FORMATS)}")
    if weight_format == "gguf" and not has_blocks:
        raise ValueError("weight format gguf needs a GGUF model on a CPU with AVX2 and gcc (bf16 or fp32)")
    if has_blocks and weight_format in ("auto", "gguf"):
        return "gguf"
    usable = device.type == "cpu" and dtype == torch.bfloat16 and int8_kernel() is not None
    if weight_format == "int8" and not usable:
        raise ValueError("weight format int8 needs bf16 on a CPU with AVX-512 VNNI and gcc")
    if weight_format == "auto":
        return "int8" if usable else "bf16"
    return weight_format


class Linear(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = False) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features)) if bias else None
        self._packed: torch.Tensor | None = None
        self._int8: Int8GroupWeight | None = None
        self._gguf_parts: list[QuantizedTensor] | None = None
        self._blocks: BlockWeight | None = None

    def use_blocks(self, parts: list[QuantizedTensor]) -> None:
        """Run on these GGUF blocks (fused in order along the outputs); the dense weight goes."""
        self._gguf_parts = parts
        self.weight.data = torch.empty(0, dtype=self.weight.dtype)

    def prepare_for_cpu(self, weight_format: str, release_weight: bool) -> None:
        """Pack a bf16 CPU weight for oneDNN (plus an int8 copy for `int8`); optionally drop the plain one.

        A no-op for other devices and dtypes, which keep the plain weight. A layer given GGUF blocks
        builds its block matmul here, once its bias is loaded.
        """
        if self._gguf_parts is not None:
            self._blocks = BlockWeight(self._gguf_parts, self.bias)
            return
        weight = self.weight.detach()
        if weight.device.type != "cpu" or weight.dtype != torch.bfloat16 or not torch.backends.mkldnn.is_available():
            return
        if weight_format == "int8" and weight.shape[1] % GROUP_SIZE == 0:  # else this layer stays bf16
            self._int8 = quantize_int8_groupwise(weight)
        if not native_bf16_gemm():
            return
        self._packed = torch.ops.mkldnn._reorder_linear_weight(weight, PACKING_BATCH_HINT)
        if release_weight:
            self.weight.data = torch.empty(0, dtype=weight.dtype)

    def forward(self, x: torch.Tensor, out_dtype: torch.dtype | None = None) -> torch.Tensor:
        """x @ weight.T + bias, in `out_dtype` if given (the LM head asks for fp32 logits)."""
        if self._blocks is not None:
            return self._blocks.matmul(x, out_dtype or x.dtype)
        out = self._dense_forward(x)
        return out if out_dtype is None else out.to(out_dtype)

    def _dense_forward(self, x: torch.Tensor) -> torch.Tensor:
        if self._int8 is not None and x.shape[0] <= INT8_MAX_ROWS:
            out = self._int8.matmul(x)
            return out if self.bias is None else out + self.bias
        if self._packed is not None:
            return torch.ops.mkldnn._linear_pointwise(x, self._packed, self.bias, "none", [], "")
        return F.linear(x, self.weight, self.bias)
