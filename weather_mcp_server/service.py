"""What each tool does, independent of MCP: resolve the place, fetch, and shape the result models."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

import anyio

from weather_mcp_server.charts import HEIGHT_PX, WIDTH_PX, ChartKind, ChartSeries, render_chart
from weather_mcp_server.config import Settings
from weather_mcp_server.default_cities import MAJOR_CITIES
from weather_mcp_server.errors import InvalidArgument
from weather_mcp_server.models import (
    ChartPoint,
    CityTemperature,
    CurrentWeather,
    Forecast,
    ForecastDay,
    Location,
    PrecipitationDay,
    PrecipitationHour,
    PrecipitationOutlook,
    TemperatureSearch,
    WeatherChart,
)
from weather_mcp_server.payload import Payload
from weather_mcp_server.place_names import has_cjk
from weather_mcp_server.places import PlaceResolver
from weather_mcp_server.providers import Sourced, WeatherProvider
from weather_mcp_server.weather_codes import RAIN_CODES, SNOW_CODES, describe

Measure = Literal["max", "min", "mean"]
ProgressFn = Callable[[float, float, str], Awaitable[None]]
MAX_HOURS = 48
MAX_CITIES = 100
RAIN_PROBABILITY = 50.0
RAIN_MM = 1.0
NEAREST_OUTSIDE = 3


class WeatherService:
    """The tools' logic; one instance per server."""

    def __init__(self, settings: Settings, resolver: PlaceResolver, provider: WeatherProvider) -> None:
        self._settings = settings
        self._resolver = resolver
        self._provider = provider

    async def current(self, city: str) -> CurrentWeather:
        """Current conditions."""
        location, sourced = await self._fetch(city)
        p = sourced.payloads[0]
        code = int(p.number("current", "weather_code"))
        return CurrentWeather(
            **self._common(location, sourced),
            time=p.text("current", "time"),
            temperature=p.number("current", "temperature_2m"),
            feels_like=p.number("current", "apparent_temperature"),
            humidity=p.number("current", "relative_humidity_2m"),
            wind_speed=p.number("current", "wind_speed_10m"),
            wind_direction=p.number("current", "wind_direction_10m"),
            wind_gusts=p.optional("current", "wind_gusts_10m"),
            weather_code=code,
            description=describe(code),
            precipitation=p.number("current", "precipitation"),
            snowfall=p.optional("current", "snowfall") or 0.0,
            cloud_cover=p.optional("current", "cloud_cover"),
            uv_index=p.optional("current", "uv_index"),
            is_day=bool(p.optional("current", "is_day")),
        )

    async def forecast(self, city: str, days: int) -> Forecast:
        """Daily forecast, today first."""
        location, sourced = await self._fetch(city)
        p = sourced.payloads[0]
        forecast_days = []
        for i, date in enumerate(p.column("daily", "time")[:days]):
            code = int(p.number("daily", "weather_code", i))
            forecast_days.append(
                ForecastDay(
                    date=date,
                    weather_code=code,
                    description=describe(code),
                    temp_min=p.number("daily", "temperature_2m_min", i),
                    temp_max=p.number("daily", "temperature_2m_max", i),
                    precipitation_sum=p.number("daily", "precipitation_sum", i),
                    precipitation_probability=p.optional("daily", "precipitation_probability_max", i),
                    wind_speed_max=p.number("daily", "wind_speed_10m_max", i),
                    uv_index_max=p.optional("daily", "uv_index_max", i),
                )
            )
        return Forecast(**self._common(location, sourced), days=forecast_days)

    async def precipitation(self, city: str, days: int, hourly: bool) -> PrecipitationOutlook:
        """Rain/snow per day (and optionally per hour from now)."""
        location, sourced = await self._fetch(city)
        p = sourced.payloads[0]
        outlook_days = []
        for i, date in enumerate(p.column("daily", "time")[:days]):
            code = int(p.number("daily", "weather_code", i))
            probability = p.optional("daily", "precipitation_probability_max", i)
            rain = p.number("daily", "rain_sum", i)
            snow = p.number("daily", "snowfall_sum", i)
            outlook_days.append(
                PrecipitationDay(
                    date=date,
                    description=describe(code),
                    precipitation_sum=p.number("daily", "precipitation_sum", i),
                    rain_sum=rain,
                    snowfall_sum=snow,
                    probability_max=probability,
                    precipitation_hours=p.optional("daily", "precipitation_hours", i),
                    rain_expected=rain >= RAIN_MM or code in RAIN_CODES or (probability or 0) >= RAIN_PROBABILITY,
                    snow_expected=snow > 0 or code in SNOW_CODES,
                )
            )
        hours = self._hours(p, outlook_days[-1].date) if hourly else None
        return PrecipitationOutlook(
            **self._common(location, sourced),
            umbrella_advised=any(d.rain_expected or d.snow_expected for d in outlook_days),
            days=outlook_days,
            hours=hours,
        )

    async def cities_by_temperature(
        self,
        min_temp: float | None,
        max_temp: float | None,
        days_ahead: int,
        measure: Measure,
        progress: ProgressFn,
    ) -> TemperatureSearch:
        """Rank cities whose day temperature lies within [min_temp, max_temp]; one upstream request for all."""
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
        sourced = await self._provider.daily_many(locations, days_ahead + 1)
        await progress(total - 1, total, f"fetched {len(locations)} cities in one request")
        rows = [
            self._day_temperature(loc, p, days_ahead, measure)
            for loc, p in zip(locations, sourced.payloads, strict=True)
        ]
        inside = [r for r in rows if _within(r.temperature, min_temp, max_temp)]
        outside = [r for r in rows if not _within(r.temperature, min_temp, max_temp)]
        inside.sort(key=lambda r: _inside_rank(r.temperature, min_temp, max_temp))
        outside.sort(key=lambda r: _distance_outside(r.temperature, min_temp, max_temp))
        await progress(total, total, f"{len(inside)} of {len(rows)} cities match")
        return TemperatureSearch(
            date=sourced.payloads[0].text("daily", "time", days_ahead),
            days_ahead=days_ahead,
            measure=measure,
            min_temp=min_temp,
            max_temp=max_temp,
            matches=[r.model_copy(update={"rank": i}) for i, r in enumerate(inside, start=1)],
            nearest_outside=[r.model_copy(update={"rank": i}) for i, r in enumerate(outside[:NEAREST_OUTSIDE], 1)],
            cities_checked=len(rows),
            source=sourced.source,
            units={"temperature": sourced.payloads[0].units()["temperature"]},
            attribution=sourced.attribution,
            notice=sourced.notice,
        )

    async def chart(self, city: str, days: int, kind: ChartKind) -> tuple[WeatherChart, bytes]:
        """A PNG chart plus the data it shows."""
        forecast = await self.forecast(city, days)
        chinese = has_cjk(forecast.location.name)
        series = ChartSeries(
            title=_chart_title(forecast.location.name, len(forecast.days), kind, chinese),
            dates=[d.date for d in forecast.days],
            temp_max=[d.temp_max for d in forecast.days],
            temp_min=[d.temp_min for d in forecast.days],
            precipitation=[d.precipitation_sum for d in forecast.days],
            probability=[d.precipitation_probability for d in forecast.days],
            chinese=chinese,
        )
        png, font = await anyio.to_thread.run_sync(render_chart, kind, series)
        points = [
            ChartPoint(date=d.date, temp_min=d.temp_min, temp_max=d.temp_max)
            if kind == "temperature"
            else ChartPoint(date=d.date, precipitation_sum=d.precipitation_sum,
                            precipitation_probability=d.precipitation_probability)
            for d in forecast.days
        ]
        chart = WeatherChart(
            **forecast.model_dump(include={"location", "source", "units", "attribution", "notice"}),
            kind=kind,
            width=WIDTH_PX,
            height=HEIGHT_PX,
            font=font,
            alt_text=_alt_text(series, kind, forecast.units),
            points=points,
        )
        return chart, png

    async def _fetch(self, city: str) -> tuple[Location, Sourced]:
        location = await self._resolver.resolve(city)
        return location, await self._provider.forecast(location)

    @staticmethod
    def _common(location: Location, sourced: Sourced) -> dict[str, object]:
        return {
            "location": location,
            "source": sourced.source,
            "units": sourced.payloads[0].units(),
            "attribution": sourced.attribution,
            "notice": sourced.notice,
        }

    @staticmethod
    def _hours(p: Payload, last_date: str) -> list[PrecipitationHour]:
        now_hour = p.text("current", "time")[:13] + ":00"
        times = p.column("hourly", "time")
        start = next((i for i, t in enumerate(times) if t >= now_hour), len(times))
        hours = []
        for i in range(start, len(times)):
            if times[i][:10] > last_date or len(hours) == MAX_HOURS:
                break
            code = int(p.number("hourly", "weather_code", i))
            hours.append(
                PrecipitationHour(
                    time=times[i],
                    precipitation=p.number("hourly", "precipitation", i),
                    rain=p.number("hourly", "rain", i),
                    snowfall=p.number("hourly", "snowfall", i),
                    probability=p.optional("hourly", "precipitation_probability", i),
                    description=describe(code),
                )
            )
        return hours

    @staticmethod
    def _day_temperature(location: Location, p: Payload, index: int, measure: Measure) -> CityTemperature:
        high = p.number("daily", "temperature_2m_max", index)
        low = p.number("daily", "temperature_2m_min", index)
        value = {"max": high, "min": low, "mean": round((high + low) / 2, 1)}[measure]
        code = int(p.number("daily", "weather_code", index))
        return CityTemperature(
            rank=0, location=location, temperature=value, temp_min=low, temp_max=high, description=describe(code)
        )


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


def _chart_title(name: str, days: int, kind: ChartKind, chinese: bool) -> str:
    if chinese:
        return f"{name} 未来{days}天{'气温' if kind == 'temperature' else '降水'}"
    return f"{name}: {days}-day {'temperature' if kind == 'temperature' else 'precipitation'}"


def _alt_text(series: ChartSeries, kind: ChartKind, units: dict[str, str]) -> str:
    span = f"{series.dates[0]} to {series.dates[-1]}"
    if kind == "temperature":
        t = units.get("temperature", "°C")
        return (
            f"Line chart '{series.title}', {span}: highs {min(series.temp_max):.1f} to {max(series.temp_max):.1f} {t}, "
            f"lows {min(series.temp_min):.1f} to {max(series.temp_min):.1f} {t}."
        )
    wettest = max(range(len(series.dates)), key=lambda i: series.precipitation[i])
    return (
        f"Bar chart '{series.title}', {span}: total {sum(series.precipitation):.1f} mm, "
        f"wettest {series.dates[wettest]} with {series.precipitation[wettest]:.1f} mm."
    )


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
        raise InvalidArgument("Give min_temp and/or max_temp within the temperatures on record")
    if min_temp is not None and max_temp is not None and min_temp > max_temp:
        return max_temp, min_temp
    return min_temp, max_temp
