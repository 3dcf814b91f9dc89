"""Application factory: builds the long-lived resources once and mounts the blueprints."""

from __future__ import annotations

import logging
import threading
import time

from flask import Flask, request

from mcp_chat_app import web
from mcp_chat_app.auth import AccessPolicy, auth_required
from mcp_chat_app.config import GatewayConfig
from mcp_chat_app.errors import register_error_handlers
from mcp_chat_app.history import HistoryStore, SqliteHistoryStore
from mcp_chat_app.llm_client import LlmClient, LlmUnavailable, set_caller
from mcp_chat_app.mcp_manager import McpManager
from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.model_profiles import load_roles
from mcp_chat_app.orchestrator import Orchestrator
from mcp_chat_app.resources import EXTENSION_KEY, Gateway
from mcp_chat_app.routes import chat, health, media, openapi, servers
from mcp_chat_app.server_registry import load_registry

log = logging.getLogger(__name__)


def build_gateway(config: GatewayConfig, manager: McpManager | None = None,
                  history: HistoryStore | None = None) -> Gateway:
    """Create (and start) the resources; `manager`/`history` let tests inject doubles."""
    # Settings are checked before any server process starts, so a bad one fails fast.
    access = AccessPolicy(auth_required(config.auth, config.host), config.admin_token, config.tokens_file)
    roles = load_roles(config.models_config, config.profile, config.base_url_override, config.model_override)
    router = LlmClient(roles.router)
    writer = router if not roles.hybrid else LlmClient(roles.writer)
    if manager is None:
        manager = McpManager(load_registry(config.servers_config), config.data_dir / "logs",
                             config.health_interval_s)
        manager.start()
    media_store = MediaStore(config.data_dir / "media")
    orchestrator = Orchestrator(manager, router, writer, media_store, config.max_tool_rounds)
    if config.warm_up:
        threading.Thread(target=_warm_up, args=(manager, orchestrator), name="warm-up", daemon=True).start()
    return Gateway(
        config=config,
        manager=manager,
        router=router,
        writer=writer,
        history=history or SqliteHistoryStore(config.data_dir / "history.sqlite3"),
        media=media_store,
        orchestrator=orchestrator,
        access=access,
    )


def _warm_up(manager: McpManager, orchestrator: Orchestrator, wait_s: float = 60.0) -> None:
    """Once the servers have listed their tools (the router prompt includes them), warm the LLM's cache."""
    deadline = time.monotonic() + wait_s
    while not manager.tools() and time.monotonic() < deadline:
        time.sleep(0.5)
    try:
        orchestrator.warm_up()
    except LlmUnavailable as error:  # the first request pays the prefill instead
        log.warning("warm-up skipped: %s", error)


def create_app(config: GatewayConfig | None = None, gateway: Gateway | None = None) -> Flask:
    """The Flask app; call `app.extensions[EXTENSION_KEY].close()` when done with it."""
    app = Flask(__name__)
    app.json.ensure_ascii = False  # Chinese answers stay readable in the JSON
    app.json.sort_keys = False
    resources = gateway or build_gateway(config or GatewayConfig.from_env())
    app.extensions[EXTENSION_KEY] = resources
    app.config["MAX_CONTENT_LENGTH"] = resources.config.max_body_bytes  # larger bodies: 413
    register_error_handlers(app)
    # The model's prompt cache is salted per user (llm_client): a route's <user> is whom its LLM calls are for.
    app.before_request(lambda: set_caller((request.view_args or {}).get("user")))
    for blueprint_module in (chat, servers, media, health, openapi, web):
        app.register_blueprint(blueprint_module.blueprint)
    return app
