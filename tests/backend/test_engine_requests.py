"""Request-level behaviour of LLMEngine on SmolLM2: stopping, n, seeds, grammar, aborts, errors."""
from __future__ import annotations

import pytest

from engine_helpers import CHAT_PROMPTS, AllowList, chat_prompt_ids
from llm_backend.engine import llm_engine
from llm_backend.engine.sampling_params import SamplingParams


@pytest.fixture
def engine(make_engine):
    return make_engine()


@pytest.fixture
def prompt(engine):
    return chat_prompt_ids(engine.tokenizer, CHAT_PROMPTS[1])


def run(engine) -> list:
    outputs = []
    while engine.has_unfinished_requests():
        outputs += engine.step()
    return outputs


def test_max_tokens_stop_strings_and_stop_tokens(engine, prompt):
    full = engine.generate([prompt], SamplingParams(max_tokens=20, temperature=0, ignore_eos=True))[0]
    assert full.finish_reason == "length" and len(full.token_ids) == 20
    stop = full.text[len(full.text) // 2:][:4]
    cut = engine.generate([prompt], SamplingParams(max_tokens=20, temperature=0, stop=[stop]))[0]
    assert cut.finish_reason == "stop" and cut.text == full.text[:full.text.index(stop)]
    engine.add_request("s", prompt, SamplingParams(max_tokens=20, temperature=0, stop_token_ids=[full.token_ids[5]]))
    outputs = run(engine)
    assert outputs[-1].finish_reason == "stop" and outputs[-1].stop_reason == full.token_ids[5]
    assert [o.new_token_ids[0] for o in outputs] == full.token_ids[:6]


def test_eos_ends_with_stop(engine):
    prompt = chat_prompt_ids(engine.tokenizer, "Say only the word yes.")
    result = engine.generate([prompt], SamplingParams(max_tokens=48, temperature=0))[0]
    assert result.finish_reason == "stop"
    assert result.token_ids[-1] in engine.eos_token_ids
    assert engine.tokenizer.decode(result.token_ids[-1:]) not in result.text


def test_n_greedy_choices_share_the_prompt_and_copy_on_write(engine, prompt):
    single = engine.generate([prompt], SamplingParams(max_tokens=12, temperature=0, ignore_eos=True))[0]
    assert len(prompt) % engine.config.block_size != 0  # the last prompt block is shared, then copied
    choices = engine.generate([prompt], SamplingParams(n=3, max_tokens=12, temperature=0, ignore_eos=True))
    assert [c.token_ids for c in choices] == [single.token_ids] * 3


def test_seeded_sampling_is_reproducible_and_choices_differ(engine, prompt):
    params = SamplingParams(n=2, max_tokens=12, temperature=1.0, seed=1234, ignore_eos=True)
    first = engine.generate([prompt], params)
    again = engine.generate([prompt], params)
    assert [c.token_ids for c in first] == [c.token_ids for c in again]
    assert first[0].token_ids != first[1].token_ids


def test_grammar_constraint_restricts_tokens_and_terminates(engine, prompt):
    allowed = engine.tokenizer.encode(" sunny cloudy rain", add_special_tokens=False)
    grammars = []

    def factory():
        grammars.append(AllowList(allowed, length=4))
        return grammars[-1]

    engine.add_request("g", prompt, SamplingParams(n=2, max_tokens=20, temperature=0.8), factory)
    outputs = run(engine)
    assert len(grammars) == 2  # one constraint per choice
    for index in (0, 1):
        mine = [o for o in outputs if o.index == index]
        assert [o.new_token_ids[0] in allowed for o in mine] == [True] * 4
        assert mine[-1].finish_reason == "stop"


def test_logprobs_and_usage(engine, prompt):
    engine.add_request("l", prompt, SamplingParams(max_tokens=3, temperature=0, logprobs=2))
    outputs = run(engine)
    assert all(len(o.logprobs) == 1 and len(o.logprobs[0].top) == 2 for o in outputs)
    assert outputs[0].logprobs[0].token_id == outputs[0].new_token_ids[0] == outputs[0].logprobs[0].top[0][0]
    last = outputs[-1]
    assert (last.prompt_tokens, last.completion_tokens) == (len(prompt), 3)


def test_abort_frees_blocks_at_once(engine, prompt):
    engine.add_request("a", prompt, SamplingParams(max_tokens=100, ignore_eos=True))
    engine.add_request("b", prompt[:10], SamplingParams(max_tokens=100, ignore_eos=True))
    for _ in range(3):
        engine.step()
    used = engine.stats().kv_blocks_used
    engine.abort_request("a")
    assert engine.stats().kv_blocks_used < used
    engine.abort_request("b")
    assert engine.stats().kv_blocks_used == 0 and not engine.has_unfinished_requests()
    engine.abort_request("b")  # unknown / finished ids are ignored


CHUNK = 64  # tokens per prefill chunk in the tests below (sized in tokens, not time)


def long_prompt(engine) -> list[int]:
    return chat_prompt_ids(engine.tokenizer, " ".join(CHAT_PROMPTS * 4))


def test_a_prefill_aborted_half_way_is_continued_by_its_retry(make_engine):
    engine = make_engine(max_num_batched_tokens=CHUNK, chunk_seconds=None)
    prompt = long_prompt(engine)
    params = SamplingParams(max_tokens=1, temperature=0, report_progress=True)
    chunks_cold = -(-len(prompt) // CHUNK)
    assert chunks_cold >= 6
    free_at_start = engine.block_manager.num_free_blocks
    engine.add_request("first try", prompt, params)
    for _ in range(chunks_cold // 2):
        engine.step()
    engine.abort_request("first try")
    aborted_part = chunks_cold // 2 * CHUNK
    report = engine.kv_cache_report()
    assert engine.block_manager.num_free_blocks == free_at_start and report["problems"] == []
    assert report["cached"] == aborted_part // engine.config.block_size  # kept, findable by their hashes

    engine.add_request("retry", prompt, params)
    outputs = run(engine)
    progress = [o.prefilled_tokens for o in outputs if o.is_progress]
    assert outputs[-1].cached_tokens == aborted_part and outputs[-1].finished
    assert progress[0] == aborted_part + CHUNK and progress[-1] == len(prompt)
    assert len(progress) == -(-(len(prompt) - aborted_part) // CHUNK)  # about half the cold run's chunks


def test_prefill_chunks_are_reported_as_progress_only_when_asked(make_engine):
    engine = make_engine(max_num_batched_tokens=CHUNK, chunk_seconds=None, enable_prefix_caching=False)
    prompt = long_prompt(engine)
    params = dict(max_tokens=4, temperature=0, ignore_eos=True)
    engine.add_request("plain", prompt, SamplingParams(**params))
    plain = run(engine)
    engine.add_request("progress", prompt, SamplingParams(**params, report_progress=True))
    outputs = run(engine)
    progress = [o for o in outputs if o.is_progress]
    assert not any(o.is_progress for o in plain)
    assert [o.prefilled_tokens for o in progress] == [min(end, len(prompt))
                                                      for end in range(CHUNK, len(prompt) + CHUNK, CHUNK)]
    assert all(o.new_token_ids == [] and o.new_text == "" and not o.finished for o in progress)
    assert all(o.prompt_tokens == len(prompt) and o.cached_tokens == 0 for o in progress)
    assert outputs[:len(progress)] == progress  # every chunk is reported before the first token
    tokens = outputs[len(progress):]
    assert [(o.new_token_ids, o.finish_reason) for o in tokens] == [(o.new_token_ids, o.finish_reason)
                                                                     for o in plain]


def test_a_request_queued_behind_another_hears_that_the_engine_is_working(make_engine, monkeypatch):
    monkeypatch.setattr(llm_engine, "QUEUED_REPORT_S", 0.0)  # every step, here
    engine = make_engine(max_num_batched_tokens=CHUNK, chunk_seconds=None, max_num_seqs=1)
    prompt = long_prompt(engine)
    engine.add_request("first", prompt, SamplingParams(max_tokens=2, temperature=0))
    engine.add_request("queued", prompt[:20], SamplingParams(max_tokens=2, temperature=0, report_progress=True))
    outputs = run(engine)
    queued = [o for o in outputs if o.request_id == "queued"]
    first_done = max(i for i, o in enumerate(outputs) if o.request_id == "first")
    waiting = [o for o in outputs[:first_done] if o.request_id == "queued"]
    assert len(waiting) >= -(-len(prompt) // CHUNK) - 1  # one report per step of the other's prefill and decode
    assert all(o.is_progress and o.prefilled_tokens == 0 and not o.new_token_ids for o in waiting)
    assert queued[-1].finished and len([o for o in queued if o.new_token_ids]) >= 1


def test_bad_requests_are_rejected_with_clear_errors(engine, prompt):
    with pytest.raises(ValueError, match="context"):
        engine.add_request("x", [1] * engine.max_model_len, SamplingParams())
    with pytest.raises(ValueError, match="temperature"):
        engine.add_request("x", prompt, SamplingParams(temperature=-1))
    with pytest.raises(ValueError, match="empty"):
        engine.add_request("x", [], SamplingParams())
    with pytest.raises(ValueError, match="token ids"):
        engine.add_request("x", [10**9], SamplingParams())
    engine.add_request("x", prompt, SamplingParams(max_tokens=1))
    with pytest.raises(ValueError, match="already in use"):
        engine.add_request("x", prompt, SamplingParams())
    run(engine)


def test_stats_count_tokens_prefix_hits_and_ttft(engine, prompt):
    engine.generate([prompt, prompt], SamplingParams(max_tokens=2, temperature=0))
    stats = engine.stats()
    assert stats.prompt_tokens_total == 2 * len(prompt)
    assert stats.generation_tokens_total == 4
    assert len(stats.ttft_seconds) == 2 and engine.stats().ttft_seconds == []
    assert stats.kv_blocks_used == 0 and stats.kv_blocks_total == engine.block_manager.num_blocks
    engine.generate([prompt], SamplingParams(max_tokens=1))
    assert engine.stats().prefix_cache_hit_tokens > 0


class ForcedAfterFirst:
    """A fake grammar: the first token must be `first`, then `forced` follow without sampling."""

    def __init__(self, first: int, forced: list[int]) -> None:
        self.first, self.forced, self.accepted = first, forced, []

    def fill_next_token_bitmask(self, bitmask, row: int) -> bool:
        if self.accepted:
            return False
        bitmask[row] = 0
        bitmask[row, self.first // 32] = 1 << (self.first % 32)
        return True

    def accept_token(self, token_id: int) -> bool:
        self.accepted.append(token_id)
        return True

    def forced_tokens(self) -> list[int]:
        return self.forced if self.accepted == [self.first] else []

    def is_terminated(self) -> bool:
        return False

    def rollback(self, num_tokens: int) -> None:
        del self.accepted[len(self.accepted) - num_tokens:]


def test_jump_forward_tokens_are_appended_and_computed(engine, prompt):
    first, *forced = engine.tokenizer.encode(" It is sunny today", add_special_tokens=False)
    params = SamplingParams(max_tokens=10, temperature=0, ignore_eos=True)
    engine.add_request("j", prompt, params, lambda: ForcedAfterFirst(first, forced))
    outputs = run(engine)
    assert outputs[0].new_token_ids == [first, *forced]
    tokens = [t for o in outputs for t in o.new_token_ids]
    assert len(tokens) == 10 and outputs[-1].finish_reason == "length"
    # The continuation must be what the model says after those tokens, i.e. they reached the KV cache.
    continuation = engine.generate([prompt + tokens[:len(forced) + 1]], params)[0].token_ids
    assert tokens[len(forced) + 1:] == continuation[:10 - len(forced) - 1]
