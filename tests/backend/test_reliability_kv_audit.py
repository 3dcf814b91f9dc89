"""The KV-pool audit that the load tests rely on: it passes a healthy pool and names every kind of
damage (a leaked reference, a double booking, a block lost from the pool), and the peak gauge
tracks the high-water mark. Pure bookkeeping, no model."""
from __future__ import annotations

from test_block_manager import BLOCK, admit_and_compute, new_seq

from llm_backend.engine.block_manager import BlockManager


def shared_pool() -> tuple[BlockManager, list]:
    """Two sequences sharing a cached two-block prefix, then each with a private tail block."""
    manager = BlockManager(8, BLOCK)
    first, second = new_seq(list(range(12)), 0), new_seq(list(range(12)), 1)
    admit_and_compute(manager, first)
    admit_and_compute(manager, second)
    return manager, [first, second]


def test_a_healthy_pool_audits_clean_and_counts_every_state():
    manager, seqs = shared_pool()
    report = manager.audit(seqs)
    assert report["problems"] == []
    assert (report["total"], report["in_use"], report["free"], report["cached"]) == (8, 4, 4, 0)
    assert report["peak_in_use"] == 4
    for seq in seqs:
        manager.free(seq)
    report = manager.audit([])
    assert report["problems"] == [] and report["in_use"] == 0
    assert report["cached"] == 3 and report["free"] == 5  # full blocks stay findable by hash
    assert report["peak_in_use"] == 4  # a high-water mark, not the current use


def test_a_leaked_reference_is_named():
    manager, seqs = shared_pool()
    manager.free(seqs[1])
    leaked = seqs[0].block_table[0]
    problems = manager.audit([])  # the first sequence vanished without freeing its blocks
    assert any(f"block {leaked}: ref count 1, held 0 times" in p for p in problems["problems"])


def test_a_block_handed_out_twice_is_named():
    manager, seqs = shared_pool()
    private = seqs[1].block_table[-1]
    seqs[0].block_table.append(private)  # two sequences write one block, counted once
    assert any(f"block {private}: ref count 1, held 2 times" in p
               for p in manager.audit(seqs)["problems"])


def test_a_block_lost_from_the_pool_or_pooled_while_used_is_named():
    manager, seqs = shared_pool()
    lost = manager._free.popleft()
    assert any(f"block {lost}: ref count 0, pooled 0x" in p for p in manager.audit(seqs)["problems"])
    in_use = seqs[0].block_table[-1]
    manager._free.append(in_use)
    assert any(f"block {in_use}: ref count 1, pooled 1x" in p for p in manager.audit(seqs)["problems"])
