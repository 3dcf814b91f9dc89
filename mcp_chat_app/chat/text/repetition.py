"""A model looping: a clause said three times or more ("济州烤鱼片、济州烤鱼片、…"), and the reply before it."""

from __future__ import annotations

import re

_PIECE = re.compile(r"[，。,.;；、\n]")


def repeated_piece(reply: str) -> str | None:
    """A clause said three times or more: a model looping."""
    pieces = [piece.strip() for piece in _PIECE.split(reply) if len(piece.strip()) >= 4]
    return next((piece for piece in pieces if pieces.count(piece) >= 3), None)


def before_repetition(reply: str) -> str:
    """The reply up to the second time a clause said three times or more begins (a model looping to its token
    limit: "济州烤鱼片、济州烤鱼片、…"), ended as a sentence; the reply itself when it repeats nothing."""
    piece = repeated_piece(reply)
    if piece is None:
        return reply
    first = reply.find(piece)
    kept = reply[:reply.find(piece, first + len(piece))].rstrip(" ，,、;；\n")
    if not kept or kept[-1] in "。.!！?？":
        return kept
    return kept + ("。" if re.match(r"[\u3400-\u9fff]", kept[-1]) else ".")
