"""The paged KV cache's bookkeeping: a fixed pool of blocks, block tables, ref counts, prefix cache.

Only ids and counters live here; the K/V tensors belong to the model runner. A block is
either free (on `_free`), cached-but-unused (ref 0, still hashed, on the LRU `_evictable`),
or in use (ref >= 1). Full blocks are registered under a hash chained over every token
from the start of the sequence, so equal hashes mean equal prefixes; a hit is still
checked against the tokens stored with the block, so a hash collision cannot return
someone else's K/V. A sequence's cache salt (`CacheScope`) enters the hash of every
block past its shared start, so salted blocks are found only under the same salt.
"""
from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass

from llm_backend.engine.sequence import Sequence


@dataclass
class Block:
    block_id: int
    ref_count: int = 0
    hash: int | None = None
    key: tuple[int | None, tuple[int, ...], str | None] | None = None  # (parent hash, tokens, salt) hashed


def chain_hash(parent_hash: int | None, tokens: tuple[int, ...], salt: str | None) -> int:
    return hash((parent_hash, tokens, salt))


class BlockManager:
    """Allocates, shares, copies on write and frees KV blocks for sequences."""

    def __init__(self, num_blocks: int, block_size: int, enable_prefix_caching: bool = True) -> None:
        self.num_blocks = num_blocks
        self.block_size = block_size
        self.enable_prefix_caching = enable_prefix_caching
        self.blocks = [Block(i) for i in range(num_blocks)]
        self._free: deque[int] = deque(range(num_blocks))
        self._evictable: OrderedDict[int, None] = OrderedDict()  # oldest first
        self._cached: dict[int, int] = {}  # chain hash -> block id
        self.prefix_queried_tokens = 0
        self.prefix_hit_tokens = 0
        self.peak_used_blocks = 0

    # ---- capacity -------------------------------------------------------------------
    @property
    def num_free_blocks(self) -> int:
        return len(self._free) + len(self._evictable)

    @property
    def num_used_blocks(self) -> int:
        return self.num_blocks - self.num_free_blocks

    def blocks_needed(self, seq: Sequence, num_new_tokens: int) -> int:
        """Blocks to take from the pool so that `num_new_tokens` more tokens can be written."""
        total = -(-(seq.num_computed_tokens + num_new_tokens) // self.block_size)
        needed = max(0, total - len(seq.block_table))
        if self._write_block_is_shared(seq):
            needed += 1
        return needed

    def can_append(self, seq: Sequence, num_new_tokens: int) -> bool:
        return self.blocks_needed(seq, num_new_tokens) <= self.num_free_blocks

    # ---- allocation -----------------------------------------------------------------
    def allocate_cached_prefix(self, seq: Sequence) -> None:
        """On admission of a sequence with no blocks: adopt the longest cached prefix.

        At least one token is always left to compute, because the step that computes
        the last token is the one that produces the next-token logits.
        """
        assert not seq.block_table and seq.num_computed_tokens == 0
        if not self.enable_prefix_caching:
            return
        max_blocks = (seq.num_tokens - 1) // self.block_size
        self.prefix_queried_tokens += seq.num_tokens
        parent: int | None = None
        for i in range(max_blocks):
            block_hash, key = self._block_key(seq, i, parent)
            block_id = self._cached.get(block_hash)
            if block_id is None or self.blocks[block_id].key != key:
                break
            self._acquire(block_id)
            seq.block_table.append(block_id)
            seq.block_hashes.append(block_hash)
            parent = block_hash
        seq.num_computed_tokens = len(seq.block_table) * self.block_size
        self.prefix_hit_tokens += seq.num_computed_tokens

    def append_slots(self, seq: Sequence, num_new_tokens: int) -> list[tuple[int, int]]:
        """Give `seq` room for `num_new_tokens` more tokens; returns (src, dst) block copies.

        The block that receives the first new token is copied first if another sequence
        shares it (copy-on-write); later new tokens go to freshly taken blocks.
        """
        copies = []
        if self._write_block_is_shared(seq):
            index = seq.num_computed_tokens // self.block_size
            shared = seq.block_table[index]
            private = self._take()
            self._release(shared)
            seq.block_table[index] = private
            copies.append((shared, private))
        total = -(-(seq.num_computed_tokens + num_new_tokens) // self.block_size)
        while len(seq.block_table) < total:
            seq.block_table.append(self._take())
        return copies

    def fork(self, parent: Sequence, child: Sequence) -> None:
        """Let `child` share every block of `parent` (n > 1 sampling after one prefill)."""
        for block_id in parent.block_table:
            self._acquire(block_id)
        child.block_table = list(parent.block_table)
        child.block_hashes = list(parent.block_hashes)
        child.num_computed_tokens = parent.num_computed_tokens

    def register_full_blocks(self, seq: Sequence) -> None:
        """Publish the sequence's newly completed (full and computed) blocks in the prefix cache."""
        if not self.enable_prefix_caching:
            return
        num_full = seq.num_computed_tokens // self.block_size
        while len(seq.block_hashes) < num_full:
            i = len(seq.block_hashes)
            parent = seq.block_hashes[-1] if seq.block_hashes else None
            block_hash, key = self._block_key(seq, i, parent)
            block = self.blocks[seq.block_table[i]]
            # Another sequence may have computed the same prefix concurrently; the first
            # registration wins and this copy stays private (freed normally later).
            if block_hash not in self._cached and block.hash is None:
                block.hash = block_hash
                block.key = key
                self._cached[block_hash] = block.block_id
            seq.block_hashes.append(block_hash)

    def free(self, seq: Sequence) -> None:
        """Drop the sequence's references. Tail blocks go first so they are evicted first."""
        for block_id in reversed(seq.block_table):
            self._release(block_id)
        seq.block_table = []
        seq.block_hashes = []
        seq.num_computed_tokens = 0

    # ---- audit ----------------------------------------------------------------------
    def audit(self, holders: list[Sequence]) -> dict:
        """Check the pool against the sequences that hold blocks; counts plus a list of problems.

        Every block must be in exactly one state: free (ref 0, unhashed), cached (ref 0,
        hashed, findable by its hash) or in use, with a ref count equal to the number of
        holders' block-table entries naming it. An empty `problems` list means nothing is
        leaked, double-booked or over-committed.
        """
        problems: list[str] = []
        references = [0] * self.num_blocks
        for seq in holders:
            for block_id in seq.block_table:
                references[block_id] += 1
        free, cached = set(self._free), set(self._evictable)
        if len(free) != len(self._free):
            problems.append("a block is on the free list twice")
        for block in self.blocks:
            pooled = (block.block_id in free) + (block.block_id in cached)
            if block.ref_count != references[block.block_id]:
                problems.append(f"block {block.block_id}: ref count {block.ref_count}, "
                                f"held {references[block.block_id]} times")
            if pooled != (block.ref_count == 0):
                problems.append(f"block {block.block_id}: ref count {block.ref_count}, pooled {pooled}x")
            if block.block_id in free and block.hash is not None:
                problems.append(f"block {block.block_id}: free but still hashed")
            if block.block_id in cached and self._cached.get(block.hash) != block.block_id:
                problems.append(f"block {block.block_id}: cached but not findable by its hash")
        return {"total": self.num_blocks, "free": len(free), "cached": len(cached),
                "in_use": self.num_used_blocks, "peak_in_use": self.peak_used_blocks,
                "problems": problems}

    # ---- internals ------------------------------------------------------------------
    def _block_key(self, seq: Sequence, index: int, parent: int | None) -> tuple[int, tuple]:
        """Block `index` of `seq`: its chain hash, and the (parent hash, tokens, salt) it is made of."""
        tokens = tuple(seq.token_ids[index * self.block_size:(index + 1) * self.block_size])
        key = (parent, tokens, seq.cache_scope.salt_of_block(index, self.block_size))
        return chain_hash(*key), key

    def _write_block_is_shared(self, seq: Sequence) -> bool:
        index = seq.num_computed_tokens // self.block_size
        return index < len(seq.block_table) and self.blocks[seq.block_table[index]].ref_count > 1

    def _take(self) -> int:
        if self._free:
            block_id = self._free.popleft()
        elif self._evictable:
            block_id, _ = self._evictable.popitem(last=False)
            self._forget(block_id)
        else:
            raise RuntimeError("KV cache exhausted: the scheduler must check can_append first")
        self.blocks[block_id].ref_count = 1
        self._note_peak()
        return block_id

    def _acquire(self, block_id: int) -> None:
        block = self.blocks[block_id]
        if block.ref_count == 0:
            del self._evictable[block_id]
            self._note_peak()
        block.ref_count += 1

    def _note_peak(self) -> None:
        self.peak_used_blocks = max(self.peak_used_blocks, self.num_used_blocks)

    def _release(self, block_id: int) -> None:
        block = self.blocks[block_id]
        if block.ref_count <= 0:
            raise RuntimeError(f"block {block_id} freed twice")
        block.ref_count -= 1
        if block.ref_count == 0:
            if block.hash is None:
                self._free.append(block_id)
            else:
                self._evictable[block_id] = None

    def _forget(self, block_id: int) -> None:
        block = self.blocks[block_id]
        if block.hash is not None and self._cached.get(block.hash) == block_id:
            del self._cached[block.hash]
        block.hash = None
        block.key = None
