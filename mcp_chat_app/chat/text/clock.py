"""Clock times and parts of the day in a text (两点, 下午3点半, 14:00, 3 pm; 下午, 今晚, tonight), read as times of
day, so a reply's "下午两点" is held to the facts' "14:00" rather than to the same characters."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from mcp_chat_app.chat.text.vocabulary import Vocabulary

_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# Parts of the day an hour of the 12-hour clock is said with, by the half of the day they put it in: "early" ones
# keep it (上午9点, 9 in the morning), "noon" ones keep 11 and 12 and move the rest (中午1点 is 13:00), "later" ones
# move it to the afternoon (下午3点, 5 de la tarde), "night" ones too, but for the small hours and midnight
# (夜里2点 is 02:00, 晚上12点 00:00).
_ZH_PART_KINDS = {**dict.fromkeys(("凌晨", "早上", "早晨", "上午", "今早", "明早", "清晨"), "early"),
                  **dict.fromkeys(("中午", "正午"), "noon"), **dict.fromkeys(("下午", "午后", "傍晚"), "later"),
                  **dict.fromkeys(("晚上", "晚间", "夜里", "夜间", "今晚", "明晚", "昨晚", "昨夜", "深夜", "半夜", "午夜"),
                                  "night")}
_ZH_PARTS = "|".join(_ZH_PART_KINDS)
# "tonight" as people type it too; the day words read it as well (day_words.py).
TONIGHT = r"tonight|tonite|2nite|2night"
# The same in English and the other languages questions are written in (French, German, Spanish, Italian,
# Portuguese), before an hour ("tonight at 9", "heute Abend um 8") or after it ("9 in the evening", "5 de la tarde").
_OTHER_PART_KINDS = {
    "early": r"(?:this|tomorrow|in\s+the)\s+morning|(?:ce|demain)\s+matin|du\s+matin|morgens|vormittags"
             r"|(?:heute|morgen)\s+(?:früh|vormittag)|(?:de|por)\s+la\s+(?:mañana|madrugada)|di\s+mattina"
             r"|del\s+mattino|stamattina|domani\s+mattina|(?:da|de|pela)\s+manhã",
    "later": r"(?:this|tomorrow|in\s+the|the)\s+(?:afternoon|evening)|cet\s+après-midi|(?:ce|demain)\s+soir"
             r"|de\s+l['’]après-midi|du\s+soir|nachmittags|abends|(?:heute|morgen)\s+(?:nachmittag|abend)"
             r"|(?:de|por)\s+la\s+tarde|esta\s+tarde|del\s+pomeriggio|(?:di|della)\s+sera|stasera|domani\s+sera"
             r"|(?:da|à|pela)\s+tarde",
    "night": rf"{TONIGHT}|tomorrow\s+night|last\s+night|at\s+night|cette\s+nuit|de\s+la\s+nuit|nachts"
             r"|(?:heute|morgen)\s+nacht"
             r"|(?:de|por)\s+la\s+noche|esta\s+noche|di\s+notte|stanotte|(?:da|à|pela|esta)\s+noite",
}
_OTHER_PARTS = "|".join(_OTHER_PART_KINDS.values())
_EN_PARTS = rf"\b(?:(?:this|tomorrow) (?:morning|afternoon|evening)|{TONIGHT}|tomorrow night)\b"
# Words before an hour that make it a clock time with a part of the day ("at 9 tonight", "um 8 Uhr abends"), and
# those that make it one alone ("a las 5", "alle 17", "às 9"). Not "around" or "by": "around 5 tonight" and "by 5
# tonight" are as often degrees; after the part of the day they are the hour ("the afternoon around 3").
_LEADS = r"at|for|until|till|before|after|from|à|vers|um|gegen|ab|bis|a\s+las?|hacia\s+las|alle|às|around|about"
_AFTER_A_PART = ("around", "about")
_HOUR_LEADS = re.compile(r"a\s+las?|hacia\s+las|alle|às", re.IGNORECASE)
# Words after an hour that make it one: French and German hours are on the 24-hour clock ("à 17h", "um 17 Uhr");
# a bare "17h" or "3 heures" may be a duration, so these two need a leading word.
_UNITS = r"h|heures?|uhr|o['’]clock"
_SAID_TIME = re.compile(
    rf"(?:(?P<before>{_OTHER_PARTS})\s+)?(?:\b(?P<lead>{_LEADS})\s+)?"
    r"(?<![\d:.,])(?P<h>\d{1,2})(?:(?P<sep>:|h)(?P<m>\d{2}))?(?!\d)"
    rf"(?:\s*(?P<unit>{_UNITS})(?![a-zà-ÿ]))?(?:\s*(?P<ap>[ap]\.?m\.?)(?![a-z]))?"
    rf"(?:\s+(?P<after>{_OTHER_PARTS})\b)?",
    re.IGNORECASE)
# Words for noon and midnight, which name the hour ("demain à midi", "a mediodía", "正午"); not 正午12点 (a part
# and its hour), nor après-midi (the afternoon).
_NAMED_HOURS = {12: re.compile(r"\b(?:noon|midday|(?<![-‐])midi|mediod[ií]a|mittags?|mezzogiorno|meio-dia)\b"
                               r"|正午(?!\s*[\d零一二两三四五六七八九十])", re.IGNORECASE),
                # ("after midnight" beside an hour says which night it is, and is no hour of its own)
                0: re.compile(r"(?<!after )(?<!past )\b(?:midnight|minuit|medianoche|mitternacht|mezzanotte|"
                              r"meia-noite)\b"
                              r"|午夜(?!\s*[\d零一二两三四五六七八九十])", re.IGNORECASE)}
_CLAUSE_MARKS = ",，;；:：(（—–-"  # after one of these (or first), an hour begins a clause: "Krabi, 9 tonight"


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


# (not a greeting: "早上好！北京今天冷吗" asks of the whole day)
_PART = re.compile(rf"(?:{_ZH_PARTS})(?!好(?:[呀啊！!，,。~～\s]|$))|{_EN_PARTS}|\b(?:{_OTHER_PARTS})\b", re.IGNORECASE)
# Words for the same stretch of a day: a reply may say 晚上 of what the facts call 今晚.
_SAME_TIME = ({"凌晨", "夜里", "夜间", "今晚", "明晚", "昨晚", "晚上", "晚间", "深夜", "半夜", "午夜", "傍晚", *TONIGHT.split("|"),
               "night", "evening"},
              {"早上", "早晨", "上午", "今早", "明早", "清晨", "morning"}, {"中午", "正午", "noon"},
              {"下午", "午后", "afternoon"})


@dataclass(frozen=True)
class ClockTime:
    """A clock time as written, and the minutes of the day it may mean (both halves of a bare "3点")."""

    text: str
    minutes: frozenset[int]
    span: tuple[int, int] = field(default=(0, 0), compare=False)  # where the text has it


def clock_times(text: str, vocabulary: Vocabulary) -> Iterator[ClockTime]:
    """Every clock time in the text, in its order; a bare 一点 ("a little": 多一点) is not one. An hour said with
    words of another language or a part of the day ("tonight at 9") is read once, as a whole."""
    found = [*_said_times(text), *_named_hours(text)]
    for match in _time_pattern(vocabulary.unit_signs).finditer(text):
        if any(start < match.end() and match.start() < end for start, end in (time.span for time in found)):
            continue
        hour_text = match["h"] or match["hz"] or match["h12"]
        if match["hz"] == "一" and not (match["part"] or match["half"] or match["mz"] or "钟" in match[0]):
            continue
        hour = numeral(hour_text)
        minute = numeral(match["m"] or match["mz"] or "0") + (30 if match["half"] else 0)
        if hour is None or hour > 24 or minute > 59:
            continue
        marker = (match["ap"] or match["ap2"] or "").lower().replace(".", "")
        kind = _ZH_PART_KINDS.get(match["part"] or "", "")
        hours = _hours(hour, kind, marker, fixed=bool(match["h"]))
        # The span less the spaces the pattern may take before an hour with no part.
        start = match.start() + len(match[0]) - len(match[0].lstrip())
        found.append(ClockTime(match[0].strip(), frozenset(h * 60 + minute for h in hours), (start, match.end())))
    yield from sorted(found, key=lambda time: time.span)


# A span of the clock with one half of the day said once ("between 2 and 5pm", "from 10 to 2pm", "2-5 pm",
# "下午2点到5点", "早上八点至十点"): its start is read in the half of its end (or of the part said before it).
_EN_RANGE = re.compile(r"(?:\b(?:between|from)\s+)?(?<![\d:.])(?P<a>\d{1,2})(?::\d{2})?\s*(?P<ap1>[ap]\.?m\.?)?"
                       r"\s*(?:\band\b|\bto\b|\btill\b|\buntil\b|-|–)\s*(?P<b>\d{1,2})(?::\d{2})?\s*"
                       r"(?P<ap2>[ap]\.?m\.?)(?![a-z])", re.IGNORECASE)
_ZH_NUMBER = r"\d{1,2}|[零一二两三四五六七八九十]{1,3}"
_ZH_RANGE = re.compile(rf"(?P<part>{_ZH_PARTS})?(?P<a>{_ZH_NUMBER})[点點](?:半|\d{{1,2}}分?)?\s*(?:到|至|-|–|~)\s*"
                       rf"(?P<part2>{_ZH_PARTS})?(?P<b>{_ZH_NUMBER})[点點]")


def clock_spans(text: str) -> list[range]:
    """The hours of each span of the clock the text names, both ends in ("between 2 and 5pm": 14 to 17); a span
    that runs past midnight is left out."""
    spans = []
    for match in _EN_RANGE.finditer(text):
        start, end = int(match["a"]), int(match["b"])
        (last,) = _hours(end, "", match["ap2"].lower().replace(".", ""), fixed=False)
        marker = (match["ap1"] or "").lower().replace(".", "")
        first = min(_hours(start, "", marker, fixed=False) if marker else {start % 12, start % 12 + 12},
                    key=lambda hour: (hour > last, last - hour))
        spans.append(range(first, last + 1))
    for match in _ZH_RANGE.finditer(text):
        start, end = numeral(match["a"]), numeral(match["b"])
        if start is None or end is None or start > 24 or end > 24:
            continue
        kind = _ZH_PART_KINDS.get(match["part"] or "", "")
        if not kind and max(start, end) <= 12:
            continue  # "2点到5点" may be the night's or the afternoon's: the router's reading stands
        last = min(_hours(end, _ZH_PART_KINDS.get(match["part2"] or "", "") or kind, "", fixed=False))
        first = min(_hours(start, kind, "", fixed=False))
        if kind and last < first:
            last = max(_hours(end, kind, "", fixed=False))
        spans.append(range(first, last + 1))
    return [span for span in spans if len(span) > 1]


def _said_times(text: str) -> Iterator[ClockTime]:
    """Hours said with a part of the day in English or another language ("tonight at 9", "a las 5 de la tarde"),
    or with a word that makes them hours ("à 17h", "um 17 Uhr", "alle 17", "5 o'clock")."""
    at = 0
    while match := _SAID_TIME.search(text, at):
        at = match.start() + 1  # a match that is no time may hold the start of one ("below 5 tonight at 9")
        part, lead, unit = match["before"] or match["after"] or "", match["lead"] or "", (match["unit"] or "").lower()
        # A part before the hour needs a word between ("tonight at 9", not "Tonight 5, tomorrow 8"); one after it, that
        # word or the clause's start ("Krabi, 9 tonight", not "below 5 tonight").
        opens = text[:match.start()].rstrip()[-1:] in ("", *_CLAUSE_MARKS)
        timed = bool(part) and bool(lead or (opens and not match["before"])) \
            and (lead.lower() not in _AFTER_A_PART or bool(match["before"]))
        worded = unit in ("uhr", "o'clock", "o’clock") or bool(unit and lead) or match["sep"] == "h" \
            or bool(_HOUR_LEADS.fullmatch(lead))
        hour, minute = int(match["h"]), int(match["m"] or 0)
        if not (timed or worded) or hour > 24 or minute > 59:
            continue
        marker = (match["ap"] or "").lower().replace(".", "")
        kind = next((kind for kind, words in _OTHER_PART_KINDS.items() if re.fullmatch(words, part, re.I)), "")
        hours = _hours(hour, kind, marker, fixed=unit in ("h", "heures", "heure", "uhr") or match["sep"] == "h")
        yield ClockTime(match[0], frozenset(h * 60 + minute for h in hours), match.span())
        at = match.end()


def _named_hours(text: str) -> Iterator[ClockTime]:
    """Noon and midnight by their names ("à midi", "正午", "midnight")."""
    for hour, pattern in _NAMED_HOURS.items():
        for match in pattern.finditer(text):
            yield ClockTime(match[0], frozenset({hour * 60}), match.span())


def _hours(hour: int, kind: str, marker: str, fixed: bool) -> set[int]:
    """The hours of the day an hour as written may be: by its am or pm, the kind of its part of the day (see
    _ZH_PART_KINDS), as written on a 24-hour clock (`fixed`, or past 12), else either half of the day."""
    if marker == "am":
        return {0 if hour == 12 else hour % 24}
    if marker == "pm" or kind == "later":
        return {hour + 12 if hour < 12 else hour % 24}
    if kind == "noon":
        return {hour if hour >= 11 else hour + 12}
    if kind == "night":
        return {0 if hour == 12 else hour if hour < 5 or hour > 12 else hour + 12}
    if kind or fixed or hour > 12:
        return {hour % 24}
    return {hour, (hour + 12) % 24}


def parts_of_day(text: str, vocabulary: Vocabulary) -> Iterator[str]:
    """Parts of the day said on their own (不 "下午两点", which is a clock time), as written."""
    timed = [time.span for time in clock_times(text, vocabulary)]
    for match in _PART.finditer(text):
        if not any(start <= match.start() < end for start, end in timed):
            yield match[0]


def without_clock_times(text: str, vocabulary: Vocabulary) -> str:
    """The text less its clock times ("at 5 pm" is an hour, no figure of it; no name either)."""
    for time in clock_times(text, vocabulary):
        text = text.replace(time.text, " ")
    return text


def stretches_named(text: str, vocabulary: Vocabulary) -> list[frozenset[str]]:
    """The stretches of the day the text names on their own, each as all its words ("明天早上" names the morning's:
    早上, 上午, ..., morning)."""
    named = []
    for part in parts_of_day(text, vocabulary):
        part = part.casefold()
        stretch = next((words for words in _SAME_TIME if part in words
                        or any(word.isascii() and re.search(rf"\b{word}\b", part) for word in words)), None)
        if stretch is not None and frozenset(stretch) not in named:
            named.append(frozenset(stretch))
    return named


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
