"""The official MCP Inspector CLI against our server over stdio (skipped only when Node.js is absent)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.weather.conftest import FIXTURES, REPO, replaying
from weather_mcp_server.cli import INSPECTOR_PACKAGE

INSPECTOR_DIR = Path(sys.prefix) / "inspector"
INSPECTOR_BIN = INSPECTOR_DIR / "node_modules" / ".bin" / "mcp-inspector"


@pytest.fixture(scope="module")
def inspector() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js/npm not installed: the MCP Inspector CLI cannot run")
    if not INSPECTOR_BIN.exists():  # scripts/setup.sh normally installs it; the npm registry is reachable in CI
        subprocess.run(
            ["npm", "install", "--prefix", str(INSPECTOR_DIR), "--no-audit", "--no-fund", INSPECTOR_PACKAGE],
            check=True, capture_output=True, timeout=600,
        )
    return INSPECTOR_BIN


def run_inspector(inspector: Path, *method: str) -> dict:
    # The Inspector passes only a minimal environment to the server, hence the explicit -e options.
    command = [
        str(inspector), "--cli",
        "-e", "WEATHER_PROVIDER=open-meteo", "-e", f"PYTHONPATH={REPO}",
        *replaying(FIXTURES), *method,
    ]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_inspector_lists_tools(inspector: Path) -> None:
    listed = run_inspector(inspector, "--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}
    assert {"get_current_weather", "get_forecast", "get_precipitation", "compare_weather",
            "find_cities_by_temperature", "get_weather_chart", "get_air_quality"} == set(tools)
    assert tools["get_forecast"]["annotations"]["readOnlyHint"] is True
    assert "outputSchema" in tools["get_forecast"]


def test_inspector_calls_a_tool(inspector: Path) -> None:
    result = run_inspector(
        inspector, "--method", "tools/call", "--tool-name", "get_forecast", "--tool-arg", "city=北京",
        "--tool-arg", "day=1",
    )
    assert not result.get("isError")
    data = result["structuredContent"]
    # The Inspector sends "1" as text: still the day after today, and only that day.
    assert data["location"]["name"] == "北京" and data["source"] == "open-meteo"
    assert [(d["date"], d["day"]) for d in data["days"]] == [("2026-07-21", 1)]
