"""`llm-backend serve` (our engine, or `--engine vllm`) and `llm-backend pull NAME`."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

# Read once, when torch loads libgomp, so it must be set before that import. Between parallel regions
# OpenMP threads spin this many rounds (well under a millisecond), then sleep: a decode step runs
# ~140 short regions (one per matmul and attention call), and waking sleeping threads (what
# OMP_WAIT_POLICY=PASSIVE does every time) cost ~45 us each; endless spinning (ACTIVE) instead
# starves the server's other threads on a small machine. An explicit GOMP_SPINCOUNT wins over both.
os.environ.setdefault("GOMP_SPINCOUNT", "20000")

from llm_backend.config import EngineConfig  # after the OpenMP setting above
from llm_backend.layers.linear import WEIGHT_FORMATS
from llm_backend.server.options import API_KEY_ENV, ServeOptions


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llm-backend", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the OpenAI-compatible server")
    defaults = EngineConfig()
    serve.add_argument("--model", default=defaults.model,
                       help="store name, local .gguf file or Hugging Face model directory")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--dtype", default=defaults.dtype,
                       choices=["auto", "bfloat16", "float16", "float32"])
    serve.add_argument("--weight-format", default=defaults.weight_format, choices=WEIGHT_FORMATS,
                       help="CPU matmul weights: gguf (a GGUF's own quantized blocks, exact to the file, "
                            "the least memory), int8 (groupwise copy for decode) or bf16; auto = gguf for a GGUF "
                            "model where the kernels build (gcc, AVX2), else int8 (AVX-512 VNNI), else bf16")
    serve.add_argument("--device", default=defaults.device, help="auto, cpu or cuda[:N]")
    serve.add_argument("--threads", type=int, default=defaults.threads,
                       help="CPU threads for torch (default: all cores)")
    serve.add_argument("--kv-cache-memory", default=None,
                       help=f"KV-cache budget, e.g. 1GiB or 512MB (default {defaults.kv_cache_memory})")
    serve.add_argument("--block-size", type=int, default=defaults.block_size)
    serve.add_argument("--max-num-seqs", type=int, default=defaults.max_num_seqs)
    serve.add_argument("--max-num-batched-tokens", type=int,
                       default=defaults.max_num_batched_tokens)
    serve.add_argument("--chunk-seconds", type=float, default=defaults.chunk_seconds,
                       help="how long a step holding a prefill chunk may take: on a slow CPU chunks shrink to "
                            "it, so aborts and running streams wait about this long at most (0: no limit)")
    serve.add_argument("--max-model-len", type=int, default=defaults.max_model_len)
    serve.add_argument("--no-prefix-caching", action="store_true")
    serve.add_argument("--num-speculative-tokens", type=int, default=defaults.num_speculative_tokens,
                       help="prompt-lookup drafts verified per greedy decode step (0: no speculative decoding)")
    serve.add_argument("--served-model-name", default=None,
                       help="the model name clients send (default: --model)")
    serve.add_argument("--engine", choices=["native", "vllm"], default="native",
                       help="vllm: exec the real vLLM OpenAI server with the same flags (GPU)")
    serve.add_argument("--tokenizer", default=None,
                       help="--engine vllm only: HF tokenizer for a GGUF model")
    guard = serve.add_argument_group("access and limits")
    guard.add_argument("--api-key", default=None,
                       help=f"require 'Authorization: Bearer KEY' (default: ${API_KEY_ENV}, which other users "
                            "cannot read from the process list)")
    guard.add_argument("--insecure", action="store_true",
                       help="allow a --host beyond loopback without an API key")
    guard.add_argument("--debug-endpoints", action="store_true", help="serve /debug/kv_cache (the KV pool audit)")
    guard.add_argument("--max-prompt-tokens", type=int, default=ServeOptions.max_prompt_tokens,
                       help="the longest prompt one request may send, in tokens (longer ones get a 413)")
    pull = commands.add_parser("pull", help="fetch a model into the local store")
    pull.add_argument("names", nargs="+", metavar="NAME")
    return parser


def engine_config(args: argparse.Namespace) -> EngineConfig:
    return EngineConfig(
        model=args.model, dtype=args.dtype, weight_format=args.weight_format, device=args.device, threads=args.threads,
        kv_cache_memory=args.kv_cache_memory or EngineConfig.kv_cache_memory, block_size=args.block_size,
        max_num_seqs=args.max_num_seqs, max_num_batched_tokens=args.max_num_batched_tokens,
        chunk_seconds=args.chunk_seconds or None,
        max_model_len=args.max_model_len, enable_prefix_caching=not args.no_prefix_caching,
        num_speculative_tokens=args.num_speculative_tokens, served_model_name=args.served_model_name or args.model)


def serve_options(args: argparse.Namespace) -> ServeOptions:
    return ServeOptions(
        host=args.host, port=args.port, api_key=args.api_key or os.environ.get(API_KEY_ENV) or None,
        insecure=args.insecure, debug_endpoints=args.debug_endpoints, max_prompt_tokens=args.max_prompt_tokens)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "pull":
        from llm_backend.weights import pull_main
        return pull_main(args.names)
    options = serve_options(args)
    try:
        options.check()
    except ValueError as error:  # before the model loads: a refusal should not take a minute
        parser.error(str(error))
    if args.engine == "vllm":
        return _exec_vllm(args, options)
    from llm_backend.server.launch import serve
    serve(engine_config(args), options)
    return 0


def _exec_vllm(args: argparse.Namespace, options: ServeOptions) -> int:
    from llm_backend.server.vllm_command import vllm_argv
    from llm_backend.weights import resolve_model
    argv = vllm_argv(
        model_path=str(resolve_model(args.model)), served_model_name=args.served_model_name or args.model,
        host=args.host, port=args.port, dtype=args.dtype, block_size=args.block_size,
        max_num_seqs=args.max_num_seqs, max_num_batched_tokens=args.max_num_batched_tokens,
        max_model_len=args.max_model_len, kv_cache_memory=args.kv_cache_memory,
        tokenizer=args.tokenizer)
    print("exec:", " ".join(argv), file=sys.stderr, flush=True)
    env = dict(os.environ)
    if options.api_key:  # vLLM's own --api-key, through its environment rather than the process list
        env["VLLM_API_KEY"] = options.api_key
    os.execve(argv[0], argv, env)
    return 1  # not reached: execve replaces this process


if __name__ == "__main__":
    sys.exit(main())
