"""End-to-end eval of the assistant's answers: every dev question through `POST /chat/<user>` of a running gateway.

Start the system first (the real backend, the weather server on simulated data), e.g.

    WEATHER_PROVIDER=simulated mcp-chat up
    python -m bench.chat_eval                      # the sets: ../shared/eval/ (dev), bench/dev2_* ... dev53_*
    python -m bench.chat_eval --set dev2           # one set
    python -m bench.chat_eval my.jsonl --gateway http://127.0.0.1:8081 --markdown eval.md --json replies.json

A file holds single questions (`{"query", ...}` per line) or conversations (`{"id", "turns": [...]}`); the turns
of a conversation go to one user, in order. Each reply is scored twice: loosely by chat_eval_checks.py (the eight
checks the eval began with) and strictly by chat_eval_rules.py (the nine rules of ../shared/eval/README.md).
Prints, for each set on its own, the loose and strict rates per intent, the failures per rule, p50/p90 latency,
and every strict failure with its reply.

Sets: `dev` is the two files of ../shared/eval/ (the first set); `dev2` is bench/dev2_queries.jsonl and
bench/dev2_dialogues.jsonl, written apart from the first (same fields and rules, plus `week: N` with `weekday`:
that weekday N calendar weeks on, 下周三 / next Monday is 1, 下下周一 2). dev2 is for measuring, not tuning: its strict
failures are printed only with --failures (tune on it and it needs a third set). dev2 was tuned on once (its place
failures), so `dev3` (bench/dev3_*) was written apart from both, before any tuning on dev2. `dev4` (bench/dev4_*)
was written apart from all three, so dev3's failures may be tuned on while dev4 stays held apart; it adds a range
search in °F (`units: imperial`, with `min_c`/`max_c` the °F bounds the call is made with). `dev5` (bench/dev5_*) was
written apart from all four, so dev4 may be tuned on while dev5 stays held apart; its conversations run 5 or 6 turns
(small talk between the weather turns) and its questions in Japanese, Spanish, French or German say which of the
two reply languages they want. `dev6` (bench/dev6_*) was written apart from all five, so dev5 may be tuned on while
dev6 stays held apart; it adds "which is windier" (`metric: wind_speed_max`). `dev7` (bench/dev7_*) was written apart
from all six, so dev6 may be tuned on while dev7 stays held apart. `dev8` (bench/dev8_*) was written apart from all
seven, so dev7 may be tuned on while dev8 stays held apart. `dev9` (bench/dev9_*) was written apart from all eight, so
dev8 may be tuned on while dev9 stays held apart. `dev10` (bench/dev10_*) was written apart from all nine, so dev9
may be tuned on while dev10 stays held apart. `dev11` (bench/dev11_*) was written apart from all ten, so dev10 may be
tuned on while dev11 stays held apart. `dev12` (bench/dev12_*) was written apart from all eleven, so dev11 may be
tuned on while dev12 stays held apart. `dev13` (bench/dev13_*) was written apart from all twelve, so dev12 may be
tuned on while dev13 stays held apart. `dev14` (bench/dev14_*) was written apart from all thirteen, so dev13 may be
tuned on while dev14 stays held apart. `dev15` (bench/dev15_*) was written apart from all fourteen, so dev14 may be
tuned on while dev15 stays held apart. `dev16` (bench/dev16_*) was written apart from all fifteen, so dev15 may be
tuned on while dev16 stays held apart. `dev17` (bench/dev17_*) was written apart from all sixteen (beside dev16, by
another writer), so dev16 may be tuned on while dev17 stays held apart. `dev18` and `dev19` (bench/dev18_*, dev19_*) were
written apart from all seventeen and from each other, by two writers side by side; each was run once held apart, then
tuned on. `dev20` and `dev21` (bench/dev20_*, dev21_*) were written apart from all nineteen and from each other, by
two writers side by side; each was run once held apart, then tuned on. `dev22` and `dev23` (bench/dev22_*, dev23_*)
were written apart from all twenty-one and from each other, by two writers side by side; each was run once held
apart, then tuned on. `dev24` and `dev25` (bench/dev24_*, dev25_*) were written apart from all twenty-three and
from each other, by two writers side by side; each was run once held apart, then tuned on. `dev26` and `dev27`
(bench/dev26_*, dev27_*) were written apart from all twenty-five and from each other, by two writers side by side;
each was run once held apart, then tuned on. `dev28` and `dev29` (bench/dev28_*, dev29_*) were written apart from
all twenty-seven and from each other, by two writers side by side; each was run once held apart, then tuned on.
`dev30` and `dev31` (bench/dev30_*, dev31_*) were written apart from all twenty-nine and from each other, by two
writers side by side; each was run once held apart, then tuned on. `dev32` and `dev33` (bench/dev32_*, dev33_*)
were written apart from all thirty-one and from each other, by two writers side by side (their conversations run
up to seven turns); each was run once held apart, then tuned on. `dev34` and `dev35` (bench/dev34_*, dev35_*) were
written apart from all thirty-three and from each other, by two writers side by side; each was run once held apart,
then tuned on. `dev36` and `dev37` (bench/dev36_*, dev37_*) were written apart from all thirty-five and from each
other, by two writers side by side: outdoor plans in less-asked places, and users who test the assistant hard.
`dev38` and `dev39` (bench/dev38_*, dev39_*) were written apart from all thirty-seven and from each other, by two
writers side by side: travellers planning trips abroad, and everyday decisions asked indirectly. `dev40` and
`dev41` (bench/dev40_*, dev41_*) were written apart from all thirty-nine and from each other, by two writers side
by side: people organising events and work around the weather, and users who type carelessly or test the assistant.
`dev42` and `dev43` (bench/dev42_*, dev43_*) were written apart from all forty-one and from each other, by two
writers side by side: places with extreme weather and dates given every way, and chatty, indirect, doubting users.
`dev44` and `dev45` (bench/dev44_*, dev45_*) were written apart from all forty-three and from each other, by two
writers side by side: plans made around the weather (sports, hours, itineraries), and terse or technical users.
`dev46` and `dev47` (bench/dev46_*, dev47_*) were written apart from all forty-five and from each other, by two
writers side by side: families, health and what to wear, and conversations that build up and reason over days.
`dev48` and `dev49` (bench/dev48_*, dev49_*) were written apart from all forty-seven and from each other, by two
writers side by side: outdoor work and jobs, and names and days said every way.
`dev50` and `dev51` (bench/dev50_*, dev51_*) were written apart from all forty-nine and from each other, by two
writers side by side: travel in December across time zones, and users who correct themselves, doubt and
ask beyond temperature.
`dev52` (bench/dev52_*) was written apart from all fifty-one: everyday plans that hang on the weather, in Africa, Asia,
inland Australia and small towns, and Chinese names of places abroad with their country first. `dev53` (bench/dev53_*)
was written apart from all fifty-two, before dev52 was run: clock times and days ahead in words, quantities beyond
temperature, three places compared, one day against another, and °F or the day changed half-way.
Files given as arguments make one set of their own.
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

from bench.chat_eval_checks import fully_correct, score
from bench.chat_eval_rules import RULES, strict_score, strictly_correct

REPO = Path(__file__).resolve().parent.parent
EVAL_DIR = REPO.parent / "shared" / "eval"
DEFAULT_FILES = (EVAL_DIR / "dev_queries.jsonl", EVAL_DIR / "dev_dialogues.jsonl")
LAST_SET = 53  # bench/dev2_* ... dev53_*, in the order they were written


def bench_set_files(number: int) -> tuple[Path, Path]:
    """The questions and the conversations of the set `dev<number>` in bench/."""
    return (REPO / "bench" / f"dev{number}_queries.jsonl", REPO / "bench" / f"dev{number}_dialogues.jsonl")


# Named sets, each reported on its own; a held-apart set's failures are listed only when asked for (--failures).
SETS: dict[str, tuple[Path, ...]] = {"dev": DEFAULT_FILES,
                                     **{f"dev{number}": bench_set_files(number) for number in range(2, LAST_SET + 1)}}
HELD_APART = set(SETS) - {"dev"}


@dataclass
class Outcome:
    """One turn, the gateway's reply, its scores and how long it took."""

    dialogue: str
    index: int
    turn: dict[str, Any]
    reply: dict[str, Any]
    checks: dict[str, bool | None]
    rules: dict[str, bool | None]
    latency_s: float

    @property
    def loose(self) -> bool:
        return fully_correct(self.checks)

    @property
    def strict(self) -> bool:
        return strictly_correct(self.rules)


def load_dialogues(path: Path) -> list[dict[str, Any]]:
    """Conversations from a JSONL file; a line that is a single question is a conversation of one turn."""
    dialogues = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            item = json.loads(line)
            dialogues.append(item if "turns" in item else {"id": f"{path.stem}:{number}", "turns": [item]})
    return dialogues


def ask(client: httpx.Client, user: str, query: str) -> tuple[dict[str, Any], float, bool]:
    """The reply (an `error` reply when the request failed), the latency and whether its images load."""
    started = time.perf_counter()
    try:
        response = client.post(f"/chat/{user}", json={"message": query, "use_tools": True})
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


def run_eval(dialogues: list[dict[str, Any]], gateway_url: str, timeout_s: float,
             progress: bool = True) -> list[Outcome]:
    """Each conversation as a fresh user, its turns in order, one request at a time.

    Ctrl-C stops early and keeps the turns answered so far, so a long run still gives its tables.
    """
    run_id = uuid.uuid4().hex[:8]
    outcomes: list[Outcome] = []
    total = sum(len(d["turns"]) for d in dialogues)
    with httpx.Client(base_url=gateway_url, timeout=timeout_s) as client:
        try:
            for number, dialogue in enumerate(dialogues):
                user = f"eval_{run_id}_{number}"
                for index, turn in enumerate(dialogue["turns"]):
                    turn = {**turn, "earlier": [t["query"] for t in dialogue["turns"][:index]]}
                    reply, latency, image_ok = ask(client, user, turn["query"])
                    outcome = Outcome(dialogue["id"], index, turn, reply, score(turn, reply, image_ok),
                                      strict_score(turn, reply, index, image_ok), latency)
                    outcomes.append(outcome)
                    if progress:
                        mark = "ok " if outcome.strict else ("BAD" if not outcome.loose else "bad")
                        print(f"[{len(outcomes):2}/{total}] {mark} {latency:5.1f}s {turn['query']}", flush=True)
                client.delete(f"/chat/{user}/history")
        except KeyboardInterrupt:
            print(f"interrupted: scoring the {len(outcomes)} turns answered so far", flush=True)
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


def _rate(outcomes: list[Outcome], passed: int) -> str:
    return f"{passed}/{len(outcomes)} ({100 * passed / len(outcomes):.0f}%)"


def _row(label: str, outcomes: list[Outcome]) -> list[str]:
    latency = percentile([o.latency_s for o in outcomes], 0.5)
    return [label, str(len(outcomes)), _rate(outcomes, sum(o.loose for o in outcomes)),
            _rate(outcomes, sum(o.strict for o in outcomes)), f"{latency:.1f}"]


def intent_rows(outcomes: list[Outcome]) -> list[list[str]]:
    """One row per intent, then the total."""
    groups: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.turn["intent"], []).append(outcome)
    return [_row(name, group) for name, group in groups.items()] + [_row("all", outcomes)]


INTENT_HEADER = ["intent", "n", "loose", "strict", "p50 s"]
RULE_HEADER = ["rule", "applies", "broken"]


def rule_rows(outcomes: list[Outcome]) -> list[list[str]]:
    """How often each rule applied and was broken."""
    rows = []
    for rule in RULES:
        applied = [o.rules[rule] for o in outcomes if o.rules[rule] is not None]
        rows.append([rule, str(len(applied)), str(sum(result is False for result in applied))])
    return rows


def text_table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown_table(rows: list[list[str]], header: list[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def summary_lines(outcomes: list[Outcome]) -> list[str]:
    """The headline figures: strict and loose rates, language, disclosure, invented figures, latency."""
    latencies = [o.latency_s for o in outcomes]

    def share(rule: str) -> str:
        applied = [o.rules[rule] for o in outcomes if o.rules[rule] is not None]
        return f"{sum(bool(r) for r in applied)}/{len(applied)}" if applied else "-"

    invented = sum(o.rules["figures"] is False for o in outcomes)
    return [
        f"strict: {_rate(outcomes, sum(o.strict for o in outcomes))}; loose: "
        f"{_rate(outcomes, sum(o.loose for o in outcomes))}",
        f"language: {share('language')}; disclosure of simulated data: {share('disclosure')}; replies with "
        f"invented figures: {invented}",
        f"latency p50 {percentile(latencies, 0.5):.2f} s, p90 {percentile(latencies, 0.9):.2f} s, mean "
        f"{statistics.fmean(latencies):.2f} s over {len(latencies)} turns{_shares(outcomes)}",
    ]


def _shares(outcomes: list[Outcome]) -> str:
    """The p50 of the router's and the writer's time, where the gateway reports them."""
    timings = [o.reply.get("timings") or {} for o in outcomes]
    route = [t["route_ms"] / 1000 for t in timings if "route_ms" in t]
    write = [t["write_ms"] / 1000 for t in timings if "write_ms" in t]
    if not route or not write:
        return ""
    return f" (routing p50 {percentile(route, 0.5):.2f} s, writing p50 {percentile(write, 0.5):.2f} s)"


def failures(outcomes: list[Outcome]) -> str:
    lines = []
    for outcome in outcomes:
        if outcome.strict:
            continue
        broken = [rule for rule, result in outcome.rules.items() if result is False]
        calls = "; ".join(f"{call['tool']}({json.dumps(call['arguments'], ensure_ascii=False)})"
                          + (" ERROR" if call.get("is_error") else "")
                          for call in outcome.reply.get("tool_calls", [])) or "no tool"
        answer = outcome.reply.get("response") or json.dumps(outcome.reply.get("error"), ensure_ascii=False)
        lines.append(f"- [{outcome.dialogue}#{outcome.index + 1}] {outcome.turn['query']}  [{', '.join(broken)}]\n"
                     f"    calls: {calls}\n    answer: {answer[:240]!r}")
    return "\n".join(lines) or "(none)"


def report_markdown(outcomes: list[Outcome], model: str, title: str | None = None) -> str:
    return "\n\n".join([
        *([f"## {title}"] if title else []),
        f"Model `{model}`, {len(outcomes)} turns, weather server on simulated data.",
        markdown_table(intent_rows(outcomes), INTENT_HEADER),
        markdown_table(rule_rows(outcomes), RULE_HEADER),
        "; ".join(summary_lines(outcomes)) + ".",
    ]) + "\n"


def load_set(files: list[Path], limit: int | None = None) -> list[dict[str, Any]]:
    """The conversations of a set's files, the first `limit` of each file."""
    return [d for path in files for d in load_dialogues(path)[:limit]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path,
                        help="JSONL questions or conversations, scored as one set (default: the sets of --set)")
    parser.add_argument("--set", dest="sets", action="append", choices=sorted(SETS),
                        help="a named set to run, each reported on its own; repeatable (default: all of them)")
    parser.add_argument("--failures", action="store_true",
                        help="also list the strict failures of a set held apart from tuning (dev2 ... dev29)")
    parser.add_argument("--gateway", default="http://127.0.0.1:8081", help="the running gateway")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per request")
    parser.add_argument("--limit", type=int, help="only the first N conversations of each file")
    parser.add_argument("--markdown", type=Path, help="write the tables as markdown to this file")
    parser.add_argument("--json", type=Path, help="write every reply with its scores to this file")
    args = parser.parse_args(argv)

    if args.files and args.sets:
        parser.error("give files or --set, not both")
    runs = ([("files", list(args.files))] if args.files
            else [(name, list(SETS[name])) for name in dict.fromkeys(args.sets or SETS)])
    results = []
    for name, files in runs:
        if len(runs) > 1:
            print(f"\n=== set {name}: {', '.join(path.name for path in files)}", flush=True)
        outcomes = run_eval(load_set(files, args.limit), args.gateway, args.timeout)
        if outcomes:
            results.append((name, outcomes))
    if not results:
        return 1
    model = next((o.reply["model"] for _, outcomes in results for o in outcomes if o.reply.get("model")), "unknown")
    print(f"\nmodel {model}")
    for name, outcomes in results:
        print(f"\n=== set {name}\n" if len(runs) > 1 else "")
        print(text_table(intent_rows(outcomes), INTENT_HEADER), end="\n\n")
        print(text_table(rule_rows(outcomes), RULE_HEADER), end="\n\n")
        print("\n".join(summary_lines(outcomes)))
        if name in HELD_APART and not args.failures:
            print(f"\nstrict failures: {sum(not o.strict for o in outcomes)} (held apart from tuning: --failures "
                  "lists them)")
        else:
            print(f"\nstrict failures:\n{failures(outcomes)}")
    if args.markdown:
        args.markdown.write_text("\n".join(report_markdown(outcomes, model, f"Set {name}" if len(runs) > 1 else None)
                                           for name, outcomes in results), encoding="utf-8")
    if args.json:
        records = [{"set": name, "dialogue": o.dialogue, "index": o.index, "query": o.turn, "reply": o.reply,
                    "checks": o.checks, "rules": o.rules, "latency_s": round(o.latency_s, 3)}
                   for name, outcomes in results for o in outcomes]
        args.json.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
