"""`--engine vllm`: the same serve flags, handed to the real vLLM OpenAI server.

vLLM is our scale-out path on GPU machines and clusters; this module only builds its
command line (a pure function, unit-tested) so the two servers stay interchangeable
behind the same port and model name.
"""
from __future__ import annotations

import sys

from llm_backend.config import parse_bytes


def vllm_argv(*, model_path: str, served_model_name: str, host: str, port: int, dtype: str,
              block_size: int, max_num_seqs: int, max_num_batched_tokens: int,
              max_model_len: int | None, kv_cache_memory: str | None, tokenizer: str | None,
              python: str = sys.executable) -> list[str]:
    """argv for `python -m vllm.entrypoints.openai.api_server` equivalent to our serve flags.

    `--threads` has no vLLM counterpart (it is a CPU knob) and is not passed. A GGUF model
    needs `tokenizer` (a Hugging Face repo or directory), as vLLM cannot build one from GGUF
    metadata reliably."""
    argv = [python, "-m", "vllm.entrypoints.openai.api_server",
            "--model", model_path, "--served-model-name", served_model_name,
            "--host", host, "--port", str(port), "--dtype", dtype,
            "--block-size", str(block_size), "--max-num-seqs", str(max_num_seqs),
            "--max-num-batched-tokens", str(max_num_batched_tokens),
            "--enable-prefix-caching", "--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
    if max_model_len is not None:
        argv += ["--max-model-len", str(max_model_len)]
    if kv_cache_memory is not None:
        argv += ["--kv-cache-memory-bytes", str(parse_bytes(kv_cache_memory))]
    if tokenizer is not None:
        argv += ["--tokenizer", tokenizer]
    return argv
