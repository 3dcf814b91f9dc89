"""Chat messages -> prompt text, through the model's own chat template.

OpenAI messages differ from what Jinja chat templates expect in small ways (content
parts, `null` content, the `developer` role); this module irons those out. The
tokenizer (`llm_backend.weights`) supplies a tool-aware template for every model.
"""
from __future__ import annotations

from typing import Any

from llm_backend.server.errors import bad_request
from llm_backend.server.protocol import ChatMessage


def render_chat(tokenizer: Any, messages: list[ChatMessage], tools: list[dict] | None,
                add_generation_prompt: bool = True) -> str:
    """The prompt text for `messages` (and `tools`, when the model may call them)."""
    rendered = [_template_message(m) for m in messages]
    try:
        return tokenizer.apply_chat_template(rendered, tools=tools or None,
                                             add_generation_prompt=add_generation_prompt)
    except Exception as exc:  # the template's own complaint (jinja2 raise_exception) is the message
        raise bad_request(f"messages: the chat template rejected them: {exc}",
                          param="messages") from exc


def _text(content: str | list[dict] | None) -> str:
    """Message content as text; OpenAI content parts keep their text parts only."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if part.get("type") != "text":
            raise bad_request(f"messages: content part type {part.get('type')!r} is not "
                              "supported (text only).", param="messages")
        parts.append(str(part.get("text", "")))
    return "".join(parts)


def _template_message(message: ChatMessage) -> dict:
    role = "system" if message.role == "developer" else message.role
    rendered: dict = {"role": role, "content": _text(message.content)}
    if message.tool_calls:
        rendered["tool_calls"] = [call.model_dump() for call in message.tool_calls]
    if message.role == "tool" and message.tool_call_id:
        rendered["tool_call_id"] = message.tool_call_id
    if message.name:
        rendered["name"] = message.name
    return rendered
