"""The OpenAPI 3.1 description of every route, served at /openapi.json."""

from __future__ import annotations

from typing import Any

from mcp_chat_app.history import DEFAULT_CONVERSATION
from mcp_chat_app.mcp_client.approval_policy import DECISIONS, REMEMBER, RULE_DECISIONS, SCOPES
from mcp_chat_app.web.requests import (
    CONVERSATION_PATTERN,
    EXPORT_FORMATS,
    MAX_MESSAGE_CHARS,
    MAX_QUERY_CHARS,
    MAX_PROFILE_CHARS,
    MAX_TITLE_CHARS,
    MESSAGE_PATTERN,
    TEXT_PATTERN,
    TITLE_PATTERN,
    MAX_ATTACHMENTS,
    TOOL_NAME_PATTERN,
    UNIT_SYSTEMS,
    USER_PATTERN,
)
from mcp_chat_app.chat.attachments import MAX_ATTACHED_CHARS

_ERROR = {"$ref": "#/components/schemas/Error"}
_USER = {"name": "user", "in": "path", "required": True, "schema": {"type": "string", "pattern": f"^{USER_PATTERN}$"}}
_CONVERSATION_ID = {"type": "string", "pattern": f"^{CONVERSATION_PATTERN}$"}
_TITLE = {"type": "string", "minLength": 1, "maxLength": MAX_TITLE_CHARS, "pattern": TITLE_PATTERN,
          "description": "one line"}
_MEDIA_ID = {"name": "media_id", "in": "path", "required": True, "schema": {"type": "string"}}
_TEXT = {"type": "string", "pattern": TEXT_PATTERN}
_CONVERSATION = {"name": "conversation", "in": "path", "required": True, "schema": _CONVERSATION_ID}
_SERVER = {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
_TOOL_NAME = {"type": "string", "pattern": f"^{TOOL_NAME_PATTERN}$"}
_POLICY_SERVER = {"name": "server", "in": "path", "required": True, "schema": _TOOL_NAME}
_POLICY_TOOL = {"name": "tool", "in": "path", "required": True, "schema": _TOOL_NAME}
_EVENTS = ["prefill", "tool_call", "tool_result", "progress", "elicitation", "elicitation_closed", "approval",
           "approval_closed", "authorization", "token", "rewrite", "done", "error"]
_ADMIN = [{"bearerToken": []}]
# User tokens are required only when the gateway is exposed beyond loopback (MCP_CHAT_AUTH).
_USER_AUTH = [{}, {"bearerToken": []}]


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    return {str(status): _json(_ERROR, "error") for status in statuses}


_SCHEMAS: dict[str, Any] = {
    "UserAuthorization": {"type": "object", "properties": {
        "server": {"type": "string"}, "connected": {"type": "boolean", "description": "the user's tokens are stored"},
        "session_up": {"type": "boolean"}, "authorization_url": {"type": ["string", "null"],
                                                                 "description": "while the user's flow waits"},
        "last_error": {"type": ["string", "null"], "description": "why the user's session is down"}}},
    "Error": {"type": "object", "properties": {"error": {"type": "object", "properties": {
        "code": {"type": "string"}, "message": {"type": "string"}}}}},
    "ChatRequest": {"type": "object", "oneOf": [{"required": ["message"]}, {"required": ["prompt"]}], "properties": {
        "message": {"type": "string", "minLength": 1, "maxLength": MAX_MESSAGE_CHARS, "pattern": MESSAGE_PATTERN},
        "prompt": {"$ref": "#/components/schemas/PromptRequest"},
        "use_tools": {"type": "boolean", "default": True},
        "units": {"type": "string", "enum": list(UNIT_SYSTEMS),
                  "description": "the user's unit system, passed to the tools as `_meta.units` (default: metric)"},
        "stream": {"type": "boolean", "default": False,
                   "description": f"SSE events {', '.join(_EVENTS)}; a `token` is a piece of the answer that has "
                                  "passed the check so far, a `rewrite` discards those of a draft that then failed"},
        "conversation": {**_CONVERSATION_ID, "default": DEFAULT_CONVERSATION,
                         "description": "the conversation whose history the answer follows and joins (404 if the "
                                        "user has none by that id)"},
        "confirm_tools": {"type": "boolean", "default": False,
                          "description": "ask before every tool call (SSE `approval`) that the user's policy does "
                                         "not deny, not only those it would ask about; without a stream such calls "
                                         "are not made"},
        "regenerate": {"type": "boolean", "default": False,
                       "description": "answer again: the conversation's last question and answer are left out of "
                                      "the model's context and replaced by this turn once it is answered"},
        "attachments": {"type": "array", "maxItems": MAX_ATTACHMENTS, "description": "resources (GET /resources) "
                        "the gateway reads and gives the writer as the user's, not as tool results; a text longer "
                        f"than {MAX_ATTACHED_CHARS} characters is cut, with a note saying so; an unknown server or "
                        "URI is a 404, a server down a 503. Stored with the question: later turns of the "
                        "conversation are given the attachments of the earlier questions in their history again "
                        f"(read again, newest first, {MAX_ATTACHMENTS} in all with their own; one that cannot be "
                        "read is left out with an `attachment` notice)", "items": {
                            "type": "object", "required": ["server", "uri"], "additionalProperties": False,
                            "properties": {key: {"type": "string", "minLength": 1, "pattern": MESSAGE_PATTERN}
                                           for key in ("server", "uri")}}},
        "profile": {"type": "string", "minLength": 1, "maxLength": MAX_PROFILE_CHARS, "pattern": TEXT_PATTERN,
                    "description": "the model profile (GET /profiles) for this turn; stored as the conversation's "
                                   "once answered, and used by its later turns that send none (without one ever: "
                                   "the gateway's default). 400 `unknown_profile` (the message lists the known "
                                   "ones) or `profile_unavailable` (with the reason); 409 when the conversation's "
                                   "stored profile is gone or unavailable, 503 when the default is unavailable"}}},
    "PromptRequest": {"type": "object", "required": ["server", "name"], "description": (
        "an MCP prompt (GET /prompts) answered in place of `message`: the gateway calls `prompts/get` and the "
        "text of its messages (text content and embedded text resources, in order, whatever their role) becomes "
        "the user's turn and its history entry; images, audio, binary resources and resource links are left out "
        "(`prompt.left_out` in the answer). 404 unknown_server / unknown_prompt; 400 bad_prompt_arguments (a "
        "required argument missing or blank, or one the prompt does not declare), prompt_error (the server's own "
        "error message); 503 server_unavailable; 504 server_timeout"), "properties": {
        "server": {**_TEXT, "minLength": 1}, "name": {**_TEXT, "minLength": 1},
        "arguments": {"type": "object", "propertyNames": _TEXT, "additionalProperties": _TEXT, "default": {}}}},
    "PromptList": {"type": "object", "properties": {
        "prompts": {"type": "array", "items": {"type": "object", "properties": {
            "server": {"type": "string"}, "name": {"type": "string"}, "title": {"type": ["string", "null"]},
            "description": {"type": ["string", "null"]},
            "arguments": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "description": {"type": ["string", "null"]},
                "required": {"type": "boolean"}}}}}}},
        "unavailable": {"type": "array", "description": "enabled servers that are down now, with why",
                        "items": {"type": "object", "properties": {"server": {"type": "string"},
                                                                   "error": {"type": "string"}}}}}},
    "ToolCall": {"type": "object", "properties": {
        "server": {"type": "string"}, "tool": {"type": "string"}, "arguments": {"type": "object"},
        "is_error": {"type": "boolean"}, "structured_content": {}, "text": {"type": "string"},
        "duration_ms": {"type": "number"}, "reason": {"type": "string", "description": "why a call failed: "
                                                      "tool_error, unavailable, timeout, protocol_error, "
                                                      "invalid_answer (the result broke the tool's own "
                                                      "outputSchema), unexpected_error, invalid_call, denied (the "
                                                      "user did not allow it), needs_approval (not run: it "
                                                      "needed the user's approval and a JSON request cannot ask; "
                                                      "structured_content.allow: how to allow it), "
                                                      "needs_authorization (the user authorizes the server first: "
                                                      "structured_content.authorization_url)"}}},
    "MediaItem": {"type": "object", "required": ["kind", "name", "server"], "properties": {
        "kind": {"type": "string", "enum": ["audio", "file", "link"],
                 "description": "audio (play `url`), file (an embedded binary resource: download `url`), or link "
                                "(a resource_link: `uri`, readable from `server`: GET /resources/read)"},
        "url": {"type": "string", "description": "audio and file: the stored copy under /media/"},
        "uri": {"type": "string", "description": "link: the resource's URI"},
        "name": {"type": "string", "description": "file: the download's file name; link: its title or name"},
        "mime": {"type": "string"}, "description": {"type": "string", "description": "link: what it is"},
        "server": {"type": "string", "description": "the MCP server whose tool returned it"}}},
    "Notice": {"type": "object", "description": "a sentence the user must see (from a tool result, or the "
               "gateway's about a call or an attachment); also the end of `response`", "properties": {
                   "server": {"type": "string"},
                   "kind": {"type": "string", "enum": ["simulated", "notice", "authorization", "approval",
                                                       "attachment"],
                            "description": "approval: a call not made for want of the user's approval (JSON "
                                           "requests); attachment: an earlier turn's attachment that could not be "
                                           "read again"},
                   "text": {"type": "string"},
                   "tool": {"type": "string", "description": "approval: the tool not run"},
                   "arguments": {"type": "object", "description": "approval: the call's arguments"},
                   "allow": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/AllowRequest"}],
                             "description": "approval: the request that allows the tool from now on (null when the "
                                            "request asked about every call: `confirm_tools`)"},
                   "uri": {"type": "string", "description": "attachment: the resource's URI"}}},
    "AllowRequest": {"type": "object", "properties": {
        "method": {"type": "string", "enum": ["PUT"]}, "path": {"type": "string"},
        "body": {"$ref": "#/components/schemas/PolicyRule"},
        "scopes": {"type": "array", "items": {"type": "string", "enum": list(SCOPES)},
                   "description": "the scopes an allow holds in for this tool (a destructive one: only always)"}}},
    "ChatResponse": {"type": "object", "properties": {
        "response": {"type": "string"},
        "tool_calls": {"type": "array", "items": {"$ref": "#/components/schemas/ToolCall"}},
        "images": {"type": "array", "items": {"type": "object", "properties": {
            "url": {"type": "string"}, "alt": {"type": "string"}, "mime": {"type": "string"}}}},
        "media": {"type": "array", "items": {"$ref": "#/components/schemas/MediaItem"},
                  "description": "what the tools returned beside text and images, in order"},
        "timings": {"type": "object", "additionalProperties": {"type": "number"}},
        "model": {"type": "string"},
        "language": {"type": "string", "description": "the question's language code (zh, en, ja, ...)"},
        "notices": {"type": "array", "items": {"$ref": "#/components/schemas/Notice"}},
        "answer_source": {"type": "string", "enum": ["model", "composed"],
                          "description": "a model's checked answer, or one composed from the tool data"},
        "conversation": {"type": "string", "description": "the conversation the turn was stored in"},
        "profile": {"type": "string", "description": "the model profile that answered"},
        "prompt": {"type": "object", "description": "only for a `prompt` request: the text it was rendered to",
                   "properties": {"server": {"type": "string"}, "name": {"type": "string"},
                                  "text": {"type": "string"},
                                  "left_out": {"type": "array", "items": {"type": "string"},
                                               "description": "content types not rendered (image, audio, ...)"}}}}},
    "ChatEvent": {"type": "object", "description": "one SSE event; `data` is JSON (`done` carries a ChatResponse)",
                  "required": ["event", "data"], "properties": {
                      "event": {"type": "string",
                                "enum": _EVENTS},
                      "data": {"type": "string"}}},
    "ElicitationAnswer": {"type": "object", "required": ["action"], "properties": {
        "action": {"type": "string", "enum": ["accept", "decline", "cancel"]},
        "content": {"type": "object", "description": "with accept: the form's fields, as the question's schema "
                    "says"}}},
    "ApprovalDecision": {"type": "object", "required": ["decision"], "properties": {
        "decision": {"type": "string", "enum": list(DECISIONS)},
        "remember": {"type": "string", "enum": list(REMEMBER), "default": "once",
                     "description": "keep the decision for this server's tool: for this conversation (`allow for "
                                    "this conversation`) or always (per user); only the values the `approval` "
                                    "event's `remember` offers (a destructive tool: not `conversation`), else 400 "
                                    "bad_answer"}}},
    "PolicyRule": {"type": "object", "required": ["decision", "scope"], "additionalProperties": False, "properties": {
        "decision": {"type": "string", "enum": list(RULE_DECISIONS)},
        "scope": {"type": "string", "enum": list(SCOPES)},
        "conversation": {**_CONVERSATION_ID, "description": "with scope conversation only: which one (default "
                         f"`{DEFAULT_CONVERSATION}`; the rule is deleted with it)"}},
        "if": {"properties": {"scope": {"const": "always"}}}, "then": {"not": {"required": ["conversation"]}}},
    "ApprovalRule": {"type": "object", "properties": {
        "server": {"type": "string"}, "tool": {"type": "string"},
        "decision": {"type": "string", "enum": ["allow", "deny"]},
        "scope": {"type": "string", "enum": ["always", "conversation"]},
        "conversation": {"type": ["string", "null"], "description": "with scope conversation: which one (the rule "
                                                                   "is deleted with it)"},
        "created_at": {"type": "number", "description": "Unix seconds"}}},
    "Conversation": {"type": "object", "properties": {
        "id": _CONVERSATION_ID, "title": {"type": "string", "description": "\"\" until one is given"},
        "turns": {"type": "integer", "description": "stored messages (a question and its answer are two)"},
        "created_at": {"type": "number"}, "updated_at": {"type": "number", "description": "Unix seconds"},
        "profile": {"type": ["string", "null"], "description": "the model profile its turns use; null until a turn "
                    "picks one (the gateway's default)"}}},
    "ProfileEndpoint": {"type": "object", "properties": {
        "model": {"type": "string"}, "host": {"type": "string", "description": "host[:port] of the base URL"}}},
    "Profile": {"type": "object", "required": ["name", "default", "available", "reason"], "properties": {
        "name": {"type": "string"},
        "model": {"type": "string", "description": "the model that writes the answers"},
        "host": {"type": "string", "description": "host[:port] of its base URL (no key, no path)"},
        "router": {"$ref": "#/components/schemas/ProfileEndpoint", "description": "hybrid profiles only"},
        "writer": {"$ref": "#/components/schemas/ProfileEndpoint", "description": "hybrid profiles only"},
        "default": {"type": "boolean", "description": "the gateway's default (MCP_CHAT_PROFILE)"},
        "available": {"type": "boolean"},
        "reason": {"type": ["string", "null"],
                   "description": "why it is unavailable, e.g. `OPENAI_API_KEY is not set`"}}},
    "ConversationTitle": {"type": "object", "properties": {"title": _TITLE}},
    "ConversationRename": {"type": "object", "required": ["title"], "properties": {"title": _TITLE}},
    "History": {"type": "object", "properties": {"user": {"type": "string"}, "messages": {
        "type": "array", "items": {"type": "object", "properties": {
            "role": {"type": "string"}, "content": {"type": "string"},
            "calls": {"type": "array", "description": "on an answer: the tool calls behind it", "items": {
                "type": "object", "properties": {"tool": {"type": "string"}, "arguments": {"type": "object"},
                                                 "failed": {"type": "boolean", "description": "the server answered "
                                                            "it with an error (present only then)"}}}},
            "notices": {"type": "array", "description": "on an answer: its notices, when it had any",
                        "items": {"$ref": "#/components/schemas/Notice"}},
            "images": {"type": "array", "description": "on an answer: its images (charts), when it had any",
                       "items": {"type": "object"}},
            "media": {"type": "array", "description": "on an answer: its audio, files and links, when it had any",
                      "items": {"$ref": "#/components/schemas/MediaItem"}},
            "attachments": {"type": "array", "description": "on a question: the resources attached to it, when it "
                            "had any (a follow-up in the conversation is answered with them, read again)",
                            "items": {"type": "object", "required": ["server", "uri"], "properties": {
                                "server": {"type": "string"}, "uri": {"type": "string"},
                                "mime": {"type": "string"}}}}}}}}},
    "ResourceEntry": {"type": "object", "description": "a resource (`uri`) or a template (`uriTemplate`, RFC 6570: "
                      "the client fills its {variables})", "properties": {
                          "server": {"type": "string"}, "name": {"type": "string"}, "uri": {"type": "string"},
                          "uriTemplate": {"type": "string"}, "mimeType": {"type": ["string", "null"]},
                          "description": {"type": "string"}}},
    "ResourceRead": {"type": "object", "properties": {
        "server": {"type": "string"}, "uri": {"type": "string"},
        "contents": {"type": "array", "items": {"type": "object", "properties": {
            "uri": {"type": "string"}, "mimeType": {"type": ["string", "null"]},
            "text": {"type": "string", "description": "a text part"},
            "blob": {"type": "string", "contentEncoding": "base64", "description": "a binary part, base64"},
            "size": {"type": "integer", "description": "a binary part's bytes"}}}}}},
    "ServerEntry": {"type": "object", "required": ["name"], "description": "an mcp_servers.json entry plus its name",
                    "properties": {"name": {"type": "string"}, "command": {"type": "string"},
                                   "args": {"type": "array", "items": {"type": "string"}},
                                   "env": {"type": "object"}, "envFile": {"type": "string"}, "cwd": {"type": "string"},
                                   "url": {"type": "string"}, "headers": {"type": "object"},
                                   "type": {"type": "string",
                                            "enum": ["stdio", "http", "streamable-http", "streamableHttp", "sse"]},
                                   "description": {"type": "string"}, "disabled": {"type": "boolean"},
                                   "timeout": {"type": "number"}, "fallback": {"type": "string"},
                                   "allowed_tools": {"type": "array", "items": {"type": "string"}},
                                   "excluded_tools": {"type": "array", "items": {"type": "string"}},
                                   "confirm": {"type": "boolean", "default": False,
                                               "description": "ask the chat's user before each call of its tools"},
                                   "resource_tool": {"type": "boolean", "default": False,
                                                     "description": "offer the router `gateway__read_resource` "
                                                                    "for this server's resources"},
                                   "oauth": {"oneOf": [{"type": "boolean"}, {"type": "object", "properties": {
                                       "scope": {"type": "string"}}}]}}},
}

_PATHS: dict[str, Any] = {
    "/chat/{user}": {"post": {
        "summary": "Answer a message (or an MCP prompt), calling MCP tools as needed",
        "parameters": [_USER], "security": _USER_AUTH,
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ChatRequest"}}}},
        "responses": {"200": {"description": "the answer (JSON), or an SSE stream when stream=true",
                              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ChatResponse"}},
                                          "text/event-stream": {"schema": {"$ref": "#/components/schemas/ChatEvent"}}}},
                      **_errors(400, 401, 403, 404, 409, 413, 415, 500, 502, 503, 504)}}},
    "/chat/{user}/history": {
        "get": {"summary": "The default conversation's turns", "parameters": [_USER], "security": _USER_AUTH,
                "responses": {"200": _json({"$ref": "#/components/schemas/History"}, "oldest first"),
                              **_errors(400, 401, 403)}},
        "delete": {"summary": "Forget the default conversation's turns", "parameters": [_USER],
                   "security": _USER_AUTH,
                   "responses": {"200": _json({"type": "object"}, "how many turns were deleted"),
                                 **_errors(400, 401, 403)}}},
    "/chat/{user}/elicitations/{question_id}": {"post": {
        "summary": "Answer the question a tool asked during this user's streaming chat (SSE `elicitation`)",
        "parameters": [_USER, {"name": "question_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "security": _USER_AUTH,
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ElicitationAnswer"}}}},
        "responses": {"200": _json({"type": "object", "properties": {
            "id": {"type": "string"}, "action": {"type": "string"}, "delivered": {"type": "boolean"}}},
            "the answer reached the waiting tool call"), **_errors(400, 401, 403, 404, 413, 415)}}},
    "/chat/{user}/approvals/{approval_id}": {"post": {
        "summary": "Approve or deny the tool call the gateway asked about during this user's streaming chat "
                   "(SSE `approval`)",
        "parameters": [_USER, {"name": "approval_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "security": _USER_AUTH,
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ApprovalDecision"}}}},
        "responses": {"200": _json({"type": "object", "properties": {
            "id": {"type": "string"}, "decision": {"type": "string"}, "remember": {"type": "string"},
            "delivered": {"type": "boolean"}}},
            "the decision reached the waiting call (`remember` only when kept)"),
            **_errors(400, 401, 403, 404, 413, 415)}}},
    "/chat/{user}/approvals/policy": {
        "get": {"summary": "The user's remembered approval decisions, by server and tool", "parameters": [_USER],
                "security": _USER_AUTH,
                "responses": {"200": _json({"type": "object", "properties": {
                    "user": {"type": "string"}, "rules": {"type": "array", "items": {
                        "$ref": "#/components/schemas/ApprovalRule"}}}}, "rules"), **_errors(400, 401, 403)}},
        "delete": {"summary": "Forget all of the user's remembered approval decisions", "parameters": [_USER],
                   "security": _USER_AUTH,
                   "responses": {"200": _json({"type": "object", "properties": {
                       "user": {"type": "string"}, "deleted": {"type": "integer"}}}, "how many rules went"),
                       **_errors(400, 401, 403)}}},
    "/chat/{user}/approvals/policy/{server}/{tool}": {"put": {
        "summary": "Keep a decision for one tool, for a conversation or always (replacing the one of that scope): "
                   "how a JSON client, which is never asked, allows a call the reply's `approval` notice names. A "
                   "kept deny of either scope still wins",
        "parameters": [_USER, _POLICY_SERVER, _POLICY_TOOL], "security": _USER_AUTH,
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/PolicyRule"}}}},
        "responses": {"200": _json({"allOf": [{"$ref": "#/components/schemas/ApprovalRule"}, {
            "type": "object", "properties": {"user": {"type": "string"}}}]}, "the rule as kept"),
            "400": _json(_ERROR, "bad_json, bad_request (an unknown key, a bad server or tool name), bad_decision, "
                                 "bad_scope (not conversation or always; `conversation` with always; allowing a "
                                 "destructive tool for one conversation), bad_conversation"),
            "404": _json(_ERROR, "unknown_server, unknown_tool (the server is up and lists no such tool), "
                                 "unknown_conversation"),
            **_errors(401, 403, 413, 415)}}, "delete": {
        "summary": "Forget the decisions remembered for one tool (with `conversation`: only that conversation's)",
        "parameters": [_USER, _POLICY_SERVER, _POLICY_TOOL,
                       {"name": "conversation", "in": "query", "required": False, "schema": _CONVERSATION_ID}],
        "security": _USER_AUTH,
        "responses": {"200": _json({"type": "object", "properties": {
            "user": {"type": "string"}, "server": {"type": "string"}, "tool": {"type": "string"},
            "deleted": {"type": "integer"}}}, "how many rules went"), **_errors(400, 401, 403, 404)}}},
    "/chat/{user}/conversations": {
        "get": {"summary": "The user's conversations, the default one included, most recently used first",
                "parameters": [_USER], "security": _USER_AUTH,
                "responses": {"200": _json({"type": "object", "properties": {
                    "user": {"type": "string"}, "conversations": {"type": "array", "items": {
                        "$ref": "#/components/schemas/Conversation"}}}}, "conversations"),
                    **_errors(400, 401, 403)}},
        "post": {"summary": "Start a conversation", "parameters": [_USER], "security": _USER_AUTH,
                 "requestBody": {"required": True, "content": {"application/json": {
                     "schema": {"$ref": "#/components/schemas/ConversationTitle"}}}},
                 "responses": {"201": _json({"$ref": "#/components/schemas/Conversation"}, "created"),
                               **_errors(400, 401, 403, 409, 413, 415)}}},
    "/chat/{user}/conversations/{conversation}": {
        "get": {"summary": "One conversation with its turns", "parameters": [_USER, _CONVERSATION],
                "security": _USER_AUTH,
                "responses": {"200": _json({"allOf": [{"$ref": "#/components/schemas/Conversation"},
                                                      {"$ref": "#/components/schemas/History"}]}, "oldest first"),
                              **_errors(400, 401, 403, 404)}},
        "patch": {"summary": "Rename a conversation", "parameters": [_USER, _CONVERSATION], "security": _USER_AUTH,
                  "requestBody": {"required": True, "content": {"application/json": {
                      "schema": {"$ref": "#/components/schemas/ConversationRename"}}}},
                  "responses": {"200": _json({"$ref": "#/components/schemas/Conversation"}, "renamed"),
                                **_errors(400, 401, 403, 404, 413, 415)}},
        "delete": {"summary": "Delete a conversation and its turns (the default one is emptied instead)",
                   "parameters": [_USER, _CONVERSATION], "security": _USER_AUTH,
                   "responses": {"200": _json({"type": "object"}, "how many turns were deleted"),
                                 **_errors(400, 401, 403, 404)}}},
    "/chat/{user}/search": {"get": {
        "summary": "Full-text search over all of the user's messages (every term of q, case-insensitive; any "
                   "script), newest first, at most 50",
        "parameters": [_USER, {"name": "q", "in": "query", "required": True, "schema": {
            "type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS, "pattern": TITLE_PATTERN}}],
        "security": _USER_AUTH,
        "responses": {"200": _json({"type": "object", "properties": {
            "user": {"type": "string"}, "query": {"type": "string"}, "results": {"type": "array", "items": {
                "type": "object", "properties": {
                    "conversation": _CONVERSATION_ID, "title": {"type": "string"},
                    "role": {"type": "string", "enum": ["user", "assistant"]},
                    "snippet": {"type": "string", "description": "the message around its first match"},
                    "created_at": {"type": "number", "description": "Unix seconds"}}}}}}, "matches"),
            **_errors(400, 401, 403)}}},
    "/chat/{user}/conversations/{conversation}/export": {"get": {
        "summary": "One conversation as a file (Content-Disposition: attachment): Markdown or JSON, with its "
                   "notices and absolute links to its charts, audio and files",
        "parameters": [_USER, _CONVERSATION, {"name": "format", "in": "query", "schema": {
            "type": "string", "enum": list(EXPORT_FORMATS), "default": EXPORT_FORMATS[0]}}],
        "security": _USER_AUTH,
        "responses": {"200": {"description": "the file", "content": {
            "text/markdown": {"schema": {"type": "string"}},
            "application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/Conversation"},
                                                      {"$ref": "#/components/schemas/History"}]}}}},
            **_errors(400, 401, 403, 404)}}},
    "/profiles": {"get": {
        "summary": "The model profiles a conversation may pick (`profile` in POST /chat/{user}), without secrets",
        "responses": {"200": _json({"type": "object", "properties": {
            "default": {"type": "string"},
            "profiles": {"type": "array", "items": {"$ref": "#/components/schemas/Profile"}}}},
            "in the configuration's order")}}},
    "/servers": {
        "get": {"summary": "The MCP server registry with each server's state", "security": _USER_AUTH,
                "responses": {"200": _json({"type": "object"}, "servers"), **_errors(401)}},
        "post": {"summary": "Register an MCP server at runtime (admin)", "security": _ADMIN,
                 "requestBody": {"required": True, "content": {"application/json": {
                     "schema": {"$ref": "#/components/schemas/ServerEntry"}}}},
                 "responses": {"201": _json({"type": "object"}, "registered"), **_errors(400, 401, 403, 413)}}},
    "/servers/{name}": {"delete": {
        "summary": "Unregister an MCP server (admin)", "security": _ADMIN,
        "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": _json({"type": "object"}, "removed"), **_errors(401, 403, 404)}}},
    "/chat/{user}/oauth": {"get": {
        "summary": "The servers that ask each user to authorize (OAuth), and whether this user has",
        "parameters": [_USER], "security": _USER_AUTH,
        "responses": {"200": _json({"type": "object", "properties": {"user": {"type": "string"}, "servers": {
            "type": "array", "items": {"$ref": "#/components/schemas/UserAuthorization"}}}}, "authorizations"),
            **_errors(400, 401, 403)}}},
    "/chat/{user}/oauth/{name}": {
        "post": {"summary": "Start this user's OAuth flow for a server: open `authorization_url` to consent (null "
                            "once connected)", "parameters": [_USER, _SERVER], "security": _USER_AUTH,
                 "responses": {"200": _json({"$ref": "#/components/schemas/UserAuthorization"}, "the flow's state"),
                               **_errors(400, 401, 403, 404)}},
        "delete": {"summary": "Revoke this user's authorization: close their session, forget their tokens",
                   "parameters": [_USER, _SERVER], "security": _USER_AUTH,
                   "responses": {"200": _json({"type": "object", "properties": {
                       "user": {"type": "string"}, "server": {"type": "string"}, "revoked": {"type": "boolean"}}},
                       "revoked (false: the user had not authorized it)"), **_errors(400, 401, 403)}}},
    "/oauth/callback": {"get": {
        "summary": "The authorization server's redirect after a user authorized the gateway (for that user only)",
        "parameters": [{"name": "state", "in": "query", "required": True, "schema": {"type": "string", "minLength": 1}},
                       *({"name": key, "in": "query", "schema": {"type": "string"}}
                         for key in ("code", "iss", "error", "error_description"))],
        "description": "A browser (Accept prefers text/html) gets a page: signed in to the server as the user, or "
                       "why not (also for the errors, with their status); it tells the chat page's Connections "
                       "through a BroadcastChannel. Any other caller gets JSON.",
        "responses": {
            "200": {"description": "the code (or the authorization server's `error`) reached the waiting flow",
                    "content": {"application/json": {"schema": {"type": "object", "properties": {
                        "server": {"type": "string"}, "user": {"type": "string"}, "received": {"type": "boolean"},
                        "message": {"type": "string"},
                        "error": {"type": "string", "description": "the authorization server's refusal, if any"}},
                        "required": ["server", "user", "received", "message"]}},
                                "text/html": {"schema": {"type": "string"}}}},
            **{status: {**body, "content": {**body["content"], "text/html": {"schema": {"type": "string"}}}}
               for status, body in _errors(400, 404).items()}}}},
    "/resources": {"get": {
        "summary": "Every connected server's MCP resources and resource templates", "security": _USER_AUTH,
        "responses": {"200": _json({"type": "object", "properties": {
            "resources": {"type": "array", "items": {"$ref": "#/components/schemas/ResourceEntry"}},
            "templates": {"type": "array", "items": {"$ref": "#/components/schemas/ResourceEntry"}}}},
            "resources and templates"), **_errors(401)}}},
    "/resources/read": {"get": {
        "summary": "Read one resource (a template's URI filled in); binary parts come base64 in the JSON",
        "security": _USER_AUTH,
        "parameters": [{"name": key, "in": "query", "required": True, "schema": {"type": "string", "minLength": 1}}
                       for key in ("server", "uri")],
        "responses": {"200": _json({"$ref": "#/components/schemas/ResourceRead"}, "the resource's contents"),
                      **_errors(400, 401, 404, 503, 504)}}},
    "/tools": {"get": {"summary": "Every exposed tool, named server__tool", "security": _USER_AUTH,
                       "responses": {"200": _json({"type": "object"}, "tools"), **_errors(401)}}},
    "/prompts": {"get": {"summary": "Every connected server's MCP prompts with their arguments",
                         "security": _USER_AUTH,
                         "responses": {"200": _json({"$ref": "#/components/schemas/PromptList"}, "prompts"),
                                       **_errors(401)}}},
    "/media/{media_id}": {"get": {
        "summary": "An image (chart), audio clip or file a tool returned: images and audio in place, other types as "
                   "a download",
        "parameters": [_MEDIA_ID],
        "responses": {"200": {"description": "the file, with its type", "content": {"image/png": {}, "audio/wav": {},
                                                                                    "application/octet-stream": {}}},
                      **_errors(404)}}},
    "/media/{media_id}/{name}": {"get": {
        "summary": "The same file as a download (Content-Disposition: attachment) named `name`",
        "parameters": [_MEDIA_ID, {"name": "name", "in": "path", "required": True, "schema": {"type": "string"},
                                   "description": "the file name to save it as (made safe)"}],
        "responses": {"200": {"description": "the file, with its type",
                              "content": {"application/octet-stream": {}}}, **_errors(404)}}},
    "/health": {"get": {"summary": "Whether the LLM answers, each MCP server's state, start-up warnings, and the "
                                   "warm-up's progress",
                        "responses": {"200": _json({"type": "object", "properties": {
                            "status": {"type": "string", "enum": ["ok", "warming", "degraded"]},
                            "servers": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                                "up": {"type": "boolean"}, "disabled": {"type": "boolean"},
                                "needs_authorization": {"type": "boolean", "description":
                                    "each user signs in (OAuth): GET /chat/{user}/oauth says whether they have"}}}},
                            "warm_up": {"type": "object", "properties": {
                                "state": {"type": "string", "enum": ["idle", "warming", "ready", "failed"]},
                                "done": {"type": "integer"}, "total": {"type": "integer",
                                "description": "prompt tokens the backend has read of the warm-up's prompts, of all "
                                               "(0 from a backend that does not report its prefill)"},
                                "error": {"type": ["string", "null"]}}}}}, "component states")}}},
    "/openapi.json": {"get": {"summary": "This document", "responses": {"200": _json({"type": "object"}, "OpenAPI")}}},
    "/": {"get": {"summary": "The web chat page (HTML; its script and stylesheet are under /static/)",
                  "responses": {"200": {"description": "the page", "content": {"text/html": {"schema": {"type": "string"}}}}}}},
}


def openapi_document(profiles: list[str] | None = None) -> dict[str, Any]:
    """The whole OpenAPI document; with this gateway's `profiles`, the chat request's `profile` lists them (any
    other name is refused, so a client can read the choice from the schema)."""
    schemas = _SCHEMAS
    if profiles:
        chat = _SCHEMAS["ChatRequest"]
        profile = {**chat["properties"]["profile"], "enum": profiles}
        schemas = {**_SCHEMAS, "ChatRequest": {**chat, "properties": {**chat["properties"], "profile": profile}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "mcp-chat gateway", "version": "0.1.0",
                 "description": "Natural-language chat over MCP tools, with an OpenAI-compatible LLM."},
        "paths": _PATHS,
        "components": {"schemas": schemas, "securitySchemes": {"bearerToken": {
            "type": "http", "scheme": "bearer",
            "description": "a user's token (mcp-chat token USER) or the admin token (MCP_CHAT_ADMIN_TOKEN)"}}},
    }
