"""One-line text renderings of the results, sent as the tool's text content next to the structured data."""

from __future__ import annotations

from weather_mcp_server.models import (
    CurrentWeather,
    Forecast,
    Location,
    PrecipitationOutlook,
    TemperatureSearch,
    WeatherChart,
)


def _place(location: Location) -> str:
    english = f" ({location.english_name})" if location.english_name != location.name else ""
    return f"{location.name}{english}, {location.country}"


def _tag(source: str, notice: str | None) -> str:
    return " [SIMULATED data]" if source == "simulated" or notice else " [Open-Meteo]"


def current_line(r: CurrentWeather) -> str:
    u = r.units
    uv = f", UV {r.uv_index:g}" if r.uv_index is not None else ""
    return (
        f"{_place(r.location)} at {r.time}: {r.temperature:g}{u['temperature']} (feels {r.feels_like:g}"
        f"{u['temperature']}), {r.description}, humidity {r.humidity:g}%, wind {r.wind_speed:g} {u['wind_speed']}, "
        f"precipitation {r.precipitation:g} mm{uv}.{_tag(r.source, r.notice)}"
    )


def forecast_line(r: Forecast) -> str:
    t = r.units["temperature"]
    days = "; ".join(
        f"{d.date} {d.description} {d.temp_min:g}..{d.temp_max:g}{t}"
        + (f" rain {d.precipitation_probability:g}%" if d.precipitation_probability is not None else "")
        for d in r.days
    )
    return f"{_place(r.location)} {len(r.days)}-day forecast: {days}.{_tag(r.source, r.notice)}"


def precipitation_line(r: PrecipitationOutlook) -> str:
    days = "; ".join(
        f"{d.date} {'snow' if d.snow_expected else 'rain' if d.rain_expected else 'dry'} "
        f"{d.precipitation_sum:g} mm" + (f" ({d.probability_max:g}%)" if d.probability_max is not None else "")
        for d in r.days
    )
    umbrella = "umbrella advised" if r.umbrella_advised else "no umbrella needed"
    return f"{_place(r.location)}: {umbrella}. {days}.{_tag(r.source, r.notice)}"


def temperature_search_line(r: TemperatureSearch) -> str:
    bounds = " and ".join(
        part
        for part in (
            f">= {r.min_temp:g}" if r.min_temp is not None else "",
            f"<= {r.max_temp:g}" if r.max_temp is not None else "",
        )
        if part
    )
    t = r.units["temperature"]
    found = ", ".join(f"{m.location.name} {m.temperature:g}{t}" for m in r.matches) or "none"
    return (
        f"{len(r.matches)} of {r.cities_checked} cities have a {r.measure} temperature {bounds}{t} on {r.date}: "
        f"{found}.{_tag(r.source, r.notice)}"
    )


def chart_line(r: WeatherChart) -> str:
    return f"{r.alt_text}{_tag(r.source, r.notice)}"
