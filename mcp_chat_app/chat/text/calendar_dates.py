"""Calendar dates a question names ("12月25日", "下个月20号", "New Year's Day 2020", "去年圣诞节", "明年春节", "2026-12-25",
"下个月底", "去年今天"), as dates (days counted from today, "两个月后", are day words: day_words.py). A small model
turns them into today or a wrong offset; passed as the date, one beyond the data reaches the tool, which says how far
its data goes."""

from __future__ import annotations

import re
from datetime import date

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH = rf"(?:{'|'.join(_MONTHS)}|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
_ORDINAL = r"(?:st|nd|rd|th)?"
_HOLIDAYS = {"christmas eve": (12, 24), "christmas day": (12, 25), "christmas": (12, 25), "new year's day": (1, 1),
             "new years day": (1, 1), "new year's eve": (12, 31), "new years eve": (12, 31),
             "平安夜": (12, 24), "圣诞节": (12, 25), "圣诞": (12, 25), "元旦": (1, 1)}
_FIXED_HOLIDAYS = {"国庆节": (10, 1), "国庆": (10, 1), "劳动节": (5, 1), "五一": (5, 1), "情人节": (2, 14),
                   "万圣节": (10, 31), "儿童节": (6, 1), "valentine's day": (2, 14), "valentines day": (2, 14),
                   "halloween": (10, 31)}
_HOLIDAYS.update(_FIXED_HOLIDAYS)
# Holidays of the Chinese calendar, by Gregorian year: its New Year's Day, eve and Lantern Festival, the Dragon
# Boat and the Mid-Autumn festivals ("明年春节" asked in December is two months ahead, not today).
_LUNAR_HOLIDAYS = {
    "new year": {2025: (1, 29), 2026: (2, 17), 2027: (2, 6), 2028: (1, 26), 2029: (2, 13), 2030: (2, 3)},
    "eve": {2025: (1, 28), 2026: (2, 16), 2027: (2, 5), 2028: (1, 25), 2029: (2, 12), 2030: (2, 2)},
    "lantern": {2025: (2, 12), 2026: (3, 3), 2027: (2, 20), 2028: (2, 9), 2029: (2, 27), 2030: (2, 17)},
    "dragon boat": {2025: (5, 31), 2026: (6, 19), 2027: (6, 9), 2028: (5, 28), 2029: (6, 16), 2030: (6, 5)},
    "mid-autumn": {2025: (10, 6), 2026: (9, 25), 2027: (9, 15), 2028: (10, 3), 2029: (9, 22), 2030: (9, 12)},
}
_LUNAR_NAMES = {"春节": "new year", "大年初一": "new year", "过年": "new year", "除夕": "eve", "大年三十": "eve",
                "元宵节": "lantern", "元宵": "lantern", "端午节": "dragon boat", "端午": "dragon boat",
                "中秋节": "mid-autumn", "中秋": "mid-autumn", "chinese new year": "new year",
                "lunar new year": "new year", "spring festival": "new year", "lantern festival": "lantern",
                "dragon boat festival": "dragon boat", "mid-autumn festival": "mid-autumn",
                "mid autumn festival": "mid-autumn"}
_ZH_YEARS = {"前年": -2, "去年": -1, "今年": 0, "明年": 1}
_ZH_MONTHS = {"上个月": -1, "上月": -1, "这个月": 0, "本月": 0, "下个月": 1, "下月": 1}
# A part of a month ("下个月底", "月初"): the day it begins, near enough to say whether the data reaches it.
_ZH_MONTH_PARTS = {"初": 1, "上旬": 1, "中旬": 11, "下旬": 21, "底": 21, "末": 21}
_EN_YEAR = r"(?:,?\s+(?:in\s+)?(\d{4}))?"
_EN_LAST_NEXT = r"(?:\b(last|this|next)\s+)?"

# The month a season of the northern year begins in: the first day the data must reach.
_SEASON_MONTHS = {"春": 3, "夏": 6, "秋": 9, "冬": 12, "spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_PATTERNS = (
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("zh", re.compile(r"(?:(\d{4})年|(前年|去年|今年|明年))?(\d{1,2})月(\d{1,2})[日号]")),
    ("zh_month", re.compile(r"(上个?月|这个月|本月|下个?月)的?(\d{1,2})[日号]")),
    ("zh_month_part", re.compile(r"(上个?月|这个月|本月|下个?月)的?(初|上旬|中旬|下旬|底|末)")),
    ("zh_holiday", re.compile(r"(?:(\d{4})年|(前年|去年|今年|明年))?的?(平安夜|圣诞节|国庆节|劳动节|情人节|万圣节|儿童节|圣诞|元旦|国庆|五一)")),
    ("lunar", re.compile(r"(?:(\d{4})年?|(前年|去年|今年|明年|last|this|next))?\s*的?\s*("
                         + "|".join(sorted(_LUNAR_NAMES, key=len, reverse=True)) + ")", re.IGNORECASE)),
    # (not "Dec 09:00" of "Thu 3 Dec 09:00": a clock time after a date)
    ("en_month_day", re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORDINAL}\b(?!:\d){_EN_YEAR}", re.IGNORECASE)),
    ("en_day_month", re.compile(rf"\b(\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?({_MONTH})\b{_EN_YEAR}", re.IGNORECASE)),
    # a month of a year, no day ("January 1998", "1987年7月"): its first day, which says how far the data reaches
    ("zh_year_month", re.compile(r"(\d{4})年(\d{1,2})月(?!\d{1,2}[日号])")),
    ("en_month_year", re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.IGNORECASE)),
    # ... and a season of a year ("2015年冬天", "winter 2015", "the 1998 summer"): its first month's first day
    ("zh_year_season", re.compile(r"(\d{4})年的?(春|夏|秋|冬)(?:天|季)")),
    ("en_season_year", re.compile(r"\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?(\d{4})\b|\b(\d{4})\s+"
                                  r"(spring|summer|autumn|fall|winter)\b", re.IGNORECASE)),
    ("en_of_month", re.compile(rf"\b(?:the\s+)?(\d{{1,2}}){_ORDINAL}\s+of\s+(last|this|next)\s+month\b",
                               re.IGNORECASE)),
    # today's date in another year ("去年今天", "this day last year", "a year ago today")
    ("year_today", re.compile(r"(前年|去年|明年)的?(?:今天|今日|这一?天|这个时候|此时|同一天|同期)|\b(?:this|the same)\s+"
                              r"(?:day|date|time)\s+(last|next)\s+year\b|\btoday\s+(last)\s+year\b|"
                              r"\b(a|one|two|2)\s+years?\s+ago\b", re.IGNORECASE)),
    ("en_holiday", re.compile(rf"{_EN_LAST_NEXT}\b(christmas(?:\s+(?:eve|day))?|new\s+year'?s\s+(?:day|eve)|"
                              rf"valentine'?s\s+day|halloween)\b"
                              rf"{_EN_YEAR}", re.IGNORECASE)),
)


# Another month as a whole ("上个月", "last month", "下下个月", "next month"), with no day of it: no one day answers
# it, and the months ahead lie beyond any data of days.
# Months counted ("过两个月", "三个月后", "two months from now") are as far: half a month is not.
_OTHER_MONTH = re.compile(r"(?:上|下下?)个?月(?!的?(?:\d{1,2}[日号]|初|上旬|中旬|下旬|底|末))|(?:[一两二三四五六几]|\d+)个多?月"
                          r"|\b(?:(?:last|previous|past|next|coming)\s+month|(?:the\s+)?month\s+after\s+next"
                          r"|in\s+(?:a|one|two|three|\d+)\s+months?"
                          r"|(?:a|one|two|three|a\s+few|a\s+couple\s+of|several|\d+)\s+months?\s+(?:from\s+now|later|"
                          r"away|ahead|out))\b", re.IGNORECASE)


def names_another_month(text: str) -> bool:
    """Whether the text asks about a month other than this one as a whole ("How much did it cost in Mombasa last
    month?", "下个月青岛怎么样")."""
    return bool(_OTHER_MONTH.search(text))


def calendar_dates(text: str, today: date) -> dict[str, date]:
    """The dates the text names, each under its words as written; a date with no year is the one nearest today
    ("1月5日" asked in December is next January's), "last Christmas" the one before today."""
    found: dict[str, date] = {}
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue  # "2026年12月25日" is read once, not also as "12月25日"
            day = _date(kind, match, today)
            if day is not None:
                found[match[0].strip()] = day
                taken.append(match.span())
    return found


def _date(kind: str, match: re.Match[str], today: date) -> date | None:
    if kind == "iso":
        return _valid(int(match[1]), int(match[2]), int(match[3]))
    if kind == "zh":
        return _in_year(match[1], _ZH_YEARS.get(match[2] or ""), int(match[3]), int(match[4]), today)
    if kind == "zh_month":
        return _in_month(_ZH_MONTHS[match[1]], int(match[2]), today)
    if kind == "zh_month_part":
        return _in_month(_ZH_MONTHS[match[1]], _ZH_MONTH_PARTS[match[2]], today)
    if kind == "zh_holiday":
        month, day = _HOLIDAYS[match[3]]
        return _in_year(match[1], _ZH_YEARS.get(match[2] or ""), month, day, today)
    if kind == "lunar":
        return _lunar(_LUNAR_NAMES[re.sub(r"\s+", " ", match[3].lower())], match[1], (match[2] or "").lower(), today)
    if kind == "zh_year_month":
        return _valid(int(match[1]), int(match[2]), 1)
    if kind == "en_month_year":
        return _valid(int(match[2]), _month(match[1]), 1)
    if kind == "zh_year_season":
        return _valid(int(match[1]), _SEASON_MONTHS[match[2]], 1)
    if kind == "en_season_year":
        return _valid(int(match[2] or match[3]), _SEASON_MONTHS[(match[1] or match[4]).lower()], 1)
    if kind == "en_month_day":
        return _in_year(match[3], None, _month(match[1]), int(match[2]), today)
    if kind == "en_day_month":
        return _in_year(match[3], None, _month(match[2]), int(match[1]), today)
    if kind == "year_today":
        return _valid(today.year + _years_on(match), today.month, today.day)
    if kind == "en_of_month":
        return _in_month({"last": -1, "this": 0, "next": 1}[match[2].lower()], int(match[1]), today)
    month, day = _HOLIDAYS[re.sub(r"\s+", " ", match[2].lower())]
    which = (match[1] or "").lower()
    if which in ("last", "next") and not match[3]:
        return _nearest(month, day, today, before=which == "last")
    return _in_year(match[3], 0 if which == "this" else None, month, day, today)


def _years_on(match: re.Match[str]) -> int:
    """Years from this one of a `year_today` match."""
    if match[1]:
        return _ZH_YEARS[match[1]]
    if match[4]:
        return -2 if match[4].lower() in ("two", "2") else -1
    return -1 if (match[2] or match[3]).lower() == "last" else 1


def _month(word: str) -> int:
    word = word.lower()
    return next((index for index, name in enumerate(_MONTHS, 1) if name.startswith(word[:3])), 0)


def _valid(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _in_year(year: str | None, years_on: int | None, month: int, day: int, today: date) -> date | None:
    """The date in the year written, or `years_on` from this one, or (neither given) the one nearest today."""
    if year:
        return _valid(int(year), month, day)
    if years_on is not None:
        return _valid(today.year + years_on, month, day)
    candidates = [d for d in (_valid(today.year + step, month, day) for step in (-1, 0, 1)) if d]
    return min(candidates, key=lambda d: abs((d - today).days)) if candidates else None


def _in_month(months_on: int, day: int, today: date) -> date | None:
    index = today.year * 12 + today.month - 1 + months_on
    return _valid(index // 12, index % 12 + 1, day)


def _nearest(month: int, day: int, today: date, before: bool) -> date | None:
    """The last one before today, or the next one after it."""
    years = (0, -1, -2) if before else (0, 1, 2)
    candidates = [d for d in (_valid(today.year + step, month, day) for step in years) if d]
    return next((d for d in candidates if (d < today if before else d > today)), None)


def _lunar(holiday: str, year: str | None, which: str, today: date) -> date | None:
    """A holiday of the Chinese calendar in the year written or named, else its next one from today on (the last
    one before today for "last"); None outside the years listed."""
    dates = {y: date(y, month, day) for y, (month, day) in _LUNAR_HOLIDAYS[holiday].items()}
    if year:
        return dates.get(int(year))
    years_on = {**_ZH_YEARS, "this": 0, "next": 1}.get(which)
    if which == "last":
        return max((d for d in dates.values() if d < today), default=None)
    if years_on is not None and which != "next":
        return dates.get(today.year + years_on)
    after = [d for d in dates.values() if d >= today] if which != "next" else [d for d in dates.values() if d > today]
    return min(after, default=None)
