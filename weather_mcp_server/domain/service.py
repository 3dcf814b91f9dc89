"""What each tool does, independent of MCP: resolve the place, fetch, pick exactly the days asked, decide the
verdicts, and shape the result models (their wording lives in wording/)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date
from typing import Literal

import anyio

from weather_mcp_server.charts.series import HEIGHT_PX, WIDTH_PX, ChartKind, ChartSeries, render_chart
from weather_mcp_server.config import Settings
from weather_mcp_server.domain import units as unit_systems
from weather_mcp_server.domain.air import air_quality_result
from weather_mcp_server.domain.days import (
    HORIZON_DAYS,
    PAST_DAYS,
    DaySpan,
    day_names,
    select_days,
    short_label,
    weekday_name,
)
from weather_mcp_server.domain.hours import hour_records, part_label
from weather_mcp_server.domain.units import UnitSystem
from weather_mcp_server.domain.verdicts import (
    RAIN_MM,
    Standing,
    comparison_verdicts,
    feel_verdicts,
    forecast_verdicts,
    hour_verdicts,
    precipitation_verdicts,
    rain_expected,
    raining_now,
    snowing_now,
    snow_expected,
    umbrella_now,
    windy,
)
from weather_mcp_server.domain.weather_codes import describe
from weather_mcp_server.errors import InvalidArgument
from weather_mcp_server.models import (
    AirQuality,
    ChartPoint,
    CityTemperature,
    ComparedPlace,
    Comparison,
    CurrentWeather,
    Forecast,
    ForecastDay,
    Location,
    PrecipitationDay,
    PrecipitationOutlook,
    TemperatureSearch,
    WeatherChart,
)
from weather_mcp_server.places.default_cities import MAJOR_CITIES
from weather_mcp_server.places.resolver import PlaceResolver
from weather_mcp_server.sources.payload import Payload
from weather_mcp_server.sources.provider import Sourced, WeatherProvider
from weather_mcp_server.wording.language import pick
from weather_mcp_server.wording.weather import chart_alt_text, chart_title, is_chinese, notice, place_name

Measure = Literal["max", "min", "mean"]
ProgressFn = Callable[[float, float, str], Awaitable[None]]
MAX_CITIES = 100
MAX_COMPARED = 8
NEAREST_OUTSIDE = 3


@dataclass(frozen=True)
class DayQuery:
    """The days (and hours) a call asks for, as the caller wrote them (see days.select_days, hours.asked_hours)."""

    day: int | str = 0
    days: int = 1
    hours: tuple[int, ...] = ()
    part: str | None = None

    @property
    def past_days(self) -> int:
        """The days before today to fetch: known from an offset (none beyond the limit, which `span` refuses with
        the limit stated); a date's are known once today is (see `_fetch`)."""
        past = max(0, -self.day) if isinstance(self.day, int) else int(self.day == "weekend")  # Sunday's Saturday
        return past if past <= PAST_DAYS else 0

    def span(self, payload: Payload) -> tuple[date, DaySpan]:
        """The place's today and the asked span within the payload's days."""
        today, available = payload.calendar()
        return today, select_days(today, self.day, self.days, available=available)


class WeatherService:
    """The tools' logic; one instance per server."""

    def __init__(self, settings: Settings, resolver: PlaceResolver, provider: WeatherProvider) -> None:
        self._settings = settings
        self._resolver = resolver
        self._provider = provider

    async def current(self, city: str) -> CurrentWeather:
        """Current conditions, with today's low and high."""
        location, sourced, _, _ = await self._fetch(city, DayQuery())
        p = sourced.payloads[0]
        code = int(p.number("current", "weather_code"))
        temperature, feels = p.number("current", "temperature_2m"), p.number("current", "apparent_temperature")
        today_min = p.number("daily", "temperature_2m_min", p.day_index(0))
        today_max = p.number("daily", "temperature_2m_max", p.day_index(0))
        precipitation = p.number("current", "precipitation")
        wind, gusts = p.number("current", "wind_speed_10m"), p.optional("current", "wind_gusts_10m")
        time = p.text("current", "time")
        raining, snowing = raining_now(precipitation, code), snowing_now(p.number("current", "snowfall"), code)
        return CurrentWeather(
            **self._common(location, sourced),
            verdicts=[*feel_verdicts(max(temperature, today_max), min(feels, today_max)), raining, snowing,
                      umbrella_now(raining, snowing), windy(wind, gusts)],
            time=time,
            weekday=weekday_name(date.fromisoformat(time[:10])),
            temperature=temperature,
            feels_like=feels,
            humidity=p.number("current", "relative_humidity_2m"),
            wind_speed=wind,
            wind_direction=p.number("current", "wind_direction_10m"),
            wind_gusts=gusts,
            weather_code=code,
            description=describe(code),
            precipitation=precipitation,
            snowfall=p.optional("current", "snowfall") or 0.0,
            cloud_cover=p.optional("current", "cloud_cover"),
            uv_index=p.optional("current", "uv_index"),
            pressure=p.optional("current", "pressure_msl"),
            visibility=p.optional("current", "visibility"),
            dew_point=p.optional("current", "dew_point_2m"),
            is_day=bool(p.optional("current", "is_day")),
            today_min=today_min,
            today_max=today_max,
        )

    async def forecast(self, city: str, query: DayQuery) -> Forecast:
        """Daily forecast for exactly the asked days, and the asked hours of them."""
        location, sourced, today, span = await self._fetch(city, query)
        p = sourced.payloads[0]
        days = _forecast_days(p, span)
        hours = hour_records(p, span, query.hours, query.part, today)
        if hours:
            verdicts = hour_verdicts(hours, umbrella=False)
        else:
            verdicts = forecast_verdicts(days, [short_label(today, d.day) for d in days],
                                         [day_names(today, d.day) for d in days])
        return Forecast(**self._common(location, sourced), verdicts=verdicts, days=days, hours=hours,
                        part=part_label(query.hours, query.part))

    async def precipitation(self, city: str, query: DayQuery) -> PrecipitationOutlook:
        """Rain and snow per asked day (or in the asked hours), and whether to take an umbrella."""
        location, sourced, today, span = await self._fetch(city, query)
        p = sourced.payloads[0]
        days = [_precipitation_day(p, i) for i in span.offsets]
        hours = hour_records(p, span, query.hours, query.part, today)
        if hours:
            verdicts = hour_verdicts(hours, umbrella=True)
        else:
            verdicts = precipitation_verdicts(days, [short_label(today, d.day) for d in days])
        holds = {v.topic: bool(v.holds) for v in verdicts}
        return PrecipitationOutlook(
            **self._common(location, sourced),
            verdicts=verdicts,
            umbrella_advised=holds["rain"] or holds["snow"],
            rain_expected=holds["rain"],
            snow_expected=holds["snow"],
            days=days,
            hours=hours,
            part=part_label(query.hours, query.part),
        )

    async def air_quality(self, city: str, query: DayQuery) -> AirQuality:
        """Air quality now and on the asked days (or hours): concentrations, European, US and China AQI."""
        location = await self._resolver.resolve(city)
        # A day more than asked: the 24-hour and 8-hour means behind the indices of the first asked hours.
        sourced = await self._provider.air_quality(location, query.past_days + 1)
        today, span = query.span(sourced.payloads[0])
        if span.start < 1 - sourced.payloads[0].past_days:
            sourced = await self._provider.air_quality(location, 1 - span.start)
        return air_quality_result(self._common(location, sourced), sourced.payloads[0], span, query.hours, query.part,
                                  today)

    async def compare(self, cities: list[str], query: DayQuery) -> Comparison:
        """Two to eight places over the same days: their figures, and which is warmer, colder and wetter."""
        if not 2 <= len(cities) <= MAX_COMPARED:
            raise InvalidArgument(pick(f"Compare 2 to {MAX_COMPARED} places, got {len(cities)}",
                                       f"请比较 2 到 {MAX_COMPARED} 个地方，收到 {len(cities)} 个"))
        located = await self._resolver.resolve_among(cities)
        fetched = [await self._fetch_at(location, query) for location in located]
        labels = [place_name(location) for location, *_ in fetched]
        places, standings = [], []
        for city, label, (location, sourced, _, span) in zip(cities, labels, fetched):
            if labels.count(label) > 1:  # two Charlestons: each as the caller named it ("Charleston, South Carolina")
                location = location.model_copy(update={"name": city, "english_name": city, "chinese_name": None})
            p = sourced.payloads[0]
            days = _forecast_days(p, span)
            # The present when the call asks for today by its offset; a day it names ("saturday", a date) is the day's.
            asks_now = isinstance(query.day, int) and (span.start, span.count) == (0, 1)
            now = p.number("current", "temperature_2m") if asks_now else None
            places.append(ComparedPlace(location=location, temperature=now, days=days))
            standings.append(Standing(
                location=location,
                name=place_name(location),
                warmth=now if now is not None else _mean([d.temp_max for d in days]),
                coldness=now if now is not None else _mean([d.temp_min for d in days]),
                wetness=round(sum(d.precipitation_sum for d in days), 1),
                windiness=max(d.wind_speed_max for d in days),  # the figure the result shows (no wind now in it)
                chance=_highest([d.precipitation_probability for d in days]),
                uv=_highest([d.uv_index_max for d in days]),
            ))
        first = fetched[0][1]
        return Comparison(places=places, verdicts=comparison_verdicts(standings), source=first.source,
                          units=first.payloads[0].units(), attribution=first.attribution,
                          notice=notice(first))

    async def cities_by_temperature(
        self,
        min_temp: float | None,
        max_temp: float | None,
        day: int | str,
        measure: Measure,
        progress: ProgressFn,
    ) -> TemperatureSearch:
        """Rank cities whose day temperature lies within [min_temp, max_temp]; one upstream request for all. A
        weekday or a date is the day of the first city's calendar ("cities above 90°F this Friday?" had been
        searched for an offset counted from the asker's date, a day later where the first city's is the next)."""
        min_temp, max_temp = _search_bounds(min_temp, max_temp)
        names = list(self._settings.default_cities) or [english for _, english in MAJOR_CITIES]
        if len(names) > MAX_CITIES:
            raise InvalidArgument(f"At most {MAX_CITIES} cities per query (WEATHER_DEFAULT_CITIES), got {len(names)}")
        total = len(names) + 2
        locations: list[Location] = []
        for done, name in enumerate(names, start=1):
            location = await self._resolver.resolve(name)
            if all((k.latitude, k.longitude) != (location.latitude, location.longitude) for k in locations):
                locations.append(location)
            await progress(done, total, f"resolved {name}")
        query = DayQuery(day=day)
        sourced = await self._provider.daily_many(locations, HORIZON_DAYS, query.past_days)
        first = sourced.payloads[0]
        today, span = query.span(first)
        await progress(total - 1, total, f"fetched {len(locations)} cities in one request")
        rows = [
            self._day_temperature(loc, p, span.start, measure)
            for loc, p in zip(locations, sourced.payloads, strict=True)
        ]
        inside = [r for r in rows if _within(r.temperature, min_temp, max_temp)]
        outside = [r for r in rows if not _within(r.temperature, min_temp, max_temp)]
        inside.sort(key=lambda r: _inside_rank(r.temperature, min_temp, max_temp))
        outside.sort(key=lambda r: _distance_outside(r.temperature, min_temp, max_temp))
        await progress(total, total, f"{len(inside)} of {len(rows)} cities match")
        searched = first.text("daily", "time", first.day_index(span.start))
        return TemperatureSearch(
            date=searched,
            weekday=weekday_name(date.fromisoformat(searched)),
            day=span.start,
            measure=measure,
            min_temp=min_temp,
            max_temp=max_temp,
            matches=[r.model_copy(update={"rank": i}) for i, r in enumerate(inside, start=1)],
            nearest_outside=[r.model_copy(update={"rank": i}) for i, r in enumerate(outside[:NEAREST_OUTSIDE], 1)],
            cities_checked=len(rows),
            source=sourced.source,
            units={"temperature": first.units()["temperature"]},
            attribution=sourced.attribution,
            notice=notice(sourced),
        )

    async def chart(self, city: str, kind: ChartKind, query: DayQuery,
                    units: UnitSystem = "metric") -> tuple[WeatherChart, bytes]:
        """A PNG chart of the asked days (drawn in `units`) plus the data it shows."""
        forecast = unit_systems.convert(await self.forecast(city, query), units)
        days = forecast.days
        series = ChartSeries(
            title=chart_title(forecast.location, days, kind),
            dates=[d.date for d in days],
            temp_max=[d.temp_max for d in days],
            temp_min=[d.temp_min for d in days],
            precipitation=[d.precipitation_sum for d in days],
            probability=[d.precipitation_probability for d in days],
            chinese=is_chinese(),
            units=forecast.units,
        )
        png, font = await anyio.to_thread.run_sync(render_chart, kind, series)
        points = [
            ChartPoint(date=d.date, weekday=d.weekday, day=d.day, temp_min=d.temp_min, temp_max=d.temp_max)
            if kind == "temperature"
            else ChartPoint(date=d.date, weekday=d.weekday, day=d.day, precipitation_sum=d.precipitation_sum,
                            precipitation_probability=d.precipitation_probability)
            for d in days
        ]
        chart = WeatherChart(
            **forecast.model_dump(include={"location", "source", "units", "attribution", "notice"}),
            kind=kind,
            width=WIDTH_PX,
            height=HEIGHT_PX,
            font=font,
            alt_text=chart_alt_text(series, kind, forecast.units),
            points=points,
        )
        return chart, png

    async def _fetch(self, city: str, query: DayQuery) -> tuple[Location, Sourced, date, DaySpan]:
        """The place, its forecast reaching back to the asked days, its today and the asked span."""
        return await self._fetch_at(await self._resolver.resolve(city), query)

    async def _fetch_at(self, location: Location, query: DayQuery) -> tuple[Location, Sourced, date, DaySpan]:
        sourced = await self._provider.forecast(location, query.past_days)
        today, span = query.span(sourced.payloads[0])
        if span.start < -sourced.payloads[0].past_days:  # a date further back than fetched
            sourced = await self._provider.forecast(location, -span.start)
        return location, sourced, today, span

    @staticmethod
    def _common(location: Location, sourced: Sourced) -> dict[str, object]:
        return {
            "location": location,
            "source": sourced.source,
            "units": sourced.payloads[0].units(),
            "attribution": sourced.attribution,
            "notice": notice(sourced),
        }

    @staticmethod
    def _day_temperature(location: Location, p: Payload, offset: int, measure: Measure) -> CityTemperature:
        index = p.day_index(offset)
        high = p.number("daily", "temperature_2m_max", index)
        low = p.number("daily", "temperature_2m_min", index)
        value = {"max": high, "min": low, "mean": round((high + low) / 2, 1)}[measure]
        code = int(p.number("daily", "weather_code", index))
        return CityTemperature(
            rank=0, location=location, temperature=value, temp_min=low, temp_max=high, description=describe(code)
        )


def _forecast_days(p: Payload, span: DaySpan) -> list[ForecastDay]:
    days = []
    for offset in span.offsets:
        i = p.day_index(offset)
        code = int(p.number("daily", "weather_code", i))
        daylight = p.optional("daily", "daylight_duration", i)
        polar = daylight in (0.0, 86400.0)  # no rise or set to give
        days.append(ForecastDay(
            **_day(p, offset),
            **_day_means(p, i),
            weather_code=code,
            description=describe_day(p, i, code),
            temp_min=p.number("daily", "temperature_2m_min", i),
            temp_max=p.number("daily", "temperature_2m_max", i),
            precipitation_sum=p.number("daily", "precipitation_sum", i),
            rain_sum=p.optional("daily", "rain_sum", i),
            snowfall_sum=p.optional("daily", "snowfall_sum", i),
            precipitation_probability=p.optional("daily", "precipitation_probability_max", i),
            wind_speed_max=p.number("daily", "wind_speed_10m_max", i),
            uv_index_max=p.optional("daily", "uv_index_max", i),
            sunrise=None if polar else p.optional_text("daily", "sunrise", i),
            sunset=None if polar else p.optional_text("daily", "sunset", i),
            daylight_duration=daylight,
        ))
    return days


def _precipitation_day(p: Payload, offset: int) -> PrecipitationDay:
    i = p.day_index(offset)
    code = int(p.number("daily", "weather_code", i))
    probability = p.optional("daily", "precipitation_probability_max", i)
    rain = p.number("daily", "rain_sum", i)
    snow = p.number("daily", "snowfall_sum", i)
    return PrecipitationDay(
        **_day(p, offset),
        **_day_means(p, i),
        description=describe_day(p, i, code),
        precipitation_sum=p.number("daily", "precipitation_sum", i),
        rain_sum=rain,
        snowfall_sum=snow,
        probability_max=probability,
        precipitation_hours=p.optional("daily", "precipitation_hours", i),
        rain_expected=rain_expected(rain, code, probability),
        snow_expected=snow_expected(snow, code),
    )


def describe_day(p: Payload, i: int, code: int) -> str:
    """The day's weather in words; a day with both rain and snow is sleet, whatever its most severe hour. Its rain
    must count as rain (RAIN_MM), as the day's verdict counts it: "Rain and snow ... no rain fell" reads as nonsense."""
    mixed = (p.optional("daily", "rain_sum", i) or 0) >= RAIN_MM and (p.optional("daily", "snowfall_sum", i) or 0) > 0
    return describe(code, mixed)


def _day(p: Payload, offset: int) -> dict[str, object]:
    """The day fields of the daily record `offset` days from the place's today."""
    day = p.text("daily", "time", p.day_index(offset))
    return {"date": day, "weekday": weekday_name(date.fromisoformat(day)), "day": offset}


def _day_means(p: Payload, i: int) -> dict[str, float | None]:
    """The day's means of humidity, cloud, pressure and dew point (null where the provider has none)."""
    return {
        "humidity_mean": p.optional("daily", "relative_humidity_2m_mean", i),
        "cloud_cover_mean": p.optional("daily", "cloud_cover_mean", i),
        "pressure_mean": p.optional("daily", "pressure_msl_mean", i),
        "dew_point_mean": p.optional("daily", "dew_point_2m_mean", i),
    }


def _highest(values: list[float | None]) -> float | None:
    """The highest of the values, None when any is missing (a provider without the field)."""
    return None if not values or any(value is None for value in values) else max(values)


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 1)


def _within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _inside_rank(value: float, low: float | None, high: float | None) -> float:
    """Both bounds: closest to the middle first; only a lower bound: hottest first; only an upper: coldest."""
    if low is not None and high is not None:
        return abs(value - (low + high) / 2)
    return -value if low is not None else value


def _distance_outside(value: float, low: float | None, high: float | None) -> float:
    if low is not None and value < low:
        return low - value
    if high is not None and value > high:
        return value - high
    return 0.0


# Air temperatures on record lie between these (°C): a bound beyond them excludes nothing.
RECORD_LOW_C, RECORD_HIGH_C = -89.2, 56.7


def _search_bounds(min_temp: float | None, max_temp: float | None) -> tuple[float | None, float | None]:
    """The bounds as searched: one beyond any temperature on record is open (models write -100 or 100 for
    "no bound"), and a pair given upside down ("29以上，30以下" as 30..29) is the same span the right way up."""
    if min_temp is not None and min_temp <= RECORD_LOW_C:
        min_temp = None
    if max_temp is not None and max_temp >= RECORD_HIGH_C:
        max_temp = None
    if min_temp is None and max_temp is None:
        raise InvalidArgument(pick("Give a temperature within the temperatures on record (-89 to 57 °C)",
                                   "请给出有记录以来的气温范围内的温度（-89~57°C）"))
    if min_temp is not None and max_temp is not None and min_temp > max_temp:
        return max_temp, min_temp
    return min_temp, max_temp
