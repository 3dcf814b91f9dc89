"""The day argument (an offset from today, a weekday or a date) and the count of days: the day the question asks
about, or the conversation's latest calls' day where it names none, and the count of days its span gives."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from dataclasses import replace
from typing import Any

from mcp_chat_app.chat.text.clock import TONIGHT, clock_times, numeral
from mcp_chat_app.chat.text.day_words import (
    WEEKDAYS,
    WEEKEND_DAYS,
    WEEKEND_WORDS,
    AskedDay,
    asked_day,
    day_references,
    day_words,
    names_the_day_after,
    names_the_day_before,
)
from mcp_chat_app.chat.text.vocabulary import Vocabulary

log = logging.getLogger(__name__)

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HOW_MANY_DAYS = re.compile(r"\b(?:how many|number of)\s+days\b", re.IGNORECASE)  # a schema's count of days
# A question that counts days itself ("3 days", "三天", "a week", "一周"): its count is kept.
_COUNTED_DAYS = re.compile(r"\d+\s*(?:days?|天|日)|[一二两三四五六七八九十]+\s*(?:天|日)|\b(?:week|fortnight)s?\b|"
                           r"[一两]?(?:周|星期|礼拜)(?![一二三四五六日天末])", re.IGNORECASE)
# Which week a weekday is in ("Wednesday next week"): it names the day, it counts no days.
_NEXT_WEEKEND = re.compile(r"下个?周末|下个?礼拜|\bnext\s+weekend\b|\bweekend\s+after\b", re.IGNORECASE)
_WHICH_WEEK = re.compile(r"\b(?:this|next|last)\s+week\b", re.IGNORECASE)
# A question about the present, in the languages of the day words: it inherits no earlier day.
# ("still": "is it still going", 还在 ask what is going on)
_NOW = re.compile(r"现在|此刻|目前|当前|眼下|这会儿|而家|依家|还在|\b(?:now|currently|at the moment|right now|rn|atm|"
                  r"is it still|still \w+ing)\b", re.IGNORECASE)
# The count of a span of days in its own words: a number of days, or a week (一周, 一个星期) or a fortnight.
_SPAN_COUNT = re.compile(r"(\d+|[一二两三四五六七八九十]+|two|three|four|five|six|seven|eight|nine|ten|fourteen)\s*"
                         r"(?:days?\b|天)|(?:(2|two|两|二)\s*个?\s*)?(weeks?|fortnight|周|星期|礼拜)", re.IGNORECASE)
_EN_COUNTS = {word: count for count, word in enumerate(
    ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), start=2)} | {"fourteen": 14}
# A few days from today ("这几天", "next few days"): three, as people mean them (an unsaid count had been today alone).
_A_FEW_DAYS = re.compile(r"几天|\bfew\s+days\b|\bcouple\s+(?:of\s+)?days\b", re.IGNORECASE)
_FEW = 3
_THIS_WEEK = re.compile(r"(?:这|本)(?:个)?(?:周|星期|礼拜)|\bthis\s+week\b", re.IGNORECASE)  # seven days on


_TONIGHT = re.compile(rf"\b(?:{TONIGHT})\b|今晚|今夜", re.IGNORECASE)
_SMALL_HOURS = 6  # a clock time tonight before this hour is after midnight: tomorrow's


def past_midnight(asked: AskedDay | None, question: str, vocabulary: Vocabulary) -> AskedDay | None:
    """The day asked, tomorrow where the question says tonight and every clock time it writes is in the small hours
    ("Warsaw at 1am, after midnight tonight" was called for today's 01:00, gone by)."""
    if asked is None or asked.offset != 0 or not _TONIGHT.search(question):
        return asked
    times = list(clock_times(question, vocabulary))
    if not times or any(len(time.minutes) != 1 or min(time.minutes) // 60 >= _SMALL_HOURS for time in times):
        return asked
    return replace(asked, offset=1, also=frozenset(), weekday=None)


# When a change comes, asked with no day ("When's the strike supposed to end in Bergen?", "啥时候开始降价", "哪天开放"):
# the days ahead, not today alone.
_WHICH_DAY_WORDS = r"\bwhich\s+day\b|哪天|哪一天"
_WHEN_IT_CHANGES = re.compile(
    r"\bwhen\b.*\b(?:stop|stops|end|ends|start|starts|begin|begins|clear|clears|let\s+up|ease|eases|next)\b"
    rf"|{_WHICH_DAY_WORDS}|(?:什么时候|啥时候|何时|几时).*(?:停|开始|结束|转|变|降|升|回)", re.IGNORECASE)
_DAYS_AHEAD = 7
# Which day of them wins ("warmest day of the next 10", "这周哪天最适合洗车", "the cheapest day this week").
_WHICH_DAY = re.compile(rf"\b[a-z]+est\s+day\b|\b(?:best|worst)\s+day\b|{_WHICH_DAY_WORDS}", re.IGNORECASE)


def asks_which_day(question: str) -> bool:
    """Whether the question asks which day of several is the one (a comparison of days, not of places)."""
    return bool(_WHICH_DAY.search(question))


def question_day(question: str, today: dt.date, vocabulary: Vocabulary) -> AskedDay | None:
    """The one day the question asks about, counted from `today`: its day words, tomorrow for tonight's small
    hours, or today where it says "now"; the week ahead where it asks when a change comes, naming no day."""
    asked = past_midnight(asked_day(question, today), question, vocabulary) or now_asked(question, today)
    if asked is None and not day_words(question) and (when := _WHEN_IT_CHANGES.search(question)):
        return AskedDay(when[0], 0, span=True, count=_DAYS_AHEAD)
    return asked


def in_the_places_calendar(arguments: dict[str, Any], schema: dict[str, Any], question: str, today: dt.date,
                           place_today: dt.date, vocabulary: Vocabulary) -> dict[str, Any] | None:
    """The arguments with the asked day counted from the place's today, where its result shows that today is not
    the gateway's and the day was passed as a date the gateway counted: "三亚下周六" asked at 02:56 on Monday
    there, Sunday in UTC, is the 19th, not the gateway's next-week Saturday, the 12th. None where the call stands."""
    if place_today == today:
        return None
    asked = question_day(question, place_today, vocabulary)
    if asked is None or asked.date is not None:  # a calendar date is the same date in every calendar
        return None
    again = with_asked_day(arguments, schema, asked, place_today)
    return again if again != arguments else None


def with_asked_day(arguments: dict[str, Any], schema: dict[str, Any], asked: AskedDay | None,
                   today: dt.date) -> dict[str, Any]:
    """The arguments with the day the question asks about, when its one day argument (an offset from today, a
    weekday or a date, as the schema allows) says another: "周三" became Thursday. A weekday asked for is passed
    as the weekday where the schema takes one, so the tool counts it from the place's own date (past midnight
    there, the gateway's date is the day before); another weekday ("下周二") as its date where the schema takes one
    (the same in both calendars); any other day as an offset, the tool's own "today" being the place's. Offsets the
    question's words are read as are counted from `today`, the gateway's date."""
    days = [name for name, spec in schema.get("properties", {}).items() if day_forms(spec)]
    if asked is None or len(days) != 1:
        return arguments
    (name,) = days
    forms = day_forms(schema["properties"][name])
    value = arguments.get(name, schema["properties"][name].get("default"))
    if asked.date and "date" in forms:  # a calendar date: the tool says whether its data reaches it
        wanted: Any = asked.date.isoformat()
    elif asked.weekday and "weekday" in forms:
        wanted = asked.weekday
    elif asked.names_a_weekday and "date" in forms:  # "下周二": an offset would be counted from the place's today
        offset = _day_offset(value, today)
        wanted = (today + dt.timedelta(days=offset if offset in asked.offsets else asked.offset)).isoformat()
    elif _day_offset(value, today) in asked.offsets and (isinstance(value, int) or "offset" not in forms):
        return arguments
    elif "offset" in forms:
        wanted = asked.offset
    elif "date" in forms:
        wanted = (today + dt.timedelta(days=asked.offset)).isoformat()
    else:
        return arguments
    if value == wanted:
        return arguments
    log.info("%s=%r replaced by %r: the question asks about %s", name, value, wanted, asked.word)
    return {**arguments, name: wanted}


def without_unasked_span(arguments: dict[str, Any], schema: dict[str, Any], asked: AskedDay | None,
                         question: str) -> dict[str, Any]:
    """The arguments less a count of days above one when the question asks about one day and counts none:
    asked about "下周三" in 大阪, a model added `days: 3`, and the answer spoke of Thursday and Friday too. A count of days
    is an integer argument whose description says "how many days" and whose default is one day. The words of the
    asked day count none ("16 days from today" is one day)."""
    said = question.replace(asked.word, " ") if asked else question
    said = _WHICH_WEEK.sub("", said) if asked and asked.names_a_weekday else said
    if asked is None or asked.span or _COUNTED_DAYS.search(said):
        return arguments
    kept = dict(arguments)
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if isinstance(value, int) and spec.get("default") == 1 and value > 1 and counts_days(spec):
            log.info("dropped %s=%r: the question asks about %s only", name, value, asked.word)
            del kept[name]
    return kept


def with_asked_span(arguments: dict[str, Any], schema: dict[str, Any], asked: AskedDay | None) -> dict[str, Any]:
    """The arguments with the count of days the question's span counts ("明后天", "over the next 3 days", "未来三天",
    "the coming week"), where the call counts fewer: "Anything expected over the next 3 days?" was called for today
    only. A count of days is an integer argument whose description says "how many days"."""
    count = (asked.count or span_days(asked.word)) if asked and asked.span else None
    if count is None:
        return arguments
    kept = dict(arguments)
    for name, spec in schema.get("properties", {}).items():
        value = arguments.get(name, spec.get("default", 1))
        if counts_days(spec) and isinstance(value, int) and value < count:
            log.info("%s=%r replaced by %r: the question asks about %s", name, arguments.get(name), count, asked.word)
            kept[name] = count
    return kept


def with_asked_weekend(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                       today: dt.date) -> dict[str, Any]:
    """The arguments with the weekend as their day, its count of days left to the tool, when the question asks
    about this weekend (周末, "this weekend") and the day argument takes "weekend": "这周末冷不冷" after a week's
    chart kept its seven days. A tool of one day by its offset alone (a search of cities) gets the weekend's
    first day still to come: "cities between 18 and 24 degrees this weekend?" had been searched for today. Not
    "next weekend": which one that is, the tool's "weekend" does not say."""
    properties = schema.get("properties", {})
    days = [name for name, spec in properties.items() if "weekend" in day_forms(spec)]
    offsets = [name for name, spec in properties.items() if day_forms(spec) == {"offset"}]
    said = day_words(question)
    if not said & WEEKEND_WORDS or said & WEEKEND_DAYS or _NEXT_WEEKEND.search(question):
        return arguments  # (a day of it named beside it is that day: "这周末要去玩，礼拜六怎么样")
    if len(days) != 1:
        if len(offsets) != 1 or any(counts_days(spec) for spec in properties.values()):
            return arguments
        saturday = (5 - today.weekday()) % 7 if today.weekday() != 6 else 0  # on a Sunday, what is left of it
        if arguments.get(offsets[0]) != saturday:
            log.info("%s=%r as the weekend's day to come: the question asks about the weekend", offsets[0],
                     arguments.get(offsets[0]))
        return {**arguments, offsets[0]: saturday}
    kept = {**arguments, days[0]: "weekend"}
    for name, spec in properties.items():
        if name in kept and counts_days(spec):
            del kept[name]
    if kept != arguments:
        log.info("%r as the weekend: the question asks about it", arguments)
    return kept


def span_days(words: str) -> int | None:
    """How many days the words of a span from today count ("next 3 days", "未来三天", "coming week": 7, "未来两周":
    14; "this week", 这周: the coming seven, as "the rest of it" is today alone on a Sunday), where the day words
    leave its count out; three for a few ("这几天", "next few days"); None for a span that counts none of its own."""
    if _THIS_WEEK.search(words):
        return 7
    if _A_FEW_DAYS.search(words):
        return _FEW
    match = _SPAN_COUNT.search(words)
    if match is None:
        return None
    if match[3]:
        return 14 if match[3].casefold() == "fortnight" or match[2] else 7
    count = match[1].casefold()
    return _EN_COUNTS.get(count) or numeral(count)


def with_earlier_day(arguments: dict[str, Any], schema: dict[str, Any], earlier: list[dict[str, Any]],
                     question: str, today: dt.date) -> dict[str, Any]:
    """The arguments with the day of the latest calls (`earlier`: their arguments) when the question names no
    day and does not say "now": "那要带什么？" after a question on 下周一 was called for day 7 (the date's day of
    the month). Only where the calls agree on one day. A question on "the day after that" (第二天) gets the day
    after theirs: the model repeated the earlier day. Their count of days goes with it ("over the same three
    days" was called for one), but not to the day after. "The day before" gets the day before theirs."""
    if day_references(question, today) or _NOW.search(question):
        return arguments
    step = 1 if names_the_day_after(question) else -1 if names_the_day_before(question) else 0
    kept = dict(arguments)
    for name, spec in schema.get("properties", {}).items():
        values = {json.dumps(call[name]) for call in earlier if name in call}
        if not values and step and earlier and "default" in spec:  # the calls were about the default day
            values = {json.dumps(spec["default"])}
        if len(values) == 1 and not step and counts_days(spec):
            value = json.loads(values.pop())
            if isinstance(value, int) and value > kept.get(name, spec.get("default", 1)):
                log.info("%s=%r replaced by %r: the question names no day, and the latest calls covered %s days",
                         name, kept.get(name), value, value)
                kept[name] = value
            continue
        if not values and counts_days(spec) and name in kept and _of_single_days(earlier, schema, today) \
                and not _SPAN_COUNT.search(question):
            # "平潭呢" after tomorrow's question on 厦门 was called for three days, copied from the one before it
            log.info("%s=%r left out: the question names no span, and the latest calls covered one day", name,
                     kept[name])
            del kept[name]
            continue
        if not day_forms(spec) or len(values) != 1:
            continue
        value = _day_later(json.loads(values.pop()), step)
        if value is not None and kept.get(name, spec.get("default")) != value:
            log.info("%s=%r replaced by %r: the question names no day, and the latest calls asked about %s",
                     name, kept.get(name), value, {1: "the day after it", -1: "the day before it"}.get(step, "it"))
            kept[name] = value
    return kept


def _of_single_days(calls: list[dict[str, Any]], schema: dict[str, Any], today: dt.date) -> bool:
    """Whether there are calls (their arguments) and each names one single day (not "weekend")."""
    days = [name for name, spec in schema.get("properties", {}).items() if day_forms(spec)]
    return bool(calls) and all(any(name in call and _day_offset(call[name], today) is not None for name in days)
                               for call in calls)


def _day_later(value: Any, days: int) -> Any:
    """A day argument's value moved `days` later in its own form (offset, weekday, date); None where it names
    no single day."""
    if not days:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value + days
    if isinstance(value, str) and value in WEEKDAYS:
        return WEEKDAYS[(WEEKDAYS.index(value) + days) % 7]
    if isinstance(value, str) and _DATE.match(value):
        try:
            return (dt.date.fromisoformat(value) + dt.timedelta(days=days)).isoformat()
        except ValueError:
            return None
    return None


def names_another_day(arguments: dict[str, Any], schema: dict[str, Any], today: dt.date) -> bool:
    """Whether a call is about a day other than today by its day argument (its default where it leaves it out):
    a day counted from today, a weekday or a date, or days of no single one ("weekend")."""
    days = [(name, spec) for name, spec in schema.get("properties", {}).items() if day_forms(spec)]
    return any(_day_offset(arguments.get(name, spec.get("default")), today) != 0 for name, spec in days)


def now_asked(question: str, today: dt.date) -> AskedDay | None:
    """The present moment as the day asked, when the question names no day: today ("and what's it like there right
    now?" after yesterday's high was called for yesterday)."""
    match = _NOW.search(question)
    return AskedDay(match[0], 0) if match and not day_references(question, today) else None


def says_now(question: str) -> bool:
    """Whether the question asks about the present moment ("现在", "right now")."""
    return bool(_NOW.search(question))


def sentences_saying_now(question: str) -> str:
    """The sentences of the question that say now ("Whats the number right now?" of "I'm in Lyon this week for work.
    Whats the number right now?": the week is why, not what is asked), or the question itself."""
    saying = [sentence for sentence in re.split(r"(?<=[.!?。！？])\s*", question) if _NOW.search(sentence)]
    return " ".join(saying) or question


def takes_a_day(schema: dict[str, Any]) -> bool:
    """Whether a tool has an argument for the day (an offset from today, a weekday or a date)."""
    return any(day_forms(spec) for spec in schema.get("properties", {}).values())


def day_forms(spec: dict[str, Any]) -> set[str]:
    """How an argument names a day: "offset" (an integer from today), "weekday" (an enum of weekdays), "date"
    (YYYY-MM-DD); none for any other argument."""
    forms = set()
    for option in spec.get("anyOf", [spec]):
        if option.get("type") == "integer" and "today" in spec.get("description", "").casefold():
            forms.add("offset")
        elif set(option.get("enum", ())) & set(WEEKDAYS):
            forms.add("weekday")
            forms |= {"weekend"} & set(option["enum"])
        elif option.get("type") == "string" and (option.get("format") == "date"
                                                 or _DATE.pattern in option.get("pattern", "")):
            forms.add("date")
    return forms


def counts_days(spec: dict[str, Any]) -> bool:
    """Whether an argument is a count of days (a span from the day asked)."""
    return spec.get("type") == "integer" and bool(_HOW_MANY_DAYS.search(spec.get("description", "")))


def _day_offset(value: Any, today: dt.date) -> int | None:
    """The distance from today of a day argument's value (None for a value that names no single day)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value in WEEKDAYS:
        return (WEEKDAYS.index(value) - today.weekday()) % 7
    if isinstance(value, str) and _DATE.match(value):
        try:
            return (dt.date.fromisoformat(value) - today).days
        except ValueError:
            return None
    return None
