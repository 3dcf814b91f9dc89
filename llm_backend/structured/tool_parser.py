"""Turning generated text into OpenAI `tool_calls`, incrementally.

Two call syntaxes are read. The Hermes/Qwen2.5 one the chat templates ask for,
`<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>`, and the bare object
`{"name": "f", "arguments": {...}}` that small Qwen models write instead, compact or
pretty-printed (often inside a ```json fence, which is dropped). A bare object opens a call
only when it starts with one of `BARE_TRIGGERS`, the openers the grammar constrains, so any
call read here was also constrained; other JSON in the text stays text.

`ToolCallParser.feed` consumes text deltas as they are decoded and yields OpenAI-shaped
deltas: content text, the start of a call (id + name) and argument fragments. The
non-streaming path feeds the whole text at once, so both paths produce identical calls: the
fragments always add up to the final `arguments`. A call still open when generation ends
(cut off by max_tokens) is not a call: `finish` drops it from `calls`, records it as
`cut_call` and gives its raw text back as content. A stream has already sent that call's
start and fragments by then; its finish_reason (never "tool_calls") tells the client to
drop it, and the content it receives matches the non-streamed reply's.
"""
from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass

OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"
# What may separate a bare call's `{` from its `"name"` key: compact, and the pretty-printed
# shapes small models write (Qwen2.5-0.5B indents by two spaces).
BARE_INDENTS = ("", " ", "\n", "\n  ", "\n    ", "\n\t")
BARE_TRIGGERS = tuple(f'{{{indent}"name"' for indent in BARE_INDENTS)
_HEADER = re.compile(r'\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"arguments"\s*:\s*(?=\S)')
_BARE_START = re.compile("|".join(re.escape(trigger) for trigger in BARE_TRIGGERS))
# Whitespace and ```json fences that may only surround tool calls: held back at the end of text.
_TRAILING_FILLER = re.compile(r"[\s`]*(?:j(?:s(?:o(?:n)?)?)?)?[\s`]*\Z")


@dataclass
class Delta:
    """One piece of a streamed reply: content text, or part of tool call `index`."""

    content: str | None = None
    index: int | None = None
    call_id: str | None = None
    name: str | None = None
    arguments: str | None = None


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `tag`."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


def _undecided_suffix(text: str) -> int:
    """Length of the tail of `text` that may still grow into a call opener."""
    return max(_partial_suffix(text, opener) for opener in (OPEN_TAG, *BARE_TRIGGERS))


def _json_value_end(text: str) -> int | None:
    """End offset of the JSON value at the start of `text`, None if it is not complete (yet)."""
    try:
        return json.JSONDecoder().raw_decode(text)[1]
    except json.JSONDecodeError:
        return None


def _streamable_prefix(args_text: str) -> str:
    """`args_text` without what may still turn out to be the call's closing '}' and tag."""
    text = args_text[:len(args_text) - _partial_suffix(args_text, CLOSE_TAG)].rstrip()
    if text.endswith("}"):
        text = text[:-1].rstrip()
    return text


class ToolCallParser:
    """Incremental parser for one choice's text; see the module docstring."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []
        self._buffer = ""
        self._syntax: str | None = None  # None (text), "tagged" or "bare"
        self._call_open = False  # the header (name) has been parsed
        self._call_head = ""  # the raw text of the open call that has already left the buffer
        self.cut_call: ToolCall | None = None  # the call that was still open at the end
        self._args_sent = 0
        self._pending_filler = ""

    def feed(self, text: str) -> list[Delta]:
        self._buffer += text
        deltas: list[Delta] = []
        while self._step(deltas):
            pass
        return deltas

    def finish(self) -> list[Delta]:
        """Flush at the end of generation; a call still open becomes content (see module doc)."""
        deltas: list[Delta] = []
        text = self._buffer
        if self._syntax:
            if self._call_open:
                self.cut_call = self.calls.pop()
            text = self._call_head + text
        self._emit_content(text, deltas)
        if self._pending_filler and (not self.calls or self._syntax):
            deltas.append(Delta(content=self._pending_filler))
        self._buffer, self._pending_filler, self._syntax = "", "", None
        return deltas

    def _step(self, deltas: list[Delta]) -> bool:
        """Consume what can be decided from the buffer; True if another step may make progress."""
        if self._syntax is None:
            return self._find_call(deltas)
        if not self._call_open:
            return self._open_call(deltas)
        if self._syntax == "tagged":
            end = self._buffer.find(CLOSE_TAG)
            closed = end >= 0
            args_text = self._buffer[:end] if closed else self._buffer
            value_end = _json_value_end(args_text) if closed else None
            ready = args_text[:value_end] if value_end else _streamable_prefix(args_text)
            consumed = end + len(CLOSE_TAG)
        else:
            value_end = _json_value_end(self._buffer)
            after = self._buffer[value_end:] if value_end else ""
            closed = value_end is not None and after.lstrip().startswith("}")
            ready = self._buffer[:value_end] if closed else _streamable_prefix(self._buffer)
            consumed = len(self._buffer) - len(after.lstrip()) + 1 if closed else 0
        self._send_arguments(ready, deltas)
        if not closed:
            return False
        self._buffer = self._buffer[consumed:]
        self._syntax = None
        return True

    def _find_call(self, deltas: list[Delta]) -> bool:
        tagged = self._buffer.find(OPEN_TAG)
        bare = _BARE_START.search(self._buffer)
        starts = [(tagged, "tagged")] if tagged >= 0 else []
        starts += [(bare.start(), "bare")] if bare else []
        if not starts:
            keep = _undecided_suffix(self._buffer)
            self._emit_content(self._buffer[:len(self._buffer) - keep], deltas)
            self._buffer = self._buffer[len(self._buffer) - keep:]
            return False
        start, syntax = min(starts)
        self._emit_content(self._buffer[:start], deltas)
        self._call_head = OPEN_TAG if syntax == "tagged" else ""
        self._buffer = self._buffer[start + len(self._call_head):]
        self._syntax, self._call_open, self._args_sent = syntax, False, 0
        return True

    def _open_call(self, deltas: list[Delta]) -> bool:
        header = _HEADER.match(self._buffer)
        if header is None:
            end = self._buffer.find(CLOSE_TAG)
            if self._syntax == "tagged" and end >= 0:  # unreadable: give it back as text
                self._emit_content(self._call_head + self._buffer[:end + len(CLOSE_TAG)], deltas)
                self._buffer = self._buffer[end + len(CLOSE_TAG):]
                self._syntax = None
                return True
            return False
        name = json.loads(f'"{header.group(1)}"')
        self.calls.append(ToolCall(id=f"call_{uuid.uuid4().hex[:24]}", name=name, arguments=""))
        # The fence or whitespace held back before the call goes with it: dropped, or given
        # back as content if the call is cut off.
        self._call_head = self._pending_filler + self._call_head + header.group(0)
        self._pending_filler = ""
        deltas.append(Delta(index=len(self.calls) - 1, call_id=self.calls[-1].id, name=name))
        self._buffer = self._buffer[header.end():]
        self._call_open = True
        return True

    def _send_arguments(self, ready: str, deltas: list[Delta]) -> None:
        call = self.calls[-1]
        if len(ready) > self._args_sent and ready.startswith(call.arguments):
            deltas.append(Delta(index=len(self.calls) - 1, arguments=ready[self._args_sent:]))
            call.arguments = ready
            self._args_sent = len(ready)

    def _emit_content(self, text: str, deltas: list[Delta]) -> None:
        """Emit text, holding back whitespace and fences that may only surround tool calls."""
        text = self._pending_filler + text
        filler = _TRAILING_FILLER.search(text).start()
        if filler > 0:
            deltas.append(Delta(content=text[:filler]))
        self._pending_filler = text[filler:]


def parse_tool_calls(text: str) -> tuple[str | None, list[ToolCall]]:
    """Non-streaming: the reply's content (None when it is only calls) and its tool calls."""
    parser = ToolCallParser()
    deltas = parser.feed(text) + parser.finish()
    content = "".join(d.content for d in deltas if d.content is not None)
    if parser.calls and not content.strip():
        return None, parser.calls
    return content, parser.calls
