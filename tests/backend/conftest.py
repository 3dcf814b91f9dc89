"""Engine test fixtures: the real SmolLM2 checkpoint, engines built on it, and a HF reference.

Every engine made through `make_engine` is checked after the test: no request left and
every KV block back in the pool with a zero ref count.
"""
from __future__ import annotations

import os

import pytest
import torch

from llm_backend.config import EngineConfig
from llm_backend.engine.llm_engine import LLMEngine
from llm_backend.models.hf_reference import build_hf_model
from llm_backend.weights import load_checkpoint

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

SMOLLM = "smollm2-135m-instruct"
QWEN_05B = "qwen2.5-coder-0.5b-instruct"

CHAT_PROMPTS = [
    "What is the capital of France?",
    "Write a haiku about rain in Paris.",
    "List three primes.",
    "Explain what a KV cache is in one sentence.",
    "Hi",
    "Translate 'good morning' to Spanish and German, and say which one is more formal.",
    "Why is the sky blue? Answer briefly for a child who is five years old and curious about science.",
    "2+2=",
]


def assert_all_blocks_free(engine: LLMEngine) -> None:
    manager = engine.block_manager
    assert not engine.has_unfinished_requests()
    assert not engine.scheduler.running and not engine.scheduler.waiting
    assert all(block.ref_count == 0 for block in manager.blocks), "leaked KV block references"
    assert manager.num_free_blocks == manager.num_blocks
    pooled = list(manager._free) + list(manager._evictable)
    assert sorted(pooled) == list(range(manager.num_blocks)), "a block is lost or listed twice"


@pytest.fixture(scope="session")
def smollm_checkpoint():
    return load_checkpoint(SMOLLM, torch.float32)


@pytest.fixture
def make_engine(smollm_checkpoint):
    """Build SmolLM2 engines (fp32 unless overridden); checks they end with every block free."""
    engines: list[LLMEngine] = []

    def make(**overrides) -> LLMEngine:
        settings = dict(model=SMOLLM, dtype="float32", kv_cache_memory="64MiB", max_num_seqs=8,
                        max_num_batched_tokens=256)
        settings.update(overrides)
        engine = LLMEngine(EngineConfig(**settings), smollm_checkpoint)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        assert_all_blocks_free(engine)


def chat_prompt_ids(tokenizer, question: str) -> list[int]:
    text = tokenizer.apply_chat_template([{"role": "user", "content": question}])
    return tokenizer.encode(text, add_special_tokens=False)


def hf_reference_model(checkpoint) -> torch.nn.Module:
    """The same weights in transformers' own implementation, fp32, never stopping at EOS."""
    return build_hf_model(checkpoint.config, checkpoint.tensors, torch.float32)
