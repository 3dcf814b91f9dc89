"""A minimal progress bar on stderr for long downloads and conversions."""
from __future__ import annotations

import sys
import time


class ProgressBar:
    """Redraws one stderr line as work advances: ``label [#####-----] 52% 512/983 MB``."""

    _WIDTH = 30
    _MIN_INTERVAL_S = 0.2

    def __init__(self, label: str, total: int) -> None:
        self.label = label
        self.total = max(total, 1)
        self.done = 0
        self._last_draw = 0.0

    def advance(self, amount: int) -> None:
        self.done += amount
        now = time.monotonic()
        if now - self._last_draw >= self._MIN_INTERVAL_S:
            self._last_draw = now
            self._draw(end="\r")

    def close(self) -> None:
        self._draw(end="\n")

    def _draw(self, end: str) -> None:
        fraction = min(self.done / self.total, 1.0)
        filled = int(fraction * self._WIDTH)
        bar = "#" * filled + "-" * (self._WIDTH - filled)
        sys.stderr.write(f"{self.label} [{bar}] {fraction:4.0%} "
                         f"{self.done / 1e6:.0f}/{self.total / 1e6:.0f} MB{end}")
        sys.stderr.flush()
