"""Prometheus text exposition of the engine's and the server's counters.

Written by hand (the format is a few lines of text) rather than pulling in
prometheus_client. Server-side measurements (TTFT as a client sees it, recent
throughput, request outcomes) live in `ServerMetrics`; queue, KV-cache, token and draft totals
come from the engine's stats.
"""
from __future__ import annotations

import bisect
import threading
import time
from collections import deque
from typing import Any

TTFT_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
THROUGHPUT_WINDOW_S = 10.0


class ServerMetrics:
    """Counters updated by request handlers (all on the event loop, guarded for safety)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests_total: dict[str, int] = {}
        self.ttft_counts = [0] * (len(TTFT_BUCKETS) + 1)
        self.ttft_sum = 0.0
        self._recent: deque[tuple[float, int]] = deque()

    def record_request(self, endpoint: str, outcome: str) -> None:
        key = f'endpoint="{endpoint}",outcome="{outcome}"'
        with self._lock:
            self.requests_total[key] = self.requests_total.get(key, 0) + 1

    def record_ttft(self, seconds: float) -> None:
        with self._lock:
            self.ttft_counts[bisect.bisect_left(TTFT_BUCKETS, seconds)] += 1
            self.ttft_sum += seconds

    def record_generated(self, generated: int) -> None:
        now = time.monotonic()
        with self._lock:
            self._recent.append((now, generated))
            while self._recent and self._recent[0][0] < now - THROUGHPUT_WINDOW_S:
                self._recent.popleft()

    def generation_tokens_per_second(self) -> float:
        now = time.monotonic()
        with self._lock:
            recent = sum(n for t, n in self._recent if t >= now - THROUGHPUT_WINDOW_S)
        return recent / THROUGHPUT_WINDOW_S


def render_prometheus(server: ServerMetrics, engine_stats: Any, model: str) -> str:
    """The /metrics page."""
    label = f'model_name="{model}"'
    used, total = engine_stats.kv_blocks_used, engine_stats.kv_blocks_total
    queried, hit = engine_stats.prefix_cache_queried_tokens, engine_stats.prefix_cache_hit_tokens
    simple = [  # (name, type, help, value)
        ("num_requests_running", "gauge", "Sequences in the running batch.", engine_stats.num_running),
        ("num_requests_waiting", "gauge", "Sequences waiting to be scheduled.", engine_stats.num_waiting),
        ("kv_cache_blocks_used", "gauge", "KV-cache blocks holding live sequences.", used),
        ("kv_cache_blocks_total", "gauge", "KV-cache blocks in the pool.", total),
        ("kv_cache_blocks_peak_used", "gauge", "Most KV-cache blocks ever in use at once.",
         engine_stats.kv_blocks_peak_used),
        ("kv_cache_usage_ratio", "gauge", "Fraction of KV-cache blocks in use.",
         used / total if total else 0.0),
        ("prefix_cache_queried_tokens_total", "counter", "Prompt tokens looked up in the prefix cache.",
         queried),
        ("prefix_cache_hit_tokens_total", "counter", "Prompt tokens found in the prefix cache.", hit),
        ("prefix_cache_hit_rate", "gauge", "Prefix-cache hit tokens / queried tokens.",
         hit / queried if queried else 0.0),
        ("prompt_tokens_total", "counter", "Prompt tokens of admitted requests.",
         engine_stats.prompt_tokens_total),
        ("generation_tokens_total", "counter", "Generated tokens.", engine_stats.generation_tokens_total),
        ("num_preemptions_total", "counter", "Sequences preempted for lack of KV blocks.",
         engine_stats.num_preemptions),
        # vLLM's names: prompt-lookup drafts verified, and those that stood (their ratio is the acceptance rate).
        ("spec_decode_num_draft_tokens_total", "counter", "Speculative draft tokens verified.",
         engine_stats.draft_tokens_total),
        ("spec_decode_num_accepted_tokens_total", "counter", "Speculative draft tokens accepted.",
         engine_stats.accepted_draft_tokens_total),
        ("generation_tokens_per_second", "gauge",
         f"Generated tokens per second over the last {THROUGHPUT_WINDOW_S:.0f} s.",
         round(server.generation_tokens_per_second(), 3)),
    ]
    lines: list[str] = []
    for name, kind, help_text, value in simple:
        lines += [f"# HELP llm_backend_{name} {help_text}", f"# TYPE llm_backend_{name} {kind}",
                  f"llm_backend_{name}{{{label}}} {value}"]
    lines += ["# HELP llm_backend_requests_total Requests by endpoint and outcome.",
              "# TYPE llm_backend_requests_total counter"]
    lines += [f"llm_backend_requests_total{{{label},{key}}} {count}"
              for key, count in sorted(server.requests_total.items())]
    cumulative, buckets = 0, []
    for bound, count in zip(TTFT_BUCKETS + (float("inf"),), server.ttft_counts):
        cumulative += count
        le = "+Inf" if bound == float("inf") else str(bound)
        buckets.append((f'_bucket{{{label},le="{le}"}}', cumulative))
    lines.append("# HELP llm_backend_time_to_first_token_seconds Time from request to first token.")
    lines.append("# TYPE llm_backend_time_to_first_token_seconds histogram")
    lines += [f"llm_backend_time_to_first_token_seconds{s} {v}" for s, v in buckets]
    lines.append(f"llm_backend_time_to_first_token_seconds_sum{{{label}}} {server.ttft_sum}")
    lines.append(f"llm_backend_time_to_first_token_seconds_count{{{label}}} {cumulative}")
    return "\n".join(lines) + "\n"
