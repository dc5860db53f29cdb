"""The emulated PMU's device, per CPU (native/pmu.h; kernel_model/include/hostif.h's struct
hostif_pmu): a few general counters that the guest programs in its per-CPU area.  A counter of
unhalted core cycles counts the virtual TSC's cycles (contract.py's TSC_KHZ) of the time its CPU
ran guest code: live, host time; seeded, the slices' bytes of code x the seeded clock's ns per
byte, so a seeded run counts (and overflows, and samples) the same every time.  Those counts are
made natively, as a slice ends and at the guest's PORT_PMU doorbell.  A counter of instructions
or of branches retired counts the instructions of each block as the CPU enters it, in a block
hook (native/pmu_insn.c) the CPU has only while such a counter is programmed.  This module sets
them up and runs them around the slices runloop.py runs itself."""
from __future__ import annotations

import ctypes
import functools
import time
from typing import TYPE_CHECKING

from unicorn.unicorn_py3.unicorn import uclib
from unicorn.x86_const import UC_X86_REG_CR3

from . import native_lib
from .clock import SeededClock
from .contract import TSC_KHZ
from .hostif import NMI_STACK, NMI_STACK_SIZE, PORT_PMU  # PORT_PMU: the guest reads or reprograms its counters
from .image import KERNEL_MAP, PAGE_OFFSET

if TYPE_CHECKING:
    from .cpu import Cpu



@functools.cache
def _lib() -> ctypes.CDLL:
    lib = native_lib.load("slice")
    lib.pmu_budget.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    lib.pmu_budget.restype = ctypes.c_uint64
    lib.pmu_slice_end.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.pmu_slice_end.restype = ctypes.c_int
    lib.pmu_needs_mode.argtypes = [ctypes.c_void_p]
    lib.pmu_needs_mode.restype = ctypes.c_int
    lib.pmu_wants_insn_hook.argtypes = [ctypes.c_void_p]
    lib.pmu_wants_insn_hook.restype = ctypes.c_int
    lib.pmu_blocks_size.restype = ctypes.c_size_t
    lib.pmu_blocks_init.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
    return lib


class Pmu:
    """One CPU's counters: its struct hostif_pmu at host address `address` (in the machine's RAM)."""

    def __init__(self, cpu: Cpu, address: int, seeded: bool):
        self._address = address
        ev = cpu.events
        ev.pmu, ev.pmu_tsc_khz, ev.pmu_ns_per_byte = address, TSC_KHZ, SeededClock.NS_PER_BYTE
        ev.pmu_executed = cpu.slice_executed_address() if seeded else None
        ev.pmu_slice_left = cpu.slice_left_address()
        ev.pmu_port = PORT_PMU
        # for the instructions and branches hook (native/pmu_insn.c): the instructions' bytes
        ev.pmu_ram, ev.pmu_ram_size = cpu.mem.address, cpu.mem.size
        ev.pmu_kernel_map, ev.pmu_page_offset = KERNEL_MAP, PAGE_OFFSET
        ev.pmu_reg_read, ev.pmu_cr3_id = native_lib.address(uclib.uc_reg_read), UC_X86_REG_CR3
        ev.pmu_page_va = 1
        self._cpu = cpu
        self._blocks: _DecodedBlocks | None = None  # its decoded blocks, once needed
        self._ev, self._seeded = ev, seeded
        self._events = ctypes.addressof(ev)
        self._ctrl = ctypes.c_uint64.from_address(address)  # global_ctrl

    def nmi_stack(self) -> int:
        """The top of the stack the NMI enters on (the guest's IST entry for it)."""
        return ctypes.c_uint64.from_address(self._address + NMI_STACK).value

    def budget(self, budget_ns: int) -> int:
        """A slice's budget: at most the time until an interrupting counter overflows."""
        return int(_lib().pmu_budget(self._events, budget_ns)) if self._ctrl.value else budget_ns

    def in_nmi(self, rsp: int) -> bool:
        """The CPU runs its NMI handler (its stack pointer is on the NMI's stack): NMIs wait for
        its iret, as a CPU's do."""
        top = self.nmi_stack()
        return bool(top) and top - NMI_STACK_SIZE < rsp <= top

    def slice_begin(self) -> None:
        """pmu.h's pmu_slice_begin_: the slice's time counts from here (no native call: this runs
        before every slice, counters or not)."""
        self._ev.pmu_mark = 0 if self._seeded else time.monotonic_ns()

    def slice_end(self, cpu: Cpu) -> bool:
        """The slice's cycles counted (of the privilege level cpu is at, for a counter that counts
        one only); True if an overflow raised the NMI."""
        if not self._ctrl.value and not self._ev.pmu_nmi:  # nothing counts: nothing to count
            return False
        lib = _lib()
        user = bool(lib.pmu_needs_mode(self._events)) and cpu.in_user_mode()
        return bool(lib.pmu_slice_end(self._events, user))

    def follow_programming(self) -> None:
        """Between slices: the CPU has the instructions and branches hook exactly while one of
        its counters is programmed with either event (a load per slice while neither is)."""
        ev = self._ev
        if ev.pmu_insn_hooked or self._ctrl.value:
            want = bool(_lib().pmu_wants_insn_hook(self._events))
            if want and self._blocks is None:
                self._blocks = _DecodedBlocks()
                ev.pmu_blocks = self._blocks.address
            self._cpu.set_counting_hook(want)


class _DecodedBlocks:
    """A CPU's table of decoded blocks (native/pmu_insn.c's struct pmu_blocks) and the capstone
    x86-64 decoder it decodes new blocks with (closed with it)."""

    def __init__(self) -> None:
        import capstone  # (when the first counting event needs it, not at every start: ~11 ms)

        cs = self._cs = capstone._cs
        handle = ctypes.c_size_t()
        if cs.cs_open(capstone.CS_ARCH_X86, capstone.CS_MODE_64, ctypes.byref(handle)):
            raise RuntimeError("capstone: cs_open failed")
        self._handle = handle
        cs.cs_malloc.restype = ctypes.c_void_p
        self._insn = cs.cs_malloc(handle)
        lib = _lib()
        self._table = ctypes.create_string_buffer(lib.pmu_blocks_size())
        lib.pmu_blocks_init(self._table, handle.value, native_lib.address(cs.cs_disasm_iter), self._insn)

    @property
    def address(self) -> int:
        return ctypes.addressof(self._table)

    def __del__(self) -> None:
        self._cs.cs_free(ctypes.c_void_p(self._insn), ctypes.c_size_t(1))
        self._cs.cs_close(ctypes.byref(self._handle))
