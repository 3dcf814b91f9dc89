"""The documented ways to start the server: `mcp run/dev`'s file loading, `python -m weather_mcp_server`, resources,
prompts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.weather.conftest import REPO, server_env, stdio_client

pytestmark = pytest.mark.anyio
MCP_CLI = Path(sys.executable).with_name("mcp")


async def test_mcp_cli_loads_the_server_file() -> None:
    """`mcp dev weather_mcp_server/inspector.py` imports the file the way `mcp run` does."""
    command = [str(MCP_CLI), "run", "weather_mcp_server/inspector.py"]
    async with stdio_client(server_env(provider="simulated"), command) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
    assert "get_weather_chart" in tools


async def test_python_m_weather_mcp_server_with_resources_and_prompts() -> None:
    command = [sys.executable, "-m", "weather_mcp_server"]
    async with stdio_client(server_env(provider="simulated"), command) as client:
        forecast = await client.read_resource("weather://forecast/%E4%B8%8A%E6%B5%B7")  # 上海
        report = await client.get_prompt("weather_report", {"city": "上海", "language": "中文"})
        trip = await client.get_prompt("trip_planning", {"cities": "Tokyo, Seoul", "days": "4"})
    data = json.loads(forecast.contents[0].text)
    assert data["location"]["english_name"] == "Shanghai" and len(data["days"]) == 7
    assert "上海" in report.messages[0].content.text and "get_forecast" in report.messages[0].content.text
    assert "Tokyo, Seoul" in trip.messages[0].content.text and "days=4" in trip.messages[0].content.text


def test_cli_help_lists_the_transports() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "weather_mcp_server", "--help"], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert "--transport {stdio,http}" in result.stdout and "--dev" in result.stdout


async def test_claude_desktop_example_config_starts_the_server() -> None:
    """The example `mcpServers` entries launch the `weather-mcp` console script over stdio."""
    for name in ("claude_desktop_config.example.json", "cursor_mcp.example.json"):
        entry = json.loads((REPO / "configs" / name).read_text(encoding="utf-8"))["mcpServers"]["weather"]
        assert Path(entry["command"]).name == "weather-mcp" and entry["env"]["WEATHER_PROVIDER"] == "auto"
    script = Path(sys.executable).with_name("weather-mcp")
    async with stdio_client(server_env(provider="simulated"), [str(script)]) as client:
        result = await client.call_tool("get_forecast", {"city": "Tokyo", "day": 0})
    assert not result.is_error and result.structured_content["location"]["english_name"] == "Tokyo"
