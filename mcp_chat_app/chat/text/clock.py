"""Clock times and parts of the day in a text (两点, 下午3点半, 14:00, 3 pm; 下午, 今晚, tonight), read as times of
day, so a reply's "下午两点" is held to the facts' "14:00" rather than to the same characters."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from mcp_chat_app.chat.text.vocabulary import Vocabulary

_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_PARTS = "凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|今晚|明晚"
# "tonight" as people type it too; the day words read it as well (day_words.py).
TONIGHT = r"tonight|tonite|2nite|2night"
_EN_PARTS = rf"\b(?:(?:this|tomorrow) (?:morning|afternoon|evening)|{TONIGHT}|tomorrow night)\b"
# After these, an hour on the 12-hour clock is in the afternoon or the evening ("下午3点" is 15:00).
_LATER = {"中午", "下午", "傍晚", "晚上", "夜里", "夜间", "今晚", "明晚", "pm", "p.m."}


@lru_cache(maxsize=8)
def _time_pattern(unit_signs: tuple[str, ...]) -> re.Pattern[str]:
    """Clock times; minutes after 点 end with 分, or at least not like a figure does: "两点12.7" followed by a
    unit sign is two o'clock and a measurement. "05:00:" before a label is a time, "05:00:30" none."""
    figure_end = r"\d." + "".join(re.escape(sign) for sign in unit_signs)
    return re.compile(
        rf"(?P<part>{_ZH_PARTS})?\s*(?:"
        r"(?<![\d:])(?P<h>\d{1,2}):(?P<m>\d{2})(?!\d|:\d)(?:\s*(?P<ap>[ap]\.?m\.?)(?![a-z]))?"
        r"|(?P<hz>[零一二两三四五六七八九十\d]{1,3})\s*点(?:(?P<half>半)|钟|(?P<mz>[\d零一二三四五六七八九十]{1,3})"
        rf"(?:分|(?![{figure_end}])))?"
        r"|(?<![\d:.])(?P<h12>\d{1,2})\s*(?P<ap2>[ap]\.?m\.?)(?![a-z]))",
        re.IGNORECASE,
    )


_PART = re.compile(rf"{_ZH_PARTS}|{_EN_PARTS}", re.IGNORECASE)
# Words for the same stretch of a day: a reply may say 晚上 of what the facts call 今晚.
_SAME_TIME = ({"凌晨", "夜里", "夜间", "今晚", "明晚", "晚上", "傍晚", *TONIGHT.split("|"), "night", "evening"},
              {"早上", "早晨", "上午", "morning"}, {"中午", "noon"}, {"下午", "afternoon"})


@dataclass(frozen=True)
class ClockTime:
    """A clock time as written, and the minutes of the day it may mean (both halves of a bare "3点")."""

    text: str
    minutes: frozenset[int]


def clock_times(text: str, vocabulary: Vocabulary) -> Iterator[ClockTime]:
    """Every clock time in the text; a bare 一点 ("a little": 多一点) is not one."""
    for match in _time_pattern(vocabulary.unit_signs).finditer(text):
        hour_text = match["h"] or match["hz"] or match["h12"]
        if match["hz"] == "一" and not (match["part"] or match["half"] or match["mz"] or "钟" in match[0]):
            continue
        hour = numeral(hour_text)
        minute = numeral(match["m"] or match["mz"] or "0") + (30 if match["half"] else 0)
        if hour is None or hour > 24 or minute > 59:
            continue
        marker = (match["ap"] or match["ap2"] or "").lower().replace(".", "")
        part = match["part"] or ""
        if marker == "am" and hour == 12:
            hours = {0}
        elif (marker == "pm" or part in _LATER) and hour < 12 and not (part == "中午" and hour >= 11):
            hours = {hour + 12}
        elif marker or part or match["h"] or hour > 12:  # a 24-hour clock, or a part that says which half
            hours = {hour % 24}
        else:
            hours = {hour, (hour + 12) % 24}
        yield ClockTime(match[0].strip(), frozenset(h * 60 + minute for h in hours))


def parts_of_day(text: str, vocabulary: Vocabulary) -> Iterator[str]:
    """Parts of the day said on their own (不 "下午两点", which is a clock time), as written."""
    timed = [match.span() for match in _time_pattern(vocabulary.unit_signs).finditer(text) if match["part"]]
    for match in _PART.finditer(text):
        if not any(start <= match.start() < end for start, end in timed):
            yield match[0]


def unsupported_clock_times(text: str, facts_text: str, vocabulary: Vocabulary) -> list[str]:
    """The clock times a text names that the facts do not give (the same time of day, however written)."""
    known = {minute for time in clock_times(facts_text, vocabulary) for minute in time.minutes}
    return [time.text for time in clock_times(text, vocabulary)
            if not time.minutes & known and time.text not in facts_text]


def unsupported_times(reply: str, facts_text: str, vocabulary: Vocabulary) -> list[str]:
    """The clock times and parts of the day a reply gives that the facts do not: a time is supported by the same
    time of day in the facts, a part of the day by the same words (or words for the same stretch of it)."""
    said = unsupported_clock_times(reply, facts_text, vocabulary)
    facts_parts = {_group(part) for part in parts_of_day(facts_text, vocabulary)}
    said += [part for part in parts_of_day(reply, vocabulary)
             if part not in facts_text and (_group(part) < 0 or _group(part) not in facts_parts)]
    return said


def hour_glosses(question: str, vocabulary: Vocabulary) -> list[str]:
    """Clock times of a question on the 24-hour clock ("下午三点 = 15:00"), for a router that must write hours;
    an ambiguous one ("三点") is left to the model."""
    glosses = []
    for time in clock_times(question, vocabulary):
        if len(time.minutes) == 1:
            (minutes,) = time.minutes
            spelled = f"{minutes // 60:02d}:{minutes % 60:02d}"
            if spelled != time.text:
                glosses.append(f"{time.text} = {spelled}")
    return glosses


def _group(part: str) -> int:
    last = part.lower().split()[-1]
    return next((i for i, words in enumerate(_SAME_TIME) if part in words or last in words), -1)


def numeral(text: str) -> int | None:
    """A whole number under 100 in Arabic or Chinese numerals (十四, 二十三): an hour, a minute, degrees."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0) if ones else 0)
    return _ZH_DIGITS.get(text) if len(text) == 1 else None
