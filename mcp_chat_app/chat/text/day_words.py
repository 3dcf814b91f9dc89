"""The days a text names (今天, 周五, tomorrow, Friday), normalised, so a reply can be held to the facts' days."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from mcp_chat_app.chat.text.below_zero import below_zero_glosses
from mcp_chat_app.chat.text.bounds import bound_glosses, range_glosses
from mcp_chat_app.chat.text.calendar_dates import calendar_dates
from mcp_chat_app.chat.text.clock import TONIGHT, hour_glosses, numeral
from mcp_chat_app.chat.text.vocabulary import Vocabulary

_ZH_WEEKDAY = "一二三四五六日天"
# A weekday's character after 这周 or 本周 (这周五), but not one that begins a word (这周一直晴 is the week's).
_WEEKDAY_AFTER = "[一二三四五六日](?!直|些|样|定|般|起|切|点|共)"
_ZH = re.compile(
    rf"大后天|后天|大後天|後天|明後日|听日|聽日|听朝|聽朝|明朝|今朝|琴日|寻日|尋日|あさって|あした|きょう|明天|明日|明晚|明早|今天|今日|今晚|今早|今夜|昨天|昨日|昨晚|昨夜|前天|大?后儿个?|(?:明|今|昨|前)儿个?|(?:本|这)?周末|本周(?!{_WEEKDAY_AFTER})|这一?周(?!{_WEEKDAY_AFTER})|这个?(?:星期|礼拜)(?!{_WEEKDAY_AFTER}|天(?!气(?!温)))|下周(?:[一二三四五六日]|天(?!气))?"
    r"|下个?(?:星期|礼拜)(?:[一二三四五六日]|天(?!气(?!温)))?|下个周[一二三四五六日]"
    # not 周天: "一周天数" is "a week", "days"; nor 礼拜天 with 气 after it: that asks about the week (but with 温
    # after those, about Sunday)
    r"|周[一二三四五六日]|(?:星期|礼拜)(?:[一二三四五六日]|天(?!气(?!温)))"
    # Cantonese (traditional 後日, simplified before this reads it): the day after tomorrow; not 后 before 日出 or
    # 日落 ("三天后日落几点"), but before 落唔落 ("will it fall or not")
    r"|大?后日(?![出照期光]|落(?!唔))"
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# "tomorrow" as people type it (chat shorthand, slang, typos), alone or in "the day after tomorow".
_TOMORROW = (r"tomorrow|tmrw|tmr|tmrow|tmw|tmoro|tmorow|tmorrow|2morrow|2moro|2morow|2mrw|2mro|tomoz|tomorow|tommorow"
             r"|tommorrow|tomorro")
# Words after which "sun" is sunshine, not Sunday.
_SUNSHINE_BEFORE = ("the", "any", "some", "of", "no", "much", "more", "less", "be", "in", "get", "see", "enough",
                    "full", "little", "and", "or", "a", "hot", "bright", "strong", "midday", "summer", "winter")
_EN = re.compile(
    rf"\b(?:(?:the\s+)?(?:day|night|morning|afternoon|evening)\s+after\s+(?:{_TOMORROW})|{_TOMORROW}|today|{TONIGHT}"
    r"|this\s+(?:morning|afternoon|evening)|2day|rn|atm|(?:the\s+)?day\s+before\s+yesterday|yesterday"
    r"|weekend|wknd|wkend|weds|this\s+week|next\s+week|last\s+night|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b"
    # "Sun 6 Dec" in a date, and "and Sat?", "on Thurs": a bare "sun" or "sat" is a word ("the sun rises"), as is
    # French "Mon" at a sentence's start.
    r"|\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?=\s+\d)"
    r"|(?:(?<=\band\s)|(?<=\bon\s)|(?<=\bor\s)|(?<=\bfor\s)|(?<=\babout\s)|(?<=\buntil\s)|(?<=\btill\s))"
    r"(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\b(?!['’])"
    r"|^(?-i:Tues?|Wed|Thu(?:rs?)?|Fri|Sat)\b(?!['’])|^(?-i:Mon|Sun)(?=\s*[?？!.]?\s*$)"
    # ... and before the one word asked of the day ("lyon wed hours?"), after "this", or last in the message or
    # its clause ("forecst for reykjavik fri", "Halifax NS sailing sat. gusts?"); "sun" last only after a word no
    # sunshine follows ("sunset there sun", not "any sun" nor "sea and sun")
    r"|(?<=\w\s)(?:mon|tues?|wed|thu(?:rs?)?|fri|sat)(?=\s+\w+\s*[?？])|(?<=\bthis\s)(?:tues?|wed|thu(?:rs?)?|fri|sat|sun)\b"
    r"|(?<=\w\s)(?:tues?|wed|thu(?:rs?)?|fri|sat)(?=\s*(?:[,.?!？。;，]|$))"
    r"|(?<=\w\s)" + "".join(rf"(?<!\b{word}\s)" for word in _SUNSHINE_BEFORE) + r"sun(?=\s*(?:[?？!.]|$))",
    re.IGNORECASE,
)
# Day words in the other languages questions are written in (French, German, Spanish, Portuguese, Italian), each
# group named by the English word it reads as. German "Morgen" after heute/am/guten is the morning, as Spanish
# "mañana" after la/una is ("esta mañana" is this morning: today); French "hier" is not German "hier" ("here")
# beside German words.
_OTHER_WORDS = {
    "day_after_tomorrow": r"apr[eè]s[-\s]demain|(?:ü|ue|u)bermorgen|pasado\s+ma[nñ]ana|depois\s+de\s+amanh[aã]"
                          r"|dopodomani",
    "today": r"aujourd['’]hui|heute|hoy|hoje|oggi|esta\s+ma[nñ]ana",
    "tomorrow": r"demain|(?<!heute\s)(?<!gestern\s)(?<!am\s)(?<!jeden\s)(?<!guten\s)(?<!diesen\s)(?<!morgen\s)morgen"
                r"|(?<!la\s)(?<!una\s)(?<!cada\s)ma[nñ]ana|amanh[aã]|domani",
    "yesterday": r"(?<!avant-)(?<!ist\s)(?<!es\s)(?<!morgen\s)(?<!heute\s)hier(?!\s+(?:in|im|bei|am|auf|und|ist)\b)"
                 r"|gestern|ayer|ontem|(?<!altro\s)ieri",
    # Portuguese weekdays without "-feira" only after "na" ("na sexta"): alone, "segunda" and "quinta" are numbers.
    "monday": r"lundi|montag|lunes|luned[iì]|segunda-feira|(?<=\bna\s)segunda",
    "tuesday": r"mardi|dienstag|martes|marted[iì]|ter[cç]a-feira|(?<=\bna\s)ter[cç]a",
    "wednesday": r"mercredi|mittwoch|mi[eé]rcoles|mercoled[iì]|quarta-feira|(?<=\bna\s)quarta",
    "thursday": r"jeudi|donnerstag|jueves|gioved[iì]|quinta-feira|(?<=\bna\s)quinta",
    "friday": r"vendredi|freitag|viernes|venerd[iì]|sexta-feira|(?<=\bna\s)sexta",
    "saturday": r"samedi|samstag|sonnabend|s[aá]bado|sabato",
    "sunday": r"dimanche|sonntag|(?<!santo\s)(?<!s[aã]o\s)domingo|domenica",
}
_OTHER = re.compile(r"\b(?:" + "|".join(rf"(?P<{name}>{words})" for name, words in _OTHER_WORDS.items()) + r")\b",
                    re.IGNORECASE)
# ... and Korean, whose particles follow a word with no space ("내일은"): no word boundary after it.
_KOREAN = re.compile(r"(?P<day_after_tomorrow>모레)|(?P<today>오늘)|(?P<tomorrow>내일)|(?P<yesterday>어제)")
# "this coming Friday", "next Monday": weekdays counted another way than a bare "Friday".
# "last Tuesday", "上周五": that weekday of the week before, a day in the past.
_EN_LAST = re.compile(rf"\blast\s+({'|'.join(WEEKDAYS)})\b", re.IGNORECASE)
_ZH_LAST_WEEK = re.compile(r"上个?(?:周|星期|礼拜)([一二三四五六日]|天(?!气))")
_EN_RELATIVE = re.compile(rf"\b(this\s+coming|coming|next|this)\s+({'|'.join(WEEKDAYS)})\b", re.IGNORECASE)
# "Wednesday next week", "Friday of next week": the same as "next Wednesday".
_EN_OF_NEXT_WEEK = re.compile(rf"\b({'|'.join(WEEKDAYS)})\s+(?:of\s+)?next\s+week\b", re.IGNORECASE)
# "Friday this week", "Friday of this week": the same as "this Friday".
_EN_OF_THIS_WEEK = re.compile(rf"\b({'|'.join(WEEKDAYS)})\s+(?:of\s+)?this\s+week\b", re.IGNORECASE)
# Days after a day word ("the three days after today", "今天之后的三天"): a span whose first day is the next one.
_DAYS_AFTER = re.compile(r"\bdays\s+after\s+(today|tomorrow)\b|(今天|明天)(?:之后|以后)", re.IGNORECASE)
# Days from today on ("未来一周", "the coming week", "this week"): a span whose first day is today.
_FROM_TODAY = re.compile(
    r"(?:未来|接下来的?|最近)(?:[一两二]个?(?:周|星期|礼拜)|(?:[一二两三四五六七八九十几]+|\s*\d{1,2}\s*)天)|这几天|这两天|本周(?![一二三四五六日末]|天(?!气))|这一?周(?![一二三四五六日末]|天(?!气))|这个星期(?![一二三四五六日天])"
    r"|\b(?:the\s+)?(?:coming\s+week|(?:coming|next)\s+(?:few|\d+|two|three|four|five|six|seven|eight|nine|ten|"
    r"fourteen)\s+days|(?:coming|next)\s+(?:two|2)\s+weeks|(?:those|these)\s+(?:\d+|two|three|four|five|six|seven)"
    r"\s+days)\b"
    r"|\bthis\s+week\b(?!end)", re.IGNORECASE)
# The day after the one last asked about, in a follow-up ("And the day after that?", "那第二天呢"): a day counted
# from the conversation's, not from today ("the day after tomorrow" is a day word of its own).
_DAY_AFTER = re.compile(rf"第二天|次日|隔天|(?:之|再)?后一天|\b(?:the\s+)?(?:day\s+after(?!\s+(?:{_TOMORROW})\b)|"
                        r"next\s+day|following\s+day)\b", re.IGNORECASE)
# ... and the day before it ("and the day before?" after yesterday: the day before yesterday; "前一天").
_DAY_BEFORE = re.compile(r"前一天|\b(?:the\s+)?(?:day\s+before(?!\s+yesterday\b)|previous\s+day)\b", re.IGNORECASE)
# The day the conversation was about, in a follow-up ("那天呢", "天水那天怎么样", "the same day"); 天 then 气 is
# another word.
_SAME_DAY = re.compile(r"(?:那一?|当|同一)天(?!气)|\b(?:that|the\s+same)\s+day\b", re.IGNORECASE)
# Two day words joined into a run of days ("tomorrow or the day after", "明天或者后天", "明后天", "今明两天", "明天到大后天",
# "今天明天都冷么"):
# the answer needs each, so a call covers them all ("today and tomorrow", "明天和后天" too: one call from the first).
# "The day after" counts from the first word.
_EN_AFTER_IT = rf"(?:the\s+)?(?:day\s+after(?!\s+(?:{_TOMORROW})\b)(?:\s+that)?|next\s+day|following\s+day)"
_JOINED = re.compile(
    r"(?P<pair>今明|明后)两?天|(?P<zh1>今天|明天|后天)(?:或者?|或是|还是|到|至|和|跟|与|、)?(?P<zh2>明天|后天|大后天)"
    rf"|\b(?P<en1>today|{_TOMORROW})\s+(?:(?:or|to|through|and|&)\s+(?P<en2>{_EN_AFTER_IT}|(?:the\s+)?day\s+after\s+"
    rf"(?:{_TOMORROW})|{_TOMORROW}))\b",
    re.IGNORECASE)
# Weekdays joined, asked of together ("Saturday or Sunday for a hike?", "周六还是周日更适合骑行", "周六周日哪天好",
# "Friday, Saturday or Sunday?"). (Not "sat"/"sun": words of their own.)
_EN_WEEKDAY = r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri)\b"
_ANY_WEEKDAY = re.compile(rf"(?:\bnext\s+)?{_EN_WEEKDAY}|下?个?(?:周|星期|礼拜)[一二三四五六日天]", re.IGNORECASE)
_WEEKDAY_JOINER = re.compile(r"\s*(?:,|，|&|/|、|\b(?:or|and|vs\.?)\b|还是|或者?|或是|和|跟|与)?\s*(?:on\s+)?",
                             re.IGNORECASE)
_JOINED_WEEKDAYS_REACH = 4  # days from the first to the last: "sunday or monday" is more likely next Monday's
# Two days compared ("明天比今天暖和点没", "is tomorrow warmer than today", "Lyon tomorrow vs the day after",
# "今天比昨天冷吗", "今天没昨天冷吧"): the days from the earlier to the later.
_ZH_DAY = "大后天|后天|明天|今天|昨天|前天"
_EN_DAY = rf"today|yesterday|{_TOMORROW}|the\s+day\s+after(?:\s+(?:{_TOMORROW}))?"
_COMPARED_DAYS = re.compile(
    rf"(?P<zh1>{_ZH_DAY})[^，,。？?！!\d\s]{{0,4}}?(?:比|跟|和|与|同|还是|没有|没|不如|vs\.?)(?P<zh2>{_ZH_DAY})"
    rf"|\b(?P<en1>{_EN_DAY})\s+(?:(?:be|is|going\s+to\s+be|gonna\s+be|will\s+be|get)\s+)?(?:[a-z]+(?:er|est)\s+|more\s+"
    rf"[a-z]+\s+|nicer\s+)?(?:than|vs\.?|versus|or|compared\s+(?:to|with))\s+(?P<en2>{_EN_DAY})\b",
    re.IGNORECASE)
_ZH_RUN_WORDS = ("今天", "明天", "后天", "大后天")
_EN_RUN_WORDS = ("today", "tomorrow", "day after tomorrow")
_EN_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_COUNT = rf"\d+|{'|'.join(_EN_NUMBERS)}|a"
_NUMBER = re.compile(rf"\d+|[零一二两三四五六七八九十]+|\b(?:{_COUNT})\b", re.IGNORECASE)
_EN_UNIT = r"days?|weeks?|fortnights?|months?|years?"
_ZH_UNIT = r"天|周|个?星期|个?礼拜|个半?月|年"
# Days, weeks or months counted from today ("16 days from now", "in 3 days", "three weeks later", "in a week's
# time", "二十天后", "两个星期后", "两个月后", "一个半月后", "半年后", "a year from now").
_EN_COUNTED = (rf"(?:in\s+(?:{_COUNT})\s+(?:{_EN_UNIT})(?:['’]s?\s+time)?"
               rf"|(?:{_COUNT})\s+(?:{_EN_UNIT})\s+(?:from\s+(?:today|now)|later|hence|ago|back|out))")
_ZH_COUNTED = (rf"(?:(?:(?<!\d)\d{{1,3}}|[零一二两三四五六七八九十]+)\s*(?:{_ZH_UNIT})|半年|半个月)"
               r"(?:以后|之后|后|以前|之前|前(?![后後]))(?:的今天)?")  # 的今天: that date
# Counted back from today ("3 days ago", "三天前"): a day gone.
_COUNTED_BACK = re.compile(r"\b(?:ago|back)\b|(?:以前|之前|前)(?:的今天)?$", re.IGNORECASE)
# One day so counted: that day, not the days up to it.
_COUNTED_DAY = re.compile(rf"\b{_EN_COUNTED}\b|{_ZH_COUNTED}", re.IGNORECASE)
# A weekday of the week so counted ("三周后的周六", "Saturday in three weeks"): that week's, not the coming one.
_WEEKDAY_OF_COUNTED = re.compile(
    rf"\b(?P<en>{'|'.join(WEEKDAYS)})\s+{_EN_COUNTED}\b|{_ZH_COUNTED}的?(?:周|星期|礼拜)(?P<zh>[{_ZH_WEEKDAY}])",
    re.IGNORECASE)
# Weeks counted from a weekday ("a week from Friday", "two weeks from Saturday"): from the coming one.
_COUNTED_FROM_WEEKDAY = re.compile(rf"\b(?:{_COUNT})\s+(?:weeks?|fortnights?)\s+from\s+(?P<en>{'|'.join(WEEKDAYS)})\b",
                                   re.IGNORECASE)
# 周天 is Sunday, but not before 气: that is the week's conditions, in the domain's word for them.
_ZH_THIS_WEEK = re.compile(r"(?:这|本)(?:周|星期|礼拜)([一二三四五六日]|天(?!气))")
_ZH_SAME = {"明日": "明天", "明晚": "明天", "明早": "明天", "今日": "今天", "今晚": "今天", "今早": "今天", "今夜": "今天",
            "昨日": "昨天", "昨晚": "昨天", "昨夜": "昨天", "这周": "本周", "这一周": "本周", "这周末": "周末", "本周末": "周末", "这个星期": "本周", "这星期": "本周", "这礼拜": "本周", "这个礼拜": "本周",
            # in traditional characters, and Japanese (明後日: the day after tomorrow)
            "大後天": "大后天", "後天": "后天", "明後日": "后天", "あさって": "后天", "あした": "明天", "きょう": "今天",
            "明儿": "明天", "明儿个": "明天", "今儿": "今天", "今儿个": "今天", "昨儿": "昨天", "昨儿个": "昨天",  # spoken
            "后儿": "后天", "后儿个": "后天", "大后儿": "大后天", "大后儿个": "大后天", "前儿": "前天", "前儿个": "前天",
            # Cantonese
            "听日": "明天", "聽日": "明天", "听朝": "明天", "聽朝": "明天", "琴日": "昨天", "寻日": "昨天", "尋日": "昨天",
            "后日": "后天", "大后日": "大后天",
            # Shanghainese (Wu): 明朝 tomorrow, 今朝 today, 昨日 yesterday ("明朝昆山要去伐")
            "明朝": "明天", "今朝": "今天"}
_EN_SAME = {"this morning": "today", "this afternoon": "today", "this evening": "today", "2day": "today",
            "rn": "today", "atm": "today",  # "right now", "at the moment"
            "last night": "yesterday",
            "wknd": "weekend", "wkend": "weekend",
            **dict.fromkeys(TONIGHT.split("|"), "today"), **dict.fromkeys(_TOMORROW.split("|"), "tomorrow")}


_ZH_OFFSETS = {"今天": 0, "明天": 1, "后天": 2, "大后天": 3, "昨天": -1, "前天": -2}
_EN_OFFSETS = {"today": 0, "tomorrow": 1, "day after tomorrow": 2, "yesterday": -1, "day before yesterday": -2}


def glossed(question: str, today: date, vocabulary: Vocabulary) -> str:
    """The question with its day words spelled out as distances from today ("明天 = 1 day from today"), its
    clock times on the 24-hour clock ("下午三点 = 15:00") and its words for below zero ("零下 = below 0"), which a
    small model turns into a tool's arguments far more reliably than the words themselves."""
    notes = []
    hours = hour_glosses(question, vocabulary)
    dates = calendar_dates(question, today)
    from_today = asked_day(question, today)
    if from_today and from_today.span:
        notes.append(_span_gloss(from_today))
    run = range(from_today.offset, from_today.offset + (from_today.count or 0)) if from_today else range(0)
    for word, offset in sorted(day_references(question, today).items()):
        if offset in run:
            continue  # a day of the run ("明后天"), spelled out with it
        if word in dates:
            notes.append(f"{word} = {dates[word].isoformat()}")
        elif offset is not None and offset != 0:
            distance = f"{abs(offset)} day{'s' if abs(offset) != 1 else ''} {'from' if offset > 0 else 'before'}"
            notes.append(f"{word} = {distance} today")
        elif offset == 0 and hours:
            # With an hour that has passed ("今天下午两点", asked in the evening) a model moved to tomorrow.
            notes.append(f"{word} = day 0")
    notes += (hours + below_zero_glosses(question, vocabulary) + bound_glosses(question, vocabulary)
              + range_glosses(question, vocabulary))
    return f"{question}\n\n({'; '.join(notes)})" if notes else question


def _span_gloss(asked: AskedDay) -> str:
    """Days from one on, as a tool counts them: "明后天 = 2 days from day 1 on", "未来一周 = from today (day 0) on"."""
    first = "today (day 0)" if asked.offset == 0 else f"day {asked.offset}"
    return f"{asked.word} = {f'{asked.count} days ' if asked.count else ''}from {first} on"


@dataclass(frozen=True)
class AskedDay:
    """The one day a question asks about: its distance from today (`offset`, `also` any other reading of the
    words), and the weekday to pass as such when the words name the coming one, today included ("周三",
    "Friday"): a tool that takes a weekday counts it from the place's own date, which may not be the gateway's."""

    word: str
    offset: int
    also: frozenset[int] = frozenset()
    weekday: str | None = None
    date: date | None = None  # the words name a calendar date ("12月25日", "New Year's Day 2020")
    span: bool = False  # the words name days from this one on ("未来一周": `offset` 0)
    count: int | None = None  # how many days from this one on, where the words say ("明后天": 2, from day 1)

    @property
    def offsets(self) -> frozenset[int]:
        return self.also | {self.offset}

    @property
    def names_a_weekday(self) -> bool:
        """Whether the words name a weekday ("下周二", "next tuesday", "周三"): its date is the same in two calendars a
        day apart (the gateway's and the place's) except across a week's edge, where an offset from today is not."""
        return self.word.split()[-1] in WEEKDAYS or _is_zh_weekday(self.word)


# A count of days, places or hours ("周末两天", "next 3 days", "两地", "2 cities"): no figure of what is measured,
# nor one a bound is taken from.
COUNT_OF_THINGS = re.compile(r"(?:\d+|[一二两三四五六七八九十]+)\s*(?:个)?(?:天|日|晚|夜|周|星期|小时|地|座|城市|地方)|"
                    r"\b\d+\s*(?:days?|nights?|weeks?|hours?|cities|places|towns)\b", re.IGNORECASE)
# A day said to be not the one meant ("是周三不是周四", "Wednesday, not Thursday").
_DENIED_DAY = re.compile(rf"(?:不是|\bnot\s+)({_ZH.pattern}|{_EN.pattern})", re.IGNORECASE)


def asked_day(question: str, today: date) -> AskedDay | None:
    """The single day the question names, if it names exactly one (none for a span such as 周末 or "this week",
    for two days, or for words with no fixed distance)."""
    after = _DAYS_AFTER.search(question)
    if after:
        first = _ZH_OFFSETS[after[2]] if after[2] else _EN_OFFSETS[after[1].lower()]
        return AskedDay(after[0], first + 1, span=True)
    joined = next(((match, run) for match in _JOINED.finditer(question) if (run := _run(match))), None)
    if joined:
        (match, (first, last)) = joined
        return AskedDay(match[0], first, span=True, count=last - first + 1)
    if weekdays := _joined_weekdays(question, today):
        return weekdays
    if compared := _compared_days(question):
        return compared
    references = day_references(question, today)
    dates = calendar_dates(question, today)
    if len(references) > 1 and dates and len(set(references.values())) == 1:  # "Sunday, Dec 6": one day
        references = {word: offset for word, offset in references.items() if word in dates}
    denied = {word for match in _DENIED_DAY.finditer(question) for word in day_words(match[1])}
    if denied and len(references) > 1:  # "是周三不是周四", "Wednesday, not Thursday": the day said, not the one denied
        references = {word: offset for word, offset in references.items() if word not in denied}
    named = [word for word in dates if not re.search(r"\d", word)]
    if named and (len(references) > len(named) or _FROM_TODAY.search(question)):
        # "in 6 days? that's when the lantern festival thing is", "next 10 days, I'm organizing an outdoor Christmas
        # BBQ": the days said are the days; a feast named beside them, which its calendar may place elsewhere,
        # says why
        references = {word: offset for word, offset in references.items() if word not in named}
    if len(references) == 2 and len(set(references) & WEEKEND_WORDS) == 1 and set(references) & WEEKEND_DAYS:
        # "这周末要去玩，礼拜六怎么样": a day of the weekend, named beside it
        references = {word: offset for word, offset in references.items() if word not in WEEKEND_WORDS}
    if references and names_the_day_after(question):  # "Amman tomorrow and Petra the day after": two days
        return None
    from_today = _FROM_TODAY.search(question)
    if from_today and all(offset is None for offset in references.values()):
        return AskedDay(from_today[0], 0, span=True)
    if len(references) != 1:
        return None
    ((word, offset),) = references.items()
    if offset is None or word in SPAN_WORDS:
        return None
    if word in dates:
        return AskedDay(word, offset, date=dates[word])
    if word.startswith("next ") and not _EN_OF_NEXT_WEEK.search(question):  # the coming one is often meant too
        coming = (WEEKDAYS.index(word.split()[-1]) - today.weekday() - 1) % 7 + 1
        return AskedDay(word, offset, also=frozenset({coming}))
    if word.startswith(("coming ", "this coming ")):
        return AskedDay(word, offset, weekday=word.split()[-1], also=frozenset({7}) if offset == 0 else frozenset())
    return AskedDay(word, offset, weekday=_coming_weekday(word))


def day_references(question: str, today: date) -> dict[str, int | None]:
    """The days a question names, each with its distance from today (None: not one day, or no fixed distance).
    "next Monday" is Monday of next week, as 下周一; "this coming Friday" the next Friday, today included."""
    dates = calendar_dates(question, today)
    # "16 days from today" names the one day it counts to, not today.
    counted, rest = _counted_days(question, today)
    joined, rest = _joined_days(rest)
    for word in dates:  # "去年今天" names a year ago, not also today
        rest = rest.replace(word, " ")
    references = {word: _offset(word, today) for word in day_words(rest)} | counted | joined
    references |= {word: (day - today).days for word, day in dates.items()}
    if _ZH_THIS_WEEK.search(question):  # 这周五: 周五, not the whole week
        references.pop("本周", None)
        for match in _ZH_THIS_WEEK.finditer(question):
            word = _zh_canonical(f"周{match[1]}")
            references[word] = _offset(word, today)
    for match in _ZH_LAST_WEEK.finditer(question):  # 上周五: not the coming 周五
        weekday = min(_ZH_WEEKDAY.index(match[1]), 6)
        references.pop(_zh_canonical(f"周{match[1]}"), None)
        references[match[0]] = weekday - today.weekday() - 7
    for match in _EN_LAST.finditer(question):
        weekday = WEEKDAYS.index(match[1].lower())
        references.pop(match[1].lower(), None)
        references[f"last {match[1].lower()}"] = -((today.weekday() - weekday) % 7 or 7)
    relative = [(m[1], m[2]) for m in _EN_RELATIVE.finditer(question)]
    for pattern, prefix in ((_EN_OF_NEXT_WEEK, "next"), (_EN_OF_THIS_WEEK, "this")):
        for match in pattern.finditer(question):
            references.pop(f"{prefix} week", None)
            relative.append((prefix, match[1]))
    for said_prefix, said_weekday in relative:
        prefix, weekday = re.sub(r"\s+", " ", said_prefix.lower()), said_weekday.lower()
        references.pop(weekday, None)
        gap = (WEEKDAYS.index(weekday) - today.weekday()) % 7
        if prefix == "this":
            references[weekday] = gap
        elif prefix == "next":
            references[f"next {weekday}"] = gap + 7 if today.weekday() <= WEEKDAYS.index(weekday) else gap
        else:  # "this coming Friday" asked on a Friday: today, as the next such weekday counts it (or a week on)
            references[f"{prefix} {weekday}"] = gap
    return references


def names_the_day_after(question: str) -> bool:
    """Whether the question asks about the day after the one the conversation was about ("the next day", 第二天)."""
    return bool(_DAY_AFTER.search(_joined_days(question)[1]))  # not the second of "tomorrow or the day after"


def names_the_day_before(question: str) -> bool:
    """Whether the question asks about the day before the one the conversation was about ("the day before", 前一天)."""
    return bool(_DAY_BEFORE.search(question))


def names_an_earlier_day(question: str) -> bool:
    """Whether the question asks about the day the conversation was about ("that day", 那天, 同一天) or the day
    after or before it ("the next day", 第二天, "the day before")."""
    return bool(_SAME_DAY.search(question)) or names_the_day_after(question) or names_the_day_before(question)


def _joined_days(question: str) -> tuple[dict[str, int | None], str]:
    """The days of the runs the question names, as canonical words ("明后天": 明天 and 后天), and the question less
    the runs' words (明后天 holds no 后天 of its own)."""
    days: dict[str, int | None] = {}
    for match in _JOINED.finditer(question):
        run = _run(match)
        if run is None:
            continue
        words = _EN_RUN_WORDS if match["en1"] else _ZH_RUN_WORDS
        days |= {words[offset]: offset for offset in range(run[0], run[1] + 1) if offset < len(words)}
        question = question.replace(match[0], " ")
    return days, question


def _compared_days(question: str) -> AskedDay | None:
    """Two days compared, as the days from the earlier to the later."""
    match = _COMPARED_DAYS.search(question)
    if match is None:
        return None
    if match["zh1"]:
        first, second = _ZH_OFFSETS[match["zh1"]], _ZH_OFFSETS[match["zh2"]]
    else:
        after_it = re.fullmatch(r"the\s+day\s+after", match["en2"], re.IGNORECASE)
        first = _EN_OFFSETS.get(_en_canonical(match["en1"]))
        second = first + 1 if after_it and first is not None else _EN_OFFSETS.get(_en_canonical(match["en2"]))
    if first is None or second is None or first == second:
        return None
    return AskedDay(match[0], min(first, second), span=True, count=abs(second - first) + 1)


def _joined_weekdays(question: str, today: date) -> AskedDay | None:
    """The first run of weekdays joined to each other, as the days from the earliest to the latest of them, when
    they lie within a few days of each other."""
    run: list[re.Match[str]] = []
    for match in _ANY_WEEKDAY.finditer(question):
        if run and not _WEEKDAY_JOINER.fullmatch(question[run[-1].end():match.start()]):
            if len(run) > 1:
                break
            run = []
        run.append(match)
    offsets = [_offset(word, today) for match in run for word in day_words(match[0])]
    if len(run) < 2 or len(offsets) != len(run) or None in offsets \
            or not 0 < max(offsets) - min(offsets) <= _JOINED_WEEKDAYS_REACH:
        return None
    first, last = min(offsets), max(offsets)
    return AskedDay(question[run[0].start():run[-1].end()], first, span=True, count=last - first + 1)


def _run(match: re.Match[str]) -> tuple[int, int] | None:
    """The first and last day (offsets from today) of a _JOINED match, if the second comes after the first."""
    if match["pair"]:
        first = 0 if match["pair"] == "今明" else 1
        return first, first + 1
    first = _ZH_OFFSETS[match["zh1"]] if match["zh1"] else _EN_OFFSETS[_en_canonical(match["en1"])]
    said = match["zh2"] or match["en2"]
    if re.fullmatch(_EN_AFTER_IT, said, re.IGNORECASE):  # "the day after (that)", "the next day": after the first
        second = first + 1
    else:
        second = _ZH_OFFSETS[said] if said in _ZH_OFFSETS else _EN_OFFSETS[_en_canonical(said)]
    return (first, second) if second > first else None


def _counted_days(question: str, today: date) -> tuple[dict[str, int | None], str]:
    """The days the question counts from today, by their words, and the question less those words (their weekday
    and numbers name no day of their own: "三周后的周六" is not this Saturday, "十六天后" holds no 后天)."""
    counted: dict[str, int | None] = {}
    for pattern in (_WEEKDAY_OF_COUNTED, _COUNTED_FROM_WEEKDAY, _COUNTED_DAY):
        counted |= {match[0]: _counted_offset(match, today) for match in pattern.finditer(question)}
        question = pattern.sub(" ", question)
    return counted, question


def _counted_offset(match: re.Match[str], today: date) -> int | None:
    """The distance from today of the day a match of a counted day names (see _counted_days): the days counted,
    from the weekday it names or to that weekday of their week."""
    days = _days_counted(match[0])
    if days is not None and _COUNTED_BACK.search(match[0]):
        days = -days
    named = match.groupdict().get("en") or match.groupdict().get("zh")
    if days is None or named is None:
        return days
    weekday = min(_ZH_WEEKDAY.index(named), 6) if named in _ZH_WEEKDAY else WEEKDAYS.index(named.lower())
    if match.re is _COUNTED_FROM_WEEKDAY:
        return (weekday - today.weekday()) % 7 + days
    counted = today + timedelta(days=days)  # the weekday of that week, its week running Monday to Sunday
    return days + weekday - counted.weekday()


def _days_counted(words: str) -> int | None:
    """How many days words count ("three weeks": 21, "两个星期": 14, "a fortnight": 14, "16 days": 16), in digits,
    Chinese numerals or English words."""
    number = _NUMBER.search(words)
    count = number[0].lower() if number else ""
    times = 1 if count == "a" else _EN_NUMBERS.index(count) + 1 if count in _EN_NUMBERS else numeral(count)
    if words.startswith("半"):  # 半年, 半个月
        return 182 if "年" in words else 15
    unit = 14 if "fortnight" in words.lower() else 7 if re.search(r"week|周|星期|礼拜", words, re.IGNORECASE) \
        else 30 if re.search(r"month|月", words, re.IGNORECASE) \
        else 365 if re.search(r"year|年", words, re.IGNORECASE) else 1  # past any tool's days: 30 or 365 days
    half = 15 if "半月" in words else 0  # 一个半月: a month and a half
    return None if times is None else times * unit + half


def _is_zh_weekday(word: str) -> bool:
    """周三, 下周二 (canonical words: 星期 and 礼拜 read as 周)."""
    return word.startswith(("周", "下周")) and len(word) >= 2 and word[-1] in _ZH_WEEKDAY


def _coming_weekday(word: str) -> str | None:
    """The English weekday of 周三 or "wednesday" (the coming one, today included); None for any other word."""
    if word in WEEKDAYS:
        return word
    if len(word) == 2 and word.startswith("周") and word[-1] in _ZH_WEEKDAY:
        return WEEKDAYS[min(_ZH_WEEKDAY.index(word[-1]), 6)]
    return None


def _offset(word: str, today: date) -> int | None:
    if word in _ZH_OFFSETS or word in _EN_OFFSETS:
        return _ZH_OFFSETS.get(word, _EN_OFFSETS.get(word))
    weekday = _ZH_WEEKDAY.find(word[-1]) if _is_zh_weekday(word) else -1
    if weekday >= 0:
        offset = (min(weekday, 6) - today.weekday()) % 7
        return offset + 7 if word.startswith("下周") and today.weekday() <= min(weekday, 6) else offset
    if word in WEEKDAYS:
        return (WEEKDAYS.index(word) - today.weekday()) % 7
    return None


# Words for more than one day: whatever the facts say of any of their days may be said of these.
WEEKEND_WORDS = frozenset({"周末", "weekend"})
WEEKEND_DAYS = frozenset({"周六", "周日", "saturday", "sunday"})
SPAN_WORDS = frozenset({"周末", "本周", "下周", "weekend", "this week", "next week"})
# Where what is said of one day ends: "；" between days, a heading's colon (not a clock's), or the end of a
# sentence (not a decimal point).
_SEGMENT_END = re.compile(r"[；;。：\n]|\.(?!\d)|(?<!\d):(?!\d)")
_BRACKET_END = re.compile(r"[）)]")
_LABEL_GAP = 16  # a day word this close to the previous one, with no end between, names the same day ("明天（…周三）")
# ... but not with a comma between: another day's figure beside the first's ("today (low -3.2, yesterday -0.3)")
_LABELS_APART = re.compile(rf"{_SEGMENT_END.pattern}|[,，]")


@dataclass(frozen=True)
class Segment:
    """What a text says of one day: the words naming it and the text up to the next day or the sentence's end."""

    days: frozenset[str]
    text: str


def segments(text: str) -> tuple[list[Segment], str]:
    """The text split by the day each part is about, and what is left over (said of no single day)."""
    found: list[tuple[int, int, set[str]]] = []
    for start, end, word in _named_days(text):
        if word in SPAN_WORDS:
            continue
        if found and start - found[-1][1] <= _LABEL_GAP and not _LABELS_APART.search(text, found[-1][1], start):
            found[-1] = (found[-1][0], end, found[-1][2] | {word})
        else:
            found.append((start, end, {word}))
    parts, general, cursor = [], [], 0
    for index, (start, end, words) in enumerate(found):
        limit = found[index + 1][0] if index + 1 < len(found) else len(text)
        # Days named in brackets ("有空（周日）") are a remark on what stands before them: up to the bracket's end.
        ends = _BRACKET_END if start and text[start - 1] in "（(" else _SEGMENT_END
        stop = ends.search(text, end, limit)
        finish = stop.start() if stop else limit
        general.append(text[cursor:start])
        parts.append(Segment(frozenset(words), text[start:finish]))
        cursor = finish
    general.append(text[cursor:])
    return parts, "".join(general)


def day_words(text: str) -> set[str]:
    """Every day the text names, as canonical words: 明天, 周五, 下周一, 周末, tomorrow, friday, weekend, ...
    (another language's are read as the English: jeudi is thursday)."""
    return {word for _, _, word in _named_days(text)}


def written_day_words(text: str) -> set[str]:
    """The day words of the text as it writes them ("wed" of "lyon wed hours?")."""
    return {text[start:end] for start, end, _ in _named_days(text)}


def without_day_words(text: str) -> str:
    """The text less the days it names."""
    for pattern, _ in _READERS:
        text = pattern.sub(" ", text)
    return text


def _named_days(text: str) -> list[tuple[int, int, str]]:
    """Where each day word of the text starts and ends, and its canonical word, in the text's order."""
    return sorted((match.start(), match.end(), canonical(match)) for pattern, canonical in _READERS
                  for match in pattern.finditer(text))


def unsupported_days(reply: str, facts_days: set[str]) -> list[str]:
    """The days a reply names that the facts do not cover (none when the facts name no day at all)."""
    if not facts_days:
        return []
    return sorted(day for day in day_words(reply) if not _covered(day, facts_days))


# Words that say the present moment, in a reply: of today, and only of the facts' today.
# (Not "currently" nor 目前: "目前的数据显示" is the data as it stands.)
_PRESENT = re.compile(r"\b(?:right\s+now|at\s+the\s+moment)\b|现在|此刻", re.IGNORECASE)


def unsupported_present(reply: str, facts_days: set[str], today: date) -> str | None:
    """The present-moment words of a reply ("right now", 现在) when every day the facts name is another day than
    today: "which one gets colder tomorrow night?" answered "Oulu is colder right now". None when they name none,
    or one whose distance from today is not fixed."""
    said = _PRESENT.search(reply)
    if said is None or not facts_days:
        return None
    offsets = [_offset(day, today) for day in facts_days]
    return said[0] if all(offset is not None and offset != 0 for offset in offsets) else None


def _covered(day: str, facts_days: set[str]) -> bool:
    if day in facts_days:
        return True
    weekdays = {d for d in facts_days if _is_zh_weekday(d)}
    english_days = {d for d in facts_days if d in WEEKDAYS}
    if day == "周末":
        return bool({"周六", "周日", "下周六", "下周日"} & facts_days)
    if day == "weekend":
        return bool({"saturday", "sunday"} & facts_days)
    if day.startswith("周"):  # 周一 said of next Monday
        return f"下{day}" in facts_days
    if day in ("本周", "this week"):
        return len(weekdays | english_days | (facts_days & {"今天", "明天", "后天", "today", "tomorrow"})) >= 3
    if day == "下周":
        return any(d.startswith("下周") for d in facts_days)
    if day == "next week":
        return len(english_days) >= 5
    return False


def _zh_canonical(word: str) -> str:
    word = re.sub(r"^下个?(?:星期|礼拜|周)", "下周", _ZH_SAME.get(word, word))
    for prefix in ("星期", "礼拜"):
        if word.startswith(prefix):
            word = "周" + word[len(prefix):]
    return word.replace("周天", "周日")


def _en_canonical(word: str) -> str:
    word = re.sub(r"\s+", " ", word.lower()).removeprefix("the ")
    if word.split(" ")[1:2] == ["after"]:  # "day after tmrw"; "the night after tomorrow" is that day's night
        return "day after tomorrow"
    word = _EN_SAME.get(word, word)
    for weekday in WEEKDAYS:
        if word[:3] == weekday[:3]:
            return weekday
    return word


def _other_canonical(match: re.Match[str]) -> str:
    return str(match.lastgroup).replace("_", " ")


# Each language's day words and how a match of them reads as a canonical word.
_READERS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (_ZH, lambda match: _zh_canonical(match[0])), (_EN, lambda match: _en_canonical(match[0])),
    (_OTHER, _other_canonical), (_KOREAN, _other_canonical))
