"""Asking the user which place an ambiguous name means ("which Springfield?"), by MCP elicitation, for the tools
about one place. A client that cannot be asked, or a user who declines, gets the tool error that lists the
candidates, as before."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Literal

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel, Field, create_model

from weather_mcp_server.errors import AmbiguousPlace
from weather_mcp_server.places.names import choice_labels
from weather_mcp_server.places.resolver import PlaceResolver, places_asked_before, use_place_choice
from weather_mcp_server.wording.language import pick, use_locale

PlaceAnswer = ElicitationResult[BaseModel]


def place_asker(places: PlaceResolver) -> Callable[..., Awaitable[Elicit[BaseModel] | None]]:
    """The resolver a tool's `Annotated[PlaceAnswer, Resolve(...)]` parameter runs before the tool body."""

    async def which_place(city: str, ctx: Context) -> Elicit[BaseModel] | None:
        use_locale(ctx.request_context.meta)
        # Settled once for the call, by the places the conversation asked about before where the name is several
        # places': the tool body uses the place, or reports why there is none.
        outcome = await places.settle(city, places_asked_before(ctx.request_context.meta))
        capabilities = ctx.client_capabilities
        if not isinstance(outcome, AmbiguousPlace) or capabilities is None or capabilities.elicitation is None:
            return None
        # The labels are the same on every round (the current protocol asks, then re-runs the call with the
        # answer), so the question renders identically and its answer is matched to it.
        labels = tuple(choice_labels(outcome.candidates))
        choice = create_model("PlaceChoice", place=(
            Literal[labels], Field(title=pick("Place", "地点"), description=pick("The place you mean", "您指的地点"))))
        return Elicit(pick(f"Which {city} do you mean?", f"您说的“{city}”是哪一个？"), choice)

    return which_place


def asked_place(places: PlaceResolver) -> object:
    """The annotation of a tool parameter that holds the user's answer (no answer when nothing was asked)."""
    return Annotated[PlaceAnswer, Resolve(place_asker(places))]


def use_place_answer(city: str, answer: PlaceAnswer) -> None:
    """Resolve `city` to the picked place for the rest of the call; a decline leaves it ambiguous (a tool error)."""
    picked = answer.data if isinstance(answer, AcceptedElicitation) else None
    use_place_choice(city, getattr(picked, "place", None))
