"""Chunked prefill next to running decodes: pure scheduling, no model.

A step's time is its tokens' matmuls plus their attention over the context before them, so a
chunk late in a long prompt costs more than one early on. While other sequences share the step,
a chunk is sized by that cost; every running decode gets its token in every step.
"""
from __future__ import annotations

from collections.abc import Callable

from llm_backend.engine.block_manager import BlockManager
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.engine.scheduler import FIRST_CHUNK_TOKENS, MIN_CHUNK_TOKENS, Scheduler
from llm_backend.engine.sequence import Sequence

BLOCK = 16
BUDGET = 512
ATTENTION_COST_CONTEXT = 1000  # a token's attention costs as much as its matmuls after 1000 tokens


def new_seq(seq_id: int, num_tokens: int) -> Sequence:
    return Sequence(seq_id, f"r{seq_id}", 0, [seq_id % 50 + 1] * num_tokens, SamplingParams(max_tokens=10_000))


def scheduler() -> Scheduler:
    return Scheduler(BlockManager(4096, BLOCK, enable_prefix_caching=False), max_num_seqs=8,
                     max_num_batched_tokens=BUDGET, attention_cost_context=ATTENTION_COST_CONTEXT)


def step(sched: Scheduler) -> dict[int, tuple[int, int]]:
    """One step as the engine runs it: {seq_id: (context before the chunk, chunk tokens)}."""
    batch = sched.schedule()
    scheduled = {}
    for seq, num_tokens in batch.items:
        scheduled[seq.seq_id] = (seq.num_computed_tokens, num_tokens)
        seq.num_computed_tokens += num_tokens
        if seq.num_computed_tokens == seq.num_tokens:
            seq.token_ids.append(7)  # the sampled token: the sequence decodes from now on
    return scheduled


def step_cost(scheduled: dict[int, tuple[int, int]]) -> float:
    """Matmul tokens plus attention, in the same unit: what the weighting keeps within the budget."""
    return sum(n + n * context / ATTENTION_COST_CONTEXT for context, n in scheduled.values())


def test_a_prompt_alone_takes_whole_budgets():
    sched = scheduler()
    sched.add(new_seq(0, 3000))
    chunks = [step(sched)[0][1] for _ in range(5)]
    assert chunks == [BUDGET] * 5


def test_a_long_prompt_beside_a_decode_keeps_every_step_within_the_budget():
    sched = scheduler()
    stream = new_seq(0, 20)
    sched.add(stream)
    step(sched)  # the stream's prefill; it decodes from now on
    sched.add(new_seq(1, 6000))
    steps = []
    while sched.running[-1].num_computed_tokens < 6000:
        steps.append(step(sched))
    assert all(scheduled[0][1] == 1 for scheduled in steps)  # the stream gets its token every step
    assert max(step_cost(scheduled) for scheduled in steps) <= BUDGET + 1
    first, last = steps[0][1][1], steps[-2][1][1]
    assert first == BUDGET - 1 and last < BUDGET / 5  # late chunks read ~5000 tokens of context


def test_a_decode_behind_a_long_prefill_gets_its_token_every_step():
    sched = scheduler()
    long_prompt = new_seq(0, 6000)
    sched.add(long_prompt)
    step(sched)
    late = new_seq(1, 3)  # arrives while the long prompt prefills, so it runs behind it
    sched.add(late)
    while not any(seq_id == 1 for seq_id in step(sched)):
        pass
    assert late.num_computed_tokens == 3  # its whole prompt in one go, then it decodes
    for _ in range(5):
        scheduled = step(sched)
        assert scheduled[1] == (late.num_computed_tokens - 1, 1) and scheduled[0][1] > 1


def timed_scheduler(chunk_seconds: float) -> Scheduler:
    return Scheduler(BlockManager(4096, BLOCK, enable_prefix_caching=False), max_num_seqs=8,
                     max_num_batched_tokens=BUDGET, chunk_seconds=chunk_seconds)


def run_timed(sched: Scheduler, seconds_of: Callable[[int], float], steps: int) -> list[tuple[int, float]]:
    """Steps of a CPU whose step of `cost` budget takes `seconds_of(cost)`: (chunk tokens, seconds) each."""
    done = []
    for _ in range(steps):
        batch = sched.schedule()
        for seq, num_tokens in batch.items:
            seq.num_computed_tokens += num_tokens
        seconds = seconds_of(batch.cost)
        sched.observe(batch, seconds)
        done.append((sum(n for _, n in batch.items), seconds))
    return done


def test_on_a_slow_cpu_a_chunk_shrinks_to_the_step_time_asked_for():
    """50 ms a step plus 20 ms a token (a 512-token chunk: 10 s): the first, unmeasured chunk is small,
    then each step takes the asked second, give or take the estimate's lag."""
    sched = timed_scheduler(chunk_seconds=1.0)
    sched.add(new_seq(0, 20_000))
    steps = run_timed(sched, lambda cost: 0.05 + 0.02 * cost, 12)
    assert steps[0] == (FIRST_CHUNK_TOKENS, 0.05 + 0.02 * FIRST_CHUNK_TOKENS)
    assert all(abs(seconds - 1.0) <= 0.02 for _, seconds in steps[1:])
    assert all(tokens == 47 for tokens, _ in steps[2:])  # settled: (1 - 0.05) / 0.02 tokens


def test_on_a_fast_cpu_chunks_take_the_whole_token_budget():
    sched = timed_scheduler(chunk_seconds=1.0)
    sched.add(new_seq(0, 20_000))
    steps = run_timed(sched, lambda cost: 0.01 + 0.0005 * cost, 5)
    assert [tokens for tokens, _ in steps] == [FIRST_CHUNK_TOKENS] + [BUDGET] * 4


def test_a_chunk_never_shrinks_below_the_minimum():
    """A step slower than asked for even at a few tokens: chunks stay at the minimum, not at nothing."""
    sched = timed_scheduler(chunk_seconds=0.1)
    sched.add(new_seq(0, 20_000))
    steps = run_timed(sched, lambda cost: 0.5 + 0.01 * cost, 6)
    assert [tokens for tokens, _ in steps[2:]] == [MIN_CHUNK_TOKENS] * 4
