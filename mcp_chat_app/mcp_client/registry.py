"""The MCP server registry: the server files of Claude Desktop, Cursor, VS Code, Claude Code and Cline, plus our keys.

A file copied from any of those hosts loads unchanged: `mcpServers` (Claude Desktop, Cursor, Claude Code, Cline) or
`servers` (VS Code's `.vscode/mcp.json`, with its `inputs`), `type` / `transportType` (`stdio`, `http`,
`streamable-http`, `streamableHttp`, `sse`), `envFile`, `description`, and the variables of each format. Keys that
mean nothing to a gateway are ignored with a log line. A bad entry is set aside with its error and never stops
the others (`Registry.rejected`).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

from mcp_chat_app.mcp_client.variables import Variables

logger = logging.getLogger(__name__)

TRANSPORTS = ("stdio", "http", "sse")
_TRANSPORT_OF_TYPE = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamableHttp": "http",
                      "streamable_http": "http", "sse": "sse"}
_HONOURED_KEYS = {
    "type", "transportType", "command", "args", "env", "envFile", "cwd", "url", "headers", "description",
    "disabled", "timeout", "fallback", "allowed_tools", "excluded_tools", "oauth", "confirm", "resource_tool",
}
# Keys of other hosts that a gateway has no use for, with what the log line tells the operator.
_HOST_ONLY_KEYS = {
    "autoApprove": "the gateway asks before a call only with 'confirm': true; restrict tools with 'allowed_tools'",
    "alwaysAllow": "the gateway asks before a call only with 'confirm': true; restrict tools with 'allowed_tools'",
    "dev": "VS Code's watch/debug mode",
}
_MAX_TIMEOUT_S = 3600.0


@dataclass(frozen=True)
class ServerSpec:
    """How to reach one MCP server and which of its tools to expose."""

    name: str
    transport: str = "stdio"  # one of TRANSPORTS
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    description: str = ""
    disabled: bool = False
    timeout: float = 30.0
    fallback: str | None = None
    allowed_tools: list[str] | None = None
    excluded_tools: list[str] = field(default_factory=list)
    # OAuth 2.1 for url servers that answer 401 (the MCP authorization spec); off with `"oauth": false` or a
    # static `Authorization` header. `oauth_scope` overrides the scope the server asks for.
    oauth: bool = True
    oauth_scope: str | None = None
    # Ask the chat's user before each call of this server's tools (a streaming client approves or denies it).
    confirm: bool = False
    # Offer the router the gateway's `read_resource` tool for this server's resources (off: it grows the prompt).
    resource_tool: bool = False
    ignored_keys: tuple[str, ...] = ()

    @property
    def uses_oauth(self) -> bool:
        """Whether a 401 from this server starts the OAuth flow."""
        has_static_auth = any(key.lower() == "authorization" for key in self.headers)
        return self.transport != "stdio" and self.oauth and not has_static_auth

    def exposes(self, tool_name: str) -> bool:
        """Whether `allowed_tools` / `excluded_tools` let this tool through."""
        if self.allowed_tools is not None and tool_name not in self.allowed_tools:
            return False
        return tool_name not in self.excluded_tools


@dataclass(frozen=True)
class Registry:
    """What a registry file yielded: the usable entries, by name why the others were set aside, and why the
    file as a whole could not be read (then there are no entries)."""

    servers: dict[str, ServerSpec] = field(default_factory=dict)
    rejected: dict[str, str] = field(default_factory=dict)
    error: str | None = None


def _valid_name(name: Any) -> bool:
    return isinstance(name, str) and name.replace("-", "").replace("_", "").isalnum() and "__" not in name


def _string_list(name: str, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"server {name!r}: {key!r} must be a list of strings")
    return value


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _string_map(name: str, key: str, value: Any, variables: Variables) -> dict[str, str]:
    """An object of strings; numbers become strings and nulls are dropped (VS Code allows both in `env`)."""
    if not isinstance(value, dict) or not all(_is_scalar(item) for item in value.values()):
        raise ValueError(f"server {name!r}: {key!r} must be an object of strings")
    return {k: variables.expand(str(v)) for k, v in value.items() if v is not None}


def _transport(name: str, entry: dict[str, Any]) -> str:
    declared = entry.get("type", entry.get("transportType"))
    command, url = entry.get("command"), entry.get("url")
    if bool(command) == bool(url):
        raise ValueError(f"server {name!r}: give exactly one of 'command' (stdio) or 'url' (HTTP)")
    if declared is None:
        return "stdio" if command else "http"
    transport = _TRANSPORT_OF_TYPE.get(declared) if isinstance(declared, str) else None
    if transport is None:
        raise ValueError(f"server {name!r}: unknown type {declared!r}; use stdio, http (streamable-http) or sse")
    if (transport == "stdio") != bool(command):
        raise ValueError(f"server {name!r}: type {declared!r} needs {'command' if transport == 'stdio' else 'url'!r}")
    return transport


def _env_file(name: str, value: Any, variables: Variables) -> dict[str, str]:
    """VS Code's / Cursor's `envFile`: a dotenv file whose variables the entry's own `env` overrides."""
    if not isinstance(value, str):
        raise ValueError(f"server {name!r}: 'envFile' must be a path")
    path = variables.path(value)
    if not path.is_file():
        raise ValueError(f"server {name!r}: envFile {str(path)!r} does not exist")
    return {key: text for key, text in dotenv_values(path).items() if text is not None}


def _oauth(name: str, value: Any) -> tuple[bool, str | None]:
    if isinstance(value, bool):
        return value, None
    if isinstance(value, dict) and set(value) <= {"scope"} and isinstance(value.get("scope", ""), str):
        return True, value.get("scope")
    raise ValueError(f"server {name!r}: 'oauth' must be false, true or {{\"scope\": \"...\"}}")


def _note_ignored(name: str, keys: list[str]) -> None:
    for key in keys:
        reason = _HOST_ONLY_KEYS.get(key, "not a key this gateway knows")
        level = logging.INFO if key in _HOST_ONLY_KEYS else logging.WARNING
        logger.log(level, "MCP server %s: ignoring %r (%s)", name, key, reason)


def parse_server_spec(name: str, entry: Any, variables: Variables | None = None) -> ServerSpec:
    """Validate one entry; raises ValueError with a message fit for an API caller (naming the keys it would have
    ignored, which are often the typo behind the error)."""
    variables = variables or Variables()
    if not _valid_name(name):
        raise ValueError(f"server name {name!r} must be letters, digits, '-' or single '_'")
    if not isinstance(entry, dict):
        raise ValueError(f"server {name!r}: entry must be an object")
    ignored = sorted(set(entry) - _HONOURED_KEYS)
    try:
        spec = _parse_entry(name, entry, variables, tuple(ignored))
    except ValueError as error:
        raise ValueError(f"{error} (unknown keys: {ignored})" if ignored else str(error)) from None
    _note_ignored(name, ignored)
    return spec


def _parse_entry(name: str, entry: dict[str, Any], variables: Variables, ignored: tuple[str, ...]) -> ServerSpec:
    transport = _transport(name, entry)
    command, url = entry.get("command"), entry.get("url")
    if command is not None and not isinstance(command, str):
        raise ValueError(f"server {name!r}: 'command' must be a string")
    url = variables.expand(url) if isinstance(url, str) else url
    if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
        raise ValueError(f"server {name!r}: 'url' must be an http(s) URL")
    timeout = entry.get("timeout", 30.0)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= _MAX_TIMEOUT_S:
        raise ValueError(f"server {name!r}: 'timeout' must be a number of seconds in (0, {_MAX_TIMEOUT_S:g}]")
    for key, kind in (("cwd", str), ("fallback", str), ("disabled", bool), ("description", str), ("confirm", bool),
                      ("resource_tool", bool)):
        if entry.get(key) is not None and not isinstance(entry[key], kind):
            raise ValueError(f"server {name!r}: {key!r} must be a {kind.__name__}")
    env = _env_file(name, entry["envFile"], variables) if "envFile" in entry else {}
    env.update(_string_map(name, "env", entry.get("env", {}), variables))
    oauth, oauth_scope = _oauth(name, entry.get("oauth", True))
    allowed = entry.get("allowed_tools")
    return ServerSpec(
        name=name,
        transport=transport,
        command=variables.expand(command) if command else None,
        args=[variables.expand(arg) for arg in _string_list(name, "args", entry.get("args", []))],
        env=env,
        cwd=variables.expand(entry["cwd"]) if entry.get("cwd") else None,
        url=url,
        headers=_string_map(name, "headers", entry.get("headers", {}), variables),
        description=entry.get("description") or "",
        disabled=bool(entry.get("disabled", False)),
        timeout=float(timeout),
        fallback=entry.get("fallback"),
        allowed_tools=None if allowed is None else _string_list(name, "allowed_tools", allowed),
        excluded_tools=_string_list(name, "excluded_tools", entry.get("excluded_tools", [])),
        oauth=oauth,
        oauth_scope=oauth_scope,
        confirm=bool(entry.get("confirm", False)),
        resource_tool=bool(entry.get("resource_tool", False)),
        ignored_keys=ignored,
    )


def tool_safe_name(name: Any) -> str:
    """A host's server name as tool names can carry it (`server__tool`): valid names stay, VS Code names like
    `io.github.x/server` or `My Server` become `io-github-x-server`, `My-Server`."""
    if _valid_name(name):
        return name
    return re.sub(r"[^A-Za-z0-9]+", "-", str(name)).strip("-") or "server"


def _entries(document: Any) -> tuple[list[tuple[str, Any]], list[Any]]:
    """The (name, entry) pairs of any supported shape, and VS Code's `inputs`."""
    if not isinstance(document, dict):
        raise ValueError("the file must hold a JSON object")
    sections = [document[key] for key in ("mcpServers", "servers") if key in document]
    if not all(isinstance(section, dict) for section in sections):
        raise ValueError("'mcpServers' / 'servers' must be objects")
    inputs = document.get("inputs", [])
    return [pair for section in sections for pair in section.items()], inputs if isinstance(inputs, list) else []


def load_registry(path: Path) -> Registry:
    """Read the registry file; a missing file means no servers, and so does one that is not valid JSON or not
    one of the known shapes (`Registry.error` says why)."""
    if not path.exists():
        return Registry()
    try:
        entries, inputs = _entries(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, UnicodeDecodeError) as error:
        return Registry(error=f"{path}: {error}")
    variables = Variables.for_registry(path, inputs)
    servers: dict[str, ServerSpec] = {}
    rejected: dict[str, str] = {}
    for original, entry in entries:
        name = tool_safe_name(original)
        if name != original:
            logger.info("MCP server %r is registered as %r (tool names carry it)", original, name)
        try:
            if name in servers or name in rejected:  # which one was meant is unknowable: neither is used
                servers.pop(name, None)
                raise ValueError(f"server {name!r} is defined more than once (last as {original!r})")
            servers[name] = parse_server_spec(name, entry, variables)
        except ValueError as error:
            rejected[name] = str(error)
            logger.warning("MCP server %s disabled: %s", name, error)
    return Registry(servers, rejected)
