"""Builds, caches and loads the C kernels next to this file (`<name>.c`, headers `*.h`) with gcc.

A kernel is compiled for this CPU (`-march=native`) into the user cache the first time (about
a second); later processes load the cached library. Without gcc, or on a CPU the source does
not support (the int8 matmul needs AVX-512 VNNI, the GGUF kernels AVX2), there is no kernel and
callers keep their torch path. `LLM_BACKEND_ISA=avx2` builds for a CPU with AVX2 and no AVX-512
(`-march=x86-64-v3`, see cpu_features.py). `LLM_BACKEND_KERNEL_CFLAGS` adds gcc flags (e.g. `-g`, or
the tests' AVX-512 emulation).
Libraries load after torch, so their OpenMP references bind to the libgomp torch already uses.
"""
from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import shlex
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from llm_backend.layers.cpu_features import ISA_TARGETS, isa

# Reassociation lets gcc vectorize the dot products. Not -ffast-math: a library linked with it
# switches the whole process to flush-to-zero floats when it loads.
COMPILE_FLAGS = ("-O3", "-fno-math-errno", "-fno-trapping-math", "-fassociative-math",
                 "-fno-signed-zeros", "-fopenmp", "-shared", "-fPIC")
LINK_FLAGS = ("-lm",)
EXTRA_FLAGS_ENV = "LLM_BACKEND_KERNEL_CFLAGS"

log = logging.getLogger(__name__)


def kernel_cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "llm_backend" / "kernels"


def compile_flags() -> tuple[str, ...]:
    return (f"-march={ISA_TARGETS[isa()]}", *COMPILE_FLAGS, *shlex.split(os.environ.get(EXTRA_FLAGS_ENV, "")))


@cache
def native_function(name: str, argtypes: tuple[type, ...], source: str | None = None,
                    restype: type | None = None) -> ctypes._CFuncPtr | None:
    """Function `name` of the compiled `<source>.c` (default `<name>.c`); None when it cannot be built."""
    library = load_library(source or name)
    if library is None:
        return None
    function = getattr(library, name)
    function.argtypes = list(argtypes)
    function.restype = restype
    return function


@cache
def load_library(name: str) -> ctypes.CDLL | None:
    """The compiled `<name>.c`, built on first use; None when this machine cannot build it."""
    source = Path(__file__).with_name(f"{name}.c")
    compiler = shutil.which("gcc")
    if compiler is None:
        log.warning("no gcc: the %s kernel is unavailable", name)
        return None
    try:  # a missing source (an install without the package's .c/.h files) fails here too
        library = kernel_cache_dir() / f"{name}-{_build_key(source)}.so"
        if not library.is_file():
            _compile(compiler, source, library)
    except (OSError, subprocess.SubprocessError) as error:
        stderr = " ".join((getattr(error, "stderr", "") or "").split())  # one line in the log
        log.warning("could not build the %s kernel, its torch path runs instead (%s) %s", name, error, stderr[-500:])
        return None
    try:
        return ctypes.CDLL(str(library))
    except OSError as error:  # e.g. a library it links against is missing
        log.warning("could not load the %s kernel: %s", name, error)
        return None


def _build_key(source: Path) -> str:
    """Changes with the source, the flags and the CPU (a library is built for this CPU only)."""
    digest = hashlib.sha256(source.read_bytes())
    for header in sorted(source.parent.glob("*.h")):
        digest.update(header.read_bytes())
    digest.update(" ".join(compile_flags() + LINK_FLAGS).encode())
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        flags = [line for line in cpuinfo.read_text(errors="replace").splitlines() if line.startswith("flags")]
        digest.update(flags[0].encode() if flags else b"")
    return digest.hexdigest()[:16]


def _compile(compiler: str, source: Path, library: Path) -> None:
    library.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(prefix=f".{library.name}.", dir=library.parent)
    os.close(handle)
    try:
        command = [compiler, *compile_flags(), "-o", tmp_name, str(source), *LINK_FLAGS]
        subprocess.run(command, check=True, capture_output=True, text=True, timeout=120)
        os.chmod(tmp_name, 0o755)
        os.replace(tmp_name, library)  # atomic: a concurrent process sees all of it or none
    finally:
        Path(tmp_name).unlink(missing_ok=True)
