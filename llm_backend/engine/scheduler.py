"""Continuous batching: which sequences run this step, and how many of their tokens.

Every step gets a token budget (`max_num_batched_tokens`). Running sequences go first,
oldest first: a decode costs one token, an unfinished prefill takes what is left of the
budget (chunked prefill, so a long prompt never stalls the decodes), less one token for
each decode behind it, and at most half the budget while a request waits to start. A
chunk's attention reads every token before it, so a chunk token late in a long prompt
costs more than one early on: while other sequences share the step, each counts
1 + context / the model's `attention_cost_context`, which keeps a step's work, and so the
gap between a running stream's tokens, near what the budget allows however long the
prompt. A decode may add up to `num_speculative_tokens` prompt-lookup drafts, verified in
the same pass, while it runs alone: a step's extra rows are nearly free only while the step
streams its weights from memory. Then waiting sequences are admitted while there is budget, room in the
batch and KV blocks. When the pool runs dry the newest running sequence is preempted: its
blocks are freed and it returns to the head of the queue to be recomputed later.

The budget is also sized in time: the engine reports each step's duration, and a step that holds a
prefill chunk takes no more tokens than `chunk_seconds` allow at the measured pace (the first chunk,
before any measurement, is small). On a slow CPU a chunk shrinks instead of taking many seconds, so an
abort, a new request or a running stream's next token never waits for more than about one such step.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from llm_backend.engine.block_manager import BlockManager
from llm_backend.engine.prompt_lookup import propose_drafts
from llm_backend.engine.sequence import Sequence, SequenceStatus

# Drafts only while at most this many sequences run. On the 1.5B's interleaved GGUF kernels
# (bench/gguf_kernel_bench.py) a step of 1 row costs 29 ms, of 3 rows 36 ms, but 2 -> 6 rows
# is 30 -> ~50 ms: with about half the drafts standing, only a lone sequence gains from them.
MAX_SEQS_WITH_DRAFTS = 1
# Before the first measurement a chunk takes at most this many tokens; time-sized chunks never go below
# MIN_CHUNK_TOKENS (a step's fixed costs, e.g. streaming the weights, would then dominate).
FIRST_CHUNK_TOKENS = 64
MIN_CHUNK_TOKENS = 32
# Only steps of at least this budget measure the pace: a decode step's time is its fixed costs.
MIN_MEASURED_COST = 32
PACE_SMOOTHING = 0.5  # weight of the newest step in the measured seconds per budget token


@dataclass
class ScheduledBatch:
    """One step's work: (sequence, number of its tokens to compute) and KV block copies to do first."""

    items: list[tuple[Sequence, int]] = field(default_factory=list)
    block_copies: list[tuple[int, int]] = field(default_factory=list)
    num_preempted: int = 0
    cost: int = 0  # the budget the step takes (chunk tokens weighted by their attention, decodes, drafts)


class Scheduler:
    def __init__(self, block_manager: BlockManager, max_num_seqs: int, max_num_batched_tokens: int,
                 attention_cost_context: int | None = None, num_speculative_tokens: int = 0,
                 max_model_len: int = 0, chunk_seconds: float | None = None) -> None:
        """`attention_cost_context`: the context length at which a token's attention costs as much as
        its matmuls (see `attention_cost_context` in llm_engine); None counts every token as one.
        `chunk_seconds`: how long a step holding a prefill chunk may take; None sizes chunks in tokens only."""
        self.block_manager = block_manager
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self.attention_cost_context = attention_cost_context
        self.num_speculative_tokens = num_speculative_tokens
        self.max_model_len = max_model_len
        self.chunk_seconds = chunk_seconds
        self.seconds_per_cost: float | None = None  # the measured pace of steps with chunks
        self.waiting: deque[Sequence] = deque()
        self.running: list[Sequence] = []
        self.num_preemptions = 0

    def add(self, seq: Sequence) -> None:
        seq.status = SequenceStatus.WAITING
        self.waiting.append(seq)

    def add_running(self, seq: Sequence) -> None:
        """Join a sequence that already holds its blocks (a fork) to the running batch."""
        seq.status = SequenceStatus.RUNNING
        self.running.append(seq)

    def remove(self, seq: Sequence) -> None:
        """Take a finished or aborted sequence out of the queues and free its blocks now."""
        if seq in self.running:
            self.running.remove(seq)
        elif seq in self.waiting:
            self.waiting.remove(seq)
        self.block_manager.free(seq)

    def observe(self, batch: ScheduledBatch, seconds: float) -> None:
        """The engine's report of how long `batch` took: the pace that sizes later chunks."""
        if batch.cost < MIN_MEASURED_COST:
            return
        pace = seconds / batch.cost
        previous = self.seconds_per_cost
        self.seconds_per_cost = pace if previous is None else PACE_SMOOTHING * pace + (1 - PACE_SMOOTHING) * previous

    def step_budget(self) -> int:
        """This step's budget: `max_num_batched_tokens`, or less where that would take over `chunk_seconds`."""
        if self.chunk_seconds is None:
            return self.max_num_batched_tokens
        if self.seconds_per_cost is None:
            timed = FIRST_CHUNK_TOKENS
        else:
            timed = max(MIN_CHUNK_TOKENS, int(self.chunk_seconds / self.seconds_per_cost))
        return min(self.max_num_batched_tokens, timed)

    def schedule(self) -> ScheduledBatch:
        batch = ScheduledBatch()
        full_budget = self.step_budget()
        budget = full_budget
        index = 0
        while index < len(self.running) and budget > 0:
            seq = self.running[index]
            index += 1
            available = budget
            if seq.num_uncomputed_tokens > 1:
                # A chunk leaves a token for each decode behind it, and half the budget to a request
                # waiting to start, so a long prompt delays neither.
                available -= sum(later.num_uncomputed_tokens == 1 for later in self.running[index:])
                if self.waiting and len(self.running) < self.max_num_seqs:
                    available = min(available, full_budget // 2)
            num_tokens, cost = self._chunk(seq, available)
            if num_tokens == 0:
                continue
            if not self._make_room(seq, num_tokens, batch):
                break  # seq itself was preempted; everything after it too
            seq.draft_token_ids = self._drafts(seq, budget - cost) if num_tokens == 1 else []
            batch.block_copies += self.block_manager.append_slots(seq, num_tokens + len(seq.draft_token_ids))
            batch.items.append((seq, num_tokens))
            budget -= cost + len(seq.draft_token_ids)
        if batch.num_preempted:
            batch.cost = full_budget - budget
            return batch  # the pool is tight: do not admit anyone this step
        while self.waiting and budget > 0 and len(self.running) < self.max_num_seqs:
            seq = self.waiting[0]
            if not seq.block_table:
                self.block_manager.allocate_cached_prefix(seq)
                if seq.num_output_tokens == 0:
                    seq.num_cached_tokens = seq.num_computed_tokens
            num_tokens, cost = self._chunk(seq, budget)
            if num_tokens == 0 or not self.block_manager.can_append(seq, num_tokens):
                self.block_manager.free(seq)  # give the prefix hits back until next time
                break
            batch.block_copies += self.block_manager.append_slots(seq, num_tokens)
            self.waiting.popleft()
            seq.status = SequenceStatus.RUNNING
            self.running.append(seq)
            batch.items.append((seq, num_tokens))
            budget -= cost
        batch.cost = full_budget - budget
        return batch

    def _chunk(self, seq: Sequence, budget: int) -> tuple[int, int]:
        """How many of `seq`'s uncomputed tokens fit in `budget`, and the budget they take.

        A decode is one token at the price of one (its attention is the cheap decode path). A chunk's
        tokens each cost 1 + context / attention_cost_context while other sequences share the step, so
        their tokens keep coming at the pace the budget sets; alone, a prompt takes whole budgets."""
        if seq.num_uncomputed_tokens == 1:
            return (1, 1) if budget >= 1 else (0, 0)
        weight = 1.0
        others = any(other is not seq for other in self.running) or any(w is not seq for w in self.waiting)
        if self.attention_cost_context and others:
            weight += seq.num_computed_tokens / self.attention_cost_context
        num_tokens = max(0, min(seq.num_uncomputed_tokens, int(budget / weight)))
        return num_tokens, math.ceil(num_tokens * weight)

    def _drafts(self, seq: Sequence, budget: int) -> list[int]:
        """A decode's drafts, if the step's budget and free blocks have room for them (never preempts)."""
        if not self.num_speculative_tokens or budget <= 0 or len(self.running) > MAX_SEQS_WITH_DRAFTS:
            return []
        drafts = propose_drafts(seq, min(self.num_speculative_tokens, budget), self.max_model_len)
        return drafts if self.block_manager.can_append(seq, 1 + len(drafts)) else []

    def _make_room(self, seq: Sequence, num_tokens: int, batch: ScheduledBatch) -> bool:
        """Preempt the newest running sequences until `seq` fits; False if `seq` itself went."""
        while not self.block_manager.can_append(seq, num_tokens):
            victim = self.running[-1]
            self._preempt(victim)
            batch.num_preempted += 1
            if victim is seq:
                return False
        return True

    def _preempt(self, seq: Sequence) -> None:
        self.running.remove(seq)
        self.block_manager.free(seq)
        seq.status = SequenceStatus.WAITING
        self.waiting.appendleft(seq)
        self.num_preemptions += 1
