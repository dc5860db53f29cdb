"""The host side of the guest's tracepoints (kernel_model/include/trace/ring.h).

The guest writes each event into a small ring of Linux-layout data pages per
(trace-array slot, CPU); this module flips the events' enable bits and static
keys, and takes the committed pages out without stopping the emulation: it
reads a ring's `seq`, then each page's `commit`, then [0, commit) of the page
(the guest stores commit after the bytes it covers), and hands pages back by
advancing `released` (the guest never reuses a page the host still holds; a
full ring makes it count the event as lost).  On a seeded machine every
operation here acts while the machine is paused (Machine.guest_op), so when
it happens is part of the deterministic run.
"""
from __future__ import annotations

import errno
import os
import struct
import threading
from dataclasses import dataclass

from typing import TYPE_CHECKING

from .contract import MARKER_EVENT, EventName
from .event_triggers import GuestEventTriggers
from .ftrace_dump import GuestFtraceDump
from .tracing_map import GuestHistMaps
from .image import EventDesc, KernelImage
from .paging import PhysMem, kernel_virt_to_phys
from .synth_events import GuestSynthEvents
from .trace_pids import GuestPidLists

if TYPE_CHECKING:
    from .machine import Machine

JMP_REL32 = 0xE9
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_WORD = (1 << 64) - 1


def _slots_of(mask: int) -> list[int]:
    """The slots of a set (bit s: slot s), lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass(frozen=True)
class RingLayout:
    """Where the guest keeps its rings (include/trace/ring.h), from the image's host ABI:
    trace_control's recording bits (a set of slots: include/trace/slots.h), rings per (slot,
    cpu), each with a pointer to its data pages, and tracing_cpumasks; the events'
    trace_event_file; saved_cmdlines."""

    slots: int  # TRACE_SLOTS
    slot_words: int  # TRACE_SLOT_WORDS: the u64 words of a set of slots
    slot_ext: int  # TRACE_SLOT_EXT: word 0's bit for "an extension word has a slot set"
    word_slots: int  # TRACE_WORD_SLOTS: word 0's (its slots' rings are in trace_control)
    ext_types: int  # TRACE_EXT_TYPES: event types with extension words (trace_event_ext)
    nr_cpus: int  # NR_CPUS: what the tables are sized for (the machine may run fewer)
    ring_pages: int  # TRACE_RING_PAGES
    page_size: int  # sizeof(struct buffer_data_page)
    page_header: int  # BUF_PAGE_HDR_SIZE
    page_commit: int
    ring_size: int
    ring_seq: int
    ring_released: int
    ring_lost: int
    ring_closed: int
    ring_reset_req: int
    ring_page_base: int  # the ring's data pages (kernel virtual; 0: the slot has no buffers)
    ring_page_lost: int
    control_size: int
    control_recording: int
    control_rings: int
    control_cpu_slots: int
    control_stack_opts: int     # options/stacktrace bits
    control_ustack_opts: int    # options/userstacktrace bits
    control_stack_slots: int    # the slots with either
    control_recording_ext: int  # recording's extension words
    control_cpu_slots_ext: int  # [NR_CPUS][TRACE_SLOT_WORDS - 1]: cpu_slots' extension words
    control_ext_rings: int      # [TRACE_SLOTS]: an extension slot's rings (kernel virtual; 0: none)
    control_stack_opts_ext: int   # stack_opts' extension words
    control_ustack_opts_ext: int  # ustack_opts' extension words
    file_slots: int
    file_triggers: int
    file_type: int
    saved_cmdlines: int  # SAVED_CMDLINES
    saved_cmdline_size: int
    saved_cmdlines_size: int
    saved_cmdlines_entry: int
    comm_renames: int  # COMM_RENAMES
    comm_rename_size: int
    saved_cmdlines_renames: int
    saved_cmdlines_renames_next: int

    @classmethod
    def of(cls, image: KernelImage) -> RingLayout:
        a = image.abi_value
        return cls(
            a("TRACE_SLOTS"), a("TRACE_SLOT_WORDS"), a("TRACE_SLOT_EXT"), a("TRACE_WORD_SLOTS"),
            a("TRACE_EXT_TYPES"), a("NR_CPUS"), a("TRACE_RING_PAGES"), a("sizeof(buffer_data_page)"),
            a("BUF_PAGE_HDR_SIZE"), a("buffer_data_page.commit"), a("sizeof(trace_ring)"), a("trace_ring.seq"),
            a("trace_ring.released"), a("trace_ring.lost"), a("trace_ring.closed"), a("trace_ring.reset_req"),
            a("trace_ring.pages"), a("trace_ring.page_lost"), a("sizeof(trace_control)"),
            a("trace_control.recording"), a("trace_control.rings"), a("trace_control.cpu_slots"),
            a("trace_control.stack_opts"), a("trace_control.ustack_opts"), a("trace_control.stack_slots"),
            a("trace_control.recording_ext"), a("trace_control.cpu_slots_ext"), a("trace_control.ext_rings"),
            a("trace_control.stack_opts_ext"), a("trace_control.ustack_opts_ext"),
            a("trace_event_file.slots"), a("trace_event_file.triggers"), a("trace_event_file.type"), a("SAVED_CMDLINES"), a("sizeof(saved_cmdline)"),
            a("sizeof(saved_cmdlines)"), a("saved_cmdlines.entry"), a("COMM_RENAMES"),
            a("sizeof(comm_rename)"), a("saved_cmdlines.renames"), a("saved_cmdlines.renames_next"))

    def ring(self, slot: int, cpu: int) -> int:
        """The (slot, cpu) ring's offset in trace_control (a slot of word 0)."""
        return self.control_rings + (slot * self.nr_cpus + cpu) * self.ring_size

    def words(self, slots: int) -> list[int]:
        """A set of slots (bit s: slot s) as the guest keeps it: word 0, its bit slot_ext set
        when any extension slot is, then the extension words."""
        ext = [slots >> 64 * i & _WORD for i in range(1, self.slot_words)]
        return [slots & _WORD & ~(1 << self.slot_ext) | any(ext) << self.slot_ext, *ext]

    def page(self, pages: int, seq: int) -> int:
        """The kernel virtual address of the page with sequence number seq of a ring whose
        pages start at `pages`."""
        return pages + (seq % self.ring_pages) * self.page_size


@dataclass(frozen=True)
class GuestPage:
    cpu: int
    seq: int  # per (slot, cpu), from 0; returned again with more data until `complete`
    data: bytes  # the 4096-byte page as the guest wrote it; bytes past commit are 0
    complete: bool  # the writer moved past this page: it will not change again
    lost: int  # events the guest could not record before this page (its ring was full)


# How long a CPU whose ring is full waits for the drain (a drain that is stuck or gone must not
# stop the machine: the events are then counted lost, as before the wait).
_RING_FULL_WAIT_S = 0.5


class GuestTracing:
    """The guest half of tracing (contract.GuestTracingOps)."""

    def __init__(self, machine: Machine):
        self._machine = machine
        image: KernelImage = machine.image
        self._image = image
        self.layout = layout = RingLayout.of(image)
        self.nr_slots = layout.slots
        # Instances get every slot but 0, the top level's, and 63, word 0's summary bit: word
        # 0's first, then the extension words' (whose events, probe events and function
        # tracers record through the writers' slow paths, trace_event_buffer_reserve_ext()).
        self.instance_slots = tuple(s for s in range(1, layout.slots) if s != layout.slot_ext)
        # the extension words of the event types' file slots (trace_event_ext)
        self._event_ext = kernel_virt_to_phys(image.abi_table(
            "trace_event_ext", layout.ext_types * (layout.slot_words - 1) * 8).addr)
        self._nr_cpus = machine.nr_cpus
        control = image.abi_table("trace_control", layout.control_size)
        saved = image.abi_table("saved_cmdlines", layout.saved_cmdlines_size)
        self._saved_cmdlines = kernel_virt_to_phys(saved.addr)
        self._cmdline_key = image.addr("trace_cmdline_key")
        self._control = kernel_virt_to_phys(control.addr)
        self._mem: PhysMem | None = None
        # set_event_pid lists and fork following, checked and kept up by the guest
        self.pid_lists = GuestPidLists(machine)
        # event triggers, run by the events' writers; their slots' bits are in the event files
        self.triggers = GuestEventTriggers(machine, self._set_trigger_bits, self._set_dyn_soft_ext,
                                           self._dyn_soft_ext)
        self._triggered: dict[tuple[str, str], set[int]] = {}
        self.hist_maps = GuestHistMaps(machine)
        # the synthetic events' layouts, for the guest's trace_synth()
        self.synth_events = GuestSynthEvents(machine)
        # the dump and cpudump function commands' text, printed by the kernel
        self.ftrace_dump = GuestFtraceDump(image, machine.guest_op, machine.raise_call_function)
        self._lock = threading.Lock()
        self._data = threading.Condition()
        self._pending = False
        # desired state, kept here so it survives until the guest's memory exists
        self._ids: dict[tuple[str, str], int] = {}
        self._enabled: dict[tuple[str, str], set[int]] = {}
        self._soft_off: dict[tuple[str, str], set[int]] = {}   # soft-disabled slots of enabled events
        self._events: dict[tuple[str, str], EventDesc] = {}
        self._dyn_ext: dict[int, int] = {}   # a dynamic event's type -> its slots (past word 0: trace_event_ext)
        self._dyn_soft: dict[int, int] = {}  # ... and its soft-disabled slots past word 0 (while not enabled)
        self._keys_on: set[int] = set()
        self._cmdline_holders: set[object] = set()
        self._recording = [False] * layout.slots
        self._cpumasks = [(1 << layout.nr_cpus) - 1] * layout.slots   # tracing_cpumask of each slot
        self._stopped = [False] * layout.slots   # tracing_stop(): a reader holds the slot silent
        self._stack_opts = 0    # trace_control.stack_opts: the slots' stacktrace options
        self._ustack_opts = 0   # trace_control.ustack_opts: their userstacktrace options
        # per (slot, cpu): pages below this seq were dropped by reset()
        self._skip = [[0] * self._nr_cpus for _ in range(layout.slots)]
        self._resets = [[0] * self._nr_cpus for _ in range(layout.slots)]
        self._open = {0}   # slots with buffers in the guest: the top level's, the instances' made

    # ---- the machine calls these ----
    def attach(self, mem: PhysMem) -> None:
        """The guest's RAM is loaded (before any CPU runs): write the state set so far."""
        self.pid_lists.attach(mem)
        self.triggers.attach(mem)
        self.hist_maps.attach(mem)
        self.synth_events.attach(mem)
        self.ftrace_dump.attach(mem)
        with self._lock:
            self._mem = mem
            for key, event_id in self._ids.items():
                self._write_file(self._events[key], self.layout.file_type, "<H", event_id)
            for key in self._enabled.keys() | self._triggered.keys():
                self._write_file_slots(key)
                self._write_file(self._events[key], self.layout.file_triggers, "<Q",
                                 self.layout.words(self._mask(self._triggered.get(key, set())))[0])
            for event_id, slots in self._dyn_ext.items():
                self._write_dyn_ext(event_id, slots)
            self._write_recording()
            self._write_cpumasks()
            self._write_stack_opts()
            for key_addr in self._keys_on:
                for code, data in self._key_patch(key_addr, True):
                    mem.write(kernel_virt_to_phys(code), data)

    def doorbell(self) -> None:
        """PORT_TRACE: a page filled, or a tick found committed data."""
        if self._pending:
            # The drain is already called: it clears the flag before it reads the rings, so
            # it reads what was committed before this doorbell too. (Most doorbells land here:
            # waking a thread again costs the machine thread more than the check.)
            return
        with self._data:
            self._pending = True
            self._data.notify_all()

    def ring_full(self, slot: int, cpu: int) -> None:
        """PORT_TRACE_FULL: the CPU's ring of the slot is full. A live machine waits, a bounded
        while, for the drain to hand pages back, so that records are not lost on their way to
        the buffer; a seeded one does not (its drain acts while the machine is paused)."""
        if self._machine.options.seed is not None or self._mem is None or not 0 <= slot < self.nr_slots:
            return
        buf, lay, maybe_ring = self._mem.buf, self.layout, self._ring(slot, cpu)
        if maybe_ring is None:
            return
        ring = maybe_ring

        def room() -> bool:
            seq: int = _U64.unpack_from(buf, ring + lay.ring_seq)[0]
            released: int = _U64.unpack_from(buf, ring + lay.ring_released)[0]
            return seq + 1 - released < lay.ring_pages
        with self._data:
            self._pending = True
            self._data.notify_all()
            self._data.wait_for(room, _RING_FULL_WAIT_S)

    def cpu_idle(self, trace_pending_pa: int) -> None:
        """A CPU is about to halt: it takes no ticks, so pick up its pending flag here."""
        buf = self._ram().buf
        if struct.unpack_from("<I", buf, trace_pending_pa)[0]:
            struct.pack_into("<I", buf, trace_pending_pa, 0)
            self.doorbell()

    # ---- the contract ----
    def set_event_id(self, event: EventName, event_id: int) -> None:
        self.set_event_ids([(event, event_id)])

    def set_event_ids(self, ids: list[tuple[EventName, int]]) -> None:
        """Several events' ids in one guest operation (all of the kernel's at start-up)."""
        for event, event_id in ids:
            if not 0 <= event_id <= 0xFFFF:
                raise ValueError(f"event id {event_id} does not fit common_type")
        keys = [self._remember(event) for event, _ in ids]

        def apply() -> None:
            with self._lock:
                for key, (event, event_id) in zip(keys, ids):
                    self._ids[key] = event_id
                    self._write_file(event, self.layout.file_type, "<H", event_id)
                    if key in self._enabled:
                        self._write_file_slots(key)   # its extension words are its type's
        self._machine.guest_op(apply)

    def enable_event(self, event: EventName, slot: int, on: bool) -> None:
        self._check_slot(slot, on)
        key = self._remember(event)
        if on and slot >= self.layout.word_slots and self._ext_words(key) is None:
            # no extension words for its type: the kernel has no room for the slot's bit
            raise OSError(errno.ENOMEM, f"{event.system}:{event.name}: no extension slots for its type")
        self._machine.guest_op(lambda: self._enable(self._events[key], key, slot, on))

    def _enable(self, event: EventDesc, key: tuple[str, str], slot: int, on: bool) -> None:
        with self._lock:
            slots = self._enabled.setdefault(key, set())
            (slots.add if on else slots.discard)(slot)
            self._set_file_bit(event, slot, on and slot not in self._soft_off.get(key, ()))
            # syscalls:* share raw_syscalls' key: it is on while any of them is
            self._set_key(event.key_addr, any(
                self._enabled.get(k) for k, e in self._events.items() if e.key_addr == event.key_addr))
            self._update_cmdline_key()

    def set_dyn_event_slots(self, event_id: int, slots: int) -> int:
        """The slots a dynamic event (kprobe, uprobe, eprobe, synthetic) records in: those past
        word 0 set in its type's row of trace_event_ext (where its writers find them, as a
        tracepoint's; a soft-disabled one's bit clear, as a tracepoint's); word 0 returned, for
        the event's own file (kg_probe, the synthetic event's entry), its summary bit set while
        a slot past it is in the set.  OSError ENOMEM: a slot past word 0 for a type without a
        row (ids from TRACE_EXT_TYPES on)."""
        words = self.layout.words(slots)
        if event_id >= self.layout.ext_types:
            if any(words[1:]):
                raise OSError(errno.ENOMEM, f"event type {event_id}: no extension slots for it")
            return words[0]

        def apply() -> None:
            with self._lock:
                before = self._dyn_ext.get(event_id, 0)
                for slot in _slots_of((before ^ slots) >> 64 << 64):
                    on = bool(slots >> slot & 1)
                    if not on:   # its soft mode as the guest's triggers left it
                        self._dyn_soft[event_id] = self._dyn_soft.get(event_id, 0) & ~(1 << slot) | \
                            int(self._dyn_soft_ext_now(event_id, slot)) << slot
                    self._set_dyn_row_bit(event_id, slot, on and not self._dyn_soft.get(event_id, 0) >> slot & 1)
                self._dyn_ext[event_id] = slots
                if not slots:
                    del self._dyn_ext[event_id]
        self._machine.guest_op(apply)
        return words[0]

    def _set_dyn_soft_ext(self, event_id: int, slot: int, off: bool) -> None:
        """EVENT_FILE_FL_SOFT_DISABLED of a dynamic event in a slot past word 0 (the trigger
        table's GuestEventTriggers asks): while the slot has it enabled, its bit in the type's
        row, clear while soft-disabled; kept here till then."""
        def apply() -> None:
            with self._lock:
                self._dyn_soft[event_id] = self._dyn_soft.get(event_id, 0) & ~(1 << slot) | int(off) << slot
                if self._dyn_ext.get(event_id, 0) >> slot & 1:
                    self._set_dyn_row_bit(event_id, slot, not off)
        self._machine.guest_op(apply)

    def _dyn_soft_ext(self, event_id: int, slot: int) -> bool:
        def read() -> bool:
            with self._lock:
                return self._dyn_soft_ext_now(event_id, slot)
        return self._machine.guest_op(read)

    def _dyn_soft_ext_now(self, event_id: int, slot: int) -> bool:
        """Soft-disabled: an enabled slot whose row bit the guest's triggers (or the host)
        cleared; a slot without the event enabled, as the host was last told."""
        if self._mem is not None and self._dyn_ext.get(event_id, 0) >> slot & 1:
            return not _U64.unpack_from(self._mem.buf, self._dyn_row(event_id) + 8 * (slot // 64 - 1))[0] >> slot % 64 & 1
        return bool(self._dyn_soft.get(event_id, 0) >> slot & 1)

    def _dyn_row(self, event_id: int) -> int:
        return self._event_ext + event_id * (self.layout.slot_words - 1) * 8

    def _set_dyn_row_bit(self, event_id: int, slot: int, on: bool) -> None:
        """One slot's bit in a dynamic event's row (the guest's triggers flip the others)."""
        if self._mem is not None:
            self._set_bit(self._dyn_row(event_id) + 8 * (slot // 64 - 1), slot % 64, on)

    def _write_dyn_ext(self, event_id: int, slots: int) -> None:
        soft = self._dyn_soft.get(event_id, 0)
        for i, word in enumerate(self.layout.words(slots & ~soft)[1:]):
            _U64.pack_into(self._ram().buf, self._dyn_row(event_id) + 8 * i, word)

    def event_file(self, event: EventName) -> int:
        """The guest address of the event's trace_event_file (KeyError: not a tracepoint of
        this kernel), for function probes that soft-enable it."""
        return self._image.event_file(event)

    def event_recording(self, event: EventName, slot: int) -> bool:
        """Whether the guest records the event in slot now (its bit in the event file: an
        enabled event in soft mode has it clear while soft-disabled, and function probes
        flip it in the guest)."""
        self._check_slot(slot)
        key = self._remember(event)

        def read() -> bool:
            if self._mem is None:
                return slot in self._enabled.get(key, ()) and slot not in self._soft_off.get(key, ())
            pa: int | None = kernel_virt_to_phys(self._image.event_file(event) + self.layout.file_slots)
            if slot >= self.layout.word_slots:
                ext = self._ext_words(key)
                pa = ext + 8 * (slot // 64 - 1) if ext is not None else None
            return pa is not None and bool(_U64.unpack_from(self._mem.buf, pa)[0] >> slot % 64 & 1)
        return self._machine.guest_op(read)

    def set_event_soft_disabled(self, event: EventName, slot: int, off: bool) -> None:
        """EVENT_FILE_FL_SOFT_DISABLED of an enabled event: its bit clear, the tracepoint
        still armed."""
        self._check_slot(slot)
        key = self._remember(event)

        def apply() -> None:
            with self._lock:
                soft = self._soft_off.setdefault(key, set())
                (soft.add if off else soft.discard)(slot)
                self._set_file_bit(event, slot, not off and slot in self._enabled.get(key, ()))
        self._machine.guest_op(apply)

    def _set_trigger_bits(self, bits: dict[tuple[str, str], set[int]], ids: dict[tuple[str, str], int]) -> None:
        """EVENT_FILE_FL_TRIGGER_MODE of every event: the slots whose triggers its writer runs
        (called with the CPUs stopped); a synthetic event's are in its synth_events entry."""
        synth = {ids[key]: slots for key, slots in bits.items() if self.synth_events.has_event(ids[key])}
        self.synth_events.set_trigger_slots(synth)
        # a probe event's are in its probes' entries (the trace core's ProbeEvent sets them)
        bits = {key: slots for key, slots in bits.items() if ids[key] not in synth and self._triggers_file(key)}
        with self._lock:
            for key in self._triggered.keys() | bits.keys():
                if self._mem is not None and self._triggered.get(key, set()) != bits.get(key, set()):
                    # word 0, the slots past it by its summary bit (the table's entries say which)
                    _U64.pack_into(self._mem.buf, kernel_virt_to_phys(self._triggers_file(key) + self.layout.file_triggers),
                                   self.layout.words(self._mask(bits.get(key, set())))[0])
            self._triggered = {key: set(slots) for key, slots in bits.items()}

    def _triggers_file(self, key: tuple[str, str]) -> int:
        """The trace_event_file whose triggers word its writer reads: a tracepoint's, or for
        ftrace/print the kernel's trace_marker_file (kernel/trace_marker.c); 0: neither."""
        if key == MARKER_EVENT:
            return self._image.addr("trace_marker_file")
        if key not in self._events:
            try:
                self._events[key] = self._image.event_desc(*key)
            except KeyError:
                return 0
        return self._image.event_file(self._events[key])

    def marker_triggers(self, slot: int, pid: int, text: bytes) -> None:
        """The triggers of slot's ftrace/print event on a write of text by pid to its
        trace_marker, run by the kernel (kernel/trace_marker.c); the write's record is the
        trace core's."""
        self._check_slot(slot)
        error = self._machine.trace_marker_request(slot, pid, text)
        if error:
            raise OSError(-error, os.strerror(-error))

    def record_cmdlines(self, holder: object, on: bool) -> None:
        """tracing_start/stop_cmdline_record(): something other than a tracepoint (a
        function tracer, a kprobe event) records while `holder` is on, so comms are saved."""
        def apply() -> None:
            with self._lock:
                (self._cmdline_holders.add if on else self._cmdline_holders.discard)(holder)
                self._update_cmdline_key()
        self._machine.guest_op(apply)

    def _update_cmdline_key(self) -> None:
        # the guest saves comms at switches and wake-ups while anything records, as Linux
        self._set_key(self._cmdline_key, any(self._enabled.values()) or bool(self._cmdline_holders))

    def _set_key(self, key_addr: int, on: bool) -> None:
        if on == (key_addr in self._keys_on):
            return
        (self._keys_on.add if on else self._keys_on.discard)(key_addr)
        for code, data in self._key_patch(key_addr, on):
            self._poke(code, data)

    def saved_comms(self) -> dict[int, str]:
        """pid -> comm of the tasks the guest saw switching or waking while an
        event was enabled (Linux's saved_cmdlines: its last SAVED_CMDLINES
        tasks), for naming tasks that exited before their events were read."""
        def read() -> dict[int, str]:
            if self._mem is None:
                return {}
            lay = self.layout
            raw = self._mem.read(self._saved_cmdlines + lay.saved_cmdlines_entry,
                                 lay.saved_cmdlines * lay.saved_cmdline_size)
            out: dict[int, str] = {}
            for pid, comm in struct.iter_unpack("<i16s", raw):
                if pid > 0:  # 0: unused, or being rewritten
                    out[pid] = comm.split(b"\0", 1)[0].decode(errors="replace")
            return out
        return self._machine.with_cpus_stopped(read)

    def comm_renames(self) -> list[tuple[int, int, str]]:
        """(pid, ts, comm before) of the last COMM_RENAMES renames (exec, PR_SET_NAME) while
        an event was enabled, oldest first: a record of pid stamped before ts was made under
        that comm (trace_cmdline.c)."""
        def read() -> list[tuple[int, int, str]]:
            if self._mem is None:
                return []
            lay = self.layout
            base = self._saved_cmdlines
            upto = struct.unpack("<I", self._mem.read(base + lay.saved_cmdlines_renames_next, 4))[0]
            raw = self._mem.read(base + lay.saved_cmdlines_renames, lay.comm_renames * lay.comm_rename_size)
            found = []
            for n in range(max(0, upto - lay.comm_renames), upto):
                pid, _, ts, comm = struct.unpack_from("<iIQ16s", raw, (n % lay.comm_renames) * lay.comm_rename_size)
                if pid > 0:  # 0: being rewritten
                    found.append((pid, ts, comm.split(b"\0", 1)[0].decode(errors="replace")))
            return found
        return self._machine.with_cpus_stopped(read)

    def set_recording(self, slot: int, on: bool) -> None:
        self._check_slot(slot, on)

        def apply() -> None:
            with self._lock:
                self._recording[slot] = bool(on)
                if self._mem is not None:
                    # only this slot's bit: the guest's traceon/traceoff probes flip the others
                    self._set_slot_bit(self._control + self.layout.control_recording,
                                       self._control + self.layout.control_recording_ext, slot, on)
        self._machine.guest_op(apply)

    @property
    def has_blk_tracer(self) -> bool:
        return self._image.lookup("blk_tracer_enabled") is not None

    def set_blk_tracer(self, on: bool) -> None:
        """blk_tracer_init()/blk_tracer_reset(): the kernel's blktrace probes write TRACE_BLK
        records into the top-level buffer while on (kernel/blktrace.c's blk_tracer_enabled)."""
        where = kernel_virt_to_phys(self._image.addr("blk_tracer_enabled"))

        def apply() -> None:
            if self._mem is not None:
                self._mem.write(where, bytes([on]))
        self._machine.guest_op(apply)

    def is_recording(self, slot: int) -> bool:
        """The slot's recording bit as the guest has it (traceon/traceoff probes flip it)."""
        self._check_slot(slot)

        def read() -> bool:
            if self._mem is None:
                return self._recording[slot]
            recording = self._control + self.layout.control_recording
            if slot >= self.layout.word_slots:
                recording = self._control + self.layout.control_recording_ext + 8 * (slot // 64 - 1)
            return bool(_U64.unpack_from(self._mem.buf, recording)[0] >> slot % 64 & 1)
        return self._machine.guest_op(read)

    def set_cpumask(self, slot: int, mask: int) -> None:
        """tracing_cpumask: the slot records only on the CPUs in mask."""
        self._check_slot(slot)

        def apply() -> None:
            with self._lock:
                self._cpumasks[slot] = mask
                self._write_cpumasks()
        self._machine.guest_op(apply)

    def set_stopped(self, slot: int, stopped: bool) -> None:
        """tracing_stop_tr()/tracing_start_tr() (pause-on-trace): the slot records on no CPU
        while stopped, whatever its tracing_on bit (which traceoff triggers may flip meanwhile)."""
        self._check_slot(slot)

        def apply() -> None:
            with self._lock:
                self._stopped[slot] = stopped
                self._write_cpumasks()
        self._machine.guest_op(apply)

    def set_stack_options(self, slot: int, kernel: bool, user: bool) -> None:
        """options/stacktrace and options/userstacktrace of a slot: its events' writers add a
        kernel_stack and a user_stack record after each record (ftrace_trace_stack/userstack)."""
        self._check_slot(slot)

        def apply() -> None:
            with self._lock:
                self._stack_opts = (self._stack_opts & ~(1 << slot)) | (bool(kernel) << slot)
                self._ustack_opts = (self._ustack_opts & ~(1 << slot)) | (bool(user) << slot)
                self._write_stack_opts()
        self._machine.guest_op(apply)

    def open_slot(self, slot: int) -> None:
        """instance_mkdir()'s buffers: the kernel allocates the slot's rings (for its online
        CPUs) and pid lists; OSError ENOMEM when it cannot, and nothing changed."""
        self._check_slot(slot)
        if slot == 0:
            return  # the top level's are the kernel's own
        if not self._machine.running:
            raise OSError(errno.ENOMEM, "the kernel is not running: no buffers")
        result = self._machine.trace_slot_request(slot, True)
        if result < 0:
            raise OSError(-result, os.strerror(-result))

        def fresh() -> None:
            with self._lock:
                # the kernel's rings start empty: so does what the host knows of them
                self._skip[slot] = [0] * self._nr_cpus
                self._resets[slot] = [0] * self._nr_cpus
                # and a new instance has every CPU and no stack options (not a removed one's)
                self._cpumasks[slot] = (1 << self.layout.nr_cpus) - 1
                self._stopped[slot] = False
                self._stack_opts &= ~(1 << slot)
                self._ustack_opts &= ~(1 << slot)
                self._write_cpumasks()
                self._write_stack_opts()
                self._open.add(slot)
        self._machine.guest_op(fresh)
        self.pid_lists.forget(slot)

    def close_slot(self, slot: int) -> None:
        """instance_rmdir()'s free: the slot's rings and pid lists go back to the kernel (every
        bit of the slot clear first: the trace array's shutdown)."""
        self._check_slot(slot)
        if slot == 0:
            return
        with self._lock:
            self._open.discard(slot)
        if self._machine.running:
            self._machine.trace_slot_request(slot, False)

    def drain(self, slot: int) -> list[GuestPage]:
        self._check_slot(slot)
        return self._machine.guest_op(lambda: self._drain(slot))

    def _drain(self, slot: int) -> list[GuestPage]:
        with self._data:
            self._pending = False
        out: list[GuestPage] = []
        with self._lock:
            if self._mem is None:
                return out
            buf, lay = self._mem.buf, self.layout
            for cpu in range(self._nr_cpus):
                ring = self._ring(slot, cpu)
                pages = _U64.unpack_from(buf, ring + lay.ring_page_base)[0] if ring is not None else 0
                if ring is None or not pages:
                    continue  # an instance's slot without buffers (not made, or taken down)
                seq = _U64.unpack_from(buf, ring + lay.ring_seq)[0]
                released = _U64.unpack_from(buf, ring + lay.ring_released)[0]
                closed = _U32.unpack_from(buf, ring + lay.ring_closed)[0]
                if _U64.unpack_from(buf, ring + lay.ring_seq)[0] != seq:
                    closed = 0  # the writer moved meanwhile: `closed` may be the next page's
                for s in range(max(released, self._skip[slot][cpu]), seq + 1):
                    page = kernel_virt_to_phys(lay.page(pages, s))
                    commit = _U64.unpack_from(buf, page + lay.page_commit)[0]
                    complete = s < seq or bool(closed)
                    if not commit and not complete:
                        continue
                    lost = _U64.unpack_from(buf, ring + lay.ring_page_lost + 8 * (s % lay.ring_pages))[0]
                    data = bytearray(buf[page:page + lay.page_header + commit].ljust(lay.page_size, b"\0"))
                    # the copy may hold a later commit than the bytes taken: state the one read
                    _U64.pack_into(data, lay.page_commit, commit)
                    out.append(GuestPage(cpu, s, bytes(data), complete, lost))
                done = seq + 1 if closed else seq  # complete pages go back to the guest
                if done > released:
                    _U64.pack_into(buf, ring + lay.ring_released, done)
        with self._data:
            self._data.notify_all()   # a CPU waiting in ring_full() may go on
        return out

    def reset(self, slot: int) -> None:
        """Forget the slot's undrained pages; the guest starts its next event on a fresh page."""
        self._check_slot(slot)
        self._machine.guest_op(lambda: self._reset(slot))

    def _reset(self, slot: int) -> None:
        with self._lock:
            if self._mem is None:
                return
            buf, lay = self._mem.buf, self.layout
            for cpu in range(self._nr_cpus):
                ring = self._ring(slot, cpu)
                if ring is None:
                    continue   # an extension slot without buffers
                seq = _U64.unpack_from(buf, ring + lay.ring_seq)[0]
                self._skip[slot][cpu] = seq + 1
                self._resets[slot][cpu] += 1
                _U64.pack_into(buf, ring + lay.ring_released, seq)
                _U32.pack_into(buf, ring + lay.ring_reset_req, self._resets[slot][cpu] & 0xFFFFFFFF)

    def wait_for_data(self, timeout: float) -> bool:
        with self._data:
            return self._data.wait_for(lambda: self._pending, timeout)

    # ---- helpers ----
    def _remember(self, event: EventName) -> tuple[str, str]:
        """The event's key; the image's description of it kept (KeyError: a tracepoint this
        kernel does not have)."""
        key = (event.system, event.name)
        if key not in self._events:
            self._events[key] = self._image.event_desc(event.system, event.name)
        return key

    def _check_slot(self, slot: int, writes: bool = False) -> None:
        """writes: what is asked makes the guest write into the slot's rings, which only a
        slot with buffers has (an instance's slot: open_slot())."""
        if not 0 <= slot < self.layout.slots or slot == self.layout.slot_ext:
            raise ValueError(f"slot {slot} out of range 0..{self.layout.slots - 1} (or word 0's summary bit)")
        if writes and slot not in self._open:
            raise ValueError(f"slot {slot} has no buffers (open_slot() first)")

    @staticmethod
    def _mask(slots: set[int]) -> int:
        return sum(1 << s for s in slots)

    def _write_words(self, pa: int, ext_pa: int | None, slots: int) -> None:
        """A set of slots into a guest mask at pa, its extension words at ext_pa (None: it
        has none, and holds no extension slot)."""
        buf, words = self._ram().buf, self.layout.words(slots)
        _U64.pack_into(buf, pa, words[0])
        if ext_pa is not None:
            for i, word in enumerate(words[1:]):
                _U64.pack_into(buf, ext_pa + 8 * i, word)

    def _set_slot_bit(self, pa: int, ext_pa: int, slot: int, on: bool) -> None:
        """One slot of a guest mask whose word 0 the guest also changes (_set_bit()): an
        extension slot's bit in its word at ext_pa, and word 0's summary bit kept."""
        lay = self.layout
        if slot < lay.word_slots:
            self._set_bit(pa, slot, on)
            return
        self._set_bit(ext_pa + 8 * (slot // 64 - 1), slot % 64, on)
        buf = self._ram().buf
        self._set_bit(pa, lay.slot_ext, any(_U64.unpack_from(buf, ext_pa + 8 * i)[0]
                                            for i in range(lay.slot_words - 1)))

    def _ext_words(self, key: tuple[str, str]) -> int | None:
        """The physical address of the event's extension words (its type's row of
        trace_event_ext); None: its type has none, or it has no type yet."""
        event_id = self._ids.get(key)
        if event_id is None or event_id >= self.layout.ext_types:
            return None
        return self._event_ext + event_id * (self.layout.slot_words - 1) * 8

    def _write_file_slots(self, key: tuple[str, str]) -> None:
        """The event file's slots (less the soft-disabled), word 0 and its type's extension words."""
        if self._mem is not None:
            slots = self._mask(self._enabled.get(key, set()) - self._soft_off.get(key, set()))
            file = kernel_virt_to_phys(self._image.event_file(self._events[key]) + self.layout.file_slots)
            self._write_words(file, self._ext_words(key), slots)

    def _write_cpumasks(self) -> None:
        if self._mem is not None:
            lay = self.layout
            for cpu in range(lay.nr_cpus):
                slots = sum(1 << slot for slot, mask in enumerate(self._cpumasks)
                            if mask >> cpu & 1 and not self._stopped[slot])
                self._write_words(self._control + lay.control_cpu_slots + 8 * cpu,
                                  self._control + lay.control_cpu_slots_ext + 8 * (lay.slot_words - 1) * cpu, slots)

    def _write_stack_opts(self) -> None:
        if self._mem is not None:
            buf, control, lay = self._mem.buf, self._control, self.layout
            self._write_words(control + lay.control_stack_opts, control + lay.control_stack_opts_ext, self._stack_opts)
            self._write_words(control + lay.control_ustack_opts, control + lay.control_ustack_opts_ext,
                              self._ustack_opts)
            _U64.pack_into(buf, control + lay.control_stack_slots, lay.words(self._stack_opts | self._ustack_opts)[0])

    def _write_recording(self) -> None:
        if self._mem is not None:
            mask = sum(1 << slot for slot, on in enumerate(self._recording) if on)
            self._write_words(self._control + self.layout.control_recording,
                              self._control + self.layout.control_recording_ext, mask)

    def _set_bit(self, pa: int, bit: int, on: bool) -> None:
        """One bit of a guest u64 mask the guest also changes (a narrow race: the guest's own
        flips are atomic, this read-modify-write is not)."""
        buf = self._ram().buf
        word = _U64.unpack_from(buf, pa)[0]
        _U64.pack_into(buf, pa, word | 1 << bit if on else word & ~(1 << bit))

    def _ram(self) -> PhysMem:
        if self._mem is None:
            raise RuntimeError("the guest's RAM is not loaded yet")
        return self._mem

    def _set_file_bit(self, event: EventName, slot: int, on: bool) -> None:
        if self._mem is None:
            return
        file = kernel_virt_to_phys(self._image.event_file(event) + self.layout.file_slots)
        ext = self._ext_words((event.system, event.name))
        if slot < self.layout.word_slots or ext is not None:
            self._set_slot_bit(file, ext if ext is not None else 0, slot, on)

    def _write_file(self, event: EventName, offset: int, fmt: str, value: int) -> None:
        if self._mem is not None:
            pa = kernel_virt_to_phys(self._image.event_file(event) + offset)
            struct.pack_into(fmt, self._mem.buf, pa, value)

    def _key_patch(self, key_addr: int, on: bool) -> list[tuple[int, bytes]]:
        """(site, bytes) for every jump label of the key: `jmp target`, or the image's nop5."""
        patches = []
        for entry in self._image.jump_entries:
            if entry.key != key_addr:
                continue
            if on:
                rel = entry.target - (entry.code + 5)
                patches.append((entry.code, bytes([JMP_REL32]) + rel.to_bytes(4, "little", signed=True)))
            else:
                patches.append((entry.code, self._image.read(entry.code, 5)))
        return patches

    def _poke(self, code: int, data: bytes) -> None:
        machine = self._machine
        if machine.running:
            machine.text_poke(code, data)
        elif self._mem is not None:  # stopped: nothing executes, memory is all there is
            self._mem.write(kernel_virt_to_phys(code), data)

    def _ring(self, slot: int, cpu: int) -> int | None:
        """The (slot, cpu) ring's physical address; None: an extension slot without buffers."""
        lay = self.layout
        if slot < lay.word_slots:
            return self._control + lay.ring(slot, cpu)
        rings = _U64.unpack_from(self._ram().buf, self._control + lay.control_ext_rings + 8 * slot)[0]
        return kernel_virt_to_phys(rings + cpu * lay.ring_size) if rings else None
