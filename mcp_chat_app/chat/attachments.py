"""Resources the user attached to a turn: read by the gateway before the turn, given to the writer as the user's
own material (never as a tool result), each cut to a size a small model's context holds.

A long one is cut with a note rather than refused (413): the user picked it from a list without seeing its size,
and its beginning is usually what they mean.

The references (server, URI, type) are stored with the question, so a follow-up ("and what does it say about
Friday?") is answered with them too: the attachments of the earlier questions still in the turn's history are
read again (they may have changed), newest first; one that can no longer be read is left out with a notice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_chat_app.mcp_client.resources import ResourceRead

MAX_ATTACHED_CHARS = 3000  # of each attachment's text: a few attachments leave the writer room for its rules
_MARK = "Attached by the user (their own material, not a tool result)"


@dataclass(frozen=True)
class Attachment:
    """An attached resource's text, as the writer reads it."""

    server: str
    uri: str
    text: str  # cut to MAX_ATTACHED_CHARS, with a note where it was cut
    mime: str | None = None
    earlier: bool = False  # attached to an earlier question of the conversation, read again for this one

    @classmethod
    def of(cls, read: ResourceRead, earlier: bool = False) -> Attachment:
        text = read.text
        if len(text) > MAX_ATTACHED_CHARS:
            text = f"{text[:MAX_ATTACHED_CHARS]}\n[cut here: the first {MAX_ATTACHED_CHARS} of {len(text)} characters]"
        mime = next((part.mime_type for part in read.parts if part.mime_type), None)
        return cls(read.server, read.uri, text, mime, earlier)

    @property
    def reference(self) -> dict[str, str]:
        """What the history keeps of it with the question: enough to read it again, and to show it."""
        return {"server": self.server, "uri": self.uri, **({"mime": self.mime} if self.mime else {})}

    @property
    def writer_text(self) -> str:
        """Marked as the user's: a model takes unmarked text beside tool results for one more result."""
        when = " to an earlier question" if self.earlier else ""
        return f"{_MARK}{when}, {self.uri} from {self.server}:\n{self.text}\n(end of the attachment)"


@dataclass(frozen=True)
class Unread:
    """An attachment of an earlier question that could not be read again: the turn goes on without it."""

    server: str
    uri: str
    reason: str


def earlier_references(history: list[dict[str, Any]], attached: list[dict[str, str]],
                       room: int) -> list[dict[str, str]]:
    """The resources attached to the questions in `history`, newest first, each once and none of `attached` (this
    turn's own); at most `room`."""
    seen = {(ref["server"], ref["uri"]) for ref in attached}
    found: list[dict[str, str]] = []
    for message in reversed(history):
        for ref in message.get("attachments", []) if message["role"] == "user" else []:
            if len(found) < room and (ref["server"], ref["uri"]) not in seen:
                seen.add((ref["server"], ref["uri"]))
                found.append(ref)
    return found
