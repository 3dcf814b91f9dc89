"""The language a tool call is answered in: the client's `_meta.locale` ("zh-CN", "en"), English by default.

Set once per call by the tool layer; the wording of results and errors reads it, so the place resolver and the
service need not pass it around. A context variable is per task, so concurrent calls do not mix languages.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any, Literal

Language = Literal["en", "zh"]
LOCALE_META_KEY = "locale"

_current: ContextVar[Language] = ContextVar("language", default="en")


def use_locale(meta: Mapping[str, Any] | None) -> None:
    """Answer this call in the locale the client asked for; anything but Chinese gets English."""
    locale = meta.get(LOCALE_META_KEY) if meta else None
    _current.set("zh" if isinstance(locale, str) and locale.lower().startswith("zh") else "en")


def current() -> Language:
    """The language of the call being served."""
    return _current.get()


def pick(en: str, zh: str) -> str:
    """The text in the current language."""
    return zh if current() == "zh" else en
