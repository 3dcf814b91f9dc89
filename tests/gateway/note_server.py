"""A stdio MCP server with notes that change, for the gateway's resource subscriptions on 2026-07-28 sessions.

`note://{day}` reads as that day's note and how many times it was read, so a test sees whether the gateway read it
again; `set_note` changes one and publishes `notifications/resources/updated` to `subscriptions/listen` streams. Reads
say they stay fresh for NOTE_TTL_MS (default an hour; 0: stale at once). `listen_streams` counts the open streams.

Run: python tests/gateway/note_server.py
"""

import os
from collections.abc import Callable

from mcp.server import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ServerEvent


class CountingBus(InMemorySubscriptionBus):
    """The SDK's bus, counting its listeners: each open `subscriptions/listen` stream is one."""

    def __init__(self) -> None:
        super().__init__()
        self.listeners: set[object] = set()

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        token = object()
        self.listeners.add(token)
        unsubscribe = super().subscribe(listener)

        def counted() -> None:
            self.listeners.discard(token)
            unsubscribe()

        return counted


bus = CountingBus()
server = MCPServer("notes", subscriptions=bus,
                   cache_hints={"resources/read": CacheHint(ttl_ms=int(os.environ.get("NOTE_TTL_MS", "3600000")))})
notes: dict[str, str] = {}
reads: dict[str, int] = {}


@server.resource("note://{day}", title="A day's note", mime_type="text/plain")
def note(day: str) -> str:
    """The note for the day."""
    reads[day] = reads.get(day, 0) + 1
    return f"{notes.get(day, 'nothing yet')} [read {reads[day]}]"


@server.tool()
async def set_note(day: str, text: str, ctx: Context) -> str:
    """Write the day's note and tell the subscribers it changed."""
    notes[day] = text
    await ctx.notify_resource_updated(f"note://{day}")
    return f"noted for {day}"


@server.tool()
def listen_streams() -> str:
    """How many `subscriptions/listen` streams are open."""
    return str(len(bus.listeners))


if __name__ == "__main__":
    server.run()
