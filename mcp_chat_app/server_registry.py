"""The MCP server registry: Claude Desktop / Cursor style `mcpServers` JSON plus our own keys."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Keys we add on top of the Claude Desktop format; everything else there is ignored, so a
# file copied from Claude Desktop or Cursor loads unchanged.
_KNOWN_KEYS = {
    "command", "args", "env", "cwd", "url", "headers",
    "disabled", "timeout", "fallback", "allowed_tools", "excluded_tools",
}


@dataclass(frozen=True)
class ServerSpec:
    """How to reach one MCP server and which of its tools to expose."""

    name: str
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    timeout: float = 30.0
    fallback: str | None = None
    allowed_tools: list[str] | None = None
    excluded_tools: list[str] = field(default_factory=list)

    @property
    def transport(self) -> str:
        """`stdio` when a command is configured, otherwise `http`."""
        return "stdio" if self.command else "http"

    def exposes(self, tool_name: str) -> bool:
        """Whether `allowed_tools` / `excluded_tools` let this tool through."""
        if self.allowed_tools is not None and tool_name not in self.allowed_tools:
            return False
        return tool_name not in self.excluded_tools


_MAX_TIMEOUT_S = 3600.0
_VARIABLE = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}")


def _expand(value: str) -> str:
    """`${VAR}` / `${VAR:-default}` from the gateway's environment: lets a committed registry pass
    settings and secrets from .env to servers (stdio servers inherit only a minimal environment)."""
    return _VARIABLE.sub(lambda match: os.environ.get(match.group(1), match.group(2) or ""), value)


def _string_list(name: str, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"server {name!r}: {key!r} must be a list of strings")
    return value


def _string_map(name: str, key: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"server {name!r}: {key!r} must be an object of strings")
    return {k: _expand(v) for k, v in value.items()}


def parse_server_spec(name: str, entry: Any) -> ServerSpec:
    """Validate one `mcpServers` entry; raises ValueError with a message fit for an API caller."""
    if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum() or "__" in name:
        raise ValueError(f"server name {name!r} must be letters, digits, '-' or single '_'")
    if not isinstance(entry, dict):
        raise ValueError(f"server {name!r}: entry must be an object")
    unknown = set(entry) - _KNOWN_KEYS
    if unknown:
        raise ValueError(f"server {name!r}: unknown keys {sorted(unknown)}")
    command, url = entry.get("command"), entry.get("url")
    if bool(command) == bool(url):
        raise ValueError(f"server {name!r}: give exactly one of 'command' (stdio) or 'url' (HTTP)")
    if command is not None and not isinstance(command, str):
        raise ValueError(f"server {name!r}: 'command' must be a string")
    if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
        raise ValueError(f"server {name!r}: 'url' must be an http(s) URL")
    timeout = entry.get("timeout", 30.0)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= _MAX_TIMEOUT_S:
        raise ValueError(f"server {name!r}: 'timeout' must be a number of seconds in (0, {_MAX_TIMEOUT_S:g}]")
    for key, kind in (("cwd", str), ("fallback", str), ("disabled", bool)):
        if entry.get(key) is not None and not isinstance(entry[key], kind):
            raise ValueError(f"server {name!r}: {key!r} must be a {kind.__name__}")
    allowed = entry.get("allowed_tools")
    return ServerSpec(
        name=name,
        command=command,
        args=_string_list(name, "args", entry.get("args", [])),
        env=_string_map(name, "env", entry.get("env", {})),
        cwd=entry.get("cwd"),
        url=_expand(url) if url else None,
        headers=_string_map(name, "headers", entry.get("headers", {})),
        disabled=bool(entry.get("disabled", False)),
        timeout=float(timeout),
        fallback=entry.get("fallback"),
        allowed_tools=None if allowed is None else _string_list(name, "allowed_tools", allowed),
        excluded_tools=_string_list(name, "excluded_tools", entry.get("excluded_tools", [])),
    )


def load_registry(path: Path) -> dict[str, ServerSpec]:
    """Read the registry file; a missing file means no servers."""
    if not path.exists():
        return {}
    document = json.loads(path.read_text(encoding="utf-8"))
    servers = document.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError(f"{path}: 'mcpServers' must be an object")
    return {name: parse_server_spec(name, entry) for name, entry in servers.items()}
