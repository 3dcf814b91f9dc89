"""Continuous batching: which sequences run this step, and how many of their tokens.

Every step gets a token budget (`max_num_batched_tokens`). Running sequences go first,
oldest first: a decode costs one token, an unfinished prefill takes what is left of the
budget (chunked prefill, so a long prompt never stalls the decodes); a decode may add up to
`num_speculative_tokens` prompt-lookup drafts, verified in the same pass. Then waiting
sequences are admitted while there is budget, room in the batch and KV blocks. When the
pool runs dry the newest running sequence is preempted: its blocks are freed and it
returns to the head of the queue to be recomputed later.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from llm_backend.engine.block_manager import BlockManager
from llm_backend.engine.prompt_lookup import propose_drafts
from llm_backend.engine.sequence import Sequence, SequenceStatus


@dataclass
class ScheduledBatch:
    """One step's work: (sequence, number of its tokens to compute) and KV block copies to do first."""

    items: list[tuple[Sequence, int]] = field(default_factory=list)
    block_copies: list[tuple[int, int]] = field(default_factory=list)
    num_preempted: int = 0


class Scheduler:
    def __init__(self, block_manager: BlockManager, max_num_seqs: int, max_num_batched_tokens: int,
                 num_speculative_tokens: int = 0, max_model_len: int = 0) -> None:
        self.block_manager = block_manager
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self.num_speculative_tokens = num_speculative_tokens
        self.max_model_len = max_model_len
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

    def has_work(self) -> bool:
        return bool(self.waiting or self.running)

    def remove(self, seq: Sequence) -> None:
        """Take a finished or aborted sequence out of the queues and free its blocks now."""
        if seq in self.running:
            self.running.remove(seq)
        elif seq in self.waiting:
            self.waiting.remove(seq)
        self.block_manager.free(seq)

    def schedule(self) -> ScheduledBatch:
        batch = ScheduledBatch()
        budget = self.max_num_batched_tokens
        scheduled_running: list[Sequence] = []
        while self.running and budget > 0 and len(scheduled_running) < len(self.running):
            seq = self.running[len(scheduled_running)]
            num_tokens = min(seq.num_uncomputed_tokens, budget)
            if not self._make_room(seq, num_tokens, batch):
                break  # seq itself was preempted; everything after it too
            seq.draft_token_ids = self._drafts(seq, budget - num_tokens) if num_tokens == 1 else []
            batch.block_copies += self.block_manager.append_slots(seq, num_tokens + len(seq.draft_token_ids))
            batch.items.append((seq, num_tokens))
            scheduled_running.append(seq)
            budget -= num_tokens + len(seq.draft_token_ids)
        if batch.num_preempted:
            return batch  # the pool is tight: do not admit anyone this step
        while self.waiting and budget > 0 and len(self.running) < self.max_num_seqs:
            seq = self.waiting[0]
            if not seq.block_table:
                self.block_manager.allocate_cached_prefix(seq)
                if seq.num_output_tokens == 0:
                    seq.num_cached_tokens = seq.num_computed_tokens
            num_tokens = min(seq.num_uncomputed_tokens, budget)
            if not self.block_manager.can_append(seq, num_tokens):
                self.block_manager.free(seq)  # give the prefix hits back until next time
                break
            batch.block_copies += self.block_manager.append_slots(seq, num_tokens)
            self.waiting.popleft()
            seq.status = SequenceStatus.RUNNING
            self.running.append(seq)
            batch.items.append((seq, num_tokens))
            budget -= num_tokens
        return batch

    def _drafts(self, seq: Sequence, budget: int) -> list[int]:
        """A decode's drafts, if the step's budget and free blocks have room for them (never preempts)."""
        if not self.num_speculative_tokens or budget <= 0:
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
