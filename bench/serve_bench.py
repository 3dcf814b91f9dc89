"""Serving benchmark in the style of `vllm bench serve`, plus a three-way comparison driver.

Client mode measures any OpenAI-compatible server (streaming /v1/completions):

    python -m bench.serve_bench --url http://127.0.0.1:8000/v1 --model qwen2.5-coder-0.5b-instruct

Compare mode runs, in one go and on the same GGUF, our server, llama.cpp's `llama-server` with
`-np` slots = the concurrency (built once from the llama-cpp-python sdist, `bench/llama_server.py`)
and plain transformers `generate` in bf16, then the warm-vs-cold 1,000-token shared-prefix TTFT
test on ours:

    OMP_WAIT_POLICY=PASSIVE python -m bench.serve_bench --compare
    OMP_WAIT_POLICY=PASSIVE python -m bench.serve_bench --decode-only   # batch-1 TPOT, both servers up

Every request asks for exactly --max-tokens tokens (EOS ignored) so rows are comparable.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.llama_server import running_llama_server
from tests.support.processes import free_port

DEFAULT_MODEL = "qwen2.5-coder-0.5b-instruct"
WORDS = ("rain snow sunny cloudy wind forecast temperature humidity tomorrow week city coast mountain "
         "storm breeze frost heat map chart degrees morning evening north south river valley").split()


@dataclass
class RequestResult:
    ttft: float
    e2e: float
    output_tokens: int
    itls: list[float] = field(default_factory=list)

    @property
    def tpot(self) -> float:
        return (self.e2e - self.ttft) / max(self.output_tokens - 1, 1)


@dataclass
class LevelResult:
    backend: str
    concurrency: int
    duration: float
    results: list[RequestResult]

    def row(self) -> list[str]:
        def pct(values: list[float], q: float) -> str:
            if not values:
                return "-"
            values = sorted(values)
            return f"{1000 * values[min(len(values) - 1, round(q * (len(values) - 1)))]:.0f}"

        ttft = [r.ttft for r in self.results]
        tpot = [r.tpot for r in self.results]
        itl = [x for r in self.results for x in r.itls]
        e2e = [r.e2e for r in self.results]
        tokens = sum(r.output_tokens for r in self.results)
        return [self.backend, str(self.concurrency), str(len(self.results)), f"{tokens / self.duration:.1f}",
                pct(ttft, .5), pct(ttft, .99), pct(tpot, .5), pct(tpot, .99), pct(itl, .5), pct(itl, .99),
                pct(e2e, .5), pct(e2e, .99)]


HEADER = ["backend", "conc.", "reqs", "out tok/s", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99",
          "ITL p50", "ITL p99", "E2E p50", "E2E p99"]


DECODE_HEADER = ["ours ms/token", "transformers bf16 ms/token", "speed-up"]


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def make_prompts(count: int, num_words: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [f"Weather report {i}: " + " ".join(rng.choice(WORDS) for _ in range(num_words)) + "\nSummary:"
            for i in range(count)]


# ---- the client -------------------------------------------------------------------------
async def stream_completion(client: httpx.AsyncClient, url: str, model: str, prompt: str,
                            max_tokens: int, ignore_eos_bias: dict[str, float]) -> RequestResult:
    payload = {"model": model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0, "stream": True,
               "stream_options": {"include_usage": True}, "ignore_eos": True, "logit_bias": ignore_eos_bias}
    start = time.perf_counter()
    first = last = None
    itls: list[float] = []
    chunks, usage_tokens = 0, None
    async with client.stream("POST", f"{url}/completions", json=payload) as response:
        if response.status_code != 200:
            raise RuntimeError(f"{response.status_code}: {(await response.aread()).decode()[:300]}")
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            event = json.loads(data)
            if event.get("usage"):
                usage_tokens = event["usage"].get("completion_tokens")
            if any(choice.get("text") for choice in event.get("choices", [])):
                now = time.perf_counter()
                if first is None:
                    first = now
                else:
                    itls.append(now - last)
                last = now
                chunks += 1
    end = time.perf_counter()
    return RequestResult(ttft=(first or end) - start, e2e=end - start, output_tokens=usage_tokens or chunks,
                         itls=itls)


async def run_level(url: str, model: str, backend: str, prompts: list[str], concurrency: int, max_tokens: int,
                    ignore_eos_bias: dict[str, float]) -> LevelResult:
    semaphore = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=httpx.Timeout(600.0)) as client:
        async def limited(prompt: str) -> RequestResult:
            async with semaphore:
                return await stream_completion(client, url, model, prompt, max_tokens, ignore_eos_bias)

        start = time.perf_counter()
        results = await asyncio.gather(*(limited(p) for p in prompts))
    return LevelResult(backend, concurrency, time.perf_counter() - start, list(results))


def bench_server(url: str, model: str, backend: str, args: argparse.Namespace,
                 ignore_eos_bias: dict[str, float], concurrencies: list[int] | None = None) -> list[LevelResult]:
    levels = []
    warmup = make_prompts(1, args.input_words, seed=999)
    asyncio.run(run_level(url, model, backend, warmup, 1, 4, ignore_eos_bias))
    for concurrency in concurrencies or args.concurrency:
        prompts = make_prompts(concurrency * args.waves, args.input_words, seed=concurrency)
        level = asyncio.run(run_level(url, model, backend, prompts, concurrency, args.max_tokens, ignore_eos_bias))
        print(markdown_table(HEADER, [level.row()]), flush=True)
        levels.append(level)
    return levels


def prefix_ttft(url: str, model: str, args: argparse.Namespace) -> list[str]:
    """Median TTFT of 1,000-word-prefix prompts: each cold one has a new prefix, each warm one reuses it."""
    async def ttft(prompt: str) -> float:
        async with httpx.AsyncClient(timeout=httpx.Timeout(600.0)) as client:
            return (await stream_completion(client, url, model, prompt, 2, {})).ttft

    cold, warm = [], []
    for trial in range(args.prefix_trials):
        prefix = make_prompts(1, args.prefix_words, seed=10_000 + trial)[0]
        cold.append(asyncio.run(ttft(prefix + f" question {trial}: rain?")))
        warm.append(asyncio.run(ttft(prefix + f" question {trial}: snow tomorrow?")))
    cold_ms, warm_ms = 1000 * statistics.median(cold), 1000 * statistics.median(warm)
    return [f"{cold_ms:.0f}", f"{warm_ms:.0f}", f"{100 * warm_ms / cold_ms:.1f}%"]


# ---- the baselines ----------------------------------------------------------------------
def bench_hf_generate(model_name: str, args: argparse.Namespace) -> list[LevelResult]:
    """Static batches of `concurrency` left-padded prompts through transformers `generate`, bf16."""
    import torch

    from llm_backend.weights import load_checkpoint
    from tests.support.hf_reference import build_hf_model

    torch.set_num_threads(args.threads or len(os.sched_getaffinity(0)))
    checkpoint = load_checkpoint(model_name, torch.bfloat16)
    model = build_hf_model(checkpoint.config, checkpoint.tensors, torch.bfloat16)
    hf_tokenizer = checkpoint.tokenizer.hf_tokenizer
    hf_tokenizer.padding_side = "left"
    pad = hf_tokenizer.pad_token_id if hf_tokenizer.pad_token_id is not None else checkpoint.config.eos_token_ids[0]

    def generate(prompts: list[str], new_tokens: int) -> float:
        batch = hf_tokenizer(prompts, return_tensors="pt", padding=True)
        start = time.perf_counter()
        with torch.inference_mode():
            model.generate(**batch, max_new_tokens=new_tokens, do_sample=False, pad_token_id=pad)
        return time.perf_counter() - start

    levels = []
    for concurrency in args.hf_concurrency:
        prompts = make_prompts(concurrency, args.input_words, seed=concurrency)
        generate(prompts, 2)  # warm up this batch shape
        prefill = generate(prompts, 1)
        total = generate(prompts, args.max_tokens)
        per_token = (total - prefill) / (args.max_tokens - 1)
        results = [RequestResult(ttft=prefill, e2e=total, output_tokens=args.max_tokens,
                                 itls=[per_token] * (args.max_tokens - 1)) for _ in prompts]
        level = LevelResult("transformers generate (bf16, static batch)", concurrency, total, results)
        print(markdown_table(HEADER, [level.row()]), flush=True)
        levels.append(level)
    return levels


def batch1_decode(args: argparse.Namespace) -> list[str]:
    """Batch-1 decode ms/token, ours vs transformers, in one process and interleaved round by
    round, so that load from other processes hits both alike; medians over rounds."""
    import torch

    from llm_backend.config import EngineConfig
    from llm_backend.engine.llm_engine import LLMEngine
    from llm_backend.engine.sampling_params import SamplingParams
    from llm_backend.weights import load_checkpoint
    from tests.support.hf_reference import build_hf_model

    checkpoint = load_checkpoint(args.model, torch.bfloat16)
    hf_model = build_hf_model(checkpoint.config, checkpoint.tensors, torch.bfloat16)
    engine = LLMEngine(EngineConfig(model=args.model, threads=args.threads, weight_format=args.weight_format,
                                    enable_prefix_caching=False), checkpoint)
    prompt = checkpoint.tokenizer.encode(make_prompts(1, args.input_words, seed=5)[0])
    ids = torch.tensor([prompt])

    def ours(new_tokens: int) -> float:
        start = time.perf_counter()
        engine.generate([prompt], SamplingParams(max_tokens=new_tokens, temperature=0, ignore_eos=True))
        return time.perf_counter() - start

    def theirs(new_tokens: int) -> float:
        start = time.perf_counter()
        with torch.inference_mode():
            hf_model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new_tokens, do_sample=False)
        return time.perf_counter() - start

    ours(4), theirs(4)
    n = args.max_tokens
    ours_ms, theirs_ms = [], []
    for _ in range(args.decode_rounds):  # (time for n tokens - time for 1 token) / (n - 1) = decode only
        ours_ms.append(1000 * (ours(n) - ours(1)) / (n - 1))
        theirs_ms.append(1000 * (theirs(n) - theirs(1)) / (n - 1))
    ours_med, theirs_med = statistics.median(ours_ms), statistics.median(theirs_ms)
    return [f"{ours_med:.0f} ({1000 / ours_med:.1f} tok/s)", f"{theirs_med:.0f} ({1000 / theirs_med:.1f} tok/s)",
            f"{theirs_med / ours_med:.2f}x"]


def server_memory(backend: str, url: str) -> list[str]:
    """RSS now and at its peak (VmHWM) of the process listening on `url`'s port, in GB."""
    port = url.split(":")[-1].split("/")[0]
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            args = (proc / "cmdline").read_bytes().split(b"\0")
            if b"--port" in args and args[args.index(b"--port") + 1] == port.encode():
                status = dict(line.split(":", 1) for line in (proc / "status").read_text().splitlines())
                return [backend] + [f"{int(status[key].split()[0]) / 1e6:.2f}" for key in ("VmRSS", "VmHWM")]
    return [backend, "-", "-"]


def our_server_flags(args: argparse.Namespace) -> list[str]:
    flags = ["--max-num-seqs", str(max(args.concurrency)), "--weight-format", args.weight_format,
             "--num-speculative-tokens", str(args.num_speculative_tokens)]
    return flags + (["--threads", str(args.threads)] if args.threads else [])


def eos_bias(model: str) -> dict[str, float]:
    """logit_bias that keeps llama-server from ending early (ours takes `ignore_eos`)."""
    from llm_backend.weights import load_checkpoint
    return {str(t): -100.0 for t in load_checkpoint(model, gguf_blocks=True).config.eos_token_ids}


def compare(args: argparse.Namespace) -> None:
    """Ours and llama-server level by level (ours stays up; llama-server restarts with -np = the
    concurrency), so slow drifts of the machine's load hit both alike."""
    from llm_backend.weights import resolve_model
    from tests.support.backend_server import running_server

    gguf = resolve_model(args.model)
    bias = eos_bias(args.model) if args.llama_cpp else {}
    threads = args.threads or len(os.sched_getaffinity(0))
    rows: list[LevelResult] = []
    memory = []
    ours = f"llm_backend (ours, {args.weight_format} weights, {args.num_speculative_tokens} drafts)"
    with running_server(args.model, *our_server_flags(args)) as base_url:
        for concurrency in args.concurrency:
            rows += bench_server(f"{base_url}/v1", args.model, ours, args, bias, [concurrency])
            if args.llama_cpp:  # -np slots = the concurrency, each with a --slot-context-token context
                with running_llama_server(gguf, threads, concurrency, args.slot_context * concurrency,
                                          free_port()) as url:
                    rows += bench_server(url, args.model, f"llama-server (GGUF, -np {concurrency})", args, bias,
                                         [concurrency])
                    memory.append(server_memory(f"llama-server -np {concurrency}", url))
        prefix_row = prefix_ttft(f"{base_url}/v1", args.model, args) if args.prefix_trials else None
        memory.insert(0, server_memory("llm_backend (ours)", base_url))
    if args.hf:
        rows += bench_hf_generate(args.model, args)
    print(f"\n## {args.model}: {args.input_words}-word prompts, {args.max_tokens} output tokens, "
          f"{os.cpu_count()} CPUs\n")
    print(markdown_table(HEADER, [level.row() for level in rows]))
    if args.hf:
        print("\n### Batch-1 decode, in process, interleaved\n")
        print(markdown_table(DECODE_HEADER, [batch1_decode(args)]))
    print("\n### Server memory after the run\n")
    print(markdown_table(["server", "RSS GB", "peak RSS GB"], memory))
    if prefix_row:
        print("\n### Shared prefix TTFT (ours)\n")
        print(markdown_table([f"cold TTFT ms ({args.prefix_words}-word prefix)", "warm TTFT ms", "warm / cold"],
                             [prefix_row]))


def server_decode(args: argparse.Namespace) -> None:
    """Batch-1 TPOT of our server and llama-server -np 1, both up, one request each in turn."""
    from llm_backend.weights import resolve_model
    from tests.support.backend_server import running_server

    bias = eos_bias(args.model)
    threads = args.threads or len(os.sched_getaffinity(0))
    tpot: dict[str, list[float]] = {"ours": [], "llama-server": []}
    with running_server(args.model, *our_server_flags(args)) as base_url, \
            running_llama_server(resolve_model(args.model), threads, 1, 4096, free_port()) as llama_url:
        urls = {"ours": f"{base_url}/v1", "llama-server": llama_url}
        for name, url in urls.items():  # warm up
            asyncio.run(run_level(url, args.model, name, make_prompts(1, args.input_words, 999), 1, 4, bias))
        for round_ in range(args.decode_rounds):
            prompts = make_prompts(1, args.input_words, seed=round_)
            for name, url in urls.items():
                level = asyncio.run(run_level(url, args.model, name, prompts, 1, args.max_tokens, bias))
                tpot[name].append(1000 * level.results[0].tpot)
    ours, theirs = statistics.median(tpot["ours"]), statistics.median(tpot["llama-server"])
    print(f"\n## {args.model}: batch-1 TPOT, {args.max_tokens} tokens, median of {args.decode_rounds} "
          f"interleaved rounds ({args.num_speculative_tokens} drafts for ours)\n")
    print(markdown_table(["ours TPOT ms", "llama-server TPOT ms", "ours / llama-server"],
                         [[f"{ours:.1f}", f"{theirs:.1f}", f"{ours / theirs:.2f}x"]]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="OpenAI-compatible base URL ending in /v1 (client mode)")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--compare", action="store_true", help="run ours, llama-server and transformers")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--hf-concurrency", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--waves", type=int, default=1, help="requests per level = concurrency x waves")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--input-words", type=int, default=100)
    parser.add_argument("--prefix-words", type=int, default=1000)
    parser.add_argument("--prefix-trials", type=int, default=3, help="0 skips the shared-prefix TTFT test")
    parser.add_argument("--slot-context", type=int, default=2048,
                        help="llama-server context per slot (tokens); raise it for long --input-words")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--no-llama-cpp", dest="llama_cpp", action="store_false")
    parser.add_argument("--no-hf", dest="hf", action="store_false")
    parser.add_argument("--decode-only", action="store_true",
                        help="only batch-1 TPOT: our server and llama-server, interleaved request by request")
    parser.add_argument("--decode-rounds", type=int, default=3)
    parser.add_argument("--num-speculative-tokens", type=int, default=2,
                        help="our server's prompt-lookup drafts (llm-backend serve --num-speculative-tokens)")
    parser.add_argument("--weight-format", default="auto", choices=["auto", "gguf", "bf16", "int8"],
                        help="our engine's CPU weight format (llm-backend serve --weight-format)")
    args = parser.parse_args()
    if args.decode_only:
        server_decode(args)
    elif args.compare:
        compare(args)
    elif args.url:
        levels = bench_server(args.url, args.model, args.url, args, {})
        print(markdown_table(HEADER, [level.row() for level in levels]))
    else:
        parser.error("give --url or --compare")


if __name__ == "__main__":
    main()
