"""Validation of OpenAI `tools` / `tool_choice` request fields.

Malformed tools must be refused with a message that names the offending field, before
anything is compiled or rendered: a 0.5B model cannot recover from a broken schema.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import jsonschema

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")


class ToolSpecError(ValueError):
    """A malformed `tools`, `tool_choice` or `response_format`; `param` names the field."""

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class ToolChoice:
    """`mode` is none/auto/required/named; `name` is set only for a named function."""

    mode: Literal["none", "auto", "required", "named"]
    name: str | None = None


def validate_tools(tools: list[Any]) -> list[dict]:
    """Return the tools in canonical `{"type": "function", "function": {...}}` form.

    Raises ToolSpecError on a wrong shape, a bad or duplicate name, or a parameters
    value that is not a valid JSON Schema object schema."""
    canonical: list[dict] = []
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict) or tool.get("type") != "function":
            raise ToolSpecError(f"{where}: each tool must be an object with type 'function'.", where)
        function = tool.get("function")
        if not isinstance(function, dict):
            raise ToolSpecError(f"{where}.function: missing or not an object.", f"{where}.function")
        name = function.get("name")
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            raise ToolSpecError(
                f"{where}.function.name: must be 1-64 characters of letters, digits, '_', '.' "
                f"or '-', got {name!r}.", f"{where}.function.name")
        if name in seen:
            raise ToolSpecError(f"{where}.function.name: duplicate tool name {name!r}.",
                                f"{where}.function.name")
        seen.add(name)
        parameters = function.get("parameters", {"type": "object", "properties": {}})
        _check_parameters_schema(parameters, f"{where}.function.parameters")
        description = function.get("description")
        if description is not None and not isinstance(description, str):
            raise ToolSpecError(f"{where}.function.description: must be a string.",
                                f"{where}.function.description")
        entry = {"name": name, "parameters": parameters}
        if description:
            entry["description"] = description
        canonical.append({"type": "function", "function": entry})
    return canonical


def _check_parameters_schema(schema: Any, where: str) -> None:
    if not isinstance(schema, dict):
        raise ToolSpecError(f"{where}: must be a JSON Schema object, got {type(schema).__name__}.",
                            where)
    if schema.get("type", "object") != "object":
        raise ToolSpecError(f"{where}: the arguments schema must have type 'object'.", where)
    check_json_schema(schema, where)


def check_json_schema(schema: Any, where: str) -> None:
    """Raise ToolSpecError unless `schema` is a valid JSON Schema (2020-12 meta-schema)."""
    if not isinstance(schema, dict):
        raise ToolSpecError(f"{where}: must be a JSON Schema object.", where)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        path = "".join(f"[{p!r}]" for p in exc.absolute_path)
        raise ToolSpecError(f"{where}{path}: invalid JSON Schema: {exc.message}", where) from exc


def resolve_tool_choice(tool_choice: Any, tools: list[dict]) -> ToolChoice:
    """Interpret `tool_choice` against validated tools (OpenAI defaults: auto with tools)."""
    if tool_choice is None:
        return ToolChoice("auto" if tools else "none")
    if tool_choice in ("none", "auto", "required"):
        if tool_choice != "none" and not tools:
            raise ToolSpecError(f"tool_choice '{tool_choice}' needs a non-empty 'tools' list.",
                                "tool_choice")
        return ToolChoice(tool_choice)
    if isinstance(tool_choice, dict) and tool_choice.get("type") == "function":
        name = (tool_choice.get("function") or {}).get("name")
        if name not in {tool["function"]["name"] for tool in tools}:
            raise ToolSpecError(f"tool_choice names function {name!r}, which is not in 'tools'.",
                                "tool_choice")
        return ToolChoice("named", name)
    raise ToolSpecError("tool_choice must be 'none', 'auto', 'required' or "
                        "{'type': 'function', 'function': {'name': ...}}.", "tool_choice")
