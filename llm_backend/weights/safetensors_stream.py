"""Write a safetensors file one tensor at a time, so a model never sits in memory twice.

`safetensors.torch.save_file` needs every tensor at once and copies each into bytes. When the
shapes are known up front (a GGUF's tensor table gives them) the header can be written first and
the tensors appended as they are produced.
"""
from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path

import torch

_DTYPE_NAMES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}
_HEADER_ALIGNMENT = 8  # the format pads the JSON header so tensor data starts 8-byte aligned


def write_safetensors(path: Path, layout: Sequence[tuple[str, tuple[int, ...]]], dtype: torch.dtype,
                      tensors: Iterable[tuple[str, torch.Tensor]]) -> None:
    """Write `tensors` (yielded in `layout` order, each of `dtype`) to `path` in safetensors format."""
    header: dict[str, object] = {}
    offset = 0
    for name, shape in layout:
        size = dtype.itemsize * _element_count(shape)
        header[name] = {"dtype": _DTYPE_NAMES[dtype], "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    encoded = json.dumps(header, separators=(",", ":")).encode()
    encoded += b" " * (-len(encoded) % _HEADER_ALIGNMENT)
    expected = iter(layout)
    with path.open("wb") as out:
        out.write(struct.pack("<Q", len(encoded)))
        out.write(encoded)
        for name, tensor in tensors:
            if (name, tuple(tensor.shape)) != next(expected) or tensor.dtype != dtype:
                raise ValueError(f"tensor {name} {tuple(tensor.shape)} {tensor.dtype} does not follow the layout")
            out.write(tensor.contiguous().view(torch.uint8).numpy().data)
        if next(expected, None) is not None:
            raise ValueError("fewer tensors than the layout lists")


def _element_count(shape: tuple[int, ...]) -> int:
    count = 1
    for dim in shape:
        count *= dim
    return count
