"""Failures a tool reports as an MCP tool error (isError=true): a precise message in the call's language."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mcp.server.mcpserver.exceptions import ToolError

if TYPE_CHECKING:  # place_names raises AmbiguousPlace, so it cannot be imported here at run time
    from weather_mcp_server.places.names import Candidate


class WeatherToolError(ToolError):
    """Base class: anything the caller should read and act on, never data."""


class InvalidArgument(WeatherToolError):
    """An argument is well-typed but makes no sense (e.g. min_temp above max_temp)."""


class BeyondForecast(WeatherToolError):
    """The asked day lies beyond the forecast horizon; the message states the horizon."""


class PastDay(WeatherToolError):
    """The asked day lies further back than the past days the data keeps; the message states how far."""


class NotAvailable(WeatherToolError):
    """The data source has no values of that kind for the place (e.g. air quality somewhere it does not model)."""


class UnknownPlace(WeatherToolError):
    """No place matches the name."""


class AmbiguousPlace(WeatherToolError):
    """Several comparable places match; the message lists them so the caller can pick one, and `candidates`
    (best first) lets a tool ask the user which one (MCP elicitation)."""

    def __init__(self, message: str, candidates: Sequence[Candidate] = ()) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)


class UpstreamError(WeatherToolError):
    """Open-Meteo answered with an error status or a payload we cannot use."""


class UpstreamUnreachable(UpstreamError):
    """Open-Meteo could not be reached or did not answer in time; `auto` mode falls back on this one."""
