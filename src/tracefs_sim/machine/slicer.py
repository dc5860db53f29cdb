"""Slice ending: how the run loop makes a CPU stop after its slice, at an
instruction boundary, with no Python run per block.

Unicorn 2.1.4 looks for a stop request (uc_emu_stop) at the start of every
translated block, after every instruction hook, and after every guest memory
access.  A stop seen after a memory access ends the run inside the instruction
and reports that instruction's address, so resuming there repeats what it
already did (an `inc [mem]` counts twice, an `xchg` loses a value).  Those
checks are what a stop from a code or memory hook needs to take effect at
once; nothing else the machine does needs them, and they cost the guest about
40% of its speed (off-cost's workload: 63 ms -> 37 ms of CPU, bare).  Unicorn has no API for
them: its translator omits them while the engine's `no_exit_request` flag is
set (its ARM translator sets it inside IT blocks).  The slicer sets that flag
on every CPU that has no code or memory hook (SlicedUc counts those), after
finding where the flag lives in the loaded library's own code.  A stop caught
at a block start sets RIP to the block's address unless the engine's
`skip_sync_pc_on_exit` is set; uc_reg_write of RIP sets it, and from an
interrupt hook (the int3 redirect) nothing clears it before emu_start returns,
so an interrupt hook of the slicer's, after the machine's, clears it.

Two ways to end a slice (native/slice.c, built by the package's build, setup.py):
* by time (live machines, checks off): a SliceTimer thread calls uc_emu_stop
  on the running CPU once the thread running it has had the slice's CPU time
  (wall time would count time the host scheduler gave to others).  With only
  block-start checks left, the stop ends the run at a block boundary and
  reports the right address; the guest pays nothing per block.  (A live
  machine's native run loop, native/runloop.c, starts its slices itself, with
  the same timer.)
* by code executed (seeded machines, or while a hook needs the checks): a
  native block hook counts each block's size and calls uc_emu_stop before the
  first block past the budget, which stops exactly at its start.  Unicorn gives
  a block's size in bytes, so these budgets and counts are in bytes of code.
A CPU changes way between slices, when hooks come or go; the change drops its
translated code (the checks and the block hook's calls are compiled into it).
"""
from __future__ import annotations

import ctypes
import functools
import logging
from collections.abc import Callable
from typing import Any, NamedTuple

from unicorn import (
    UC_HOOK_BLOCK, UC_HOOK_CODE, UC_HOOK_INTR, UC_HOOK_MEM_INVALID, UC_HOOK_MEM_READ_AFTER,
    UC_HOOK_MEM_VALID, Uc, ucsubclass,
)
from unicorn.unicorn_py3.unicorn import uclib

from . import native_lib, start_cache

log = logging.getLogger(__name__)

# Hooks whose callbacks may stop or redirect the CPU in the middle of a block.
MID_BLOCK_HOOKS = UC_HOOK_CODE | UC_HOOK_MEM_VALID | UC_HOOK_MEM_INVALID | UC_HOOK_MEM_READ_AFTER


class _Slice(ctypes.Structure):  # struct slice in native/slice.c
    _fields_ = [("left", ctypes.c_int64), ("executed", ctypes.c_uint64), ("emu_stop", ctypes.c_void_p)]


@functools.cache
def _native() -> ctypes.CDLL:
    lib = native_lib.load("slice")
    lib.slice_timer_new.restype = ctypes.c_void_p
    lib.slice_timer_new.argtypes = [ctypes.c_void_p]
    lib.slice_timer_begin.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
    lib.slice_timer_end.argtypes = [ctypes.c_void_p]
    lib.slice_timer_stops.restype = ctypes.c_uint64
    lib.slice_timer_stops.argtypes = [ctypes.c_void_p]
    lib.slice_timer_free.argtypes = [ctypes.c_void_p]
    return lib


def _emu_stop_address() -> int:
    return native_lib.address(uclib.uc_emu_stop)


class EngineFlags(NamedTuple):
    """Byte offsets of two private flags in Unicorn's engine struct (uc_struct)."""
    no_exit_request: int  # translate no exit checks after memory accesses and code hooks
    skip_sync_pc_on_exit: int  # the next exit keeps RIP as it is (set by uc_reg_write of RIP)


# The code the flags are found in: Unicorn's function, and how many of its bytes are read
_FLAG_CODE = (("check_exit_request_x86_64", 32), ("helper_check_exit_request_x86_64", 128))


def _code(symbol: str, size: int) -> tuple[int, bytes] | None:
    """(address, first size bytes) of one of Unicorn's functions; None if it has none of that name."""
    try:
        fn = native_lib.address(getattr(uclib, symbol))
    except AttributeError:
        return None
    return fn, ctypes.string_at(fn, size)


def _disassemble(code: tuple[int, bytes] | None) -> list[Any]:  # (capstone CsInsn, detail on)
    if code is None:
        return []
    import capstone  # (only when the flags are not in their start cache: its import is ~11 ms)

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.detail = True
    return list(md.disasm(code[1], code[0]))


def _byte_operand(insn: Any, mnemonic: str, base: int | None = None) -> int | None:
    """disp of `mnemonic byte ptr [base + disp], 0` (any base register if None)."""
    from capstone import x86 as cs_x86

    if insn.mnemonic != mnemonic or len(insn.operands) != 2:
        return None
    mem, imm = insn.operands
    if (mem.type != cs_x86.X86_OP_MEM or mem.size != 1 or mem.mem.index != 0
            or (base is not None and mem.mem.base != base)
            or imm.type != cs_x86.X86_OP_IMM or imm.imm != 0):
        return None
    return int(mem.mem.disp)


def _find_engine_flags(check: tuple[int, bytes] | None, helper_code: tuple[int, bytes] | None) -> EngineFlags | None:
    """Read the offsets from the code that uses them (None if it is not of the shape below).
    check_exit_request_x86_64(tcg_ctx) begins `if (tcg_ctx->uc->no_exit_request) return;`:
    a load of tcg_ctx->uc, then a byte compare with 0 through it.
    helper_check_exit_request_x86_64(uc, ...) tests `uc->skip_sync_pc_on_exit` and clears
    it: a byte compare with 0 and a byte store of 0 at the same offset from uc (rdi).
    check, helper_code: those functions' code (_code)."""
    from capstone import x86 as cs_x86

    head = _disassemble(check)[:2]
    if len(head) != 2 or head[0].mnemonic != "mov" or len(head[0].operands) != 2:
        return None
    dst, src = head[0].operands
    if (dst.type != cs_x86.X86_OP_REG or src.type != cs_x86.X86_OP_MEM
            or src.mem.base != cs_x86.X86_REG_RDI or src.mem.index != 0):
        return None
    no_exit_request = _byte_operand(head[1], "cmp", dst.reg)
    helper = _disassemble(helper_code)
    tested = {d for i in helper if (d := _byte_operand(i, "cmp", cs_x86.X86_REG_RDI)) is not None}
    cleared = {d for i in helper if (d := _byte_operand(i, "mov", cs_x86.X86_REG_RDI)) is not None}
    if no_exit_request is None or len(tested & cleared) != 1:
        return None
    return EngineFlags(no_exit_request, (tested & cleared).pop())


@functools.cache
def engine_flags() -> EngineFlags | None:
    """Where the flags are in a uc_engine (None: not found; the exit checks stay on and
    slices end by a block hook)."""
    codes = [_code(symbol, size) for symbol, size in _FLAG_CODE]
    # found from those bytes alone: kept by them (the file beside the native libraries)
    path = str(native_lib.NATIVE / "unicorn-engine-flags.start-cache")
    made_from = start_cache.key([b"" if c is None else c[1] for c in codes], [__file__])
    kept = None if made_from is None else start_cache.load(path, made_from)
    if isinstance(kept, EngineFlags):
        return kept
    flags = _find_engine_flags(*codes)
    if flags is not None and made_from is not None:
        start_cache.store(path, made_from, flags)
    if flags is None:
        log.warning("Unicorn's exit-check flags not found: slices end by a block hook, "
                    "with the checks after every memory access on")
    return flags


def set_exit_checks(uc: Uc, on: bool) -> bool:
    """Turn Unicorn's exit checks on or off in what uc translates from now on
    (drop its translations to change the code it has); False if the flag was not
    found: they stay on."""
    flags = engine_flags()
    if flags is None:
        return False
    ctypes.c_uint8.from_address(native_lib.address(uc._uch) + flags.no_exit_request).value = not on
    return True


@ucsubclass
class SlicedUc(Uc):
    """A Uc that knows its hooks whose callbacks may stop or redirect the CPU in
    the middle of a block (code and memory hooks), whoever adds them."""

    def __init__(self, arch: int, mode: int):
        super().__init__(arch, mode)
        self.mid_block_hooks: set[int] = set()

    # the binding's one funnel for hook_add() and raw ctypes callbacks (cpu.add_raw_hook)
    def _Uc__do_hook_add(self, htype: int, fptr: object, begin: int, end: int, *args: int) -> int:
        do_hook_add: Callable[..., int] = getattr(super(), "_Uc__do_hook_add")
        handle = do_hook_add(htype, fptr, begin, end, *args)
        if htype & MID_BLOCK_HOOKS:
            self.mid_block_hooks.add(handle)
        return handle

    def hook_del(self, handle: int) -> None:
        super().hook_del(handle)
        self.mid_block_hooks.discard(handle)


class SliceTimer:
    """The thread that ends slices after budget_ns of the run-loop thread's CPU
    time (one per run loop: it stops whichever CPU that thread is running)."""

    def __init__(self, budget_ns: int):
        self.budget_ns = budget_ns
        self._lib = _native()
        self._t: int | None = self._lib.slice_timer_new(_emu_stop_address())
        if not self._t:
            raise RuntimeError("slice timer thread not started")

    def run(self, uc: Uc, pc: int, until: int, budget_ns: int | None = None) -> None:
        """emu_start(pc, until) on uc, stopped once this thread has had budget_ns (default:
        the timer's) of CPU time."""
        lib, t = self._lib, self._t
        lib.slice_timer_begin(t, uc._uch, self.budget_ns if budget_ns is None else budget_ns)
        try:
            uc.emu_start(pc, until)
        finally:
            lib.slice_timer_end(t)

    @property
    def handle(self) -> int:
        """The native timer (struct slice_timer *), for the native run loop."""
        if self._t is None:
            raise RuntimeError("the slice timer is closed")
        return self._t

    @property
    def stops(self) -> int:
        """Stops the thread has issued (a stop that came before emu_start began is
        lost, and repeated once the slice has run a budget more)."""
        return int(self._lib.slice_timer_stops(self._t))

    def close(self) -> None:
        """Ends the thread; call with no slice running."""
        if self._t:
            self._lib.slice_timer_free(self._t)
            self._t = None


class Slicer:
    """One CPU's slices: run() per slice picks how the slice ends (see above)."""

    def __init__(self, uc: SlicedUc):
        """Create it after the CPU's interrupt hooks: its own must come after them."""
        self._uc = uc
        self._slice = _Slice(0, 0, _emu_stop_address())
        self._block_hook: int | None = None  # the uc_hook handle while installed
        self._checks: bool | None = None  # the exit checks' state (None: not set yet)
        flags = engine_flags()
        if flags is not None:
            self._add_native_hook(UC_HOOK_INTR, "slice_intr_hook", flags.skip_sync_pc_on_exit)

    def run(self, pc: int, budget_bytes: int, until: int = 0, timer: SliceTimer | None = None,
            budget_ns: int | None = None) -> int | None:
        """Run from pc until `until`, a hook's stop, or the end of the slice: after
        timer.budget_ns if a timer is given and no hook needs the exit checks
        (returns None), else after budget_bytes of code have been started (returns
        the bytes of the blocks executed)."""
        checks = bool(self._uc.mid_block_hooks) or engine_flags() is None
        by_time = timer is not None and not checks
        self._configure(block_hook=not by_time, checks=checks)
        if timer is not None and by_time:
            timer.run(self._uc, pc, until, budget_ns)
            return None
        s = self._slice
        s.left = budget_bytes
        s.executed = 0
        self._uc.emu_start(pc, until)
        return int(s.executed)

    def use_timer(self) -> bool:
        """Set the CPU up for slices a SliceTimer ends (the native run loop runs
        them itself); False if a hook needs the exit checks."""
        if self._uc.mid_block_hooks or engine_flags() is None:
            return False
        self._configure(block_hook=False, checks=False)
        return True

    @property
    def left_address(self) -> int:
        """The address of the bytes the slice may still start (native/pmu.h shortens it)."""
        return ctypes.addressof(self._slice) + _Slice.left.offset

    @property
    def executed_address(self) -> int:
        """The address of the count behind `executed` (native/pmu.h reads it mid-slice)."""
        return ctypes.addressof(self._slice) + _Slice.executed.offset

    @property
    def executed(self) -> int:
        """Bytes executed so far in the current (or last) slice ended by code
        executed; hooks read it mid-slice (seeded machines)."""
        return int(self._slice.executed)

    def _configure(self, block_hook: bool, checks: bool) -> None:
        if block_hook == (self._block_hook is not None) and checks == self._checks:
            return
        if checks != self._checks:
            set_exit_checks(self._uc, checks)
        self._checks = checks
        if block_hook and self._block_hook is None:
            self._block_hook = self._add_native_hook(UC_HOOK_BLOCK, "slice_block_hook",
                                                     ctypes.addressof(self._slice))
        elif not block_hook and self._block_hook is not None:
            err = uclib.uc_hook_del(self._uc._uch, ctypes.c_size_t(self._block_hook))
            if err:
                raise RuntimeError(f"uc_hook_del(UC_HOOK_BLOCK) failed: error {err}")
            self._block_hook = None
        # code translated before has the old checks and block hook calls compiled in
        self._uc.ctl_flush_tb()

    def _add_native_hook(self, htype: int, name: str, user_data: int) -> int:
        handle = ctypes.c_size_t()
        # begin > end: every address
        err = uclib.uc_hook_add(self._uc._uch, ctypes.byref(handle), htype,
                                ctypes.cast(getattr(_native(), name), ctypes.c_void_p),
                                ctypes.c_void_p(user_data), ctypes.c_uint64(1), ctypes.c_uint64(0))
        if err:
            raise RuntimeError(f"uc_hook_add({name}) failed: error {err}")
        return handle.value
