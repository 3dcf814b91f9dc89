"""One chat request, as every stage reads it: the question, the conversation before it, the language, the day,
the assistant it is asked of, the user's settings, and where its events go. Built once; no stage changes it
(only what a streaming client has been shown of the answer moves on, through `shown`)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp_chat_app.cancellation import Cancellation
from mcp_chat_app.chat import conversation
from mcp_chat_app.chat.assistant import Assistant
from mcp_chat_app.chat.attachments import Attachment, Unread
from mcp_chat_app.chat.release import Shown
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.vocabulary import Vocabulary
from mcp_chat_app.mcp_client.elicitation import Asker

EventSink = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class Turn:
    """A question in flight, with what its stages need to know about it."""

    question: str
    history: list[dict[str, Any]]  # the earlier turns as stored (an answer keeps its calls)
    assistant: Assistant
    language: str
    today: dt.date
    use_tools: bool = True
    units: str | None = None  # the user's unit system ("imperial"), for the servers that honour `_meta.units`
    emit: EventSink = lambda event, data: None
    streaming: bool = False  # someone listens to the events as they come
    cancellation: Cancellation = field(default_factory=Cancellation)
    asker: Asker | None = None  # relays the servers' questions to the user (a streaming request only)
    started: float = field(default_factory=time.perf_counter)
    attachments: tuple[Attachment, ...] = ()  # resources the user attached: the writer reads them
    unread: tuple[Unread, ...] = ()  # earlier questions' attachments that could not be read again (a notice each)
    shown: Shown = field(default_factory=lambda: Shown(lambda event, data: None))  # the answer, as far as checked

    @classmethod
    def start(cls, question: str, history: list[dict[str, Any]], assistant: Assistant, use_tools: bool = True,
              emit: EventSink | None = None, cancellation: Cancellation | None = None, asker: Asker | None = None,
              units: str | None = None, attachments: tuple[Attachment, ...] = (),
              unread: tuple[Unread, ...] = ()) -> Turn:
        sink = emit or (lambda event, data: None)
        question = languages.in_simplified(question)  # the word lists are written simplified: "週六呢" is 周六
        language = languages.requested(question) or _language(question, history, assistant)
        # A unit system the conversation asked for lately outranks the user's standing one ("and in the other unit?").
        said = [question, *(m["content"] for m in reversed(history) if m.get("role") == "user"
                            and isinstance(m.get("content"), str))]
        units = next(filter(None, map(assistant.vocabulary.unit_system, said)), units)
        return cls(question, history, assistant, language, dt.date.today(),
                   use_tools, units, sink, emit is not None, cancellation or Cancellation(), asker,
                   attachments=attachments, unread=unread, shown=Shown(sink))

    @property
    def vocabulary(self) -> Vocabulary:
        return self.assistant.vocabulary

    @property
    def plain_history(self) -> list[dict[str, str]]:
        return conversation.plain_turns(self.history)

    @property
    def earlier_question(self) -> str:
        return conversation.earlier_question(self.history)

    @property
    def earlier_calls(self) -> str:
        return conversation.earlier_calls(self.history)

    @property
    def asked(self) -> str:
        """The question and the one before it, as written: what a call's flags may come from."""
        return f"{self.earlier_question}\n{self.question}"

    def stream(self, passes: Callable[[str], bool]) -> Callable[[str], None] | None:
        """The sink for a model's new text, which the client is shown as far as `passes` (the check of the text
        so far) lets it; None when nobody listens: streaming is only worth its per-chunk cost then."""
        return self.shown.start(passes) if self.streaming else None


def _language(question: str, history: list[dict[str, Any]], assistant: Assistant) -> str:
    """The question's language, or for one that carries none of its own ("ok", "thx"), the conversation's: the
    language most of its user messages are in, the latest of them on a tie (a turn asked once in another language,
    to be forwarded, does not make it that language)."""
    if not languages.says_no_language(question):
        return languages.detect(question, assistant.vocabulary)
    said = [languages.detect(message["content"], assistant.vocabulary) for message in history
            if message.get("role") == "user" and isinstance(message.get("content"), str)
            and not languages.says_no_language(message["content"])]
    if not said:
        return languages.detect(question, assistant.vocabulary)
    return max(reversed(said), key=said.count)
