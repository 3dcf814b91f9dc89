"""`GET /health`: is the LLM reachable, is each MCP server up."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from mcp_chat_app.resources import gateway

blueprint = Blueprint("health", __name__)


@blueprint.get("/health")
def health() -> Any:
    """Component states; `status` is `ok` only when the LLM and every enabled server are up."""
    resources = gateway()
    clients = [resources.router] if not resources.pipeline.is_hybrid() else [
        resources.router, resources.writer]
    llm = [{"profile": client.endpoint.profile, "base_url": client.endpoint.base_url,
            "model": client.endpoint.model, "reachable": client.reachable()} for client in clients]
    servers = {row["name"]: {"up": row["up"], "disabled": row["disabled"], "last_error": row["last_error"]}
               for row in resources.manager.status()}
    healthy = all(item["reachable"] for item in llm) and all(s["up"] for s in servers.values() if not s["disabled"])
    return jsonify({"status": "ok" if healthy else "degraded", "llm": llm, "servers": servers})
