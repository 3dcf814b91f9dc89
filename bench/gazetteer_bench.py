"""The offline gazetteer's start-up: the first resolve in a fresh process with no index file (cold) and with the
one kept from before (warm), its memory, the index file's size, and the weather server's first answer over stdio
in simulated mode. Each measure is a new process with XDG_CACHE_HOME in a fresh temporary directory.

    python -m bench.gazetteer_bench [--runs 3]

Works on any checkout whose Gazetteer() resolves a name (PYTHONPATH picks the one measured).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

FIRST_RESOLVE = """
import json, resource, time
started = time.perf_counter()
from weather_mcp_server.places.gazetteer import Gazetteer
imported = time.perf_counter()
place = Gazetteer().lookup("Paris")
done = time.perf_counter()
assert place.country_code == "FR"
print(json.dumps({"import_s": imported - started, "first_resolve_s": done - imported,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def in_process(cache: Path) -> dict[str, float]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    out = subprocess.run([sys.executable, "-c", FIRST_RESOLVE], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


async def server_first_answer(cache: Path) -> dict[str, float]:
    """Seconds from launching `weather-mcp` to its initialize reply, and to its first answer about a place."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "WEATHER_PROVIDER": "simulated"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "weather_mcp_server"], env=env)
    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=120) as client:
        initialized = time.perf_counter()
        result = await client.call_tool("get_current_weather", {"city": "Paris"})
        answered = time.perf_counter()
    assert not result.is_error
    return {"initialize_s": initialized - started, "first_answer_s": answered - started}


def index_size_mib(cache: Path) -> float:
    return sum(p.stat().st_size for p in cache.rglob("*") if p.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="warm runs (the median is shown)")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        cold = in_process(Path(first))
        warm = [in_process(Path(first)) for _ in range(runs)]
        cold_server = asyncio.run(server_first_answer(Path(second)))
        warm_server = [asyncio.run(server_first_answer(Path(second))) for _ in range(runs)]
        size = index_size_mib(Path(first))

    def median(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(row[key] for row in rows)

    print(f"in process, cold: import {cold['import_s']:.2f} s, first resolve {cold['first_resolve_s']:.2f} s, "
          f"max RSS {cold['rss_mib']:.0f} MiB")
    print(f"in process, warm (median of {runs}): import {median(warm, 'import_s'):.2f} s, first resolve "
          f"{median(warm, 'first_resolve_s'):.3f} s, max RSS {median(warm, 'rss_mib'):.0f} MiB")
    print(f"server over stdio, cold: initialize {cold_server['initialize_s']:.2f} s, "
          f"first answer {cold_server['first_answer_s']:.2f} s")
    print(f"server over stdio, warm (median of {runs}): initialize {median(warm_server, 'initialize_s'):.2f} s, "
          f"first answer {median(warm_server, 'first_answer_s'):.2f} s")
    print(f"index on disk: {size:.1f} MiB")


if __name__ == "__main__":
    main()
