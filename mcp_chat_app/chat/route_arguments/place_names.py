"""Places as the question writes them: the names it joins to one ("Prague or Budapest") and whether it asks which
of them wins, a place with the qualifier written beside it ("Moscow, Idaho", "浙江丽水"), less the words a
follow-up opens with, and a near copy of the question's words as those words."""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Callable, Iterable
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

from mcp_chat_app.chat.route_arguments.places import is_place
from mcp_chat_app.chat.route_arguments.stated import mentioned, only_day_words
from mcp_chat_app.chat.text.clock import clock_times, parts_of_day, without_clock_times
from mcp_chat_app.chat.text.quantities import asked_quantities, quantity_starts
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.day_words import day_words, without_day_words, written_day_words
from mcp_chat_app.chat.text.vocabulary import Vocabulary

log = logging.getLogger(__name__)

# One more name joined to a list ("or Budapest", ", Bergen", "vs Quito"): capitalised words.
# (a name's letters are no Chinese characters: "Strasbourg还是Basel" is two names)
_NAME_WORDS = r"[A-ZÀ-Þ][^\W\u3400-\u9fff'’.-]*(?:['’.-][^\W\u3400-\u9fff]*)*(?:\s+(?:(?:de|da|do|dos|del|des|la|le|el|al|" \
    r"upon|am)\s+)?[A-ZÀ-Þ][^\W\u3400-\u9fff'’.-]*(?:['’.-][^\W\u3400-\u9fff]*)*)*"
# Two names typed in lowercase around "vs": the second, up to a mark or a word that asks ("which", "is").
_ASKING = r"(?:which|who|what|where|is|are|will|for|today|tomorrow|now|right)\b"
_LOWERCASE_VERSUS = re.compile(rf"(?<![\w])([a-z][\w'’.-]*(?:\s+[a-z][\w'’.-]*)?)\s+(?:vs\.?|versus)\s+"
                               rf"([a-z][\w'’.-]*(?:\s+(?!{_ASKING})[a-z][\w'’.-]*)?)(?=\s*(?:[,?!:;]|$)|\s+{_ASKING})")
# A trip's two ends asked of together ("moving from Chattanooga, TN to Asheville, NC on Saturday. any delays in
# either?"): the name after "to", and its qualifier after a comma.
_TRIP_END = rf"\s+to\s+({_NAME_WORDS}(?:\s*,\s*{_NAME_WORDS})?)"
_EITHER_END = re.compile(r"\b(?:either|both|each)\b", re.IGNORECASE)
# (Latin names joined in Chinese too: "周日 Oaxaca 和 Puebla 哪边…")
_JOINED_NAME = rf"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:or|and|vs\.?|versus)\s+|\s*(?:和|与|跟|同|还是|或者|或|、)\s*)({_NAME_WORDS})"
# Chinese names joined in a comparison: a joining word, then two characters or more up to a character that begins
# the question's own words (a day, "哪个", "的", the domain's) or a punctuation mark.
_HAN = re.compile(r"[\u3400-\u9fff]")
_COMPARES_ZH = re.compile(r"哪个|哪里|哪边|哪儿|哪座|谁|比较|对比|相比|更|分别|各自|都")
_WINNER_ZH = re.compile(r"哪个|哪里|哪边|哪儿|哪座|谁|比较|对比|相比|更")  # not 分别, 各自, 都: each its own
_JOINED_ZH = re.compile(r"(?:\s*(?:和|与|跟|同|、|还是|或者|或|vs\.?|VS)\s*|\s+)([\u3400-\u9fff]{2,})")  # ("哈尔滨 长春")
_NAME_ENDS_ZH = "哪谁的明今后昨前周下这那现此比更天吗呢会有是要和与跟同还或都分各接未最多"  # 接下来, 未来, 最近, 多少
# A place's qualifier as a question writes it: after it in Latin script ("Moscow, Idaho", "Kingston Jamaica"),
# before it in Chinese or Japanese, written in Han or katakana ("浙江丽水", "澳大利亚的纽卡斯尔").
_MONTH = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?", re.IGNORECASE)
_OCCASION = re.compile(r"\b(?:Day|Eve|Christmas|Xmas|Easter|Thanksgiving|Halloween|Valentine'?s?|New Year'?s?)\b")
_QUALIFIER_AFTER = rf"(?:\s*,\s*|[ \t]+(?:(?:on|in)[ \t]+)?){_NAME_WORDS}"
# Capitalised words after "in" that name no place: a language ("Paris in French").
_LANGUAGE_NAMES = "|".join([*languages.NAMES.values(), "Mandarin", "Cantonese"])
_NO_PLACE_AFTER_IN = re.compile(rf"[ \t]+in[ \t]+(?:{_LANGUAGE_NAMES})\b")
# How alike a copy of a name must be to the question's words to be taken for them ("Ipoah" for "ipoh": 0.89).
_NEARLY_THE_SAME = 0.8
_BEFORE = "[\u3400-\u9fff\u30a0-\u30ffの]"
_RUN_BEFORE = re.compile(f"{_BEFORE}*$")
_ASKS_ZH = "在去到往飞抵靠住游查问请帮看想我你"  # the question's own words before a place ("帮我查一下杭州", "停靠"), no
# qualifier's
_BEFORE_NO_NAME = "的吗呢了是和与跟"  # before a one-character value, never a part of its name


def siblings(value: str, question: str, vocabulary: Vocabulary) -> list[str]:
    """The names the question joins to `value` ("Prague or Budapest", "Oslo, Bergen and Tromsø", "Lima vs
    Quito"): capitalised Latin names after it, each following "or", "and", "vs" or a comma that another such word
    ends; in Chinese, in a question that compares ("北京和上海哪个好"), the names after 和/与/跟/、/还是, each
    ending at the first word of the question's own (明天, 哪个, 的, or the vocabulary's) after its second character."""
    if _HAN.match(value):
        return _chinese_siblings(value, question, vocabulary.name_ends_zh)
    match = re.search(rf"(?<![A-Za-zÀ-ÿ0-9_]){re.escape(value)}((?:{_JOINED_NAME})+)", question)
    joined = [(bool(re.search(r"\b(?:or|and|vs|versus)\b|[和与跟同或、]|还是", m[0])), m[1])
              for m in re.finditer(_JOINED_NAME, match[1])] if match else []
    # After the last "or" / "and", a comma says which one ("Córdoba, Argentina"); with none, all do ("Paris,
    # France"), unless the question compares and two commas or more join names ("Dunedin, Nelson, Rotorua -
    # which will be warmest?"): a list.
    last = max((i for i, (word, _) in enumerate(joined) if word), default=-1)
    if last < 0 and len(joined) >= 2 and _compares(question, vocabulary):
        last = len(joined) - 1
    if not joined and _EITHER_END.search(question) \
            and (trip := re.search(rf"\bfrom\s+{re.escape(value)}(?:\s*,\s*{_NAME_WORDS})?{_TRIP_END}", question)):
        return [trip[1]]
    if not joined and (typed := _LOWERCASE_VERSUS.search(question)) and typed[1].casefold() == value.casefold():
        return [typed[2]]  # typed in lowercase: "nanaimo vs chicoutimi, which one's colder"
    if not joined and _compares(question, vocabulary):
        return _lowercase_siblings(value, question, vocabulary)
    return [name for _, name in joined[:last + 1]]


_LOWERCASE_JOINER = re.compile(r"\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and|vs\.?|versus)\s+")
_LOWERCASE_WORD = re.compile(r"[ \t]*([a-z][\w'’.-]*)")


def _lowercase_siblings(value: str, question: str, vocabulary: Vocabulary) -> list[str]:
    """The names typed in lowercase that a comparing question joins to `value` ("cheyenne wy or casper wy?",
    "lubbock, amarillo or midland tx"): up to three words each, up to a mark or a word that names nothing
    ("tomorrow", "which"). A code of two letters after a comma qualifies the name before it ("springfield, il")."""
    words = re.findall(r"[^\W_][\w'’.-]*", value)
    at = re.search(r"(?<![\w])" + r"[\s,]+".join(map(re.escape, words)) + r"(?![\w])", question, re.IGNORECASE) \
        if words else None
    names: list[str] = []
    rest = question[at.end():] if at else ""
    while joiner := _LOWERCASE_JOINER.match(rest):
        rest, name = rest[joiner.end():], []
        while len(name) < 3 and (word := _LOWERCASE_WORD.match(rest)) and not _names_nothing(word[1], vocabulary):
            name.append(word[1])
            rest = rest[word.end():]
        if not name:
            break
        if len(name) == 1 and len(name[0]) == 2 and joiner[0].strip() == ",":
            if names:
                names[-1] = f"{names[-1]}, {name[0]}"
            continue
        names.append(" ".join(name))
    return names


def compares(question: str, vocabulary: Vocabulary) -> bool:
    """Whether a question asks which of several things wins ("北京和上海哪个好", "Lyon or Nice: which is nicer?"):
    not one that asks each its own ("北京和上海明天都去吗")."""
    return bool(_WINNER_ZH.search(question)) or _compares(question, vocabulary)


def _compares(question: str, vocabulary: Vocabulary) -> bool:
    """Whether a Latin-script question compares things: "which", "compare", "vs", or one of the domain's
    comparatives, or a superlative ("warmest"), or "more" of one or another."""
    words = set(re.findall(r"[a-z]+", question.casefold()))
    comparatives = set(vocabulary.comparatives)
    superlatives = {word.removesuffix("er") + "est" for word in comparatives}
    # "more" between two named with "or" ("where is it busier, more crowded: Cardiff or Plymouth?") asks which.
    more_of_either = bool(words & {"more", "less", "fewer", "better", "worse"}) and "or" in words
    return more_of_either or bool(words & ({"which", "compare", "vs", "versus", "highest", "lowest", "most", "least"}
                                           | comparatives | superlatives))


def _chinese_siblings(value: str, question: str, domain_ends: str) -> list[str]:
    if not _COMPARES_ZH.search(question):
        return []
    # 各 and 分 end a name only as 各自, 分别: 加尔各答 is one name
    ends = re.compile(f"[{re.escape(''.join(c for c in _NAME_ENDS_ZH + domain_ends if c not in '各分'))}]"
                      "|各(?=[自地])|分(?=别)")
    if run_on := _run_on_names(value, question, ends):
        return run_on
    found, rest = [], question.split(value, 1)[1] if value in question else ""
    while (joined := _JOINED_ZH.match(rest)) is not None:
        tail = joined[1][2:]
        name = joined[1][:2] + tail[:end.start() if (end := ends.search(tail)) else len(tail)]
        if day_words(name):  # "沈阳 后天谁最冷": the list has ended
            break
        found.append(name)
        rest = rest[joined.start(1) + len(name):]
    return found


def _run_on_names(value: str, question: str, ends: re.Pattern[str]) -> list[str]:
    """The names of two characters written one after another around a name of two with nothing between them
    ("今天苏州无锡常州哪个最冷", "海口三亚哪个…": one call for 苏州 had been made): each two characters before and
    after it, up to one that ends a name. Most Chinese cities' names are two characters long; a run of any other
    length is left to the joining words."""
    at = question.find(value)
    if len(value) != 2 or at < 0:
        return []

    def name(pair: str) -> bool:
        return len(pair) == 2 and bool(re.fullmatch(r"[\u3400-\u9fff]{2}", pair)) and not ends.search(pair) \
            and not day_words(pair) and not set(pair) & set(_ASKS_ZH + _BEFORE_NO_NAME)

    start, end = at, at + 2
    while name(question[start - 2:start]) and start >= 2:
        start -= 2
    while name(question[end:end + 2]):
        end += 2
    names = [question[i:i + 2] for i in range(start, end, 2)]
    if len(names) < 2 or _HAN.match(question[start - 1:start] or " ") and not ends.match(question[start - 1]) \
            or _HAN.match(question[end:end + 1] or " ") and not ends.match(question[end]) \
            or _JOINED_ZH.match(question[end:]):
        return []  # a run of odd length, not names of two characters each; or one the joining words go on
    return [n for n in names if n != value]


def with_qualifiers(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                    vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each place (an argument or list item the schema calls one) as the question writes it
    with its qualifier (see qualified): "Moscow, Idaho - any news?" was called for "Moscow" (Russia), "下周三浙江丽水
    怎么样" for "丽水" (Lishui or Yeosu)."""
    others = [item for value in arguments.values() if isinstance(value, list) for item in value
              if isinstance(item, str)]
    return _each_place(arguments, schema, vocabulary,
                       lambda value: qualified(value, question, vocabulary, others) if isinstance(value, str) else value)


def _each_place(arguments: dict[str, Any], schema: dict[str, Any], vocabulary: Vocabulary,
                change: Callable[[Any], Any]) -> dict[str, Any]:
    """The arguments with `change` applied to each place: an argument the schema calls one, or an item of a list
    of them."""
    kept = dict(arguments)
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        spec = properties.get(name, {})
        if isinstance(value, list) and is_place(name, spec.get("items", {}), vocabulary, spec):
            kept[name] = [change(item) for item in value]
        elif is_place(name, spec, vocabulary):
            kept[name] = change(value)
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

    kept = _each_place(arguments, schema, vocabulary, bare)
    if kept != arguments:
        log.info("%r less the follow-up's opening %r: %r", arguments, opening, kept)
    return kept


def without_run_in_days(arguments: dict[str, Any], schema: dict[str, Any], vocabulary: Vocabulary,
                        question: str = "") -> dict[str, Any]:
    """The arguments with each Chinese place less a day word the router ran into it: at its start, with the word
    of going after it ("周日到大溪地，最高温多少" was called for "周日到大溪地"), or after it, with what follows ("西贡听日会唔会
    开门" for "西贡听日会"). No place's name holds one (周口 and 周至 do not begin with a day); two characters or more
    must be left, or the name goes on in the question as far as a word that joins or asks ("后天河内和岘港" was called
    for "后天河": 河内)."""
    stops = f"和与跟同、或还呢的吗哪会有是要{vocabulary.name_ends_zh}"

    def bare(value: Any) -> Any:
        day = _DAY_IN_NAME.search(value) if isinstance(value, str) else None
        if day is None:
            return value
        rest = value[day.end():].removeprefix(day["going"] or "") if day.start() == 0 else value[:day.start()]
        if len(rest) == 1 and day.start() == 0 and value in question:
            after = question[question.index(value) + len(value):]
            rest += re.match(rf"[^\W{re.escape(stops)}\x00-\x7f]*", after)[0]
        return rest if len(rest) >= 2 else value

    return _each_place(arguments, schema, vocabulary, bare)


_DAY_IN_NAME = re.compile(r"(?:大?后天|明天|今天|昨天|今晚|明早|明晚|听日|琴日|(?:下|这|本)?(?:周|星期|礼拜)[一二三四五六日天末]|"
                          r"(?:下|这|本)周末?)(?P<going>[到去在的]?)")


def without_run_in_quantities(arguments: dict[str, Any], schema: dict[str, Any],
                              vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each place less a quantity word the router ran onto its end ("今天巴格达AQI多少" was called
    for "巴格达AQI"): a word of the vocabulary's quantities, after a space or a character outside ASCII when it is
    in Latin letters ("Oslo AQI", not the end of "Vaqi"); two characters or more must be left."""
    ends = _quantity_at_end(tuple(word for words in vocabulary.quantities.values() for word in words))

    def bare(value: Any) -> Any:
        end = ends.search(value) if ends is not None and isinstance(value, str) else None
        rest = value[:end.start()].rstrip(" ,") if end else value
        return rest if len(rest) >= 2 else value

    return _each_place(arguments, schema, vocabulary, bare)


@lru_cache(maxsize=4)
def _quantity_at_end(quantity_words: tuple[str, ...]) -> re.Pattern[str] | None:
    """The pattern of a quantity word at a place's end, built once per vocabulary (every call is planned with it)."""
    words = sorted({said for word in quantity_words if len(said := word.partition("=")[0]) >= 2}, key=len,
                   reverse=True)
    if not words:
        return None
    return re.compile(r"(?:(?<=[^\x00-\x7f])|\s+)(?:" + "|".join(re.escape(word) for word in words if word.isascii())
                      + r")$|(?:" + "|".join(re.escape(word) for word in words if not word.isascii()) + r")$",
                      re.IGNORECASE)


def without_leading_words(arguments: dict[str, Any], schema: dict[str, Any],
                          vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each place less a word of the sentence the router ran onto its start: a time of day
    ("明天早上八点大帽山多少度" was called for "早上八点大帽山"), a verb of going ("周五飞黄刀镇看极光": "飞黄刀镇"), "next
    door" ("跟旁边的尚志比": "旁边的尚志"), or
    the word a question opens with ("Will Leh be freezing…": "Will Leh"). Two characters or more must be left."""
    def bare(value: Any) -> Any:
        leading = _LEADING_WORD.match(value) if isinstance(value, str) else None
        rest = value[leading.end():].strip(" ,，") if leading else value
        return rest if len(rest) >= 2 else value

    return _each_place(arguments, schema, vocabulary, bare)


_PART_OF_DAY = "早上|早晨|上午|中午|下午|傍晚|晚上|夜里|半夜|凌晨|今早|明早|今晚|明晚"
_LEADING_WORD = re.compile(
    rf"(?:(?:{_PART_OF_DAY})?[零〇一二两三四五六七八九十\d]{{1,3}}[点點](?:半|[零〇一二三四五六七八九十\d]{{1,3}}分?)?|"
    rf"{_PART_OF_DAY}|人在|我在|(?:旁边|隔壁|附近|周边)的?|[飞飛去到回])(?=[\u3400-\u9fff])"
    r"|(?i:will|is|does|do|did|can|could|should|would|are|was|were)\s+(?=[A-Z])")


def without_question_words(arguments: dict[str, Any], schema: dict[str, Any],
                           vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each Chinese place less a question word the router ran into it and what follows: "後天台北和
    高雄哪裡比較熱" was compared for 台北, 高雄 and "高雄哪裡" (哪, 谁, 啥 are in no place's name)."""
    def cut(value: Any) -> Any:
        asks = _ASKS_IN_NAME.search(value) if isinstance(value, str) else None
        return value[:asks.start()] if asks else value

    kept = _each_place(arguments, schema, vocabulary, cut)
    for name, value in kept.items():  # cut, a place another of its list already is: that one
        if isinstance(value, list) and value != arguments[name]:
            kept[name] = [item for index, (item, old) in enumerate(zip(value, arguments[name]))
                          if item == old or item not in value[:index]]
    return kept


_ASKS_IN_NAME = re.compile(r"(?<=[\u3400-\u9fff]{2})[哪谁啥誰]")


def cut_before_a_word(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                      vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each Chinese place that ends in a word of the question's own (会, 有, 要 …) or in the
    first character of a day word after it less that character, and where one is left, with the character before
    it in the question: "明天和龙会去吗" was called for "龙会", the router taking 和 for "and" and 会 ("will") for a
    part of the name; "冲绳那霸大后天…" for "冲绳那霸大"."""
    def cut(value: Any) -> Any:
        if not isinstance(value, str) or len(value) < 2 or not _HAN.fullmatch(value[-1]) \
                or (at := question.find(value)) < 0:
            return value
        if _DAY_IN_NAME.match(question, at + len(value) - 1) and len(value) >= 3:
            return value[:-1]
        if value[-1] not in _NAME_ENDS_ZH:
            return value
        rest = value[:-1]
        if len(rest) >= 2:
            return rest
        before = without_day_words(question[:at])  # a day word ends there: 天 of 明天 begins no name
        return f"{before[-1]}{rest}" if before[-1:] == question[at - 1:at] and _HAN.match(before[-1:] or " ") \
            else value

    return _each_place(arguments, schema, vocabulary, cut)


def whole_written(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                  vocabulary: Vocabulary) -> dict[str, Any]:
    """The arguments with each Chinese place the question writes with one more character of the name before it,
    or else after it, that character added: the router cut "第比利斯" to "比利斯" (第 is also "-th"), "埃里温" to
    "埃里" (温 begins a word of the domain), "下龙湾" to "龙湾". Not a character of a day word (天 of 明天), nor one
    that asks, joins or ends a name elsewhere (会, 和, 吗)."""
    def whole(value: Any) -> Any:
        if not isinstance(value, str) or len(value) < 2 or not re.fullmatch(r"[\u3400-\u9fff]+", value) \
                or (at := question.find(value)) < 0:
            return value
        before = without_day_words(question[:at])[-1:]
        after = question[at + len(value):at + len(value) + 1]
        if before == question[at - 1:at] and _HAN.match(before or " ") and before not in _NOT_OF_A_NAME:
            return f"{before}{value}"
        if _HAN.match(after or " ") and after not in _NOT_OF_A_NAME and not day_words(question[at + len(value):]
                                                                                      [:2]):
            return f"{value}{after}"
        return value

    return _each_place(arguments, schema, vocabulary, whole)


# Characters no name is cut at: they ask, join or end one (whole_written).
_NOT_OF_A_NAME = _NAME_ENDS_ZH + _ASKS_ZH + _BEFORE_NO_NAME + "及或"


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
    less the day words the router wrote into it ("周五十堰" of "周五十堰怎么样"). A qualifier the router wrote that
    the question does not gives way to the question's own ("Paris, Kentucky" was called as "Paris, FR"), also one
    said apart from the name ("the one in Egypt")."""
    head, comma, tail = value.partition(",")
    if comma and {part.strip() for part in tail.split(",")} <= set(siblings(head.strip(), question, vocabulary)) \
            and question.casefold().count(head.strip().casefold()) == 1:
        # "Dubai, Abu Dhabi, Muscat - windiest tomorrow?": places of their own, no qualifier; but a name written
        # twice is two namesakes, each with its own ("Springfield, Illinois or Springfield, Missouri")
        return head.strip()
    if comma and head.strip() and value.casefold() not in question.casefold():
        # its namesake written first with another ("Cambridge MA or Cambridge in England"); a day is no qualifier
        if _written(tail, question) and _less_the_days_said(value, question) == value:
            return value
        if (own := qualified(head.strip(), question, vocabulary, others)) != head.strip():
            return own
    bare = re.sub(r"\s+", " ", without_day_words(_less_the_days_said(value, question))).strip(" ,，")
    value = bare if bare and not only_day_words(value) else value
    if re.match(_BEFORE, value) and f"{value}多多" in question:
        value += "多"  # "多伦多多少度" was called for 多伦: the name's last 多 read as 多少's
    # A Latin name may follow its qualifier in Chinese too ("越南Sapa").
    written = _qualified_before(value, question, vocabulary) if re.match(_BEFORE, value) \
        else _qualified_after(value, question, vocabulary) or _qualified_before(value, question, vocabulary)
    if not written and not others and (apart := said_apart(question)) and not _listed_with(value, question, vocabulary):
        written = f"{value}, {apart}"  # "Hyderabad today? the one in Pakistan": said apart
    qualifiers = {part.strip(" 的の") for part in written.casefold().replace(value.casefold(), "", 1).split(",")}
    taken = {other.casefold() for other in [*others, *_listed_with(value, question, vocabulary)] if other != value}
    return written if written and not qualifiers & taken else value


def _written(qualifier: str, question: str) -> bool:
    """Whether the question writes each part of a qualifier: a code of three letters or fewer as written ("MA",
    not the "ma" of a word), a longer name in any case ("Cambridge, England" of "Cambridge in England")."""
    parts = [part.strip() for part in qualifier.split(",") if part.strip()]
    return bool(parts) and all(re.search(rf"\b{re.escape(part)}\b", question, 0 if len(part) <= 3 else re.IGNORECASE)
                               for part in parts)


def _less_the_days_said(value: str, question: str) -> str:
    """`value` less a day word it ends with as the question wrote it ("lyon, wed" of "lyon wed hours?": the
    question's "wed" is a day; the name alone would not say so)."""
    written = sorted(written_day_words(question), key=len, reverse=True)
    if not written:
        return value
    return re.sub(rf"[\s,，]+(?:{'|'.join(map(re.escape, written))})\s*$", "", value, flags=re.IGNORECASE) or value


# A namesake's qualifier said apart from its name ("Hyderabad today? the one in Pakistan, Sindh", "and the
# one in Egypt?"), for a call of one place.
# A qualifier said apart from the name: "the one in Egypt", "the spanish one", "麻省那个", "- costa rica, not california".
_THE_ONE_IN = re.compile(
    rf"\bthe\s+one\s+(?:in|on)\s+(?:the\s+)?({_NAME_WORDS}(?:\s*,\s*{_NAME_WORDS})*)"
    r"|\b[Tt]he\s+(?!(?:other|same|first|second|third|last|next|big|bigger|biggest|small|main|real|famous|right|"
    r"wrong|old|new|nearest|closest|usual|coastal)\s)([A-Za-z][a-z]+(?:\s+[A-Za-z][a-z]+)?)\s+one\b"
    r"|([\u3400-\u9fff]{2,4}?)的?那个(?=\s*(?:[，,。？?！!]|$))"
    r"|\s[-–—]\s*([A-Za-z][A-Za-z ]+?)\s*,\s*not\b")


def said_apart(question: str) -> str:
    """The qualifier a question says apart from any name ("Pakistan" of "the one in Pakistan", "英国" of "是英国的那
    个"), or ""."""
    apart = _THE_ONE_IN.search(question)
    said = next(filter(None, apart.groups()), "") if apart else ""
    said = said.lstrip("是在指就要说")  # "是英国的那个": 英国
    return "" if day_words(said) or len(said) < 2 else said


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


# Two letters after a name typed in lower case are a region's or a country's code ("manchester nh forcast"), unless
# they are a word.
_TWO_LETTER_WORDS = frozenset("am an as at be by do go he hi if in is it me my no of oh ok on or pm so to up us we "
                              "ya yo rn ur ty vs".split())


def _qualified_after(value: str, question: str, vocabulary: Vocabulary) -> str:
    """The value and the capitalised words after it, up to the first day word, month or letter alone ("Córdoba,
    Spain" of "Córdoba, Spain this Saturday"; "Paris, TX" of "Paris, TX Saturday?"), or in brackets after it
    ("Keswick (Lake District)"); after "on", as a qualifier
    after a comma ("Hana, Maui" of "Hana on Maui", "Hyderabad, India" of "Hyderabad in India"; "Paris in French"
    names a language)."""
    bracketed = re.search(rf"(?<![\w])(?i:{re.escape(value)})[ \t]*[(（]({_NAME_WORDS})[)）]", question)
    if bracketed:  # "Keswick (Lake District)": called as "Keswick", which is also a town of Ontario
        return f"{question[bracketed.start():bracketed.start(1) - 1].rstrip()} ({bracketed[1]})"
    match = re.search(rf"(?<![\w])(?i:{re.escape(value)})((?:{_QUALIFIER_AFTER})+)", question)
    if match is None:
        code = re.search(rf"(?<![\w])(?i:{re.escape(value)})[ \t]+([a-z]{{2}})(?![\w'’])", question)
        return f"{value}, {code[1].upper()}" if code and code[1] not in _TWO_LETTER_WORDS else \
            _lowercase_qualifier(value, question, vocabulary)
    words = match[1]
    day = next((word.start() for word in re.finditer(r"[\w'’.-]+", words)
                if day_words(word[0]) or _MONTH.fullmatch(word[0]) or len(word[0]) == 1), len(words))
    if _OCCASION.search(words[:day]) or _NO_PLACE_AFTER_IN.match(words):  # "Berlin on New Year's Day": a day
        return ""
    kept = re.sub(r"[ \t]+(?:on|in)$", "", words[:day].rstrip(" ,\t"))
    kept = re.sub(r"^[ \t]+(?:on|in)[ \t]+", ", ", kept)
    return f"{question[match.start():match.start(1)]}{kept}" if kept.strip(" ,\t") else ""


def _lowercase_qualifier(value: str, question: str, vocabulary: Vocabulary) -> str:
    """"Portland, maine" of "going fishing off portland maine tmrw morning", in a question typed all in lowercase:
    one or two words after the name, then a mark, the end, a day word or a word that names nothing ("portland
    tomorrow", "portland, which", "boston today" name no qualifier)."""
    at = re.search(rf"(?<![\w])(?i:{re.escape(value)})(?![\w])", question)
    if question != question.casefold() or at is None:
        return ""

    # "lyon wed hours?": a day; "boston last night": each word of one
    days = {part for word in written_day_words(question) for part in word.casefold().split()}

    def names_nothing(word: str) -> bool:
        return word.casefold() in days or _names_nothing(word, vocabulary)

    words = re.split(r"[,.?!;:]", question[at.end():], maxsplit=1)[0].split()
    for count in (1, 2):
        if len(words) >= count and not any(map(names_nothing, words[:count])) \
                and (len(words) == count or names_nothing(words[count])):
            return f"{value}, {' '.join(words[:count])}"
    return ""


# The words that add a place to those asked about (加上奉化呢, 再加上 Red Deer): what follows is no qualifier.
_ADDING_ZH = r"(?:再?加上|加入|算上|带上|再加)"
# A name in Latin letters inside Chinese: capitalised words, no Chinese character after them ("Red Deer呢").
_LATIN_NAME = r"[A-Z][A-Za-z\u00c0-\u024f'’.-]*(?: [A-Z][A-Za-z\u00c0-\u024f'’.-]*)*"
_ADDS_ZH = re.compile(rf"{_ADDING_ZH}$")


def _qualified_before(value: str, question: str, vocabulary: Vocabulary) -> str:
    """The value and the characters right before it, less day words and what ends a name ("浙江丽水" of
    "下周三浙江丽水怎么样"; "浙江的丽水"), when two or more are left before a 的/の."""
    at = question.find(value)
    before = without_day_words(question[:max(at, 0)])
    run = match[0] if (match := _RUN_BEFORE.search(before)) else ""
    joiner = run[-1:] if run[-1:] in ("的", "の") else ""
    name = run[:len(run) - len(joiner)]
    whole = name
    ends = set(_NAME_ENDS_ZH + _ASKS_ZH + vocabulary.name_ends_zh)
    name = name[max((i + 1 for i, c in enumerate(name) if c in ends), default=0):]
    if len(name) < 2 and joiner:  # "到哥伦比亚的卡塔赫纳": 比 ends words and names; only asking words end it here
        name = whole[max((i + 1 for i, c in enumerate(whole) if c in _ASKS_ZH), default=0):]
    if _ADDS_ZH.search(name):  # "加上Kirkland Lake": a place added, not qualified
        return ""
    return f"{name}{joiner}{value}" if at > 0 and len(name) >= 2 else ""


def as_the_question_spells(arguments: dict[str, Any], schema: dict[str, Any], question: str,
                           vocabulary: Vocabulary, conversation: str = "") -> dict[str, Any]:
    """The arguments with each Latin-script place the question does not write but writes nearly so, as the
    question writes it: the router copied "ipoh" as "Ipoah", and a place nobody named is no call to make. A
    Chinese place of one character is the name the question writes it at the end of ("州" of "下周一定州怎么样"), one
    the question does not write is its one name that shares a character with it ("凤城" of "这周五来凤怎么样"); a
    qualifier alone is the place it qualifies ("Kyrgyzstan" of "Osh, Kyrgyzstan, the day after tomorrow"). A
    Chinese place the `conversation` names stays as it is (清迈, compared with the question's 清莱)."""
    words = re.findall(r"[^\W\d_][\w'’.-]*", question)
    phrases = [" ".join(words[i:i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1)]

    def respelt(value: Any) -> Any:
        if isinstance(value, str) and len(value) == 1 and _HAN.match(value):
            return _whole_chinese_name(value, question)
        if isinstance(value, str) and len(value) > 1 and _HAN.match(value) and not mentioned(value, question) \
                and value not in conversation and (name := _name_sharing_a_character(value, question, vocabulary)):
            return name
        if isinstance(value, str) and (place := _place_it_qualifies(value, question, vocabulary)):
            return place
        if not isinstance(value, str) or _HAN.search(value) or mentioned(value, question.casefold()):
            return value
        similarity = {phrase: SequenceMatcher(None, phrase.casefold(), value.casefold()).ratio() for phrase in phrases}
        best = max(similarity, key=similarity.__getitem__, default="")
        return best if best and similarity[best] >= _NEARLY_THE_SAME else value

    kept = _each_place(arguments, schema, vocabulary, respelt)
    if kept != arguments:
        log.info("%r as the question spells it: %r", arguments, kept)
    return kept


def _whole_chinese_name(value: str, question: str) -> str:
    """A one-character Chinese value with the character before it in the question, where that is no word of the
    question's own (帮, 查, 的): the name the router cut. Characters that end a name elsewhere may begin one here
    (下 of 下龙, 会 of 会理, 天 of 天津): a one-character place is the rarer reading."""
    at = question.find(value)
    before = question[at - 1] if at > 0 else ""
    return f"{before}{value}" if _HAN.match(before) and before not in _ASKS_ZH + _BEFORE_NO_NAME else value


# Where in a place a question asks of, by no name ("山上冷不冷" after a question on 华山): a small model took "山上冷"
# for a place's name, and 华山 shares a character with it.
PART_OF_A_PLACE = re.compile(r"^(?:山上|山顶|山里|山下|山脚|海边|湖边|岛上|景区|当地|市区|城里|郊区|镇上|村里|那边|那里|这边|工地|"
                             r"地里|田里|外面|户外|路上)")


def names_no_place(value: str, vocabulary: Vocabulary) -> bool:
    """Whether a place argument names none: a part of a place said by no name (PART_OF_A_PLACE), or a word of the
    domain's own ("windy then?" was called for a place named "Windy", found in Bulgaria), or a word that sets
    places side by side ("vs"), or words that open with a part of the day ("晚上回" of "明天呢？我明天晚上回")."""
    word = value.partition(",")[0].strip().casefold()
    return bool(PART_OF_A_PLACE.match(value)) or word in vocabulary.own_words or word in _COMPARING_WORDS \
        or word in _QUESTION_WORDS or any(word.startswith(part.casefold()) for part in parts_of_day(word, vocabulary)) \
        or _of_own_words(word, vocabulary) or _only_a_clock_time(value, vocabulary)


# Words of a question a router may take for its place ("any delays expected over the next 3 days?" was called for a
# place named "any"), and greetings ("早上好！今天心情特别好" was called for a place named "早上好").
_QUESTION_WORDS = frozenset("any anything anywhere some there here it this that these those what which where when "
                            "how who the same hi hello hey morning 你好 您好 早上好 早安 上午好 中午好 下午好 晚上好 "
                            "大家好 哈喽 嗨".split())


def _only_a_clock_time(value: str, vocabulary: Vocabulary) -> bool:
    """Whether the value says nothing but a clock time ("八点" of "晚上八点呢")."""
    rest = value
    for time in clock_times(value, vocabulary):
        rest = rest.replace(time.text, "")
    return rest != value and not re.sub(r"[\W_点點時时]+", "", rest)


def _of_own_words(word: str, vocabulary: Vocabulary) -> bool:
    """Whether Chinese characters are the domain's words and the start of one ("开盘价" of "开盘价格是啥意思")."""
    rest = word
    while head := max((own for own in vocabulary.own_words if rest.startswith(own)), key=len, default=""):
        rest = rest[len(head):]
    if rest == word or not re.fullmatch(r"[\u3400-\u9fff]+", word):  # (日照 is a city, 日照时长 a word)
        return False
    return not rest or any(own.startswith(rest) and own != rest for own in vocabulary.own_words)


# Words that set places side by side, which a router may list as one of them ("vs Abisko": "vs").
_COMPARING_WORDS = frozenset({"vs", "vs.", "v", "v.", "versus", "or", "and", "比", "和", "跟", "与", "还是"})


def _name_sharing_a_character(value: str, question: str, vocabulary: Vocabulary) -> str:
    """The one name of a Chinese question that shares a character with `value`, a name it does not write (the
    router's 凤城 of "这周五来凤怎么样", 南宁 of "今天下午4点定南人多不多"); "" when none or several do. The names are
    what is left of the question less its clock times, its days, the domain's words and what ends a name."""
    rest = without_day_words(without_clock_times(question, vocabulary))
    domain = [word for words in [*vocabulary.quantities.values(), *vocabulary.claim_topics.values()]
              for word in words if _HAN.match(word)]
    for word in sorted(domain, key=len, reverse=True):
        rest = rest.replace(word, " ")
    rest = re.sub(f"[{re.escape(_NAME_ENDS_ZH + _ASKS_ZH + vocabulary.name_ends_zh)}]", " ", rest)
    names = {run for run in re.findall(r"[\u3400-\u9fff]+", rest)
             if 2 <= len(run) <= 4 and set(run) & set(value) and not names_no_place(run, vocabulary)}
    return names.pop() if len(names) == 1 else ""


def _place_it_qualifies(value: str, question: str, vocabulary: Vocabulary) -> str:
    """"Osh, Kyrgyzstan" where the question writes `value` ("Kyrgyzstan") after a name and a comma, that name
    listed with no other in a question that compares nothing (a list, "Oslo, Bergen and Tromsø", or "Oslo, Bergen:
    which is warmer?" names places, not a place and its country); "斯里兰卡Ella" where a Chinese value runs on
    into a Latin name ("明天去斯里兰卡Ella玩，怎么样" was called for the country); "" else."""
    after = re.search(rf"{re.escape(value)}({_LATIN_NAME})", question) \
        if re.fullmatch(r"[\u3400-\u9fff]+", value) and not day_words(value) else None
    if after:
        return f"{value}{after[1]}"
    match = re.search(rf"(?<![\w])({_NAME_WORDS})\s*,\s*{re.escape(value)}(?![\w])", question)
    if not match or siblings(match[1], question, vocabulary) or compares(question, vocabulary):
        return _name_before_a_code(value, question, vocabulary)
    return f"{match[1]}, {value}"


# Words that are no part of a name before a code (_name_before_a_code): they ask, join or lead to a place.
_NO_NAME_WORDS = frozenset("""a also an and any at be between by compared do does for from get going gonna how hows i in
    instead is it its like me my near next of on or please pls than that the then there this to too versus vs was
    what whats what's when where which will with over during across through more less most least likely much many
    rn now right today both each either""".split())  # ("tucson vs boise over the next 7 days" had "Boise, over")


def _names_nothing(word: str, vocabulary: Vocabulary) -> bool:
    """Whether a word of a question typed without capitals is no part of a place's name: a word that asks, joins
    or leads to a place, a day word, or a word of the domain's own."""
    folded = word.casefold()
    return folded in _NO_NAME_WORDS or folded in vocabulary.own_words or bool(re.fullmatch(_ASKING, folded)) \
        or bool(day_words(word))


def with_names_capitalized(question: str, vocabulary: Vocabulary) -> str:
    """The question with the words after "in", "at" or "near" capitalized up to the first that names nothing
    ("prices in papeete today y/n" as "prices in Papeete today y/n"): written without capitals, a name reads as a word,
    and a small model took "papeete" for Papua New Guinea. The question itself where it capitalizes nothing."""
    def capitalized(match: re.Match[str]) -> str:
        words = match[2].split(" ")
        named = list(itertools.takewhile(lambda word: not _names_nothing(word, vocabulary), words))
        if not named:
            return match[0]
        return f"{match[1]}{' '.join(word.capitalize() for word in named)}{match[2][len(' '.join(named)):]}"

    return re.sub(r"(\b(?:in|at|near)\s+)([a-z][a-z'’-]*(?: [a-z][a-z'’-]*){0,3})", capitalized, question)


def _name_before_a_code(value: str, question: str, vocabulary: Vocabulary) -> str:
    """"traverse city, mi" where the question writes a code of two letters (a region's or a country's) after
    words of a name with no comma ("traverse city mi for the weekend": the router took "mi" for the
    place); "" where no such words come before it ("in NY", "KL tomorrow")."""
    if not re.fullmatch(r"[A-Za-z]{2}", value):
        return ""
    match = re.search(rf"((?:[^\W\d_][\w'’.-]*[ \t]+){{1,3}}){re.escape(value)}(?![\w])", question, re.IGNORECASE)
    if not match:
        return ""
    name: list[str] = []
    for word in reversed(match[1].split()):
        if _names_nothing(word, vocabulary):
            break
        name.insert(0, word)
    if asked_quantities(" ".join(name), vocabulary):  # "air quality la tomorrow": Los Angeles, no "air quality"
        return ""
    return f"{' '.join(name)}, {value}" if name else ""


_JOINER_ZH = re.compile(r"和|与|跟|、|还是|或者|或")


def joined_names(value: str) -> list[str]:
    """The Chinese names a value joins ("海林和尚志", the router's one place for "明天夜里海林和尚志哪边更冷"): each part
    of two characters or more between 和/与/跟/、/还是/或; [] for a value that joins none (和田, 共和 are one name)."""
    if not _HAN.match(value):
        return []
    parts = [part.strip() for part in _JOINER_ZH.split(value)]
    return parts if len(parts) > 1 and all(len(part) >= 2 and _HAN.match(part) for part in parts) else []


_ADDED_ZH = re.compile(rf"{_ADDING_ZH}\s*([\u3400-\u9fff]{{2,}}?|{_LATIN_NAME})"
                       r"(?=呢|吧|吗|一起|[，,。？?！!\s]|$)")
# (and with 把 before it: "把丰宁也加进来")
_ADDED_BEFORE_ZH = re.compile(r"把\s*([\u3400-\u9fff]{2,}?)\s*(?:也|一起|一并)?\s*(?:加进来|加进去|加上|加入|算上|算进来|算进去|放进来)")
# (and compared with: "明天跟长春比哪个更冷" after Harbin's week)
_COMPARED_WITH_ZH = re.compile(rf"(?:跟|和|与|同)\s*([\u3400-\u9fff]{{2,}}?|{_LATIN_NAME})(?<![年月周天日相])\s*"
                               r"(?:相?比|比较|对比)")  # (not a time: 跟去年比)
_ADDED = re.compile(rf"\b(?:add|adding|plus|include|including|throw in|toss in|chuck in|compared? (?:it )?(?:to|with|w/)|"
                    rf"(?:as )?against|versus|vs\.?)\s+({_NAME_WORDS})")


def chinese_name_said(question: str, vocabulary: Vocabulary) -> str:
    """The Chinese name a question begins with, past its day words and up to its own words ("三都" of "周末三都会冷
    吗": a question's place comes first), or "" when it begins with no run of two to five such characters."""
    run = re.match(r"[\u3400-\u9fff]*", without_day_words(question).strip())[0]
    ends = [at for at, character in enumerate(run) if character in vocabulary.name_ends_zh]
    whole = run[:min(ends, default=len(run))]
    run = whole.lstrip(_ASKS_ZH + "那一下").rstrip(_TRAILING_ZH)
    start = len(whole) - len(whole.lstrip(_ASKS_ZH + "那一下"))
    if any(start <= at < start + len(run) for at in quantity_starts(whole, vocabulary)):
        return ""  # "开盘价和收盘价有啥区别": a quantity, no name
    return run if 2 <= len(run) <= 5 and run not in _QUESTION_WORDS else ""  # (nor a greeting: 早上好)


# Characters of the question's own after a name ("会" of 三都会冷吗, "要" of 成都要冷吗): no part of it.
_TRAILING_ZH = "会要有是下不能还也就的呢吗"


# ... and typed in lowercase after "compare with", up to a mark or a word that asks ("compare w/ sacramento today").
_COMPARED_WITH_LOWERCASE = re.compile(rf"\bcompared?\s+(?:it\s+)?(?:to|with|w/)\s+((?!{_ASKING})[a-z][\w'’.-]*"
                                      rf"(?:\s+(?!{_ASKING})[a-z][\w'’.-]*)?)(?=\s*(?:[,?!.;]|$)|\s+{_ASKING})")


def added_names(question: str) -> list[str]:
    """The names a follow-up adds to the places asked about ("加上奉化呢，三个里面哪个最热", "把丰宁也加进来",
    "add Tromsø too", "compared to Sydney, which is colder?", "跟长春比哪个更冷")."""
    return [match[1] for pattern in (_ADDED_ZH, _ADDED_BEFORE_ZH, _COMPARED_WITH_ZH, _ADDED, _COMPARED_WITH_LOWERCASE)
            for match in pattern.finditer(question)
            if without_day_words(match[1]).strip()]  # (加上明天呢: a day)


# A Chinese name after the word a plan's leg goes or stays there by ("后天去西塘", "大后天到桂林", "后天在阳朔").
_LEG_ZH = re.compile(r"(?:去|到|在|飞|回)\s*([\u3400-\u9fff]{2,4}?)(?=[玩看住的呢吗，,。？?！!\s]|$)")


def first_name_in(clause: str, vocabulary: Vocabulary) -> str | None:
    """The first name a clause of a plan writes ("Kuala Lumpur" of "Kuala Lumpur the day after", "西塘" of "后天去
    西塘"): after 去/到/在 in Chinese, else its first capitalised words that name something; None where it has none."""
    text = without_day_words(clause)
    if zh := _LEG_ZH.search(text):
        return zh[1]
    names = (match[0] for match in re.finditer(_NAME_WORDS, text))
    return next((name for name in names if not all(_names_nothing(word, vocabulary) or word.startswith(("I'", "I’"))
                                                  for word in name.split())), None)
