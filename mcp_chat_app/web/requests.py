"""Request parsing for the HTTP routes: raw bytes in, validated values or a precise 4xx out.

Pure functions (no Flask), so property tests can throw arbitrary bytes and JSON at them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mcp_chat_app.history import DEFAULT_CONVERSATION
from mcp_chat_app.mcp_client.approval_policy import (
    DECISIONS,
    REMEMBER,
    RULE_DECISIONS,
    SCOPES,
    RuleDecision,
    Scope,
    UserDecision,
)
from mcp_chat_app.mcp_client.elicitation import ACTIONS, Answer
from mcp_chat_app.web.errors import GatewayError

USER_PATTERN = r"[A-Za-z0-9_.@-]{1,64}"
CONVERSATION_PATTERN = r"[A-Za-z0-9_-]{1,64}"
MAX_MESSAGE_CHARS = 8000
MAX_TITLE_CHARS = 100
MAX_PROFILE_CHARS = 64
# A server's or tool's name as a policy rule keys it: MCP's tool-name alphabet (server names are a subset).
TOOL_NAME_PATTERN = r"[A-Za-z0-9_.-]{1,128}"
MAX_ATTACHMENTS = 3  # resources attached to one message (each is cut to chat/attachments.py's size)
_USER_ID = re.compile(USER_PATTERN)
_TOOL_NAME = re.compile(TOOL_NAME_PATTERN)
_CONVERSATION_ID = re.compile(CONVERSATION_PATTERN)
# C0 controls and DEL, except tab and line breaks that people really type.
_CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f"
_CONTROL_CHARACTERS = re.compile(f"[{_CONTROL}]")
# The same rules for the OpenAPI document: no control character, at least one visible character.
MESSAGE_PATTERN = f"^[^{_CONTROL}]*[^\\s{_CONTROL}][^{_CONTROL}]*$"
# Any text without control characters (a prompt's server, name and argument values).
TEXT_PATTERN = f"^[^{_CONTROL}]*$"
# A title is one line: no line breaks either.
TITLE_PATTERN = f"^[^{_CONTROL}\\n\\r]*[^\\s{_CONTROL}][^{_CONTROL}\\n\\r]*$"


UNIT_SYSTEMS = ("metric", "imperial")


@dataclass(frozen=True)
class ResourceRef:
    """A resource attached to a message: which server, which URI (GET /resources lists them)."""

    server: str
    uri: str


@dataclass(frozen=True)
class PolicyRule:
    """A validated `PUT /chat/<user>/approvals/policy/<server>/<tool>` body: a decision to keep for one tool."""

    decision: RuleDecision
    scope: Scope
    conversation: str | None  # with scope "conversation": which one


@dataclass(frozen=True)
class PromptRequest:
    """An MCP prompt to answer in place of a typed message: `{"server", "name", "arguments"?: {str: str}}`."""

    server: str
    name: str
    arguments: dict[str, str]


@dataclass(frozen=True)
class ChatRequest:
    """A validated `POST /chat/<user>` body."""

    message: str
    use_tools: bool = True
    stream: bool = False
    conversation: str = DEFAULT_CONVERSATION
    confirm_tools: bool = False  # ask the (streaming) user before every tool call
    regenerate: bool = False  # answer again in place of the conversation's last answer
    units: str | None = None  # the user's standing preference, passed to the tools (`_meta.units`)
    profile: str | None = None  # the model profile for this turn and the conversation's next ones
    attachments: tuple[ResourceRef, ...] = ()
    prompt: PromptRequest | None = None  # given instead of `message`, which the rendered prompt then becomes


def checked_user(user: str) -> str:
    """The `user` path value, or 400: it is a storage key, so only a small safe alphabet."""
    if not _USER_ID.fullmatch(user):
        raise GatewayError(400, "bad_user", "user must be 1-64 characters of letters, digits, '_', '.', '@', '-'")
    return user


def checked_conversation(conversation: Any) -> str:
    """A conversation id (path or body), or 400: like a user name, it is a storage key."""
    if not isinstance(conversation, str) or not _CONVERSATION_ID.fullmatch(conversation):
        raise GatewayError(400, "bad_conversation",
                           "a conversation id is 1-64 characters of letters, digits, '_' and '-'")
    return conversation


MAX_QUERY_CHARS = 200
EXPORT_FORMATS = ("md", "json")


def search_query(query: str | None) -> str:
    """The `q` of a search, or 400: one line of 1-200 characters with something to look for."""
    if query is None or not query.strip() or len(query) > MAX_QUERY_CHARS or _CONTROL_CHARACTERS.search(query) \
            or "\n" in query or "\r" in query:
        raise GatewayError(400, "bad_query", f"q must be one line of 1-{MAX_QUERY_CHARS} characters, not all spaces")
    return query.strip()


def export_format(value: str | None) -> str:
    """The `format` of an export (default md), or 400."""
    if value is None:
        return EXPORT_FORMATS[0]
    if value not in EXPORT_FORMATS:
        raise GatewayError(400, "bad_format", f"format must be one of {', '.join(EXPORT_FORMATS)}")
    return value


def checked_tool_name(kind: str, name: str) -> str:
    """A server or tool name from a path, or 400."""
    if not _TOOL_NAME.fullmatch(name):
        raise GatewayError(400, "bad_request", f"a {kind} name is 1-128 characters of letters, digits, '_', '.', '-'")
    return name


def json_object(raw: bytes) -> dict[str, Any]:
    """Decode a JSON object body, with a message that says what exactly is wrong."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise GatewayError(400, "bad_encoding", f"the body is not valid UTF-8 (byte {error.start})") from error
    try:
        body = json.loads(text)
    except RecursionError as error:
        raise GatewayError(400, "bad_json", "the body is nested too deeply") from error
    except ValueError as error:
        raise GatewayError(400, "bad_json", f"the body is not valid JSON: {error}") from error
    if not isinstance(body, dict):
        raise GatewayError(400, "bad_request", "the body must be a JSON object")
    return body


def _flag(body: dict[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise GatewayError(400, "bad_request", f"'{name}' must be true or false")
    return value


def _checked_text(name: str, value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:  # a lone surrogate from a "\ud800" escape: unstorable
        raise GatewayError(400, "bad_request", f"'{name}' contains invalid Unicode (a lone surrogate)") from error
    control = _CONTROL_CHARACTERS.search(value)
    if control:
        raise GatewayError(400, "bad_request",
                           f"'{name}' contains the control character U+{ord(control.group()):04X}")
    return value


def chat_request(raw: bytes) -> ChatRequest:
    """Parse a chat body: `{"message": str, "use_tools"?: bool, "stream"?: bool, "conversation"?: id,
    "confirm_tools"?: bool, "regenerate"?: bool, "units"?: "metric"|"imperial", "profile"?: str,
    "attachments"?: [{server, uri}]}`, or `"prompt"` in place of `"message"` (an MCP prompt to render and answer)."""
    body = json_object(raw)
    prompt = prompt_request(body["prompt"]) if "prompt" in body else None
    if prompt is not None and "message" in body:
        raise GatewayError(400, "bad_request", "give either 'message' or 'prompt', not both")
    message = "" if prompt is not None else checked_message(body.get("message"))
    conversation = checked_conversation(body.get("conversation", DEFAULT_CONVERSATION))
    units = body.get("units")
    if units not in (None, *UNIT_SYSTEMS):
        raise GatewayError(400, "bad_request", f"'units' must be one of {', '.join(UNIT_SYSTEMS)}")
    profile = body.get("profile")
    if profile is not None and (not isinstance(profile, str) or not 0 < len(profile) <= MAX_PROFILE_CHARS):
        raise GatewayError(400, "bad_request", f"'profile' must be a profile name (1-{MAX_PROFILE_CHARS} characters)")
    return ChatRequest(message, _flag(body, "use_tools", True), _flag(body, "stream", False), conversation,
                       _flag(body, "confirm_tools", False), _flag(body, "regenerate", False), units,
                       None if profile is None else _checked_text("profile", profile),
                       _attachments(body.get("attachments", [])), prompt)


def _attachments(value: Any) -> tuple[ResourceRef, ...]:
    """`[{"server": str, "uri": str}, ...]`, at most MAX_ATTACHMENTS, each once."""
    if not isinstance(value, list) or len(value) > MAX_ATTACHMENTS:
        raise GatewayError(400, "bad_request", f"'attachments' must be a list of at most {MAX_ATTACHMENTS} objects")
    refs = []
    for item in value:
        if not isinstance(item, dict) or set(item) != {"server", "uri"} or \
                not all(isinstance(item[key], str) and item[key] for key in ("server", "uri")):
            raise GatewayError(400, "bad_request", "each attachment must be {\"server\": str, \"uri\": str}")
        ref = ResourceRef(_checked_text("server", item["server"]), _checked_text("uri", item["uri"]))
        if ref not in refs:
            refs.append(ref)
    return tuple(refs)


def checked_message(message: Any, name: str = "message") -> str:
    """A message to answer (typed, or a prompt's rendered text): visible, bounded text without control characters."""
    if not isinstance(message, str) or not message.strip():
        raise GatewayError(400, "bad_request", f"'{name}' must be a non-empty string")
    if len(message) > MAX_MESSAGE_CHARS:
        raise GatewayError(400, "bad_request", f"'{name}' is longer than {MAX_MESSAGE_CHARS} characters")
    return _checked_text(name, message.strip())


def prompt_request(value: Any) -> PromptRequest:
    """Parse `{"server": str, "name": str, "arguments"?: {str: str}}` (MCP prompt arguments are strings)."""
    if not isinstance(value, dict):
        raise GatewayError(400, "bad_request", "'prompt' must be an object with 'server' and 'name'")
    server, name, arguments = value.get("server"), value.get("name"), value.get("arguments", {})
    if not (isinstance(server, str) and server and isinstance(name, str) and name):
        raise GatewayError(400, "bad_request", "'prompt' needs a non-empty 'server' and 'name'")
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        raise GatewayError(400, "bad_request", "'prompt.arguments' must be an object of strings")
    for key, text in arguments.items():
        _checked_text("prompt.arguments", key)
        _checked_text(f"prompt.arguments.{key}", text)
    return PromptRequest(_checked_text("prompt.server", server), _checked_text("prompt.name", name), arguments)


def conversation_title(raw: bytes, required: bool) -> str:
    """Parse `{"title": str}` (a new conversation may leave it out): a short line of visible text."""
    body = json_object(raw)
    if "title" not in body and not required:
        return ""
    title = body.get("title")
    if not isinstance(title, str) or not title.strip():  # given, it is a title (the spec's minLength 1)
        raise GatewayError(400, "bad_request", "'title' must be a non-empty string")
    if len(title) > MAX_TITLE_CHARS:
        raise GatewayError(400, "bad_request", f"'title' is longer than {MAX_TITLE_CHARS} characters")
    title = _checked_text("title", title.strip())
    if "\n" in title or "\r" in title:
        raise GatewayError(400, "bad_request", "'title' must be one line")
    return title


def elicitation_answer(raw: bytes) -> Answer:
    """Parse an answer to a tool's question: `{"action": "accept"|"decline"|"cancel", "content"?: {...}}`."""
    body = json_object(raw)
    action = body.get("action")
    if action not in ACTIONS:
        raise GatewayError(400, "bad_request", f"'action' must be one of {', '.join(ACTIONS)}")
    content = body.get("content")
    if content is not None and not isinstance(content, dict):
        raise GatewayError(400, "bad_request", "'content' must be an object with the form's fields")
    return Answer(action, content if action == "accept" else None)


def approval_decision(raw: bytes) -> UserDecision:
    """Parse a decision on a tool call the gateway asked about: `{"decision": "approve"|"deny",
    "remember"?: "once"|"conversation"|"always"}` (without `remember`: this call only)."""
    body = json_object(raw)
    decision, remember = body.get("decision"), body.get("remember", "once")
    if decision not in DECISIONS:
        raise GatewayError(400, "bad_request", f"'decision' must be one of {', '.join(DECISIONS)}")
    if remember not in REMEMBER:
        raise GatewayError(400, "bad_request", f"'remember' must be one of {', '.join(REMEMBER)}")
    return UserDecision(decision, remember)


_RULE_KEYS = ("decision", "scope", "conversation")


def policy_rule(raw: bytes) -> PolicyRule:
    """Parse `{"decision": "allow"|"deny", "scope": "conversation"|"always", "conversation"?: id}`: a conversation's
    rule is for `conversation` (default: the default one); an "always" rule names none."""
    body = json_object(raw)
    unknown = sorted(set(body) - set(_RULE_KEYS))
    if unknown:
        raise GatewayError(400, "bad_request", f"unknown key {unknown[0]!r}: a rule has {', '.join(_RULE_KEYS)}")
    decision, scope = body.get("decision"), body.get("scope")
    if decision not in RULE_DECISIONS:
        raise GatewayError(400, "bad_decision", f"'decision' must be one of {', '.join(RULE_DECISIONS)}")
    if scope not in SCOPES:
        raise GatewayError(400, "bad_scope", f"'scope' must be one of {', '.join(SCOPES)}")
    if scope == "always":
        if "conversation" in body:
            raise GatewayError(400, "bad_scope", "'conversation' goes only with scope 'conversation': an 'always' "
                                                 "rule holds in every conversation")
        return PolicyRule(decision, scope, None)
    return PolicyRule(decision, scope, checked_conversation(body.get("conversation", DEFAULT_CONVERSATION)))
