"""A small in-memory cache whose entries expire, so repeated questions do not re-hit Open-Meteo."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class TTLCache:
    """Least-recently-inserted eviction beyond `max_entries`; entries older than `ttl_s` are misses."""

    def __init__(self, ttl_s: float, max_entries: int = 512) -> None:
        self._ttl_s = ttl_s
        self._max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()

    def get(self, key: Hashable) -> Any | None:
        """The cached value, or None when absent or expired."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        stored_at, value = entry
        if time.monotonic() - stored_at > self._ttl_s:
            del self._entries[key]
            return None
        return value

    def put(self, key: Hashable, value: Any) -> None:
        """Store a value; a zero TTL disables caching."""
        if self._ttl_s <= 0:
            return
        self._entries[key] = (time.monotonic(), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
