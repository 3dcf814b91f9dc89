"""The block manager's bookkeeping: unit cases and a hypothesis state machine."""
from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from llm_backend.engine.block_manager import BlockManager
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.engine.sequence import CacheScope, Sequence

BLOCK = 4


def new_seq(tokens: list[int], seq_id: int = 0, scope: CacheScope = CacheScope()) -> Sequence:
    return Sequence(seq_id, f"r{seq_id}", 0, tokens, SamplingParams(), cache_scope=scope)


def admit_and_compute(manager: BlockManager, seq: Sequence) -> None:
    """What the scheduler and engine do for a whole prompt in one step."""
    manager.allocate_cached_prefix(seq)
    manager.append_slots(seq, seq.num_uncomputed_tokens)
    seq.num_computed_tokens = seq.num_tokens
    manager.register_full_blocks(seq)


def test_prefix_hit_shares_blocks_and_keeps_one_token_to_compute():
    manager = BlockManager(16, BLOCK)
    first = new_seq(list(range(12)), 0)
    admit_and_compute(manager, first)
    second = new_seq(list(range(12)), 1)
    manager.allocate_cached_prefix(second)
    assert second.num_computed_tokens == 8  # the last block is recomputed for the logits
    assert second.block_table == first.block_table[:2]
    assert [manager.blocks[b].ref_count for b in first.block_table] == [2, 2, 1]
    manager.free(first)
    manager.free(second)
    assert manager.num_free_blocks == 16


def test_freed_cached_blocks_are_reused_lru_and_evicted_last_used_first():
    manager = BlockManager(4, BLOCK)
    old = new_seq(list(range(9)), 0)
    admit_and_compute(manager, old)  # 3 blocks, 2 full ones cached
    manager.free(old)
    assert manager.num_free_blocks == 4
    hit = new_seq(list(range(9)), 1)
    manager.allocate_cached_prefix(hit)
    assert hit.num_computed_tokens == 8
    manager.free(hit)
    # A different prompt needing all 4 blocks evicts the cached ones.
    other = new_seq([100 + i for i in range(16)], 2)
    admit_and_compute(manager, other)
    manager.free(other)
    again = new_seq(list(range(9)), 3)
    manager.allocate_cached_prefix(again)
    assert again.num_computed_tokens == 0
    manager.free(again)


def test_hash_collision_is_caught_by_the_stored_tokens(monkeypatch):
    import llm_backend.engine.block_manager as module
    monkeypatch.setattr(module, "chain_hash", lambda parent, tokens, salt: 42)  # everything collides
    manager = BlockManager(8, BLOCK)
    admit_and_compute(manager, new_seq([1, 2, 3, 4, 5], 0))
    other = new_seq([9, 9, 9, 9, 5], 1)
    manager.allocate_cached_prefix(other)
    assert other.num_computed_tokens == 0


def test_a_cache_salt_isolates_every_block_past_the_shared_start():
    manager = BlockManager(32, BLOCK)
    prompt = list(range(20))  # 5 blocks: 2 shared (8 tokens of system prompt), then the caller's own
    alice = new_seq(prompt, 0, CacheScope("alice", shared_tokens=10))
    admit_and_compute(manager, alice)
    probes = {"alice again": CacheScope("alice", shared_tokens=10), "mallory": CacheScope("mallory", 10),
              "unsalted": CacheScope(), "salt only": CacheScope("alice")}
    hits = {}
    for seq_id, (name, scope) in enumerate(probes.items(), start=1):
        probe = new_seq(prompt, seq_id, scope)
        manager.allocate_cached_prefix(probe)
        hits[name] = probe.num_computed_tokens
        manager.free(probe)
    # The third block holds tokens 8-11 and so is past the 10 shared tokens: salted.
    assert hits == {"alice again": 16, "mallory": 8, "unsalted": 8, "salt only": 0}
    manager.free(alice)
    assert manager.audit([])["problems"] == []


def test_copy_on_write_of_a_shared_partial_block():
    manager = BlockManager(8, BLOCK)
    parent = new_seq([1, 2, 3, 4, 5, 6], 0)
    admit_and_compute(manager, parent)
    child = new_seq([1, 2, 3, 4, 5, 6], 1)
    manager.fork(parent, child)
    shared_tail = parent.block_table[1]
    assert manager.blocks[shared_tail].ref_count == 2
    parent.token_ids.append(7)
    assert manager.blocks_needed(parent, 1) == 1
    copies = manager.append_slots(parent, 1)
    assert copies == [(shared_tail, parent.block_table[1])] and parent.block_table[1] != shared_tail
    assert manager.append_slots(child, 1) == []  # now the only owner: written in place
    assert child.block_table[1] == shared_tail
    manager.free(parent)
    manager.free(child)
    assert manager.num_free_blocks == 8


def test_double_free_is_detected():
    manager = BlockManager(4, BLOCK)
    seq = new_seq([1, 2, 3], 0)
    admit_and_compute(manager, seq)
    table = list(seq.block_table)
    manager.free(seq)
    seq.block_table = table
    with pytest.raises(RuntimeError, match="freed twice"):
        manager.free(seq)


class BlockManagerMachine(RuleBasedStateMachine):
    """Random admissions, chunked computes, decodes, forks and frees; invariants after each."""

    def __init__(self) -> None:
        super().__init__()
        self.manager = BlockManager(12, BLOCK)
        self.live: list[Sequence] = []
        self.next_id = 0

    def _new(self, tokens: list[int]) -> Sequence:
        self.next_id += 1
        return new_seq(tokens, self.next_id)

    @rule(tokens=st.lists(st.integers(0, 2), min_size=1, max_size=14))
    def admit(self, tokens):
        seq = self._new(tokens)
        self.manager.allocate_cached_prefix(seq)
        if not self.manager.can_append(seq, seq.num_uncomputed_tokens):
            self.manager.free(seq)
            return
        self.manager.append_slots(seq, seq.num_uncomputed_tokens)
        self.live.append(seq)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def compute(self, data):
        seq = data.draw(st.sampled_from(self.live))
        if seq.num_uncomputed_tokens:
            seq.num_computed_tokens += data.draw(st.integers(1, seq.num_uncomputed_tokens))
            self.manager.register_full_blocks(seq)

    @precondition(lambda self: self.live)
    @rule(data=st.data(), token=st.integers(0, 2))
    def decode(self, data, token):
        seq = data.draw(st.sampled_from(self.live))
        if seq.num_uncomputed_tokens == 0 and self.manager.can_append(seq, 1):
            seq.token_ids.append(token)
            self.manager.append_slots(seq, 1)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def fork(self, data):
        parent = data.draw(st.sampled_from(self.live))
        child = self._new(parent.token_ids)
        self.manager.fork(parent, child)
        self.live.append(child)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def free(self, data):
        seq = data.draw(st.sampled_from(self.live))
        self.live.remove(seq)
        self.manager.free(seq)

    @invariant()
    def ref_counts_match_block_tables(self):
        counts = [0] * self.manager.num_blocks
        for seq in self.live:
            for block_id in seq.block_table:
                counts[block_id] += 1
        assert [b.ref_count for b in self.manager.blocks] == counts

    @invariant()
    def every_block_in_exactly_one_place(self):
        manager = self.manager
        free, evictable = list(manager._free), list(manager._evictable)
        used = [b.block_id for b in manager.blocks if b.ref_count > 0]
        assert sorted(free + evictable + used) == list(range(manager.num_blocks))
        assert all(manager.blocks[b].hash is not None for b in evictable)

    @invariant()
    def cached_blocks_hold_the_tokens_of_their_users(self):
        for seq in self.live:
            for i, block_hash in enumerate(seq.block_hashes):
                block = self.manager.blocks[seq.block_table[i]]
                if block.hash == block_hash:
                    assert block.key[1] == tuple(seq.token_ids[i * BLOCK:(i + 1) * BLOCK])
        for block_hash, block_id in self.manager._cached.items():
            assert self.manager.blocks[block_id].hash == block_hash

    def teardown(self):
        for seq in self.live:
            self.manager.free(seq)
        assert self.manager.num_free_blocks == self.manager.num_blocks
        assert all(b.ref_count == 0 for b in self.manager.blocks)


TestBlockManagerMachine = BlockManagerMachine.TestCase
TestBlockManagerMachine.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
