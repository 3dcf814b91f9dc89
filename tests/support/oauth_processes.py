"""The OAuth tests' real processes: the local authorization server (tests/gateway/oauth_authorization_server.py)
and an OAuth-protected MCP server that answers `whoami` with the token's subject (oauth_identity_server.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.gateway_processes import REPO
from tests.support.processes import free_port, stop, wait_http

SERVERS = REPO / "tests" / "gateway"


@contextmanager
def running_authorization_server(log_dir: Path, access_ttl_s: int) -> Iterator[str]:
    """oauth_authorization_server.py on a free port, its access tokens living `access_ttl_s`; yields its URL."""
    port = free_port()
    log = log_dir / "as.log"
    process = subprocess.Popen([sys.executable, str(SERVERS / "oauth_authorization_server.py"), str(port)],
                               env={**os.environ, "AS_ACCESS_TTL_S": str(access_ttl_s)},
                               stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{url}/_stats", process, log)
        yield url
    finally:
        stop(process)


@contextmanager
def running_identity_server(log_dir: Path, authorization_server: str) -> Iterator[str]:
    """oauth_identity_server.py on a free port, trusting `authorization_server`'s tokens; yields its MCP URL."""
    port = free_port()
    log = log_dir / "identity.log"
    process = subprocess.Popen([sys.executable, str(SERVERS / "oauth_identity_server.py"), str(port),
                                authorization_server], cwd=REPO, stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_http(url, process, log)
        yield url
    finally:
        stop(process)
