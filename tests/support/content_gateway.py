"""The gateway over servers that return every content type: @modelcontextprotocol/server-everything (streamable
HTTP: resource links, binary resources) and the content server (stdio: audio)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.gateway_processes import HERE, GatewayProcess, start_everything
from tests.support.processes import free_port, stop

CONTENT_SERVER = {"command": sys.executable, "args": [str(HERE / "content_mcp_server.py")]}


@contextmanager
def content_gateway(work_dir: Path, llm_url: str) -> Iterator[GatewayProcess]:
    """`mcp-chat serve` on `llm_url` with the servers `everything` and `content`; all stopped afterwards."""
    port = free_port()
    everything = start_everything("streamableHttp", port, work_dir / "everything.log")
    try:
        process = GatewayProcess(work_dir, {"everything": {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"},
                                            "content": CONTENT_SERVER}, llm_url)
        try:
            yield process
        finally:
            process.stop()
    finally:
        stop(everything)
