"""The host side of the guest's event triggers (kernel_model/include/trace/trigger.h).

The trace core hands over every trigger of every trace array; this module writes them as
the guest's table (sorted by event type, each type's in the order given), with every CPU
stopped since the guest decrements the counts (a count taken in between would be lost),
sets the triggered slots' bits in the events' trace_event_file, and reads back the counts
and the snapshots the guest's snapshot triggers asked for.
"""
from __future__ import annotations

import errno
import struct
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .contract import GuestTrigger, TriggerCount
from .paging import PhysMem, kernel_virt_to_phys

if TYPE_CHECKING:
    from .machine import Machine

_CMDS = ("traceon", "traceoff", "stacktrace", "snapshot", "enable_event", "disable_event", "hist", "enable_hist",
         "disable_hist", "event_eprobe")
_KINDS = ("never", "num", "cpu", "comm", "str", "dyn_str", "ptr_str", "ptr_ustr")
_NUM_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "band")
_STR_OPS = ("full", "front", "middle", "end", "glob")
_TRIGGER = struct.Struct("<HBBHHHHIQ")      # struct event_trigger
_PRED = struct.Struct("<BBBBBBHHHIQ")       # struct trigger_pred


class GuestEventTriggers:
    """contract.EventTriggerOps over the guest's event_triggers."""

    def __init__(self, machine: Machine, set_trigger_bits: Callable[[dict[tuple[str, str], set[int]], dict[tuple[str, str], int]], None],
                 set_soft_ext: Callable[[int, int, bool], None], soft_ext: Callable[[int, int], bool]):
        """set_trigger_bits(event key -> slots): the events' EVENT_FILE_FL_TRIGGER_MODE bits
        (GuestTracing keeps them with the rest of the files' state); set_soft_ext(id, slot,
        off) and soft_ext(id, slot): a dynamic event's soft mode in a slot past word 0 (a bit
        of its type's extension words, which GuestTracing keeps)."""
        self._machine = machine
        image = machine.image
        self._image = image
        a = image.abi_value
        # A trace_event_file's `triggers` is the u64 after its `slots`: the trace core keeps both
        # as one number, slot s's trigger bit at shift + s (its guest writers split it).
        self.shift = 8 * (a("trace_event_file.triggers") - a("trace_event_file.slots"))
        self.slot_ext = a("TRACE_SLOT_EXT")   # the triggers word's bit of every slot past word 0
        self._types = a("EVENT_TRIGGER_TYPES")
        self._max = a("EVENT_TRIGGERS_MAX")
        self._preds_max = a("EVENT_TRIGGER_PREDS_MAX")
        self._strings_max = a("EVENT_TRIGGER_STRINGS")
        self._reqs = a("EVENT_SNAPSHOT_REQS")
        self._cmd = {name: a(f"ETT_{name.upper()}") for name in _CMDS}
        self._cmd["eprobe"] = self._cmd.pop("event_eprobe")
        self._kind = {name: a(f"TPK_{name.upper()}") for name in _KINDS}
        self._op = {**{name: a(f"TPO_{name.upper()}") for name in _NUM_OPS},
                    **{name: a(f"TPO_MATCH_{name.upper()}") for name in _STR_OPS}}
        self._flag = {name: a(f"ETF_{name.upper()}") for name in ("counted", "post", "cond", "paused", "soft_word")}
        if a("sizeof(event_trigger)") != _TRIGGER.size or a("sizeof(trigger_pred)") != _PRED.size:
            raise ValueError("kernel image's event_trigger layout does not match this machine")
        self._first = a("event_triggers.first")
        self._counts = a("event_triggers.counts")
        self._snapshot = a("event_triggers.snapshot")
        self._snapshot_size = a("sizeof(event_snapshot_reqs)")
        self._table = a("event_triggers.trigger")
        self._preds = a("event_triggers.pred")
        self._strings = a("event_triggers.strings")
        self._soft_off = a("event_triggers.dyn_soft_off")
        table = image.abi_table("event_triggers")
        self._base = kernel_virt_to_phys(table.addr)
        self._soft_off_va = table.addr + self._soft_off
        self._set_trigger_bits = set_trigger_bits
        self._set_soft_ext, self._soft_ext = set_soft_ext, soft_ext
        self._mem: PhysMem | None = None
        self._lock = threading.Lock()
        self._triggers: list[GuestTrigger] = []
        self._count_index: dict[int, int] = {}     # id(count) -> its slot in the guest's counts
        self._snapshot_seen = [0] * a("TRACE_SLOTS")   # event_triggers.snapshot[]
        self._word_slots = a("TRACE_WORD_SLOTS")   # a dynamic event's soft_off word: word 0's slots
        self._soft_words: dict[int, int] = {}      # dyn_soft_off set before the guest was attached

    def attach(self, mem: PhysMem) -> None:
        with self._lock:
            self._mem = mem
            self._write_table(mem)
            for event_id, word in self._soft_words.items():
                struct.pack_into("<Q", mem.buf, self._base + self._soft_off + 8 * event_id, word)

    def set_triggers(self, triggers: Sequence[GuestTrigger]) -> None:
        triggers = sorted(triggers, key=lambda t: t.event_id)   # (stable: each event's order kept)
        if len(triggers) > self._max:
            raise OSError(errno.ENOMEM, "too many event triggers")
        if sum(len(t.preds) for t in triggers) > self._preds_max or \
                sum(len(p.string) + 1 for t in triggers for p in t.preds) > self._strings_max:
            raise OSError(errno.ENOMEM, "event trigger filters too large")
        for t in triggers:
            if not 0 <= t.event_id < self._types:
                raise OSError(errno.ENOMEM, f"event id {t.event_id} past the trigger table")
            if t.target is not None:
                self._check_type(t.target_id)
                if not t.target_dyn:
                    self._image.event_file(t.target)   # KeyError: not a tracepoint of this kernel

        def swap() -> None:
            with self._lock:
                self._take_counts()
                self._triggers = triggers
                self._count_index = {}
                for t in triggers:
                    if t.count is not None:
                        self._count_index.setdefault(id(t.count), len(self._count_index))
                if self._mem is not None:
                    self._write_table(self._mem)
            bits: dict[tuple[str, str], set[int]] = {}
            ids: dict[tuple[str, str], int] = {}
            for t in triggers:
                bits.setdefault((t.event.system, t.event.name), set()).add(t.slot)
                ids[(t.event.system, t.event.name)] = t.event_id
            self._set_trigger_bits(bits, ids)
        self._machine.with_cpus_stopped(swap)

    def _check_type(self, event_id: int) -> None:
        if not 0 <= event_id < self._types:
            raise OSError(errno.ENOMEM, f"event id {event_id} past the trigger table")

    def set_dyn_soft_disabled(self, event_id: int, slot: int, off: bool) -> None:
        """EVENT_FILE_FL_SOFT_DISABLED of a dynamic event (probe, synthetic) in a slot: its bit in the guest's
        dyn_soft_off word, or past word 0 its type's extension words' (OSError ENOMEM: an id
        past the table can have none)."""
        self._check_type(event_id)
        if slot >= self._word_slots:
            self._set_soft_ext(event_id, slot, off)
            return

        def apply() -> None:
            with self._lock:
                word = self._soft_word(event_id)
                word = word | 1 << slot if off else word & ~(1 << slot)
                self._soft_words[event_id] = word   # (for a guest not attached yet)
                if self._mem is not None:
                    struct.pack_into("<Q", self._mem.buf, self._base + self._soft_off + 8 * event_id, word)
        self._machine.guest_op(apply)

    def dyn_soft_disabled(self, event_id: int, slot: int) -> bool:
        if not 0 <= event_id < self._types:
            return False
        if slot >= self._word_slots:
            return self._soft_ext(event_id, slot)

        def read() -> bool:
            with self._lock:
                return bool(self._soft_word(event_id) >> slot & 1)
        return self._machine.guest_op(read)

    def _soft_word(self, event_id: int) -> int:
        """A dynamic event's soft_off word as the guest has it now (the guest's triggers flip it)."""
        if self._mem is None:
            return self._soft_words.get(event_id, 0)
        word: int = struct.unpack_from("<Q", self._mem.buf, self._base + self._soft_off + 8 * event_id)[0]
        return word

    def read_count(self, count: TriggerCount) -> int:
        def read() -> int:
            with self._lock:
                i = self._count_index.get(id(count))
                if i is None or self._mem is None:
                    return count.value
                value: int = struct.unpack_from("<q", self._mem.buf, self._base + self._counts + 8 * i)[0]
                return value
        return self._machine.guest_op(read)

    def snapshot_requests(self, slot: int) -> list[int]:
        """The times of the snapshots the slot's triggers asked for since the last call, oldest
        first (at most EVENT_SNAPSHOT_REQS of them: earlier ones are gone)."""
        def read() -> list[int]:
            with self._lock:
                if self._mem is None:
                    return []
                at = self._base + self._snapshot + self._snapshot_size * slot
                seq = struct.unpack_from("<Q", self._mem.buf, at)[0]
                seen = max(self._snapshot_seen[slot], seq - self._reqs)
                self._snapshot_seen[slot] = seq
                return [struct.unpack_from("<Q", self._mem.buf, at + 8 + 8 * (n % self._reqs))[0]
                        for n in range(seen, seq)]
        return self._machine.guest_op(read)

    def _take_counts(self) -> None:
        if self._mem is None:
            return
        for t in self._triggers:
            if t.count is not None:
                i = self._count_index[id(t.count)]
                t.count.value = struct.unpack_from("<q", self._mem.buf, self._base + self._counts + 8 * i)[0]

    def _write_table(self, mem: PhysMem) -> None:
        buf, base, triggers = mem.buf, self._base, self._triggers
        struct.pack_into("<I", buf, base, 0)   # no entry is valid while the table changes
        first = [len(triggers)] * self._types
        for k in reversed(range(len(triggers))):
            first[triggers[k].event_id] = k
        struct.pack_into(f"<{self._types}H", buf, base + self._first, *first)
        npred = nstr = 0
        for k, t in enumerate(triggers):
            flags = (self._flag["post"] * t.post | self._flag["cond"] * t.cond |
                     self._flag["paused"] * t.paused | self._flag["counted"] * (t.count is not None) |
                     self._flag["soft_word"] * t.target_dyn)
            counter = t.data  # an eprobe's record program; a counted trigger's count below
            if t.count is not None:
                counter = self._count_index[id(t.count)]
                struct.pack_into("<q", buf, base + self._counts + 8 * counter, t.count.value)
            if t.target_dyn:      # a dynamic event's soft_off word
                file = self._soft_off_va + 8 * t.target_id
            else:
                file = t.hist or (self._image.event_file(t.target) if t.target is not None else 0)
            _TRIGGER.pack_into(buf, base + self._table + _TRIGGER.size * k, t.event_id, self._cmd[t.cmd], flags,
                               t.slot, npred, len(t.preds), t.target_id, counter, file)
            for p in t.preds:
                _PRED.pack_into(buf, base + self._preds + _PRED.size * npred, self._kind[p.kind], self._op[p.op],
                                p.size & 0xFF, int(p.is_signed), int(p.when_to_branch), int(p.negate), p.target,
                                p.offset, len(p.string), nstr, p.value & 0xFFFFFFFFFFFFFFFF)
                buf[base + self._strings + nstr:base + self._strings + nstr + len(p.string) + 1] = p.string + b"\0"
                nstr += len(p.string) + 1
                npred += 1
        struct.pack_into("<I", buf, base, len(triggers))
