"""Chunked prefill next to running decodes: pure scheduling, no model.

A step's time is its tokens' matmuls plus their attention over the context before them, so a
chunk late in a long prompt costs more than one early on. While other sequences share the step,
a chunk is sized by that cost; every running decode gets its token in every step.
"""
from __future__ import annotations

from llm_backend.engine.block_manager import BlockManager
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.engine.scheduler import Scheduler
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
