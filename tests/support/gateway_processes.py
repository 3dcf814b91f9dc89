"""Start the real processes the gateway tests talk to: the scripted LLM fake and the gateway."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.support.processes import free_port, stop, wait_http

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TINY_SERVER = {"command": "python", "args": [str(HERE / "tiny_mcp_server.py")], "timeout": 5}
# Read-only, writing and destructive tools (MCP annotations), for the approval policy.
ANNOTATED_SERVER = {"command": "python", "args": [str(HERE / "annotated_mcp_server.py")], "timeout": 5}
WEATHER_SERVER = {"command": "python", "args": ["-m", "weather_mcp_server"],
                  "env": {"WEATHER_PROVIDER": "simulated"}, "timeout": 20}
# The third-party reference server, as scripts/setup.sh installs it (same pin).
EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything@2026.8.31"
EVERYTHING_DIR = Path(sys.prefix) / "server-everything"
EVERYTHING_BIN = EVERYTHING_DIR / "node_modules" / ".bin" / "mcp-server-everything"


def everything_server() -> Path:
    """The server-everything launcher; installed now if setup could not (the npm registry), skipped without Node."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        import pytest  # here, not above: the bench scripts import this module without pytest

        pytest.skip("Node.js/npm not installed: @modelcontextprotocol/server-everything cannot run")
    if not EVERYTHING_BIN.exists():
        subprocess.run(["npm", "install", "--prefix", str(EVERYTHING_DIR), "--no-audit", "--no-fund",
                        EVERYTHING_PACKAGE], check=True, capture_output=True, timeout=600)
    return EVERYTHING_BIN


def start_everything(transport: str, port: int, log: Path) -> subprocess.Popen:
    """server-everything over `sse` (http://127.0.0.1:PORT/sse) or `streamableHttp` (.../mcp)."""
    process = subprocess.Popen([str(everything_server()), transport], env={**os.environ, "PORT": str(port)},
                               stdout=log.open("a"), stderr=subprocess.STDOUT)
    # Any answer means it listens (its /sse is a stream, so only the headers are awaited).
    wait_http(f"http://127.0.0.1:{port}/{'mcp' if transport == 'streamableHttp' else 'message'}", process, log)
    return process


def start_weather_http(port: int, log: Path, **env: str) -> subprocess.Popen:
    """`weather-mcp --transport http` (simulated data) at http://127.0.0.1:PORT/mcp; `env` adds e.g. its auth."""
    process = subprocess.Popen(
        [sys.executable, "-m", "weather_mcp_server", "--transport", "http", "--port", str(port)], cwd=REPO,
        env={**os.environ, "WEATHER_PROVIDER": "simulated", **env}, stdout=log.open("a"), stderr=subprocess.STDOUT)
    wait_http(f"http://127.0.0.1:{port}/mcp", process, log)
    return process


def start_tiny_http(port: int, log: Path) -> subprocess.Popen:
    """tests/support/tiny_mcp_server.py over streamable HTTP at http://127.0.0.1:PORT/mcp."""
    process = subprocess.Popen([sys.executable, str(HERE / "tiny_mcp_server.py"), "--http", str(port)],
                               stdout=log.open("a"), stderr=subprocess.STDOUT)
    wait_http(f"http://127.0.0.1:{port}/mcp", process, log)
    return process


def weather_call(name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted router reply that calls the weather server's tool `name` (as the gateway names it)."""
    return {"tool_calls": [{"name": f"weather__{name}", "arguments": arguments}]}


def made_calls(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The calls a chat answer's JSON body says were made, as (tool, arguments)."""
    return [(made["tool"], made["arguments"]) for made in body["tool_calls"]]


def forced_asker(gateway: GatewayProcess, fake_llm: FakeLlm, user: str) -> Callable[[str, dict[str, Any]],
                                                                                  dict[str, Any]]:
    """A user's turns with the forced router calling `planned` twice (the question alone, then with the
    conversation) and the writer answering anything; each turn's JSON body."""
    def asked(message: str, planned: dict[str, Any]) -> dict[str, Any]:
        fake_llm.script(planned, planned, {"content": "placeholder"}, auto=True)
        return gateway.chat(user, {"message": message}).json()
    return asked


class FakeLlm:
    """The scripted OpenAI-compatible server (tests/support/fake_llm.py) in its own process."""

    def __init__(self, log_dir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log_dir / "fake_llm.log"
        self.process = subprocess.Popen([sys.executable, str(HERE / "fake_llm.py"), str(self.port)],
                                        stdout=self.log.open("w"), stderr=subprocess.STDOUT)
        wait_http(f"{self.url}/v1/models", self.process, self.log)

    def script(self, *replies: dict[str, Any], auto: bool = False) -> None:
        """Queue the replies for the next completions (and forget earlier requests); `auto` answers
        any further request by rule (see fake_llm.py)."""
        httpx.post(f"{self.url}/_script", json={"replies": list(replies), "auto": auto}).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        """The completion requests received since the last `script`."""
        return httpx.get(f"{self.url}/_requests").json()["requests"]

    def headers(self) -> list[dict[str, str | None]]:
        """The Authorization and X-Request-Timeout headers of those requests."""
        return httpx.get(f"{self.url}/_requests").json()["headers"]

    def finished_streams(self) -> int:
        """Streamed replies sent to their end since the last `script` (one the client closed early is not)."""
        return httpx.get(f"{self.url}/_requests").json()["finished_streams"]

    def closed_streams(self) -> list[float]:
        """When (time.time()) the client closed a streamed reply before its end, since the last `script`."""
        return httpx.get(f"{self.url}/_requests").json()["closed_streams"]

    def stop(self) -> None:
        stop(self.process)


def scripted_models(work_dir: Path, llm_url: str, profile: dict[str, Any] | None = None) -> Path:
    """A models config whose `scripted` profile talks to the scripted LLM at `llm_url`: a plain profile (the
    shipped `local` ones are tuned for small models: one forced call per turn)."""
    models = work_dir / "scripted_models.json"
    models.write_text(json.dumps({"profiles": {"scripted": {
        "base_url": f"{llm_url}/v1", "model": "fake-model", "tool_mode": "native", "max_tokens": 256,
        **(profile or {})}}}))
    return models


class GatewayProcess:
    """`python -m mcp_chat_app.cli serve` with its own registry, data dir and LLM endpoint."""

    def __init__(self, work_dir: Path, servers: dict[str, Any], llm_url: str, profile: dict[str, Any] | None = None,
                 **env: str) -> None:
        work_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir = work_dir
        registry = work_dir / "mcp_servers.json"
        registry.write_text(json.dumps({"mcpServers": servers}))
        models = scripted_models(work_dir, llm_url, profile)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "MCP_CHAT_SERVERS_CONFIG": str(registry),
            "MCP_CHAT_DATA_DIR": str(work_dir / "data"),
            "MCP_CHAT_MODELS_CONFIG": str(models),
            "MCP_CHAT_PROFILE": "scripted",
            "MCP_CHAT_PORT": str(self.port),
            "MCP_CHAT_WARM_UP": "0",  # on for a loopback LLM by default: it would take the tests' scripted replies
            **env,
        }
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        log = self.work_dir / "gateway.log"
        self.process = subprocess.Popen([sys.executable, "-m", "mcp_chat_app.cli", "-v", "serve"], cwd=REPO,
                                        env=self.env, stdout=log.open("a"), stderr=subprocess.STDOUT)
        wait_http(f"{self.url}/openapi.json", self.process, log)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def chat(self, user: str, body: Any, timeout: float = 60) -> httpx.Response:
        return httpx.post(f"{self.url}/chat/{user}", json=body, timeout=timeout)

    def stream_chat(self, user: str, body: dict[str, Any],
                    on_event: Callable[[str, Any], None] = lambda event, data: None) -> list[tuple[str, Any]]:
        """A streamed chat's (event, data) pairs; `on_event` sees each as it arrives (to answer a question)."""
        events = []
        with httpx.stream("POST", f"{self.url}/chat/{user}", json={**body, "stream": True}, timeout=30) as response:
            event = None
            for line in response.iter_lines():
                if line.startswith("event: "):
                    event = line.removeprefix("event: ")
                elif line.startswith("data: "):
                    events.append((event, json.loads(line.removeprefix("data: "))))
                    on_event(*events[-1])
        return events

    def keep_rule(self, user: str, server: str, tool: str, decision: str = "allow", scope: str = "always",
                  **body: Any) -> httpx.Response:
        """`PUT /chat/<user>/approvals/policy/<server>/<tool>`: how a plain JSON client lets a tool that is not
        read-only be called (it is never asked)."""
        return httpx.put(f"{self.url}/chat/{user}/approvals/policy/{server}/{tool}",
                         json={"decision": decision, "scope": scope, **body}, timeout=30)

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.get(f"{self.url}{path}", timeout=30, **kwargs)
