"""What the CPU paths may use here: the instruction set the C kernels are built for, and whether
oneDNN multiplies bf16 natively.

`LLM_BACKEND_ISA=avx2` stands for a CPU with AVX2 and no AVX-512, whatever this one has: the kernels
are built for x86-64-v3 and bf16 counts as not native, so that path runs, and is tested, anywhere.
"""
from __future__ import annotations

import logging
import os
from functools import cache

import torch

ISA_ENV = "LLM_BACKEND_ISA"
# The instruction sets one can ask for, and the gcc target of each.
ISA_TARGETS = {"native": "native", "avx2": "x86-64-v3"}

log = logging.getLogger(__name__)


def isa() -> str:
    """The instruction set the CPU paths are built for: `native` (this CPU's, the default) or `avx2`."""
    value = os.environ.get(ISA_ENV, "native").strip().lower() or "native"
    if value not in ISA_TARGETS:
        raise ValueError(f"{ISA_ENV}={value!r}: choose one of {', '.join(ISA_TARGETS)}")
    return value


@cache
def native_bf16_gemm() -> bool:
    """Whether oneDNN multiplies bf16 natively (AVX-512 BW/VL/DQ or AVX-NE-CONVERT); warns once if not.

    Elsewhere a bf16 GEMM is emulated, ~5x slower than fp32 (a 2-core AVX2 EPYC: 5 vs 26 GFLOP/s), so
    bf16 weights are not packed for it (linear.py) and GGUF prefill stays on the block kernels (gguf_weight.py).
    """
    if isa() == "avx2":
        log.warning("%s=avx2: bf16 matmuls take the path of a CPU without AVX-512", ISA_ENV)
        return False
    if not torch.ops.mkldnn._is_mkldnn_bf16_supported():
        log.warning("this CPU lacks AVX-512 (BW, VL, DQ) and AVX-NE-CONVERT: oneDNN has no fast bf16 matmul, "
                    "so bf16 weights stay unpacked and GGUF prompts run on the block kernels")
        return False
    return True
