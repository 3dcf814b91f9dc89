"""End to end with the real llm_backend on Qwen2.5-Coder 0.5B and the weather server (simulated)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from tests.support.gateway_processes import REPO, WEATHER_SERVER, GatewayProcess
from tests.support.processes import free_port, stop, wait_http

MODEL = "qwen2.5-coder-0.5b-instruct"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("backend") / "backend.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "llm_backend", "serve", "--model", MODEL, "--port", str(port)],
        cwd=REPO, env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}, stdout=log.open("w"), stderr=subprocess.STDOUT)
    wait_http(f"http://127.0.0.1:{port}/v1/models", process, log, timeout=900)
    yield f"http://127.0.0.1:{port}/v1"
    stop(process)


@pytest.fixture(scope="module")
def gateway(backend, tmp_path_factory):
    work_dir = tmp_path_factory.mktemp("gateway_e2e")
    profiles = json.loads((REPO / "configs" / "models.json").read_text())["profiles"]
    # The shipped 0.5B profile, pointed at this backend, with room for a slow shared CPU.
    profile = {**profiles["local-0.5b"], "base_url": backend, "timeout_s": 900}
    (work_dir / "models.json").write_text(json.dumps({"profiles": {"e2e": profile}}))
    process = GatewayProcess(work_dir, {"weather": WEATHER_SERVER}, backend.removesuffix("/v1"),
                             MCP_CHAT_MODELS_CONFIG=str(work_dir / "models.json"), MCP_CHAT_PROFILE="e2e",
                             MCP_CHAT_BASE_URL="", MCP_CHAT_MODEL="")
    yield process
    process.stop()


def _distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (lat1, lon1, lat2, lon2))
    a = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 6371 * 2 * math.asin(math.sqrt(a))


def test_beijing_weather_in_chinese(gateway):
    reply = gateway.chat("e2e", {"message": "北京今天天气怎么样？", "use_tools": True}, timeout=1800)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    calls = [c for c in body["tool_calls"] if not c["is_error"] and c["tool"] == "get_current_weather"]
    assert calls, body["tool_calls"]
    location = calls[0]["structured_content"]["location"]
    assert _distance_km(location["latitude"], location["longitude"], 39.9, 116.4) < 50
    temperature = round(calls[0]["structured_content"]["temperature"], 1)
    assert f"{temperature:g}" in body["response"], body
    assert any("\u4e00" <= char <= "\u9fff" for char in body["response"]), body["response"]
