"""Fixtures: the real weather server as a subprocess (stdio or streamable HTTP) replaying recorded payloads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.support.processes import free_port, stop, wait_http
from weather_mcp_server.places.index_file import index_path, open_index

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "open_meteo"
SERVER_START_TIMEOUT_S = 60.0
WEATHER_MCP = [sys.executable, "-m", "weather_mcp_server"]


@pytest.fixture(scope="session")
def place_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The gazetteer's index built afresh for this run, so no test trusts a file an earlier run left. A server
    started with XDG_CACHE_HOME=path.parents[1] finds it too."""
    path = tmp_path_factory.mktemp("cache") / "weather_mcp_server" / index_path().name
    open_index(path).close()
    return path


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module-scoped, so a module's async fixtures (the shared stdio session) live on one event loop."""
    return "asyncio"


def server_env(provider: str = "open-meteo", **extra: str) -> dict[str, str]:
    """Environment of a server process: no retry delays, no .env surprises, `tests.support` importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEATHER_")}
    env.update(
        WEATHER_PROVIDER=provider,
        WEATHER_RETRY_BACKOFF_S="0",
        PYTHONPATH=str(REPO),
        OMP_WAIT_POLICY="PASSIVE",
        **extra,
    )
    return env


def replaying(replay_dir: Path) -> list[str]:
    """The command of `weather-mcp` with its Open-Meteo requests answered from `replay_dir` (tests/support)."""
    return [sys.executable, "-m", "tests.support.weather_server_replaying", "--replay-dir", str(replay_dir)]


def replay_copy(tmp_path: Path, faults: list[dict[str, Any]] | None = None) -> Path:
    """A private copy of the recorded payloads, optionally with injected faults."""
    target = tmp_path / "replay"
    shutil.copytree(FIXTURES, target)
    if faults is not None:
        (target / "faults.json").write_text(json.dumps(faults), encoding="utf-8")
    return target


def stdio_client(env: dict[str, str], command: list[str] | None = None, **options: Any) -> Client:
    """A Client that launches `command` (`weather-mcp`) over stdio (`options`: more Client arguments)."""
    command = command or WEATHER_MCP
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(REPO))
    return Client(params, read_timeout_seconds=60, **options)


@contextmanager
def running_http_server(
    env: dict[str, str], *args: str, command: list[str] | None = None,
) -> Iterator[tuple[subprocess.Popen, str]]:
    """`command` (`weather-mcp`) `--transport http [args]` on a free port with `env`; yields the process and its
    /mcp URL."""
    port = free_port()
    process = subprocess.Popen(
        [*(command or WEATHER_MCP), "--transport", "http", "--port", str(port), *args],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_http(url, process, timeout=SERVER_START_TIMEOUT_S)
        yield process, url
    finally:
        stop(process)


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """`weather-mcp --transport http` on a free port, replaying the recorded payloads; yields its /mcp URL."""
    with running_http_server(server_env(), command=replaying(FIXTURES)) as (_, url):
        yield url


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest) -> Callable[[], Any]:
    """Open a client session to the replaying server over each transport."""
    if request.param == "http":
        url = request.getfixturevalue("http_server")

        @asynccontextmanager
        async def open_http() -> AsyncIterator[Client]:
            async with Client(url, read_timeout_seconds=60) as client:
                yield client

        return open_http

    client = request.getfixturevalue("stdio_session")

    @asynccontextmanager
    async def open_stdio() -> AsyncIterator[Client]:
        yield client

    return open_stdio


@pytest.fixture(scope="module")
async def stdio_session(anyio_backend: str) -> AsyncIterator[Client]:
    """One stdio session to the replaying server for a module: the tools keep no state between calls, and a
    process start (imports) is most of a short test's time."""
    async with stdio_client(server_env(), replaying(FIXTURES)) as client:
        yield client
