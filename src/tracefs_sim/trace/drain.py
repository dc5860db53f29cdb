"""Moving records from the guest's rings into the trace arrays' buffers.

The guest writes Linux-layout pages per (slot, CPU); drain() hands them over in batches. Here
each new event is decoded, checked against the array's enabled events and event filter (so a
filtered event is never kept nor counted; the guest applied the pid filters), stamped with the
array's clock, and kept; its task's comm is saved. Readers are woken once per batch.

The per-event loop is C (native/drain.c: the page walk and the keeping); what it asks of
Python here is per batch, per event type, per run of one pid's events, or for the events
that must be filtered or learnt from.
"""

from __future__ import annotations

import functools
import logging
import struct
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from ..machine.contract import GuestPageInfo, TaskRecord
from . import _drain
from ._drain import PageFormatError
from .cmdlines import SavedCmdlines
from .event_control import EventFile
from .events import TraceEvent
from .filter import EventFilter
from .blk_output import TRACE_BLK
from .ftrace_records import FTRACE_RECORDS
from .ring_buffer import Entry
from .trace_array import TraceArray

if TYPE_CHECKING:
    from ._drain import WalkPoint  # (a type of its stub only)

log = logging.getLogger(__name__)

_UNKNOWN_TASK = (b"", 0)
# The pids whose (comm, tgid) the drain keeps between batches: far more than a busy machine
# has live tasks, so that only tasks gone long ago make it start afresh.
_TASKS_KEPT = 4096


class _SnapshotRequests(Protocol):
    def snapshot_requests(self, slot: int) -> list[int]: ...


class DrainSource(Protocol):
    """What the drain takes from the guest's half of tracing (contract.GuestTracingOps): its
    pages, the snapshots its triggers asked for, its saved comms."""

    @property
    def triggers(self) -> _SnapshotRequests: ...

    def drain(self, slot: int) -> Sequence[GuestPageInfo]: ...
    def saved_comms(self) -> dict[int, str]: ...
    def comm_renames(self) -> list[tuple[int, int, str]]: ...


class Drain:
    def __init__(self, guest: DrainSource, arrays: Callable[[], Iterable[TraceArray]], cmdlines: SavedCmdlines,
                 tasks: Callable[[], Sequence[TaskRecord]]):
        """guest: the guest half of tracing; arrays(): the live trace arrays; tasks(): the machine's live
        tasks (pid, tgid, comm), asked when a record names a pid not seen before."""
        self._guest = guest
        self._arrays = arrays
        self._cmdlines = cmdlines
        self._tasks = tasks
        # (slot, cpu) -> (seq, where its walk stopped) of the last page seen: an incomplete
        # page comes back with more data under the same seq, and is walked on from there.
        self._progress: dict[tuple[int, int], tuple[int, WalkPoint | None]] = {}
        # (slot, cpu) -> whether its last event was dropped: the stacks that follow it go too
        self._follow: dict[tuple[int, int], bytearray] = {}
        # slot -> the array's guest_resets when last drained (and the array, for a reused slot)
        self._resets: dict[int, tuple[TraceArray, int]] = {}
        self._task_cache: dict[int, tuple[bytes, int]] = {}
        self._saved_seen: dict[int, str] = {}   # the guest's saved cmdlines when last looked at
        # The daemon's drain loop and readers catching up (catch_up) drain from two threads.
        self._lock = threading.Lock()

    def drain_once(self) -> int:
        """One batch from every trace array's slot; returns the records kept."""
        with self._lock:
            return self._drain_all()

    def _drain_all(self) -> int:
        if len(self._task_cache) > _TASKS_KEPT:
            # Exited tasks' entries would stay for good (pids wrap only at 32768): start
            # afresh, and the next batch asks the machine's live tasks again.
            self._task_cache.clear()
        total = 0
        for array in list(self._arrays()):
            try:
                kept = self._drain_array(array)
            except Exception:
                # One array's bad batch (a record its filter cannot evaluate, ...) must not
                # hold up the others'; its progress is already recorded, so it is not retried.
                log.exception("slot %d: batch lost", array.slot)
                continue
            if kept:
                array.buffer.waiters.wake()
            total += kept
        return total

    def _follow_saved_comms(self) -> None:
        """A task's comm as the guest last saved it (at its switches while events are on, as
        Linux saves it) replaces the one known: after an exec (a session's shell's child
        becoming `ls`) the output names the task by its new name, its earlier events included,
        as Linux's saved_cmdlines does at print time."""
        saved = self._guest.saved_comms()
        if saved == self._saved_seen:
            return
        for pid, comm in saved.items():
            if self._saved_seen.get(pid) == comm:
                continue
            name = comm.encode(errors="replace")
            # A task whose records were kept while it had no known name (it exited between
            # its last switch and the batch): its final switch named it.
            unnamed = False
            if pid in self._task_cache:
                unnamed = not self._task_cache[pid][0]
                self._task_cache[pid] = (name, self._task_cache[pid][1])
            if unnamed or self._cmdlines.find(pid) not in (b"<...>", name):
                self._cmdlines.save(pid, name)
        self._saved_seen = saved

    def _drain_array(self, array: TraceArray) -> int:
        control = array.events
        if control is None:
            return 0
        if self._resets.get(array.slot) != (array, array.guest_resets):
            # The guest forgot the slot's pages (echo > trace, a new instance): start afresh.
            self._resets[array.slot] = (array, array.guest_resets)
            for key in [k for k in self._progress if k[0] == array.slot]:
                del self._progress[key]
            for key in [k for k in self._follow if k[0] == array.slot]:
                del self._follow[key]
        per_cpu: dict[int, list[tuple[bytes, bytes]]] = {}
        lost: dict[int, int] = {}
        # the snapshot triggers' swaps asked for until now: asked before the pages are taken,
        # so that every record before a swap is among them
        swaps = self._guest.triggers.snapshot_requests(array.slot)
        for page in self._guest.drain(array.slot):
            key = (array.slot, page.cpu)
            seq, point = self._progress.get(key, (-1, None))
            if page.seq != seq:
                point = None
                lost[page.cpu] = lost.get(page.cpu, 0) + page.lost
            try:
                spans, after = _drain.walk(page.data, point)
            except PageFormatError as error:
                # A page the guest wrote wrongly: its records cannot be trusted; the others can.
                log.warning("slot %d cpu %d page %d skipped: %s", array.slot, page.cpu, page.seq, error)
                self._progress[key] = (page.seq, point)
                continue
            self._progress[key] = (page.seq, after)
            if spans:
                per_cpu.setdefault(page.cpu, []).append((page.data, spans))
        for cpu, count in lost.items():
            if count:
                # The guest's ring was full: those events never reached the buffer.
                with array.buffer_lock:
                    array.buffer.cpu(cpu).dropped_events += count
        # The comms saved after the pages were taken: each is at least as new as the records
        # (an exec's new name saved at once, trace_cmdline.c), which the filters compare.
        self._follow_saved_comms()
        if not per_cpu and not swaps:
            return 0
        batch = _Batch(self, control.files)
        entries = {cpu: self._keep(array, cpu, pages, batch) for cpu, pages in per_cpu.items()}
        kept = 0
        if swaps:
            from_ns = array.clock.from_ns
            for ts in swaps:
                kept += array.snapshot.swap_at(from_ns(ts), entries)
        return kept + sum(array.add_entries(cpu, batch) for cpu, batch in entries.items())

    def _keep(self, array: TraceArray, cpu: int, pages: list[tuple[bytes, bytes]], batch: "_Batch") -> list[Entry]:
        """The entries (time in the array's clock) of the events of (page bytes, spans from
        _drain.walk) pages that the array keeps, their tasks' comms saved."""
        options = array.options
        record_cmd = options["record-cmd"]
        # The guest stamps events with the virtual clock, which is the default (local)
        # clock's time: a clock converting as that one does keeps the stamps as they are.
        from_ns = array.clock.from_ns
        keep, short = _drain.keep(
            pages=pages, plans=batch.plans, plan_of=batch.plan, tasks=self._task_cache, task_of=batch.task,
            special=functools.partial(self._special, batch, cpu, record_cmd),
            from_ns=None if from_ns is array.clocks.default.from_ns else from_ns,
            save_comm=self._cmdlines.save if record_cmd else None,
            save_tgid=self._cmdlines.save_tgid if options["record-tgid"] else None,
            follow=self._follow.setdefault((array.slot, cpu), bytearray(1)))
        if short:
            log.warning("slot %d cpu %d: %d events shorter than their header skipped", array.slot, cpu, short)
        return keep

    def _special(self, batch: "_Batch", cpu: int, record_cmd: bool, plan: _Special, payload: bytes, pid: int,
                 task: tuple[bytes, int], ts: int) -> tuple[tuple[bytes, int], bool]:
        """An event whose plan is (event file, switch): learn the comms a sched_switch names
        and apply the event's filter (its `comm` the task's name when the event was stamped,
        ts). Returns (the task of pid now, whether the event is kept)."""
        file, switch = plan
        if switch is not None:
            self._learn_from_switch(switch(payload), record_cmd)
            task = self._task_cache.get(pid) or batch.task(pid)
        event_filter = file.filter
        if isinstance(event_filter, EventFilter):
            comm = batch.comm_at(pid, ts) or task[0]
            return task, event_filter.matches(file.event.decoder.decode(payload), cpu, comm)
        return task, True

    def _learn_from_switch(self, fields: _SwitchFields, record_cmd: bool) -> None:
        """A sched_switch names both tasks' comms as they were then: what Linux saves at every
        switch (tracing_record_taskinfo_sched_switch). It also catches a comm an exec changed
        after the task was first seen, and a task gone before the batch.
        fields: (prev_comm, prev_pid, next_comm, next_pid) as unpacked."""
        prev_comm, prev_pid, next_comm, next_pid = fields
        for comm, pid in ((prev_comm, prev_pid), (next_comm, next_pid)):
            if pid > 0:
                comm = comm.split(b"\0", 1)[0]
                if not comm:
                    continue
                cached = self._task_cache.get(pid, _UNKNOWN_TASK)
                if cached[0] != comm:
                    self._task_cache[pid] = (comm, cached[1])
                    if record_cmd:
                        self._cmdlines.save(pid, comm)


# How a batch treats an event type: drop it, keep it as it is, or (event file, None or what
# gives sched_switch's (prev_comm, prev_pid, next_comm, next_pid)) to learn from and filter by
# (_special). The C loop knows the first two by identity.
_DROP = _drain.DROP
_KEEP = _drain.KEEP
# a sched_switch's (prev_comm, prev_pid, next_comm, next_pid), as unpacked
_SwitchFields = tuple[bytes, int, bytes, int]
# an event type's plan (an object): _DROP, _KEEP, or _Special, (its file, its sched_switch
# fields' reader or None)
_Special = tuple[EventFile, Callable[[bytes], _SwitchFields] | None]
# sched_switch as Linux 6.1 lays it out: prev_comm[16] at 8, prev_pid at 24, (prev_prio,
# prev_state), next_comm[16] at 40, next_pid at 56; read with one unpack when the event has
# that layout, through its decoder otherwise.
_SWITCH_FIELDS = (("prev_comm", 8, 16), ("prev_pid", 24, 4), ("next_comm", 40, 16), ("next_pid", 56, 4))
_SWITCH = struct.Struct("<8x16si12x16si")


class _Batch:
    """What one batch works out once: each event type's plan, and the tasks of pids not seen
    before (the machine asked once a batch at most, as is the guest's saved comms)."""

    def __init__(self, drain: Drain, files: dict[int, EventFile]):
        self._drain = drain
        self._files = files
        self.plans: dict[int, object] = {}
        self._tasks_asked = False
        self._saved: dict[int, str] | None = None
        self._renames: dict[int, list[tuple[int, bytes]]] | None = None

    def plan(self, event_type: int) -> object:
        file = self._files.get(event_type)
        if file is None:
            # The function tracers' and the blk tracer's records: the guest wrote them only for
            # this array's tracer, filters and ftrace pids; no event file governs them.
            plan: object = _KEEP if event_type in FTRACE_RECORDS or event_type == TRACE_BLK else _DROP
        else:
            event = file.event
            switch = _switch_fields(event) if (event.system, event.name) == ("sched", "sched_switch") else None
            plan = (file, switch) if switch is not None or isinstance(file.filter, EventFilter) else _KEEP
        self.plans[event_type] = plan
        return plan

    def task(self, pid: int) -> tuple[bytes, int]:
        """(comm, tgid) of a pid never seen. The comm is the guest's saved one (Linux's
        saved_cmdlines, filled at switch time and at an exec while events are on), as Linux
        prints it: a task that exec'd after the events went off (a shell's last command) keeps
        the name its records were made under. A task never saved is named as the machine's
        live tasks name it now; one that exited unsaved stays unknown (<...>) and is asked no
        more. The tgid is the live task's."""
        cache = self._drain._task_cache
        if self._saved is None:
            self._saved = self._drain._guest.saved_comms()
        if not self._tasks_asked:
            self._tasks_asked = True
            for task in self._drain._tasks():
                comm = self._saved.get(task.pid) or task.comm
                cache[task.pid] = (comm.encode(errors="replace"), task.tgid)
            if pid in cache:
                return cache[pid]
        cache[pid] = (self._saved.get(pid, "").encode(errors="replace"), 0)
        return cache[pid]

    def comm_at(self, pid: int, ts: int) -> bytes | None:
        """The comm pid had at ts if a rename the guest noted came after it (None: the task's
        name now): the comm before the first rename later than ts. The guest's renames are
        read once a batch, after its pages were taken (so none of its records is newer)."""
        if self._renames is None:
            self._renames = {}
            for rename_pid, rename_ts, name in self._drain._guest.comm_renames():
                self._renames.setdefault(rename_pid, []).append((rename_ts, name.encode(errors="replace")))
        for rename_ts, comm_before in self._renames.get(pid, ()):
            if ts < rename_ts:
                return comm_before
        return None


def _switch_fields(event: TraceEvent) -> Callable[[bytes], _SwitchFields]:
    """payload -> (prev_comm, prev_pid, next_comm, next_pid) of a sched_switch record."""
    fields = {f.name: (f.offset, f.size) for f in event.desc.fields}
    if all(fields.get(name) == (offset, size) for name, offset, size in _SWITCH_FIELDS):
        return _SWITCH.unpack_from
    decode = event.decoder.decode

    def decoded(payload: bytes) -> _SwitchFields:
        values = decode(payload)
        prev_comm, prev_pid, next_comm, next_pid = (values["prev_comm"], values["prev_pid"], values["next_comm"],
                                                    values["next_pid"])
        assert isinstance(prev_comm, bytes) and isinstance(next_comm, bytes)  # (char[16]s)
        assert isinstance(prev_pid, int) and isinstance(next_pid, int)
        return prev_comm, prev_pid, next_comm, next_pid
    return decoded
