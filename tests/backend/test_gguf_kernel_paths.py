"""Every build of the GGUF block kernels gives the same bits on the same inputs.

The dot products are integer math, and the few float operations per super-block run in one order
in every kernel (gguf_matmul.c), so the AVX2 build (`LLM_BACKEND_ISA=avx2`), this CPU's own build,
and the AVX-512 build (VNNI dot products, 64-byte kernels of the Q4_K / Q6_K rows interleaved by 8;
the AVX2 build has 32-byte ones) must agree bit for bit.
A CPU without AVX-512 runs that build on the instruction emulation of tests/support/avx512_emulation.h,
so the check runs on every machine; on an AVX-512 machine the native build is the real thing.
Each build runs in its own process, since a process loads one build of a kernel.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from gguf import GGMLQuantizationType as T

from llm_backend.layers.gguf_weight import KERNEL_TYPES, BlockWeight, gguf_kernels_available
from test_gguf_kernels import random_blocks

pytestmark = pytest.mark.skipif(not gguf_kernels_available(), reason="no gcc or no AVX2: no GGUF kernels")

REPO = Path(__file__).resolve().parents[2]
EMULATION = REPO / "tests" / "support" / "avx512_emulation.h"
ACTIVATION_ROWS = (1, 2, 3, 4, 5, 8, 13, 16, 39)  # 4 rows a pass and their remainders, up to the dense path's 40


def emulated_avx512_env() -> dict[str, str]:
    """The AVX-512 build on this CPU: AVX2 code generation plus the emulated AVX-512 instructions.
    The header's hash is in the flags, so an edit of it builds anew."""
    digest = hashlib.sha256(EMULATION.read_bytes()).hexdigest()[:12]
    return {"LLM_BACKEND_ISA": "avx2",
            "LLM_BACKEND_KERNEL_CFLAGS": f"-include {EMULATION} -Wno-psabi -DEMULATION_{digest}"}


BUILDS = {"avx2": {"LLM_BACKEND_ISA": "avx2"}, "native": {"LLM_BACKEND_ISA": "native"},
          "avx512-emulated": emulated_avx512_env()}


def kernel_outputs() -> dict[str, torch.Tensor]:
    """Every weight type and a fused mixed weight (37 rows: groups of 8 and a remainder), with bias,
    times Gaussian activations of each row count, fp32 and bf16 in and out."""
    weights = {qtype.name: [random_blocks(qtype, 37, 512, seed=int(qtype))] for qtype in KERNEL_TYPES}
    weights["fused"] = [random_blocks(T.Q4_K, 24, 512, 1), random_blocks(T.Q6_K, 13, 512, 2),
                        random_blocks(T.Q8_0, 8, 512, 3)]
    generator = torch.Generator().manual_seed(0)
    outputs = {}
    for name, parts in weights.items():
        bias = torch.randn(sum(part.rows for part in parts), generator=generator)
        weight = BlockWeight(parts, bias)
        for rows in ACTIVATION_ROWS:
            x = torch.randn(rows, 512, generator=generator) * 3
            outputs[f"{name}/{rows}/fp32"] = weight.matmul(x, torch.float32)
            outputs[f"{name}/{rows}/bf16"] = weight.matmul(x.to(torch.bfloat16), torch.bfloat16)
    return outputs


def run_build(build: str, out: Path) -> str:
    """Writes `kernel_outputs()` of one build to `out`; returns what the build says of itself."""
    code = ("import ctypes, torch\n"
            "from llm_backend.layers.native import native_function\n"
            "from test_gguf_kernel_paths import kernel_outputs\n"
            f"torch.save(kernel_outputs(), {str(out)!r})\n"
            "flag = lambda name: native_function(f'gguf_kernel_{name}', (), source='gguf_matmul', restype=ctypes.c_int)()\n"
            "print(' '.join(f'{name}={flag(name)}' for name in ('vnni', 'x8_avx512')))")
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'tests' / 'backend'}", **BUILDS[build]}
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip().splitlines()[-1]


def test_every_build_gives_the_same_bits(tmp_path):
    said = {build: run_build(build, tmp_path / f"{build}.pt") for build in BUILDS}
    assert said["avx2"] == "vnni=0 x8_avx512=0"
    assert said["avx512-emulated"] == "vnni=1 x8_avx512=1"  # the AVX-512 code ran, not the AVX2 kernels
    reference = torch.load(tmp_path / "avx2.pt")
    for build in ("native", "avx512-emulated"):
        outputs = torch.load(tmp_path / f"{build}.pt")
        assert outputs.keys() == reference.keys()
        differing = [key for key in reference if not torch.equal(outputs[key], reference[key])]
        assert not differing, f"{build} ({said[build]}) differs from avx2 in {differing}"


def test_the_emulated_avx512_build_passes_the_kernel_tests():
    """Its interleaved kernels against the fp32 reference (and the emulation thereby checked too)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), **emulated_avx512_env()}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "tests/backend/test_gguf_kernels.py"], env=env, cwd=REPO, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0 and " passed" in result.stdout and "skipped" not in result.stdout, \
        result.stdout[-3000:]
