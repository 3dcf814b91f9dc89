"""The MCP prompts of the connected servers: listed for the page's "/" menu, and rendered for a chat turn."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from mcp import MCPError

from mcp_chat_app.gateway import gateway
from mcp_chat_app.mcp_client.connection import ServerUnavailable
from mcp_chat_app.mcp_client.prompts import BadPromptArguments, RenderedPrompt, UnknownPrompt
from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.requests import PromptRequest, checked_message

blueprint = Blueprint("prompts", __name__)


@blueprint.get("/prompts")
def list_prompts() -> Any:
    """Every live server's prompts with their arguments; servers that are down are named, not an error."""
    gateway().access.check_any(request.headers.get("Authorization"))
    manager = gateway().manager
    return jsonify({"prompts": manager.prompts(),
                    "unavailable": [{"server": name, "error": error} for name, error in manager.unavailable().items()]})


def rendered_prompt(prompt: PromptRequest) -> RenderedPrompt:
    """The prompt's text for a chat turn, or the precise 4xx/5xx of what stood in the way."""
    where = f"prompt {prompt.name!r} on {prompt.server!r}"
    try:
        rendered = gateway().manager.get_prompt(prompt.server, prompt.name, prompt.arguments)
    except UnknownPrompt as error:
        raise GatewayError(404, error.code, str(error)) from error
    except BadPromptArguments as error:
        raise GatewayError(400, "bad_prompt_arguments", str(error)) from error
    except MCPError as error:  # the server refused these arguments (or failed on them): its own words
        raise GatewayError(400, "prompt_error", f"{where}: {error.message}") from error
    except ServerUnavailable as error:
        raise GatewayError(503, "server_unavailable", str(error)) from error
    except TimeoutError as error:
        raise GatewayError(504, "server_timeout", f"{where} did not answer in time") from error
    try:
        checked_message(rendered.text, "prompt text")
    except GatewayError as error:
        left_out = f" (left out: {', '.join(rendered.left_out)})" if rendered.left_out else ""
        raise GatewayError(400, "prompt_error", f"{where}: {error.message}{left_out}") from error
    return rendered
