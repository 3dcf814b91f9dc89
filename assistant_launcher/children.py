"""The parts of the system as child processes: start one with its log, wait for its health check,
watch them, and stop them so that no process and no bound port is left behind.

Each child runs in its own session (process group), so a Ctrl-C in the terminal reaches only the
launcher, which then stops the children itself, in reverse start order.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

_GRACE_S = 10.0
_LOG_TAIL_CHARS = 3000


class LaunchError(RuntimeError):
    """A part of the system could not be started."""


@dataclass
class Child:
    """A started part of the system, with the log its output goes to."""

    name: str
    process: subprocess.Popen
    log: Path

    def alive(self) -> bool:
        return self.process.poll() is None

    def check_running(self) -> None:
        """Raise LaunchError, with the end of its log, if the child has exited."""
        if not self.alive():
            raise LaunchError(f"{self.name} exited with status {self.process.returncode}; "
                              f"its log ({self.log}) ends with:\n{self.log_tail()}")

    def log_tail(self) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return text[-_LOG_TAIL_CHARS:]


def start_child(name: str, command: list[str], log: Path, env: dict[str, str]) -> Child:
    """Start `command` in a session of its own, its output appended to `log`."""
    with log.open("ab") as output:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                                   env=env, start_new_session=True)
    return Child(name, process, log)


def wait_healthy(child: Child, url: str, timeout: float, stop: threading.Event) -> None:
    """Poll `url` until it answers; fail early, with the child's log, if the child exits."""
    deadline = time.monotonic() + timeout
    while not stop.is_set():
        child.check_running()
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise LaunchError(f"{child.name} did not answer {url} within {timeout:.0f} s; see {child.log}")
        stop.wait(0.3)


def supervise(children: list[Child], stop: threading.Event) -> int:
    """Wait for a stop request; a child that dies on its own ends the session with status 1."""
    while not stop.wait(0.5):
        for child in children:
            if not child.alive():
                print(f"error: {child.name} exited with status {child.process.returncode}; "
                      f"its log ({child.log}) ends with:\n{child.log_tail()}", file=sys.stderr)
                return 1
    print("\nstopping ...", flush=True)
    return 0


def stop_all(children: list[Child]) -> None:
    """Stop in reverse start order: nothing calls a part that is already gone."""
    for child in reversed(children):
        _stop_child(child)
    if children:
        print("stopped.", flush=True)


def _stop_child(child: Child) -> None:
    """SIGINT (a clean shutdown), then SIGTERM, then SIGKILL, to the child's whole process group; then any
    descendant that started a session of its own (MCP stdio servers do)."""
    started = time.monotonic()
    try:
        descendants = psutil.Process(child.process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        descendants = []
    for signum, wait_s in ((signal.SIGINT, _GRACE_S), (signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        if not child.alive():
            break
        try:
            os.killpg(child.process.pid, signum)
        except ProcessLookupError:
            break
        try:
            child.process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
    _reap(descendants)
    print(f"stopped {child.name} ({time.monotonic() - started:.1f} s)", flush=True)


def _reap(processes: list[psutil.Process]) -> None:
    survivors = [process for process in processes if process.is_running()]
    for process in survivors:
        process.terminate()
    _, still_alive = psutil.wait_procs(survivors, timeout=3)
    for process in still_alive:
        process.kill()
    psutil.wait_procs(still_alive, timeout=3)


def require_free_port(host: str, port: int, owner: str) -> None:
    """Refuse to start when the port is taken: a health check would otherwise reach someone else's server."""
    with socket.socket() as probe:
        # As the servers themselves do: a port whose last connections sit in TIME_WAIT (right
        # after a restart) is free, while a listening socket still makes bind fail.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise LaunchError(f"port {port} on {host} is in use, so {owner} cannot start there ({error.strerror}); "
                              f"stop what holds it or choose another port") from error
