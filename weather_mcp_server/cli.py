"""Command line entry point (`weather-mcp`, `python -m weather_mcp_server`): stdio (default), streamable HTTP, or the
MCP Inspector (--dev)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from dotenv import load_dotenv

if TYPE_CHECKING:
    import httpx

DEFAULT_HOST = "127.0.0.1"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")  # the hosts the SDK also guards against DNS rebinding
DEFAULT_PORT = 8765
INSPECTOR_PACKAGE = "@modelcontextprotocol/inspector@2.12.0"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command line options (their defaults from the environment and `.env`)."""
    load_dotenv()
    parser = argparse.ArgumentParser(prog="weather-mcp", description=__doc__)
    transport = os.environ.get("WEATHER_MCP_TRANSPORT", "stdio")
    parser.add_argument("--transport", choices=("stdio", "http"), default=transport)
    parser.add_argument("--host", default=os.environ.get("WEATHER_MCP_HOST", DEFAULT_HOST))
    parser.add_argument("--port", type=int, default=int(os.environ.get("WEATHER_MCP_PORT", DEFAULT_PORT)))
    parser.add_argument("--dev", action="store_true", help="open the MCP Inspector on this server (needs Node.js)")
    return parser.parse_args(argv)


def inspector_command() -> list[str]:
    """The Inspector launcher: the copy scripts/setup.sh installs in the venv, else npx."""
    local = Path(sys.prefix) / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
    if local.exists():
        return [str(local)]
    npx = shutil.which("npx")
    if npx is None:
        raise SystemExit("--dev needs Node.js (npx) for the MCP Inspector; none was found on PATH")
    return [npx, "-y", INSPECTOR_PACKAGE]


def check_http_auth(host: str) -> None:
    """Refuse bad auth settings before anything starts; warn when the tools are open beyond this machine."""
    from weather_mcp_server.http_auth import HttpAuthSettings

    try:
        auth = HttpAuthSettings.from_env()
    except ValueError as error:
        raise SystemExit(f"weather-mcp: {error}") from error
    if not auth.enabled and host not in LOOPBACK_HOSTS:
        print(f"weather-mcp: WARNING: serving MCP on {host} without authentication: anyone who reaches this port "
              "can call the tools. Set WEATHER_MCP_TOKEN, or the WEATHER_MCP_OAUTH_* settings "
              "(docs/weather_server.md).", file=sys.stderr)


def main(argv: list[str] | None = None, http_transport: httpx.AsyncBaseTransport | None = None) -> None:
    """Run the server with the chosen transport; `http_transport`, when given, answers its Open-Meteo requests
    instead of the network (the tests pass one that answers from recorded payloads)."""
    args = parse_args(argv)
    if args.dev:
        raise SystemExit(subprocess.call([*inspector_command(), sys.executable, "-m", "weather_mcp_server"]))
    if args.transport == "http":
        check_http_auth(args.host)
    # Imported late: --help and --dev need no server (the SDK and the models are most of the start-up time).
    from weather_mcp_server.config import Settings
    from weather_mcp_server.server import create_server

    server = create_server(Settings.from_env(), http_transport)
    if args.transport == "http":
        server.run("streamable-http", host=args.host, port=args.port)
    else:
        server.run("stdio")
