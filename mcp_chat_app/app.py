"""Application factory: builds the long-lived resources once and mounts the blueprints."""

from __future__ import annotations

import logging
import threading
import time

from flask import Flask, request

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.pipeline import ChatPipeline
from mcp_chat_app.config import GatewayConfig
from mcp_chat_app.gateway import EXTENSION_KEY, Gateway
from mcp_chat_app.history import HistoryStore, SqliteHistoryStore
from mcp_chat_app.llm.client import LlmClient, LlmUnavailable, set_caller
from mcp_chat_app.llm.profiles import load_roles
from mcp_chat_app.mcp_client.elicitation import Elicitations
from mcp_chat_app.mcp_client.manager import McpManager
from mcp_chat_app.mcp_client.oauth import OAuthSettings
from mcp_chat_app.mcp_client.registry import load_registry
from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.web import page
from mcp_chat_app.web.auth import AccessPolicy, auth_required
from mcp_chat_app.web.errors import register_error_handlers
from mcp_chat_app.web.routes import chat, conversations, health, media, oauth, openapi, servers

log = logging.getLogger(__name__)


def build_gateway(config: GatewayConfig, manager: McpManager | None = None,
                  history: HistoryStore | None = None) -> Gateway:
    """Create (and start) the resources; `manager`/`history` let tests inject doubles."""
    # Settings are checked before any server process starts, so a bad one fails fast.
    access = AccessPolicy(auth_required(config.auth, config.host), config.admin_token, config.tokens_file)
    roles = load_roles(config.models_config, config.profile, config.base_url_override, config.model_override)
    assistant = load_assistant(config.assistant_config)
    router = LlmClient(roles.router, config.llm_hung_after_s)
    writer = router if not roles.hybrid else LlmClient(roles.writer, config.llm_hung_after_s)
    if manager is None:
        oauth = OAuthSettings(redirect_uri=config.oauth_callback_url, token_dir=config.data_dir / "oauth")
        manager = McpManager.from_registry(load_registry(config.servers_config), config.data_dir / "logs",
                                           config.health_interval_s, oauth)
        manager.start()
        _warn_loudly(manager.warnings(), config)
    media_store = MediaStore(config.data_dir / "media")
    pipeline = ChatPipeline(manager, router, writer, media_store, assistant, config.max_tool_rounds)
    if config.warm_up:
        threading.Thread(target=_warm_up, args=(manager, pipeline), name="warm-up", daemon=True).start()
    return Gateway(
        config=config,
        manager=manager,
        router=router,
        writer=writer,
        history=history or SqliteHistoryStore(config.data_dir / "history.sqlite3"),
        media=media_store,
        pipeline=pipeline,
        access=access,
        elicitations=Elicitations(config.elicitation_timeout_s),
    )


def _warn_loudly(warnings: list[str], config: GatewayConfig) -> None:
    """Start-up problems an operator must not miss (they stay in /health too)."""
    for warning in warnings:
        rule = "!" * 78
        log.warning("\n%s\n!! %s\n!! registry: %s\n%s", rule, warning, config.servers_config, rule)


def _warm_up(manager: McpManager, pipeline: ChatPipeline, wait_s: float = 60.0) -> None:
    """Once the servers have listed their tools (the router prompt includes them), warm the LLM's cache."""
    deadline = time.monotonic() + wait_s
    while not manager.tools() and time.monotonic() < deadline:
        time.sleep(0.5)
    try:
        pipeline.warm_up()
    except LlmUnavailable as error:  # the first request pays the prefill instead
        log.warning("warm-up skipped: %s", error)


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
    for blueprint_module in (chat, conversations, servers, oauth, media, health, openapi, page):
        app.register_blueprint(blueprint_module.blueprint)
    return app
