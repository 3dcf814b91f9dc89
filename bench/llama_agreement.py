"""Greedy agreement with llama.cpp's llama-server on the same GGUF: an outside check of our numerics.

Twelve chat prompts (code, Chinese, English), the same prompt token ids sent to both, 32 greedy
tokens (each stops at EOS on its own). Prints, per weight format of ours, how many continuations
are identical and the mean common prefix:

    OMP_WAIT_POLICY=PASSIVE python -m bench.llama_agreement --model qwen2.5-coder-1.5b-instruct
"""
from __future__ import annotations

import argparse
import os

import httpx

from bench.llama_server import running_llama_server
from bench.serve_bench import markdown_table
from llm_backend.config import EngineConfig
from llm_backend.engine.llm_engine import LLMEngine
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.weights import resolve_model
from tests.support.processes import free_port

PROMPTS = [
    "Write a Python function that checks whether a string is a palindrome.",
    "Explain what a hash map is in two sentences.",
    "写一首关于秋天的短诗。",
    "北京和上海哪个城市更大？",
    "Write a SQL query that returns the ten most recent orders.",
    "What causes thunderstorms?",
    "用一句话解释什么是机器学习。",
    "Translate 'The weather is nice today' into French and Spanish.",
    "Write a bash one-liner that counts the lines of every .py file in a directory.",
    "Give three tips for staying warm in winter.",
    "明天会下雨吗？请给出一般性的建议。",
    "Implement binary search in JavaScript.",
]


def common_prefix(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--weight-formats", nargs="+", default=["gguf", "int8", "bf16"])
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    ours: dict[str, list[list[int]]] = {}
    prompts: list[list[int]] = []
    params = SamplingParams(max_tokens=args.tokens, temperature=0)
    for weight_format in args.weight_formats:
        engine = LLMEngine(EngineConfig(model=args.model, weight_format=weight_format, threads=args.threads))
        tokenizer = engine.tokenizer
        prompts = [tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": p}]),
                                    add_special_tokens=False) for p in PROMPTS]
        ours[weight_format] = [engine.generate([p], params)[0].token_ids for p in prompts]
        del engine
    with running_llama_server(resolve_model(args.model), args.threads, 1, 4096, free_port()) as url:
        base = url.removesuffix("/v1")
        theirs = []
        for prompt in prompts:
            reply = httpx.post(f"{base}/completion", timeout=600, json={
                "prompt": prompt, "n_predict": args.tokens, "temperature": 0, "top_k": 1, "cache_prompt": False,
                "return_tokens": True}).json()
            theirs.append(reply["tokens"])
    rows = []
    for weight_format, outputs in ours.items():
        same = sum(a == b for a, b in zip(outputs, theirs))
        prefixes = [common_prefix(a, b) / max(len(b), 1) for a, b in zip(outputs, theirs)]
        rows.append([weight_format, f"{same}/{len(PROMPTS)}", f"{100 * sum(prefixes) / len(prefixes):.0f}%"])
    print(markdown_table(["our weights", "identical continuations", "mean common prefix"], rows))


if __name__ == "__main__":
    main()
