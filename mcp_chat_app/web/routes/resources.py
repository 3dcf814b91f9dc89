"""The servers' MCP resources: `GET /resources` lists them with their templates, `GET /resources/read` reads one.

A read answers JSON in every case: text parts as `text`, binary ones base64 as `blob` (MCP's own shape), so a read
of several parts, or a picture beside its caption, needs no second format.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from mcp import MCPError

from mcp_chat_app.gateway import gateway
from mcp_chat_app.mcp_client.connection import ServerUnavailable
from mcp_chat_app.mcp_client.resources import RESOURCE_NOT_FOUND_CODES, ResourceRead, UnknownServer
from mcp_chat_app.web.errors import GatewayError

blueprint = Blueprint("resources", __name__)


def read_resource(server: str, uri: str, subscribe: bool = False) -> ResourceRead:
    """Read one resource, or the HTTP error that says why not: 404 for an unknown server or URI, 400 for another
    refusal of the server (in its words), 503 while the server is down, 504 when it does not answer in time."""
    try:
        return gateway().manager.read_resource(server, uri, subscribe)
    except UnknownServer as error:
        raise GatewayError(404, "unknown_server", str(error)) from error
    except ServerUnavailable as error:
        raise GatewayError(503, "server_unavailable", str(error)) from error
    except TimeoutError as error:
        raise GatewayError(504, "server_timeout", f"{server!r} did not answer the read of {uri!r} in time") from error
    except MCPError as error:
        if error.code in RESOURCE_NOT_FOUND_CODES:
            raise GatewayError(404, "unknown_resource", f"{server!r}: {error.message}") from error
        raise GatewayError(400, "resource_error", f"{server!r}: {error.message}") from error


@blueprint.get("/resources")
def list_resources() -> Any:
    """Every connected server's resources and resource templates."""
    gateway().access.check_any(request.headers.get("Authorization"))
    entries = gateway().manager.resources()
    return jsonify({"resources": [entry.to_json() for entry in entries if entry.uri is not None],
                    "templates": [entry.to_json() for entry in entries if entry.uri is None]})


@blueprint.get("/resources/read")
def read() -> Any:
    """One resource's contents: `?server=NAME&uri=URI` (a template's URI filled in by the client)."""
    gateway().access.check_any(request.headers.get("Authorization"))
    server, uri = request.args.get("server", ""), request.args.get("uri", "")
    if not server or not uri:
        raise GatewayError(400, "bad_request", "give both 'server' and 'uri'")
    return jsonify(read_resource(server, uri).to_json())
