"""Failures a tool reports to the model as an MCP tool error (isError=true) with a precise message."""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError


class WeatherToolError(ToolError):
    """Base class: anything the caller should read and act on, never data."""


class InvalidArgument(WeatherToolError):
    """An argument is well-typed but makes no sense (e.g. min_temp above max_temp)."""


class UnknownPlace(WeatherToolError):
    """No place matches the name."""


class AmbiguousPlace(WeatherToolError):
    """Several comparable places match; the message lists them so the caller can pick one."""


class UpstreamError(WeatherToolError):
    """Open-Meteo answered with an error status or a payload we cannot use."""


class UpstreamUnreachable(UpstreamError):
    """Open-Meteo could not be reached or did not answer in time; `auto` mode falls back on this one."""
