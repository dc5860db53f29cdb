"""The host side of the guest's event pid lists and fork following
(kernel_model/include/trace/trace_pid.h).

set_event_pid / set_event_notrace_pid of each trace-array slot are bitmaps
the guest checks when it writes an event, so a record is kept by the lists as
they were when it happened.  With options/event-fork (function-fork) on, the
guest adds a listed task's children to the slot's event (ftrace) lists at fork
and drops a task from them when it is freed; the host reads the lists back.
Every access here runs with the CPUs stopped (Machine.with_cpus_stopped): the guest
changes the bitmaps with plain read-modify-writes under its own lock.
"""
from __future__ import annotations

import struct
import threading

from typing import TYPE_CHECKING

from .paging import PhysMem, kernel_virt_to_phys

if TYPE_CHECKING:
    from .machine import Machine

# mirrors of trace_pid.h (pinned there by static asserts)
TRACE_SLOTS = 8
TRACE_PID_MAX = 32768
BITS_SIZE = TRACE_PID_MAX // 8
CONTROL_EVENT_PIDS, CONTROL_EVENT_NOTRACE_PIDS, CONTROL_EVENT_FORK, CONTROL_FUNCTION_FORK = 0, 4, 8, 12
CONTROL_PIDS = 16
CONTROL_NOTRACE_PIDS = CONTROL_PIDS + BITS_SIZE * TRACE_SLOTS
CONTROL_SIZE = CONTROL_NOTRACE_PIDS + BITS_SIZE * TRACE_SLOTS
_WORDS = BITS_SIZE // 8


class GuestPidLists:
    """contract.PidListOps over the guest's trace_pid_control."""

    def __init__(self, machine: Machine):
        self._machine = machine
        control = machine.image.lookup("trace_pid_control")
        if control is None or control.size != CONTROL_SIZE:
            raise ValueError("kernel image's trace_pid_control layout does not match this host")
        self._control = kernel_virt_to_phys(control.addr)
        self._mem: PhysMem | None = None
        self._lock = threading.Lock()
        # Until the guest's memory exists, and for pids no guest task can have (the guest's
        # bitmap covers the pids it allocates): (slot, notrace) -> the list, None for none.
        self._lists: dict[tuple[int, bool], frozenset[int] | None] = {}
        self._fork = {CONTROL_EVENT_FORK: 0, CONTROL_FUNCTION_FORK: 0}

    def set_event_pids(self, slot: int, notrace: bool, pids: frozenset[int] | None) -> None:
        """Replace a list; None: no list (every task's events pass it)."""
        _check_slot(slot)
        with self._lock:
            self._lists[(slot, notrace)] = None if pids is None else frozenset(pids)
            if self._mem is not None:
                self._machine.with_cpus_stopped(lambda: self._write_list(slot, notrace))

    def event_pids(self, slot: int, notrace: bool) -> frozenset[int] | None:
        """The list as it is now (forks and frees change it while event-fork is on)."""
        _check_slot(slot)
        with self._lock:
            kept = self._lists.get((slot, notrace))
            if self._mem is None or kept is None:
                return kept
            guest = self._machine.with_cpus_stopped(lambda: self._read_list(slot, notrace))
            return guest | frozenset(pid for pid in kept if pid >= TRACE_PID_MAX)

    def set_event_fork(self, slot: int, on: bool) -> None:
        self._set_fork(CONTROL_EVENT_FORK, slot, on)

    def set_function_fork(self, slot: int, on: bool) -> None:
        self._set_fork(CONTROL_FUNCTION_FORK, slot, on)

    def _set_fork(self, offset: int, slot: int, on: bool) -> None:
        _check_slot(slot)
        with self._lock:
            mask = self._fork[offset] & ~(1 << slot) | int(on) << slot
            self._fork[offset] = mask
            if self._mem is not None:
                self._machine.with_cpus_stopped(lambda: struct.pack_into("<I", self._mem.buf, self._control + offset, mask))

    def attach(self, mem: PhysMem) -> None:
        """The guest's RAM is loaded (before any CPU runs): write the state set so far."""
        with self._lock:
            self._mem = mem
            for slot, notrace in list(self._lists):
                self._write_list(slot, notrace)
            for offset, mask in self._fork.items():
                struct.pack_into("<I", mem.buf, self._control + offset, mask)

    def _bits(self, slot: int, notrace: bool) -> int:
        return self._control + (CONTROL_NOTRACE_PIDS if notrace else CONTROL_PIDS) + slot * BITS_SIZE

    def _write_list(self, slot: int, notrace: bool) -> None:
        pids = self._lists.get((slot, notrace))
        words = [0] * _WORDS
        for pid in pids or ():
            if pid < TRACE_PID_MAX:
                words[pid // 64] |= 1 << pid % 64
        buf = self._mem.buf
        struct.pack_into(f"<{_WORDS}Q", buf, self._bits(slot, notrace), *words)
        present = self._control + (CONTROL_EVENT_NOTRACE_PIDS if notrace else CONTROL_EVENT_PIDS)
        mask = struct.unpack_from("<I", buf, present)[0] & ~(1 << slot) | int(pids is not None) << slot
        struct.pack_into("<I", buf, present, mask)

    def _read_list(self, slot: int, notrace: bool) -> frozenset[int]:
        words = struct.unpack_from(f"<{_WORDS}Q", self._mem.buf, self._bits(slot, notrace))
        pids = []
        for i, word in enumerate(words):
            while word:
                low = word & -word
                pids.append(64 * i + low.bit_length() - 1)
                word ^= low
        return frozenset(pids)


def _check_slot(slot: int) -> None:
    if not 0 <= slot < TRACE_SLOTS:
        raise ValueError(f"slot {slot} out of range 0..{TRACE_SLOTS - 1}")
