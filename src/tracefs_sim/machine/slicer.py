"""Slice ending: how the run loop makes a CPU stop after a budget of guest code.

A native UC_HOOK_BLOCK callback (native/slice.c, built by `make -C
kernel_model`) is called by Unicorn before each translated block runs; it
subtracts the block's size from the slice's budget and, once the budget is
spent, calls uc_emu_stop so that the next block does not run.  The run ends
exactly at an instruction boundary (the next run starts with that block), and
no Python runs per block.  Unicorn gives a block's size in bytes, so budgets
and the code executed are counted in bytes of guest code, not instructions.
"""
from __future__ import annotations

import ctypes
from pathlib import Path

from unicorn import UC_HOOK_BLOCK
from unicorn.unicorn_py3.unicorn import uclib

LIBRARY = Path(__file__).resolve().parent / "native" / "build" / "libslice.so"


class _Slice(ctypes.Structure):  # struct slice in native/slice.c
    _fields_ = [("left", ctypes.c_int64), ("executed", ctypes.c_uint64), ("emu_stop", ctypes.c_void_p)]


def _load() -> ctypes.CDLL:
    try:
        return ctypes.CDLL(str(LIBRARY))
    except OSError as e:
        raise RuntimeError(f"{LIBRARY} is missing or unloadable: run `make -C kernel_model` ({e})") from None


_lib = None


def _hook_address() -> int:
    global _lib
    if _lib is None:
        _lib = _load()
    return ctypes.cast(_lib.slice_block_hook, ctypes.c_void_p).value


class Slicer:
    """One CPU's slice budget: installed once, then run() per slice."""

    def __init__(self, uc):
        self._uc = uc
        self._slice = _Slice(0, 0, ctypes.cast(uclib.uc_emu_stop, ctypes.c_void_p).value)
        handle = ctypes.c_size_t()
        # begin > end: every address
        err = uclib.uc_hook_add(uc._uch, ctypes.byref(handle), UC_HOOK_BLOCK,
                                ctypes.c_void_p(_hook_address()), ctypes.byref(self._slice),
                                ctypes.c_uint64(1), ctypes.c_uint64(0))
        if err:
            raise RuntimeError(f"uc_hook_add(UC_HOOK_BLOCK) failed: error {err}")

    def run(self, pc: int, budget_bytes: int, until: int = 0) -> int:
        """Run from pc until budget_bytes of code have been started (or a hook
        or `until` stops it); returns the bytes of the blocks executed."""
        s = self._slice
        s.left = budget_bytes
        s.executed = 0
        self._uc.emu_start(pc, until)
        return s.executed

    @property
    def executed(self) -> int:
        """Bytes executed so far in the current (or last) slice; hooks read it mid-slice."""
        return self._slice.executed
