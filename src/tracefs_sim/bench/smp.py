"""smp: guest throughput with 1, 2 and 4 emulated CPUs, side by side in each sample.

A machine with N CPUs and no background workload runs N getuid-loop programs at once (one per
CPU, each making the same number of getuid calls and printing each result); the figure is the
total getuid calls per second of wall time, from the first spawn to the last exit. Perfect
scaling on this host would be min(N, host cores) times the 1-CPU figure."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..machine import Machine, MachineOptions
from .runner import Sample

NAME = "smp"
CPU_COUNTS = (1, 2, 4)
CALLS = 20_000
QUICK_CALLS = 500
WAIT_S = 300.0


def _calls_per_second(cpus: int, calls: int) -> float | str:
    """Total getuid calls/s, or what went wrong."""
    machine = Machine(MachineOptions(cpus=cpus, workload="none"))
    machine.start()
    try:
        t0 = time.perf_counter()
        loops = [machine.spawn(["getuid-loop", str(calls)], lambda output: None) for _ in range(cpus)]
        statuses = [p.wait(WAIT_S) for p in loops]
        elapsed = time.perf_counter() - t0
    finally:
        machine.stop()
    if any(s != 0 for s in statuses):
        return f"getuid-loop exit statuses {statuses} (None: still running after {WAIT_S:.0f} s)"
    return cpus * calls / elapsed


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    calls = QUICK_CALLS if quick else CALLS

    def sample() -> list[Sample]:
        rates = {n: _calls_per_second(n, calls) for n in CPU_COUNTS}
        samples = []
        for n, rate in rates.items():
            figure = f"getuid calls/s, {n} CPU{'s' if n > 1 else ''} x 1 loop each"
            samples.append(Sample(figure, "calls/s", rate) if isinstance(rate, float)
                           else Sample(figure, "calls/s", None, rate))
        one = rates[1]
        for n in CPU_COUNTS[1:]:
            rate = rates[n]
            if isinstance(one, float) and isinstance(rate, float):
                samples.append(Sample(f"{n} CPUs / 1 CPU throughput", "ratio", rate / one))
        return samples
    yield sample
