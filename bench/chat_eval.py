"""End-to-end tool-use eval: every dev-set question through `POST /chat/<user>` of a running gateway.

Start the system first (the real backend, the weather server on simulated data), e.g.

    WEATHER_PROVIDER=simulated mcp-chat up --model qwen2.5-coder-0.5b-instruct
    python bench/chat_eval.py                      # ../shared/eval/dev_queries.jsonl
    python bench/chat_eval.py my_queries.jsonl --gateway http://127.0.0.1:8081 --markdown eval.md

Each reply is scored by bench/chat_eval_checks.py (tool, location within 50 km, days, chart image,
range bounds, no tool for chit-chat, numbers grounded in the tool data, language). Prints a table per
intent and per language, the p50/p90 latency, and the failures; `--markdown` writes the tables for
docs/benchmarks.md, `--json` every reply with its scores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chat_eval_checks import CHECKS, fully_correct, score  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_QUERIES = REPO.parent / "shared" / "eval" / "dev_queries.jsonl"
_SHORT = {"tool": "tool", "location": "loc", "days": "days", "chart": "chart", "range": "range",
          "no_tool": "no-tool", "grounded": "numbers", "language": "lang"}


@dataclass
class Outcome:
    """One question, the gateway's reply, its scores and how long it took."""

    query: dict[str, Any]
    reply: dict[str, Any]
    checks: dict[str, bool | None]
    latency_s: float

    @property
    def correct(self) -> bool:
        return fully_correct(self.checks)


def load_queries(path: Path) -> list[dict[str, Any]]:
    """One JSON object per non-empty line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ask(client: httpx.Client, user: str, query: dict[str, Any]) -> tuple[dict[str, Any], float, bool]:
    """The reply (an `error` reply when the request failed), the latency and whether its images load."""
    started = time.perf_counter()
    try:
        response = client.post(f"/chat/{user}", json={"message": query["query"], "use_tools": True})
        reply = response.json()
    except (httpx.HTTPError, ValueError) as error:
        reply = {"error": {"code": "request_failed", "message": str(error)}}
    latency = time.perf_counter() - started
    if "response" not in reply:
        return {"response": "", "tool_calls": [], "images": [], **reply}, latency, False
    return reply, latency, all(_image_loads(client, image["url"]) for image in reply.get("images", []))


def _image_loads(client: httpx.Client, url: str) -> bool:
    try:
        response = client.get(url)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and response.headers.get("content-type", "").startswith("image/")


def run_eval(queries: list[dict[str, Any]], gateway_url: str, timeout_s: float,
             progress: bool = True) -> list[Outcome]:
    """Ask every question as a fresh user (no history carries over), in order, one at a time.

    Ctrl-C stops early and keeps the questions answered so far, so a long run still gives its tables.
    """
    run_id = uuid.uuid4().hex[:8]
    outcomes: list[Outcome] = []
    with httpx.Client(base_url=gateway_url, timeout=timeout_s) as client:
        try:
            for index, query in enumerate(queries):
                user = f"eval_{run_id}_{index}"
                reply, latency, image_ok = ask(client, user, query)
                client.delete(f"/chat/{user}/history")
                outcomes.append(Outcome(query, reply, score(query, reply, image_ok), latency))
                if progress:
                    mark = "ok " if outcomes[-1].correct else "BAD"
                    print(f"[{index + 1:2}/{len(queries)}] {mark} {latency:5.1f}s {query['query']}", flush=True)
        except KeyboardInterrupt:
            print(f"interrupted: scoring the {len(outcomes)} questions answered so far", flush=True)
    return outcomes


def percentile(values: list[float], fraction: float) -> float:
    """Linear-interpolated percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _cell(outcomes: list[Outcome], check: str) -> str:
    applicable = [o.checks[check] for o in outcomes if o.checks[check] is not None]
    return f"{sum(applicable)}/{len(applicable)}" if applicable else "-"


def _row(label: str, outcomes: list[Outcome]) -> list[str]:
    correct = sum(o.correct for o in outcomes)
    latency = percentile([o.latency_s for o in outcomes], 0.5)
    return [label, str(len(outcomes)), f"{correct}/{len(outcomes)} ({100 * correct / len(outcomes):.0f}%)",
            *[_cell(outcomes, check) for check in CHECKS], f"{latency:.1f}"]


def summary_rows(outcomes: list[Outcome], key: str) -> list[list[str]]:
    """One row per value of the query field `key` (intent or lang), then the total."""
    groups: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.query[key], []).append(outcome)
    return [_row(name, group) for name, group in groups.items()] + [_row("all", outcomes)]


def _header(first: str) -> list[str]:
    return [first, "n", "fully correct", *[_SHORT[check] for check in CHECKS], "p50 s"]


def text_table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown_table(rows: list[list[str]], header: list[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def latency_line(outcomes: list[Outcome]) -> str:
    latencies = [o.latency_s for o in outcomes]
    return (f"latency p50 {percentile(latencies, 0.5):.2f} s, p90 {percentile(latencies, 0.9):.2f} s, "
            f"mean {statistics.fmean(latencies):.2f} s over {len(latencies)} questions")


def language_line(outcomes: list[Outcome]) -> str:
    right = sum(bool(o.checks["language"]) for o in outcomes)
    return f"replies in the user's language: {right}/{len(outcomes)} ({100 * right / len(outcomes):.0f}%)"


def failures(outcomes: list[Outcome]) -> str:
    lines = []
    for outcome in outcomes:
        if outcome.correct:
            continue
        failed = [check for check, result in outcome.checks.items() if result is False]
        calls = "; ".join(f"{call['tool']}({json.dumps(call['arguments'], ensure_ascii=False)})"
                          for call in outcome.reply.get("tool_calls", [])) or "no tool"
        answer = (outcome.reply.get("response") or json.dumps(outcome.reply.get("error"), ensure_ascii=False))
        lines.append(f"- {outcome.query['query']}  [{', '.join(failed)}]\n    calls: {calls}\n"
                     f"    answer: {answer[:160]!r}")
    return "\n".join(lines) or "(none)"


def report_markdown(outcomes: list[Outcome], model: str) -> str:
    return "\n\n".join([
        f"Model `{model}`, {len(outcomes)} questions, weather server on simulated data.",
        markdown_table(summary_rows(outcomes, "intent"), _header("intent")),
        markdown_table(summary_rows(outcomes, "lang"), _header("language")),
        f"{latency_line(outcomes)}; {language_line(outcomes)}.",
    ]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("queries", nargs="?", type=Path, default=DEFAULT_QUERIES,
                        help="JSONL questions (default: ../shared/eval/dev_queries.jsonl from the repo root)")
    parser.add_argument("--gateway", default="http://127.0.0.1:8081", help="the running gateway")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per request")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument("--markdown", type=Path, help="write the tables as markdown to this file")
    parser.add_argument("--json", type=Path, help="write every reply with its scores to this file")
    args = parser.parse_args(argv)

    queries = load_queries(args.queries)[: args.limit]
    outcomes = run_eval(queries, args.gateway, args.timeout)
    if not outcomes:
        return 1
    model = next((o.reply["model"] for o in outcomes if o.reply.get("model")), "unknown")
    print(f"\nmodel {model}\n")
    print(text_table(summary_rows(outcomes, "intent"), _header("intent")), end="\n\n")
    print(text_table(summary_rows(outcomes, "lang"), _header("language")), end="\n\n")
    print(latency_line(outcomes))
    print(language_line(outcomes))
    print(f"\nfailures:\n{failures(outcomes)}")
    if args.markdown:
        args.markdown.write_text(report_markdown(outcomes, model), encoding="utf-8")
    if args.json:
        records = [{"query": o.query, "reply": o.reply, "checks": o.checks, "latency_s": round(o.latency_s, 3)}
                   for o in outcomes]
        args.json.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
