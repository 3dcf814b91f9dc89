"""`GET /profiles`: the model profiles a conversation may pick (no keys, no URLs beyond their host), and which
profile a chat turn uses."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from flask import Blueprint, Response, jsonify

from mcp_chat_app.gateway import gateway
from mcp_chat_app.history import Conversation
from mcp_chat_app.llm.profiles import Endpoint
from mcp_chat_app.pipelines import Pipelines, UnavailableProfile, UnknownProfile
from mcp_chat_app.web.errors import GatewayError

blueprint = Blueprint("profiles", __name__)


def _where(endpoint: Endpoint) -> dict[str, Any]:
    # The host only: a base URL may carry credentials (https://user:secret@host) or an internal path.
    url = urlparse(endpoint.base_url)
    return {"model": endpoint.model, "host": f"{url.hostname}:{url.port}" if url.port else url.hostname}


def _described(pipelines: Pipelines, name: str) -> dict[str, Any]:
    roles = pipelines.roles(name)
    reason = pipelines.unavailable(name)
    where = {} if roles is None else _where(roles.writer)  # the writer's model is the one a reply names
    hybrid = {} if roles is None or not roles.hybrid else {"router": _where(roles.router),
                                                             "writer": _where(roles.writer)}
    return {"name": name, **where, **hybrid, "default": name == pipelines.default, "available": reason is None,
            "reason": reason}


@blueprint.get("/profiles")
def list_profiles() -> Response:
    """Every configured profile, in the configuration's order, with whether a turn can use it now."""
    pipelines = gateway().pipelines
    return jsonify({"default": pipelines.default,
                    "profiles": [_described(pipelines, name) for name in pipelines.names()]})


def turn_profile(pipelines: Pipelines, requested: str | None, conversation: Conversation) -> str:
    """The profile a turn uses: the request's, else the conversation's, else the gateway's default. One that
    cannot answer is refused with the status of whoever chose it: 400 the request, 409 the conversation (the
    configuration changed since; a `profile` in the request picks another), 503 the gateway."""
    stored = conversation["profile"]
    chosen = requested or stored or pipelines.default
    status, whose = ((400, "") if requested else
                     (409, f" (the profile of conversation {conversation['id']!r}; send 'profile' to pick another)")
                     if stored else (503, " (the gateway's default)"))
    try:
        pipelines.check(chosen)
    except UnknownProfile as error:
        raise GatewayError(status, "unknown_profile", f"{error}{whose}") from error
    except UnavailableProfile as error:
        raise GatewayError(status, "profile_unavailable", f"{error}{whose}") from error
    return chosen
