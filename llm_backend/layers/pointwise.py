"""The fused element-wise kernels of `pointwise.c` (residual add + RMSNorm, rotary, SiLU-and-mul).

Each takes contiguous bf16 CPU tensors whose rows are a multiple of 8 values (16 where a kernel
splits a row in halves: rotary's heads, SiLU-and-mul's gate | up); `fused(...)` says whether the
tensors qualify and the kernel builds here. Callers keep their torch code for the rest
(other dtypes and devices, no gcc), which computes the same in a few more roundings.
"""
from __future__ import annotations

import ctypes

import torch

from llm_backend.layers.native import load_library, native_function

_POINTER, _INT64, _INT, _FLOAT = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_float
_ARGUMENTS = {"add_rms_norm": (_POINTER,) * 4 + (_INT64, _INT64, _FLOAT, _INT),
              "rotary": (_POINTER, _INT64, _INT64, _INT64, _INT64, _POINTER, _POINTER, _POINTER, _INT),
              "silu_and_mul": (_POINTER, _POINTER, _INT64, _INT64, _INT)}


def _kernel(name: str) -> ctypes._CFuncPtr:
    return native_function(name, _ARGUMENTS[name], source="pointwise")


def fused(*tensors: torch.Tensor, multiple: int = 8) -> bool:
    """Whether the fused kernels can take these tensors (rows a multiple of `multiple` values)."""
    for t in tensors:  # a plain loop and `is_cpu`: this runs ~170 times a decode step (a generator took 2x)
        if not (t.is_cpu and t.dtype == torch.bfloat16 and t.is_contiguous() and t.shape[-1] % multiple == 0):
            return False
    return load_library("pointwise") is not None


def add_rms_norm(x: torch.Tensor, delta: torch.Tensor | None, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """x += delta in place (if given), then RMSNorm(x) * weight as a new tensor."""
    out = torch.empty_like(x)
    _kernel("add_rms_norm")(
        x.data_ptr(), None if delta is None else delta.data_ptr(), weight.data_ptr(), out.data_ptr(),
        x.numel() // x.shape[-1], x.shape[-1], eps, torch.get_num_threads())
    return out


def rotary_(rows: torch.Tensor, positions: torch.Tensor, heads: int, head_dim: int, cos: torch.Tensor,
            sin: torch.Tensor) -> None:
    """Rotate the first `heads` heads of each row of `rows` [T, >= heads * head_dim] in place."""
    _kernel("rotary")(
        rows.data_ptr(), rows.shape[0], rows.shape[1], heads, head_dim, positions.data_ptr(), cos.data_ptr(),
        sin.data_ptr(), torch.get_num_threads())


def silu_and_mul(gate_up: torch.Tensor) -> torch.Tensor:
    """[T, 2I] (gate | up) -> silu(gate) * up [T, I]."""
    size = gate_up.shape[-1] // 2
    out = torch.empty(*gate_up.shape[:-1], size, dtype=gate_up.dtype)
    _kernel("silu_and_mul")(
        gate_up.data_ptr(), out.data_ptr(), gate_up.numel() // gate_up.shape[-1], size, torch.get_num_threads())
    return out
