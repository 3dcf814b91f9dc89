"""Fixtures shared by the whole-product tests: the scripted LLM and a gateway on the real weather server.

Both process wrappers come from tests/gateway (the gateway's own test harness), reused as they are.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "gateway"))

from gateway.conftest import fake_llm  # noqa: E402,F401  (the module-scoped scripted LLM, reused)
from gateway_processes import WEATHER_SERVER, FakeLlm, GatewayProcess  # noqa: E402

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@pytest.fixture(scope="module")
def weather_gateway(fake_llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory):
    """`mcp-chat serve` on the scripted LLM, with the real weather server (simulated data) over stdio."""
    gateway = GatewayProcess(tmp_path_factory.mktemp("gateway"), {"weather": WEATHER_SERVER}, fake_llm.url)
    yield gateway
    gateway.stop()
