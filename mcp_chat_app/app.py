"""Application factory: the Flask app over a gateway's resources, with the blueprints mounted."""

from __future__ import annotations

from flask import Flask, request

from mcp_chat_app.config import GatewayConfig
from mcp_chat_app.gateway import EXTENSION_KEY, Gateway, build_gateway
from mcp_chat_app.llm.client import set_caller
from mcp_chat_app.web import page
from mcp_chat_app.web.errors import register_error_handlers
from mcp_chat_app.web.routes import (
    approvals,
    chat,
    conversations,
    export,
    health,
    media,
    oauth,
    openapi,
    profiles,
    prompts,
    search,
    servers,
)
from mcp_chat_app.web.routes import resources as resource_routes  # `resources` below is the gateway's


def create_app(config: GatewayConfig | None = None, gateway: Gateway | None = None) -> Flask:
    """The Flask app; call `app.extensions[EXTENSION_KEY].close()` when done with it."""
    app = Flask(__name__, static_folder=page.STATIC_FOLDER)
    app.json.ensure_ascii = False  # Chinese answers stay readable in the JSON
    app.json.sort_keys = False
    resources = gateway or build_gateway(config or GatewayConfig.from_env())
    app.extensions[EXTENSION_KEY] = resources
    app.config["MAX_CONTENT_LENGTH"] = resources.config.max_body_bytes  # larger bodies: 413
    register_error_handlers(app)
    # The model's prompt cache is salted per user (llm/client.py): a route's <user> is whom its LLM calls are for.
    app.before_request(lambda: set_caller((request.view_args or {}).get("user")))
    for blueprint_module in (chat, approvals, conversations, profiles, search, export, servers, prompts,
                             resource_routes, oauth, media, health, openapi, page):
        app.register_blueprint(blueprint_module.blueprint)
    return app
