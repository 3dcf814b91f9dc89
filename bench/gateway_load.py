"""Gateway load test: N concurrent simulated users against the real gateway on loopback, with the real
weather server (simulated provider) over stdio and the LLM stubbed by the scripted fake in rule mode.

Each user sends numbered messages (a quarter of them make a weather tool call, a third stream SSE)
and remembers every answer it got. Afterwards every user's stored history must be exactly its own
question/answer pairs, in order: nothing lost, nothing duplicated, nothing from another user.
The gateway's RSS is sampled each second; growth is measured from the end of the warm-up.

Run from the repository root:
  OMP_WAIT_POLICY=PASSIVE .venv/bin/python -m bench.gateway_load [--users 32] [--duration 300]
Exit status 1 when a check fails (any 5xx or dropped connection, any answer or history mismatch, RSS
growth over --max-rss-growth). Latency percentiles count the requests started after the warm-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.support.gateway_processes import WEATHER_SERVER, FakeLlm, GatewayProcess


@dataclass
class UserLog:
    """What one simulated user sent and saw."""

    name: str
    exchanges: list[tuple[str, str]] = field(default_factory=list)  # (message, answer) of each 200
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (start time, milliseconds)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def _answer(client: httpx.Client, url: str, message: str, stream: bool) -> tuple[int, str]:
    body = {"message": message, "use_tools": True, "stream": stream}
    if not stream:
        reply = client.post(url, json=body)
        return reply.status_code, reply.json().get("response", "") if reply.status_code == 200 else reply.text
    with client.stream("POST", url, json=body) as reply:
        text = reply.read().decode()
    if reply.status_code != 200:
        return reply.status_code, text
    last = [frame for frame in text.split("\n\n") if frame][-1]
    event, data = last.split("\n", 1)
    payload = json.loads(data.removeprefix("data: "))
    if event != "event: done":
        return payload.get("status", 500), last  # an error event carries the status it stands for
    return 200, payload["response"]


def simulate_user(base_url: str, log: UserLog, stop_at: float) -> None:
    """Send numbered messages until `stop_at`; check each answer echoes this user's own message."""
    url = f"{base_url}/chat/{log.name}"
    with httpx.Client(timeout=120) as client:
        number = 0
        while time.monotonic() < stop_at:
            ticket = f"{log.name}-m{number:05d}"
            message = f"weather: Beijing now, ticket {ticket}" if number % 4 == 0 else f"hello, ticket {ticket}"
            started = time.perf_counter()
            try:
                status, answer = _answer(client, url, message, stream=number % 3 == 0)
            except httpx.HTTPError as error:
                status, answer = 0, f"{type(error).__name__}: {error}"
            log.latencies.append((started, (time.perf_counter() - started) * 1000))
            log.statuses[status] = log.statuses.get(status, 0) + 1
            if status == 200:
                log.exchanges.append((message, answer))
                if ticket not in answer:
                    log.errors.append(f"answer to {ticket} is someone else's: {answer[:120]!r}")
            else:
                log.errors.append(f"{ticket}: HTTP {status}: {answer[:200]}")
            number += 1


def verify_history(gateway: GatewayProcess, log: UserLog) -> list[str]:
    """The stored history must be exactly the user's successful exchanges, in order."""
    # Answers also keep the calls behind them (for follow-ups); the exchange itself is role and content.
    stored = [{"role": m["role"], "content": m["content"]}
              for m in gateway.get(f"/chat/{log.name}/history").json()["messages"]]
    expected = [{"role": role, "content": content} for message, answer in log.exchanges
                for role, content in (("user", message), ("assistant", answer))]
    if stored == expected:
        return []
    first_diff = next((i for i, (a, b) in enumerate(zip(stored, expected)) if a != b), min(len(stored), len(expected)))
    return [f"{log.name}: history has {len(stored)} messages, expected {len(expected)}; first difference at "
            f"{first_diff}: {stored[first_diff:first_diff + 1]} vs {expected[first_diff:first_diff + 1]}"]


def rss_kib(pid: int) -> int:
    """Resident set size of one process (not its children), from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def sample_rss(pid: int, samples: list[tuple[float, int]], stop: threading.Event) -> None:
    started = time.monotonic()
    while not stop.wait(1.0):
        samples.append((time.monotonic() - started, rss_kib(pid)))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run_load(users: int, duration_s: float, warmup_s: float, work_dir: Path) -> dict:
    """Run the load and return the report (figures and the list of failures)."""
    llm = FakeLlm(work_dir)
    gateway = GatewayProcess(work_dir / "gateway", {"weather": WEATHER_SERVER}, llm.url)
    try:
        llm.script(auto=True)
        logs = [UserLog(f"user{index:02d}") for index in range(users)]
        samples: list[tuple[float, int]] = []
        stop_sampling = threading.Event()
        sampler = threading.Thread(target=sample_rss, args=(gateway.process.pid, samples, stop_sampling))
        sampler.start()
        load_started = time.perf_counter()
        stop_at = time.monotonic() + duration_s
        threads = [threading.Thread(target=simulate_user, args=(gateway.url, log, stop_at)) for log in logs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        stop_sampling.set()
        sampler.join()
        failures = [error for log in logs for error in log.errors]
        failures += [problem for log in logs for problem in verify_history(gateway, log)]
    finally:
        gateway.stop()
        llm.stop()
    latencies = [ms for log in logs for _, ms in log.latencies]
    warm = [ms for log in logs for started, ms in log.latencies if started - load_started >= warmup_s] or latencies
    statuses: dict[int, int] = {}
    for log in logs:
        for status, count in log.statuses.items():
            statuses[status] = statuses.get(status, 0) + count
    after_warmup = [rss for elapsed, rss in samples if elapsed >= warmup_s]
    rss_start = after_warmup[0] if after_warmup else samples[0][1]
    rss_end = max(after_warmup[-5:]) if after_warmup else samples[-1][1]
    return {
        "users": users,
        "duration_s": duration_s,
        "requests": len(latencies),
        "requests_per_s": round(len(latencies) / duration_s, 1),
        "statuses": {str(status): count for status, count in sorted(statuses.items())},
        "server_errors": sum(count for status, count in statuses.items() if status >= 500),
        "transport_errors": statuses.get(0, 0),
        "p50_ms": round(statistics.median(warm), 1),
        "p99_ms": round(percentile(warm, 0.99), 1),
        "p99_ms_with_warmup": round(percentile(latencies, 0.99), 1),
        "max_ms": round(max(latencies), 1),
        "history_messages_checked": sum(2 * len(log.exchanges) for log in logs),
        "rss_after_warmup_mib": round(rss_start / 1024, 1),
        "rss_end_mib": round(rss_end / 1024, 1),
        "rss_peak_mib": round(max(rss for _, rss in samples) / 1024, 1),
        "rss_growth": round((rss_end - rss_start) / rss_start, 4),
        "rss_trace_mib": [round(rss / 1024, 1) for elapsed, rss in samples[::max(1, len(samples) // 10)]],
        "failures": failures[:20],
        "failure_count": len(failures),
    }


def print_table(report: dict) -> None:
    print(f"| gateway load: {report['users']} users, {report['duration_s']:g} s | value |")
    print("|---|---|")
    for key in ("requests", "requests_per_s", "statuses", "server_errors", "transport_errors", "p50_ms", "p99_ms",
                "p99_ms_with_warmup", "max_ms",
                "history_messages_checked", "failure_count", "rss_after_warmup_mib", "rss_end_mib", "rss_peak_mib",
                "rss_trace_mib"):
        print(f"| {key} | {report[key]} |")
    print(f"| rss_growth after warm-up | {report['rss_growth']:.1%} |")
    for failure in report["failures"]:
        print(f"FAILURE: {failure}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=32)
    parser.add_argument("--duration", type=float, default=300.0, help="seconds of load")
    parser.add_argument("--warmup", type=float, default=None, help="seconds before the RSS baseline (default 20%%)")
    parser.add_argument("--max-rss-growth", type=float, default=0.10, help="fail above this growth after warm-up")
    parser.add_argument("--json", action="store_true", help="print the report as JSON after the table")
    args = parser.parse_args()
    warmup = args.warmup if args.warmup is not None else args.duration * 0.2
    with tempfile.TemporaryDirectory(prefix="gateway_load_") as work_dir:
        report = run_load(args.users, args.duration, warmup, Path(work_dir))
    print_table(report)
    if args.json:
        print(json.dumps(report))
    ok = (report["server_errors"] == 0 and report["transport_errors"] == 0 and report["failure_count"] == 0
          and report["rss_growth"] <= args.max_rss_growth)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
