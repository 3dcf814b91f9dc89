"""Weights kept as the GGUF stores them (its quantized blocks), and the matmul and lookup on them.

A Q4_K_M file is ~4.8 bits a weight: decode, which streams every weight once per step, reads
a third of a bf16 copy's bytes and no copy is made at all (the blocks are views of the memory-
mapped file). The C kernels (`gguf_matmul.c`) dot the blocks with int8-quantized activations,
as llama.cpp does, so the model is exact to the file.

Long prefill chunks are compute-bound instead, and there oneDNN's bf16 GEMM is several times faster
than our int8 one: from `DENSE_MIN_ROWS` rows on, the weight is dequantized into a scratch matrix
shared by all layers (one weight at a time, so no copy of the model is kept) and multiplied in bf16.
"""
from __future__ import annotations

import ctypes
import logging
from dataclasses import dataclass
from functools import cache

import numpy as np
import torch
import torch.nn.functional as F
from gguf import GGMLQuantizationType
from gguf.quants import dequantize

from llm_backend.layers.native import native_function

KERNEL_TYPES = (GGMLQuantizationType.Q4_1, GGMLQuantizationType.Q5_0, GGMLQuantizationType.Q8_0,
                GGMLQuantizationType.Q4_K, GGMLQuantizationType.Q6_K)
_POINTER, _INT64, _INT = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
# From here a step's matmul dequantizes the weight and runs oneDNN bf16 (see the module docstring).
# A 1.5B layer's qkv, gate/up and two downs, dense / int8 time: 2.25 at 16 rows, 0.95 at 32, 0.65
# at 48, 0.45 at 256 (dequantizing all four costs ~5 ms).
DENSE_MIN_ROWS = 40

log = logging.getLogger(__name__)


@dataclass
class QuantizedTensor:
    """A 2-d GGUF tensor as stored: `blocks` [rows, bytes per row] of ggml type `qtype`."""

    qtype: GGMLQuantizationType
    blocks: torch.Tensor  # uint8
    columns: int

    @property
    def rows(self) -> int:
        return self.blocks.shape[0]

    def dequantize(self) -> torch.Tensor:
        """The fp32 [rows, columns] these blocks stand for (gguf's reference dequantization)."""
        return torch.from_numpy(dequantize(self.blocks.numpy(), self.qtype).astype(np.float32, copy=False))


def _matmul_kernel() -> ctypes._CFuncPtr | None:
    return native_function("gguf_matmul", (_POINTER, _INT, _INT64, _INT64, _POINTER, _POINTER, _POINTER, _INT64,
                                           _POINTER, _POINTER, _INT, _INT), source="gguf_matmul")


def _lookup_kernel() -> ctypes._CFuncPtr | None:
    return native_function("gguf_dequantize_rows", (_INT64, _POINTER, _POINTER, _INT64, _INT64, _POINTER, _INT),
                           source="gguf_matmul")


def _dequantize_kernel() -> ctypes._CFuncPtr | None:
    return native_function("gguf_dequantize_matrix", (_INT64, _POINTER, _INT64, _INT64, _POINTER, _INT),
                           source="gguf_matmul")


_scratch = torch.empty(0, dtype=torch.bfloat16)  # the dense weight of the matmul running now


@cache
def gguf_kernels_available() -> bool:
    """Whether the block kernels build here (gcc and AVX2); warns once when they lack VNNI."""
    if _matmul_kernel() is None:
        return False
    if not native_function("gguf_kernel_vnni", (), source="gguf_matmul", restype=ctypes.c_int)():
        log.warning("this CPU has no AVX-512 VNNI (or AVX-VNNI): the GGUF block kernels use AVX2, a slower path")
    return True


class BlockWeight:
    """A matmul weight [N, K] made of row segments of blocks, e.g. q, k and v of different types."""

    def __init__(self, parts: list[QuantizedTensor], bias: torch.Tensor | None) -> None:
        if len({part.columns for part in parts}) != 1:
            raise ValueError("the parts of a fused weight need the same input size")
        self.parts = parts  # the pointers below point into these
        self.in_features = parts[0].columns
        self.out_features = sum(part.rows for part in parts)
        count = len(parts)
        self._types = (_INT64 * count)(*(int(part.qtype) for part in parts))
        self._blocks = (_POINTER * count)(*(part.blocks.data_ptr() for part in parts))
        self._rows = (_INT64 * count)(*(part.rows for part in parts))
        self._bias = None if bias is None else bias.detach().float().contiguous()

    def matmul(self, x: torch.Tensor, out_dtype: torch.dtype) -> torch.Tensor:
        """x [M, K] (bf16 or fp32) @ weight.T (+ bias) -> [M, N] of `out_dtype` (bf16 or fp32)."""
        if x.shape[0] >= DENSE_MIN_ROWS:
            bias = None if self._bias is None else self._bias.to(torch.bfloat16)
            return F.linear(x.to(torch.bfloat16), self._dense(), bias).to(out_dtype)
        x = x.contiguous()
        out = torch.empty(x.shape[0], self.out_features, dtype=out_dtype)
        bias = 0 if self._bias is None else self._bias.data_ptr()
        _matmul_kernel()(x.data_ptr(), int(x.dtype == torch.bfloat16), x.shape[0], self.in_features,
                         ctypes.addressof(self._types), ctypes.addressof(self._blocks), ctypes.addressof(self._rows),
                         len(self.parts), bias, out.data_ptr(), int(out_dtype == torch.bfloat16),
                         torch.get_num_threads())
        return out

    def _dense(self) -> torch.Tensor:
        """The weight [N, K] in bf16, in the shared scratch matrix (valid until the next call)."""
        global _scratch
        if _scratch.numel() < self.out_features * self.in_features:
            _scratch = torch.empty(self.out_features * self.in_features, dtype=torch.bfloat16)
        dense = _scratch[:self.out_features * self.in_features].view(self.out_features, self.in_features)
        first = 0
        for part in self.parts:
            _dequantize_kernel()(int(part.qtype), part.blocks.data_ptr(), part.rows, part.columns,
                                 dense[first].data_ptr(), torch.get_num_threads())
            first += part.rows
        return dense


def lookup_rows(tensor: QuantizedTensor, ids: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Rows `ids` of `tensor`, dequantized to `dtype` (bf16 or fp32): the embedding lookup."""
    ids = ids.contiguous()
    out = torch.empty(*ids.shape, tensor.columns, dtype=dtype)
    _lookup_kernel()(int(tensor.qtype), tensor.blocks.data_ptr(), ids.data_ptr(), ids.numel(), tensor.columns,
                     out.data_ptr(), int(dtype == torch.bfloat16))
    return out
