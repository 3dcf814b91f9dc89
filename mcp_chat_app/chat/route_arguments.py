"""Clean-ups of the router's arguments the schema cannot express: which free-text arguments the question states
(a small model fills what a follow-up leaves out with something made up), flags it turned on unasked, places
nobody named, hours of the day the question does not mention, and a day other than the asked one. Which argument
is a place, an hour or a day is read from the tool's schema; each change is logged."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import unicodedata
from collections.abc import Iterable
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

from mcp_chat_app.chat.text.below_zero import below_zero_glosses
from mcp_chat_app.chat.text.clock import clock_times, numeral, parts_of_day
from mcp_chat_app.chat.text.day_words import (
    WEEKDAYS,
    AskedDay,
    day_references,
    day_words,
    names_the_day_after,
    without_day_words,
)
from mcp_chat_app.chat.text.vocabulary import Vocabulary

log = logging.getLogger(__name__)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HOW_MANY_DAYS = re.compile(r"\b(?:how many|number of)\s+days\b", re.IGNORECASE)  # a schema's count of days
# A question that counts days itself ("3 days", "三天", "a week", "一周"): its count is kept.
_COUNTED_DAYS = re.compile(r"\d+\s*(?:days?|天|日)|[一二两三四五六七八九十]+\s*(?:天|日)|\b(?:week|fortnight)s?\b|"
                           r"[一两]?(?:周|星期|礼拜)(?![一二三四五六日天末])", re.IGNORECASE)
# Which week a weekday is in ("Wednesday next week"): it names the day, it counts no days.
_WHICH_WEEK = re.compile(r"\b(?:this|next|last)\s+week\b", re.IGNORECASE)
# One more name joined to a list ("or Budapest", ", Bergen", "vs Quito"): capitalised words.
_NAME_WORDS = r"[A-ZÀ-Þ][\w'’.-]*(?:\s+(?:(?:de|da|do|dos|del|des|la|le|el|al|upon|am)\s+)?[A-ZÀ-Þ][\w'’.-]*)*"
_JOINED_NAME = rf"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:or|and|vs\.?|versus)\s+)({_NAME_WORDS})"
# Chinese names joined in a comparison: a joining word, then two characters or more up to a character that begins
# the question's own words (a day, "哪个", "的", the domain's) or a punctuation mark.
_HAN = re.compile(r"[\u3400-\u9fff]")
_COMPARES_ZH = re.compile(r"哪个|哪里|哪边|哪儿|哪座|谁|比较|对比|相比|更|分别|各自|都")
_WINNER_ZH = re.compile(r"哪个|哪里|哪边|哪儿|哪座|谁|比较|对比|相比|更")  # not 分别, 各自, 都: each its own
_JOINED_ZH = re.compile(r"\s*(?:和|与|跟|同|、|还是|或者|或|vs\.?|VS)\s*([\u3400-\u9fff]{2,})")
_NAME_ENDS_ZH = "哪谁的明今后昨前周下这那现此比更天吗呢会有是要和与跟同还或都分各"
# A place's qualifier as a question writes it: after it in Latin script ("Moscow, Idaho", "Kingston Jamaica"),
# before it in Chinese or Japanese, written in Han or katakana ("浙江丽水", "澳大利亚的纽卡斯尔").
_QUALIFIER_AFTER = rf"(?:\s*,\s*|[ \t]+){_NAME_WORDS}"
# How alike a copy of a name must be to the question's words to be taken for them ("Ipoah" for "ipoh": 0.89).
_NEARLY_THE_SAME = 0.8
_BEFORE = "[\u3400-\u9fff\u30a0-\u30ffの]"
_RUN_BEFORE = re.compile(f"{_BEFORE}*$")
_ASKS_ZH = "在去到查问请帮看想我你"  # the question's own words before a place ("帮我查一下杭州"), no qualifier's
# A question about the present, in the languages of the day words: it inherits no earlier day.
_NOW = re.compile(r"现在|此刻|目前|当前|眼下|这会儿|\b(?:now|currently|at the moment|right now)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d|[零〇一二两三四五六七八九十]")  # a figure in digits or Chinese numerals
_SIGNED = re.compile(r"(?<![A-Za-z0-9_.])([-−]?\d+(?:\.\d+)?)")  # "25-30" is 25 and 30, "-5" minus five
_MINUS = re.compile(r"\bminus\s+(\d+(?:\.\d+)?)", re.IGNORECASE)
# The count of a span of days in its own words: a number of days, or a week (一周, 一个星期) or a fortnight.
_SPAN_COUNT = re.compile(r"(\d+|[一二两三四五六七八九十]+|two|three|four|five|six|seven|eight|nine|ten|fourteen)\s*"
                         r"(?:days?\b|天)|(week|fortnight|周|星期)", re.IGNORECASE)
_EN_COUNTS = {word: count for count, word in enumerate(
    ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), start=2)} | {"fourteen": 14}
_THIS_WEEK = re.compile(r"这|本|\bthis\b", re.IGNORECASE)  # the rest of this week: no count of its own
_HOUR_WORDS = re.compile(r"\b(?:hours?|clock)\b", re.IGNORECASE)  # how a schema says an argument is a time of day


class UnnamedArgument(ValueError):
    """A call that cannot be made as is: it needs values (places) that neither the question nor the conversation
    names. `argument` is the list that fell short, `named` the items of it that are named."""

    def __init__(self, message: str, argument: str, named: list[Any]) -> None:
        super().__init__(message)
        self.argument = argument
        self.named = named


def states_its_arguments(arguments: Iterable[dict[str, Any]], schemas: Iterable[dict[str, Any]],
                         question: str) -> bool:
    """Whether the question writes every free-text argument of the calls (see unstated_arguments)."""
    return not unstated_arguments(arguments, schemas, question)


def unstated_arguments(arguments: Iterable[dict[str, Any]], schemas: Iterable[dict[str, Any]],
                       question: str) -> list[str]:
    """The free-text arguments of the calls (a place, a name: no enum, no pattern) the question does not write.
    Asked alone, a model fills what a follow-up leaves out with something made up ("北京")."""
    asked = question.casefold()
    return [item for values, schema in zip(arguments, schemas) for _, item in _free_text_items(values, schema)
            if not _mentioned(item, asked)]


def stated_arguments(arguments: dict[str, Any], schema: dict[str, Any], question: str) -> dict[str, str]:
    """The free-text arguments of one call (not lists) the question writes."""
    asked = question.casefold()
    return {name: item for name, item in _free_text_items(arguments, schema)
            if arguments[name] == item and _mentioned(item, asked)}


def siblings(value: str, question: str, vocabulary: Vocabulary) -> list[str]:
    """The names the question joins to `value` ("Prague or Budapest", "Oslo, Bergen and Tromsø", "Lima vs
    Quito"): capitalised Latin names after it, each following "or", "and", "vs" or a comma that another such word
    ends; in Chinese, in a question that compares ("北京和上海哪个好"), the names after 和/与/跟/、/还是, each
    ending at the first word of the question's own (明天, 哪个, 的, or the vocabulary's) after its second character."""
    if _HAN.match(value):
        return _chinese_siblings(value, question, vocabulary.name_ends_zh)
    match = re.search(rf"(?<![\w]){re.escape(value)}((?:{_JOINED_NAME})+)", question)
    joined = [(bool(re.search(r"\b(?:or|and|vs|versus)\b", m[0])), m[1])
              for m in re.finditer(_JOINED_NAME, match[1])] if match else []
    # After the last "or" / "and", a comma says which one ("Córdoba, Argentina"); with none, all do ("Paris,
    # France"), unless the question compares and two commas or more join names ("Dunedin, Nelson, Rotorua -
    # which will be warmest?"): a list.
    last = max((i for i, (word, _) in enumerate(joined) if word), default=-1)
    if last < 0 and len(joined) >= 2 and _compares(question, vocabulary):
        last = len(joined) - 1
    return [name for _, name in joined[:last + 1]]


def _compares(question: str, vocabulary: Vocabulary) -> bool:
    """Whether a Latin-script question compares things: "which", "compare", "vs", or one of the domain's
    comparatives, or a superlative ("warmest")."""
    words = set(re.findall(r"[a-z]+", question.casefold()))
    comparatives = set(vocabulary.comparatives)
    superlatives = {word.removesuffix("er") + "est" for word in comparatives}
    return bool(words & ({"which", "compare", "vs", "versus", "highest", "lowest", "most", "least"}
                         | comparatives | superlatives))


def _chinese_siblings(value: str, question: str, domain_ends: str) -> list[str]:
    if not _COMPARES_ZH.search(question):
        return []
    ends = _NAME_ENDS_ZH + domain_ends
    found, rest = [], question.split(value, 1)[1] if value in question else ""
    while (joined := _JOINED_ZH.match(rest)) is not None:
        tail = joined[1][2:]
        name = joined[1][:2] + tail[:next((i for i, c in enumerate(tail) if c in ends), len(tail))]
        found.append(name)
        rest = rest[joined.start(1) + len(name):]
    return found


def with_qualifiers(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                    vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each place (an argument or list item the schema calls one) as the question writes it
    with its qualifier (see qualified): "Moscow, Idaho - any news?" was called for "Moscow" (Russia), "下周三浙江丽水
    怎么样" for "丽水" (Lishui or Yeosu)."""
    kept = dict(arguments)
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        spec = properties.get(name, {})
        if isinstance(value, list) and _is_place(name, spec.get("items", {}), vocabulary, spec):
            others = [item for item in value if isinstance(item, str)]
            kept[name] = [qualified(item, question, vocabulary, others) if isinstance(item, str) else item
                          for item in value]
        elif isinstance(value, str) and _is_place(name, spec, vocabulary):
            kept[name] = qualified(value, question, vocabulary)
    return kept


def without_opening(arguments: dict[str, Any], schema: dict[str, Any], opening: str,
                    vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each place (an argument or list item the schema calls one) less the words the question
    opens its follow-up with (`opening`), where the router wrote them into it: "那贡布呢" ("and Kampot?") was called
    for "那贡布". A place with fewer than two characters left keeps them ("那曲呢": 那曲 is a place)."""
    def bare(value: Any) -> Any:
        if not opening or not isinstance(value, str) or not value.casefold().startswith(opening.casefold()):
            return value
        rest = value[len(opening):].strip(" ,，")
        return rest if len(rest) >= 2 else value

    kept = dict(arguments)
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        spec = properties.get(name, {})
        if isinstance(value, list) and _is_place(name, spec.get("items", {}), vocabulary, spec):
            kept[name] = [bare(item) for item in value]
        elif _is_place(name, spec, vocabulary):
            kept[name] = bare(value)
    if kept != arguments:
        log.info("%r less the follow-up's opening %r: %r", arguments, opening, kept)
    return kept


def only_run_on(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether each place `with_qualifiers` changed only got the characters written right before it, with no 的/の
    between ("浙江丽水", but also "画出北京"): a guess, where a comma or 的 says a qualifier is one."""
    changed = [(old, new) for name, value in before.items()
               for old, new in zip(value if isinstance(value, list) else [value],
                                   after[name] if isinstance(after.get(name), list) else [after.get(name)])
               if old != new]
    return bool(changed) and all(isinstance(old, str) and isinstance(new, str) and new.endswith(old)
                                 and re.match(_BEFORE, old) is not None
                                 and re.search(f"{_BEFORE}$", new[:-len(old)]) is not None
                                 and not new[:-len(old)].endswith(("的", "の")) for old, new in changed)


def qualified(value: str, question: str, vocabulary: Vocabulary, others: Iterable[str] = ()) -> str:
    """`value` as the question writes it with a qualifier beside it: in Latin script capitalised words after a
    comma or a space ("Moscow, Idaho - any news?", "Kingston Jamaica tomorrow"), in Chinese or Japanese the
    characters before it, with or without 的/の ("下周三浙江丽水", "澳大利亚的纽卡斯尔"); day words are no qualifier,
    nor are names joined to it (siblings) or `others` (the call's other places). The rule is textual only: whether
    the longer form names a place is for the tool to say, since the gateway knows no place names (the call falls
    back to the router's value when it fails). `value` itself when the question writes no qualifier beside it;
    less the day words the router wrote into it ("周五十堰" of "周五十堰怎么样")."""
    bare = re.sub(r"\s+", " ", without_day_words(value)).strip(" ,，")
    value = bare if bare and not _only_day_words(value) else value
    # A Latin name may follow its qualifier in Chinese too ("越南Sapa").
    written = _qualified_before(value, question, vocabulary) if re.match(_BEFORE, value) \
        else _qualified_after(value, question) or _qualified_before(value, question, vocabulary)
    qualifiers = {part.strip(" 的の") for part in written.casefold().replace(value.casefold(), "", 1).split(",")}
    taken = {other.casefold() for other in [*others, *_listed_with(value, question, vocabulary)] if other != value}
    return written if written and not qualifiers & taken else value


def _listed_with(value: str, question: str, vocabulary: Vocabulary) -> list[str]:
    """The names the question lists with `value`, before it as after it: "Dunedin" and "Rotorua" of "Nelson" in
    "Dunedin, Nelson, Rotorua - which...", where the names after "Nelson" alone make no list."""
    listed = siblings(value, question, vocabulary)
    if _HAN.match(value):
        return listed
    for first in re.finditer(_NAME_WORDS, question[:max(question.find(value), 0)]):
        after = siblings(first[0], question, vocabulary)
        if value in after:
            listed += [first[0], *after]
    return listed


def _qualified_after(value: str, question: str) -> str:
    """The value and the capitalised words after it, up to the first day word ("Córdoba, Spain" of "Córdoba,
    Spain this Saturday"; "Paris, TX" of "Paris, TX Saturday?")."""
    match = re.search(rf"(?<![\w])(?i:{re.escape(value)})((?:{_QUALIFIER_AFTER})+)", question)
    if match is None:
        return ""
    words = match[1]
    day = next((word.start() for word in re.finditer(r"[\w'’.-]+", words) if day_words(word[0])), len(words))
    kept = words[:day].rstrip(" ,\t")
    return f"{question[match.start():match.start(1)]}{kept}" if kept.strip(" ,\t") else ""


def _qualified_before(value: str, question: str, vocabulary: Vocabulary) -> str:
    """The value and the characters right before it, less day words and what ends a name ("浙江丽水" of
    "下周三浙江丽水怎么样"; "浙江的丽水"), when two or more are left before a 的/の."""
    at = question.find(value)
    before = without_day_words(question[:max(at, 0)])
    run = match[0] if (match := _RUN_BEFORE.search(before)) else ""
    joiner = run[-1:] if run[-1:] in ("的", "の") else ""
    name = run[:len(run) - len(joiner)]
    ends = set(_NAME_ENDS_ZH + _ASKS_ZH + vocabulary.name_ends_zh)
    name = name[max((i + 1 for i, c in enumerate(name) if c in ends), default=0):]
    return f"{name}{joiner}{value}" if at > 0 and len(name) >= 2 else ""


def _free_text_items(arguments: dict[str, Any], schema: dict[str, Any]) -> Iterable[tuple[str, str]]:
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        spec = properties.get(name, {})
        items = value if isinstance(value, list) else [value]
        if _free_text(spec.get("items", {}) if isinstance(value, list) else spec):
            yield from ((name, item) for item in items if isinstance(item, str))


def without_unasked_flags(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                          vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments less the optional flags turned on that the question does not name: a small model turns on
    what it was not asked for (another unit for a place that uses it). A flag is named by its own name or by a
    symbol of the domain (with its letter) or Chinese term its description quotes."""
    asked = question.casefold()
    kept = dict(arguments)
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if value is not True or not _is_flag(spec):
            continue
        if not any(_mentioned(term, asked) if term.isascii() and term.isalpha() else term.casefold() in asked
                   for term in _flag_terms(name, spec, vocabulary)):
            del kept[name]
    return kept


def with_earlier_flags(arguments: dict[str, Any], schema: dict[str, Any], earlier: list[dict[str, Any]],
                       question: str, vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with the optional flags that the conversation's latest calls (`earlier`: their arguments, of
    the same server) turned on and this call leaves off, unless the question names a unit of its own (one of the
    vocabulary's units' names that is none of the flag's terms: "in kelvins please"): a follow-up keeps the
    conversation's choice ("and tonight's low?" after a question in another unit was answered in the default)."""
    kept = dict(arguments)
    for name, spec in schema.get("properties", {}).items():
        if not _is_flag(spec) or kept.get(name) or not any(call.get(name) is True for call in earlier):
            continue
        terms = {term.casefold() for term in _flag_terms(name, spec, vocabulary)}
        chosen = [unit for unit in vocabulary.plain_words if unit not in terms and _mentioned(unit, question.casefold())]
        if chosen:
            log.info("%s left off: the question names %s", name, ", ".join(chosen))
            continue
        log.info("%s=True as the conversation's latest calls had it", name)
        kept[name] = True
    return kept


def _is_flag(spec: dict[str, Any]) -> bool:
    """Whether an argument is an optional flag, off unless turned on."""
    return spec.get("type") == "boolean" and spec.get("default") is False


def _flag_terms(name: str, spec: dict[str, Any], vocabulary: Vocabulary) -> list[str]:
    """What names a flag: its own name, and the symbols of the domain (with their letter) and Chinese terms its
    description quotes."""
    return [name.replace("_", " "), *_quoted_term(vocabulary.quoted_symbols).findall(spec.get("description", ""))]


def as_the_question_spells(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                           vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each Latin-script place the question does not write but writes nearly so, as the
    question writes it: the router copied "ipoh" as "Ipoah", and a place nobody named is no call to make."""
    words = re.findall(r"[^\W\d_][\w'’.-]*", question)
    phrases = [" ".join(words[i:i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1)]

    def respelt(value: Any) -> Any:
        if not isinstance(value, str) or _HAN.search(value) or _mentioned(value, question.casefold()):
            return value
        similarity = {phrase: SequenceMatcher(None, phrase.casefold(), value.casefold()).ratio() for phrase in phrases}
        best = max(similarity, key=similarity.__getitem__, default="")
        return best if best and similarity[best] >= _NEARLY_THE_SAME else value

    kept = dict(arguments)
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if isinstance(value, list) and _is_place(name, spec.get("items", {}), vocabulary, spec):
            kept[name] = [respelt(item) for item in value]
        elif _is_place(name, spec, vocabulary):
            kept[name] = respelt(value)
    if kept != arguments:
        log.info("%r as the question spells it: %r", arguments, kept)
    return kept


def without_unnamed_places(arguments: dict[str, Any], schema: dict[str, Any], said: str,
                           vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments less the places (an argument or list item the schema calls one of the vocabulary's
    `place_words`) that the question and the conversation (`said`) never name: "周三北京冷吗" became a
    comparison of 北京 with 上海. A list keeps its named items, and all of them when none is named (they may be
    translations: "北京" for "Beijing"); below its `minItems`, the call is not made (UnnamedArgument). An
    optional place is dropped; a required one is left to the router's own check of made-up arguments."""
    asked = said.casefold()
    kept = dict(arguments)
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        spec = properties.get(name, {})
        if isinstance(value, list) and _is_place(name, spec.get("items", {}), vocabulary, spec):
            named = [item for item in value if not isinstance(item, str) or _mentioned(item, asked)]
            if not named or len(named) == len(value):
                continue
            unnamed = [item for item in value if item not in named]
            if len(named) < spec.get("minItems", 0):
                raise UnnamedArgument(f"{name}: {', '.join(map(str, unnamed))} not named in the question; "
                                      f"call a tool for the {len(named)} named", name, named)
            log.info("dropped %s %r: not named in the question or the conversation", name, unnamed)
            kept[name] = named
        elif isinstance(value, str) and name not in schema.get("required", ()) \
                and _is_place(name, spec, vocabulary) and not _mentioned(value, asked):
            log.info("dropped %s=%r: not named in the question or the conversation", name, value)
            del kept[name]
    return kept


def unnamed_places(arguments: dict[str, Any], schema: dict[str, Any], said: str, vocabulary: Vocabulary) -> list[str]:
    """The places of a call (arguments or list items the schema calls ones) that `said`, the question and the
    conversation, never names."""
    asked = said.casefold()
    found = []
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if isinstance(value, list) and _is_place(name, spec.get("items", {}), vocabulary, spec):
            found += [item for item in value if isinstance(item, str) and not _mentioned(item, asked)]
        elif isinstance(value, str) and _is_place(name, spec, vocabulary) and not _mentioned(value, asked):
            found.append(value)
    return found


def without_unasked_hours(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                          vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments less an optional time of day (hours by the clock, a part of the day: the schema says
    "hour" or "clock") when the question mentions none: asked about a whole day, a model added `night`, and the
    answer spoke of the night only. The question mentions one by a clock time, a part of the day (clock.py), or
    a value or term the argument's own schema gives ("night", 今晚)."""
    kept = dict(arguments)
    for name, value in arguments.items():
        spec = schema.get("properties", {}).get(name, {})
        if value is None or name in schema.get("required", ()) or not _is_hours(name, spec):
            continue
        if any(clock_times(question, vocabulary)) or any(parts_of_day(question, vocabulary)):
            return kept
        terms = [*_enum_values(spec), *re.findall(r"[\u3400-\u9fff]{2,}", spec.get("description", ""))]
        if not any(_mentioned(term, question.casefold()) for term in terms if isinstance(term, str)):
            log.info("dropped %s=%r: the question names no time of day", name, value)
            del kept[name]
    return kept


def with_clock_hours(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                     vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with the hours the question writes by the clock, each time with one reading ("tonight at 9"
    is 21, "demain à midi" 12), in an optional time-of-day argument that takes a list of hours, where the router
    gave a part of the day ("night": the answer spoke of the whole night) or nothing."""
    times = list(clock_times(question, vocabulary))
    if not times or any(len(time.minutes) != 1 for time in times):
        return arguments  # a bare "3点" may be 03:00 or 15:00: the router's reading stands
    hours = sorted({minute // 60 for time in times for minute in time.minutes})
    name = hours_argument(schema)
    if name is None or name in schema.get("required", ()) or isinstance(arguments.get(name), list) \
            or not _takes_integer_list(schema["properties"][name]):
        return arguments
    log.info("%s=%r as the question's clock times %s", name, arguments.get(name), hours)
    return {**arguments, name: hours}


def _takes_integer_list(spec: dict[str, Any]) -> bool:
    return any(option.get("type") == "array" and option.get("items", {}).get("type") == "integer"
               for option in spec.get("anyOf", [spec]))


def with_asked_day(arguments: dict[str, Any], schema: dict[str, Any], asked: AskedDay | None,
                   today: dt.date) -> dict[str, Any]:
    """The arguments with the day the question asks about, when its one day argument (an offset from today, a
    weekday or a date, as the schema allows) says another: "周三" became Thursday. A weekday asked for is passed
    as the weekday where the schema takes one, so the tool counts it from the place's own date (past midnight
    there, the gateway's date is the day before); another weekday ("下周二") as its date where the schema takes one
    (the same in both calendars); any other day as an offset, the tool's own "today" being the place's. Offsets the
    question's words are read as are counted from `today`, the gateway's date."""
    days = [name for name, spec in schema.get("properties", {}).items() if _day_forms(spec)]
    if asked is None or len(days) != 1:
        return arguments
    (name,) = days
    forms = _day_forms(schema["properties"][name])
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
        if isinstance(value, int) and spec.get("default") == 1 and value > 1 and _counts_days(spec):
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
        if _counts_days(spec) and isinstance(value, int) and value < count:
            log.info("%s=%r replaced by %r: the question asks about %s", name, arguments.get(name), count, asked.word)
            kept[name] = count
    return kept


def span_days(words: str) -> int | None:
    """How many days the words of a span from today count ("next 3 days", "未来三天", "coming week": 7), where the
    day words leave its count out; None for a span that counts none of its own ("这几天", "this week": the rest
    of it)."""
    if _THIS_WEEK.search(words):
        return None
    match = _SPAN_COUNT.search(words)
    if match is None:
        return None
    if match[2]:
        return 14 if match[2].casefold() == "fortnight" else 7
    count = match[1].casefold()
    return _EN_COUNTS.get(count) or numeral(count)


def with_earlier_day(arguments: dict[str, Any], schema: dict[str, Any], earlier: list[dict[str, Any]],
                     question: str, today: dt.date) -> dict[str, Any]:
    """The arguments with the day of the latest calls (`earlier`: their arguments) when the question names no
    day and does not say "now": "那要带什么？" after a question on 下周一 was called for day 7 (the date's day of
    the month). Only where the calls agree on one day. A question on "the day after that" (第二天) gets the day
    after theirs: the model repeated the earlier day. Their count of days goes with it ("over the same three
    days" was called for one), but not to the day after."""
    if day_references(question, today) or _NOW.search(question):
        return arguments
    step = 1 if names_the_day_after(question) else 0
    kept = dict(arguments)
    for name, spec in schema.get("properties", {}).items():
        values = {json.dumps(call[name]) for call in earlier if name in call}
        if not values and step and earlier and "default" in spec:  # the calls were about the default day
            values = {json.dumps(spec["default"])}
        if len(values) == 1 and not step and _counts_days(spec):
            value = json.loads(values.pop())
            if isinstance(value, int) and value > kept.get(name, spec.get("default", 1)):
                log.info("%s=%r replaced by %r: the question names no day, and the latest calls covered %s days",
                         name, kept.get(name), value, value)
                kept[name] = value
            continue
        if not _day_forms(spec) or len(values) != 1:
            continue
        value = _day_later(json.loads(values.pop()), step)
        if value is not None and kept.get(name, spec.get("default")) != value:
            log.info("%s=%r replaced by %r: the question names no day, and the latest calls asked about %s",
                     name, kept.get(name), value, "the day before it" if step else "it")
            kept[name] = value
    return kept


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
    days = [(name, spec) for name, spec in schema.get("properties", {}).items() if _day_forms(spec)]
    return any(_day_offset(arguments.get(name, spec.get("default")), today) != 0 for name, spec in days)


def says_now(question: str) -> bool:
    """Whether the question asks about the present moment ("现在", "right now")."""
    return bool(_NOW.search(question))


def takes_a_day(schema: dict[str, Any]) -> bool:
    """Whether a tool has an argument for the day (an offset from today, a weekday or a date)."""
    return any(_day_forms(spec) for spec in schema.get("properties", {}).values())


def takes_hours(schema: dict[str, Any]) -> bool:
    """Whether a tool has an argument for the time of day (its name or description says "hour" or "clock")."""
    return hours_argument(schema) is not None


def hours_argument(schema: dict[str, Any]) -> str | None:
    """The name of a tool's argument for the time of day, if it has one."""
    return next((name for name, spec in schema.get("properties", {}).items() if _is_hours(name, spec)), None)


def _day_forms(spec: dict[str, Any]) -> set[str]:
    """How an argument names a day: "offset" (an integer from today), "weekday" (an enum of weekdays), "date"
    (YYYY-MM-DD); none for any other argument."""
    forms = set()
    for option in spec.get("anyOf", [spec]):
        if option.get("type") == "integer" and "today" in spec.get("description", "").casefold():
            forms.add("offset")
        elif set(option.get("enum", ())) & set(WEEKDAYS):
            forms.add("weekday")
        elif option.get("type") == "string" and (option.get("format") == "date"
                                                 or _DATE.pattern in option.get("pattern", "")):
            forms.add("date")
    return forms


def _counts_days(spec: dict[str, Any]) -> bool:
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


def made_up_numbers(arguments: dict[str, Any], schema: dict[str, Any], question: str) -> list[str]:
    """The required numbers (not a day, not 0, which words say: "below zero") a call was given for a question that
    holds no number at all: "济南、石家庄，明天谁更低" became a search of every city below 10."""
    if _NUMBER.search(question):
        return []
    properties = schema.get("properties", {})
    return [name for name in schema.get("required", ()) if name in arguments
            and isinstance(arguments[name], (int, float)) and not isinstance(arguments[name], bool)
            and arguments[name] != 0 and not _day_forms(properties.get(name, {}))]


def misquoted_numbers(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                      vocabulary: Vocabulary) -> list[str]:
    """The measurement arguments (`number`-typed) whose values a question that writes figures does not write:
    "cities below 0 F" searched below -1, and "那后天10以下的有哪些" kept the earlier call's 20 to 25."""
    written = written_numbers(question, vocabulary)
    if not written:
        return []
    properties = schema.get("properties", {})
    return [name for name, value in arguments.items()
            if _is_number(properties.get(name, {})) and isinstance(value, int | float) and not isinstance(value, bool)
            and float(value) not in written]


def written_numbers(question: str, vocabulary: Vocabulary) -> set[float]:
    """The figures a question writes in digits, signed as it signs them ("-5", "−5", "minus 5", "零下5度"); empty
    when it writes a figure in Chinese numerals and a unit sign of the domain too ("三十" and a sign), whose value
    this does not read."""
    if _zh_figure(vocabulary.unit_signs).search(question):
        return set()
    numbers = {float(match[1].replace("−", "-")) for match in _SIGNED.finditer(question)}
    numbers |= {-float(match[1]) for match in _MINUS.finditer(question)}
    numbers |= {float(gloss.rpartition("= ")[2].removeprefix("below ")) for gloss in
                below_zero_glosses(question, vocabulary)}
    return numbers


@lru_cache(maxsize=8)
def _zh_figure(unit_signs: tuple[str, ...]) -> re.Pattern[str]:
    signs = "|".join(re.escape(sign) for sign in unit_signs) or "(?!)"
    return re.compile(rf"[零〇一二两三四五六七八九十]+\s*(?:{signs})")


def _is_number(spec: dict[str, Any]) -> bool:
    return any(option.get("type") == "number" for option in spec.get("anyOf", [spec]))


def place_list_argument(schema: dict[str, Any], vocabulary: Vocabulary) -> str | None:
    """The required list argument whose items a schema calls places ("cities"), if it has one."""
    properties = schema.get("properties", {})
    return next((name for name in schema.get("required", ()) if properties.get(name, {}).get("type") == "array"
                 and _is_place(name, properties[name].get("items", {}), vocabulary, properties[name])), None)


def compares(question: str, vocabulary: Vocabulary) -> bool:
    """Whether a question asks which of several things wins ("北京和上海哪个好", "Lyon or Nice: which is nicer?"):
    not one that asks each its own ("北京和上海明天都去吗")."""
    return bool(_WINNER_ZH.search(question)) or _compares(question, vocabulary)


def place_argument(schema: dict[str, Any], vocabulary: Vocabulary) -> str | None:
    """The required free-text argument a schema calls a place ("city"), if it has one."""
    properties = schema.get("properties", {})
    return next((name for name in schema.get("required", ()) if _is_place(name, properties.get(name, {}), vocabulary)),
                None)


def _is_place(name: str, spec: dict[str, Any], vocabulary: Vocabulary, outer: dict[str, Any] | None = None) -> bool:
    """Whether the schema calls a free-text argument a place: its name or description (or its list's) holds one
    of the vocabulary's place words."""
    if not _free_text(spec) or not vocabulary.place_words:
        return False
    text = " ".join([name.replace("_", " "), spec.get("description", ""), (outer or {}).get("description", "")])
    return any(_mentioned(word, text.casefold()) for word in vocabulary.place_words)


def _is_hours(name: str, spec: dict[str, Any]) -> bool:
    return bool(_HOUR_WORDS.search(f"{name} {spec.get('description', '')}"))


def _enum_values(spec: dict[str, Any]) -> list[Any]:
    return [value for option in spec.get("anyOf", [spec]) for value in option.get("enum", ())]


def _mentioned(value: str, asked: str) -> bool:
    """The value, or one of its words ("New York City" for "New York"), is in the (casefolded) question, as a
    word: "Rome" is not in "Romeo"; accents aside ("Zurich" for "Zürich")."""
    value = value.casefold().strip()
    if _only_day_words(value):
        return False  # "Thursday" as the place of "Thursday any better?": the question's day, not a value of it
    words = [value, *re.findall(r"[a-z\u00c0-\u024f]{3,}|[\u3400-\u9fff]{2,}", value)]
    return any(re.search(_as_word(word), asked) or re.search(_as_word(_unaccented(word)), _unaccented(asked))
               for word in words if word)


def _unaccented(text: str) -> str:
    """Latin letters without their accents ("zürich" as "zurich")."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _only_day_words(value: str) -> bool:
    """Whether a value says nothing but days ("thursday", "周日", "明天")."""
    return bool(day_words(value)) and not re.sub(r"[\W_]+", "", without_day_words(value))


@lru_cache(maxsize=8)
def _quoted_term(symbols: tuple[str, ...]) -> re.Pattern[str]:
    """Terms a description may quote for a flag: one of the domain's symbols with its letter, or Chinese words."""
    with_letter = "".join(f"{re.escape(symbol)}\\w+|" for symbol in symbols)
    return re.compile(rf"{with_letter}[\u3400-\u9fff]{{2,}}")


def _as_word(text: str) -> str:
    """A pattern for `text` standing alone: Latin letters may not run on either side (Chinese has no spaces)."""
    return rf"(?<![a-z\u00c0-\u024f]){re.escape(text)}(?![a-z\u00c0-\u024f])"


def _free_text(spec: dict[str, Any]) -> bool:
    return spec.get("type") == "string" and "enum" not in spec and "pattern" not in spec
