"""Scheduling must never change greedy results: batching, prefix hits, chunking, preemption.

fp32 throughout: in bf16, oneDNN's GEMM rounds a row differently when the number of
rows changes (measured on SmolLM2's down_proj, 1 vs 8 rows), so near-tie tokens can
flip between batch sizes; docs/benchmarks.md has the details.
"""
from __future__ import annotations

import pytest
import torch

from engine_helpers import CHAT_PROMPTS, assert_all_blocks_free, chat_prompt_ids
from llm_backend.config import EngineConfig
from llm_backend.engine.llm_engine import LLMEngine
from llm_backend.engine.model_runner import kv_block_bytes
from llm_backend.engine.sampling_params import SamplingParams

GREEDY = SamplingParams(max_tokens=16, temperature=0, ignore_eos=True)


@pytest.fixture(scope="module")
def prompts(smollm_checkpoint) -> list[list[int]]:
    return [chat_prompt_ids(smollm_checkpoint.tokenizer, q) for q in CHAT_PROMPTS]


@pytest.fixture(scope="module")
def alone(smollm_checkpoint, prompts) -> list[list[int]]:
    """Each prompt's greedy tokens, generated on its own without prefix caching."""
    config = EngineConfig(dtype="float32", kv_cache_memory="32MiB", enable_prefix_caching=False)
    engine = LLMEngine(config, smollm_checkpoint)
    tokens = [engine.generate([p], GREEDY)[0].token_ids for p in prompts]
    assert_all_blocks_free(engine)
    return tokens


def test_alone_equals_batch_of_eight_mixed_lengths(make_engine, prompts, alone):
    assert len(prompts) == 8 and len({len(p) for p in prompts}) == 8
    engine = make_engine(enable_prefix_caching=False)
    batched = engine.generate(prompts, GREEDY)
    assert engine.stats().num_preemptions == 0
    assert [c.token_ids for c in batched] == alone


def test_prefix_cache_hit_equals_miss(make_engine, prompts, alone):
    engine = make_engine(block_size=8)
    cold = engine.generate([prompts[6]], GREEDY)[0]
    warm = engine.generate([prompts[6]], GREEDY)[0]
    assert cold.cached_tokens == 0
    assert warm.cached_tokens == (len(prompts[6]) - 1) // 8 * 8 > 0
    assert cold.token_ids == warm.token_ids == alone[6]
    # Every chat prompt starts with the same system prompt: a partial hit for the others.
    partial = engine.generate(prompts[:3], GREEDY)
    assert all(0 < c.cached_tokens < len(p) for c, p in zip(partial, prompts))
    assert [c.token_ids for c in partial] == alone[:3]


def test_chunked_prefill_beside_decodes(make_engine, prompts, alone):
    engine = make_engine(enable_prefix_caching=False, max_num_batched_tokens=8)
    results = engine.generate([prompts[7], prompts[6]], GREEDY)  # prompt 6 takes 6 chunked steps
    assert [c.token_ids for c in results] == [alone[7], alone[6]]


def test_preemption_gives_the_same_output(make_engine, smollm_checkpoint, prompts, alone):
    block_bytes = kv_block_bytes(smollm_checkpoint.config, 8, torch.float32)
    # 16 blocks of 8 tokens cannot hold six ~45-token sequences at once.
    engine = make_engine(block_size=8, kv_cache_memory=16 * block_bytes)
    assert engine.block_manager.num_blocks == 16
    assert [c.token_ids for c in engine.generate(prompts[:6], GREEDY)] == alone[:6]
    assert engine.stats().num_preemptions > 0
