"""Virtual clocks: live (host monotonic time since boot) and seeded
(instructions retired x a fixed cost, advanced only by the run loop)."""
from __future__ import annotations

import time

TICK_NS = 4_000_000  # HZ=250, as Debian's kernel


class LiveClock:
    def __init__(self) -> None:
        self._t0 = time.monotonic_ns()

    def now(self) -> int:
        return time.monotonic_ns() - self._t0

    def wall_elapsed(self) -> int:
        return self.now()


class SeededClock:
    """Advanced by the seeded run loop only, so it is a function of the guest's
    execution; wall time is used solely to keep it from running ahead."""

    NS_PER_INSN = 1  # a 1 GHz, 1-IPC machine

    def __init__(self) -> None:
        self._t0 = time.monotonic_ns()
        self.vnow = 0

    def now(self) -> int:
        return self.vnow

    def wall_elapsed(self) -> int:
        return time.monotonic_ns() - self._t0
