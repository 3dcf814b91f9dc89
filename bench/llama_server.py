"""The benchmark peer: llama.cpp's own `llama-server`, built once from the llama-cpp-python sdist.

The sdist vendors llama.cpp. `pip download` fetches it, cmake builds just the `llama-server`
target for this CPU (`-DGGML_NATIVE=ON`, about 10 minutes on 2 cores), and the binary is cached
under ~/.cache/llm_backend/llama-server/<version>/, so later runs start it at once:

    python -m bench.llama_server            # build (or find) it and print its path
    python -m bench.llama_server --isa avx2 # AVX2-only copy (native off), cached separately

`serve_bench.py --compare` calls `llama_server_binary()` and runs it with `-np` = the concurrency;
`LLAMA_SERVER_ISA=avx2` picks the AVX2-only copy, the fair peer when ours runs `LLM_BACKEND_ISA=avx2`
on an AVX-512 machine.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.support.processes import stop, wait_http

SDIST_VERSION = "0.3.36"
CMAKE_FLAGS = ("-DLLAMA_CURL=OFF", "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF")
# "native" tunes for this CPU; "avx2" is what an AVX2-only x86 (e.g. an older EPYC) gets.
ISA_FLAGS = {
    "native": ("-DGGML_NATIVE=ON",),
    "avx2": ("-DGGML_NATIVE=OFF", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON",
             "-DGGML_BMI2=ON", "-DGGML_AVX_VNNI=OFF", "-DGGML_AVX512=OFF", "-DGGML_AMX_INT8=OFF"),
}


def isa() -> str:
    name = os.environ.get("LLAMA_SERVER_ISA", "native")
    if name not in ISA_FLAGS:
        raise SystemExit(f"LLAMA_SERVER_ISA={name!r}: expected one of {sorted(ISA_FLAGS)}")
    return name


def cache_dir(isa_name: str = "native") -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    root = base / "llm_backend" / "llama-server" / SDIST_VERSION
    return root if isa_name == "native" else root / isa_name


def llama_server_binary(isa_name: str | None = None) -> Path:
    """The cached `llama-server` for `isa_name` (default: $LLAMA_SERVER_ISA or native), built first if missing."""
    isa_name = isa_name or isa()
    binary = cache_dir(isa_name) / "llama-server"
    if not binary.is_file():
        build(binary, ISA_FLAGS[isa_name])
    return binary


def build(binary: Path, isa_flags: tuple[str, ...]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                        "-d", str(work), f"llama-cpp-python=={SDIST_VERSION}"], check=True)
        sdist = next(work.glob("llama_cpp_python-*.tar.gz"))
        with tarfile.open(sdist) as archive:
            archive.extractall(work, filter="data")
        source = next(work.glob("llama_cpp_python-*/vendor/llama.cpp"))
        build_dir = work / "build"
        subprocess.run(["cmake", "-S", str(source), "-B", str(build_dir), *isa_flags, *CMAKE_FLAGS], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "llama-server", "-j",
                        str(len(os.sched_getaffinity(0)))], check=True)
        binary.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build_dir / "bin" / "llama-server", binary)


@contextlib.contextmanager
def running_llama_server(gguf: Path, threads: int, parallel: int, context: int, port: int) -> Iterator[str]:
    """Yield the `/v1` URL of a llama-server on `gguf` with `parallel` slots sharing `context` tokens."""
    command = [str(llama_server_binary()), "-m", str(gguf), "--host", "127.0.0.1", "--port", str(port),
               "-t", str(threads), "-np", str(parallel), "-c", str(context)]
    env = {key: value for key, value in os.environ.items() if key != "OMP_WAIT_POLICY"}  # 1.8x slower with it
    with tempfile.TemporaryFile(mode="w+") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_http(f"{url}/health", process, log, timeout=300, status=200)
            yield f"{url}/v1"
        finally:
            stop(process, timeout=30)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--isa", choices=sorted(ISA_FLAGS), default=None, help="default: $LLAMA_SERVER_ISA or native")
    print(llama_server_binary(parser.parse_args().isa))
