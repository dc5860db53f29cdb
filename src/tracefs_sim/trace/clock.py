"""Trace clocks (kernel/trace/trace_clock.c, the trace_clocks[] table of trace.c).

Every clock is derived from the emulated machine's virtual clock (ns since boot), so a seeded
run stamps events identically each time.
"""

import itertools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..machine.contract import TSC_KHZ  # x86-tsc counts the emulated CPU's TSC

# USER_HZ: trace_clock_jiffies() reports jiffies converted to clock_t ticks.
_USER_HZ = 100


@dataclass(frozen=True)
class TraceClock:
    name: str
    in_ns: bool          # whether readings are nanoseconds (printed as seconds.micros) or raw counts
    read: Callable[[], int]
    # The clock's value at a virtual-clock instant: the guest stamps records with the virtual
    # clock (ns) and the trace core converts them to the array's clock when it keeps them.
    from_ns: Callable[[int], int]


class TraceClocks:
    """The selectable clocks, in the order Linux 6.1 lists them on x86-64."""

    def __init__(self, now_ns: Callable[[], int], *, realtime_at_boot_ns: int = 0, boottime_at_boot_ns: int = 0):
        """now_ns: the machine's virtual clock. realtime_at_boot_ns: wall-clock (UTC, ns since
        the epoch) at virtual time 0, for the tai clock (TAI is UTC here, as on 6.1 until
        adjtimex sets a TAI offset); boottime_at_boot_ns: the host's CLOCK_BOOTTIME then, for the
        boot clock (the kernel's offs_boot: kernel.h's tk_offs()).  A deterministic run passes
        fixed values."""
        counter = itertools.count(1)
        counter_lock = threading.Lock()

        def read_counter() -> int:
            # Not a clock: a global increment, atomic across CPUs as atomic64_add_return().
            with counter_lock:
                return next(counter)

        def same(ns: int) -> int:
            return ns

        def uptime(ns: int) -> int:
            return ns * _USER_HZ // 1_000_000_000

        def tsc(ns: int) -> int:
            return ns * TSC_KHZ // 1_000_000

        def tai(ns: int) -> int:
            return ns + realtime_at_boot_ns

        def boot(ns: int) -> int:
            return ns + boottime_at_boot_ns

        def derived(convert: Callable[[int], int]) -> Callable[[], int]:
            return lambda: convert(now_ns())

        self._clocks = (
            TraceClock("local", True, now_ns, same),
            TraceClock("global", True, now_ns, same),
            # Each record takes the next count, whenever it happened.
            TraceClock("counter", False, read_counter, lambda ns: read_counter()),
            TraceClock("uptime", False, derived(uptime), uptime),
            TraceClock("perf", True, now_ns, same),
            TraceClock("mono", True, now_ns, same),
            TraceClock("mono_raw", True, now_ns, same),
            TraceClock("boot", True, derived(boot), boot),
            TraceClock("tai", True, derived(tai), tai),
            TraceClock("x86-tsc", False, derived(tsc), tsc),
        )

    def __iter__(self) -> Iterator[TraceClock]:
        return iter(self._clocks)

    def get(self, name: str) -> TraceClock | None:
        for clock in self._clocks:
            if clock.name == name:
                return clock
        return None

    @property
    def default(self) -> TraceClock:
        return self._clocks[0]
