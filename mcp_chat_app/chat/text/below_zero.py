"""Words that put a number below zero (零下五度, 负3度, 零下, below zero), spelled out for the router: asked "哪些城市在零下",
a small model searched below -10; given "零下 = below 0", it searches below 0."""

from __future__ import annotations

import re
from functools import lru_cache

from mcp_chat_app.chat.text.clock import numeral
from mcp_chat_app.chat.text.vocabulary import Vocabulary

_NUMERALS = "零一二两三四五六七八九十"
_BELOW_ZERO = re.compile(rf"零下(?!\s*[\d{_NUMERALS}])|冰点以下|below (?:zero|freezing)|sub-?zero", re.IGNORECASE)


@lru_cache(maxsize=8)
def _negative(unit_signs: tuple[str, ...]) -> re.Pattern[str]:
    """零下 or 负 before a figure and one of the domain's unit signs (a 负 before a figure alone may be anything),
    or before the first figure of a range the sign ends ("零下二十到零下十度")."""
    signs = "|".join(re.escape(sign) for sign in unit_signs) or "(?!)"
    figure = rf"(?:\d+(?:\.\d+)?|[{_NUMERALS}]{{1,3}})"
    return re.compile(rf"(?:零下|负)\s*(?P<n>{figure})\s*(?:(?:{signs})|(?=(?:到|至|~|～|-|—)\s*(?:零下|负)?\s*{figure}\s*"
                      rf"(?:{signs})))")


def below_zero_glosses(question: str, vocabulary: Vocabulary) -> list[str]:
    """"零下五度 = -5" for each negative figure the question writes in words, "零下 = below 0" for a bare one."""
    glosses = []
    for match in _negative(vocabulary.unit_signs).finditer(question):
        value = match["n"] if match["n"][0].isdigit() else numeral(match["n"])
        if value is not None:
            glosses.append(f"{match[0]} = -{value}")
    glosses += [f"{match[0]} = below 0" for match in _BELOW_ZERO.finditer(question)]
    return glosses
