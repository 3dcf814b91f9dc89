"""Words that put a number below zero (零下五度, 负3度, 零下, below zero), spelled out for the router: asked "哪些城市在零下",
a small model searched below -10; given "零下 = below 0 °C", it searches below 0."""

from __future__ import annotations

import re

from mcp_chat_app.chat.text.clock import numeral

_NUMERALS = "零一二两三四五六七八九十"
_NEGATIVE = re.compile(rf"(?:零下|负)\s*(?P<n>\d+(?:\.\d+)?|[{_NUMERALS}]{{1,3}})\s*(?:度|°)")
_BELOW_ZERO = re.compile(rf"零下(?!\s*[\d{_NUMERALS}])|冰点以下|below (?:zero|freezing)|sub-?zero", re.IGNORECASE)


def below_zero_glosses(question: str) -> list[str]:
    """"零下五度 = -5 degrees" for each negative figure the question writes in words, "零下 = below 0" for a bare one."""
    glosses = []
    for match in _NEGATIVE.finditer(question):
        value = match["n"] if match["n"][0].isdigit() else numeral(match["n"])
        if value is not None:
            glosses.append(f"{match[0]} = -{value} degrees")
    glosses += [f"{match[0]} = below 0 °C" for match in _BELOW_ZERO.finditer(question)]
    return glosses
