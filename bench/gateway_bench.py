"""Gateway overhead benchmark: what the gateway itself adds to a chat request, with the LLM stubbed,
and a tool call over the persistent stdio session against a spawn-per-call baseline.

Run from the repository root:  OMP_WAIT_POLICY=PASSIVE .venv/bin/python -m bench.gateway_bench [--requests 50]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from mcp import Client, StdioServerParameters

from mcp_chat_app.mcp_client.manager import McpManager, ToolRequest
from mcp_chat_app.mcp_client.registry import parse_server_spec
from tests.support.gateway_processes import TINY_SERVER, WEATHER_SERVER, FakeLlm, GatewayProcess

TOOL = ToolRequest("weather", "get_current_weather", {"city": "Beijing"})


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def row(name: str, values: list[float]) -> str:
    return f"| {name:<48} | {statistics.median(values):9.2f} | {percentile(values, 0.95):9.2f} |"


def bench_requests(work_dir: Path, count: int) -> list[str]:
    """Client-observed request time minus the time spent in the (stubbed) LLM and in the tool."""
    llm = FakeLlm(work_dir)
    gateway = GatewayProcess(work_dir / "gateway", {"weather": WEATHER_SERVER}, llm.url)
    try:
        reply = {"tool_calls": [{"name": "weather__get_current_weather", "arguments": {"city": "Beijing"}}]}
        llm.script(*[item for _ in range(count + 5) for item in (reply, {"content": "北京现在13.3°C。"})])
        totals, llm_ms, tool_ms, overhead, server_side = [], [], [], [], []
        with httpx.Client(timeout=60) as client:
            for index in range(count + 5):
                started = time.perf_counter()
                body = client.post(f"{gateway.url}/chat/bench", json={"message": "北京今天天气怎么样？"}).json()
                total = (time.perf_counter() - started) * 1000
                if index < 5:
                    continue  # warm-up: first imports, first connections
                timings = body["timings"]
                totals.append(total)
                llm_ms.append(timings["llm_ms"])
                tool_ms.append(timings["tools_ms"])
                server_side.append(timings["gateway_ms"])
                overhead.append(total - timings["llm_ms"] - timings["tools_ms"])
    finally:
        gateway.stop()
        llm.stop()
    return [
        row("request, client-observed", totals),
        row("  in the stubbed LLM (2 completions over HTTP)", llm_ms),
        row("  in the tool call (weather, stdio)", tool_ms),
        row("  gateway overhead (total - LLM - tool)", overhead),
        row("    of which in the chat pipeline", server_side),
    ]


def _timed_calls(manager: McpManager, request: ToolRequest, count: int) -> list[float]:
    manager.call_tools([request])  # warm-up
    times = []
    for _ in range(count):
        started = time.perf_counter()
        manager.call_tools([request])
        times.append((time.perf_counter() - started) * 1000)
    return times


def bench_tool_calls(work_dir: Path, count: int) -> list[str]:
    """One call over the persistent session vs. a fresh stdio session (spawn + handshake) per call;
    the tiny server's `echo` shows the session's own cost without the weather server's work."""
    spec = parse_server_spec("weather", WEATHER_SERVER)
    manager = McpManager({"weather": spec, "tiny": parse_server_spec("tiny", TINY_SERVER)}, work_dir / "logs")
    manager.start()
    try:
        persistent = _timed_calls(manager, TOOL, count)
        echo = _timed_calls(manager, ToolRequest("tiny", "echo", {"text": "hi"}), count)
    finally:
        manager.close()

    async def spawn_per_call() -> float:
        parameters = StdioServerParameters(command=sys.executable, args=spec.args, env=spec.env)
        started = time.perf_counter()
        async with Client(parameters, mode="legacy") as client:
            await client.call_tool(TOOL.tool, TOOL.arguments)
        return (time.perf_counter() - started) * 1000

    spawned = [asyncio.run(spawn_per_call()) for _ in range(3)]
    ratio = statistics.median(spawned) / statistics.median(persistent)
    return [
        row("tool call, persistent stdio session", persistent),
        row("  same session cost with a trivial tool (echo)", echo),
        row("tool call, spawn per call (baseline)", spawned),
        f"| {'baseline / persistent (p50 ratio)':<48} | {ratio:8.0f}x | {'':>9} |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work_dir:
        lines = bench_requests(Path(work_dir), args.requests) + bench_tool_calls(Path(work_dir), args.requests)
    print(f"Gateway benchmark ({args.requests} requests; LLM stubbed by tests/support/fake_llm.py)\n")
    print(f"| {'measure':<48} | {'p50 ms':>9} | {'p95 ms':>9} |")
    print(f"|{'-' * 50}|{'-' * 11}|{'-' * 11}|")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
