"""Write: the writer model's answer from the facts (or the router's, when the same model already streamed one),
and its corrective retry; nothing is written for a long list (shown as the server words it) or when every call
failed; a question no tool answered keeps the answer routing gave it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcp_chat_app.chat.facts import Facts
from mcp_chat_app.chat.route import Routed
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.chat.text.repetition import repeated_piece
from mcp_chat_app.chat.verify import passes_so_far
from mcp_chat_app.chat.write_prompt import CITES_A_FIGURE, fixed_part, retry_messages, writer_messages
from mcp_chat_app.llm.client import ChatTurn, LlmClient


@dataclass(frozen=True)
class Draft:
    """An answer to check: `kind` "own" (no tool result behind it), "written" (from the facts), or nothing written:
    "listed" (a long list, shown as the server words it), "lacking" (the results hold nothing the question asks
    for) or "failed" (every call failed)."""

    kind: str
    text: str = ""
    messages: tuple[dict[str, str], ...] = ()  # the writer's conversation, for the retry
    attempt: int = 1
    rules_before: frozenset[str] = frozenset()  # the rules the drafts it replaced broke
    tools_offered: bool = True  # (own) whether the question went to a router with tools
    llm_ms: float = 0.0


def write(turn: Turn, writer: LlmClient, routed: Routed, facts: Facts) -> Draft:
    """The draft answer to the question from its facts."""
    if routed.own_answer:
        return Draft("own", routed.answer, tools_offered=bool(routed.tools))
    if not facts.findings:
        return Draft("failed")  # a model would answer anyway, from nothing
    if facts.hold_nothing_asked:
        return Draft("lacking")  # a model would answer with the figures found, of something else
    limit = writer.endpoint.max_written_records
    if not routed.answer and limit is not None and facts.records_listed > limit \
            and turn.language in languages.FULLY_SERVED:
        # A long list (of days, of places) is shown as the server words it: a small writer summarising it gets
        # days wrong, and copying it costs seconds for nothing.
        return Draft("listed")
    messages = tuple(writer_messages(turn.assistant, turn.question, facts, turn.language, turn.earlier_question,
                                     facts.lead))
    if routed.answer:
        return Draft("written", routed.answer, messages)
    reply = _written(turn, writer, list(messages), facts)
    return Draft("written", reply.content.strip(), messages, llm_ms=reply.duration_ms)


def rewrite(turn: Turn, writer: LlmClient, facts: Facts, draft: Draft, reasons: list[str],
            rules: frozenset[str]) -> Draft:
    """The writer's second draft, told why the first cannot be used (`reasons`; `rules`: those it broke). After a
    loop it need not cite a figure first: held to one, a model that has none to hand lists clauses round and round."""
    reply = _written(turn, writer, retry_messages(list(draft.messages), draft.text, reasons), facts,
                     figure_first="repetition" not in rules)
    return Draft("written", reply.content.strip(), draft.messages, attempt=draft.attempt + 1, rules_before=rules,
                 llm_ms=draft.llm_ms + reply.duration_ms)


def _written(turn: Turn, writer: LlmClient, messages: list[dict[str, str]], facts: Facts,
             figure_first: bool = True) -> ChatTurn:
    """The writer's answer, streamed as far as it passes the check and stopped once it loops; a backend with
    constrained decoding is held to begin with the verdict and (`figure_first`) to cite a figure in its first
    sentence."""
    regex = None
    cites = figure_first and facts.numbers_of_data
    if writer.endpoint.structured_outputs and (facts.lead or cites):
        # A bare "yes" leaves out what the user needs (how much, how likely); small models write it often, and a
        # figure in the data is then what they go on with once they may not stop without one.
        regex = _literal(facts.lead) + (CITES_A_FIGURE if cites else r"[\s\S]*")
    # Everything before the question (rules and worked examples) holds no user data: shared across users.
    return writer.chat(messages, on_token=turn.stream(passes_so_far(turn, facts)), regex=regex,
                       shared=fixed_part(turn.assistant), cancellation=turn.cancellation,
                       stop_when=lambda text: repeated_piece(text) is not None)


def _literal(text: str) -> str:
    """`text` as a regex matching itself (spaces unescaped: the backend's regex reader takes "\\ " for an error)."""
    return re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\1", text)
