"""The prompts: a weather report for one city, and a comparison of trip destinations."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from weather_mcp_server.places.resolver import MAX_QUERY_LENGTH


def add_prompts(server: MCPServer) -> None:
    """Register the prompts on `server`."""
    server.prompt(title="Weather report")(weather_report)
    server.prompt(title="Trip planning comparison")(trip_planning)


def weather_report(city: str, language: str = "English") -> str:
    """Ask for a short weather report for one city."""
    _check_prompt_argument("city", city, MAX_QUERY_LENGTH)
    _check_prompt_argument("language", language, 40)
    return (
        f"Write a short weather report for {city} in {language}. Call get_current_weather for now and "
        f"get_forecast with day=1, days=2 for the outlook; mention rain and temperatures, and say so if the data "
        f"is simulated."
    )


def trip_planning(cities: str, days: str = "3") -> str:
    """Compare candidate destinations for a trip over the next days."""
    _check_prompt_argument("cities", cities, 1000)
    if not (days.isdigit() and 1 <= int(days) <= 16):
        raise MCPError(INVALID_PARAMS, f"days must be a whole number from 1 to 16, got {days[:20]!r}")
    return (
        f"I am choosing between these destinations: {cities}. Call compare_weather with all of them and days={days}, "
        f"and get_precipitation with days={days} for each. Then compare them in a small table (temperatures, rain) "
        f"and recommend one, explaining why."
    )


def _check_prompt_argument(name: str, value: str, max_length: int) -> None:
    """Prompt arguments are spliced into text for the model, so they are bounded like tool arguments.

    Raised as MCPError, since the SDK turns any other prompt failure into an opaque internal error.
    """
    if not value.strip() or len(value) > max_length:
        raise MCPError(INVALID_PARAMS, f"{name} must be 1 to {max_length} characters, got {len(value)}")
