"""A stdio MCP server whose `prompts/list` comes in pages of one prompt (with cursors), and whose prompts grow at run
time (`notifications/prompts/list_changed`), for the gateway's prompt tests.

Run: python tests/gateway/paged_prompts_server.py
"""

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ListPromptsResult


class PagedPrompts(MCPServer):
    """The SDK lists every prompt at once; this one answers a page of one, like a server with many."""

    async def _handle_list_prompts(self, ctx: Any, params: Any) -> ListPromptsResult:
        prompts = await self.list_prompts()
        start = int(params.cursor) if params is not None and params.cursor else 0
        more = start + 1 < len(prompts)
        return ListPromptsResult(prompts=prompts[start:start + 1], next_cursor=str(start + 1) if more else None)


server = PagedPrompts("paged")


@server.prompt(title="First page")
def first(topic: str) -> str:
    """On the first page."""
    return f"Tell me about {topic}."


@server.prompt()
def second() -> str:
    """On the second page."""
    return "The second prompt."


@server.prompt()
def third() -> str:
    """On the third page."""
    return "The third prompt."


def late() -> str:
    """Added at run time."""
    return "A prompt that came later."


@server.tool()
async def add_prompt(ctx: Context) -> str:
    """Register the `late` prompt and tell the client its prompt list changed, in either protocol era."""
    server.prompt()(late)
    await ctx.notify_prompts_changed()  # 2026-07-28 sessions: to `subscriptions/listen` streams
    await ctx.session.send_prompt_list_changed()  # handshake-era sessions: a plain notification
    return "late prompt added"


if __name__ == "__main__":
    server.run()
