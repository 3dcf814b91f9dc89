"""An ambiguous place name is asked about (MCP elicitation): the user's pick answers the call, a decline or a
client that cannot be asked gets the tool error listing the candidates. Over stdio and streamable HTTP, on the
current protocol (the question rides an input-required result) and the legacy one (a request mid-call)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from tests.weather.conftest import running_http_server, server_env, stdio_client

pytestmark = pytest.mark.anyio

ILLINOIS = "Springfield, Illinois, United States"


@pytest.fixture(scope="module")
def simulated_http_server() -> AsyncIterator[str]:
    with running_http_server(server_env(provider="simulated")) as (_, url):
        yield url


@pytest.fixture(params=["stdio", "http"])
def open_client(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """A client of the simulated server that answers each elicitation with `answer(params)`."""
    url = request.getfixturevalue("simulated_http_server") if request.param == "http" else None

    @asynccontextmanager
    async def open_with(answer: Callable[[Any], types.ElicitResult], mode: str) -> AsyncIterator[Client]:
        asked: list[Any] = []

        async def on_elicitation(_context: Any, params: Any) -> types.ElicitResult:
            asked.append(params)
            return answer(params)

        options = {"mode": mode, "elicitation_callback": on_elicitation}
        opened = (Client(url, read_timeout_seconds=60, **options) if url is not None
                  else stdio_client(server_env(provider="simulated"), **options))
        async with opened as client:
            client.asked = asked  # type: ignore[attr-defined]
            yield client

    return open_with


def pick_illinois(params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"place": ILLINOIS})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_user_picks_which_springfield(open_client, mode: str) -> None:
    async with open_client(pick_illinois, mode) as client:
        forecast = await client.call_tool("get_forecast", {"city": "Springfield", "day": 1})
        air = await client.call_tool("get_air_quality", {"city": "Springfield"})
        plain = await client.call_tool("get_current_weather", {"city": "Beijing"})
        (question,) = client.asked[:1]
    assert not forecast.is_error, forecast.content[0].text
    location = forecast.structured_content["location"]
    assert (round(location["latitude"], 1), location["country_code"]) == (39.8, "US")  # Illinois, not Missouri
    assert "Which Springfield do you mean?" == question.message
    options = question.requested_schema["properties"]["place"]["enum"]
    assert options == ["Springfield, Missouri, United States", "Springfield, Massachusetts, United States", ILLINOIS]
    assert not air.is_error and round(air.structured_content["location"]["latitude"], 1) == 39.8
    assert not plain.is_error and len(client.asked) == 2  # an unambiguous name asks nothing


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_declined_question_is_the_error_listing_the_places(open_client, action: str) -> None:
    async with open_client(lambda _: types.ElicitResult(action=action), "auto") as client:
        result = await client.call_tool("get_precipitation", {"city": "Cambridge"}, meta={"locale": "zh-CN"})
    assert result.is_error and result.structured_content is None
    text = result.content[0].text
    assert "有多个可能" in text and "Cambridge, GB" in text and "Cambridge, Massachusetts, US" in text
    assert client.asked[0].message == "您说的“Cambridge”是哪一个？"


async def test_a_client_that_cannot_be_asked_gets_the_candidates() -> None:
    async with stdio_client(server_env(provider="simulated")) as client:  # no elicitation capability
        result = await client.call_tool("get_weather_chart", {"city": "Springfield"})
    assert result.is_error and "Springfield, Missouri, US" in result.content[0].text


async def test_an_answer_outside_the_choices_is_refused(open_client) -> None:
    async with open_client(lambda _: types.ElicitResult(action="accept", content={"place": "Paris"}), "auto") as client:
        result = await client.call_tool("get_forecast", {"city": "Springfield"})
    assert result.is_error and "does not match the requested schema" in result.content[0].text
