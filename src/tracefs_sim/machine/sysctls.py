"""Sysctls that are ints of the emulated kernel: a session's /proc/sys/kernel shows them (fs/layout.py's
session views), read from and written to the kernel's variable, as 6.1's proc_dointvec_minmax
handler does (lib/sysctl.py parses the write), so that the kernel's own code sees a write at once.

The perf_events ones the kernel has (kernel/events/core.c): perf_event_paranoid (proc_dointvec,
any int), perf_event_max_sample_rate (perf_proc_update_handler: at least 1, EINVAL while
perf_cpu_time_max_percent is 0 or 100; the kernel derives its samples a tick from it as it
throttles, perf_event_open checks frequencies against it, and it lowers it itself when its PMIs
take too long), perf_cpu_time_max_percent (perf_cpu_time_max_percent_handler: 0 to 100; the
share of a sample period a PMI may take before the rate is lowered, 0 and 100: never) and
perf_event_max_stack (perf_event_max_stack_handler: 0 to 127, EBUSY while an event samples call
chains; the default depth of a sample's chain, and its cap).

dmesg_restrict (kernel/printk.c's: 1 as Debian boots, who may read the served syslog(2) and
/dev/kmsg). The BPF ones (kernel/bpf/syscall.c's, whose stores the kernel makes: bpf_stats_handler() and
bpf_unpriv_handler()): bpf_stats_enabled (0 or 1; 1 counts and times every program's runs, as
an open BPF_ENABLE_STATS fd does: run_time_ns and run_cnt of its info) and
unprivileged_bpf_disabled (0 to 2, 2 as Debian's 6.1 boots; 1 can never be written back: EPERM).

And /proc/sys/net/core's bpf_jit_enable (kernel/bpf/core.c): 1, the programs loaded from then on
are JITed, 0 interpreted, 2 JITed with each image dumped to the kernel log
(proc_dointvec_minmax_bpf_enable).  Its store is the kernel's own (bpf_jit_enable_store(), run by
kthreadd: what 2 says in the log is the kernel's printk), the value parsed and checked here."""
from __future__ import annotations

import errno
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from ..lib.sysctl import parse_sysctl_int
from .contract import GuestRam, KernelSymbols
from .hostif import HOST_SYSCTL_BPF_JIT_ENABLE, HOST_SYSCTL_BPF_STATS_ENABLED, HOST_SYSCTL_UNPRIVILEGED_BPF_DISABLED
from .paging import kernel_virt_to_phys

T = TypeVar("T")
_INT = struct.Struct("<i")
INT_MIN, INT_MAX = -(2**31), 2**31 - 1

PERF_MAX_STACK_DEPTH = 127  # include/uapi/linux/perf_event.h



@dataclass(frozen=True)
class KernelSysctl:
    """One of them: the kernel's variable and its range; busy_while: the kernel's count whose
    being non-zero makes a write EBUSY; invalid_while: the kernel's int whose having one of
    these values makes a write EINVAL; kernel_store: the kernel makes the store itself (its
    enum host_sysctl), not the host in its memory."""
    variable: str
    minimum: int
    maximum: int
    busy_while: str | None = None
    invalid_while: tuple[str, frozenset[int]] | None = None
    kernel_store: int | None = None


# /proc/sys/kernel name -> what the kernel keeps it in
KERNEL_SYSCTLS = {
    # (proc_dointvec_minmax_sysadmin: root's writes, the only ones the file's mode lets in)
    "dmesg_restrict": KernelSysctl("dmesg_restrict", 0, 1),
    "bpf_stats_enabled": KernelSysctl("bpf_stats_enabled_sysctl", 0, 1, kernel_store=HOST_SYSCTL_BPF_STATS_ENABLED),
    "unprivileged_bpf_disabled": KernelSysctl("sysctl_unprivileged_bpf_disabled", 0, 2,
                                              kernel_store=HOST_SYSCTL_UNPRIVILEGED_BPF_DISABLED),
    "perf_event_paranoid": KernelSysctl("sysctl_perf_event_paranoid", INT_MIN, INT_MAX),
    "perf_event_max_sample_rate": KernelSysctl("sysctl_perf_event_sample_rate", 1, INT_MAX,
                                             invalid_while=("sysctl_perf_cpu_time_max_percent", frozenset({0, 100}))),
    "perf_cpu_time_max_percent": KernelSysctl("sysctl_perf_cpu_time_max_percent", 0, 100),
    "perf_event_max_stack": KernelSysctl("sysctl_perf_event_max_stack", 0, PERF_MAX_STACK_DEPTH,
                                       busy_while="nr_callchain_events"),
}


# /proc/sys/net/core name -> what the kernel keeps it in
NET_CORE_SYSCTLS = {
    "bpf_jit_enable": KernelSysctl("bpf_jit_enable", 0, 2, kernel_store=HOST_SYSCTL_BPF_JIT_ENABLE),
}


@runtime_checkable
class SysctlMachine(Protocol):
    """What a kernel sysctl needs of the machine."""

    @property
    def image(self) -> KernelSymbols: ...

    def read_memory(self, vaddr: int, size: int) -> bytes: ...
    def on_ram_loaded(self, fn: Callable[[GuestRam], None]) -> None: ...
    def guest_op(self, fn: Callable[[], T]) -> T: ...
    def sysctl_request(self, sysctl: int, value: int) -> int: ...


class KernelIntSysctl:
    """One int of the kernel's as its sysctl file (lib/sysctl.py's SysctlFile)."""

    def __init__(self, machine: SysctlMachine, address: int, minimum: int, maximum: int,
                 busy_while: int | None = None, invalid_while: tuple[int, frozenset[int]] | None = None,
                 kernel_store: int | None = None):
        self._machine, self._address = machine, address
        self._minimum, self._maximum = minimum, maximum
        self._busy_while = busy_while  # an int of the kernel's: non-zero, a write is EBUSY
        self._invalid_while = invalid_while  # (an int of the kernel's, values that make a write EINVAL)
        self._kernel_store = kernel_store  # enum host_sysctl: the kernel stores it (None: the host)
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
        if self._invalid_while is not None and self._int(self._invalid_while[0]) in self._invalid_while[1]:
            raise OSError(errno.EINVAL, "refused while the kernel's throttling is off")
        value, taken = parse_sysctl_int(data, self._minimum, self._maximum)
        if self._busy_while is not None and self._int(self._busy_while):
            raise OSError(errno.EBUSY, "in use")
        if self._kernel_store is not None:
            err = self._machine.sysctl_request(self._kernel_store, value)
            if err < 0:
                raise OSError(-err, "refused by the kernel")
            return taken
        ram, pa = self._ram, kernel_virt_to_phys(self._address)
        if ram is not None:
            self._machine.guest_op(lambda: ram.write(pa, _INT.pack(value)))
        return taken


def kernel_sysctls(machine: SysctlMachine) -> dict[str, KernelIntSysctl]:
    """The /proc/sys/kernel sysctls of the kernel the machine runs (those whose variable it has)."""
    return _kernel_sysctls(machine, KERNEL_SYSCTLS)


def net_core_sysctls(machine: SysctlMachine) -> dict[str, KernelIntSysctl]:
    """The /proc/sys/net/core sysctls of the kernel the machine runs (bpf_jit_enable)."""
    return _kernel_sysctls(machine, NET_CORE_SYSCTLS)


def _kernel_sysctls(machine: SysctlMachine, specs: dict[str, KernelSysctl]) -> dict[str, KernelIntSysctl]:
    found = {}
    image = machine.image
    for name, spec in specs.items():
        needed = [spec.variable] + [s for s in (spec.busy_while, spec.invalid_while and spec.invalid_while[0]) if s]
        syms = {s: image.lookup(s) for s in needed}
        if any(sym is None for sym in syms.values()):
            continue
        addr = {s: sym.addr for s, sym in syms.items() if sym is not None}
        found[name] = KernelIntSysctl(
            machine, addr[spec.variable], spec.minimum, spec.maximum,
            None if spec.busy_while is None else addr[spec.busy_while],
            None if spec.invalid_while is None else (addr[spec.invalid_while[0]], spec.invalid_while[1]),
            spec.kernel_store)
    return found
