"""The benchmark peer: llama.cpp's own `llama-server`, built once from the llama-cpp-python sdist.

The sdist vendors llama.cpp. `pip download` fetches it, cmake builds just the `llama-server`
target for this CPU (`-DGGML_NATIVE=ON`, about 10 minutes on 2 cores), and the binary is cached
under ~/.cache/llm_backend/llama-server/<version>/, so later runs start it at once:

    python -m bench.llama_server            # build (or find) it and print its path

`serve_bench.py --compare` calls `llama_server_binary()` and runs it with `-np` = the concurrency.
"""
from __future__ import annotations

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
CMAKE_FLAGS = ("-DGGML_NATIVE=ON", "-DLLAMA_CURL=OFF", "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF")


def cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "llm_backend" / "llama-server" / SDIST_VERSION


def llama_server_binary() -> Path:
    """The cached `llama-server`, built first if it is not there yet."""
    binary = cache_dir() / "llama-server"
    if not binary.is_file():
        build(binary)
    return binary


def build(binary: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                        "-d", str(work), f"llama-cpp-python=={SDIST_VERSION}"], check=True)
        sdist = next(work.glob("llama_cpp_python-*.tar.gz"))
        with tarfile.open(sdist) as archive:
            archive.extractall(work, filter="data")
        source = next(work.glob("llama_cpp_python-*/vendor/llama.cpp"))
        build_dir = work / "build"
        subprocess.run(["cmake", "-S", str(source), "-B", str(build_dir), *CMAKE_FLAGS], check=True)
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
    print(llama_server_binary())
