"""Turning generated text into OpenAI `tool_calls`, incrementally.

The model writes Hermes/Qwen2.5 blocks: `<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>`.
`ToolCallParser.feed` consumes text deltas as they are decoded and yields OpenAI-shaped
deltas: content text, the start of a call (id + name) and argument fragments. The
non-streaming path feeds the whole text at once, so both paths produce identical calls:
the concatenated fragments always equal the final `arguments` string.
"""
from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass

OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"
_HEADER = re.compile(r'\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"arguments"\s*:\s*(?=\S)')


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


def _final_arguments(args_text: str) -> str:
    """The arguments JSON value at the start of `args_text` (which ends with the outer '}')."""
    try:
        _, end = json.JSONDecoder().raw_decode(args_text)
        return args_text[:end]
    except json.JSONDecodeError:  # unconstrained output: keep what the model wrote
        return _streamable_prefix(args_text)


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
        self._in_call = False
        self._call_open = False  # the header (name) has been parsed
        self._args_sent = 0
        self._pending_space = ""

    def feed(self, text: str) -> list[Delta]:
        self._buffer += text
        deltas: list[Delta] = []
        while self._step(deltas):
            pass
        return deltas

    def finish(self) -> list[Delta]:
        """Flush at the end of generation (a call cut short by max_tokens keeps its partial text)."""
        deltas: list[Delta] = []
        if self._in_call and self._call_open:
            call = self.calls[-1]
            rest = self._buffer[self._args_sent:]
            call.arguments += rest
            if rest:
                deltas.append(Delta(index=len(self.calls) - 1, arguments=rest))
        elif self._in_call:
            self._emit_content(OPEN_TAG + self._buffer, deltas)
        else:
            self._emit_content(self._buffer, deltas)
        if not self.calls and self._pending_space:
            deltas.append(Delta(content=self._pending_space))
        self._buffer, self._pending_space = "", ""
        return deltas

    def _step(self, deltas: list[Delta]) -> bool:
        """Consume what can be decided from the buffer; True if another step may make progress."""
        if not self._in_call:
            start = self._buffer.find(OPEN_TAG)
            if start < 0:
                keep = _partial_suffix(self._buffer, OPEN_TAG)
                self._emit_content(self._buffer[:len(self._buffer) - keep], deltas)
                self._buffer = self._buffer[len(self._buffer) - keep:]
                return False
            self._emit_content(self._buffer[:start], deltas)
            self._buffer = self._buffer[start + len(OPEN_TAG):]
            self._in_call, self._call_open, self._args_sent = True, False, 0
            self._pending_space = ""
            return True
        if not self._call_open:
            return self._open_call(deltas)
        end = self._buffer.find(CLOSE_TAG)
        args_text = self._buffer if end < 0 else self._buffer[:end]
        ready = _streamable_prefix(args_text) if end < 0 else _final_arguments(args_text)
        call = self.calls[-1]
        if len(ready) > self._args_sent and ready.startswith(call.arguments):
            deltas.append(Delta(index=len(self.calls) - 1, arguments=ready[self._args_sent:]))
            call.arguments = ready
            self._args_sent = len(ready)
        if end < 0:
            return False
        self._buffer = self._buffer[end + len(CLOSE_TAG):]
        self._in_call = False
        return True

    def _open_call(self, deltas: list[Delta]) -> bool:
        header = _HEADER.match(self._buffer)
        if header is None:
            end = self._buffer.find(CLOSE_TAG)
            if end >= 0:  # not a call we can read: give the text back as content
                self._emit_content(OPEN_TAG + self._buffer[:end + len(CLOSE_TAG)], deltas)
                self._buffer = self._buffer[end + len(CLOSE_TAG):]
                self._in_call = False
                return True
            return False
        name = json.loads(f'"{header.group(1)}"')
        self.calls.append(ToolCall(id=f"call_{uuid.uuid4().hex[:24]}", name=name, arguments=""))
        deltas.append(Delta(index=len(self.calls) - 1, call_id=self.calls[-1].id, name=name))
        self._buffer = self._buffer[header.end():]
        self._call_open = True
        return True

    def _emit_content(self, text: str, deltas: list[Delta]) -> None:
        """Emit text, holding back whitespace that may only separate tool calls."""
        if not text:
            return
        if not text.strip():
            self._pending_space += text
            return
        deltas.append(Delta(content=self._pending_space + text))
        self._pending_space = ""


def parse_tool_calls(text: str) -> tuple[str | None, list[ToolCall]]:
    """Non-streaming: the reply's content (None when it is only calls) and its tool calls."""
    parser = ToolCallParser()
    deltas = parser.feed(text) + parser.finish()
    content = "".join(d.content for d in deltas if d.content is not None)
    if parser.calls and not content.strip():
        return None, parser.calls
    return content, parser.calls
