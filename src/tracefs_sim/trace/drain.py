"""Moving records from the guest's rings into the trace arrays' buffers.

The guest writes Linux-layout pages per (slot, CPU); drain() hands them over in batches. Here
each new event is decoded, checked against the array's enabled events and event filter (so a
filtered event is never kept nor counted; the guest applied the pid filters), stamped with the
array's clock, and kept; its task's comm is saved. Readers are woken once per batch.
"""

import logging
import threading
from collections.abc import Callable, Iterable

from .cmdlines import SavedCmdlines
from .filter import EventFilter
from .ftrace_records import FTRACE_RECORDS
from .rb_page import PageFormatError, event_spans
from .records import ENTRY_HEADER as _HEADER
from .trace_array import TraceArray

log = logging.getLogger(__name__)

_UNKNOWN_TASK = (b"", 0)


class Drain:
    def __init__(self, guest, arrays: Callable[[], Iterable[TraceArray]], cmdlines: SavedCmdlines,
                 tasks: Callable[[], list]):
        """guest: GuestTracing; arrays(): the live trace arrays; tasks(): the machine's live
        tasks (pid, tgid, comm), asked when a record names a pid not seen before."""
        self._guest = guest
        self._arrays = arrays
        self._cmdlines = cmdlines
        self._tasks = tasks
        # (slot, cpu) -> (seq, events already taken) of the last page seen: an incomplete page
        # comes back with more data under the same seq.
        self._progress: dict[tuple[int, int], tuple[int, int]] = {}
        # slot -> the array's guest_resets when last drained (and the array, for a reused slot)
        self._resets: dict[int, tuple[TraceArray, int]] = {}
        self._task_cache: dict[int, tuple[bytes, int]] = {}
        # The daemon's drain loop and readers catching up (catch_up) drain from two threads.
        self._lock = threading.Lock()

    def drain_once(self) -> int:
        """One batch from every trace array's slot; returns the records kept."""
        with self._lock:
            return self._drain_all()

    def _drain_all(self) -> int:
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

    def _drain_array(self, array: TraceArray) -> int:
        control = array.events
        if control is None:
            return 0
        if self._resets.get(array.slot) != (array, array.guest_resets):
            # The guest forgot the slot's pages (echo > trace, a new instance): start afresh.
            self._resets[array.slot] = (array, array.guest_resets)
            for key in [k for k in self._progress if k[0] == array.slot]:
                del self._progress[key]
        per_cpu: dict[int, list] = {}
        lost: dict[int, int] = {}
        for page in self._guest.drain(array.slot):
            key = (array.slot, page.cpu)
            seq, taken = self._progress.get(key, (-1, 0))
            if page.seq != seq:
                taken = 0
                lost[page.cpu] = lost.get(page.cpu, 0) + page.lost
            try:
                spans = event_spans(page.data)
            except PageFormatError as error:
                # A page the guest wrote wrongly: its records cannot be trusted; the others can.
                log.warning("slot %d cpu %d page %d skipped: %s", array.slot, page.cpu, page.seq, error)
                self._progress[key] = (page.seq, taken)
                continue
            self._progress[key] = (page.seq, len(spans))
            if len(spans) > taken:
                per_cpu.setdefault(page.cpu, []).append((bytes(page.data), spans[taken:]))
        for cpu, count in lost.items():
            if count:
                # The guest's ring was full: those events never reached the buffer.
                with array.buffer_lock:
                    array.buffer.cpu(cpu).dropped_events += count
        if not per_cpu:
            return 0
        per_cpu = {cpu: self._records(array, cpu, pages) for cpu, pages in per_cpu.items()}
        self._learn_tasks({header[3] for records in per_cpu.values() for _, _, header in records})
        from_ns = array.clock.from_ns
        record_cmd = array.options["record-cmd"]
        record_tgid = array.options["record-tgid"]
        files = control.files
        task_cache = self._task_cache
        cmdlines = self._cmdlines
        kept = 0
        for cpu, records in per_cpu.items():
            keep = []
            # Saving the task of the record before again changes nothing: skip that call.
            last_saved = None
            for ts, payload, (event_type, _, _, pid) in records:
                file = files.get(event_type)
                comm, tgid = task_cache.get(pid, _UNKNOWN_TASK)
                if file is None:
                    # The function tracers' records: the guest wrote them only for this
                    # array's tracer, filters and ftrace pids; no event file governs them.
                    if event_type not in FTRACE_RECORDS:
                        continue
                else:
                    if file.event.system == "sched" and file.event.name == "sched_switch":
                        self._learn_from_switch(file.event.decoder.decode(payload), record_cmd)
                        comm, tgid = task_cache.get(pid, _UNKNOWN_TASK)
                    event_filter = file.filter
                    if isinstance(event_filter, EventFilter):
                        if not event_filter.matches(file.event.decoder.decode(payload), cpu, comm):
                            continue
                if record_cmd and comm and last_saved != pid:
                    cmdlines.save(pid, comm)
                    last_saved = pid
                if record_tgid and tgid:
                    cmdlines.save_tgid(pid, tgid)
                keep.append((from_ns(ts), payload))
            kept += array.add_records(cpu, keep)
        return kept

    @staticmethod
    def _records(array: TraceArray, cpu: int, pages: list) -> list:
        """(ts, payload, header) of each new event of (page bytes, event spans) pages, the
        header unpacked once; an event too short to hold the common fields is the guest's
        error and is skipped."""
        header_size = _HEADER.size
        unpack = _HEADER.unpack_from
        records = [(ts, data[start:end], unpack(data, start))
                   for data, spans in pages for ts, start, end, _, _ in spans if end - start >= header_size]
        events = sum(len(spans) for _, spans in pages)
        if len(records) < events:
            log.warning("slot %d cpu %d: %d events shorter than their header skipped",
                        array.slot, cpu, events - len(records))
        return records

    def _learn_from_switch(self, fields: dict, record_cmd: bool) -> None:
        """A sched_switch names both tasks' comms as they were then: what Linux saves at every
        switch (tracing_record_taskinfo_sched_switch). It also catches a comm an exec changed
        after the task was first seen, and a task gone before the batch."""
        for comm, pid in ((fields["prev_comm"], fields["prev_pid"]), (fields["next_comm"], fields["next_pid"])):
            if pid > 0 and comm:
                cached = self._task_cache.get(pid, _UNKNOWN_TASK)
                if cached[0] != comm:
                    self._task_cache[pid] = (comm, cached[1])
                    if record_cmd:
                        self._cmdlines.save(pid, comm)

    def _learn_tasks(self, pids: Iterable[int]) -> None:
        """Ask the machine about pids never seen (one query per batch at most)."""
        unknown = {pid for pid in pids if pid not in self._task_cache}
        if not unknown:
            return
        for task in self._tasks():
            self._task_cache[task.pid] = (task.comm.encode(errors="replace"), task.tgid)
        gone = unknown - self._task_cache.keys()
        if gone:
            # Exited before the batch: the guest's saved cmdlines, filled at switch time as
            # Linux's are, may still name it; otherwise it stays unknown (<...>), asked no more.
            saved = self._guest.saved_comms()
            for pid in gone:
                self._task_cache[pid] = (saved.get(pid, "").encode(errors="replace"), 0)
