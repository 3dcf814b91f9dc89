"""`mcp-chat ask` under the same approval policy as the HTTP API (mcp_client/approval_policy.py): the same verdict
for each call, asked on the terminal instead of on a card.

At a terminal (stdin a TTY) a call the policy asks about is asked as "run <server>.<tool>(args)? [y]es once /
[a]lways / [n]o"; `always` keeps the rule where `PUT /chat/<user>/approvals/policy/<server>/<tool>` keeps it. Without
one nobody can be asked, so, as for a plain JSON request, the call is not made, and `not_run_lines` says which and how
to allow it. `--allow server/tool` allows a tool for this run only, as if it were always allowed (a kept denial still
wins). A tool's own questions (elicitation) are answered `cancel`, as before.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterable
from typing import Any, TextIO

from mcp_chat_app.chat.notices import Notice
from mcp_chat_app.mcp_client.approval_policy import ApprovalRules, Rule, RuleDecision, UserDecision
from mcp_chat_app.mcp_client.elicitation import CANCELLED, Elicitations, Emit, UnknownQuestion

_CHOICES = {"y": "once", "yes": "once", "a": "always", "always": "always", "n": None, "no": None}


class AllowedThisRun:
    """The user's kept rules (an ApprovalRules), plus an "always" allow for each tool named with `--allow`, held
    for this run only: what is remembered goes to the kept rules."""

    def __init__(self, kept: ApprovalRules, allowed: Iterable[tuple[str, str]]) -> None:
        self._kept = kept
        self._allowed = frozenset(allowed)
        self._since = time.time()

    def matching(self, user: str, server: str, tool: str, conversation: str | None) -> list[Rule]:
        rules = self._kept.matching(user, server, tool, conversation)
        if (server, tool) in self._allowed:
            rules.append(Rule(server, tool, "allow", None, self._since))
        return rules

    def remember(self, user: str, server: str, tool: str, decision: RuleDecision, conversation: str | None) -> Rule:
        return self._kept.remember(user, server, tool, decision, conversation)


def terminal_questions(elicitations: Elicitations, user: str, stdin: TextIO = sys.stdin,
                       out: TextIO = sys.stderr) -> Emit:
    """The asker's events for a person at the terminal: each approval is asked there (one at a time, on a thread
    of its own: the MCP loop must not wait on a person), a tool's question is cancelled at once."""
    asking = threading.Lock()

    def ask(request: dict[str, Any]) -> None:
        with asking:
            remember = _read_choice(request, stdin, out)
        decision = UserDecision("deny") if remember is False else UserDecision("approve", remember)
        try:
            elicitations.answer(user, request["id"], decision, "approval")
        except UnknownQuestion:  # it waited past the timeout, and was denied meanwhile
            print(f"too late: {_call(request)} was not run", file=out, flush=True)

    def emit(event: str, data: dict[str, Any]) -> None:
        if event == "approval":
            threading.Thread(target=ask, args=(data,), name="approval-prompt", daemon=True).start()
        elif event == "elicitation":
            elicitations.answer(user, data["id"], CANCELLED)

    return emit


def not_run_lines(notices: list[Notice], user: str) -> list[str]:
    """For each call not made for want of the user's approval: which, and how to allow it."""
    lines = []
    for notice in notices:
        if notice.kind != "approval":
            continue
        tool, allow = notice.details["tool"], notice.details.get("allow")
        line = (f"mcp-chat: not run: {_call({'server': notice.server, 'tool': tool, **notice.details})} needs "
                f"{user}'s approval. Run it this once with --allow {notice.server}/{tool}")
        if allow is not None:
            line += (f"; keep it allowed by answering [a]lways at a terminal, or with PUT {allow['path']} "
                     f"{json.dumps(allow['body'])} to the gateway")
        lines.append(line + ".")
    return lines


def _read_choice(request: dict[str, Any], stdin: TextIO, out: TextIO) -> str | bool:
    """The person's answer: "once" or "always" to run the call, False not to (also at the end of input)."""
    always = "always" in request.get("remember", ())
    question = f"run {_call(request)}? [y]es once / {'[a]lways / ' if always else ''}[n]o "
    while True:
        print(question, end="", file=out, flush=True)
        line = stdin.readline()
        if not line:
            print(file=out)
            return False
        choice = _CHOICES.get(line.strip().lower(), "")
        if choice is None:
            return False
        if choice == "once" or choice == "always" and always:
            return choice


def _call(request: dict[str, Any]) -> str:
    arguments = ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}"
                          for name, value in (request.get("arguments") or {}).items())
    return f"{request['server']}.{request['tool']}({arguments})"
