"""No tool drops an argument silently: every optional argument of every tool changes the answer, a second bound
closes a temperature range whatever the relation, and an argument a tool does not have is refused by name.
Over a real MCP client and a stdio server process on the simulated source (no network)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client

from tests.weather.conftest import server_env, stdio_client

pytestmark = pytest.mark.anyio

# A weekday two dates after UTC's, so one or two after Oslo's and never its today, the default ("saturday" was
# Oslo's today at 23:30 UTC on a Friday).
_A_WEEKDAY_ON = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=2)).strftime("%A").lower()

# The arguments a call needs, and for each optional argument a value other than its default.
REQUIRED: dict[str, dict[str, Any]] = {
    "get_current_weather": {"city": "Oslo"},
    "get_forecast": {"city": "Oslo"},
    "get_precipitation": {"city": "Oslo"},
    "get_air_quality": {"city": "Beijing"},
    "compare_weather": {"cities": ["Oslo", "Madrid"]},
    "find_cities_by_temperature": {"relation": "above", "temp": 10},
    "get_weather_chart": {"city": "Oslo"},
}
OTHER_VALUES: dict[str, dict[str, Any]] = {
    "get_current_weather": {"fahrenheit": True},
    "get_forecast": {"day": 1, "days": 3, "hours": "afternoon", "fahrenheit": True},
    "get_precipitation": {"day": _A_WEEKDAY_ON, "days": 2, "hours": [21], "fahrenheit": True},
    "get_air_quality": {"day": 1, "hours": "morning"},
    "compare_weather": {"day": 2, "days": 3},
    "find_cities_by_temperature": {"temp2": 20, "day": 1, "measure": "min", "fahrenheit": True},
    "get_weather_chart": {"kind": "precipitation", "day": 1, "days": 3},
}


@pytest.fixture(scope="module")
async def client(anyio_backend: str) -> AsyncIterator[Client]:
    """One server for the module: its answers depend only on the arguments, and a start is seconds of imports."""
    async with stdio_client(server_env("simulated")) as session:
        yield session


async def _answer(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, f"{tool} {arguments}: {result.content}"
    return result.structured_content


async def test_every_optional_argument_of_every_tool_changes_the_answer(client: Client) -> None:
    schemas = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
    # A new tool or argument must be added here: an argument no test sets could be dropped unseen.
    assert set(schemas) == set(OTHER_VALUES)
    for tool, schema in schemas.items():
        optional = set(schema["properties"]) - set(schema.get("required", ()))
        assert optional == set(OTHER_VALUES[tool]), tool
    unchanged = []
    for tool, values in OTHER_VALUES.items():
        plain = await _answer(client, tool, REQUIRED[tool])
        for name, value in values.items():
            if await _answer(client, tool, {**REQUIRED[tool], name: value}) == plain:
                unchanged.append(f"{tool}.{name}={value!r}")
    assert not unchanged, f"arguments that changed nothing: {unchanged}"


@pytest.mark.parametrize("relation", ["above", "below", "between"])
async def test_a_second_bound_closes_the_range_whatever_the_relation(client: Client, relation: str) -> None:
    # "Cities between 5 and 15 degrees" once came as `above` with temp2 set, and temp2 was ignored.
    search = await _answer(client, "find_cities_by_temperature",
                           {"relation": relation, "temp": 15, "temp2": 5, "measure": "mean"})
    assert (search["min_temp"], search["max_temp"]) == (5, 15)
    assert all(5 <= row["temperature"] <= 15 for row in search["matches"])


async def test_one_bound_keeps_its_relation_and_a_repeated_bound_adds_nothing(client: Client) -> None:
    below = await _answer(client, "find_cities_by_temperature", {"relation": "below", "temp": 0})
    repeated = await _answer(client, "find_cities_by_temperature", {"relation": "below", "temp": 0, "temp2": 0})
    no_upper = await client.call_tool("find_cities_by_temperature", {"relation": "between", "temp": 5})
    assert (below["min_temp"], below["max_temp"]) == (None, 0)
    assert repeated == below
    assert no_upper.is_error and "'between' needs temp2" in no_upper.content[0].text


@pytest.mark.parametrize(("locale", "fragment"), [("en", "Unknown argument date"), ("zh-CN", "未知参数 date")])
async def test_an_argument_the_tool_does_not_have_is_refused_by_name(client: Client, locale: str,
                                                                   fragment: str) -> None:
    refused = await client.call_tool("get_forecast", {"city": "Oslo", "date": "2026-12-05"},
                                     meta={"locale": locale})
    still_serving = await client.call_tool("get_forecast", {"city": "Oslo", "day": 1})
    text = refused.content[0].text
    assert refused.is_error and fragment in text
    assert "city" in text and "hours" in text  # the arguments it does take
    assert not still_serving.is_error
