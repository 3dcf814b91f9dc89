"""The long-lived objects a gateway holds: created once by `build_gateway`, shared by the handlers."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from flask import current_app

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.pipeline import ChatPipeline
from mcp_chat_app.config import GatewayConfig
from mcp_chat_app.history import HistoryStore, SqliteHistoryStore
from mcp_chat_app.history.approval_rules import SqliteApprovalRules
from mcp_chat_app.llm.profiles import ModelRoles, load_every_profile, load_roles
from mcp_chat_app.mcp_client.elicitation import Elicitations
from mcp_chat_app.mcp_client.manager import McpManager
from mcp_chat_app.mcp_client.oauth import OAuthSettings
from mcp_chat_app.mcp_client.registry import load_registry
from mcp_chat_app.mcp_client.secret_store import open_secret_store
from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.pipelines import Pipelines
from mcp_chat_app.warm_up import WarmUp
from mcp_chat_app.web.auth import AccessPolicy, auth_required

EXTENSION_KEY = "mcp_chat_gateway"

log = logging.getLogger(__name__)


@dataclass
class Gateway:
    """Injected into the Flask app under `app.extensions[EXTENSION_KEY]`."""

    config: GatewayConfig
    manager: McpManager
    history: HistoryStore
    media: MediaStore
    pipeline: ChatPipeline  # the default profile's
    pipelines: Pipelines  # every profile's, the default's included; a conversation may pick one
    access: AccessPolicy
    elicitations: Elicitations  # tools' questions waiting for their users
    warm_up: WarmUp
    approvals: SqliteApprovalRules  # the users' remembered approval decisions

    def close(self) -> None:
        """Stop the warm-up, MCP sessions (and their server processes), and close the history store."""
        self.warm_up.close()
        self.manager.close()
        self.history.close()


def gateway() -> Gateway:
    """The current app's gateway resources."""
    return current_app.extensions[EXTENSION_KEY]


def build_gateway(config: GatewayConfig, manager: McpManager | None = None,
                  history: HistoryStore | None = None) -> Gateway:
    """Create (and start) the resources; `manager`/`history` let tests inject doubles."""
    # Settings are checked before any server process starts, so a bad one fails fast.
    access = AccessPolicy(auth_required(config.auth, config.host), config.admin_token, config.tokens_file)
    roles = load_roles(config.models_config, config.profile, config.base_url_override, config.model_override)
    assistant = load_assistant(config.assistant_config)
    if manager is None:
        oauth = OAuthSettings(redirect_uri=config.oauth_callback_url, idle_s=config.oauth_idle_s,
                              store=open_secret_store(config.data_dir / "oauth", config.token_key))
        manager = McpManager.from_registry(load_registry(config.servers_config), config.data_dir / "logs",
                                           config.health_interval_s, oauth)
        manager.start()
        _warn_loudly(manager.warnings(), config)
    media_store = MediaStore(config.data_dir / "media")
    pipelines = Pipelines(
        config.profile, {**load_every_profile(config.models_config), config.profile: roles},  # with its overrides
        lambda router, writer: ChatPipeline(manager, router, writer, media_store, assistant, config.max_tool_rounds),
        config.llm_hung_after_s)
    pipeline = pipelines.pipeline(config.profile)  # first: /health lists the default profile's LLMs first
    warm_up = WarmUp(manager, pipeline)
    if _warms_up(config, roles):
        warm_up.start()
    return Gateway(
        config=config,
        manager=manager,
        history=history or SqliteHistoryStore(config.data_dir / "history.sqlite3"),
        media=media_store,
        pipeline=pipeline,
        pipelines=pipelines,
        access=access,
        elicitations=Elicitations(config.elicitation_timeout_s),
        warm_up=warm_up,
        approvals=SqliteApprovalRules(config.data_dir / "approvals.sqlite3"),
    )


def _warms_up(config: GatewayConfig, roles: ModelRoles) -> bool:
    """As configured; by default when the router runs on this machine, whose CPU may take minutes to read the
    router's prompt cold (a remote endpoint is usually fast, and a warm-up there costs money)."""
    return config.warm_up if config.warm_up is not None else roles.router.on_loopback


def _warn_loudly(warnings: list[str], config: GatewayConfig) -> None:
    """Start-up problems an operator must not miss (they stay in /health too)."""
    for warning in warnings:
        rule = "!" * 78
        log.warning("\n%s\n!! %s\n!! registry: %s\n%s", rule, warning, config.servers_config, rule)

