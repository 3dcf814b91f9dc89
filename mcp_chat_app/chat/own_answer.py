"""The assistant's own answer to a question no tool answers (or none can): its prompt and the writer model's
call. The route stage asks for it, when the router picks no tool."""

from __future__ import annotations

from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.llm.client import ChatTurn, LlmClient


def own_answer_messages(turn: Turn, tools_connected: bool) -> list[dict[str, str]]:
    """The assistant answers as itself: briefly, or, with no tool server connected, never with made-up data."""
    assistant = turn.assistant
    rules = "Answer briefly." if tools_connected else assistant.no_tools.rules
    system = f"{assistant.identity} {rules} Answer in {languages.name(turn.language)}."
    return [{"role": "system", "content": system}, *turn.plain_history, {"role": "user", "content": turn.question}]


def own_answer(turn: Turn, writer: LlmClient, tools_connected: bool) -> ChatTurn:
    """The writer's reply, streamed to whoever listens."""
    return writer.chat(own_answer_messages(turn, tools_connected), on_token=turn.token_sink,
                       cancellation=turn.cancellation)
