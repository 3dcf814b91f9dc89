"""Whether a tool call may be made unasked, must be asked about, or is refused: the user's remembered decisions
over defaults from the tool's MCP annotations and the server's registry entry.

Defaults: a tool that declares `readOnlyHint` is called unasked, unless its server is registered with
`"confirm": true`; any other tool is asked about. A remembered decision (per user, per server and tool, for one
conversation or always) overrides the default, with two limits: a remembered denial always wins, and a tool that
declares `destructiveHint` is asked about unless it was allowed *always* (a conversation's allow does not
cover it). A request sent with `"confirm_tools": true` asks before every call that is not denied.

A call to ask about where nobody can be asked (a plain JSON request) is not made: its outcome (`needs_approval`) says
how the client allows it, a kept decision set with `PUT /chat/<user>/approvals/policy/<server>/<tool>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import quote

from mcp_chat_app.mcp_client.results import ToolOutcome, failed_outcome

Decision = Literal["approve", "deny"]
DECISIONS: tuple[Decision, ...] = ("approve", "deny")
Remember = Literal["once", "conversation", "always"]
REMEMBER: tuple[Remember, ...] = ("once", "conversation", "always")
Verdict = Literal["allow", "ask", "deny"]
RuleDecision = Literal["allow", "deny"]
RULE_DECISIONS: tuple[RuleDecision, ...] = ("allow", "deny")
Scope = Literal["conversation", "always"]
SCOPES: tuple[Scope, ...] = ("conversation", "always")  # the narrower first
# What a call that needed asking, where nobody could be asked, returns to the pipeline (the model reads it).
NOT_RUN = "not run: this tool needs the user's approval"


@dataclass(frozen=True)
class ToolHints:
    """What the call's tool and server declare (MCP annotations are hints: they only choose a default)."""

    read_only: bool = False
    destructive: bool = False  # declared explicitly: an unannotated tool is only "not read-only"
    server_confirms: bool = False  # the registry entry says `"confirm": true`


@dataclass(frozen=True)
class UserDecision:
    """The user's answer on an approval card: the decision, and how long it holds."""

    decision: Decision
    remember: Remember = "once"

    def to_json(self) -> dict[str, str]:
        """As the replies show it: `remember` only when it is kept (a plain decision keeps its old shape)."""
        return {"decision": self.decision, **({"remember": self.remember} if self.remember != "once" else {})}


@dataclass(frozen=True)
class Rule:
    """A remembered decision; `conversation` None: for every conversation ("always")."""

    server: str
    tool: str
    decision: RuleDecision
    conversation: str | None
    created_at: float

    def to_json(self) -> dict[str, object]:
        return {"server": self.server, "tool": self.tool, "decision": self.decision,
                "scope": "always" if self.conversation is None else "conversation",
                "conversation": self.conversation, "created_at": self.created_at}


class ApprovalRules(Protocol):
    """Where remembered decisions live (history/approval_rules.py: SQLite)."""

    def matching(self, user: str, server: str, tool: str, conversation: str | None) -> list[Rule]:
        """The rules of this tool that hold in `conversation`: its own and the "always" one (None: only that)."""

    def remember(self, user: str, server: str, tool: str, decision: RuleDecision, conversation: str | None) -> Rule:
        """Store (or replace) the rule of this scope; the rule as stored."""


def offered(hints: ToolHints) -> tuple[Remember, ...]:
    """How long the card may offer to remember a decision: a destructive tool's allow never only per conversation."""
    return ("once", "always") if hints.destructive else REMEMBER


def scopes(hints: ToolHints, decision: RuleDecision) -> tuple[Scope, ...]:
    """The scopes a kept `decision` on this tool holds in: a destructive tool is allowed only always (a
    conversation's allow would never be consulted); a denial holds in either."""
    return tuple(scope for scope in SCOPES if decision == "deny" or scope in offered(hints))


def verdict(hints: ToolHints, rules: list[Rule], ask_every_call: bool) -> Verdict:
    """What to do with a call, given the rules that hold for it in its conversation."""
    if any(rule.decision == "deny" for rule in rules):
        return "deny"
    if ask_every_call:
        return "ask"
    allowed = {rule.conversation is None for rule in rules}  # True: always, False: this conversation
    if True in allowed or False in allowed and not hints.destructive:
        return "allow"
    return "allow" if hints.read_only and not hints.destructive and not hints.server_confirms else "ask"


@dataclass(frozen=True)
class ApprovalPolicy:
    """One chat request's view of its user's rules; `conversation` None: a question asked outside any conversation
    (`mcp-chat ask`), where only "always" rules hold and only they can be kept."""

    rules: ApprovalRules
    user: str
    conversation: str | None

    def offered(self, hints: ToolHints) -> tuple[Remember, ...]:
        """How long the card may offer to remember a decision on this tool, here."""
        return tuple(remember for remember in offered(hints) if remember != "conversation" or self.conversation)

    def verdict(self, server: str, tool: str, hints: ToolHints, ask_every_call: bool) -> Verdict:
        return verdict(hints, self.rules.matching(self.user, server, tool, self.conversation), ask_every_call)

    def how_to_allow(self, server: str, tool: str, hints: ToolHints) -> dict[str, Any]:
        """The request that allows this tool from now on, the narrowest scope that holds suggested first."""
        allowed = tuple(scope for scope in scopes(hints, "allow") if scope != "conversation" or self.conversation)
        body: dict[str, Any] = {"decision": "allow", "scope": allowed[0]}
        if allowed[0] == "conversation":
            body["conversation"] = self.conversation
        user, server, tool = (quote(name, safe="@") for name in (self.user, server, tool))
        return {"method": "PUT", "path": f"/chat/{user}/approvals/policy/{server}/{tool}", "body": body,
                "scopes": list(allowed)}

    def remember(self, server: str, tool: str, answer: UserDecision) -> None:
        """Keep the card's decision for as long as the user said (`once`: not at all)."""
        if answer.remember != "once":
            self.rules.remember(self.user, server, tool, "allow" if answer.decision == "approve" else "deny",
                                self.conversation if answer.remember == "conversation" else None)


def needs_approval(server: str, tool: str, arguments: dict[str, Any], allow: dict[str, Any] | None) -> ToolOutcome:
    """The outcome of a call that was not made because it needed the user's approval and nobody could be asked;
    `structured_content.allow`: the request that allows it (None: no kept decision would, the request itself asks
    about every call)."""
    outcome = failed_outcome(server, tool, arguments, NOT_RUN, reason="needs_approval")
    outcome.structured_content = {"allow": allow}
    return outcome
