"""Engine test fixtures: the real SmolLM2 checkpoint and engines built on it.

Every engine made through `make_engine` is checked after the test: no request left and
every KV block back in the pool with a zero ref count.
"""
from __future__ import annotations

import pytest
import torch

from engine_helpers import SMOLLM, assert_all_blocks_free
from llm_backend.config import EngineConfig
from llm_backend.engine.llm_engine import LLMEngine
from llm_backend.weights import load_checkpoint


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
