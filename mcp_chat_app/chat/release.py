"""Verified streaming: a model's answer reaches a streaming client only as far as the check has passed it.

The check (verify.py) reads a reply, but waiting for the whole reply before showing any of it costs the user the
whole generation. So the text written so far is checked each time a sentence ends, and shown up to there when it
passes. A rule the text so far breaks is either broken for good (a figure, day or name the facts lack, a tool
dump, another language, a wrong yes or no, a contradiction) or mended only by what follows (a refusal, then the
figures): either way that text has not passed, so it and everything after it is held. Holding never decides:
the whole check at the end does, exactly as for a JSON request. A draft that passes then shows what was held;
one that fails is never shown further, and what it showed is withdrawn (`rewrite`) before the replacement.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp_chat_app.chat.turn import EventSink

# A Chinese full stop, exclamation or question mark, or a line break, ends a sentence where it stands. A Latin one
# only once whitespace follows it (after any closing quote or bracket): "3." may still become "3.5".
_SENTENCE_END = re.compile(r"[。！？\n]|[.!?][)\]\"'”’]*(?=\s)")
# The word before a full stop that does not end a sentence: "e.g.", "a.m.", "U.S.", "approx.".
_ABBREVIATION = re.compile(r"(?:\b[A-Za-z]\.[A-Za-z]|\b(?:Mr|Mrs|Ms|Dr|Prof|St|vs|etc|approx|ca|incl|esp))\.$",
                           re.IGNORECASE)


def sentences_end(text: str) -> int:
    """Where the text's last complete sentence ends (0 when none has ended yet)."""
    end = 0
    for match in _SENTENCE_END.finditer(text):
        if not (match.group().startswith(".") and _ABBREVIATION.search(text[:match.start() + 1])):
            end = match.end()
    return end


class Shown:
    """What a streaming client has been shown of the answer being written, and the text held back from it."""

    def __init__(self, emit: EventSink) -> None:
        self._emit = emit
        self._passes: Callable[[str], bool] = lambda text: False
        self._text = ""
        self._shown = 0  # characters of `_text` the client has
        self._held = False  # the text so far failed: nothing more is shown before the whole check

    def start(self, passes: Callable[[str], bool]) -> Callable[[str], None]:
        """A new text, shown as far as `passes` (the check of the text so far) lets it: the sink for its tokens.
        Whatever an earlier text showed is withdrawn: this one replaces it."""
        self.discard()
        self._passes = passes
        return self._write

    def accept(self) -> None:
        """The whole text passed its check: what is left of it is shown."""
        if self._text[self._shown:]:
            self._emit("token", {"text": self._text[self._shown:]})
        self._clear()

    def discard(self, problems: list[str] | None = None) -> None:
        """The text is not the answer (`problems`: the rules it broke): what it showed is withdrawn."""
        if self._shown:
            self._emit("rewrite", {"problems": problems or []})
        self._clear()

    def _write(self, token: str) -> None:
        self._text += token
        if self._held:
            return
        end = sentences_end(self._text)
        if end <= self._shown:
            return
        if not self._passes(self._text[:end]):
            self._held = True
            return
        self._emit("token", {"text": self._text[self._shown:end]})
        self._shown = end

    def _clear(self) -> None:
        self._text, self._shown, self._held = "", 0, False
