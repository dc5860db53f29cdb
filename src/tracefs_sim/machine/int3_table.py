"""Kernel-mode int3s delivered through the guest's #BP gate, natively.

A native UC_HOOK_INTR callback (native/int3.c) is each CPU's interrupt hook.  A kernel-mode
int3 it delivers as the CPU would through 6.1's interrupt gate (frame pushed, IF cleared, on
at asm_exc_int3), with no Python: the guest's exc_int3 runs its kprobe handlers.  The int3s
of the host's own kprobe handlers (their addresses in this table), user-mode ones and
everything else go on to the Python interrupt hook it was given (install()).  The table is
changed only with every CPU stopped, so the native readers never see it half-written.
"""
from __future__ import annotations

import ctypes

from unicorn import UC_HOOK_INTR, Uc
from unicorn.unicorn_py3.unicorn import uclib
from unicorn.x86_const import UC_X86_REG_CS, UC_X86_REG_EFLAGS, UC_X86_REG_RIP, UC_X86_REG_RSP

from . import native_lib
from .image import KERNEL_MAP, PAGE_OFFSET

TABLE_SIZE = 256  # INT3_HOST_POINTS in int3.c


class _Table(ctypes.Structure):  # struct int3_table
    _fields_ = [("handler", ctypes.c_uint64), ("ram", ctypes.c_void_p), ("ram_size", ctypes.c_uint64),
                ("kernel_map", ctypes.c_uint64), ("page_offset", ctypes.c_uint64),
                ("count", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("host", ctypes.c_uint64 * TABLE_SIZE)]


class _Cpu(ctypes.Structure):  # struct int3_cpu
    _fields_ = [("table", ctypes.c_void_p), ("reg_read", ctypes.c_void_p), ("reg_write", ctypes.c_void_p),
                ("ids", ctypes.c_int * 4), ("fallback", ctypes.c_void_p),
                ("fallback_data", ctypes.c_void_p), ("delivered", ctypes.c_uint64)]


def _hook_address() -> int:
    return native_lib.address(native_lib.load("int3").int3_intr_hook)


class Int3Table:
    """The #BP gate's handler and the host-handled int3 addresses, read natively by every CPU."""

    def __init__(self) -> None:
        self._table = _Table(kernel_map=KERNEL_MAP, page_offset=PAGE_OFFSET)
        self._cpus: list[tuple[_Cpu, object]] = []  # per-CPU hook data and the fallback it calls

    def set_gate(self, handler: int, ram: int, ram_size: int) -> None:
        """Deliver kernel-mode int3s to handler (the guest's asm_exc_int3), the guest's RAM
        at host address ram; before the CPUs run."""
        t = self._table
        t.handler, t.ram, t.ram_size = handler, ram, ram_size

    def install(self, uc: Uc, fallback: ctypes._CFunctionType) -> None:
        """Make the native hook uc's interrupt hook, calling fallback (a ctypes
        UC_HOOK_INTR callback: void (uc, intno, user_data)) for what it does
        not deliver."""
        c = _Cpu(ctypes.addressof(self._table),
                 native_lib.address(uclib.uc_reg_read),
                 native_lib.address(uclib.uc_reg_write),
                 (ctypes.c_int * 4)(UC_X86_REG_RIP, UC_X86_REG_CS, UC_X86_REG_RSP, UC_X86_REG_EFLAGS),
                 native_lib.address(fallback), None, 0)
        self._cpus.append((c, fallback))  # both must live as long as the hook
        handle = ctypes.c_size_t()
        err = uclib.uc_hook_add(uc._uch, ctypes.byref(handle), UC_HOOK_INTR,
                                ctypes.c_void_p(_hook_address()), ctypes.byref(c),
                                ctypes.c_uint64(1), ctypes.c_uint64(0))
        if err:
            raise RuntimeError(f"uc_hook_add(UC_HOOK_INTR) failed: error {err}")

    def set_host(self, addr: int, host: bool) -> bool:
        """The int3 at addr goes to the host's breakpoint handler (host) or through the gate
        (call with every CPU stopped); False if the table is full."""
        t = self._table
        for i in range(t.count):
            if t.host[i] == addr:
                if not host:
                    last = t.count - 1
                    t.host[i] = t.host[last]
                    t.count = last
                return True
        if not host:
            return True
        if t.count == TABLE_SIZE:
            return False
        t.host[t.count] = addr
        t.count += 1
        return True

    def __contains__(self, addr: int) -> bool:
        """addr is a host-handled int3."""
        t = self._table
        return any(t.host[i] == addr for i in range(t.count))

    def delivered(self) -> list[int]:
        """Per CPU: int3s delivered through the gate so far."""
        return [c.delivered for c, _ in self._cpus]
