"""Streaming benchmark: how long a streaming client waits for the first shown `token`, for the first token of
the answer that stays (after any withdrawn draft), and for `done`, with the scripted LLM writing at a realistic
pace (3 characters a chunk, 30 ms a chunk) and the weather server (simulated): an answer that passes its
check, and one whose second sentence has a figure the data lacks (rejected, rewritten once). Both with the
router's draft (an `auto` profile) and the writer's (`required`).

Run from the repository root:  OMP_WAIT_POLICY=PASSIVE .venv/bin/python -m bench.stream_bench [--requests 15]
Run it with another checkout's code first on the path (PYTHONPATH=<checkout>) to compare with it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tests.support.gateway_processes import WEATHER_SERVER, FakeLlm, GatewayProcess

TOKEN_GAP_S = 0.03
CALL = {"tool_calls": [{"name": "weather__get_current_weather", "arguments": {"city": "Tokyo"}}]}
QUESTION = "How warm is it in Tokyo?"
PROFILES = {"auto": {}, "required": {"tool_choice": "required", "max_tool_rounds": 1}}


def drafts(gateway: GatewayProcess, llm: FakeLlm) -> tuple[str, str]:
    """A passing answer from the data as it is now (the simulated weather moves with the clock), and a failing
    one: a good first sentence, then a made-up figure."""
    llm.script(CALL, {"content": "Tokyo now."})
    now = gateway.chat("probe", {"message": QUESTION}).json()["tool_calls"][0]["structured_content"]
    good = (f"It is {now['temperature']:g} °C in Tokyo right now. It feels like {now['feels_like']:g} °C, with "
            f"{now['humidity']:g}% humidity. The wind is {now['wind_speed']:g} km/h.")
    return good, f"It is {now['temperature']:g} °C in Tokyo right now. It feels like 4321 °C, so wear a coat."


def timed_stream(url: str, user: str) -> tuple[float, float, float, str]:
    """Milliseconds to the first `token` event, to the first of the answer that stays (after the last
    `rewrite`), and to `done`; and where the answer came from."""
    started, event = time.perf_counter(), ""
    first = kept = None
    with httpx.stream("POST", f"{url}/chat/{user}", json={"message": QUESTION, "stream": True}, timeout=60) as reply:
        for line in reply.iter_lines():
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
                now = (time.perf_counter() - started) * 1000
                if event == "token":
                    first = now if first is None else first
                    kept = now if kept is None else kept
                elif event == "rewrite":
                    kept = None
            elif line.startswith("data: ") and event == "done":
                answer: dict[str, Any] = json.loads(line.removeprefix("data: "))
                done = (time.perf_counter() - started) * 1000
                return first or float("nan"), kept or float("nan"), done, answer["answer_source"]
    raise RuntimeError("the stream ended without done")


def bench(work_dir: Path, profile: str, count: int) -> list[str]:
    llm = FakeLlm(work_dir)
    gateway = GatewayProcess(work_dir / profile, {"weather": WEATHER_SERVER}, llm.url, PROFILES[profile])
    rows = []
    try:
        for case in ("passes", "fails once"):
            firsts, kepts, dones = [], [], []
            for index in range(count + 2):
                good, bad = drafts(gateway, llm)
                written = [good] if case == "passes" else [bad, good]
                llm.script(CALL, *({"content": text, "token_gap": TOKEN_GAP_S} for text in written))
                first, kept, done, source = timed_stream(gateway.url, f"bench{index}")
                assert source == "model", f"{case}: the answer was composed; the scripted draft must pass"
                if index >= 2:  # warm-up
                    firsts.append(first)
                    kepts.append(kept)
                    dones.append(done)
            rows.append(f"| {profile:<9} | {case:<10} | {statistics.median(firsts):18.0f} | "
                        f"{statistics.median(kepts):17.0f} | {statistics.median(dones):11.0f} |")
    finally:
        gateway.stop()
        llm.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work_dir:
        rows = [line for profile in PROFILES for line in bench(Path(work_dir), profile, args.requests)]
    print(f"Streaming benchmark ({args.requests} requests each; {TOKEN_GAP_S * 1000:.0f} ms per 3-character chunk)\n")
    print(f"| {'profile':<9} | {'draft':<10} | {'first token p50 ms':>18} | {'kept token p50 ms':>17} | "
          f"{'done p50 ms':>11} |")
    print(f"|{'-' * 11}|{'-' * 12}|{'-' * 20}|{'-' * 19}|{'-' * 13}|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
