"""Weights kept as the GGUF stores them (its quantized blocks), and the matmul and lookup on them.

A Q4_K_M file is ~4.8 bits a weight: decode, which streams every weight once per step, reads
a third of a bf16 copy's bytes. The C kernels (`gguf_matmul.c`) dot the blocks with int8-quantized
activations, as llama.cpp does, so the model is exact to the file. Most weights are views of the
memory-mapped file; Q4_K and Q6_K weights are instead repacked once, with
8 rows interleaved (`gguf_interleaved.h`: the same bytes moved, so that one instruction serves
8 weight rows), and the file's pages they came from are dropped, so memory stays one copy.

Long prefill chunks are compute-bound instead, and where oneDNN multiplies bf16 natively (AVX-512) its
GEMM is several times faster than our int8 one: from `DENSE_MIN_ROWS` rows on, the weight is dequantized
into a scratch matrix shared by all layers (one weight at a time, so no copy of the model is kept) and
multiplied in bf16. Elsewhere (AVX2) bf16 GEMM is emulated and slower than the int8 kernel at any size.
"""
from __future__ import annotations

import ctypes
import logging
import mmap
from dataclasses import dataclass
from functools import cache

import numpy as np
import torch
import torch.nn.functional as F
from gguf import GGMLQuantizationType
from gguf.quants import dequantize

from llm_backend.layers.cpu_features import native_bf16_gemm
from llm_backend.layers.native import native_function

KERNEL_TYPES = (GGMLQuantizationType.Q4_1, GGMLQuantizationType.Q5_0, GGMLQuantizationType.Q8_0,
                GGMLQuantizationType.Q4_K, GGMLQuantizationType.Q6_K)
INTERLEAVED_TYPES = (GGMLQuantizationType.Q4_K, GGMLQuantizationType.Q6_K)
X8 = 0x100  # a segment's type id | X8: its rows are interleaved by 8 (X8 in gguf_interleaved.h)
MADV_DONTNEED = 4
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
    mapped: bool = False  # a view of a read-only file mapping: its pages can be dropped and read again

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


def _repack_kernel() -> ctypes._CFuncPtr | None:
    return native_function("gguf_repack_x8", (_INT64, _POINTER, _INT64, _INT64, _POINTER, _INT), source="gguf_matmul")


_scratch = torch.empty(0, dtype=torch.bfloat16)  # the dense weight of the matmul running now


@cache
def gguf_kernels_available() -> bool:
    """Whether the block kernels build here (gcc and AVX2); warns once when they lack VNNI or AVX-512."""
    if _matmul_kernel() is None:
        return False
    if not native_function("gguf_kernel_vnni", (), source="gguf_matmul", restype=ctypes.c_int)():
        log.warning("this CPU has no AVX-512 VNNI (or AVX-VNNI): the GGUF block kernels use AVX2, a slower path")
    return True


def interleaving_available() -> bool:
    """Whether Q4_K / Q6_K weights are repacked with 8 rows interleaved: wherever the kernels build
    (gguf_interleaved.h has AVX-512 and AVX2 kernels); a function so that the kernel bench can say no."""
    return _matmul_kernel() is not None


@dataclass
class _Segment:
    """Rows of a weight as the kernel takes them: `type_id` (a ggml type, | X8 if interleaved)."""

    type_id: int
    blocks: torch.Tensor  # uint8, the segment's bytes
    rows: int


def _segments(part: QuantizedTensor) -> list[_Segment]:
    """`part` as the kernel runs it: its first rows // 8 * 8 rows interleaved where the CPU has the
    kernels for it (the file's pages of those rows then dropped), the rest as stored."""
    grouped = part.rows // 8 * 8
    if part.qtype not in INTERLEAVED_TYPES or not grouped or not interleaving_available():
        return [_Segment(int(part.qtype), part.blocks, part.rows)]
    source = part.blocks[:grouped]
    group_bytes = native_function("gguf_x8_block_bytes", (_INT64,), source="gguf_matmul", restype=_INT64)
    repacked = torch.empty(grouped // 8 * (part.columns // 256) * group_bytes(int(part.qtype)), dtype=torch.uint8)
    _repack_kernel()(int(part.qtype), source.data_ptr(), grouped, part.columns, repacked.data_ptr(),
                     torch.get_num_threads())
    if part.mapped:
        _drop_pages(source)
    segments = [_Segment(int(part.qtype) | X8, repacked, grouped)]
    if grouped < part.rows:
        segments.append(_Segment(int(part.qtype), part.blocks[grouped:], part.rows - grouped))
    return segments


def _drop_pages(view: torch.Tensor) -> None:
    """Unmap the whole pages under `view` (a file mapping, never written): they leave the RSS, and
    a later read maps them from the file again."""
    start = -(-view.data_ptr() // mmap.PAGESIZE) * mmap.PAGESIZE
    end = (view.data_ptr() + view.numel()) // mmap.PAGESIZE * mmap.PAGESIZE
    if end > start:
        ctypes.CDLL(None).madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), MADV_DONTNEED)


class BlockWeight:
    """A matmul weight [N, K] made of row segments of blocks, e.g. q, k and v of different types."""

    def __init__(self, parts: list[QuantizedTensor], bias: torch.Tensor | None) -> None:
        if len({part.columns for part in parts}) != 1:
            raise ValueError("the parts of a fused weight need the same input size")
        self.in_features = parts[0].columns
        self.out_features = sum(part.rows for part in parts)
        self._segments = [segment for part in parts for segment in _segments(part)]  # the pointers point into these
        count = len(self._segments)
        self._types = (_INT64 * count)(*(segment.type_id for segment in self._segments))
        self._blocks = (_POINTER * count)(*(segment.blocks.data_ptr() for segment in self._segments))
        self._rows = (_INT64 * count)(*(segment.rows for segment in self._segments))
        self._bias = None if bias is None else bias.detach().float().contiguous()

    def matmul(self, x: torch.Tensor, out_dtype: torch.dtype) -> torch.Tensor:
        """x [M, K] (bf16 or fp32) @ weight.T (+ bias) -> [M, N] of `out_dtype` (bf16 or fp32)."""
        if x.shape[0] >= DENSE_MIN_ROWS and native_bf16_gemm():
            bias = None if self._bias is None else self._bias.to(torch.bfloat16)
            return F.linear(x.to(torch.bfloat16), self._dense(), bias).to(out_dtype)
        x = x.contiguous()
        out = torch.empty(x.shape[0], self.out_features, dtype=out_dtype)
        bias = 0 if self._bias is None else self._bias.data_ptr()
        _matmul_kernel()(x.data_ptr(), int(x.dtype == torch.bfloat16), x.shape[0], self.in_features,
                         ctypes.addressof(self._types), ctypes.addressof(self._blocks), ctypes.addressof(self._rows),
                         len(self._segments), bias, out.data_ptr(), int(out_dtype == torch.bfloat16),
                         torch.get_num_threads())
        return out

    def _dense(self) -> torch.Tensor:
        """The weight [N, K] in bf16, in the shared scratch matrix (valid until the next call)."""
        global _scratch
        if _scratch.numel() < self.out_features * self.in_features:
            _scratch = torch.empty(self.out_features * self.in_features, dtype=torch.bfloat16)
        dense = _scratch[:self.out_features * self.in_features].view(self.out_features, self.in_features)
        first = 0
        for segment in self._segments:
            _dequantize_kernel()(segment.type_id, segment.blocks.data_ptr(), segment.rows, self.in_features,
                                 dense[first].data_ptr(), torch.get_num_threads())
            first += segment.rows
        return dense


def lookup_rows(tensor: QuantizedTensor, ids: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Rows `ids` of `tensor`, dequantized to `dtype` (bf16 or fp32): the embedding lookup."""
    ids = ids.contiguous()
    out = torch.empty(*ids.shape, tensor.columns, dtype=dtype)
    _lookup_kernel()(int(tensor.qtype), tensor.blocks.data_ptr(), ids.data_ptr(), ids.numel(), tensor.columns,
                     out.data_ptr(), int(dtype == torch.bfloat16))
    return out
