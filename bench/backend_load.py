"""Concurrent streaming load on the LLM backend, with the KV pool watched while it runs.

Starts a real `llm-backend serve` on SmolLM2 with a deliberately small KV pool (so requests
queue and get preempted), opens N streaming chat completions at once (all sharing a system
prompt, so prefix-cache blocks are shared and copied on write), and meanwhile samples
`/metrics` and the between-steps audit at `/debug/kv_cache`. A single stream measured first
is the baseline for the ratios. Prints one table:

    OMP_WAIT_POLICY=PASSIVE python -m bench.backend_load --streams 64

The checks (every stream completes with exactly --max-tokens tokens, the pool is never
over-committed, every block is free or a ref-0 cached prefix afterwards) are the ones
tests/backend/test_reliability_load.py asserts.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from dataclasses import dataclass, field

import httpx

from tests.support.backend_server import running_server

MODEL = "smollm2-135m-instruct"
# ~22 blocks of 16 tokens: far fewer than 64 streams need at once, so the scheduler must queue
# and preempt, which is where an over-commit or a leaked block would show.
SERVER_ARGS = ("--kv-cache-memory", "8MiB", "--max-num-seqs", "16", "--max-model-len", "256", "--debug-endpoints")
SYSTEM = "You are a weather assistant. Answer in one short sentence."


@dataclass
class StreamResult:
    ok: bool
    completion_tokens: int
    ttft_s: float
    latency_s: float
    error: str = ""


@dataclass
class LoadResult:
    streams: list[StreamResult]
    wall_s: float
    samples: int = 0
    max_used_blocks: int = 0
    total_blocks: int = 0
    peak_used_blocks: int = 0
    preemptions: int = 0
    audit_problems: list[str] = field(default_factory=list)  # seen during or after the run
    final_report: dict = field(default_factory=dict)

    @property
    def completed(self) -> int:
        return sum(s.ok for s in self.streams)


def metric(text: str, name: str) -> float:
    match = re.search(rf"^llm_backend_{name}(?:\{{[^}}]*\}})? (\S+)$", text, re.M)
    if not match:
        raise KeyError(name)
    return float(match.group(1))


async def one_stream(client: httpx.AsyncClient, base_url: str, index: int, max_tokens: int) -> StreamResult:
    """A streaming chat completion; ok only if it ends with [DONE] and the usage says max_tokens."""
    body = {"model": MODEL, "stream": True, "stream_options": {"include_usage": True},
            "max_tokens": max_tokens, "ignore_eos": True, "temperature": 0,
            "messages": [{"role": "system", "content": SYSTEM},
                         {"role": "user", "content": f"What is the weather like in city number {index}?"}]}
    started = time.monotonic()
    ttft, usage, done = 0.0, None, False
    try:
        async with client.stream("POST", f"{base_url}/v1/chat/completions", json=body) as response:
            if response.status_code != 200:
                return StreamResult(False, 0, 0.0, time.monotonic() - started,
                                    f"HTTP {response.status_code}: {(await response.aread())[:200]!r}")
            async for line in response.aiter_lines():
                if not line.startswith("data: "):
                    continue
                if line == "data: [DONE]":
                    done = True
                    continue
                chunk = json.loads(line[6:])
                if not ttft and any(c["delta"].get("content") for c in chunk["choices"]):
                    ttft = time.monotonic() - started
                usage = chunk.get("usage") or usage
    except httpx.HTTPError as exc:
        return StreamResult(False, 0, ttft, time.monotonic() - started, repr(exc))
    tokens = usage["completion_tokens"] if usage else 0
    ok = done and tokens == max_tokens
    return StreamResult(ok, tokens, ttft, time.monotonic() - started,
                        "" if ok else f"done={done} completion_tokens={tokens}")


async def run_load(base_url: str, streams: int, max_tokens: int, sample_every_s: float = 0.1) -> LoadResult:
    """Run `streams` concurrent streams while sampling the pool; audit it again once idle."""
    limits = httpx.Limits(max_connections=streams + 4, max_keepalive_connections=streams + 4)
    async with httpx.AsyncClient(timeout=600, limits=limits) as client:
        started = time.monotonic()
        tasks = [asyncio.create_task(one_stream(client, base_url, i, max_tokens)) for i in range(streams)]
        result = LoadResult([], 0.0)
        while not all(task.done() for task in tasks):
            await _sample(client, base_url, result)
            await asyncio.sleep(sample_every_s)
        result.streams = [task.result() for task in tasks]
        result.wall_s = time.monotonic() - started
        await _sample(client, base_url, result)
        result.final_report = (await client.get(f"{base_url}/debug/kv_cache")).json()
        result.audit_problems += result.final_report["problems"]
    return result


async def _sample(client: httpx.AsyncClient, base_url: str, result: LoadResult) -> None:
    text = (await client.get(f"{base_url}/metrics")).text
    result.samples += 1
    result.total_blocks = int(metric(text, "kv_cache_blocks_total"))
    result.max_used_blocks = max(result.max_used_blocks, int(metric(text, "kv_cache_blocks_used")))
    result.peak_used_blocks = int(metric(text, "kv_cache_blocks_peak_used"))
    result.preemptions = int(metric(text, "num_preemptions_total"))
    result.audit_problems += (await client.get(f"{base_url}/debug/kv_cache")).json()["problems"]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def _row(name: str, result: LoadResult, baseline: LoadResult) -> str:
    tokens = sum(s.completion_tokens for s in result.streams)
    throughput = tokens / result.wall_s
    base_throughput = sum(s.completion_tokens for s in baseline.streams) / baseline.wall_s
    ttfts = [s.ttft_s for s in result.streams if s.ok]
    latencies = [s.latency_s for s in result.streams if s.ok]
    final = result.final_report
    return (f"| {name} | {result.completed}/{len(result.streams)} | {result.wall_s:.1f} | "
            f"{throughput:.1f} ({throughput / base_throughput:.1f}x) | "
            f"{statistics.median(ttfts):.2f} / {_percentile(ttfts, 0.99):.2f} | "
            f"{statistics.median(latencies):.2f} / {_percentile(latencies, 0.99):.2f} | "
            f"{result.max_used_blocks} / {result.peak_used_blocks} / {result.total_blocks} | "
            f"{result.preemptions} | {result.samples} | {final['in_use']} in use, {final['cached']} cached, "
            f"{final['free']} free | {len(result.audit_problems)} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=64)
    parser.add_argument("--max-tokens", type=int, default=32)
    args = parser.parse_args()
    with running_server(MODEL, *SERVER_ARGS) as base_url:
        baseline = asyncio.run(run_load(base_url, 1, args.max_tokens))
        loaded = asyncio.run(run_load(base_url, args.streams, args.max_tokens))
    print(f"SmolLM2-135M, {' '.join(SERVER_ARGS)}, {args.max_tokens} tokens per stream (EOS ignored)\n")
    print("| run | completed | wall s | tokens/s (vs 1 stream) | TTFT p50 / p99 s | latency p50 / p99 s | "
          "blocks max sampled / peak / total | preemptions | samples | pool after | audit problems |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(_row("1 stream (baseline)", baseline, baseline))
    print(_row(f"{args.streams} streams", loaded, baseline))
    failures = [s.error for s in loaded.streams if not s.ok] + loaded.audit_problems
    for failure in failures[:10]:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
