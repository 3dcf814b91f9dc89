"""The seven weather tools, as clients see them; the work is the service's (domain/service.py)."""

# No `from __future__ import annotations`: the SDK reads the tools' annotations, and those name `AskedPlace`, a
# local of add_tools.
import base64
from typing import Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from weather_mcp_server.domain.service import MAX_COMPARED, DayQuery, WeatherService
from weather_mcp_server.domain.units import UnitSystem, convert, preferred, to_celsius
from weather_mcp_server.errors import InvalidArgument
from weather_mcp_server.models import (
    AirQuality,
    Comparison,
    CurrentWeather,
    Forecast,
    PrecipitationOutlook,
    TemperatureSearch,
    WeatherChart,
)
from weather_mcp_server.places.question import asked_place, use_place_answer
from weather_mcp_server.places.resolver import PlaceResolver
from weather_mcp_server.tool_arguments import (
    TEMPERATURE_RANGE,
    City,
    PlaceName,
    DayArg,
    DayCount,
    DayOffset,
    Fahrenheit,
    Hours,
)
from weather_mcp_server.wording.air import air_quality_text
from weather_mcp_server.wording.language import pick, use_locale
from weather_mcp_server.wording.weather import (
    chart_text,
    comparison_text,
    current_text,
    forecast_text,
    precipitation_text,
    search_text,
)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)


def add_tools(server: MCPServer, service: WeatherService, places: PlaceResolver) -> None:
    """Register the tools on `server`, in the order clients list them."""
    # A parameter filled before the tool runs, not by the model: the user's pick when the place name is ambiguous.
    AskedPlace = asked_place(places)

    @server.tool(title="Current weather", annotations=READ_ONLY)
    async def get_current_weather(
        ctx: Context, city: City, place: AskedPlace, fahrenheit: Fahrenheit = False,
    ) -> Annotated[CallToolResult, CurrentWeather]:
        """Weather now in one city (现在, 气温, 冷, 热, hot, cold): temperature, humidity, wind, pressure, visibility, dew point, UV."""
        use_locale(ctx.request_context.meta)
        use_place_answer(city, place)
        result = convert(await service.current(city), _units(fahrenheit, ctx))
        return _result(result, current_text(result))

    @server.tool(title="Forecast by day and hour", annotations=READ_ONLY)
    async def get_forecast(
        ctx: Context,
        city: City,
        place: AskedPlace,
        day: DayArg = 0,
        days: DayCount = 1,
        hours: Hours = None,
        fahrenheit: Fahrenheit = False,
    ) -> Annotated[CallToolResult, Forecast]:
        """Forecast in one city for days (明天, 周末), hours (下午三点, 今晚, tonight), past days (昨天), with UV, sunrise and sunset."""
        use_locale(ctx.request_context.meta)
        use_place_answer(city, place)
        result = await service.forecast(city, _query(day, days, hours))
        result = convert(result, _units(fahrenheit, ctx))
        return _result(result, forecast_text(result))

    @server.tool(title="Rain and snow outlook", annotations=READ_ONLY)
    async def get_precipitation(
        ctx: Context,
        city: City,
        place: AskedPlace,
        day: DayArg = 0,
        days: DayCount = 1,
        hours: Hours = None,
        fahrenheit: Fahrenheit = False,
    ) -> Annotated[CallToolResult, PrecipitationOutlook]:
        """Will it rain or snow, is an umbrella needed (下雨, 下雪, 带伞) in one city on a day or in its hours."""
        use_locale(ctx.request_context.meta)
        use_place_answer(city, place)
        result = await service.precipitation(city, _query(day, days, hours))
        result = convert(result, _units(fahrenheit, ctx))
        return _result(result, precipitation_text(result))

    @server.tool(title="Air quality", annotations=READ_ONLY)
    async def get_air_quality(
        ctx: Context,
        city: City,
        place: AskedPlace,
        day: Annotated[DayOffset, Field(description="0 = today, 1 = tomorrow, -1 = yesterday")] = 0,
        hours: Hours = None,
    ) -> Annotated[CallToolResult, AirQuality]:
        """Air quality in one city (空气, PM2.5, AQI, 雾霾, 花粉): pollutants, pollen, China/US/European AQI, now, for a day or hours."""
        # One day a call (no `days`): each argument costs a small router's prompt on every request.
        use_locale(ctx.request_context.meta)
        use_place_answer(city, place)
        result = await service.air_quality(city, _query(day, 1, hours))
        return _result(result, air_quality_text(result))

    @server.tool(title="Compare places", annotations=READ_ONLY)
    async def compare_weather(
        ctx: Context,
        cities: Annotated[list[PlaceName], Field(min_length=2, max_length=MAX_COMPARED, description="The places to compare")],
        day: DayArg = 0,
        days: DayCount = 1,
    ) -> Annotated[CallToolResult, Comparison]:
        """Which of two or more named places is warmer, colder, windier or gets more rain (A和B哪个更冷, 哪里雨多, 哪边风大) on a day or days."""
        # Units by the client's standing preference (_meta.units) only: an argument here costs the router's prompt.
        use_locale(ctx.request_context.meta)
        result = convert(await service.compare(cities, DayQuery(day, days)), preferred(None, ctx.request_context.meta))
        return _result(result, comparison_text(result))

    @server.tool(title="Find cities by temperature", annotations=READ_ONLY)
    async def find_cities_by_temperature(
        ctx: Context,
        # The relation comes first, so the model writes it from the question's words before any number: with two
        # optional bounds it filled whichever came first ("below 5" as a lower bound of 5).
        relation: Annotated[
            Literal["above", "below", "between"],
            Field(description="'above' (over, warmer than, 以上, 超过, 高于), 'below' (under, colder than, 以下, "
                  "低于, 零下 = below 0), 'between' (between X and Y, X到Y之间, X以上Y以下)"),
        ],
        temp: Annotated[float, Field(ge=TEMPERATURE_RANGE[0], le=TEMPERATURE_RANGE[1], description="X, in °C or °F")],
        temp2: Annotated[
            float | None,
            Field(ge=TEMPERATURE_RANGE[0], le=TEMPERATURE_RANGE[1], description="Y, for 'between' only"),
        ] = None,
        day: DayArg = 0,
        measure: Annotated[Literal["max", "min", "mean"], Field(description="Which daily temperature to compare")] = "max",
        fahrenheit: Annotated[bool, Field(description="true only if the bounds are in °F (Fahrenheit, 华氏)")] = False,
    ) -> Annotated[CallToolResult, TemperatureSearch]:
        """Which of ~60 major cities (哪些城市) are above, below or between temperatures on a day; not for named cities."""
        # No city-list argument: small models filled one until it was full, and used it for every comparison.
        use_locale(ctx.request_context.meta)
        system = _units(fahrenheit, ctx)

        async def progress(done: float, total: float, message: str) -> None:
            await ctx.report_progress(done, total, message)

        low, high = _search_range(relation, temp, temp2)
        result = await service.cities_by_temperature(to_celsius(low, system), to_celsius(high, system), day, measure,
                                                     progress)
        result = convert(result, system)
        return _result(result, search_text(result))

    @server.tool(title="Weather chart", annotations=READ_ONLY)
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
        """Draw daily temperature or precipitation for a city as a PNG (chart, graph, plot, 图, 图表, 曲线)."""
        use_locale(ctx.request_context.meta)  # units: by the client's standing preference (_meta.units), as comparisons
        use_place_answer(city, place)
        chart, png = await service.chart(city, kind, DayQuery(day, days), preferred(None, ctx.request_context.meta))
        image = ImageContent(type="image", data=base64.b64encode(png).decode("ascii"), mime_type="image/png")
        return _result(chart, chart_text(chart), image)


def _units(fahrenheit: bool, ctx: Context) -> UnitSystem:
    """Imperial when the call asks for Fahrenheit, else the client's standing preference (`_meta.units`)."""
    return preferred("imperial" if fahrenheit else None, ctx.request_context.meta)


def _search_range(relation: str, temp: float, temp2: float | None) -> tuple[float | None, float | None]:
    """The searched bounds. A second bound is never dropped: with 'above' or 'below' it closes the range (a model
    wrote "above 20 and below 28" as `above`, 20, 28), unless it merely repeats the first."""
    if temp2 is not None and (relation == "between" or temp2 != temp):
        return temp, temp2  # the service puts an upside-down pair the right way up
    if relation == "between":
        raise InvalidArgument(pick("'between' needs temp2, the other bound", "'between' 需要 temp2（另一个温度）"))
    return (temp, None) if relation == "above" else (None, temp)


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
