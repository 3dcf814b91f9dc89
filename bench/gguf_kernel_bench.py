"""The GGUF block kernels alone: one decode step's matmuls, by activation rows, plain vs interleaved.

For each row count, the time of all the matmuls a step runs, in order (every layer's q/k/v, o,
gate/up and down, then the LM head: the weights stream from memory as in a real step), the best
of `--repeats` steps so that load from other processes counts least, with the weights laid out
row by row (the plain kernels) and with 8 rows interleaved (AVX-512). Bandwidth is the file's
bytes of these weights over the time:

    OMP_WAIT_POLICY=PASSIVE python -m bench.gguf_kernel_bench --model qwen2.5-coder-1.5b-instruct
"""
from __future__ import annotations

import argparse
import os
import time

import torch

from llm_backend.layers import gguf_weight
from llm_backend.layers.gguf_weight import BlockWeight, QuantizedTensor
from llm_backend.weights import load_checkpoint


def step_weights(tensors: dict, layers: int) -> list[list[QuantizedTensor]]:
    """The parts of every matmul of a decode step, in the order the model runs them."""
    weights = []
    for layer in range(layers):
        prefix = f"model.layers.{layer}"
        weights += [[tensors[f"{prefix}.self_attn.{p}_proj.weight"] for p in "qkv"],
                    [tensors[f"{prefix}.self_attn.o_proj.weight"]],
                    [tensors[f"{prefix}.mlp.gate_proj.weight"], tensors[f"{prefix}.mlp.up_proj.weight"]],
                    [tensors[f"{prefix}.mlp.down_proj.weight"]]]
    return weights + [[tensors.get("lm_head.weight", tensors["model.embed_tokens.weight"])]]


def build(parts: list[QuantizedTensor], interleaved: bool) -> BlockWeight:
    available = gguf_weight.interleaving_available
    gguf_weight.interleaving_available = lambda: interleaved and available()
    try:
        return BlockWeight(parts, None)
    finally:
        gguf_weight.interleaving_available = available


def best_step_time(weights: list[BlockWeight], rows: int, repeats: int) -> float:
    inputs = {weight.in_features: torch.randn(rows, weight.in_features, dtype=torch.bfloat16) for weight in weights}
    best = float("inf")
    for _ in range(repeats + 1):  # the first warms up
        start = time.perf_counter()
        for weight in weights:
            weight.matmul(inputs[weight.in_features], torch.bfloat16)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--rows", type=int, nargs="+", default=[1, 2, 3, 4, 8, 16])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    checkpoint = load_checkpoint(args.model, torch.bfloat16, gguf_blocks=True)
    parts = step_weights(checkpoint.tensors, checkpoint.config.num_hidden_layers)
    step_bytes = sum(part.blocks.numel() for weight in parts for part in weight)
    layouts = {}
    for layout in ("plain", "interleaved"):
        start = time.perf_counter()
        layouts[layout] = [build(weight, layout == "interleaved") for weight in parts]
        print(f"{layout}: built in {time.perf_counter() - start:.1f} s", flush=True)
    print(f"\n## {args.model}: one decode step's {len(parts)} matmuls ({step_bytes / 1e9:.2f} GB), "
          f"{args.threads} threads, best of {args.repeats}\n")
    print("| rows | plain ms | interleaved ms | speed-up | interleaved GB/s |")
    print("|---|---|---|---|---|")
    for rows in args.rows:
        plain, interleaved = (best_step_time(layouts[layout], rows, args.repeats) for layout in layouts)
        print(f"| {rows} | {1000 * plain:.1f} | {1000 * interleaved:.1f} | {plain / interleaved:.2f}x | "
              f"{step_bytes / interleaved / 1e9:.0f} |", flush=True)


if __name__ == "__main__":
    main()
