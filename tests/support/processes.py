"""The child processes of the tests and benchmarks: a free port to give one, waiting until it answers over HTTP,
stopping it."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import IO

import httpx


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(url: str, process: subprocess.Popen, log: Path | IO[str] | None = None, timeout: float = 60,
              status: int | None = None) -> None:
    """Return once `url` answers: with any status, or with `status` when given (a health check that says 503
    while loading). Raise with the end of the process's output (`log`, else its piped stderr) if it exits first,
    or when `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}:\n{_output(process, log)}")
        try:
            answer = httpx.get(url, timeout=1)
            if status is None or answer.status_code == status:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not come up in {timeout} s:\n{_output(process, log)}")


def stop(process: subprocess.Popen, timeout: float = 15) -> None:
    """SIGTERM, and SIGKILL if the process has not exited `timeout` seconds later."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _output(process: subprocess.Popen, log: Path | IO[str] | None) -> str:
    if isinstance(log, Path):
        return log.read_text(errors="replace")[-3000:]
    if log is not None:
        log.seek(0)
        return log.read()[-3000:]
    if process.stderr is not None and process.poll() is not None:  # a pipe: readable to its end once it exited
        return process.stderr.read().decode(errors="replace")[-3000:]
    return ""
