"""One conversation as a file to keep: JSON (the stored turns, media links made absolute) or Markdown (the turns
as a person reads them, with the questions' attachments and the answers' notices, charts, audio, files and
links)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from mcp_chat_app.history.store import DEFAULT_CONVERSATION, Conversation, Message


def export_title(conversation: Conversation) -> str:
    return conversation["title"] or ("Main chat" if conversation["id"] == DEFAULT_CONVERSATION else "Untitled chat")


def exported_messages(messages: list[Message], base_url: str) -> list[Message]:
    """The turns with every `/media/...` URL (images, audio, files) made absolute on `base_url`."""
    return [{**message, **{key: [_absolute(item, base_url) for item in message[key]]
                           for key in ("images", "media") if key in message}} for message in messages]


def conversation_json(conversation: Conversation, messages: list[Message], base_url: str) -> dict[str, Any]:
    return {**conversation, "title": export_title(conversation), "exported_at": _now().timestamp(),
            "messages": exported_messages(messages, base_url)}


def conversation_markdown(conversation: Conversation, messages: list[Message], base_url: str) -> str:
    lines = [f"# {export_title(conversation)}", "",
             f"*Conversation `{conversation['id']}`, exported {_now():%Y-%m-%d %H:%M} UTC*", ""]
    for message in exported_messages(messages, base_url):
        if message["role"] == "user":
            lines += [f"**You:** {message['content']}", ""]
            attached = [_attached_line(ref) for ref in message.get("attachments", [])]
            lines += [*attached, ""] if attached else []
            continue
        text = message["content"]
        for notice in message.get("notices", []):  # the answer ends with them: shown as a quote instead
            text = text.replace(notice["text"], "")
        lines += [f"**Assistant:** {text.strip()}", ""]
        # Each kind its own block: a line right after a quote would join the quote.
        for block in ([f"> {notice['text']}" for notice in message.get("notices", [])],
                      [f"![{image.get('alt') or 'chart'}]({image['url']})" for image in message.get("images", [])],
                      [_media_line(item) for item in message.get("media", [])]):
            lines += [*block, ""] if block else []
    return "\n".join(lines)


def _attached_line(ref: dict[str, Any]) -> str:
    return f"- Attached: `{ref['uri']}` ({ref.get('mime') or 'resource'}, from {ref['server']})"


def _media_line(item: dict[str, Any]) -> str:
    kind = item.get("kind")
    if kind == "link":
        return f"- Link: {item['name']} `{item['uri']}` ({item.get('mime') or 'resource'}, from {item['server']})"
    return f"- {'Audio' if kind == 'audio' else 'File'}: [{item['name']}]({item['url']}) ({item.get('mime', '')})"


def _absolute(item: dict[str, Any], base_url: str) -> dict[str, Any]:
    url = item.get("url")
    return {**item, "url": base_url.rstrip("/") + url} if isinstance(url, str) and url.startswith("/") else item


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)
