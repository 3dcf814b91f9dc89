"""Check a model's tool arguments against the tool's inputSchema before calling it."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

_NUMERIC = {"integer": int, "number": float}


def decode_arguments(raw: str | dict[str, Any] | Any) -> dict[str, Any]:
    """Model arguments as a dict; raises ValueError with a message the model can act on."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except ValueError as error:
            raise ValueError(f"arguments are not valid JSON: {error}") from error
    if not isinstance(raw, dict):
        raise ValueError("arguments must be a JSON object")
    return raw


def tidy_arguments(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Fix what small models get wrong without changing meaning: keys the schema does not know
    (they echo schema words like `required`) are dropped, and "2" becomes 2 where a number is wanted."""
    properties = schema.get("properties", {})
    if properties and schema.get("additionalProperties") is not True:
        arguments = {name: value for name, value in arguments.items() if name in properties}
    coerced = dict(arguments)
    for name, value in arguments.items():
        wanted = properties.get(name, {}).get("type")
        if isinstance(value, str) and wanted in _NUMERIC:
            try:
                number = float(value)
            except ValueError:
                continue
            coerced[name] = int(number) if wanted == "integer" and number.is_integer() else number
        elif isinstance(value, str) and wanted == "boolean" and value.lower() in ("true", "false"):
            coerced[name] = value.lower() == "true"
    return coerced


def validation_error(arguments: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """None when valid, else the first error in one line (what the model gets to repair its call)."""
    validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    errors = sorted(validator_class(schema).iter_errors(arguments), key=lambda error: list(error.path))
    if not errors:
        return None
    error = errors[0]
    where = ".".join(str(part) for part in error.path) or "arguments"
    return f"{where}: {error.message}"
