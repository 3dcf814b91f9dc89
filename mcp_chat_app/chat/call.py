"""Call: the routed tool calls made on the MCP servers, their results kept (images, audio and files stored for the
page), and what
the router reads of each, should it route again (auto profiles)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from mcp_chat_app.chat import conversation
from mcp_chat_app.chat.route import Routed
from mcp_chat_app.chat.route_arguments.days import in_the_places_calendar
from mcp_chat_app.chat.route_plan import PlannedCall, error_view
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.result_view import model_view, results_today
from mcp_chat_app.chat.tool_media import MediaItem, stored_media
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.llm.client import current_caller
from mcp_chat_app.mcp_client.results import ToolOutcome, failed_outcome
from mcp_chat_app.mcp_client.manager import McpManager, ToolRequest
from mcp_chat_app.media_store import MediaStore


@dataclass(frozen=True)
class Called:
    """Every call of the turn so far, and what the router reads of the latest round's (one per planned call)."""

    outcomes: tuple[ToolOutcome, ...] = ()
    images: tuple[dict[str, str], ...] = ()
    media: tuple[MediaItem, ...] = ()  # audio, files and resource links (chat/tool_media.py)
    views: tuple[str, ...] = ()
    repaired: frozenset[str] = frozenset()  # tools whose invalid call was handed back once to be repaired
    tools_ms: float = 0.0


def call(turn: Turn, manager: McpManager, media: MediaStore, routed: Routed, before: Called = Called()) -> Called:
    """Make the routed calls (all at once), then the fallbacks of those the tool refused; a call refused before
    it ran is handed back to an auto router once, to repair, and otherwise kept as a failure."""
    if not routed.calls:
        return before
    made = [(plan.request, plan.fallback) for plan in routed.calls if plan.request is not None]
    started = time.perf_counter()
    outcomes = _made(turn, manager, [request for request, _ in made])
    # A place as the question writes it, qualifier included, that the tool does not know: the router's own call.
    failed = {i: fallback for i, ((_, fallback), outcome) in enumerate(zip(made, outcomes))
              if fallback is not None and outcome.reason == "tool_error"}
    for i, outcome in zip(failed, _made(turn, manager, list(failed.values()))):
        outcomes[i] = outcome
    outcomes = _in_the_places_calendar(turn, manager, outcomes)
    results = iter(outcomes)
    called = replace(before, views=(), tools_ms=before.tools_ms + (time.perf_counter() - started) * 1000)
    for plan in routed.calls:
        if plan.request is None and routed.continues and plan.name not in called.repaired:
            called = replace(called, views=(*called.views, error_view(plan)), repaired=called.repaired | {plan.name})
            continue
        outcome = next(results) if plan.request is not None else _refused(plan)
        called = _kept(turn, media, called, outcome)
    return called


def _made(turn: Turn, manager: McpManager, requests: list[ToolRequest]) -> list[ToolOutcome]:
    """The requests made on their servers, announced first; their outcomes in the same order."""
    for request in requests:
        turn.emit("tool_call", {"server": request.server, "tool": request.tool, "arguments": request.arguments})
    # Progress (a long search sends it) goes out as SSE `progress` events to a listening client.
    on_progress = (lambda update: turn.emit("progress", update.to_json())) if turn.streaming else None
    return manager.call_tools(requests, locale=languages.locale(turn.language), units=turn.units,
                              on_progress=on_progress, cancellation=turn.cancellation, asker=turn.asker,
                              user=current_caller(), earlier=conversation.earlier_arguments(turn.history)) \
        if requests else []


def _in_the_places_calendar(turn: Turn, manager: McpManager, outcomes: list[ToolOutcome]) -> list[ToolOutcome]:
    """The outcomes, each call whose day the gateway counted from its own date made again for the day counted
    from the place's, where the result shows the place's today is another (a weekday of next week, asked at the
    week's edge there); the first outcome stays where the second fails."""
    elsewhere = {i: place_today for i, outcome in enumerate(outcomes) if not outcome.is_error
                 and (place_today := results_today(outcome.structured_content, turn.today)) != turn.today}
    if not elsewhere:  # (most turns: the tools are listed only for a result dated from another day)
        return outcomes
    schemas = {(tool.server, tool.name): tool.input_schema for tool in manager.tools()}
    again = {}
    for i, place_today in elsewhere.items():
        outcome = outcomes[i]
        schema = schemas.get((outcome.server, outcome.tool))
        if schema is None:
            continue
        arguments = in_the_places_calendar(outcome.arguments, schema, turn.question, turn.today, place_today,
                                           turn.vocabulary)
        if arguments is not None:
            again[i] = ToolRequest(outcome.server, outcome.tool, arguments)
    outcomes = list(outcomes)
    for i, outcome in zip(again, _made(turn, manager, list(again.values()))):
        if not outcome.is_error:
            outcomes[i] = outcome
    return outcomes


def _refused(plan: PlannedCall) -> ToolOutcome:
    server, _, tool = plan.name.partition("__")
    return failed_outcome(server, tool or server, plan.arguments, plan.error or "", reason="invalid_call")


def _kept(turn: Turn, media: MediaStore, called: Called, outcome: ToolOutcome) -> Called:
    images = tuple({"url": f"/media/{media.save(image.data, image.mime)}", "alt": image.alt, "mime": image.mime}
                   for image in outcome.images)
    shown = stored_media(outcome, media)
    turn.emit("tool_result", {**outcome.to_json(), "images": list(images), "media": list(shown)})
    if outcome.reason == "needs_authorization":  # the page offers the user the link to authorize the server
        turn.emit("authorization", {"server": outcome.server, **outcome.structured_content})
    return replace(called, outcomes=(*called.outcomes, outcome), images=(*called.images, *images),
                   media=(*called.media, *shown),
                   views=(*called.views, model_view(outcome, turn.vocabulary, turn.today)))
