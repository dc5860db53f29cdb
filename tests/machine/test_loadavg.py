"""The load average (kernel/sched/loadavg.c): avenrun[] updated every LOAD_FREQ (5 s and a
tick) from the runnable and uninterruptible tasks, as /proc/loadavg and bpftrace's loads.bt
(kaddr("avenrun")) read it."""
from __future__ import annotations

import re
import struct
import time

from test_bpf import machine  # noqa: F401 (a 2-cpu machine for the module)

FSHIFT, FIXED_1 = 11, 1 << 11
EXP_1, EXP_5, EXP_15 = 1884, 2014, 2037


def avenrun(machine) -> tuple[int, int, int]:
    sym = machine.image.lookup("avenrun")
    assert sym.size == 24
    return struct.unpack("<3Q", machine.read_memory(sym.addr, 24))


def loadavg_text(values) -> str:
    """/proc/loadavg's first three fields from avenrun (get_avenrun(.., FIXED_1/200, 0))"""
    def fmt(x):
        x += FIXED_1 // 200
        return f"{x >> FSHIFT}.{((x & (FIXED_1 - 1)) * 100) >> FSHIFT:02d}"
    return " ".join(fmt(v) for v in values)


def test_busy_tasks_raise_the_load_average(machine, run_program):
    """two busy loops for two windows: every average rises, each step by 6.1's calc_load() of
    the one before with the tasks running then (at least the two loops); /proc/loadavg says it"""
    before = avenrun(machine)
    # (still running at the end: the module's machine stops them)
    for _ in range(2):
        machine.spawn(["getuid-loop", "3000000"])
    deadline = time.monotonic() + 120
    seen = [before]
    while time.monotonic() < deadline and len(set(seen)) < 3:
        time.sleep(0.2)
        if avenrun(machine) != seen[-1]:
            seen.append(avenrun(machine))
    assert len(set(seen)) >= 3, seen
    then = avenrun(machine)
    status, out = run_program(machine, ["cat", "/proc/loadavg"])
    now = avenrun(machine)  # (an update may fall between: either is what cat can have read)
    assert status == 0
    for old, new in zip(seen[1:], seen[2:]):
        # new = calc_load(old, exp, n * FIXED_1) for some whole number n of active tasks >= 2
        for k, exp in enumerate((EXP_1, EXP_5, EXP_15)):
            n = next((n for n in range(2, 64) if calc_load(old[k], exp, n * FIXED_1) == new[k]), None)
            assert n is not None, (old, new)
    assert all(b > a for a, b in zip(before, seen[-1])), seen
    fields = out.decode().split()
    assert re.fullmatch(r"\d+/\d+", fields[3]) and fields[4].isdigit(), out
    assert " ".join(fields[:3]) in (loadavg_text(then), loadavg_text(now)), (out, then, now)


def calc_load(load: int, exp: int, active: int) -> int:
    newload = load * exp + active * (FIXED_1 - exp)
    if active >= load:
        newload += FIXED_1 - 1
    return newload // FIXED_1
