"""The registry and its tools; runtime registration for admins only."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request

from mcp_chat_app.gateway import gateway
from mcp_chat_app.mcp_client.registry import parse_server_spec
from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.requests import json_object
from mcp_chat_app.web.routes.body import request_body

blueprint = Blueprint("servers", __name__)


def _require_admin() -> None:
    gateway().access.check_admin(request.headers.get("Authorization"))


def _require_any_token() -> None:
    gateway().access.check_any(request.headers.get("Authorization"))


def _status_of(name: str) -> dict[str, Any]:
    return next(row for row in gateway().manager.status() if row["name"] == name)


@blueprint.get("/servers")
def list_servers() -> Any:
    """Every registered server with its state."""
    _require_any_token()
    return jsonify({"servers": gateway().manager.status()})


@blueprint.get("/tools")
def list_tools() -> Any:
    """Every exposed tool, namespaced `server__tool`."""
    _require_any_token()
    return jsonify({"tools": [
        {"name": tool.qualified_name, "server": tool.server, "tool": tool.name,
         "description": tool.description, "input_schema": tool.input_schema}
        for tool in gateway().manager.tools()
    ]})


@blueprint.post("/servers")
def add_server() -> Any:
    """Register a server: `{"name": ..., "command"/"url": ..., ...}` as in mcp_servers.json."""
    _require_admin()
    body = json_object(request_body())
    if not isinstance(body.get("name"), str):
        raise GatewayError(400, "bad_request", "the body must be a JSON object with a 'name'")
    entry = {key: value for key, value in body.items() if key != "name"}
    try:
        spec = parse_server_spec(body["name"], entry)
    except ValueError as error:
        raise GatewayError(400, "bad_server", str(error)) from error
    gateway().manager.add_server(spec)
    return jsonify(_status_of(spec.name)), 201


@blueprint.delete("/servers/<name>")
def remove_server(name: str) -> Any:
    """Unregister a server and stop its session."""
    _require_admin()
    if not gateway().manager.remove_server(name):
        raise GatewayError(404, "unknown_server", f"no server named {name!r}")
    return jsonify({"removed": name})
