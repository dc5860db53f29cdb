"""The host side of the guest's event pid lists and fork following
(kernel_model/include/trace/trace_pid.h).

set_event_pid / set_event_notrace_pid of each trace-array slot are bitmaps
(the top level's static, an instance's allocated with its buffers: the guest's
pointers say where) the guest checks when it writes an event, so a record is kept by the lists as
they were when it happened.  With options/event-fork (function-fork) on, the
guest adds a listed task's children to the slot's event (ftrace) lists at fork
and drops a task from them when it is freed; the host reads the lists back.
Every access here runs with the CPUs stopped (Machine.with_cpus_stopped): the guest
changes the bitmaps with plain read-modify-writes under its own lock.  The masks of slots
with lists, of event-fork and of function-fork are sets of slots (include/trace/slots.h: word
0, whose top bit says an extension word has a slot, then the extension words).
"""
from __future__ import annotations

import struct
import threading

from typing import TYPE_CHECKING

from .paging import PhysMem, kernel_virt_to_phys

if TYPE_CHECKING:
    from .machine import Machine

_U64 = struct.Struct("<Q")
_WORD = (1 << 64) - 1


class GuestPidLists:
    """contract.PidListOps over the guest's trace_pid_control."""

    def __init__(self, machine: Machine):
        self._machine = machine
        image = machine.image
        a = image.abi_value
        # the layout of struct trace_pid_control (trace_pid.h), from the image's host ABI
        self._slots = a("TRACE_SLOTS")
        self._slot_words = a("TRACE_SLOT_WORDS")
        self._slot_ext = a("TRACE_SLOT_EXT")   # word 0's summary bit (no slot of its own)
        self._pid_max = a("TRACE_PID_MAX")  # the guest's bitmaps cover the pids below it
        self._bits_size = a("sizeof(trace_pid_bits)")
        self._words = self._bits_size // 8
        self._event_pids = a("trace_pid_control.event_pids")
        self._event_notrace_pids = a("trace_pid_control.event_notrace_pids")
        self._pids = a("trace_pid_control.pids")
        self._notrace_pids = a("trace_pid_control.notrace_pids")
        control = image.abi_table("trace_pid_control")
        self._control = kernel_virt_to_phys(control.addr)
        self._mem: PhysMem | None = None
        self._lock = threading.Lock()
        # Until the guest's memory exists, and for pids no guest task can have (the guest's
        # bitmap covers the pids it allocates): (slot, notrace) -> the list, None for none.
        self._lists: dict[tuple[int, bool], frozenset[int] | None] = {}
        # options/event-fork and function-fork: the offset of their mask -> the mask
        self._event_fork = a("trace_pid_control.event_fork")
        self._function_fork = a("trace_pid_control.function_fork")
        self._fork = {self._event_fork: 0, self._function_fork: 0}
        # each mask's extension words
        self._ext = {self._event_pids: a("trace_pid_control.event_pids_ext"),
                     self._event_notrace_pids: a("trace_pid_control.event_notrace_pids_ext"),
                     self._event_fork: a("trace_pid_control.event_fork_ext"),
                     self._function_fork: a("trace_pid_control.function_fork_ext")}

    def set_event_pids(self, slot: int, notrace: bool, pids: frozenset[int] | None) -> None:
        """Replace a list; None: no list (every task's events pass it)."""
        self._check_slot(slot)
        with self._lock:
            self._lists[(slot, notrace)] = None if pids is None else frozenset(pids)
            mem = self._mem
            if mem is not None:
                self._machine.with_cpus_stopped(lambda: self._write_list(mem, slot, notrace))

    def event_pids(self, slot: int, notrace: bool) -> frozenset[int] | None:
        """The list as it is now (forks and frees change it while event-fork is on)."""
        self._check_slot(slot)
        with self._lock:
            kept = self._lists.get((slot, notrace))
            mem = self._mem
            if mem is None or kept is None:
                return kept
            guest = self._machine.with_cpus_stopped(lambda: self._read_list(mem, slot, notrace))
            return guest | frozenset(pid for pid in kept if pid >= self._pid_max)

    def set_event_fork(self, slot: int, on: bool) -> None:
        self._set_fork(self._event_fork, slot, on)

    def set_function_fork(self, slot: int, on: bool) -> None:
        self._set_fork(self._function_fork, slot, on)

    def _set_fork(self, offset: int, slot: int, on: bool) -> None:
        self._check_slot(slot)
        with self._lock:
            mask = self._fork[offset] & ~(1 << slot) | int(on) << slot
            self._fork[offset] = mask
            mem = self._mem
            if mem is not None:
                self._machine.with_cpus_stopped(lambda: self._write_mask(mem, offset, mask))

    def attach(self, mem: PhysMem) -> None:
        """The guest's RAM is loaded (before any CPU runs): write the state set so far."""
        with self._lock:
            self._mem = mem
            for slot, notrace in list(self._lists):
                self._write_list(mem, slot, notrace)
            for offset, mask in self._fork.items():
                self._write_mask(mem, offset, mask)

    def forget(self, slot: int) -> None:
        """A new instance's slot: no lists, no fork following (its bitmaps start empty)."""
        self._check_slot(slot)
        with self._lock:
            self._lists.pop((slot, False), None)
            self._lists.pop((slot, True), None)
            for offset in self._fork:
                self._fork[offset] &= ~(1 << slot)

    def _bits(self, mem: PhysMem, slot: int, notrace: bool) -> int | None:
        """The slot's bitmap (physical), None while the slot has none (no instance)."""
        table = self._control + (self._notrace_pids if notrace else self._pids)
        va: int = _U64.unpack_from(mem.buf, table + 8 * slot)[0]
        return kernel_virt_to_phys(va) if va else None

    def _write_list(self, mem: PhysMem, slot: int, notrace: bool) -> None:
        pids = self._lists.get((slot, notrace))
        words = [0] * self._words
        for pid in pids or ():
            if pid < self._pid_max:
                words[pid // 64] |= 1 << pid % 64
        buf = mem.buf
        bits = self._bits(mem, slot, notrace)
        if bits is None and pids is not None:
            return  # no bitmap to check against: the guest must not look for one
        if bits is not None:
            struct.pack_into(f"<{self._words}Q", buf, bits, *words)
        present = self._event_notrace_pids if notrace else self._event_pids
        mask = self._read_mask(mem, present) & ~(1 << slot) | int(pids is not None) << slot
        self._write_mask(mem, present, mask)

    def _read_mask(self, mem: PhysMem, offset: int) -> int:
        """A set of slots the host keeps in trace_pid_control (bit s: slot s)."""
        ext = self._ext[offset]
        mask: int = _U64.unpack_from(mem.buf, self._control + offset)[0] & ~(1 << self._slot_ext)
        for i in range(self._slot_words - 1):
            mask |= _U64.unpack_from(mem.buf, self._control + ext + 8 * i)[0] << 64 * (i + 1)
        return mask

    def _write_mask(self, mem: PhysMem, offset: int, mask: int) -> None:
        """Word 0 (its summary bit set when an extension word has a slot), the extension words."""
        ext = self._ext[offset]
        words = [mask >> 64 * i & _WORD for i in range(self._slot_words)]
        word0 = words[0] & ~(1 << self._slot_ext) | int(any(words[1:])) << self._slot_ext
        for i, word in enumerate(words[1:]):   # before word 0: a writer that sees its summary finds them
            _U64.pack_into(mem.buf, self._control + ext + 8 * i, word)
        _U64.pack_into(mem.buf, self._control + offset, word0)

    def _read_list(self, mem: PhysMem, slot: int, notrace: bool) -> frozenset[int]:
        bits = self._bits(mem, slot, notrace)
        if bits is None:
            return frozenset()
        words = struct.unpack_from(f"<{self._words}Q", mem.buf, bits)
        pids = []
        for i, word in enumerate(words):
            while word:
                low = word & -word
                pids.append(64 * i + low.bit_length() - 1)
                word ^= low
        return frozenset(pids)

    def _check_slot(self, slot: int) -> None:
        if not 0 <= slot < self._slots or slot == self._slot_ext:
            raise ValueError(f"slot {slot} out of range 0..{self._slots - 1} (or word 0's summary bit)")
