"""Which language a text is in, by script and, for Latin text, by common words; what to call it in prompts.

Chinese and English are fully served (the weather server words its results in both). Other languages are
answered in their own language when the model manages it, else in English with a note (see compose.py).
"""

from __future__ import annotations

import re

_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_ARABIC = re.compile(r"[\u0600-\u06ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_WORD = re.compile(r"[a-zà-ÿ']+")

# A few words each language uses in almost every question, and English does not.
_LATIN_MARKERS = {
    "fr": {"le", "la", "les", "est", "quel", "quelle", "il", "fait", "demain", "temps", "aujourd'hui", "pleuvoir",
           "à", "du", "des", "va"},
    "de": {"der", "die", "das", "ist", "wie", "wird", "morgen", "wetter", "heute", "es", "regnet", "in", "und"},
    "es": {"el", "la", "los", "qué", "que", "tiempo", "mañana", "hace", "hoy", "va", "llover", "en", "cómo"},
    "it": {"il", "che", "tempo", "domani", "fa", "oggi", "piove", "com'è", "come", "della"},
    "pt": {"o", "que", "tempo", "amanhã", "hoje", "vai", "chover", "como", "está", "em"},
}
_ENGLISH_MARKERS = {"the", "is", "what", "will", "weather", "in", "tomorrow", "today", "it", "how", "rain", "and",
                    "which", "are", "of", "for", "to", "me", "a", "be", "at", "on", "do", "does", "should"}

NAMES = {"zh": "Chinese", "en": "English", "ja": "Japanese", "ko": "Korean", "fr": "French", "de": "German",
         "es": "Spanish", "it": "Italian", "pt": "Portuguese", "ru": "Russian", "ar": "Arabic"}
FULLY_SERVED = ("zh", "en")


def detect(text: str) -> str:
    """The language code of `text`: by script for zh, ja, ko, ru, ar; by common words among Latin ones.

    Shares, not presence: an English answer may quote "北京", a Chinese one "°C" or "UV".
    """
    kana, han, hangul = len(_KANA.findall(text)), len(_HAN.findall(text)), len(_HANGUL.findall(text))
    latin = len(_LATIN.findall(text))
    if kana and kana + han >= 0.3 * (kana + han + latin):
        return "ja"
    if hangul and hangul >= 0.3 * (hangul + latin):
        return "ko"
    if han and han >= 0.3 * (han + latin):
        return "zh"
    if len(_CYRILLIC.findall(text)) > latin:
        return "ru"
    if len(_ARABIC.findall(text)) > latin:
        return "ar"
    return _latin_language(text)


def _latin_language(text: str) -> str:
    words = _WORD.findall(text.lower())
    english = sum(word in _ENGLISH_MARKERS for word in words)
    best, hits = max(((code, sum(word in markers for word in words)) for code, markers in _LATIN_MARKERS.items()),
                     key=lambda pair: pair[1])
    # Accented letters are a strong sign on their own; short English questions share a few words with others.
    accents = len(re.findall(r"[à-ÿ]", text.lower()))
    return best if hits > english or (accents and hits >= english) else "en"


def name(code: str) -> str:
    """The English name of a language code, as a prompt says it ("Answer in Chinese")."""
    return NAMES.get(code, "English")


def locale(code: str) -> str:
    """The locale a tool call asks for: servers word their results in it when they can."""
    return {"zh": "zh-CN", "en": "en"}.get(code, code)


def same_language(reply: str, expected: str) -> bool:
    """Whether `reply` is written in `expected` (a Japanese reply needs kana, not only kanji)."""
    return detect(reply) == expected
