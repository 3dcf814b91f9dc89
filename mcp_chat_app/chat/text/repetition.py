"""A model looping: a clause said three times or more ("济州烤鱼片、济州烤鱼片、…"), or begun the same way again and
again with words of its own ("注意交通安全，避免交通事故，注意饮食健康，…"), and the reply before it."""

from __future__ import annotations

import re

_PIECE = re.compile(r"[，。,.;；、\n]")
# A clause's opening: its first two characters in Chinese (after a joining word: "但注意…"), else its first word.
_OPENING = re.compile(r"^(?:[但并而且还要请和及](?=[\u4e00-\u9fff]{2}))?([\u4e00-\u9fff]{2}|[^\W\d_]+)")
# So many clauses without a figure, begun the same way and found nowhere in the data, are a list the model makes
# up as it goes: a list the data gives ("sunrise 06:35; … sunrise 06:36") has figures, or is in the data.
_LOOPING_OPENINGS = 4


def repeated_piece(reply: str) -> str | None:
    """A clause said three times or more: a model looping."""
    pieces = [piece.strip() for piece in _PIECE.split(reply) if len(piece.strip()) >= 4]
    return next((piece for piece in pieces if pieces.count(piece) >= 3), None)


def looping_opening(reply: str, known: str) -> str | None:
    """The opening of clauses the reply keeps beginning the same way, each without a figure and said nowhere in
    `known` (the question and the data): a model drifting into advice of its own ("注意心理健康，避免心理疾病，…")."""
    openings: dict[str, int] = {}
    for piece in (piece.strip() for piece in _PIECE.split(reply)):
        opening = _OPENING.match(piece)
        if opening and not re.search(r"\d", piece) and piece.lower() not in known.lower():
            word = opening[1].lower()
            openings[word] = openings.get(word, 0) + 1
    return next((word for word, count in openings.items() if count >= _LOOPING_OPENINGS), None)


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
