"""Start a real `llm-backend serve` process and wait until it answers (tests and benchmarks)."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import httpx

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_server(model: str, *extra_args: str, startup_timeout: float = 300.0,
                   env: dict[str, str] | None = None) -> Iterator[str]:
    """Yield the base URL (`http://127.0.0.1:PORT`) of a server for `model` that is up; stop it
    afterwards. `extra_args` are more `serve` flags, `env` more environment variables."""
    port = _free_port()
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", **(env or {}),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "llm_backend.cli", "serve", "--model", model,
               "--port", str(port), *extra_args]
    log = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a full pipe would block the server
    process = subprocess.Popen(command, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                               text=True)
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"server exited early:\n{log.read()}")
            try:
                if httpx.get(f"{base_url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError("server did not become healthy in time")
            time.sleep(0.25)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
