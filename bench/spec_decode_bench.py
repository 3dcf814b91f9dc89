"""Prompt-lookup speculative decoding on the assistant's two kinds of passes, in process.

Each prompt runs greedy with speculation off and on (interleaved, so other load hits both alike),
on the same engine settings; the table gives the draft acceptance rate, the tokens each forward
pass yields, and the wall-time speed-up, and checks the tokens are identical:

    OMP_WAIT_POLICY=PASSIVE python -m bench.spec_decode_bench --model qwen2.5-coder-1.5b-instruct

- writer: tool results in the prompt, answer constrained like the gateway's (a figure early on);
- tool call: a router prompt with three weather tools, the grammar of a tool call, three cities.
"""
from __future__ import annotations

import argparse
import statistics
import time

from llm_backend.config import EngineConfig
from llm_backend.engine.llm_engine import LLMEngine
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.structured.grammars import GrammarCache
from llm_backend.structured.tools import resolve_tool_choice, validate_tools
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


def cases(engine: LLMEngine, grammars: GrammarCache) -> list[tuple[str, list[int], object]]:
    tokenizer = engine.tokenizer
    out = []
    figure = grammars.for_regex(FIGURE_EARLY)
    for question, results in WRITER_CASES:
        messages = [{"role": "system", "content": WRITER_SYSTEM},
                    {"role": "user", "content": f"{question}\n\nTool results:\n{results}"}]
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True)
        out.append(("writer", tokenizer.encode(text, add_special_tokens=False), grammars.constraint_factory(figure)))
    tools = validate_tools(TOOLS)
    calls = grammars.for_tools(tools, resolve_tool_choice("auto", tools), True)
    for question in ROUTER_CASES:
        messages = [{"role": "system", "content": ROUTER_SYSTEM}, {"role": "user", "content": question}]
        text = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True)
        out.append(("tool call", tokenizer.encode(text, add_special_tokens=False), grammars.constraint_factory(calls)))
    return out


def run(engine: LLMEngine, prompt: list[int], factory, max_tokens: int) -> tuple[list[int], float, int, int, int]:
    """Tokens, seconds, steps, drafts, accepted drafts of one greedy request."""
    before = engine.stats()
    engine.add_request("r", prompt, SamplingParams(max_tokens=max_tokens, temperature=0), factory)
    tokens: list[int] = []
    steps = 0
    start = time.perf_counter()
    while engine.has_unfinished_requests():
        for output in engine.step():
            tokens += output.new_token_ids
        steps += 1
    seconds = time.perf_counter() - start
    after = engine.stats()
    return (tokens, seconds, steps, after.draft_tokens_total - before.draft_tokens_total,
            after.accepted_draft_tokens_total - before.accepted_draft_tokens_total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--num-speculative-tokens", type=int, nargs="+", default=[2])
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    checkpoint = load_checkpoint(args.model, gguf_blocks=True)
    engines = {k: LLMEngine(EngineConfig(model=args.model, num_speculative_tokens=k), checkpoint)
               for k in [0, *args.num_speculative_tokens]}
    tokenizer = checkpoint.tokenizer
    grammars = GrammarCache(tokenizer.hf_tokenizer, checkpoint.config.vocab_size, list(tokenizer.eos_token_ids))
    rows = []
    for kind, prompt, factory in cases(engines[0], grammars):
        for engine in engines.values():
            run(engine, prompt, factory, 4)  # warm the prefix cache alike: the timed runs decode only
        results: dict[int, list] = {k: [] for k in engines}
        for _ in range(args.rounds):
            for k, engine in engines.items():
                results[k].append(run(engine, prompt, factory, args.max_tokens))
        reference, base_seconds = results[0][0][0], statistics.median(r[1] for r in results[0])
        for k in args.num_speculative_tokens:
            tokens, _, steps, drafts, accepted = results[k][0]
            seconds = statistics.median(r[1] for r in results[k])
            rows.append([kind, str(k), str(len(tokens)), "yes" if tokens == reference else "NO",
                         f"{accepted}/{drafts} ({100 * accepted / max(drafts, 1):.0f}%)",
                         f"{len(tokens) / steps:.2f}", f"{1000 * base_seconds / len(reference):.0f}",
                         f"{1000 * seconds / len(tokens):.0f}", f"{base_seconds / seconds:.2f}x"])
        print(repr(tokenizer.decode(reference))[:160], flush=True)
    header = ["pass", "drafts k", "tokens", "identical", "accepted drafts", "tokens / pass", "ms/token off",
              "ms/token on", "speed-up"]
    print("\n| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
