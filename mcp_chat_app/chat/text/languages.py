"""Which language a text is in, by script and, for Latin text, by common words (those of any question, and the
domain's own, from the assistant's vocabulary); what to call it in prompts.

Chinese and English are fully served (a server that words its results in both serves them). Other languages are
answered in their own language when the model manages it, else in English with a note (see compose.py).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from mcp_chat_app.chat.text.vocabulary import Vocabulary

_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_HIRAGANA = re.compile(r"[\u3040-\u309f]")
_KATAKANA = re.compile(r"[\u30a0-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")
_NAME_RUN = re.compile(r"[\u30a0-\u30ff]+|[\uac00-\ud7af\u1100-\u11ff]+")  # a word of katakana or of hangul
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_ARABIC = re.compile(r"[\u0600-\u06ff]")
_GREEK = re.compile(r"[\u0370-\u03ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_WORD = re.compile(r"[a-zà-ÿ']+")
_LETTER = re.compile(r"[^\W\d_]")
# Words in quotation marks: "“你好” is hello" is English, 'how do you say "hello" in Chinese?' too.
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"")
# Chinese a question is asked in, not a name it quotes: its particles and question words ("那Naypyidaw呢" is a
# Chinese question, a long Latin name in it; "news in 多伦多?" is English).
# Words only a Chinese question has: "tmrw 西安 news 咋样" is asked in Chinese, its English words alike.
# Also its particle 的 and the words that ask a favour ("周末Phuket的hotel帮我check一下" is Chinese).
_ZH_GRAMMAR = re.compile(r"[呢吗嘛吧呀咋啥啦嗎的]|怎么|怎样|什么|如何|多少|几度|会不会|是不是|有没有|要不要|帮我|给我|一下|^\s*那")
# Latin words that are names only (capitalised: "现在Nuwara Eliya几度", "明天Swift Current多少度"): the Chinese around
# them is the question's language, however long the names.
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'’.-]*")

# A few words each language uses in almost every question, and English does not (the domain adds its own).
_LATIN_MARKERS = {
    "fr": {"le", "la", "les", "est", "quel", "quelle", "il", "fait", "demain", "aujourd'hui", "à", "du", "des", "va"},
    "de": {"der", "die", "das", "ist", "wie", "wird", "morgen", "heute", "es", "in", "und"},
    "es": {"el", "la", "los", "qué", "que", "mañana", "hace", "hoy", "va", "en", "cómo"},
    "it": {"il", "che", "domani", "fa", "oggi", "com'è", "come", "della"},
    "pt": {"o", "que", "amanhã", "hoje", "vai", "como", "está", "em"},
}
_ENGLISH_MARKERS = {"the", "is", "what", "will", "in", "tomorrow", "today", "it", "how", "and", "which", "are", "of",
                    "for", "to", "me", "a", "be", "at", "on", "do", "does", "should"}

NAMES = {"zh": "Chinese", "en": "English", "ja": "Japanese", "ko": "Korean", "fr": "French", "de": "German",
         "es": "Spanish", "it": "Italian", "pt": "Portuguese", "ru": "Russian", "ar": "Arabic"}
FULLY_SERVED = ("zh", "en")


def detect(text: str, vocabulary: Vocabulary) -> str:
    """The language code of `text`: by script for zh, ja, ko, ru, ar; by common words among Latin ones.

    Shares, not presence: an English answer may quote "北京", a Chinese one a unit or an abbreviation, a place
    name in its own script ("부산明天呢", "ホノルル明天热吗", "속초 呢"): Japanese has hiragana or is mostly katakana,
    Korean is mostly hangul, unless one such word is all there is beside Chinese grammar.
    """
    unquoted = _QUOTED.sub(" ", text)  # words quoted are another's ("“晴转多云”的英文是 \"sunny, becoming cloudy\"")
    if _LETTER.search(unquoted):
        text = unquoted
    hiragana, katakana = len(_HIRAGANA.findall(text)), len(_KATAKANA.findall(text))
    han, hangul, latin = len(_HAN.findall(text)), len(_HANGUL.findall(text)), len(_LATIN.findall(text))
    kana = hiragana + katakana
    # One word of katakana or hangul asked about with Chinese grammar is a name ("속초 呢", "ホノルル呢"): Chinese.
    a_name = bool(han and _ZH_GRAMMAR.search(text)) and len(_NAME_RUN.findall(text)) == 1 and not hiragana
    if (hiragana or katakana > han) and kana + han >= 0.3 * (kana + han + latin) and not a_name:
        return "ja"
    if hangul > han and hangul >= 0.3 * (hangul + latin) and not a_name:
        return "ko"
    if han and (han >= 0.3 * (han + latin) or _ZH_GRAMMAR.search(text) or _names_only(text)):
        return "zh"
    if len(_CYRILLIC.findall(text)) > latin:
        return "ru"
    if len(_ARABIC.findall(text)) > latin:
        return "ar"
    return _latin_language(text, vocabulary.language_words)


def _names_only(text: str) -> bool:
    return all(word[0].isupper() for word in _LATIN_WORD.findall(text))


# Words that say nothing of their writer's language: a Chinese conversation goes on in Chinese after "ok".
_NEUTRAL_WORDS = {"ok", "okay", "k", "kk", "thx", "ty", "thanks", "lol", "yes", "no", "yep", "yeah", "nope", "cool",
                  "nice", "great", "sure", "np", "hi", "hello", "bye", "hmm", "wow"}


def says_no_language(text: str) -> bool:
    """Whether a message carries no language of its own: no letters of any script but a word or two that people
    write whatever their language ("ok", "thx", "👍", "?")."""
    if _HAN.search(text) or _HIRAGANA.search(text) or _KATAKANA.search(text) or _HANGUL.search(text) \
            or _CYRILLIC.search(text) or _ARABIC.search(text) or _GREEK.search(text):
        return False
    words = _WORD.findall(text.lower())
    return len(words) <= 2 and all(word in _NEUTRAL_WORDS for word in words)


# A question may ask for a reply language other than its own ("東京は今何度ですか？请用中文回答", "¿Llueve? Answer in
# English"): said in Chinese or Japanese it is a request as written; in a Latin script, "in English" is one only
# beside a word that asks for a reply (not "how do you say hello in Chinese?").
# "晾衣服用英语怎么说" asks how a word is said in English, in Chinese: no reply language.
_SAID_HOW = r"(?!\s*(?:怎么|咋|如何|怎样)(?:说|讲|写|念|表达|翻译)|\s*(?:是|叫)(?:什么|啥))"
_ASKED_IN_CJK = {
    "zh": re.compile(rf"(?:用|以)(?:中文|汉语|漢語|普通话){_SAID_HOW}|(?:中文|汉语)(?:回答|回复|作答)|中国語で"),
    "en": re.compile(rf"(?:用|以)(?:英文|英语|英語){_SAID_HOW}|(?:英文|英语)(?:回答|回复|作答)|英語で"),
}
_ASKED_IN_LATIN = {
    "zh": re.compile(r"\b(?:in|en|auf|em) (?:chinese|chinois|chinesisch|chino|cinese|chinês)\b", re.IGNORECASE),
    "en": re.compile(r"\b(?:in|en|auf|em) (?:english|anglais|englisch|inglés|ingles|inglese|inglês)\b|"
                     r"\benglish,? please\b", re.IGNORECASE),
}
_ASKS_A_REPLY = re.compile(r"answer|reply|respond|write|please|\bagain\b|\brepeat\b|répon|antwort|contest|"
                           r"escrib|bitte|por favor|s'il vous", re.IGNORECASE)


def requested(question: str) -> str | None:
    """The fully served language the question asks the reply in, if it asks for one."""
    for code in FULLY_SERVED:
        if _ASKED_IN_CJK[code].search(question):
            return code
    for code in FULLY_SERVED:
        if _ASKED_IN_LATIN[code].search(question) and _ASKS_A_REPLY.search(question):
            return code
    return None


def latin_language(text: str) -> str:
    """The language of a text in Latin letters by the words any question uses alone (no domain's)."""
    return _latin_language(text, {})


def _latin_language(text: str, domain_words: dict[str, frozenset[str]]) -> str:
    words = _WORD.findall(text.lower())
    english_markers = _ENGLISH_MARKERS | domain_words.get("en", frozenset())
    english = sum(word in english_markers for word in words)
    best, hits = max(((code, sum(word in markers | domain_words.get(code, frozenset()) for word in words))
                      for code, markers in _LATIN_MARKERS.items()), key=lambda pair: pair[1])
    # Accented letters are a strong sign on their own; short English questions share a few words with others.
    accents = len(re.findall(r"[à-ÿ]", text.lower()))
    return best if hits > english or (accents and hits >= english) else "en"


def in_another_script(value: str, text: str) -> bool:
    """Whether `text` uses a script `value` is not written in, so that `value` may translate a name it writes
    there: "香港" for "Hong Kong, today?", "Moscow" for "Москва: what's it like now?". Not "Paris" for
    "What is the capital of France?", nor a placeholder ("your_city" for "帮我把“你好”翻译成英文")."""
    scripts = _scripts(value)
    return bool(scripts) and bool(_scripts(text) - scripts) and not _PLACEHOLDER.search(value)


# What a model writes where it has no value: identifiers, not names.
_PLACEHOLDER = re.compile(r"_|<|>|\{|\}|\byour\b|\bunknown\b|\bplaceholder\b", re.IGNORECASE)


_SCRIPTS = {"han": _HAN, "hiragana": _HIRAGANA, "katakana": _KATAKANA, "hangul": _HANGUL, "cyrillic": _CYRILLIC,
            "arabic": _ARABIC, "greek": _GREEK, "latin": _LATIN}


def _scripts(text: str) -> set[str]:
    return {script for script, pattern in _SCRIPTS.items() if pattern.search(text)}


def name(code: str) -> str:
    """The English name of a language code, as a prompt says it ("Answer in Chinese")."""
    return NAMES.get(code, "English")


def locale(code: str) -> str:
    """The locale a tool call asks for: servers word their results in it when they can."""
    return {"zh": "zh-CN", "en": "en"}.get(code, code)


def same_language(reply: str, expected: str, vocabulary: Vocabulary) -> bool:
    """Whether `reply` is written in `expected` (a Japanese reply needs kana, not only kanji)."""
    return detect(reply, vocabulary) == expected


def capitalized(statement: str, language: str) -> str:
    """The statement, stripped, with a capital first letter where the language has capitals."""
    text = statement.strip()
    return text if language == "zh" else text[:1].upper() + text[1:]


# Said when a question is in a language the assistant cannot yet answer in: the answer follows in English.
_ENGLISH_FOLLOWS = {
    "ja": "（日本語でうまくお答えできないため、英語でお答えします。）",
    "ko": "(한국어로 답변드리기 어려워 영어로 답변드립니다.)",
    "fr": "(Je ne peux pas encore répondre en français ; voici la réponse en anglais.)",
    "de": "(Ich kann noch nicht auf Deutsch antworten; hier ist die Antwort auf Englisch.)",
    "es": "(Todavía no puedo responder en español; aquí está la respuesta en inglés.)",
    "it": "(Non posso ancora rispondere in italiano; ecco la risposta in inglese.)",
    "pt": "(Ainda não consigo responder em português; segue a resposta em inglês.)",
    "ru": "(Пока я не могу ответить по-русски, поэтому отвечаю по-английски.)",
}


def english_follows(language: str) -> str:
    """The note before an English answer to a question in another language."""
    return _ENGLISH_FOLLOWS.get(language, "(I cannot answer in your language yet, so here is the answer in English.)")


def in_simplified(text: str) -> str:
    """The text with traditional Chinese characters written simplified ("這週五阿里山會開嗎" as "这周五阿里山会开吗"), so
    that the gateway's word lists, which are written simplified, read a question typed in either; any other text
    as it is."""
    return _to_simplified().convert(text) if _HAN.search(text) else text


@functools.cache
def _to_simplified() -> Any:
    # Imported on first use: the converter loads its dictionaries.
    from opencc import OpenCC

    return OpenCC("t2s")

