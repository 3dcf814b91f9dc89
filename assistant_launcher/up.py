"""`mcp-chat up`: the whole assistant from one command.

Pulls the model if it is missing, starts `llm-backend serve` and waits for its `/health`, starts the
gateway (which launches the MCP servers of `configs/mcp_servers.json` itself), prints the URLs, and on
Ctrl-C or SIGTERM stops everything. The backend requires an API key, which the gateway sends: the profile's
key variable (LOCAL_LLM_API_KEY) if set, else a fresh random key for this run, handed to both through their
environments and written nowhere. Each child runs in its own session (process group), so a Ctrl-C in
the terminal reaches only the launcher, which then stops the children in order: the gateway first (it
closes its MCP sessions, which stop the server processes), then the backend; whatever is still alive
after a grace period is killed, descendants included, so no process and no bound port is left behind.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import httpx
import psutil

from mcp_chat_app.config import GatewayConfig
from mcp_chat_app.llm.profiles import Endpoint, load_roles

_LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
_BACKEND_KEY_ENV = "LLM_BACKEND_API_KEY"  # where `llm-backend serve` reads its --api-key from
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

    def log_tail(self) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return text[-_LOG_TAIL_CHARS:]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `mcp-chat up` (the profile comes from the global `--profile`)."""
    parser.add_argument("--model", help="model store name or local path for the backend "
                                        "(default: the profile's model, see configs/models.json)")
    parser.add_argument("--llm-base-url", help="use this OpenAI-compatible endpoint instead of starting "
                                               "llm-backend, e.g. http://gpu-box:8000/v1")
    parser.add_argument("--host", help="gateway host (default MCP_CHAT_HOST or 127.0.0.1)")
    parser.add_argument("--port", type=int, help="gateway port (default MCP_CHAT_PORT or 8081)")
    parser.add_argument("--llm-port", type=int, default=8000, help="port of the started llm-backend")
    parser.add_argument("--threads", type=int, help="CPU threads for the backend (default: all cores)")
    parser.add_argument("--startup-timeout", type=float, default=600.0,
                        help="seconds to wait for each part to answer its health check")


def run_up(args: argparse.Namespace) -> int:
    """Start everything, wait for Ctrl-C/SIGTERM or a child's death, stop everything; the exit status."""
    overrides = {name: getattr(args, name) for name in ("host", "port", "profile") if getattr(args, name, None)}
    config = GatewayConfig.from_env(**overrides)
    log_dir = config.data_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    children: list[Child] = []
    try:
        gateway_env = _llm_environment(args, config, log_dir, children, stop)
        if not stop.is_set():
            _start_gateway(config, gateway_env, log_dir, args.startup_timeout, children, stop)
        if not stop.is_set():
            _print_ready(config, gateway_env, children)
            return _supervise(children, stop)
        return 0
    except LaunchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # before the handlers are installed, e.g. during the model download
        return 130
    finally:
        _stop_all(children)


def _llm_environment(args: argparse.Namespace, config: GatewayConfig, log_dir: Path,
                     children: list[Child], stop: threading.Event) -> dict[str, str]:
    """Start the local backend unless the model is remote; the gateway's MCP_CHAT_* LLM variables.

    Remote means `--llm-base-url` (or MCP_CHAT_BASE_URL), or a profile whose endpoint is not on this machine.
    """
    remote_url = args.llm_base_url or config.base_url_override
    model = args.model or config.model_override
    if remote_url:
        return {"MCP_CHAT_BASE_URL": remote_url, **({"MCP_CHAT_MODEL": model} if model else {})}
    router = load_roles(config.models_config, config.profile).router
    if urlparse(router.base_url).hostname not in _LOOPBACK_HOSTS:
        print(f"profile {config.profile!r} uses {router.base_url}: no local backend started")
        return {}
    model = model or router.model
    _require_free_port("127.0.0.1", args.llm_port, "llm-backend")
    _pull_if_missing(model)
    _install_signal_handlers(stop)
    command = [sys.executable, "-m", "llm_backend.cli", "serve", "--model", model,
               "--host", "127.0.0.1", "--port", str(args.llm_port)]
    if args.threads:
        command += ["--threads", str(args.threads)]
    backend_env = dict(os.environ)
    gateway_env = {"MCP_CHAT_BASE_URL": f"http://127.0.0.1:{args.llm_port}/v1", "MCP_CHAT_MODEL": model}
    key = _backend_key(router)
    if key is not None:
        backend_env[_BACKEND_KEY_ENV] = gateway_env[router.api_key_env] = key
    print(f"starting llm-backend with {model} on 127.0.0.1:{args.llm_port} ...", flush=True)
    backend = _start_child("llm-backend", command, log_dir / "llm_backend.log", backend_env)
    children.append(backend)
    _wait_healthy(backend, f"http://127.0.0.1:{args.llm_port}/health", args.startup_timeout, stop)
    return gateway_env


def _backend_key(router: Endpoint) -> str | None:
    """The key the backend requires and the gateway sends (as the profile's key variable); None for a profile
    without one, whose gateway could not send it."""
    if not router.api_key_env:
        return None
    return os.environ.get(router.api_key_env) or secrets.token_urlsafe(32)


def _start_gateway(config: GatewayConfig, llm_env: dict[str, str], log_dir: Path, timeout: float,
                   children: list[Child], stop: threading.Event) -> None:
    _require_free_port(config.host, config.port, "the gateway")
    _install_signal_handlers(stop)
    env = {**os.environ, **llm_env, "MCP_CHAT_HOST": config.host, "MCP_CHAT_PORT": str(config.port),
           "MCP_CHAT_PROFILE": config.profile, "MCP_CHAT_WARM_UP": "1"}
    print(f"starting the gateway on {config.host}:{config.port} (MCP servers from {config.servers_config}) ...",
          flush=True)
    gateway = _start_child("gateway", [sys.executable, "-m", "mcp_chat_app.cli", "serve"],
                           log_dir / "gateway.log", env)
    children.append(gateway)
    _wait_healthy(gateway, f"{_local_url(config)}/health", timeout, stop)


def _pull_if_missing(model: str) -> None:
    """Store names are fetched (with a progress bar) before the backend starts; paths are left alone."""
    try:
        from llm_backend.weights.model_store import CATALOG, ModelStoreError, pull
    except ImportError as error:
        raise LaunchError(f"the local backend is not installed ({error}): install the `backend` extra, "
                          f"or point at a running model with --llm-base-url") from error

    if model not in CATALOG:
        return
    try:
        pull(model)
    except ModelStoreError as error:
        raise LaunchError(f"cannot pull {model}: {error}") from error


def _install_signal_handlers(stop: threading.Event) -> None:
    """From here on Ctrl-C/SIGTERM only ask for a stop, so the shutdown itself cannot be interrupted."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())


def _start_child(name: str, command: list[str], log: Path, env: dict[str, str]) -> Child:
    with log.open("ab") as output:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                                   env=env, start_new_session=True)
    return Child(name, process, log)


def _wait_healthy(child: Child, url: str, timeout: float, stop: threading.Event) -> None:
    """Poll `url` until it answers; fail early, with the child's log, if the child exits."""
    deadline = time.monotonic() + timeout
    while not stop.is_set():
        if not child.alive():
            raise LaunchError(f"{child.name} exited with status {child.process.returncode}; "
                              f"its log ({child.log}) ends with:\n{child.log_tail()}")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise LaunchError(f"{child.name} did not answer {url} within {timeout:.0f} s; see {child.log}")
        stop.wait(0.3)


def _supervise(children: list[Child], stop: threading.Event) -> int:
    """Wait for a stop request; a child that dies on its own ends the session with status 1."""
    while not stop.wait(0.5):
        for child in children:
            if not child.alive():
                print(f"error: {child.name} exited with status {child.process.returncode}; "
                      f"its log ({child.log}) ends with:\n{child.log_tail()}", file=sys.stderr)
                return 1
    print("\nstopping ...", flush=True)
    return 0


def _stop_all(children: list[Child]) -> None:
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


def _require_free_port(host: str, port: int, owner: str) -> None:
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


def _local_url(config: GatewayConfig) -> str:
    host = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
    return f"http://{host}:{config.port}"


def _print_ready(config: GatewayConfig, llm_env: dict[str, str], children: list[Child]) -> None:
    url = _local_url(config)
    llm = llm_env.get("MCP_CHAT_BASE_URL", f"profile {config.profile!r}")
    lines = [
        "",
        f"  Chat page:  {url}/",
        f"  LLM:        {llm}",
        f"  Chat API:   POST {url}/chat/<user>   (OpenAPI: {url}/openapi.json)",
        f"  Health:     {url}/health",
        f"  Logs:       {', '.join(str(child.log) for child in children)}",
        "",
        "ready. Press Ctrl-C to stop.",
    ]
    print("\n".join(lines), flush=True)
