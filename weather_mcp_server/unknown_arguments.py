"""Refuse a tool call that carries an argument the tool does not have, naming it.

The SDK validates arguments against the tool's signature and drops the names it does not know, so a call like
`get_forecast {"city": "Oslo", "date": "2026-12-05"}` would silently answer for today. A model (or a user's
client) must learn that its argument was not used, so such a call is a tool error listing the real arguments.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.context import HandlerResult
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

from weather_mcp_server.wording.language import pick, use_locale


def refuse_unknown_arguments(server: MCPServer) -> None:
    """Add the check to `server`'s middleware: it runs before the SDK validates a `tools/call`."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params if ctx.method == "tools/call" and isinstance(ctx.params, dict) else None
        if params is not None and isinstance(params.get("arguments"), dict):
            known = await _argument_names(server, params.get("name"))
            unknown = [name for name in params["arguments"] if known is not None and name not in known]
            if unknown:
                use_locale(params.get("_meta"))
                return _refusal(unknown, sorted(known))
        return await call_next(ctx)

    server.middleware.append(middleware)


async def _argument_names(server: MCPServer, tool_name: Any) -> set[str] | None:
    """The arguments `tool_name` declares, or None for a tool this server does not list (the SDK answers that)."""
    for tool in await server.list_tools():
        if tool.name == tool_name:
            return set(tool.input_schema.get("properties", {}))
    return None


def _refusal(unknown: list[str], known: list[str]) -> CallToolResult:
    names = ", ".join(unknown)
    text = pick(f"Unknown argument {names}: this tool takes only {', '.join(known)}; nothing was looked up.",
                f"未知参数 {names}：此工具只接受 {', '.join(known)}；未查询任何数据。")
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
