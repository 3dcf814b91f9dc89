"""`GET /health`: does the LLM answer, is each MCP server up, is anything usable at all."""

from __future__ import annotations

import threading
from typing import Any

from flask import Blueprint, jsonify

from mcp_chat_app.gateway import gateway
from mcp_chat_app.llm.client import LlmClient

blueprint = Blueprint("health", __name__)


def _llm_state(client: LlmClient) -> dict[str, Any]:
    """Reachable (answers HTTP) and not hung (answers calls): see llm_watch.py."""
    # Read before the probe starts: a probe answered at once would otherwise hide the hang it was sent to test.
    silent = client.watch.silent_s()
    if client.watch.claim_probe():  # hung and idle: only a new call can show that it recovered
        threading.Thread(target=client.probe, name="llm-probe", daemon=True).start()
    return {"profile": client.endpoint.profile, "base_url": client.endpoint.base_url, "model": client.endpoint.model,
            "reachable": client.reachable(), "hung": silent is not None and silent >= client.watch.hung_after_s,
            "silent_s": None if silent is None else round(silent, 1), "hung_after_s": client.watch.hung_after_s}


@blueprint.get("/health")
def health() -> Any:
    """Component states; `status` is `ok` only when every LLM in use answers, every enabled registry entry is up, no
    warning stands (an unreadable registry, no usable server, a hung LLM) and no warm-up is running (`warming`
    then, with its progress in `warm_up`)."""
    resources = gateway()
    # The default profile's LLMs, then those of the other profiles conversations have used since the start.
    llm = [_llm_state(client) for client in resources.pipelines.clients()]
    servers = {row["name"]: {key: row[key] for key in ("up", "disabled", "protocol_version", "last_error",
                                                       "config_error", "needs_authorization")}
               for row in resources.manager.status()}
    warnings = resources.manager.warnings() + [
        f"the LLM at {item['base_url']} has not answered for {item['silent_s']:g}s" for item in llm if item["hung"]]
    healthy = (all(item["reachable"] for item in llm) and not warnings
               and all(s["up"] for s in servers.values() if not s["disabled"]))
    warm_up = resources.warm_up.status()
    status = "degraded" if not healthy else "warming" if warm_up["state"] == "warming" else "ok"
    return jsonify({"status": status, "llm": llm, "servers": servers, "warnings": warnings, "warm_up": warm_up})
