"""Which days a call asks for (an offset, a weekday or a date, plus a count), and how each day is named.

Offsets count from today *at the place*: the first day of a forecast payload is the place's local today, so
"tomorrow" in Sydney is Sydney's tomorrow whatever the server's clock says.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from weather_mcp_server.errors import BeyondForecast, InvalidArgument, PastDay
from weather_mcp_server.wording.language import current, pick

HORIZON_DAYS = 16  # today and 15 more: what Open-Meteo forecasts
PAST_DAYS = 92  # how far back the forecast API's `past_days` reaches
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
Weekday = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekend"]

_ZH_WEEKDAYS = "一二三四五六日"
_ZH_NEAR = {-2: "前天", -1: "昨天", 0: "今天", 1: "明天", 2: "后天", 3: "大后天"}
_EN_NEAR = {-2: "the day before yesterday", -1: "yesterday", 0: "today", 1: "tomorrow", 2: "the day after tomorrow"}


@dataclass(frozen=True)
class DaySpan:
    """Days `start .. start + count - 1`, counted from the place's today."""

    start: int
    count: int

    @property
    def offsets(self) -> range:
        return range(self.start, self.start + self.count)


def select_days(today: date, day: int | str = 0, days: int = 1, available: int = HORIZON_DAYS,
                past: int = PAST_DAYS) -> DaySpan:
    """The span asked for: `day` is an offset from today, a weekday (the next one, today included), "weekend",
    or a date (YYYY-MM-DD). Beyond the data (`available` days from today on, `past` days before it): a clear error
    that states the limit."""
    if isinstance(day, int):
        start = day
    elif day == "weekend":  # this weekend: on a Sunday, yesterday as it was and today
        start = (5 - today.weekday()) % 7 if today.weekday() != 6 else -1
        days = 2
    elif day in WEEKDAYS:
        start = (WEEKDAYS.index(day) - today.weekday()) % 7
    else:
        start = (_parse_date(day) - today).days
    if days < 1:
        raise InvalidArgument(pick(f"days must be at least 1, got {days}", f"days 至少为 1，收到 {days}"))
    if start < -past:
        first = today - timedelta(days=past)
        asked = today + timedelta(days=start)
        raise PastDay(pick(
            f"Past weather reaches back {past} days, to {first.isoformat()} ({weekday_name(first)}); "
            f"{asked.isoformat()} ({-start} days ago) is before that.",
            f"过去的天气只能查到{past}天前（{first.year}年{_zh_date(first)}），{asked.year}年{_zh_date(asked)}（{-start}天前）"
            "早于这个范围。"))
    last = today + timedelta(days=available - 1)
    if start + days > available:
        asked = today + timedelta(days=start + days - 1)
        raise BeyondForecast(pick(
            f"The forecast reaches {available} days, through {last.isoformat()} ({weekday_name(last)}); "
            f"{asked.isoformat()} ({start + days - 1} days from today) is beyond it.",
            f"天气预报只覆盖今天起的{available}天（到{_zh_date(last)}），{_zh_date(asked)}（{start + days - 1}天后）"
            "超出了预报范围。"))
    return DaySpan(start, days)


def calendar_words(day: date) -> str:
    """The date with its weekday: 12月1日 周二; Tue 1 Dec."""
    if current() == "zh":
        return f"{_zh_date(day)} 周{_ZH_WEEKDAYS[day.weekday()]}"
    return f"{day.strftime('%a')} {day.day} {day.strftime('%b')}"


def label(today: date, offset: int) -> str:
    """How the current language names a day: 今天（12月1日 周二）, 下周一（12月7日）, tomorrow (Wed 2 Dec)."""
    day = today + timedelta(days=offset)
    if current() == "zh":
        return _zh_label(today, day, offset)
    when = calendar_words(day)
    if offset in _EN_NEAR:
        return f"{_EN_NEAR[offset]} ({when})"
    return f"{weekday_name(day)} {day.day} {day.strftime('%b')}"


def short_label(today: date, offset: int) -> str:
    """A day named briefly, for lists: 明天, 周五, 下周一, 12月15日; tomorrow, Fri 4 Dec."""
    day = today + timedelta(days=offset)
    if current() == "zh":
        return _zh_label(today, day, offset).split("（")[0]
    if -1 <= offset < 2:
        return _EN_NEAR[offset]
    return calendar_words(day)


def day_names(today: date, offset: int) -> list[str]:
    """Every name an answer in either language may give a day, as written at a sentence's start too: its short
    label, today/Today/今天, Monday/周一/星期一."""
    day = today + timedelta(days=offset)
    weekday = _ZH_WEEKDAYS[day.weekday()]
    near = [_EN_NEAR[offset], _EN_NEAR[offset].capitalize()] if offset in _EN_NEAR else []
    zh_near = [_ZH_NEAR[offset]] if offset in _ZH_NEAR else []
    sunday = ["周天", "星期天", "礼拜天"] if weekday == "日" else []
    names = [short_label(today, offset), *near, *zh_near, weekday_name(day), f"周{weekday}", f"星期{weekday}", *sunday]
    return list(dict.fromkeys(names))


def _zh_label(today: date, day: date, offset: int) -> str:
    weekday = f"周{_ZH_WEEKDAYS[day.weekday()]}"
    if offset in _ZH_NEAR:
        return f"{_ZH_NEAR[offset]}（{calendar_words(day)}）"
    if offset < 0:  # a weekday of the past ("周二") would read as the coming one
        return calendar_words(day)
    # 下周 is the next calendar week (Monday to Sunday), so the prefix depends on the week, not the distance.
    weeks = (day - timedelta(days=day.weekday()) - (today - timedelta(days=today.weekday()))).days // 7
    if weeks == 0:
        return f"{weekday}（{_zh_date(day)}）"
    if weeks == 1:
        return f"下{weekday}（{_zh_date(day)}）"
    return calendar_words(day)


def _zh_date(day: date) -> str:
    return f"{day.month}月{day.day}日"


def weekday_name(day: date) -> str:
    """The English weekday of a date, as results carry it ("Wednesday")."""
    return day.strftime("%A")


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError as error:
        raise InvalidArgument(pick(f"day must be a number, a weekday, 'weekend' or a date YYYY-MM-DD, got "
                                   f"{text[:20]!r}", f"day 必须是数字、星期几、weekend 或 YYYY-MM-DD 日期，收到 "
                                   f"{text[:20]!r}")) from error
