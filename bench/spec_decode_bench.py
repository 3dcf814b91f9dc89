"""Prompt-lookup speculative decoding on the assistant's two kinds of passes, in process.

Each request runs greedy with speculation off (k = 0) and with each k given, interleaved (so other load hits them
alike), on the same engine settings; a table per kind of pass gives the draft acceptance rate, the tokens each
forward pass yields, tokens/s with and without drafts, and checks the tokens are identical to k = 0's:

    OMP_WAIT_POLICY=PASSIVE python -m bench.spec_decode_bench --model qwen2.5-coder-1.5b-instruct
    OMP_WAIT_POLICY=PASSIVE python -m bench.spec_decode_bench --requests prompts.jsonl --num-speculative-tokens 2 3

Without --requests, three hand-written requests of each kind:
- writer: tool results in the prompt, answer constrained like the gateway's (a figure early on);
- router: a router prompt with three weather tools, the grammar of a tool call, three cities.

With --requests, the chat completions in a JSONL file of bench/capture_proxy.py (the gateway's real requests, e.g.
of an eval run): one with `tools` is a router pass, one without a writer pass. Each becomes engine inputs through
the server's own code (llm_backend/server/chat_inputs.py: chat template, tools, the regex or response_format
grammar, max_tokens, cache salt), and runs greedy whatever temperature it asked for. Requests the server refused
and those with max_tokens < 2 (the gateway's warm-up: nothing to draft for) are skipped.

"Tokens / pass" counts every step of a run, the prefill of what the prefix cache did not hold included; tokens/s
is a kind's tokens over the sum of its requests' median seconds, and the speed-up the ratio of those seconds.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_backend.config import EngineConfig
from llm_backend.engine.llm_engine import ConstraintFactory, LLMEngine
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.engine.sequence import CacheScope
from llm_backend.server.chat_inputs import compile_grammar, render_prompt, reply_constraint
from llm_backend.server.errors import OpenAIError, validate_request
from llm_backend.server.metrics import ServerMetrics
from llm_backend.server.options import ServeOptions
from llm_backend.server.params import sampling_params
from llm_backend.server.protocol import ChatCompletionRequest
from llm_backend.server.state import ServerState
from llm_backend.structured.grammars import GrammarCache
from llm_backend.weights import load_checkpoint

WRITER_SYSTEM = ("You write the final answer for a weather assistant, using only the tool results given. In one to "
                 "three short sentences, answer the question directly, and quote the numbers that answer it exactly "
                 "as given, with units.")
WRITER_CASES = [
    ("Will it rain in Lisbon this weekend?",
     "Lisbon, Portugal 3-day forecast: 2026-03-06 (Friday) Overcast 11..17°C rain 20%; 2026-03-07 (Saturday) "
     "Moderate rain 10..15°C rain 80%, 7.4 mm; 2026-03-08 (Sunday) Slight rain 9..14°C rain 65%, 2.1 mm."),
    ("北京和上海现在哪个更冷？",
     "北京 (Beijing), China at 2026-03-05T08:00: -2.1°C (feels -6.0°C), Clear sky, humidity 31%, wind 12.2 km/h.\n"
     "上海 (Shanghai), China at 2026-03-05T08:00: 7.8°C (feels 5.1°C), Overcast, humidity 74%, wind 9.4 km/h."),
    ("How windy is it in Wellington right now?",
     "Wellington, New Zealand at 2026-03-05T14:00: 16.4°C (feels 13.9°C), Partly cloudy, humidity 68%, wind "
     "38.6 km/h, gusts 61.2 km/h, precipitation 0.0 mm, UV 4."),
]
FIGURE_EARLY = r"(?:[^0-9。！？.!?]{0,120}[0-9]|[^0-9。！？.!?]{120})[\s\S]*"
ROUTER_SYSTEM = ("You are an assistant with tools. Call a tool whenever the question needs data a tool provides; "
                 "never guess such data. When the question names several places, call the tool once for each.")
TOOLS = [{"type": "function", "function": {"name": name, "description": description, "parameters": {
    "type": "object", "properties": {"city": {"type": "string", "description": "city name"}, **extra},
    "required": ["city"]}}} for name, description, extra in [
    ("get_current_weather", "Current conditions in a city.", {}),
    ("get_forecast", "Daily forecast for a city.", {"days": {"type": "integer", "minimum": 1, "maximum": 7}}),
    ("get_precipitation", "Rain amounts and chances for a city.", {"days": {"type": "integer"}}),
]]
ROUTER_CASES = ["Compare the weather right now in Madrid, Barcelona and Valencia.",
                "What's the 3-day forecast for Tokyo, Osaka and Kyoto?",
                "明天广州、深圳和香港会下雨吗？"]
HAND_WRITTEN_MAX_TOKENS = 96
WARM_TOKENS = 4  # a first short run on every engine puts the prompt in its prefix cache: the timed runs decode only


@dataclass
class Case:
    """One request as the engine runs it."""

    kind: str  # "writer" (no tools) or "router"
    prompt: list[int]
    params: SamplingParams
    factory: ConstraintFactory | None
    cache_scope: CacheScope


@dataclass
class Run:
    tokens: list[int]
    seconds: float
    steps: int
    drafts: int
    accepted: int


def hand_written_requests() -> list[dict[str, Any]]:
    """The built-in requests, as the gateway would send them."""
    writers = [{"messages": [{"role": "system", "content": WRITER_SYSTEM},
                             {"role": "user", "content": f"{question}\n\nTool results:\n{results}"}],
                "structured_outputs": {"regex": FIGURE_EARLY}} for question, results in WRITER_CASES]
    routers = [{"messages": [{"role": "system", "content": ROUTER_SYSTEM}, {"role": "user", "content": question}],
                "tools": TOOLS, "tool_choice": "auto"} for question in ROUTER_CASES]
    return [{"model": "bench", "temperature": 0, "max_tokens": HAND_WRITTEN_MAX_TOKENS, **body}
            for body in writers + routers]


def captured_requests(path: Path) -> list[dict[str, Any]]:
    """The request bodies of a capture_proxy JSONL file that the backend answered with a 200."""
    lines = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return [line["request"] for line in lines if line.get("status") == 200]


def to_case(state: ServerState, body: dict[str, Any], max_tokens: int | None) -> Case | str:
    """The engine inputs of one request body, through the server's own steps; or why it is skipped."""
    try:
        req = validate_request(ChatCompletionRequest, body)
        prompt = render_prompt(state, req)
        params = sampling_params(req, len(prompt.ids), state.max_model_len)
        factory = reply_constraint(state, req, compile_grammar(state, req, prompt))
    except OpenAIError as error:
        return f"refused: {error}"
    params = dataclasses.replace(params, temperature=0.0, report_progress=False,
                                 max_tokens=min(params.max_tokens, max_tokens or params.max_tokens))
    if params.max_tokens < 2:
        return f"max_tokens {params.max_tokens}"
    return Case("router" if req.tools else "writer", prompt.ids, params, factory,
                CacheScope(req.cache_salt, prompt.shared_tokens))


def run(engine: LLMEngine, case: Case, max_tokens: int | None = None) -> Run:
    """One greedy request alone on `engine`: its tokens, seconds, steps, drafts and accepted drafts."""
    params = dataclasses.replace(case.params, max_tokens=max_tokens or case.params.max_tokens)
    before = engine.stats()
    engine.add_request("r", case.prompt, params, case.factory, case.cache_scope)
    tokens: list[int] = []
    steps = 0
    start = time.perf_counter()
    while engine.has_unfinished_requests():
        for output in engine.step():
            tokens += output.new_token_ids
        steps += 1
    seconds = time.perf_counter() - start
    after = engine.stats()
    return Run(tokens, seconds, steps, after.draft_tokens_total - before.draft_tokens_total,
               after.accepted_draft_tokens_total - before.accepted_draft_tokens_total)


def measure(engines: dict[int, LLMEngine], case: Case, rounds: int) -> dict[int, list[Run]]:
    """`rounds` runs of `case` on every engine, interleaved, after a warming run on each."""
    for engine in engines.values():
        run(engine, case, min(WARM_TOKENS, case.params.max_tokens))
    runs: dict[int, list[Run]] = {k: [] for k in engines}
    for _ in range(rounds):
        for k, engine in engines.items():
            runs[k].append(run(engine, case))
    return runs


def summary(kind: str, measured: list[dict[int, list[Run]]], ks: Iterable[int]) -> list[list[str]]:
    """Table rows for one kind of pass: k = 0, then each k, over all its requests."""
    base_seconds = sum(statistics.median(r.seconds for r in runs[0]) for runs in measured)
    rows = []
    for k in ks:
        first = [runs[k][0] for runs in measured]
        tokens, steps = sum(len(r.tokens) for r in first), sum(r.steps for r in first)
        seconds = sum(statistics.median(r.seconds for r in runs[k]) for runs in measured)
        identical = sum(all(r.tokens == runs[0][0].tokens for r in runs[k]) for runs in measured)
        drafts, accepted = sum(r.drafts for r in first), sum(r.accepted for r in first)
        rows.append([kind, str(len(measured)), str(k), str(tokens),
                     f"{identical}/{len(measured)}" if k else "-",
                     f"{accepted}/{drafts} ({100 * accepted / max(drafts, 1):.0f}%)" if k else "-",
                     f"{tokens / max(steps, 1):.2f}", f"{tokens / seconds:.1f}", f"{base_seconds / seconds:.2f}x"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--requests", type=Path, help="a JSONL file of bench/capture_proxy.py to replay")
    parser.add_argument("--num-speculative-tokens", type=int, nargs="+", default=[2])
    parser.add_argument("--max-tokens", type=int, help="a cap on each request's max_tokens")
    parser.add_argument("--limit", type=int, help="replay only the first N requests of each kind")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    checkpoint = load_checkpoint(args.model, gguf_blocks=True)
    ks = [0, *[k for k in args.num_speculative_tokens if k]]
    engines = {k: LLMEngine(EngineConfig(model=args.model, num_speculative_tokens=k), checkpoint) for k in ks}
    tokenizer = checkpoint.tokenizer
    state = ServerState(engine=engines[0], tokenizer=tokenizer, served_model_name=args.model,
                        max_model_len=engines[0].max_model_len, metrics=ServerMetrics(), debug_endpoints=False,
                        grammars=GrammarCache(tokenizer.hf_tokenizer, checkpoint.config.vocab_size,
                                              list(tokenizer.eos_token_ids)),
                        max_prompt_tokens=ServeOptions.max_prompt_tokens)
    bodies = captured_requests(args.requests) if args.requests else hand_written_requests()
    cases: list[Case] = []
    for number, body in enumerate(bodies, start=1):
        case = to_case(state, body, args.max_tokens)
        if isinstance(case, str):
            print(f"request {number} skipped: {case}", flush=True)
        elif args.limit is None or sum(c.kind == case.kind for c in cases) < args.limit:
            cases.append(case)
    measured: dict[str, list[dict[int, list[Run]]]] = {"writer": [], "router": []}
    for number, case in enumerate(cases, start=1):
        runs = measure(engines, case, args.rounds)
        measured[case.kind].append(runs)
        reference = runs[0][0].tokens
        differing = [k for k in ks if any(r.tokens != reference for r in runs[k])]
        print(f"[{number}/{len(cases)}] {case.kind}, {len(case.prompt)} prompt tokens"
              f"{', NOT IDENTICAL with k = ' + str(differing) if differing else ''}: "
              f"{tokenizer.decode(reference)!r:.160}", flush=True)
    header = ["pass", "requests", "drafts k", "tokens", "identical to k = 0", "accepted drafts", "tokens / pass",
              "tokens/s", "speed-up"]
    print("\n| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for kind, kind_runs in measured.items():
        for row in summary(kind, kind_runs, ks) if kind_runs else []:
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
