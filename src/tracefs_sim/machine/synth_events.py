"""The host side of the guest's synthetic events (kernel_model/include/trace/synth.h): each
event's layout and enable bits in synth_events, where the guest's trace_synth() finds them.
Written with the CPUs stopped (Machine.with_cpus_stopped)."""
from __future__ import annotations

import errno
import struct
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .paging import PhysMem, kernel_virt_to_phys

if TYPE_CHECKING:
    from .machine import Machine


class GuestSynthEvents:
    """contract.GuestSynthOps over the guest's synth_events table."""

    def __init__(self, machine: Machine):
        self._machine = machine
        image = machine.image
        a = image.abi_value
        self._max = a("SYNTH_EVENTS_MAX")
        self._max_fields = a("SYNTH_FIELDS_MAX")
        self._size = a("sizeof(synth_event)")
        self._n_fields, self._sizes, self._kinds = a("synth_event.n_fields"), a("synth_event.size"), \
            a("synth_event.kind")
        self._file_slots, self._file_type = a("trace_event_file.slots"), a("trace_event_file.type")
        self._file_triggers = a("trace_event_file.triggers")
        self._slot_ext = a("TRACE_SLOT_EXT")   # word 0's summary bit of the slots past it
        table = image.abi_table("synth_events", self._max * self._size)
        self._table = kernel_virt_to_phys(table.addr)
        self.base = table.addr
        self._mem: PhysMem | None = None
        self._lock = threading.Lock()
        self._entries: dict[int, bytes] = {}  # index -> the entry as written (slots 0)
        self._slots: dict[int, int] = {}
        self._ids: dict[int, int] = {}        # index -> event id
        self._triggered: dict[int, int] = {}  # index -> the slots whose triggers it runs (a mask)

    def attach(self, mem: PhysMem) -> None:
        with self._lock:
            self._mem = mem
            for index in self._entries:
                self._write(index)

    def address(self, index: int) -> int:
        """The guest address of entry `index` (what trace_synth() takes)."""
        return self.base + index * self._size

    def add(self, event_id: int, fields: Sequence[tuple[int, int]], n_u64: int) -> int:
        """An event's entry, disabled: fields are (size, kind) in order; its index.
        OSError(ENOMEM): the table is full."""
        if len(fields) > self._max_fields:
            raise OSError(errno.EINVAL, "too many fields")
        with self._lock:
            index = next((i for i in range(self._max) if i not in self._entries), None)
            if index is None:
                raise OSError(errno.ENOMEM, "the guest's synthetic event table is full")
            entry = bytearray(self._size)
            struct.pack_into("<H", entry, self._file_type, event_id)
            struct.pack_into("<II", entry, self._n_fields, len(fields), n_u64)
            for i, (size, kind) in enumerate(fields):
                entry[self._sizes + i] = size
                entry[self._kinds + i] = kind
            self._entries[index] = bytes(entry)
            self._slots[index] = 0
            self._ids[index] = event_id
            self._write(index)
            return index

    def set_slots(self, index: int, slots: int) -> None:
        with self._lock:
            self._slots[index] = slots
            self._write(index)

    def remove(self, index: int) -> None:
        with self._lock:
            del self._entries[index]
            del self._slots[index]
            del self._ids[index]
            self._triggered.pop(index, None)
            mem = self._mem
            if mem is not None:
                self._machine.with_cpus_stopped(
                    lambda: mem.write(self._table + index * self._size, bytes(self._size)))

    def has_event(self, event_id: int) -> bool:
        with self._lock:
            return event_id in self._ids.values()

    def set_trigger_slots(self, slots_by_id: dict[int, set[int]]) -> None:
        """EVENT_FILE_FL_TRIGGER_MODE of every synthetic event: the slots whose triggers
        trace_synth() runs (called with the CPUs stopped)."""
        with self._lock:
            for index, event_id in self._ids.items():
                # word 0 of the slots; those past it by its summary bit (the table says which)
                bits = sum(1 << min(s, self._slot_ext) for s in slots_by_id.get(event_id, ()))
                if bits != self._triggered.get(index, 0):
                    self._triggered[index] = bits
                    if self._mem is not None:
                        self._mem.write(*self._entry(index))

    def _entry(self, index: int) -> tuple[int, bytes]:
        entry = bytearray(self._entries[index])
        struct.pack_into("<Q", entry, self._file_slots, self._slots[index])
        struct.pack_into("<Q", entry, self._file_triggers, self._triggered.get(index, 0))
        return self._table + index * self._size, bytes(entry)

    def _write(self, index: int) -> None:
        mem = self._mem
        if mem is None:
            return
        at, entry = self._entry(index)
        self._machine.with_cpus_stopped(lambda: mem.write(at, entry))
