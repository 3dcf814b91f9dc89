"""Which hours of a day a call asks for: hours by the clock, or a part of the day as people name it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Literal

from weather_mcp_server.domain.days import DaySpan, weekday_name
from weather_mcp_server.domain.weather_codes import describe
from weather_mcp_server.errors import BeyondForecast
from weather_mcp_server.models import HourRecord
from weather_mcp_server.sources.payload import Payload
from weather_mcp_server.wording.language import pick

Part = Literal["morning", "noon", "afternoon", "evening", "night"]
# The hours of each part (end excluded). The night runs to 06:00 of the next day: hours 24-29.
PARTS: dict[str, range] = {
    "morning": range(6, 12),  # 早上, 上午
    "noon": range(11, 14),  # 中午
    "afternoon": range(12, 18),  # 下午
    "evening": range(17, 20),  # 傍晚
    "night": range(18, 30),  # 晚上, 今晚, 夜里, tonight
}


def asked_hours(hours: list[int] | None, part: str | None) -> list[int]:
    """The hours of the day asked for, in order (24 and up: the next day's); none when neither is given.
    Hours by the clock win over a part: "下午三点" is three o'clock, whatever the model adds."""
    if hours:
        return sorted(set(hours))
    return list(PARTS[part]) if part else []


def hour_indices(first_hour_index: int, hours: list[int], available: int, last_time: str) -> list[int]:
    """Positions of the asked hours in an hourly series, from the asked day's midnight; beyond the series, an
    error that states where the hourly data ends."""
    indices = [first_hour_index + hour for hour in hours]
    if indices and indices[-1] >= available:
        raise BeyondForecast(pick(f"Hourly data reaches {last_time.replace('T', ' ')}; the hours asked lie beyond it.",
                                  f"逐小时数据只到{last_time.replace('T', ' ')}，所问的时间超出了范围。"))
    return indices


def part_label(hours: Sequence[int], part: str | None) -> str | None:
    """The part a result covers: none when hours by the clock were asked (they win)."""
    return None if hours else part


def hour_records(p: Payload, span: DaySpan, hours: Sequence[int], part: str | None, today: date) -> list[HourRecord]:
    """The asked hours of every asked day, each with its own date (none asked: an empty list)."""
    asked = asked_hours(list(hours), part)
    if not asked:
        return []
    times = p.column("hourly", "time")
    return [_record(p, i, today) for offset in span.offsets
            for i in hour_indices(p.day_index(offset) * 24, asked, len(times), times[-1])]


def _record(p: Payload, i: int, today: date) -> HourRecord:
    time = p.text("hourly", "time", i)
    day = date.fromisoformat(time[:10])
    code = int(p.number("hourly", "weather_code", i))
    is_day = p.optional("hourly", "is_day", i)
    return HourRecord(
        date=day.isoformat(), weekday=weekday_name(day), day=(day - today).days, time=time, hour=int(time[11:13]),
        weather_code=code,
        description=describe(code, (p.optional("hourly", "rain", i) or 0) > 0
                             and (p.optional("hourly", "snowfall", i) or 0) > 0),
        temperature=p.number("hourly", "temperature_2m", i),
        feels_like=p.optional("hourly", "apparent_temperature", i),
        humidity=p.optional("hourly", "relative_humidity_2m", i),
        precipitation=p.number("hourly", "precipitation", i),
        rain=p.optional("hourly", "rain", i),
        snowfall=p.optional("hourly", "snowfall", i),
        precipitation_probability=p.optional("hourly", "precipitation_probability", i),
        cloud_cover=p.optional("hourly", "cloud_cover", i),
        wind_speed=p.optional("hourly", "wind_speed_10m", i),
        uv_index=p.optional("hourly", "uv_index", i),
        pressure=p.optional("hourly", "pressure_msl", i),
        visibility=p.optional("hourly", "visibility", i),
        dew_point=p.optional("hourly", "dew_point_2m", i),
        is_day=None if is_day is None else bool(is_day),
    )
