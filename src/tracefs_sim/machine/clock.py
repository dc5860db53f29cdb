"""Virtual clocks: live (host monotonic time since boot) and seeded
(bytes of guest code executed x a fixed cost, advanced only by the run loop)."""
from __future__ import annotations

import time

TICK_NS = 4_000_000  # HZ=250, as Debian's kernel


class LiveClock:
    def __init__(self) -> None:
        # CLOCK_MONOTONIC at virtual time 0 (the native run loop reads the clock itself), and
        # CLOCK_BOOTTIME then (the two differ by the host's time suspended)
        self.zero_ns = time.monotonic_ns()
        self.boottime_zero_ns = time.clock_gettime_ns(time.CLOCK_BOOTTIME) - (time.monotonic_ns() - self.zero_ns)

    def now(self) -> int:
        return time.monotonic_ns() - self.zero_ns

    def wall_elapsed(self) -> int:
        return self.now()


class SeededClock:
    """Advanced by the seeded run loop only, so it is a function of the guest's
    execution; wall time is used solely to keep it from running ahead."""

    # Unicorn reports blocks in bytes, not instructions: about 4 bytes an
    # instruction here, so a 250 MIPS machine
    NS_PER_BYTE = 1

    def __init__(self) -> None:
        self._t0 = time.monotonic_ns()
        self.vnow = 0

    def now(self) -> int:
        return self.vnow

    def wall_elapsed(self) -> int:
        """Host time since boot, or since the virtual time of the last hold (sync_wall)."""
        return time.monotonic_ns() - self._t0

    def sync_wall(self) -> None:
        """Leaving a hold: wall-clock pacing restarts from the current virtual time."""
        self._t0 = time.monotonic_ns() - self.vnow
