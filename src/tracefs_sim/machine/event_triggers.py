"""The host side of the guest's event triggers (kernel_model/include/trace/trigger.h): the
triggers on each event in each trace-array slot, which the guest runs as the event fires
(event_triggers_call()), and each event file's `triggers` bits, which send the event there.

The table is written whole, in the order the triggers came, with the CPUs stopped
(Machine.with_cpus_stopped): the guest reads it as the events fire.
"""
from __future__ import annotations

import errno
import struct
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .contract import EventName
from .paging import PhysMem, kernel_virt_to_phys

if TYPE_CHECKING:
    from .machine import Machine

_TRIGGER = struct.Struct("<HBBI")  # struct event_trigger


@dataclass(frozen=True, eq=False)
class GuestTrigger:
    """One entry: a trigger of `kind` on the event of id `event_id` in `slot`."""
    event: EventName
    event_id: int
    kind: int
    slot: int
    data: int


class GuestEventTriggers:
    """contract.EventTriggerOps over the guest's event_triggers and the events' files."""

    def __init__(self, machine: Machine):
        self._machine = machine
        image = machine.image
        a = image.abi_value
        self._max = a("EVENT_TRIGGERS_MAX")
        self.EPROBE = a("ETT_EVENT_EPROBE")
        self._entries_at = a("event_triggers.t")
        self._file_triggers = a("trace_event_file.triggers")
        table = image.lookup("event_triggers")
        if table is None or table.size != a("sizeof(event_triggers)") or a("sizeof(event_trigger)") != _TRIGGER.size:
            raise ValueError("kernel image's event_triggers layout does not match this host")
        self._image = image
        self._table = kernel_virt_to_phys(table.addr)
        self._mem: PhysMem | None = None
        self._lock = threading.Lock()
        self._triggers: list[GuestTrigger] = []
        self._files: dict[int, int] = {}  # event file address -> its triggers bits, as written

    def attach(self, mem: PhysMem) -> None:
        with self._lock:
            self._mem = mem
            self._write()

    def add(self, event: EventName, event_id: int, kind: int, slot: int, data: int) -> GuestTrigger:
        """A trigger joins the event's (after those there); OSError(ENOMEM): the table is full."""
        trigger = GuestTrigger(event, event_id, kind, slot, data)
        with self._lock:
            if len(self._triggers) >= self._max:
                raise OSError(errno.ENOMEM, "the guest's trigger table is full")
            self._triggers.append(trigger)
            self._write()
        return trigger

    def remove(self, trigger: GuestTrigger) -> None:
        with self._lock:
            self._triggers.remove(trigger)
            self._write()

    def _write(self) -> None:
        if self._mem is None:
            return
        triggers = list(self._triggers)
        files: dict[int, int] = {}  # each event file's triggers bits
        for t in triggers:
            addr = self._image.event_file(t.event)
            files[addr] = files.get(addr, 0) | 1 << t.slot
        stale, self._files = self._files, files

        def write() -> None:
            buf = self._mem.buf
            struct.pack_into("<I", buf, self._table, 0)  # nr 0 while the entries change
            at = self._table + self._entries_at
            for i, t in enumerate(triggers):
                _TRIGGER.pack_into(buf, at + _TRIGGER.size * i, t.event_id, t.kind, t.slot, t.data)
            for addr in set(stale) | set(files):
                struct.pack_into("<I", buf, kernel_virt_to_phys(addr + self._file_triggers), files.get(addr, 0))
            struct.pack_into("<I", buf, self._table, len(triggers))
        self._machine.with_cpus_stopped(write)
