"""A stdio MCP server with notes that change, for the gateway's resource subscriptions on 2026-07-28 sessions.

`note://{name}` reads as the note of that name and how many times it was read, so a test sees whether the gateway read
it again; `locked://{name}` is read only after the reader says who they are (a 2026-07-28 input round: an
elicitation), so its text depends on the answer; `set_note` changes one and publishes
`notifications/resources/updated` to `subscriptions/listen` streams. Reads say they stay fresh for NOTE_TTL_MS (default an hour; 0: stale at once). `listen_streams` counts the open streams.

Run: python tests/gateway/note_server.py
"""

import os
from collections.abc import Callable

from mcp.server import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ServerEvent
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult


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


@server.resource("note://{name}", title="A note", mime_type="text/plain")
def note(name: str) -> str:
    """The note of that name."""
    reads[name] = reads.get(name, 0) + 1
    return f"{notes.get(name, 'nothing yet')} [read {reads[name]}]"


@server.resource("locked://{name}", title="A note for whoever says who they are", mime_type="text/plain")
def locked(name: str, ctx: Context) -> str | InputRequiredResult:
    """The note of that name for the reader who answered "who are you?" (or how they did not answer)."""
    answers = ctx.input_responses or {}
    if "who" not in answers:
        return InputRequiredResult(input_requests={"who": ElicitRequest(params=ElicitRequestFormParams(
            message="Who are you?", requested_schema={"type": "object", "properties": {"name": {"type": "string"}},
                                                      "required": ["name"]}))})
    reads[name] = reads.get(name, 0) + 1
    answer = answers["who"]
    reader = (answer.content or {}).get("name") if answer.action == "accept" else answer.action
    return f"{notes.get(name, 'nothing yet')} for {reader} [read {reads[name]}]"


@server.tool()
async def set_note(name: str, text: str, ctx: Context) -> str:
    """Write the named note and tell the subscribers it changed."""
    notes[name] = text
    await ctx.notify_resource_updated(f"note://{name}")
    return f"noted in {name}"


@server.tool()
def listen_streams() -> str:
    """How many `subscriptions/listen` streams are open."""
    return str(len(bus.listeners))


if __name__ == "__main__":
    server.run()
