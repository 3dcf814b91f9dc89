"""The long-lived objects a gateway holds, created once by `create_app` and shared by the handlers."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from mcp_chat_app.chat.pipeline import ChatPipeline
from mcp_chat_app.config import GatewayConfig
from mcp_chat_app.history import HistoryStore
from mcp_chat_app.llm.client import LlmClient
from mcp_chat_app.mcp_client.elicitation import Elicitations
from mcp_chat_app.mcp_client.manager import McpManager
from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.web.auth import AccessPolicy

EXTENSION_KEY = "mcp_chat_gateway"


@dataclass
class Gateway:
    """Injected into the Flask app under `app.extensions[EXTENSION_KEY]`."""

    config: GatewayConfig
    manager: McpManager
    router: LlmClient
    writer: LlmClient
    history: HistoryStore
    media: MediaStore
    pipeline: ChatPipeline
    access: AccessPolicy
    elicitations: Elicitations  # tools' questions waiting for their users

    def close(self) -> None:
        """Stop MCP sessions (and their server processes) and close the history store."""
        self.manager.close()
        self.history.close()


def gateway() -> Gateway:
    """The current app's gateway resources."""
    return current_app.extensions[EXTENSION_KEY]
