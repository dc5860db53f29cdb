"""The files that hold a time in nanoseconds and show it in microseconds (trace.c's
tracing_nsecs_read/tracing_nsecs_write): tracing_thresh and each trace array's
tracing_max_latency."""
from __future__ import annotations

from collections.abc import Callable

from ..lib.kstrtox import kstrtoul_from_user

_ULONG = (1 << 64) - 1


class NsecsFile:
    def __init__(self, on_change: Callable[[int], None] | None = None):
        """on_change(ns): the value was written (tracing_thresh: the graph tracer's threshold)."""
        self.ns = 0
        self._on_change = on_change

    def read(self) -> bytes:
        return b"-1\n" if self.ns == _ULONG else b"%d\n" % (self.ns // 1000)

    def write(self, data: bytes) -> None:
        """kstrtoul_from_user() microseconds, kept as nanoseconds in an unsigned long."""
        self.ns = kstrtoul_from_user(data) * 1000 & _ULONG
        if self._on_change is not None:
            self._on_change(self.ns)
