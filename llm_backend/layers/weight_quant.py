"""int8 weights with one bf16 scale per 32 inputs, for memory-bound CPU decode.

Batch-1 decode streams every weight once per step, so it runs at the speed of memory:
int8 halves the bytes of bf16. One scale per group of 32 (the GGUF block size) keeps the
error far below the GGUF's own quantization: the 0.5B's Q5_0/Q6_K/Q8_0 weights are at most
8-bit per 32-weight block already, where one scale per output row was visibly lossy.
The matmul is our C kernel, `int8_group_matmul.c`; it quantizes the activations to int8 per
group of 32 as well (as llama.cpp's Q8 dot products do) and multiplies with AVX-512 VNNI,
which keeps its arithmetic below the memory time. Its weight rows are stored interleaved.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import torch

from llm_backend.layers.native import native_function

GROUP_SIZE = 32  # GROUP in int8_group_matmul.c
BLOCK_GROUPS = 16  # BLOCK_GROUPS there
INT8_LEVELS = 127
CHUNK_ELEMENTS = 1 << 22  # weights converted at a time: bounds the fp32 temporaries to ~16 MB


def int8_kernel() -> ctypes._CFuncPtr | None:
    """The C matmul, or None where it cannot be built (no gcc, no AVX-512 VNNI)."""
    return native_function("int8_group_matmul", (ctypes.c_void_p,) * 4 + (ctypes.c_int64,) * 3 + (ctypes.c_int,))


@dataclass
class Int8GroupWeight:
    values: torch.Tensor  # [N, K] int8, each row in the kernel's interleaved layout (`interleave_groups`)
    scales: torch.Tensor  # [N, K / GROUP_SIZE] bf16

    def dequantize(self) -> torch.Tensor:
        """The fp32 weight [N, K] these values and scales stand for."""
        return deinterleave_groups(self.values).float() * self.scales.float().repeat_interleave(GROUP_SIZE, dim=-1)

    def matmul(self, x: torch.Tensor) -> torch.Tensor:
        """bf16 x [M, K] @ weight.T -> bf16 [M, N]."""
        x = x.contiguous()
        rows, in_features = x.shape
        out_features = self.values.shape[0]
        out = torch.empty(rows, out_features, dtype=torch.bfloat16)
        int8_kernel()(x.data_ptr(), self.values.data_ptr(), self.scales.data_ptr(), out.data_ptr(), rows,
                      out_features, in_features, torch.get_num_threads())
        return out


def quantize_int8_groupwise(weight: torch.Tensor) -> Int8GroupWeight:
    """Symmetric 8-bit quantization of `weight` [N, K], one scale per `GROUP_SIZE` inputs."""
    out_features, in_features = weight.shape
    if in_features % GROUP_SIZE:
        raise ValueError(f"int8 weights need the input size ({in_features}) to be a multiple of {GROUP_SIZE}")
    values = torch.empty(out_features, in_features, dtype=torch.int8)
    scales = torch.empty(out_features, in_features // GROUP_SIZE, dtype=torch.bfloat16)
    rows_per_chunk = max(1, CHUNK_ELEMENTS // in_features)
    for start in range(0, out_features, rows_per_chunk):
        rows = slice(start, start + rows_per_chunk)
        groups = weight[rows].float().unflatten(-1, (-1, GROUP_SIZE))
        # Values are rounded against the bf16-rounded scale, so the scale's rounding costs nothing.
        scale = (groups.abs().amax(-1) / INT8_LEVELS).clamp_(min=torch.finfo(torch.bfloat16).tiny)
        scales[rows] = scale.to(torch.bfloat16)
        levels = (groups / scales[rows].float().unsqueeze(-1)).round_().clamp_(-INT8_LEVELS, INT8_LEVELS)
        values[rows] = interleave_groups(levels.flatten(-2).to(torch.int8))
    return Int8GroupWeight(values, scales)


def interleave_groups(values: torch.Tensor) -> torch.Tensor:
    """[N, K] -> the kernel's layout: per block of 16 groups, 4 bytes of each group in turn.

    Then one 64-byte load gives each of the kernel's 16 int32 lanes 4 bytes of its own group.
    """
    return _swap_block_axes(values, interleaved=False)


def deinterleave_groups(values: torch.Tensor) -> torch.Tensor:
    """The inverse of `interleave_groups`."""
    return _swap_block_axes(values, interleaved=True)


def _swap_block_axes(values: torch.Tensor, interleaved: bool) -> torch.Tensor:
    """Within each block: (group, step, 4 bytes) <-> (step, group, 4 bytes)."""
    rows, in_features = values.shape
    blocks = []
    for start in range(0, in_features, BLOCK_GROUPS * GROUP_SIZE):
        block = values[:, start:start + BLOCK_GROUPS * GROUP_SIZE]
        width = block.shape[1] // GROUP_SIZE
        shape = (rows, GROUP_SIZE // 4, width, 4) if interleaved else (rows, width, GROUP_SIZE // 4, 4)
        blocks.append(block.reshape(shape).transpose(1, 2).reshape(rows, -1))
    return torch.cat(blocks, dim=1)
