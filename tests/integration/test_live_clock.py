"""A live machine's trace clock is host time to the TSC's tick, within a CPU's slice too: the
time between two records is the time the emulated code between them took (native/runloop.c
gives each slice the TSC with the clock; trace_clock_peek adds the ticks since)."""

import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"
RECORD = re.compile(r" getuid-loop-\d+ +\[\d+\] \S+ +(\d+\.\d{6}): sys_(enter|exit): NR 102 ")


def test_records_are_as_far_apart_as_the_code_between_them_took():
    """getuid-loop's iterations: getuid, then a write of its line (to /dev/null) and the loop's
    own code. From one getuid's sys_exit to the next one's sys_enter is some microseconds of
    host time; a clock that only stepped past its last read (20 ns a read) within a slice put
    most of them 0 us apart."""
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"echo 1 > {T}/events/raw_syscalls/enable; tracefs-sim exec getuid-loop 60 > /dev/null; "
                         f"echo 0 > {T}/tracing_on; cat {T}/trace", timeout=120)
    assert result.returncode == 0, result.stderr
    records = [(float(m.group(1)), m.group(2)) for m in map(RECORD.search, result.stdout.splitlines()) if m]
    assert len(records) == 120 and records == sorted(records, key=lambda r: r[0]), records
    gaps = sorted(enter - exit_ for (exit_, a), (enter, b) in zip(records[1:], records[2:])
                  if (a, b) == ("exit", "enter"))
    assert len(gaps) == 59 and gaps[len(gaps) // 2] >= 2e-6, gaps
