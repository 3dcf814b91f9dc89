"""One-line text renderings of the results, sent as the tool's text content next to the structured data."""

from __future__ import annotations

from weather_mcp_server.models import (
    CityTemperature,
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


def _both_names(location: Location) -> str:
    """`Harbin/哈尔滨`: the searched cities come from a fixed list, not from the user's words, so the reader gets
    both names and answers in either language without translating a dozen of them (a 1.5B model did not)."""
    chinese = location.chinese_name
    return f"{location.name}/{chinese}" if chinese and chinese != location.name else location.name


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
    return f"{_place(r.location)} {len(r.days)}-day forecast:{_overall(r)} {days}.{_tag(r.source, r.notice)}"


def _overall(r: Forecast) -> str:
    """For a week or so, the span first: a reader (or a small model) answering about the whole period should
    not have to scan, or invent, the figures of every day."""
    if len(r.days) < 4:
        return ""
    t = r.units["temperature"]
    span = f" overall {min(d.temp_min for d in r.days):g}..{max(d.temp_max for d in r.days):g}{t}"
    chances = [d for d in r.days if d.precipitation_probability is not None]
    if not chances:
        return span + ";"
    wettest = max(chances, key=lambda d: d.precipitation_probability or 0)
    return f"{span}, highest rain chance {wettest.precipitation_probability:g}% on {wettest.date};"


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

    def listed(cities: list[CityTemperature]) -> str:
        return ", ".join(f"{_both_names(m.location)} {m.temperature:g}{t}" for m in cities)

    found = listed(r.matches)
    if not found:
        closest = listed(r.nearest_outside[:3])
        found = f"none (closest: {closest})" if closest else "none"
    return (
        f"{len(r.matches)} of {r.cities_checked} cities have a {r.measure} temperature {bounds}{t} on {r.date}: "
        f"{found}.{_tag(r.source, r.notice)}"
    )


def chart_line(r: WeatherChart) -> str:
    """The alt text, then the plotted values: asked about the chart, a model quotes them instead of inventing."""
    if r.kind == "temperature":
        t = r.units["temperature"]
        values = "; ".join(f"{p.date} {p.temp_min:g}..{p.temp_max:g}{t}" for p in r.points)
    else:
        values = "; ".join(f"{p.date} {p.precipitation_sum:g} mm" for p in r.points)
    return f"{r.alt_text} Daily: {values}.{_tag(r.source, r.notice)}"
