"""Notices: sentences the user must see beside an answer, appended to it and listed in the reply's `notices`: what
a tool result asks to be shown (`structuredContent.notice`, e.g. simulated data), a call not made for want of the
user's approval and how a client allows it, an earlier attachment that could not be read again."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcp_chat_app.chat.attachments import Unread
from mcp_chat_app.mcp_client.results import ToolOutcome


@dataclass(frozen=True)
class Notice:
    """A sentence the user must see beside the answer."""

    server: str
    text: str
    # "simulated" when the result says its data is simulated, "authorization" (where the user signs in to the
    # server), "approval" (a call not made for want of the user's approval), "attachment" (one not read again),
    # else "notice"
    kind: str
    details: dict[str, Any] = field(default_factory=dict)  # what a client acts on ("approval": tool, arguments, allow)

    def to_json(self) -> dict[str, Any]:
        return {"server": self.server, "kind": self.kind, "text": self.text, **self.details}


def result_notice(outcome: ToolOutcome) -> Notice | None:
    """The sentence a successful result's `structuredContent.notice` asks to be shown, if any."""
    content = outcome.structured_content
    if not isinstance(content, dict) or not isinstance(content.get("notice"), str) or not content["notice"].strip():
        return None
    kind = "simulated" if content.get("source") == "simulated" else "notice"
    return Notice(outcome.server, content["notice"].strip(), kind)


def approval_notice(outcome: ToolOutcome, language: str) -> Notice:
    """Which call was not made for want of the user's approval, with what, and how a client allows it."""
    allow = (outcome.structured_content or {}).get("allow")
    tool, server = outcome.tool, outcome.server
    if allow is None:  # the request asked about every call: no kept decision lets it through
        text = _say(language,
                    f'{tool} ({server}) was not run: this request asks before every call ("confirm_tools": true), and '
                    'without "stream": true it cannot ask you. Send it with "stream": true to decide each call, or '
                    'without "confirm_tools".',
                    f'{server} 的 {tool} 没有调用：这个请求要求每次调用前先问您（"confirm_tools": true），而不带 '
                    '"stream": true 的请求无法询问。请带 "stream": true 发送以逐个决定，或去掉 "confirm_tools"。')
    else:
        request = f"PUT {allow['path']} {json.dumps(allow['body'], ensure_ascii=False)}"
        text = _say(language,
                    f'{tool} ({server}) needs your approval before it runs, and a request without "stream": true '
                    f"cannot ask you. To allow it, send {request}, then ask again.",
                    f'{server} 的 {tool} 需要您先批准才能调用，而不带 "stream": true 的请求无法询问您。'
                    f"要允许它，请发送 {request}，然后再问一次。")
    return Notice(server, text, "approval", {"tool": tool, "arguments": outcome.arguments, "allow": allow})


def unread_notice(unread: Unread, language: str) -> Notice:
    """An earlier question's attachment this answer goes without, and why (in the server's or gateway's words)."""
    text = _say(language,
                f"{unread.uri} ({unread.server}), attached earlier, could not be read again, so this answer does not "
                f"use it: {unread.reason}",
                f"之前附加的 {unread.uri}（{unread.server}）无法重新读取，本次回答没有用到它：{unread.reason}")
    return Notice(unread.server, text, "attachment", {"uri": unread.uri})


def _say(language: str, en: str, zh: str) -> str:
    return zh if language == "zh" else en
