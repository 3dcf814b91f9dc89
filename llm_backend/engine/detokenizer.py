"""Incremental, UTF-8-safe detokenization with stop strings.

A multi-byte character (Chinese, emoji) is often split over several byte-level tokens;
decoding them one by one would emit U+FFFD. Each step decodes a short window of
recent tokens twice (with and without the new one) and only emits text once the window
no longer ends in an incomplete character. Text that could still turn out to be the
start of a stop string is held back until it cannot, so a stop string never leaks.
"""
from __future__ import annotations

from collections.abc import Callable

REPLACEMENT_CHAR = "\ufffd"
# Prompt tokens decoded along with the first new ones, so that tokenizers that drop a
# leading space when a text starts with a token still decode it.
PROMPT_CONTEXT_TOKENS = 4


class IncrementalDetokenizer:
    def __init__(self, decode: Callable[[list[int]], str], prompt_token_ids: list[int],
                 stop: list[str], include_stop_str_in_output: bool = False) -> None:
        self._decode = decode
        self._tokens = list(prompt_token_ids[-PROMPT_CONTEXT_TOKENS:])
        self._prefix_offset = 0  # window start
        self._read_offset = len(self._tokens)  # tokens before this are already in output_text
        self._stop = stop
        self._include_stop = include_stop_str_in_output
        self._holdback = max((len(s) for s in stop), default=1) - 1
        self._emitted = 0
        self.output_text = ""

    def add_token(self, token_id: int) -> str | None:
        """Append a generated token; returns the stop string it completed, if any."""
        self._tokens.append(token_id)
        before = self._decode(self._tokens[self._prefix_offset:self._read_offset])
        after = self._decode(self._tokens[self._prefix_offset:])
        if len(after) <= len(before) or after.endswith(REPLACEMENT_CHAR):
            return None  # an incomplete character: wait for the next token
        old_length = len(self.output_text)
        self.output_text += after[len(before):]
        self._prefix_offset = self._read_offset
        self._read_offset = len(self._tokens)
        return self._find_stop(old_length)

    def _find_stop(self, old_length: int) -> str | None:
        best: tuple[int, str] | None = None
        for stop in self._stop:
            index = self.output_text.find(stop, max(0, old_length - len(stop) + 1))
            if index >= 0 and (best is None or index < best[0]):
                best = (index, stop)
        if best is None:
            return None
        index, stop = best
        self.output_text = self.output_text[:index + len(stop) if self._include_stop else index]
        return stop

    def take_new_text(self, finished: bool) -> str:
        """Text not yet handed out, minus what might still become a stop string."""
        end = len(self.output_text) if finished else len(self.output_text) - self._holdback
        end = max(end, self._emitted)
        text = self.output_text[self._emitted:end]
        self._emitted = end
        return text
