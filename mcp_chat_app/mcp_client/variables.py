"""Variables in registry values, in each host's syntax.

`${VAR}` and `${VAR:-default}` (Claude Code, and ours since the start) read the gateway's environment (and .env);
VS Code's and Cursor's `${env:VAR}`, `${workspaceFolder}`, `${userHome}` and `${input:id}` work too. An input is
something VS Code would prompt for (an API key, usually); a gateway prompts no one, so it comes from the
variable `MCP_INPUT_<ID>` (the id upper-cased, other characters as `_`), else the input's `default`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_PLAIN = re.compile(r"^(\w+)(?::-(.*))?$", re.DOTALL)
# Folders hosts keep their project-level file in: the workspace is the folder above them.
_HOST_FOLDERS = {".vscode", ".cursor"}


def input_variable(input_id: str) -> str:
    """The environment variable that answers VS Code input `input_id`."""
    return "MCP_INPUT_" + re.sub(r"[^A-Za-z0-9]", "_", input_id).upper()


@dataclass(frozen=True)
class Variables:
    """Expands the variables of one registry file."""

    workspace: Path = field(default_factory=Path.cwd)
    input_defaults: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def for_registry(cls, path: Path, inputs: list[Any]) -> Variables:
        """`${workspaceFolder}` is the project of a `.vscode/mcp.json` or `.cursor/mcp.json`; for any other file,
        the folder the gateway runs in (a copied file is run from the project it was copied into)."""
        folder = path.resolve().parent
        workspace = folder.parent if folder.name in _HOST_FOLDERS else Path.cwd()
        defaults = {item["id"]: item.get("default") for item in inputs
                    if isinstance(item, dict) and isinstance(item.get("id"), str)}
        return cls(workspace, defaults)

    def expand(self, text: str) -> str:
        """`text` with every `${...}` replaced; ValueError for an unanswered input or an unknown variable."""
        return _REFERENCE.sub(lambda match: self._value(match.group(1)), text)

    def path(self, text: str) -> Path:
        """An expanded path; a relative one is taken from the workspace."""
        path = Path(self.expand(text)).expanduser()
        return path if path.is_absolute() else self.workspace / path

    def _value(self, reference: str) -> str:
        kind, _, argument = reference.partition(":")
        if kind == "env" and argument:
            return os.environ.get(argument, "")
        if kind == "input" and argument:
            return self._input(argument)
        if reference == "workspaceFolder":
            return str(self.workspace)
        if reference == "userHome":
            return str(Path.home())
        if reference in ("/", "pathSeparator"):
            return os.sep
        plain = _PLAIN.match(reference)
        if plain is None:
            raise ValueError(f"unsupported variable ${{{reference}}}")
        return os.environ.get(plain.group(1)) or plain.group(2) or ""

    def _input(self, input_id: str) -> str:
        variable = input_variable(input_id)
        value = os.environ.get(variable) or self.input_defaults.get(input_id)
        if value is None:
            raise ValueError(f"needs the VS Code input {input_id!r}: set {variable} in the environment or .env")
        return value
