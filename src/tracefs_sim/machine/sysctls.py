"""Sysctls that are ints of the emulated kernel: a session's /proc/sys/kernel shows them (fs/layout.py's
session views), read from and written to the kernel's variable, as 6.1's proc_dointvec_minmax
handler does (lib/sysctl.py parses the write), so that the kernel's own code sees a write at once.

The perf_events ones the kernel has (kernel/events/core.c): perf_event_paranoid (proc_dointvec,
any int), perf_event_max_sample_rate (perf_proc_update_handler: at least 1; the kernel
derives its samples a tick from it as it throttles, and perf_event_open checks frequencies
against it) and perf_event_max_stack (perf_event_max_stack_handler: 0 to 127, EBUSY while an
event samples call chains; the default depth of a sample's chain, and its cap)."""
from __future__ import annotations

import errno
import struct
from collections.abc import Callable
from typing import Protocol, TypeVar

from ..lib.sysctl import parse_sysctl_int
from .contract import GuestRam, KernelSymbols
from .paging import kernel_virt_to_phys

T = TypeVar("T")
_INT = struct.Struct("<i")
INT_MIN, INT_MAX = -(2**31), 2**31 - 1

PERF_MAX_STACK_DEPTH = 127  # include/uapi/linux/perf_event.h

# /proc/sys/kernel name -> (the kernel's variable, least value, greatest value, the kernel's count
# whose being non-zero makes a write EBUSY, or None)
PERF_SYSCTLS = {
    "perf_event_paranoid": ("sysctl_perf_event_paranoid", INT_MIN, INT_MAX, None),
    "perf_event_max_sample_rate": ("sysctl_perf_event_sample_rate", 1, INT_MAX, None),
    "perf_event_max_stack": ("sysctl_perf_event_max_stack", 0, PERF_MAX_STACK_DEPTH, "nr_callchain_events"),
}


class SysctlMachine(Protocol):
    """What a kernel sysctl needs of the machine."""

    @property
    def image(self) -> KernelSymbols: ...

    def read_memory(self, vaddr: int, size: int) -> bytes: ...
    def on_ram_loaded(self, fn: Callable[[GuestRam], None]) -> None: ...
    def guest_op(self, fn: Callable[[], T]) -> T: ...


class KernelIntSysctl:
    """One int of the kernel's as its sysctl file (lib/sysctl.py's SysctlFile)."""

    def __init__(self, machine: SysctlMachine, address: int, minimum: int, maximum: int,
                 busy_while: int | None = None):
        self._machine, self._address = machine, address
        self._minimum, self._maximum = minimum, maximum
        self._busy_while = busy_while  # an int of the kernel's: non-zero, a write is EBUSY
        self._ram: GuestRam | None = None
        machine.on_ram_loaded(self._loaded)

    def _loaded(self, ram: GuestRam) -> None:
        self._ram = ram

    def _int(self, address: int) -> int:
        return int(_INT.unpack(self._machine.read_memory(address, _INT.size))[0])

    def read(self) -> bytes:
        return b"%d\n" % self._int(self._address)

    def write_at(self, data: bytes, offset: int = 0) -> int:
        if offset:  # (sysctl_writes_strict: a write past the start is ignored)
            return len(data)
        value, taken = parse_sysctl_int(data, self._minimum, self._maximum)
        if self._busy_while is not None and self._int(self._busy_while):
            raise OSError(errno.EBUSY, "in use")
        ram, pa = self._ram, kernel_virt_to_phys(self._address)
        if ram is not None:
            self._machine.guest_op(lambda: ram.write(pa, _INT.pack(value)))
        return taken


def perf_sysctls(machine: SysctlMachine) -> dict[str, KernelIntSysctl]:
    """The perf_event sysctls of the kernel the machine runs (those whose variable it has)."""
    found = {}
    for name, (symbol, minimum, maximum, busy) in PERF_SYSCTLS.items():
        sym = machine.image.lookup(symbol)
        busy_sym = None if busy is None else machine.image.lookup(busy)
        if sym is not None and (busy is None or busy_sym is not None):
            found[name] = KernelIntSysctl(machine, sym.addr, minimum, maximum,
                                          None if busy_sym is None else busy_sym.addr)
    return found
