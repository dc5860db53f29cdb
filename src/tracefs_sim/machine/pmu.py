"""The emulated PMU's host side (native/runloop.c's pmu_budget and pmu_count, for the slices
runloop.py runs itself): per CPU, kernel_model/include/hostif.h's struct hostif_pmu, a few
general counters of unhalted core cycles that the guest programs in its per-CPU area.

A counter counts the virtual TSC's cycles (trace/clock.py's TSC_KHZ) over the time its CPU ran
guest code: live, the slice's host time; seeded, the slice's code bytes x the seeded clock's ns
per byte, so a seeded run counts (and overflows, and samples) the same every time.  A counter
that wraps past 2**48 sets its global_status bit and, with INT in its evtsel and the PMI not
masked, raises the NMI (masking it until the guest's handler clears lvtpc_masked)."""
from __future__ import annotations

import struct

from ..trace.clock import TSC_KHZ
from .paging import PhysMem

NR_COUNTERS = 4
CNTVAL_BITS = 48
WRAP = 1 << CNTVAL_BITS
EVTSEL_USR, EVTSEL_OS, EVTSEL_INT, EVTSEL_EN = 1 << 16, 1 << 17, 1 << 20, 1 << 22
EVENT_CYCLES = 0x3C
_USR_OS_EN = EVTSEL_USR | EVTSEL_OS | EVTSEL_EN
# struct hostif_pmu: global_ctrl, global_status, lvtpc_masked, evtsel[4], ctr[4]
CTRL, STATUS, MASKED, EVTSEL, CTR, NMI_STACK = 0, 8, 16, 24, 56, 88


def cycles(ns: int) -> int:
    return ns * TSC_KHZ // 1_000_000


class Pmu:
    """One CPU's counters, at pa in the machine's RAM."""

    def __init__(self, mem: PhysMem, pa: int):
        self.mem = mem
        self.pa = pa

    def _counting(self, ctrl: int, irq_only: bool) -> list[int]:
        sels = struct.unpack_from("<4Q", self.mem.buf, self.pa + EVTSEL)
        return [i for i, sel in enumerate(sels)
                if ctrl >> i & 1 and sel & _USR_OS_EN == _USR_OS_EN and sel & 0xFFFF == EVENT_CYCLES
                and (not irq_only or sel & EVTSEL_INT)]

    def nmi_stack(self) -> int:
        """The top of the stack the NMI enters on (the guest's IST entry for it)."""
        return self.mem.u64(self.pa + NMI_STACK)

    def ns_to_overflow(self) -> int | None:
        """The time until the first interrupting counter overflows; None: none can."""
        ctrl = self.mem.u64(self.pa + CTRL)
        if not ctrl:
            return None
        lefts = [WRAP - (self.mem.u64(self.pa + CTR + 8 * i) & (WRAP - 1))
                 for i in self._counting(ctrl, True)]
        return min((-(-left * 1_000_000 // TSC_KHZ) for left in lefts), default=None)

    def count(self, ns: int) -> bool:
        """ns of running go to the counting counters; True if an overflow raised the NMI."""
        ctrl = self.mem.u64(self.pa + CTRL)
        if not ctrl:
            return False
        on = self._counting(ctrl, False)
        if not on:
            return False
        n, nmi = cycles(ns), False
        status = self.mem.u64(self.pa + STATUS)
        for i in on:
            v = (self.mem.u64(self.pa + CTR + 8 * i) & (WRAP - 1)) + n
            if v >= WRAP:
                status |= 1 << i
                if self.mem.u64(self.pa + EVTSEL + 8 * i) & EVTSEL_INT and not self.mem.u64(self.pa + MASKED):
                    self.mem.put_u64(self.pa + MASKED, 1)
                    nmi = True
            self.mem.put_u64(self.pa + CTR + 8 * i, v & (WRAP - 1))
        self.mem.put_u64(self.pa + STATUS, status)
        return nmi
