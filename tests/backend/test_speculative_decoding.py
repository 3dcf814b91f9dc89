"""Prompt-lookup speculative decoding: the drafts proposed, and output identical to plain decoding.

Real SmolLM2 engines (its GGUF blocks, and the fp32 dense path) and real xgrammar constraints.
"""
from __future__ import annotations

import pytest
import torch

from engine_helpers import SMOLLM, assert_all_blocks_free, chat_prompt_ids
from llm_backend.config import EngineConfig
from llm_backend.engine import scheduler
from llm_backend.engine.llm_engine import LLMEngine
from llm_backend.engine.prompt_lookup import propose_drafts
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.engine.sequence import Sequence
from llm_backend.layers.gguf_weight import gguf_kernels_available
from llm_backend.structured.grammars import GrammarCache

REPEAT = ("Weather in Paris: 12°C, light rain, wind 14 km/h NW, humidity 81%. Weather in Lyon: 15°C, sunny, "
          "wind 6 km/h S, humidity 55%.\nRepeat the two reports exactly, then say which city is warmer.")


def sequence(tokens: list[int], **params) -> Sequence:
    return Sequence(0, "r", 0, tokens, SamplingParams(**{"temperature": 0, **params}))


def test_drafts_follow_the_latest_earlier_occurrence_of_the_last_tokens():
    assert propose_drafts(sequence([1, 2, 3, 9, 9, 1, 2, 3, 7, 8, 5, 1, 2, 3]), 2, 100) == [7, 8]
    assert propose_drafts(sequence([4, 2, 3, 6, 6, 6, 5, 2, 3]), 3, 100) == [6, 6, 6]  # 3-gram missing: 2-gram
    assert propose_drafts(sequence([1, 2, 3, 4, 5]), 3, 100) == []  # no repeat
    assert propose_drafts(sequence([7, 7, 7, 1, 7]), 3, 100) == []  # a 1-gram is not enough
    assert propose_drafts(sequence([1, 2, 8, 9, 1, 2]), 3, 100) == [8, 9, 1]


def test_drafts_stay_within_max_tokens_the_context_and_greedy_choices():
    tokens = [1, 2, 3, 4, 5, 6, 1, 2]
    assert propose_drafts(sequence(tokens, max_tokens=3), 5, 100) == [3, 4]  # 1 more is the bonus token
    assert propose_drafts(sequence(tokens), 5, len(tokens) + 2) == [3, 4]
    for params in ({"temperature": 0.7}, {"logprobs": 2}, {"repetition_penalty": 1.2}, {"n": 2}):
        assert propose_drafts(sequence(tokens, **params), 5, 100) == [], params


@pytest.fixture(scope="module")
def grammars(smollm_checkpoint):
    tokenizer = smollm_checkpoint.tokenizer
    return GrammarCache(tokenizer.hf_tokenizer, smollm_checkpoint.config.vocab_size, list(tokenizer.eos_token_ids))


def test_drafts_stop_where_the_grammar_would_reject_them(smollm_checkpoint, grammars):
    tokenizer = smollm_checkpoint.tokenizer
    a, b = tokenizer.encode("a", add_special_tokens=False), tokenizer.encode("b", add_special_tokens=False)
    assert len(a) == len(b) == 1
    constraint = grammars.constraint_factory(grammars.for_regex("(ab){2}a+"))()
    seq = Sequence(0, "r", 0, [a[0], b[0], a[0], b[0], a[0], b[0]], SamplingParams(temperature=0), constraint)
    for token in (a[0], b[0], a[0], b[0]):  # the grammar has had "abab": only "a" may follow now
        assert constraint.accept_token(token)
    assert propose_drafts(seq, 3, 100) == [a[0]]  # "ab" followed "bab" before; the grammar takes only "a"
    assert not constraint.accept_token(b[0]) and constraint.accept_token(a[0])  # its state was left as it was


def engines(checkpoint, **settings) -> tuple[LLMEngine, LLMEngine]:
    config = dict(model=SMOLLM, kv_cache_memory="64MiB", max_num_seqs=8, **settings)
    return (LLMEngine(EngineConfig(num_speculative_tokens=0, **config), checkpoint),
            LLMEngine(EngineConfig(num_speculative_tokens=3, **config), checkpoint))


@pytest.fixture(scope="module")
def smollm_blocks():
    from llm_backend.weights import load_checkpoint
    return load_checkpoint(SMOLLM, torch.bfloat16, gguf_blocks=True)


def assert_identical(plain: LLMEngine, speculative: LLMEngine, prompts, params, factory=None) -> None:
    def run(engine):
        for i, prompt in enumerate(prompts):
            engine.add_request(f"r{i}", prompt, params, factory)
        tokens: dict[str, list[int]] = {}
        while engine.has_unfinished_requests():
            for out in engine.step():
                tokens.setdefault(out.request_id, []).extend(out.new_token_ids)
        return tokens

    assert run(speculative) == run(plain)
    stats = speculative.stats()
    assert stats.accepted_draft_tokens_total > 0 and plain.stats().draft_tokens_total == 0
    assert speculative.kv_cache_report()["problems"] == []
    assert_all_blocks_free(speculative)


@pytest.mark.parametrize("max_tokens", [5, 64])
def test_greedy_output_is_identical_on_the_gguf_blocks(smollm_blocks, max_tokens, monkeypatch):
    """Batched with other prompts, drafting for all of them, so drafted rows run beside plain
    decodes; short max_tokens ends a request inside its drafts."""
    if not gguf_kernels_available():
        pytest.skip("no GGUF kernels")
    monkeypatch.setattr(scheduler, "MAX_SEQS_WITH_DRAFTS", 8)
    plain, speculative = engines(smollm_blocks, weight_format="gguf")
    tokenizer = smollm_blocks.tokenizer
    prompts = [chat_prompt_ids(tokenizer, REPEAT), chat_prompt_ids(tokenizer, "List three primes."),
               chat_prompt_ids(tokenizer, "Repeat after me: the quick brown fox jumps over the lazy dog.")]
    assert_identical(plain, speculative, prompts, SamplingParams(max_tokens=max_tokens, temperature=0))


def test_no_drafts_while_several_sequences_run(smollm_checkpoint):
    """Extra rows cost little only while a lone sequence streams the weights: with two running,
    neither drafts; once one finishes, the other does."""
    _, speculative = engines(smollm_checkpoint, dtype="float32")
    tokenizer = smollm_checkpoint.tokenizer
    speculative.add_request("short", chat_prompt_ids(tokenizer, REPEAT), SamplingParams(max_tokens=4, temperature=0))
    speculative.add_request("long", chat_prompt_ids(tokenizer, REPEAT), SamplingParams(max_tokens=64, temperature=0))
    drafted = {1: 0, 2: 0}  # drafts proposed in steps with that many sequences running
    while speculative.has_unfinished_requests():
        running, before = len(speculative.scheduler.running), speculative.stats().draft_tokens_total
        speculative.step()
        if running:
            drafted[running] += speculative.stats().draft_tokens_total - before
    assert drafted[2] == 0 and drafted[1] > 0


def test_greedy_output_is_identical_with_a_stop_string_on_the_dense_path(smollm_checkpoint):
    plain, speculative = engines(smollm_checkpoint, dtype="float32")
    prompts = [chat_prompt_ids(smollm_checkpoint.tokenizer, REPEAT)]
    assert_identical(plain, speculative, prompts, SamplingParams(max_tokens=64, temperature=0, stop=["Lyon: 15"]))


def test_greedy_output_is_identical_under_a_grammar(smollm_blocks, grammars):
    """A regex that lets the model copy the reports: drafts are checked against it and each row is
    masked in the state the tokens before it leave."""
    if not gguf_kernels_available():
        pytest.skip("no GGUF kernels")
    plain, speculative = engines(smollm_blocks, weight_format="gguf")
    factory = grammars.constraint_factory(grammars.for_regex(r"Weather in [A-Z][a-z]+: [0-9]+°C, [a-z ,0-9/%.]+"))
    prompts = [chat_prompt_ids(smollm_blocks.tokenizer, REPEAT)]
    assert_identical(plain, speculative, prompts, SamplingParams(max_tokens=48, temperature=0), factory)
