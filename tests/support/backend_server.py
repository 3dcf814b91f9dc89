"""Start a real `llm-backend serve` process and wait until it answers (tests and benchmarks)."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

from tests.support.processes import free_port, stop, wait_http

REPO = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 300.0  # loading a model and building the kernels on a busy 2-core machine
# The tests' servers run SmolLM2 on one torch thread: the test process and its other servers share the cores, and
# OpenMP threads that wait for a busy core made decoding ~20x slower (measured on 2 loaded cores: 4 vs 83 tok/s).
TEST_THREADS = 1


@contextlib.contextmanager
def running_server(model: str, *extra_args: str, env: dict[str, str] | None = None,
                   threads: int | None = None) -> Iterator[str]:
    """Yield the base URL (`http://127.0.0.1:PORT`) of a server for `model` that is up; stop it
    afterwards. `extra_args` are more `serve` flags, `env` more environment variables, `threads` its torch
    threads (default: all cores, as the benchmarks want)."""
    port = free_port()
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", **(env or {})}
    command = [sys.executable, "-m", "llm_backend", "serve", "--model", model, "--port", str(port), *extra_args,
               *(("--threads", str(threads)) if threads else ())]
    base_url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile(mode="w+") as log:  # a file, not a pipe: a full pipe would block the server
        process = subprocess.Popen(command, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, text=True)
        try:
            wait_http(f"{base_url}/health", process, log, timeout=STARTUP_TIMEOUT_S, status=200)
            yield base_url
        finally:
            stop(process)
