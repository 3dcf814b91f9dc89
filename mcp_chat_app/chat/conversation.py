"""What a turn needs of the conversation before it: the earlier calls (their places and days, for follow-ups
like "那后天呢？" or "What about Chicago?"), the question before this one, and whether this one follows on."""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_chat_app.chat.text.claims import asks
from mcp_chat_app.chat.text.day_words import day_words, names_an_earlier_day, names_the_day_after, without_day_words
from mcp_chat_app.chat.text.vocabulary import words_pattern
from mcp_chat_app.mcp_client.manager import SEPARATOR

_CALL_TURNS = 2  # the calls of the last two answers: enough for "which of the two is warmer?"
# How a question says it continues the one before ("那后天呢？", "What about Chicago?"), in any domain: the words
# it opens with, or 呢 at its end.
_OPENING = re.compile(r"^\s*(?:那么|那|还有|然后|(?:what|how)\s+about\b|and\b)", re.IGNORECASE)
# ... or that asks the previous question again of another value ("same question for Lae", "same for paris", "同样的问题，
# 问一下兰州").
# A correction of the question before ("oops, I meant Lafayette, Indiana", "我是说绵阳") asks it again, of what it says.
# ... or a name with 呢 that a question of its own follows ("清迈呢 空气咋样"), or "then" at the end ("ok, New York then").
# A name or two alone, asked ("moncton?", "regina too?"): of the conversation's question, not a question of its own.
_NAMED_ALONE_ASKED = (r"^\s*(?!(?:what|how|who|why|when|where|which|is|are|was|will|do|does|did|can|should|could|would|"
                      r"any)\b)[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’.-]*(?:\s+[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’.-]*){0,2}"
                      r"(?:\s+(?:too|as\s+well|also))?\s*[?？]\s*$")
# Words that correct what was asked before ("我说的是明天", "I meant Friday", a slip: "我说错了"): a follow-up that
# asks again, and no acknowledgement.
_CORRECTS = re.compile(r"\bi\s+meant?\b|\bsorry,?\s+(?:i\s+)?meant\b|\bmake\s+(?:that|it)\s+(?=\w)|我是说|我说的是|我指的是|"
                       r"我的意思是|说错了|搞错了|弄错了|^\s*不是[^，,。？?]{1,12}[，,]\s*(?:而)?是", re.IGNORECASE)
_FOLLOW_UP = re.compile(rf"呢[？?。!！\s]*$|^[^\s，,。？?]{{1,12}}呢[\s，,]|\bthen[?？.!！\s]*$|{_OPENING.pattern}"
                        rf"|{_NAMED_ALONE_ASKED}|\b(?:too|as\s+well)[?？.!！\s]*$"
                        r"|\bsame\s+(?:question|thing|again)\b"
                        r"|^\s*(?:(?:ok|okay|k|and|now)[\s,]+)?(?:the\s+)?same\s+for\b"  # ("same for paris", after a chart)
                        # the conversation's day, pointed back to ("and Puerto Natales the same day?")
                        r"|\b(?:on\s+)?(?:the\s+)?same\s+(?:day|time)\b|\b(?:on\s+)?that\s+day\b"
                        rf"|(?:同样|一样)的?问题|同上|{_CORRECTS.pattern}"
                        # a correction that says the place before was the wrong one ("sorry, wrong Portland. Maine.",
                        # "不是那个，是浙江的台州", "不对，我说的是…")
                        r"|\bwrong\s+(?:one|place|city|town|(?-i:[A-Z])[\w'’.-]*)|^\s*不是(?:那个|这个|那里|这里)|^\s*不对[，,]"
                        # ... or the other one ("ugh no, the other one — Springfield, Missouri")
                        r"|\bthe\s+other\s+one\b"
                        # the same asked of another place: "安徽宿州也画一个", "上海也查一下", "do the same for Lyon"
                        r"|^\s*[^，,。？?！!\s]{2,12}?也(?:画|查|看|来|要|说|算|比|发|一样)|\bdo\s+the\s+same\s+for\b",
                        re.IGNORECASE)


# What a follow-up of a new day says besides it ("and how about tomorrow?", "ok then, what about this Thursday?").
_DAY_FOLLOW_UP_FILLER = re.compile(r"\b(?:and|so|ok|okay|then|what|how|about|for|this|that|the|on|is|it|like|looking|"
                                   r"one|will|be|any|better|worse)\b|那么|那|还有|然后|呢|的|会|好点|好些|更好|差点|吗|[\W_]+",
                                   re.IGNORECASE)
# What a follow-up says besides its values: the words that make it one, and punctuation.
# A name as a follow-up says it alone: capitalised words (a qualifier after a comma), or two to eight Han characters.
_A_NAME = re.compile(r"[A-ZÀ-Þ][\w'’.-]*(?:,?\s+[A-ZÀ-Þ][\w'’.-]*)*|[\u3400-\u9fff]{2,8}")
_ZH_DAY_AROUND = re.compile(r"(?:前|后|第.|次|隔|上|下)[一两二三]?[天日]")  # 前一天, 第二天, 次日, 隔天
_FOLLOW_UP_WORDS = re.compile(rf"{_FOLLOW_UP.pattern}|[\W_]+", re.IGNORECASE)


# What people say to acknowledge or close an answer ("行", "ok 多谢哈", "cheers mate"), with the particles they end
# it with: a message of these words alone asks nothing, so no tool answers it (told "行", a small model called a
# tool for a place of that name).
_ACKNOWLEDGEMENTS = (
    "行", "好", "好的", "好吧", "好嘞", "好滴", "嗯", "嗯嗯", "哦", "噢", "喔", "收到", "知道了", "明白", "了解", "懂了",
    "可以", "没问题", "不错", "太棒了", "棒", "赞", "谢谢", "谢谢你", "谢了", "多谢", "感谢", "辛苦", "辛苦了", "再见",
    "拜拜", "晚安", "谢啦", "哈", "哈哈", "啊", "呀", "啦", "了", "嘛", "嘿", "吧",
    "唔该", "唔该晒", "多谢晒", "唔該", "唔該晒",
    "ok", "okay", "k", "kk", "thanks", "thank you", "thx", "ty", "ta", "cheers", "mate", "got it", "great", "cool", "nice",
    "sure", "alright", "all right", "perfect", "awesome", "noted", "understood", "sounds good", "good", "fine",
    "bye", "goodbye", "see you", "so much", "very much", "a lot", "again", "then", "appreciate it", "much appreciated",
    "fair", "fair enough", "sweet", "sweet as",
    "hmm", "hmmm", "hm", "um", "umm", "uh", "oh", "ah", "well", "yeah", "yep", "interesting", "wow",
)
_THANKS = re.compile(r"(?:谢谢你?|谢啦|谢了|多谢|感谢|thanks|thank you|thx|cheers)(?![a-z])[\s,，.。!！~]+", re.IGNORECASE)
# After thanks, a word that asks ("谢啦，明天呢？") asks again, and so does a clause that goes on ("thanks, and Rome").
_GOES_ON = re.compile(r"(?:^|[,.;:!-]\s*)(?:and|but|also)\b", re.IGNORECASE)
# A choice made, then thanks ("那就明天吧，谢谢！", "saturday it is then, thanks"): the speaker has decided, and asks
# nothing.
_DECIDED = re.compile(r"(?P<choice>(?:好的?|行|ok(?:ay)?|那)?[\s,，]*(?:那就|就)[^？?，,。]{1,12}吧"
                      r"|[^?？]{1,30}?\bit\s+is(?:\s+then)?"
                      r"|(?:ok(?:ay)?,?\s+)?let'?s\s+(?:go\s+with|do)\s+[^?？]{1,20}?)[\s,，.。!！~]+"
                      r"(?:谢谢你?|谢啦|谢了|多谢|thanks|thank you|thx|cheers)[\s,，.。!！~]*$", re.IGNORECASE)
# What the speaker will do, after an acknowledgement or alone ("好的，明天出门记得戴口罩", "我明天要过去泡温泉嘞",
# "ok, I'll bring a jacket then"), tells, and asks nothing unless it asks for something ("好的，我想知道明天…",
# "ok, I want to know …").
_OWN_PLAN = re.compile(r"(?:那|那就|就)?\s*(?:我|咱|记得|出门|带|戴|穿|拿|去)|(?:then\s+)?(?:i|i'll|i'm|i will|i'd better|we|we'll|we're|"
                       r"will do|gonna|heading|off to|time to)\b", re.IGNORECASE)
_ASKS_FOR = re.compile(r"想|知道|问|查|告诉|帮|请|给我|我人?在|\b(?:want|wanna|need|like to|wonder|know|tell|check|"
                       r"show|give|please|curious)\b", re.IGNORECASE)
# After an acknowledgement, a remark on the answer ("sounds like a nice evening for the vineyards", "looks like
# a fine day for it") or what must come along ("防晒霜得带上", "外套要带上") tells too.
_REMARK = re.compile(r"(?:it\s+|that\s+)?(?:sounds|looks|seems)\s+like\b|[^\W\d]{1,6}?(?:得|要|必须)(?:带|戴|穿|拿|涂|抹)上?$",
                     re.IGNORECASE)
# (a character alone only before a mark, a space, 那 or another such character: 哈 of 哈尔滨, 好 of 好望角 begin
# names; 行吧 acknowledges)
_ONE_CHARACTER = "".join(word for word in _ACKNOWLEDGEMENTS if len(word) == 1 and not word.isascii())
_ACKNOWLEDGES = re.compile(
    "(?:" + "|".join(re.escape(word) + (r"(?![a-z])" if word.isascii() else
                                        rf"(?=[^\u3400-\u9fff]|$|那|[{_ONE_CHARACTER}])" if len(word) == 1 else "")
                     for word in sorted(_ACKNOWLEDGEMENTS, key=len, reverse=True)) + r"|[\W_])+", re.IGNORECASE)


# What opens a question of its own after thanks ("thx. btw what SPF is ok for toddlers?", "谢啦，对了…").
_ASIDE = re.compile(r"(?:by the way|btw|also|oh and|random q(?:uestion)?|对了|顺便问一?下|另外)[\s,，:：.。!！-]*",
                    re.IGNORECASE)


# A question of the assistant's own taste or experience ("你觉得周杰伦新歌好听吗", "你去过云南吗", "do you like jazz?"),
# which a small router answered with the conversation's place's data.
_OF_THE_ASSISTANT = re.compile(r"你(?:觉得|认为|喜欢|去过|听过|看过|吃过|玩过|爱)|\bdo you (?:like|love|think|prefer|enjoy)\b|"
                               r"\bhave you (?:ever )?(?:been|heard|seen|tried|visited)\b|\bwhat do you think\b",
                               re.IGNORECASE)


def of_the_assistant(question: str) -> bool:
    """Whether the question asks the assistant's own taste or experience ("你去过云南吗", "do you like jazz?")."""
    return bool(_OF_THE_ASSISTANT.search(question))


def after_thanks(question: str) -> str:
    """The question a message asks after an acknowledgement or thanks ("great thanks. btw what SPF is ok for
    toddlers?" asks "what SPF is ok for toddlers?"), less the words that open an aside; "" when it opens with
    none or asks nothing after it."""
    text = question.strip()
    opened = _ACKNOWLEDGES.match(text)
    if opened is None or not re.search(r"[^\W\d_]", opened[0]):
        return ""
    rest = text[opened.end():]
    rest = rest[aside.end():] if (aside := _ASIDE.match(rest)) else rest
    return rest if asks(rest) else ""


def acknowledges(question: str) -> bool:
    """Whether the message only acknowledges or thanks ("行", "OK谢了", "辛苦了", "cheers mate"), thanks and
    remarks ("谢啦，图很清楚", "thanks, that helps"), or says what the speaker will do ("好的，明天出门记得戴口罩",
    "我明天要过去泡温泉嘞"): it asks nothing."""
    text = question.strip()
    if not text or _CORRECTS.search(text):  # "我说的是明天不是今天" asks again, of tomorrow: no plan of the speaker's
        return False
    if _ACKNOWLEDGES.fullmatch(text) is not None:
        return True
    opened = _ACKNOWLEDGES.match(text)
    told = without_day_words(text[opened.end():] if opened and re.search(r"\w", opened[0]) else text).strip(" ,，")
    remarks = opened is not None and re.search(r"\w", opened[0]) is not None and _REMARK.match(told) is not None
    if (_OWN_PLAN.match(told) or remarks) and not (asks(told) or _GOES_ON.search(told) or _ASKS_FOR.search(told)
                                                   or re.search(r"\d|\s(?!I\b|I')[A-Z]", told)):
        return True
    if (decided := _DECIDED.match(text)) and not asks(decided["choice"]):
        return True
    thanks = _THANKS.match(text)
    if not thanks:
        return False
    rest = text[thanks.end():]
    # A remark names no day, figure or name: "thanks, Rome tomorrow" asks, tersely.
    return not (asks(rest) or _GOES_ON.search(rest) or day_words(rest) or re.search(r"\d|\s[A-Z]", rest))


def says_only(question: str, values: list[str]) -> bool:
    """Whether a follow-up says nothing but the values and its follow-up words ("芽庄呢？", "What about Kingston,
    Ontario?", "ok fair, how about Roseau?"): it asks what the question before it asked, of them."""
    rest = _unacknowledged(question)
    for value in sorted(values, key=len, reverse=True):
        rest = re.sub(re.escape(value), " ", rest, flags=re.IGNORECASE)
    return bool(values) and not _FOLLOW_UP_WORDS.sub("", rest.strip())


# What a follow-up asking for other units says besides their names ("in miles pls", "换成英里呢").
_UNITS_FILLER = re.compile(r"\b(?:in|into|to|please|pls|plz|can|could|you|convert|show|give|it|me|the|that|what|about|"
                           r"and|how|now|instead|degrees?)\b|用|换成|换算|转成|改成|一下|给我|呢|吗|请|[\W_]+", re.IGNORECASE)


def says_only_units(question: str, unit_words: tuple[str, ...]) -> bool:
    """Whether a follow-up says nothing but a unit system's name ("in miles pls", "in km?", "英里呢"): it asks
    what the question before it asked, in those units."""
    pattern = words_pattern(unit_words)
    if pattern is None or not pattern.search(question):
        return False
    return not _UNITS_FILLER.sub("", pattern.sub(" ", _unacknowledged(question))).strip()


def says_only_a_day(question: str) -> bool:
    """Whether a follow-up says a day and nothing else ("and how about tomorrow?", "那后天呢"): it asks what the
    question before it asked, of that day."""
    return bool(day_words(question)) and not _DAY_FOLLOW_UP_FILLER.sub("", without_day_words(question)).strip()


def earlier_calls(history: list[dict[str, Any]]) -> str:
    """The tool calls behind the latest answers, the latest first, as the router reads them ("" for none); failed
    ones too, whose places and days a follow-up may ask of again ("ok then, what about this Thursday?")."""
    answers = [m for m in history if m.get("role") == "assistant" and m.get("calls")][-_CALL_TURNS:]
    said = ["; ".join(f"{call['tool']} {json.dumps(call['arguments'], ensure_ascii=False, separators=(',', ':'))}"
                      for call in answer["calls"]) for answer in reversed(answers)]
    return "; before that: ".join(said)


def opening(question: str) -> str:
    """The words a follow-up opens with ("那" of "那贡布呢", "What about"), or ""."""
    match = _OPENING.match(question)
    return match[0].strip() if match else ""


def own_question(question: str) -> str:
    """The question a follow-up asks of its own after the place it turns to ("明天人多吗" of "那大屿山呢，明天人多吗",
    "is it open tomorrow?" of "what about Lantau, is it open tomorrow?"), or ""."""
    parts = _OWN_QUESTION_AFTER.split(question, maxsplit=1)
    return parts[1] if len(parts) == 2 else ""


# The end of a follow-up's opening ("那大屿山呢，", "what about Lantau,"): a question of its own may follow.
_OWN_QUESTION_AFTER = re.compile(r"呢[，,\s]+|^(?:what|how)\s+about\s+[^,]+,\s*", re.IGNORECASE)


def is_follow_up(question: str) -> bool:
    """Whether the question says it continues the previous one."""
    return bool(_FOLLOW_UP.search(_unacknowledged(question))) or _corrects_only_its_place_or_day(question)


_ASKS_ZH = re.compile(r"[吗么嘛啥咋几嗎麼幾哪]|不[^\W\d]?$|怎|多少|如何|什么")  # ("那哪天最适合晒": which day)


def named_alone(question: str) -> str:
    """The one name a follow-up says besides its follow-up words, and no day ("Berbera" of "and Berbera?", "贡布"
    of "那贡布呢", "Paris, France" of "And in Paris, France?"); "" for anything else."""
    text = _OPENING.sub("", _unacknowledged(question)).strip()
    text = re.sub(r"^(?:in|for|at)\s+|[\s?？!！.。呢]+$", "", text, flags=re.IGNORECASE)
    if day_words(text) or names_the_day_after(text) or names_an_earlier_day(text) or _ZH_DAY_AROUND.search(text) \
            or not _A_NAME.fullmatch(text) or _ASKS_ZH.search(text):  # "那里冷吗" asks of there: no 里冷吗
        return ""
    return text


def named_beside_its_day(question: str) -> str:
    """The one name, in Latin letters, a follow-up says besides its follow-up words and the day it asks ("Split" of
    "and Split the day before yesterday?", "Jelenia Góra" of "what about Jelenia Góra tomorrow night"); "" for
    anything else. (Not in Chinese: "那明天穿啥" would leave 穿啥.)"""
    # (the conversation's day and hour pointed back to are its day: "ok and Johor Bahru at the same time?")
    text = re.sub(r"\b(?:on|for|at|in)\s*(?=[\s?？!！.。]*$)|\b(?:night|morning|afternoon|evening)\b"
                  r"|\b(?:(?:at|on)\s+)?(?:the\s+)?same\s+(?:time|day|hour)\b|\b(?:on\s+)?that\s+day\b", " ",
                  without_day_words(question), flags=re.IGNORECASE)
    name = named_alone(re.sub(r"\s+", " ", text).strip())
    return name if re.match(r"[A-ZÀ-Þ]", name) else ""


def _unacknowledged(question: str) -> str:
    """The question less the acknowledgement it opens with ("ok fair, how about Roseau?")."""
    opened = _ACKNOWLEDGES.match(question)
    return question[opened.end():] if opened else question


def all_calls(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every successful tool call behind the answers, in the conversation's order, as the history keeps them."""
    return [call for calls in _answered(history) for call in calls]


def latest_answers(history: list[dict[str, Any]], count: int) -> list[list[dict[str, Any]]]:
    """The successful tool calls behind each of the latest `count` answers that made any, the latest last."""
    return _answered(history)[-count:]


def latest_calls(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The successful tool calls behind the latest answer that made any ([] for none), as the history keeps them."""
    answered = _answered(history)
    return answered[-1] if answered else []


def earlier_arguments(history: list[dict[str, Any]], limit: int = 6) -> dict[str, list[dict[str, Any]]]:
    """By server, the arguments of its successful calls in the conversation, latest first (at most `limit`): what
    a server may settle a follow-up's value by ("and Santa Fe?" after Albuquerque)."""
    earlier: dict[str, list[dict[str, Any]]] = {}
    for calls in reversed(_answered(history)):
        for call in calls:
            server = str(call.get("tool", "")).partition(SEPARATOR)[0]
            kept = earlier.setdefault(server, [])
            if len(kept) < limit and call.get("arguments") not in kept:
                kept.append(call.get("arguments", {}))
    return earlier


def latest_tried(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool calls behind the latest answer that made any, failed ones too ([] for none): what a follow-up
    that says only a new place or day asks again ("how about Roseau?" after a place of stories)."""
    tried = [m.get("calls") for m in history if m.get("role") == "assistant" and m.get("calls")]
    return list(tried[-1]) if tried else []


def _answered(history: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each answer's successful calls, for the answers that have any, in order."""
    answers = ([call for call in m.get("calls") or [] if not call.get("failed")]
               for m in history if m.get("role") == "assistant")
    return [calls for calls in answers if calls]


def earlier_question(history: list[dict[str, Any]]) -> str:
    """The user's previous question ("" at the start of a conversation), past bare follow-ups of it and doubts of
    its answer: for "皮山那边呢" after "叶城呢" after "现在莎车热吗", the question they all ask; for "那后天呢" after
    "你确定吗 别骗我" after "开不开门啊", whether it is open."""
    asked = [m["content"] for m in reversed(history) if m.get("role") == "user" and isinstance(m.get("content"), str)]
    return next((question for question in asked[:_ASKED_AGAIN]
                 if not bare_follow_up(question) and not asks_to_say_again(question)), asked[0] if asked else "")


# A follow-up that asks the earlier question of another day or place and nothing of its own ("那下周一呢",
# "What about Tuesday?", "and in Fresno?").
# "...呢" asking no figure (多少, 几, 最…); in English, day words and names only after "what about".
# (a place may be followed by the same day again: "京都呢，同一天")
_ZH_BARE_FOLLOW_UP = re.compile(r"^\s*(?:那么?)?(?:(?!多少|几|最)[^，。,.!！?？]){1,12}呢\s*[?？]?"
                                r"(?:[，,\s]*(?:同一天|同一时间|那天|也一样)呢?)?\s*[?？]?\s*$")
_ONE_CLAUSE = re.compile(r"[^,.;:!?]*\??\s*")
_EN_FILLER = {"in", "on", "for", "the", "there", "then", "at", "of", "day", "s", "after", "next", "this", "that"}
_ASKED_AGAIN = 4  # how many bare follow-ups in a row still ask the question before them
_REMARK_AFTER = re.compile(r"^(?P<asked>[^，,。？?]{1,14}呢)[\s，,]+(?P<remark>[^？?]{4,20}?)[。.!！~]*\s*$")


# Asking for the latest answer again, in the same or another language ("能用中文再说一遍吗？", "say that again in
# English", "repeat that please", "用英文说一下").
_SAY_AGAIN = re.compile(r"再(?:说|講|讲|讲述|回答)一?[遍次下]|重复一?[遍下次]|用(?:中文|汉语|漢語|英文|英语|英語)(?:再)?(?:说|講|讲|回答|写)"
                        r"|\b(?:say|tell me|write|give me) (?:that|it|this) again\b|\brepeat (?:that|it|this)\b"
                        r"|^\s*(?:(?:now|again|and|ok|pls|please|can you|could you)\s+)*"
                        r"(?:in|into) (?:english|chinese|mandarin)(?: please| pls)?\s*[?.!]*\s*$", re.IGNORECASE)


# Doubting the latest answer, of no other day ("seems low, are you sure?", "你确定吗"): its figures, said again.
_DOUBTS = re.compile(r"\b(?:are|r) (?:you|u) sure\b|\byou sure\b|\bis that right\b|你确定|确定吗|确定么|没搞错吧|真的假的",
                     re.IGNORECASE)


def asks_to_say_again(question: str) -> bool:
    """Whether the question asks for the latest answer again (in a language it names, or as it was)."""
    return bool(_SAY_AGAIN.search(question)) or (bool(_DOUBTS.search(question)) and not day_words(question)
                                                 and not names_the_day_after(question))


# A correction that names only the right place or day ("不对，是苏州不是杭州", "no, I meant Paris, Texas", "actually
# make that Thursday"): the earlier question, asked of it.
_OH = r"(?:[哦噢啊呃嗯唉哎额]+[，,\s]*)?"  # an interjection before it ("哦我说错了 是奈良")
_ZH_CORRECTIONS = (re.compile(rf"^\s*{_OH}我?(?:不对|不是|错了|说错了|搞错了|弄错了)了?[，,\s]*"
                              r"(?:我(?:说|问|指)的是|我是说|是)?\s*(?P<named>[^，,。.？?！!\s]{1,12}?)\s*"
                              r"(?:[，,\s]*(?:而)?不是[^，,。.？?！!]{1,12})?[。.!！]?\s*$"),
                   re.compile(rf"^\s*{_OH}不是[^，,。.？?！!\s]{{1,12}}[，,\s]+(?:而|我(?:说|问|指)的)?是"
                              r"(?P<named>[^，,。.？?！!\s]{1,12}?)[。.!！]?\s*$"))
_EN_CORRECTION = re.compile(r"^\s*(?:(?:no|nope|oops|sorry|ugh|wait|sry)\b[\s,.!]*)*"
                            r"(?:i\s+meant?|actually(?:,?\s+make\s+(?:that|it))?|make\s+(?:that|it))\s+"
                            r"(?P<named>[^.?!;]{1,40}?)[\s.!]*$", re.IGNORECASE)
# ... or a name alone after an apology, maybe with a word of why ("sorry, Springfield Missouri", "wait, Portland
# Maine, sorry, that's where my mom lives")
_EN_NAME_CORRECTION = re.compile(r"^\s*(?:(?i:no|nope|oops|sorry|ugh|wait|sry)\b[\s,.!]*)+"
                                 r"(?P<named>[A-Z][\w'’.-]*(?:,?\s+[A-Z][\w'’.-]*){0,3})"
                                 r"(?:[\s,.!]+(?:sorry|sry|my bad|oops)\b)?(?:[\s,.!—-]+(?:that'?s|it'?s|where|my)\b.*)?"
                                 r"[\s.!]*$")


def _corrects_only_its_place_or_day(question: str) -> bool:
    zh = next(filter(None, (correction.match(question) for correction in _ZH_CORRECTIONS)), None)
    en = _EN_CORRECTION.match(question) or _EN_NAME_CORRECTION.match(question)
    if zh:  # a name or a day, not what is asked ("我问的是会不会…": 会不会 asks)
        return not _ASKS_ZH.search(zh["named"]) and not re.search(r"(.)不\1", zh["named"])
    if en:
        named = without_day_words(en["named"])
        return all(word[0].isupper() or word.lower() in _EN_FILLER for word in re.findall(r"\w+", named))
    return False


def bare_follow_up(question: str) -> bool:
    """Whether a follow-up only names another day or place, asking the earlier question of it (a correction
    too: "不对，是苏州不是杭州")."""
    if _ZH_BARE_FOLLOW_UP.match(question) or (re.match(_NAMED_ALONE_ASKED, question, re.IGNORECASE)
                                              and not day_words(question)) or _corrects_only_its_place_or_day(question):
        return True
    remarked = _REMARK_AFTER.match(question)  # "那后天呢 后天出发也行": a remark after it asks nothing
    if remarked and _ZH_BARE_FOLLOW_UP.match(remarked["asked"]) and not _ASKS_ZH.search(remarked["remark"]):
        return True
    head = opening(question)
    rest = question.strip()[len(head):]
    if not head or not _ONE_CLAUSE.fullmatch(rest):
        return False
    return all(word[0].isupper() or word.lower() in _EN_FILLER for word in re.findall(r"\w+", without_day_words(rest)))


def plain_turns(history: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The turns as chat messages (role and content only)."""
    return [{"role": m["role"], "content": m["content"]} for m in history]
