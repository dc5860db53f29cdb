"""Kernel-mode int3 redirects: the breakpoints the host only has to move past.

A native UC_HOOK_INTR callback (native/int3.c, built by `make -C
kernel_model`) is each CPU's interrupt hook.  For a kernel-mode int3 whose
address is in the machine's Int3Table it sets RIP to the entry's target and
returns, with no Python; everything else goes on to the Python interrupt
hook it was given (install()).  The table is changed only with every CPU
stopped, so the native readers never see it half-written.
"""
from __future__ import annotations

import ctypes

from unicorn import UC_HOOK_INTR, Uc
from unicorn.unicorn_py3.unicorn import uclib
from unicorn.x86_const import UC_X86_REG_CS, UC_X86_REG_RIP

from . import native_lib

TABLE_SIZE = 256  # INT3_TABLE_SIZE in int3.c: the guest's kprobe point table


class _Table(ctypes.Structure):  # struct int3_table
    _fields_ = [("count", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("addr", ctypes.c_uint64 * TABLE_SIZE), ("target", ctypes.c_uint64 * TABLE_SIZE)]


class _Cpu(ctypes.Structure):  # struct int3_cpu
    _fields_ = [("table", ctypes.c_void_p), ("reg_read", ctypes.c_void_p), ("reg_write", ctypes.c_void_p),
                ("rip_id", ctypes.c_int), ("cs_id", ctypes.c_int), ("fallback", ctypes.c_void_p),
                ("fallback_data", ctypes.c_void_p), ("redirected", ctypes.c_uint64)]


def _hook_address() -> int:
    return native_lib.address(native_lib.load("int3").int3_intr_hook)


class Int3Table:
    """int3 address -> where the CPU continues, read natively by every CPU."""

    def __init__(self) -> None:
        self._table = _Table()
        self._cpus: list[tuple[_Cpu, object]] = []  # per-CPU hook data and the fallback it calls

    def install(self, uc: Uc, fallback: ctypes._CFunctionType) -> None:
        """Make the native hook uc's interrupt hook, calling fallback (a ctypes
        UC_HOOK_INTR callback: void (uc, intno, user_data)) for what it does
        not redirect."""
        c = _Cpu(ctypes.addressof(self._table),
                 native_lib.address(uclib.uc_reg_read),
                 native_lib.address(uclib.uc_reg_write),
                 UC_X86_REG_RIP, UC_X86_REG_CS,
                 native_lib.address(fallback), None, 0)
        self._cpus.append((c, fallback))  # both must live as long as the hook
        handle = ctypes.c_size_t()
        err = uclib.uc_hook_add(uc._uch, ctypes.byref(handle), UC_HOOK_INTR,
                                ctypes.c_void_p(_hook_address()), ctypes.byref(c),
                                ctypes.c_uint64(1), ctypes.c_uint64(0))
        if err:
            raise RuntimeError(f"uc_hook_add(UC_HOOK_INTR) failed: error {err}")

    def set(self, addr: int, target: int) -> bool:
        """Redirect the int3 at addr to target (call with every CPU stopped);
        False if the table is full (the int3 then takes the Python path)."""
        t = self._table
        for i in range(t.count):
            if t.addr[i] == addr:
                t.target[i] = target
                return True
        if t.count == TABLE_SIZE:
            return False
        t.addr[t.count], t.target[t.count] = addr, target
        t.count += 1
        return True

    def remove(self, addr: int) -> None:
        """Drop addr's redirect, if any (call with every CPU stopped)."""
        t = self._table
        for i in range(t.count):
            if t.addr[i] == addr:
                last = t.count - 1
                t.addr[i], t.target[i] = t.addr[last], t.target[last]
                t.count = last
                return

    def __contains__(self, addr: int) -> bool:
        t = self._table
        return any(t.addr[i] == addr for i in range(t.count))

    def redirected(self) -> list[int]:
        """Per CPU: int3 hits redirected natively so far."""
        return [c.redirected for c, _ in self._cpus]
