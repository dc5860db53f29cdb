"""Kernel-mode int3s delivered through the guest's #BP gate, natively.

A native UC_HOOK_INTR callback (native/int3.c) is each CPU's interrupt hook.  A kernel-mode
int3 it delivers as the CPU would through 6.1's interrupt gate (frame pushed, IF cleared, on
at asm_exc_int3), with no Python: the guest's exc_int3 runs its kprobe handlers.  User-mode
int3s and what it cannot deliver go on to the Python interrupt hook it was given (install()).
"""
from __future__ import annotations

import ctypes

from unicorn import UC_HOOK_INTR, Uc
from unicorn.unicorn_py3.unicorn import uclib
from unicorn.x86_const import UC_X86_REG_CS, UC_X86_REG_EFLAGS, UC_X86_REG_RIP, UC_X86_REG_RSP

from . import native_lib
from .image import KERNEL_MAP, PAGE_OFFSET


class _Gate(ctypes.Structure):  # struct int3_gate
    _fields_ = [("handler", ctypes.c_uint64), ("ram", ctypes.c_void_p), ("ram_size", ctypes.c_uint64),
                ("kernel_map", ctypes.c_uint64), ("page_offset", ctypes.c_uint64)]


class _Cpu(ctypes.Structure):  # struct int3_cpu
    _fields_ = [("gate", ctypes.c_void_p), ("reg_read", ctypes.c_void_p), ("reg_write", ctypes.c_void_p),
                ("ids", ctypes.c_int * 4), ("fallback", ctypes.c_void_p),
                ("fallback_data", ctypes.c_void_p), ("delivered", ctypes.c_uint64)]


def _hook_address() -> int:
    return native_lib.address(native_lib.load("int3").int3_intr_hook)


class Int3Gate:
    """The #BP gate's handler and the guest's RAM, read natively by every CPU's hook."""

    def __init__(self) -> None:
        self._gate = _Gate(kernel_map=KERNEL_MAP, page_offset=PAGE_OFFSET)
        self._cpus: list[tuple[_Cpu, object]] = []  # per-CPU hook data and the fallback it calls

    def set_gate(self, handler: int, ram: int, ram_size: int) -> None:
        """Deliver kernel-mode int3s to handler (the guest's asm_exc_int3), the guest's RAM
        at host address ram; before the CPUs run (until then, none is delivered)."""
        g = self._gate
        g.handler, g.ram, g.ram_size = handler, ram, ram_size

    def install(self, uc: Uc, fallback: ctypes._CFunctionType) -> None:
        """Make the native hook uc's interrupt hook, calling fallback (a ctypes
        UC_HOOK_INTR callback: void (uc, intno, user_data)) for what it does
        not deliver."""
        c = _Cpu(ctypes.addressof(self._gate),
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

    def delivered(self) -> list[int]:
        """Per CPU: int3s delivered through the gate so far."""
        return [c.delivered for c, _ in self._cpus]
