"""`mcp-chat up`: the whole assistant from one command.

Pulls the model if it is missing (`llm-backend pull`), starts `llm-backend serve` and waits for its
`/health`, starts the gateway (which launches the MCP servers of `configs/mcp_servers.json` itself) and
waits for its warm-up (the model reads the router's prompt once, so the first question does not wait for
that), prints the URLs, and on Ctrl-C or SIGTERM stops everything: the gateway first (it closes its MCP
sessions, which stop the server processes), then the backend (children.py). The backend is only ever a
process here, never imported, so the launcher needs none of its dependencies to start a remote profile.
The backend requires an API key, which the gateway sends: the profile's key variable (LOCAL_LLM_API_KEY)
if set, else a fresh random key for this run, handed to both through their environments and written nowhere.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from assistant_launcher.children import (
    Child, LaunchError, require_free_port, start_child, stop_all, supervise, wait_healthy,
)
from mcp_chat_app.config import GatewayConfig
from mcp_chat_app.llm.profiles import Endpoint, load_roles

_BACKEND_COMMAND = [sys.executable, "-m", "llm_backend.cli"]
_BACKEND_KEY_ENV = "LLM_BACKEND_API_KEY"  # where `llm-backend serve` reads its --api-key from


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
    parser.add_argument("--warm-up-timeout", type=float, default=600.0,
                        help="seconds the warm-up may go without progress (however long it takes in all)")


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
            _start_gateway(config, gateway_env, log_dir, args, children, stop)
        if not stop.is_set():
            _print_ready(config, gateway_env, children)
            return supervise(children, stop)
        return 0
    except LaunchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # before the handlers are installed, e.g. during the model download
        return 130
    finally:
        stop_all(children)


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
    if not router.on_loopback:
        print(f"profile {config.profile!r} uses {router.base_url}: no local backend started")
        return {}
    model = model or router.model
    require_free_port("127.0.0.1", args.llm_port, "llm-backend")
    if _is_store_name(model):
        _pull(model)
    _install_signal_handlers(stop)
    command = [*_BACKEND_COMMAND, "serve", "--model", model, "--host", "127.0.0.1", "--port", str(args.llm_port)]
    if args.threads:
        command += ["--threads", str(args.threads)]
    backend_env = dict(os.environ)
    gateway_env = {"MCP_CHAT_BASE_URL": f"http://127.0.0.1:{args.llm_port}/v1", "MCP_CHAT_MODEL": model}
    key = _backend_key(router)
    if key is not None:
        backend_env[_BACKEND_KEY_ENV] = gateway_env[router.api_key_env] = key
    print(f"starting llm-backend with {model} on 127.0.0.1:{args.llm_port} ...", flush=True)
    backend = start_child("llm-backend", command, log_dir / "llm_backend.log", backend_env)
    children.append(backend)
    wait_healthy(backend, f"http://127.0.0.1:{args.llm_port}/health", args.startup_timeout, stop)
    return gateway_env


def _backend_key(router: Endpoint) -> str | None:
    """The key the backend requires and the gateway sends (as the profile's key variable); None for a profile
    without one, whose gateway could not send it."""
    if not router.api_key_env:
        return None
    return os.environ.get(router.api_key_env) or secrets.token_urlsafe(32)


def _start_gateway(config: GatewayConfig, llm_env: dict[str, str], log_dir: Path, args: argparse.Namespace,
                   children: list[Child], stop: threading.Event) -> None:
    require_free_port(config.host, config.port, "the gateway")
    _install_signal_handlers(stop)
    env = {"MCP_CHAT_WARM_UP": "1", **os.environ, **llm_env, "MCP_CHAT_HOST": config.host,
           "MCP_CHAT_PORT": str(config.port), "MCP_CHAT_PROFILE": config.profile}
    print(f"starting the gateway on {config.host}:{config.port} (MCP servers from {config.servers_config}) ...",
          flush=True)
    gateway = start_child("gateway", [sys.executable, "-m", "mcp_chat_app.cli", "serve"],
                          log_dir / "gateway.log", env)
    children.append(gateway)
    wait_healthy(gateway, f"{_local_url(config)}/health", args.startup_timeout, stop)
    _wait_warm(gateway, f"{_local_url(config)}/health", args.warm_up_timeout, stop)


def _wait_warm(gateway: Child, url: str, timeout: float, stop: threading.Event) -> None:
    """Until the gateway's warm-up is over (ready or failed), printing its progress; fail when it makes none for
    `timeout` s: a slow CPU may take minutes in all, and that is no reason to give up."""
    shown = None
    last_progress = time.monotonic()
    while not stop.wait(0.5):
        gateway.check_running()
        warm_up = _warm_up_status(url)
        if warm_up is not None and warm_up["state"] != "warming":
            if warm_up["state"] == "failed":
                print(f"warm-up failed ({warm_up['error']}): the first question reads the prompt instead", flush=True)
            return
        if warm_up is not None and warm_up != shown:
            shown, last_progress = warm_up, time.monotonic()
            progress = f": {warm_up['done']:,}/{warm_up['total']:,} tokens" if warm_up["total"] else " ..."
            print(f"warming the model (tools){progress}", flush=True)
        if time.monotonic() - last_progress > timeout:
            raise LaunchError(f"the gateway's warm-up made no progress for {timeout:.0f} s; see {gateway.log}")


def _warm_up_status(health_url: str) -> dict[str, Any] | None:
    """The `warm_up` of the gateway's /health; None when it did not answer (asked again later)."""
    try:
        return httpx.get(health_url, timeout=5).json()["warm_up"]
    except (httpx.HTTPError, ValueError, KeyError):
        return None


def _is_store_name(model: str) -> bool:
    """A bare name that is no file or directory here: `llm-backend` looks it up in its model store.
    Paths are left to `llm-backend serve`, which reports a bad one in its log."""
    path = Path(model).expanduser()
    return not path.exists() and path.name == model and path.suffix != ".gguf"


def _pull(model: str) -> None:
    """Fetch a store model before the backend starts (no work if it is there), in this terminal, so the
    download shows its progress bar and does not count against the backend's health timeout."""
    # A SIGTERM during the download stops it as Ctrl-C would: the pull is killed, not left running.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    status = subprocess.run([*_BACKEND_COMMAND, "pull", model], stdin=subprocess.DEVNULL).returncode
    if status != 0:
        raise LaunchError(f"`llm-backend pull {model}` exited with status {status} (its error is above); "
                          f"without the `backend` extra, point at a running model with --llm-base-url")


def _install_signal_handlers(stop: threading.Event) -> None:
    """From here on Ctrl-C/SIGTERM only ask for a stop, so the shutdown itself cannot be interrupted."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())


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
