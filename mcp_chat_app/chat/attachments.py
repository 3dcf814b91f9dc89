"""Resources the user attached to a turn: read by the gateway before the turn, given to the writer as the user's
own material (never as a tool result), each cut to a size a small model's context holds.

A long one is cut with a note rather than refused (413): the user picked it from a list without seeing its size,
and its beginning is usually what they mean.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_chat_app.mcp_client.resources import ResourceRead

MAX_ATTACHED_CHARS = 3000  # of each attachment's text: a few attachments leave the writer room for its rules


@dataclass(frozen=True)
class Attachment:
    """An attached resource's text, as the writer reads it."""

    server: str
    uri: str
    text: str  # cut to MAX_ATTACHED_CHARS, with a note where it was cut

    @classmethod
    def of(cls, read: ResourceRead) -> Attachment:
        text = read.text
        if len(text) > MAX_ATTACHED_CHARS:
            text = f"{text[:MAX_ATTACHED_CHARS]}\n[cut here: the first {MAX_ATTACHED_CHARS} of {len(text)} characters]"
        return cls(read.server, read.uri, text)

    @property
    def writer_text(self) -> str:
        """Marked as the user's: a model takes unmarked text beside tool results for one more result."""
        return f"Attached by the user (their own material, not a tool result), {self.uri} from {self.server}:\n" \
               f"{self.text}\n(end of the attachment)"
