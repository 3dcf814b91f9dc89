"""What a text is or claims, whoever reads it (the router's own answer, a written one, a question): tool output
instead of sentences, measurements, a refusal, a yes/no question. No decision is made here."""

from __future__ import annotations

import re

from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.vocabulary import Vocabulary

_DUMP = re.compile(r"!\[|\]\(|https?://|www\.|\{\s*\"|\"\s*:|</?\|?tool|<\|im_|```|Tool results:|structured_content",
                   re.IGNORECASE)
# Saying the data is missing ("Sorry, I don't have ..."), in the languages fully served.
_REFUSAL = re.compile(r"抱歉|无法|不能提供|查不到|没有.{0,6}(数据|信息|资料)|\b(sorry|unable|cannot|can't|don't have|"
                      r"do not have|not available|no data)\b", re.IGNORECASE)
# (and spoken: "有空没？", "能去不？", "有票没有", "是否", "有无")
# (Cantonese asks with 唔 and 冇: "會唔會開", "有冇")
# (吗, 不 or 没 may end a clause with a remark after it: "Berlin 明天冷吗 德国那个", "明天下午去不 想出门")
_ZH_YES_NO = re.compile(r"[吗么嘛嗎麼][？?\s]*$|[吗嗎](?=[？?\s，,。！!])|(?:没有?|沒有?|不)[？?\s]*$|"
                        r"(?<=[\u4e00-\u9fff])(?:没有?|沒有?|不)(?=[？?\s，,。！!])|[会會]不[会會]|要不要|是不是|"
                        r"有[没沒冇]有|有冇|"
                        r"需不需要|用不用|是否|有无|(.)[不唔]\1|"
                        r"吧(?=[？?，,。！!]|\s*$)")  # a guess put to be confirmed: "明天不会关门吧？"
# A statement put to be confirmed: "the shop won't be closed tomorrow, right?", "so no queue then?"; or asked
# whether: "just tell me if the shop will be open tomorrow"
_EN_CONFIRM = re.compile(r"[,\s](?:right|yeah|yes|correct|eh)\s*[?？]\s*$|^\s*(?:so,?\s+)?no\s+\w.*[?？]\s*$"
                         r"|\b(?:tell me|let me know|wondering|wonder|check) (?:if|whether)\b", re.IGNORECASE)
# "… or not" asks yes or no, as 不 between two words does ("JB tomorrow very hot or not ah").
_EN_OR_NOT = re.compile(r"\bor\s+not\b", re.IGNORECASE)
# What may come before the question itself: a subject ("Kingston, Jamaica - is it …"), or a sentence of its own
# ("Hi! My mom is flying into Honolulu tomorrow. Will it be hot there?").
_LEAD = re.compile(r"\s[-–—]\s|[:;]\s*|(?<=[.!?])\s+|,\s*(?=(?:will|is|are|does|do|should|can)\b)"
                   # a greeting or a filler word ("hey is it hot out in Kuwait City rn")
                   r"|^\s*(?:(?:hey|hi|hello|yo|ok|okay|so|um|uh|well|btw)\b[\s,!.]*)+(?=(?:will|is|are|does|do|did|should"
                   r"|can|could|would|was|were)\b)", re.IGNORECASE)
# A word or mark that asks, anywhere in Chinese, at a clause's start in English ("Tomorrow is my birthday!" asks nothing).
# (a sentence ending in 不 or 没 asks yes or no: "要穿羽绒服不")
_ASKS = re.compile(r"[?？吗呢么咋嗎麼]|怎么|怎样|如何|多少|几|哪|什么|啥|是否|有没有|([\u4e00-\u9fff])[不唔]\1|"
                   r"(?<=[\u4e00-\u9fff])(?:不|没有?)[？?。\s]*$|(?:^|[,.;:!-]\s*)"
                   r"(?:what|how|when|where|which|who|why|will|is|are|does|do|should|can|could|any)\b", re.IGNORECASE)
# (of quoted words: "translate the news for Paris into Chinese" asks for the news)
_TRANSLATE = re.compile(r"翻译|翻譯|译成|譯成|\btranslat(?:e|ion)\b", re.IGNORECASE)
_QUOTED = re.compile(r"[“「『\"'‘].+?[”」』\"'’]")
_SAY_IN = re.compile(r"用\S{1,4}怎么说|\bhow do (?:you|I) say\b", re.IGNORECASE)
_CREATE = re.compile(r"笑话|段子|[写作编].{0,6}诗|讲.{0,3}故事|\b(?:jokes?|poems?|haiku|limerick|bedtime story)\b",
                     re.IGNORECASE)
# (typed fast: "willit be sunny tmr", "isit open")
_EN_YES_NO = re.compile(r"^\s*(will|is|are|does|do|did|should|shall|can|could|would|was|were|has|have|am|"
                        r"need|must|may|gonna|going to|supposed to)(?:it|there)?\b", re.IGNORECASE)
# ... and in the other languages a question may come in: in Japanese and Korean by their endings, in Spanish,
# French, German, Italian or Portuguese by a question mark with no question word ("… domani a Sintra? Rispondi in
# inglese" is asked yes or no; "est-ce que" asks yes or no too).
_KANA_HANGUL_YES_NO = re.compile(r"^(?!.*(?:何|いつ|どこ|どう|いくら|どれ|どちら|뭐|언제|어디|어떻|어때|얼마|몇|무슨))"
                                 r".*(?:(?:か|かな|까요|나요|까)\s*[？?]?|요\s*[？?])\s*$")
_OTHER_QUESTION_WORD = re.compile(
    r"\b(?:qu[eé]|cu[aá]l(?:es)?|cu[aá]ndo|d[oó]nde|c[oó]mo|cu[aá]nt[oa]s?|qui[eé]n|quel(?:le)?s?|quand|o[uù]|comment|"
    r"combien|qui|pourquoi|was|wann|wo|wie|welche[rsmn]?|wer|warum|wieviel|che|quale|quando|dove|come|quant[oiea]|"
    r"chi|perch[eé]|qual|onde|quem|porque)\b", re.IGNORECASE)
_EST_CE_QUE = re.compile(r"\best-ce\s+qu(?:e\b|['’])", re.IGNORECASE)


def is_output(text: str) -> bool:
    """Tool output, JSON, a link, markup or an image: not what a person writes."""
    return bool(_DUMP.search(text))


def unusable(reply: str, language: str, vocabulary: Vocabulary) -> bool:
    """Empty, markup or JSON, or in another language: not a reply to show, whatever the data."""
    return not reply.strip() or is_output(reply) or not languages.same_language(reply, language, vocabulary)


def in_english_instead(reply: str, language: str, vocabulary: Vocabulary) -> bool:
    """An English reply to a question in a language the assistant does not fully serve: shown, with a note."""
    return language not in languages.FULLY_SERVED and bool(reply.strip()) \
        and languages.detect(reply, vocabulary) == "en"


def states_measurements(reply: str, vocabulary: Vocabulary) -> bool:
    """Whether the text states measurements (a figure with one of the domain's units)."""
    return vocabulary.measurement is not None and bool(vocabulary.measurement.search(reply))


def says_it_lacks(reply: str) -> bool:
    """Whether the reply says the information is missing."""
    return bool(_REFUSAL.search(reply))


def asks(text: str) -> bool:
    """Whether the text holds a word or a mark that asks (吗, 多少, "how", "?")."""
    return bool(_ASKS.search(text))


def asks_a_language_task(text: str) -> bool:
    """A request to translate words ("帮我把“晴转多云”翻译成英文", "how do you say 'sunny' in French") or for a joke, a
    poem or a story ("给我讲个冷笑话呗"): a task of words, whatever the words speak of."""
    return bool(_SAY_IN.search(text) or _CREATE.search(text) or (_TRANSLATE.search(text) and _QUOTED.search(text)))


def question_parts(text: str) -> list[str]:
    """The text cut where a question may begin after a lead of its own ("Kingston, Jamaica - is it …", "Hi! …")."""
    return _LEAD.split(text)


def is_yes_no_question(question: str) -> bool:
    """A question answered by yes or no (会不会, 是不是, Will it ...)."""
    text = question.strip()
    # The question may come after its subject: "Kingston, Jamaica - is it going to be hot tomorrow?"
    return bool(_ZH_YES_NO.search(text) or _EN_OR_NOT.search(text) or _EN_CONFIRM.search(text)
                or any(_EN_YES_NO.match(part) or _KANA_HANGUL_YES_NO.match(part) or _other_yes_no(part)
                       for part in question_parts(text)))


def _other_yes_no(part: str) -> bool:
    """A question in Spanish, French, German, Italian or Portuguese that asks no question word."""
    part = part.strip()
    return part.endswith(("?", "？")) and languages.latin_language(part) not in ("en", "zh") \
        and not _OTHER_QUESTION_WORD.search(_EST_CE_QUE.sub(" ", part))
