"""Gateways the gateway tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.gateway_processes import WEATHER_SERVER, FakeLlm, GatewayProcess


@pytest.fixture(scope="module")
def forced_gateway(fake_llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayProcess]:
    """The default local profile's routing (one forced round), with the real weather server."""
    process = GatewayProcess(tmp_path_factory.mktemp("forced_gateway"), {"weather": WEATHER_SERVER}, fake_llm.url,
                             profile={"tool_choice": "required", "max_tool_rounds": 1})
    yield process
    process.stop()
