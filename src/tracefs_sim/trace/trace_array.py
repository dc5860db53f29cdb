"""A trace array: one set of per-CPU buffers with its tracer, clock, options, events and
on/off switch (struct trace_array in trace.h; the top level is Linux's global_trace, each
instance another one, recording into its own guest slot).

Every control-file operation is a method here that takes and returns plain text/bytes and
raises OSError with the errno Linux gives, leaving state unchanged on error.
"""

import errno
import functools
import logging
import struct
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..machine.contract import MARKER_EVENT, GuestTracingOps
from . import _lines, graph_output
from .clock import TraceClock, TraceClocks
from .cmdlines import SavedCmdlines
from .cpumask import format_cpumask, parse_cpumask
from .error_log import ErrorLog
from .event_control import EventControl
from .events import TRACE_PRINT, EventRegistry
from .ftrace_records import TRACE_RAW_DATA, UserVmasOf
from .function_tracer import FtraceGlobal, FunctionTracing
from .headers import KernelIdentity, OutputFlags, latency_header, stats_text, trace_header
from ..lib.kstrtox import kstrtoul_from_user, strstrip
from .options import TraceOptions
from .probe_args import Symbolizer
from .rb_page import event_length
from .ring_buffer import Entry, RingBuffer
from .hist import HistContext
from .snapshot import Snapshot
from .trace_output import LinePrinter, TraceOutput
from .tracers import NOP, TracerRegistry
from .tracing_nsecs import NsecsFile
from .trigger import TriggerTable

log = logging.getLogger(__name__)

# trace_marker: at most TRACE_BUF_SIZE bytes per write; the entry keeps room for "<faulted>".
TRACE_BUF_SIZE = 1024
_FAULTED_SIZE = len("<faulted>")
_PRINT_HEADER = struct.Struct("<HBBiQ")   # struct print_entry: trace_entry + ip
# trace_marker_raw: RAW_DATA_MAX_SIZE, FAULT_SIZE_ID ("<faulted>" and an id), struct trace_entry
_RAW_DATA_MAX_SIZE = 3 * 1024
_FAULT_SIZE_ID = _FAULTED_SIZE + 4
_RAW_HEADER = struct.Struct("<HBBi")
# A trace_pipe read returns at most this much text (one page of trace_seq per read).
_PIPE_CHUNK = 4096
_DUMP_PART = 1 << 16   # the text ftrace_dump's consumption makes a step

# TRACE_BUF_SIZE_DEFAULT: the per-CPU size buffers grow to on first use (1408 KiB).
TRACE_BUF_SIZE_DEFAULT = 1441792
# Until tracing is first used, buffers hold this many bytes (rounded up to the minimum pages).
_UNEXPANDED_SIZE = 1
# Buffers sized by MAX_TRACER_SIZE / the clock name buffer in trace.c.
_MAX_TRACER_SIZE = 100
_CLOCK_NAME_BUF = 64
_ULONG_MAX = (1 << 64) - 1


@dataclass
class BufferExpansion:
    """Linux's global ring_buffer_expanded + trace_buf_size: shared by all trace arrays, so
    the top level's buffers stay minimal until tracing is first used anywhere."""

    trace_buf_size: int = TRACE_BUF_SIZE_DEFAULT
    expanded: bool = False
    # global_trace, the array tracing_update_buffers() expands (whichever array's event is enabled)
    top_level: "TraceArray | None" = None


@dataclass(frozen=True)
class TraceGlobals:
    """What every trace array works with, made once by the trace core (Linux keeps these in
    globals): they are shared, never one array's."""

    nr_cpus: int
    clocks: TraceClocks
    tracers: TracerRegistry
    expansion: BufferExpansion
    registry: EventRegistry
    guest: GuestTracingOps  # the arrays record into the guest's slots
    cmdlines: SavedCmdlines
    symbolize: Symbolizer  # kallsyms_lookup(): addr -> (name, offset, size)
    kernel: KernelIdentity  # what the latency-format header names
    ftrace: FtraceGlobal | None  # the function tracers; None: a kernel built without them
    irq_text: tuple[int, int] | None  # the kernel's irq entry text [start, end), if it has one
    catch_up: Callable[[], object]  # moves what the guest recorded so far into the buffers
    triggers: TriggerTable  # every array's event triggers, as the guest runs them
    user_vmas: UserVmasOf | None = None  # tgid -> its task's mappings (sym-userobj); None: unknown


class TraceArray:
    def __init__(self, shared: TraceGlobals, slot: int):
        """slot: the guest's slot this array records into (0: the top level)."""
        nr_cpus = shared.nr_cpus
        guest = shared.guest
        self.nr_cpus = nr_cpus
        self.cpumask = (1 << nr_cpus) - 1
        self.clocks = shared.clocks
        self.tracers = shared.tracers
        self.expansion = shared.expansion
        self.clock: TraceClock = self.clocks.default
        self.tracer = NOP
        self.top_level = slot == 0
        usable = self.tracers.usable(self.top_level)
        self.options = TraceOptions(tuple(option for tracer in usable for option in tracer.options),
                                    self.tracers.flags, frozenset().union(*(t.refuses for t in usable)))
        self.options.current_tracer_options = tuple(option for option, _ in self.tracer.options)
        for owner in usable:   # __set_tracer_option(): the option's own tracer's set_flag()
            set_flag = owner.set_flag
            if set_flag is not None:
                for option, _ in owner.options:
                    self.options.watch(option, functools.partial(set_flag, self, option))
        self.cmdlines = shared.cmdlines
        self.registry = shared.registry
        self.kernel = shared.kernel
        self.slot = slot
        # Clock value when the buffers were last reset: latency format counts from it.
        self.time_start = 0
        # Bumped when the guest's side of the slot is reset, so the drain starts afresh.
        self.guest_resets = 0
        self._guest = guest
        self._catch_up = shared.catch_up
        # pause-on-trace: readers of `trace` holding recording off (tracing_stop_tr): the
        # guest's slot is stopped (ring_buffer_record_disable), its tracing_on bit untouched.
        self._stop_count = 0
        self._pipe_readers = 0
        self._pipe_idx = 0       # records handed to trace_pipe readers (latency format's idx)
        self.output = TraceOutput(nr_cpus, self.options, self.registry, self.cmdlines, shared.symbolize,
                                  shared.irq_text, shared.user_vmas)
        self._graph_pipes = graph_output.GraphPipes()  # function_graph's trace_pipe readers
        # One lock for all control operations, as trace_types_lock in Linux.
        self._lock = threading.Lock()
        # The buffers' own lock: the drain writes while readers read and consume.
        self.buffer_lock = threading.RLock()
        # trace_array_create() allocates an instance's buffers at trace_buf_size, expanded or not:
        # only the top level's wait for tracing's first use (they are allocated at boot)
        expanded = self.expansion.expanded or not self.top_level
        initial = self.expansion.trace_buf_size if expanded else _UNEXPANDED_SIZE
        self.buffer = RingBuffer(nr_cpus, initial, self.clock.read)
        # how full a cpu's buffer is before a poll of its pipe says readable (tr->buffer_percent)
        self.buffer_percent = 50
        self.error_log = ErrorLog(self.clocks.default.read)
        if self.top_level:
            self.expansion.top_level = self
        self.events = EventControl(self.registry, slot, guest, self.error_log, self.update_buffers)
        guest.set_recording(slot, True)
        self.options.watch("event-fork", lambda on: guest.pid_lists.set_event_fork(slot, on))
        # ftrace_trace_stack() / ftrace_trace_userstack(): the events' writers take the stacks
        for stack_option in ("stacktrace", "userstacktrace"):
            self.options.watch(stack_option, lambda on: guest.set_stack_options(
                slot, self.options["stacktrace"], self.options["userstacktrace"]))
        self.snapshot = Snapshot(self)
        # enable_event / disable_event commands act on its events, snapshot on its snapshot
        self.functions = None if shared.ftrace is None else FunctionTracing(
            shared.ftrace, slot, self.options, self.events, self.snapshot.alloc, guest, top_level=self.top_level)
        self.max_latency = NsecsFile()   # tracing_max_latency (no latency tracer sets it here)
        self.triggers = self.events.make_triggers(shared.triggers, self.snapshot,
                                                  HistContext(shared.symbolize, _syscall_names(self.registry),
                                                              lambda name: self.write_trace_clock(name.encode())))

    @property
    def output_flags(self) -> OutputFlags:
        o = self.options
        return OutputFlags(context_info=o["context-info"], verbose=o["verbose"],
                                  irq_info=o["irq-info"], record_tgid=o["record-tgid"],
                                  latency_format=o["latency-format"])

    @property
    def recording(self) -> bool:
        """Whether records are kept now: tracing on and no reader pausing it."""
        return self._stop_count == 0 and self.tracing_on

    def update_buffers(self) -> None:
        """tracing_update_buffers(), before an event is enabled in any array: it expands the
        top level's buffers (global_trace's), not this array's."""
        top = self.expansion.top_level or self
        with top._lock:
            top._expand_locked()

    # tracing_on
    @property
    def tracing_on(self) -> bool:
        """The buffer's state: the guest's bit, which its traceon/traceoff triggers change too."""
        return self._guest.is_recording(self.slot)

    def read_tracing_on(self) -> bytes:
        return b"%d\n" % self.tracing_on

    # tracing_cpumask: the CPUs whose buffers record (the guest drops the others' records)
    def read_tracing_cpumask(self) -> bytes:
        return format_cpumask(self.cpumask, self.nr_cpus)

    def write_tracing_cpumask(self, data: bytes) -> None:
        mask = parse_cpumask(data, self.nr_cpus)
        with self._lock:
            self.cpumask = mask
        self._guest.set_cpumask(self.slot, mask)

    def write_tracing_on(self, data: bytes) -> None:
        on = bool(kstrtoul_from_user(data))
        with self._lock:
            if on == self.tracing_on:
                return
            self._guest.set_recording(self.slot, on)
        if not on:
            # A trace_pipe reader that has read something ends once it finds the buffer empty
            # with tracing off: by then the buffer must hold what the guest recorded before
            # going off, as in Linux, where the writer puts records in the buffer itself.
            # (Readers look from the thread this runs in, so none looks in between.)
            self._caught_up()
            # Readers blocked in trace_pipe re-check: after having read something, they end.
            self.buffer.waiters.wake()

    def catch_up(self) -> None:
        """Move what the guest recorded so far into the buffers."""
        self._caught_up()

    @property
    def stopped(self) -> bool:
        """tr->stop_count: readers hold recording stopped (no snapshot is taken then)."""
        return self._stop_count > 0

    def _caught_up(self) -> None:
        try:
            self._catch_up()
        except Exception:
            # The drain loop retries; readers get what the buffers hold.
            log.exception("catching up with the guest failed")

    @property
    def guest(self) -> GuestTracingOps:
        """The kernel's tracing side, which a tracer's callbacks switch."""
        return self._guest

    # current_tracer / available_tracers
    def read_current_tracer(self) -> bytes:
        return f"{self.tracer.name}\n".encode()

    def read_available_tracers(self) -> bytes:
        return self.tracers.available_text(self.top_level).encode()

    def write_current_tracer(self, data: bytes) -> None:
        name = strstrip(data[:_MAX_TRACER_SIZE]).decode("latin-1")
        with self._lock:
            # Linux expands the buffers before looking the name up, even for a bad name.
            self._expand_locked()
            tracer = self.tracers.get(name, self.top_level)
            if tracer is None:
                raise OSError(errno.EINVAL, f"no tracer {name!r}")
            if tracer is self.tracer:
                return
            if self._pipe_readers:
                # tr->trace_ref: the tracer cannot change under trace_pipe readers
                raise OSError(errno.EBUSY, "trace_pipe is being read")
            if self.functions is not None:
                try:
                    self.functions.select(tracer.name)
                except OSError:     # tracer_init() failed: the old tracer is gone, nop stays
                    self.tracer = self.tracers.get("nop", self.top_level) or self.tracer
                    self.options.current_tracer_options = tuple(option for option, _ in self.tracer.options)
                    raise
            if self.tracer.reset is not None:
                self.tracer.reset(self)
            if tracer.init is not None:
                tracer.init(self)
            self.tracer = tracer
            self.options.current_tracer_options = tuple(option for option, _ in tracer.options)
            # tracer_init(): every tracer starts on empty buffers.
            with self.buffer_lock:
                self._reset_all_locked()

    # trace_clock
    def read_timestamp_mode(self) -> bytes:
        """tracing_time_stamp_mode_show(): the buffer's events carry deltas (6.1 has nothing
        left that switches a buffer to absolute stamps, ring_buffer_set_time_stamp_abs()'s
        callers gone with 5.12's filter-buffering change, and neither does this kernel)."""
        return b"[delta] absolute\n"

    def read_trace_clock(self) -> bytes:
        names = (f"[{c.name}]" if c is self.clock else c.name for c in self.clocks)
        return (" ".join(names) + "\n").encode()

    def write_trace_clock(self, data: bytes) -> None:
        if len(data) >= _CLOCK_NAME_BUF:
            raise OSError(errno.EINVAL, "clock name too long")
        clock = self.clocks.get(strstrip(data).decode("latin-1"))
        if clock is None:
            raise OSError(errno.EINVAL, "no such clock")
        with self._lock:
            self.clock = clock
            with self.buffer_lock:
                self.buffer.clock = clock.read
                # Timestamps of different clocks do not compare: the buffers start afresh.
                self.buffer.reset()
                self.snapshot.reset()
                self.time_start = clock.read()

    # buffer_size_kb, per_cpu/cpuN/buffer_size_kb, buffer_total_size_kb
    def read_buffer_size_kb(self, cpu: int | None = None) -> bytes:
        with self._lock:
            if cpu is not None:
                return b"%d\n" % (self.buffer.size(cpu) >> 10)
            sizes = {self.buffer.size(c) for c in range(self.nr_cpus)}
            if len(sizes) > 1:
                return b"X\n"
            size_kb = sizes.pop() >> 10
            if self.expansion.expanded:
                return b"%d\n" % size_kb
            return b"%d (expanded: %d)\n" % (size_kb, self.expansion.trace_buf_size >> 10)

    def write_buffer_size_kb(self, data: bytes, cpu: int | None = None) -> None:
        kb = kstrtoul_from_user(data)
        if kb == 0:
            raise OSError(errno.EINVAL, "a buffer needs at least one entry")
        with self._lock:
            self.expansion.expanded = True
            # `val <<= 10` on an unsigned long: huge values wrap as they do in Linux.
            with self.buffer_lock:
                self.buffer.resize((kb << 10) & _ULONG_MAX, cpu)

    def read_buffer_total_size_kb(self) -> bytes:
        with self._lock:
            total_kb = sum(self.buffer.size(c) >> 10 for c in range(self.nr_cpus))
            if self.expansion.expanded:
                return b"%d\n" % total_kb
            expanded_kb = self.nr_cpus * (self.expansion.trace_buf_size >> 10)
            return b"%d (expanded: %d)\n" % (total_kb, expanded_kb)

    # buffer_percent
    def read_buffer_percent(self) -> bytes:
        return b"%d\n" % self.buffer_percent

    def write_buffer_percent(self, data: bytes) -> None:
        percent = kstrtoul_from_user(data)
        if percent > 100:
            raise OSError(errno.EINVAL, "a percent")
        self.buffer_percent = percent

    def _expand_locked(self) -> None:
        """Grow the buffers to their default size on first use (tracing_update_buffers)."""
        if not self.expansion.expanded:
            self.expansion.expanded = True
            with self.buffer_lock:
                self.buffer.resize(self.expansion.trace_buf_size)

    # trace, per_cpu/cpuN/trace
    def read_trace(self, cpu: int | None = None) -> bytes:
        """The non-consuming view of `trace` (cpu None) and `per_cpu/cpuN/trace`: the header
        block, whose counts cover all CPUs as in Linux, then the records in time order."""
        return self.render_buffer(self.buffer, cpu)

    def render_buffer(self, buffer: RingBuffer, cpu: int | None = None) -> bytes:
        """read_trace() of a buffer of this array (the main one, or the snapshot)."""
        with self._lock, self.buffer_lock:
            entries = sum(b.entries for b in buffer)
            written = entries + sum(b.overrun for b in buffer)
            cpus = range(self.nr_cpus) if cpu is None else (cpu,)
            if self._graph_current():
                return self._read_graph_trace(buffer, cpus, entries, written)
            if self.tracer.print_header is not None:
                text = self.tracer.print_header(self)
            else:
                text = trace_header(self.tracer.name, entries, written, self.nr_cpus, self.output_flags,
                                    self.kernel)
            # A snapshot of the pages: records never change once kept, so formatting them
            # outside the locks lets the drain and pipe readers go on meanwhile.
            sources = [(c, [page.copy() for page in buffer.cpu(c).pages]) for c in cpus]
            records = sum(buffer.cpu(c).entries for c in cpus)
            lines = self._tracer_lines(self.output.line_printer(self.clock.in_ns, self.time_start))
            annotate = self.options["annotate"] and written > entries   # (TRACE_FILE_ANNOTATE: overruns)
        return _lines.trace_text(text.encode(), sources, lines, records, annotate)

    def _tracer_lines(self, lines: LinePrinter) -> LinePrinter:
        """print_trace_line(): the current tracer's print_line first, then the lines of the
        options."""
        print_line = self.tracer.print_line
        return lines if print_line is None else print_line(self, lines)

    def _graph_current(self) -> bool:
        return self.tracer.name == "function_graph"

    def _read_graph_trace(self, buffer: RingBuffer, cpus: Iterable[int], entries: int, written: int) -> bytes:
        """`trace` under function_graph: its own header and lines (called with the locks held)."""
        flags = graph_output.GraphFlags.from_options(self.options)
        head = f"# tracer: {self.tracer.name}\n#\n"
        if flags.context_info and flags.latency_format and entries:
            head += latency_header(self.tracer.name, entries, written, self.nr_cpus, self.kernel)
        head += graph_output.graph_header(flags)
        texts, _ = graph_output.render(graph_output.graph_printer(self.output, self.clock.in_ns, self.time_start), ((c, iter(list(buffer.cpu(c)))) for c in cpus))
        return head.encode() + b"".join(texts)

    def _consume_graph(self, cpu: int | None, max_bytes: int) -> bytes:
        """trace_pipe under function_graph: records are taken as they are printed; text made
        beyond max_bytes waits for the next read."""
        with self.buffer_lock:
            return self._graph_pipes.consume(self.buffer, cpu, max_bytes,
                                             lambda: graph_output.graph_printer(self.output, self.clock.in_ns,
                                                                                self.time_start))

    def clear_trace(self, cpu: int | None = None) -> None:
        """Opening `trace` (or per_cpu/cpuN/trace) with O_TRUNC empties the buffer(s)."""
        with self._lock, self.buffer_lock:
            if cpu is None:
                self._reset_all_locked()
            else:
                self.buffer.reset(cpu)

    def _reset_all_locked(self) -> None:
        """Empty every CPU's buffer and the guest's side (tracing_reset_online_cpus)."""
        self.buffer.reset()
        self.time_start = self.clock.read()
        self._graph_pipes = graph_output.GraphPipes()
        self._guest.reset(self.slot)
        self.guest_resets += 1

    # trace_pipe, per_cpu/cpuN/trace_pipe
    def consume(self, cpu: int | None = None, max_bytes: int = _PIPE_CHUNK) -> bytes:
        """Take records, oldest first across the CPUs, as text of at most max_bytes (at least
        one line); b"" when the buffer(s) are empty. A reader that fell behind an overwrite
        gets `CPU:N [LOST M EVENTS]` before the next record of that CPU."""
        if self._graph_current():
            return self._consume_graph(cpu, max_bytes)
        lines = self._tracer_lines(self.output.line_printer(self.clock.in_ns, self.time_start))
        cpus = range(self.nr_cpus) if cpu is None else (cpu,)
        with self.buffer_lock:
            buffers = [self.buffer.cpu(c) for c in cpus]
            # Only what one read can use is looked at, however full the buffers are: a line
            # is at least _MIN_LINE bytes.
            text, taken = _lines.pipe_text([(b.cpu, b.pages) for b in buffers], lines, self._pipe_idx,
                                           max_bytes // _MIN_LINE + 1, max_bytes,
                                           [b.overrun - b.reported_overrun for b in buffers])
            self._pipe_idx += sum(taken)
            for b, count in zip(buffers, taken):
                if count:
                    b.consume(count)
        return text

    # ftrace_dump (the dump and cpudump function commands)
    def dump(self, cpu: int | None = None) -> bytes:
        """Every record of the buffer (of one CPU, or all), oldest first, as ftrace_dump()
        prints them (the latency format whatever the option), consumed."""
        lines = self._tracer_lines(self.output.line_printer(self.clock.in_ns, self.time_start, latency=True))
        cpus = range(self.nr_cpus) if cpu is None else (cpu,)
        parts: list[bytes] = []
        with self.buffer_lock:
            buffers = [self.buffer.cpu(c) for c in cpus]
            while True:   # a part at a time: trace_pipe's way through the buffers
                text, taken = _lines.pipe_text([(b.cpu, b.pages) for b in buffers], lines, self._pipe_idx,
                                               _DUMP_PART // _MIN_LINE + 1, _DUMP_PART,
                                               [b.overrun - b.reported_overrun for b in buffers])
                if not text:
                    return b"".join(parts)
                parts.append(text)
                self._pipe_idx += sum(taken)
                for b, count in zip(buffers, taken):
                    if count:
                        b.consume(count)

    # records in: the drain (guest events) and trace_marker
    def add_records(self, cpu: int, records: Iterable[tuple[int, bytes]]) -> int:
        """Keep records (ts, payload) of one CPU, already filtered; returns how many were kept.
        The guest wrote them while recording, so they stay even if tracing went off since."""
        return self.add_entries(cpu, [Entry(ts, payload, entry_length(len(payload))) for ts, payload in records])

    def add_entries(self, cpu: int, entries: list[Entry]) -> int:
        """add_records() of records made into entries already (the drain's bulk path)."""
        with self.buffer_lock:
            return self.buffer.cpu(cpu).write(entries, self.options["overwrite"])

    def write_marker(self, data: bytes, pid: int, comm: bytes) -> int:
        """trace_marker: one TRACE_PRINT record per write. The writer is a host process, so the
        record carries its pid (comm saved from /proc) and is put on CPU 0.  The triggers of
        this array's ftrace/print event, if it has some, run on the write in the kernel, as
        6.1's tracing_mark_write() runs them (on the text as written: no newline added)."""
        if not self.options["markers"]:
            raise OSError(errno.EINVAL, "markers option is off")
        if not self.recording or not self.cpumask & 1:   # (put on CPU 0)
            raise OSError(errno.EBADF, "ring buffer disabled")
        count = min(len(data), TRACE_BUF_SIZE)
        text = data[:count]
        if not text.endswith(b"\n"):
            text += b"\n"
        room = count + 2 + max(0, _FAULTED_SIZE - count)
        payload = _PRINT_HEADER.pack(TRACE_PRINT, 0, 0, pid, 0) + text.ljust(room, b"\0")
        if self.options["record-cmd"]:
            self.cmdlines.save(pid, comm)
        if self.add_records(0, [(self.clock.read(), payload)]):
            self.buffer.waiters.wake()
        marker_event = self.registry.get(*MARKER_EVENT)
        if marker_event is not None and self.triggers.has_triggers(marker_event):
            self._guest.marker_triggers(self.slot, pid, data[:count])
        return count

    def write_marker_raw(self, data: bytes, pid: int, comm: bytes) -> int:
        """trace_marker_raw (tracing_mark_raw_write()): one TRACE_RAW_DATA record per write,
        an id (the first 4 bytes) and the rest; the record is at least FAULT_SIZE_ID long and
        its unwritten bytes are zero.  Put on CPU 0 with the writer's pid, as trace_marker's."""
        if not self.options["markers"]:
            raise OSError(errno.EINVAL, "markers option is off")
        if len(data) < 4 or len(data) > _RAW_DATA_MAX_SIZE:
            raise OSError(errno.EINVAL, "a raw marker is an id and at most 3 KiB")
        if not self.recording or not self.cpumask & 1:   # (put on CPU 0)
            raise OSError(errno.EBADF, "ring buffer disabled")
        size = 12 + len(data) + max(0, _FAULT_SIZE_ID - len(data))   # sizeof(*entry) + cnt
        payload = _RAW_HEADER.pack(TRACE_RAW_DATA, 0, 0, pid) + data
        payload = payload.ljust((size + 3) & ~3, b"\0")   # the ring's length of it: whole words
        if self.options["record-cmd"]:
            self.cmdlines.save(pid, comm)
        if self.add_records(0, [(self.clock.read(), payload)]):
            self.buffer.waiters.wake()
        return len(data)

    # free_buffer
    def write_free_buffer(self, data: bytes) -> None:
        """Writes are accepted and ignored; the work happens when the file is closed."""

    def release_free_buffer(self) -> None:
        """Closing free_buffer shrinks the buffers to nothing, and with disable_on_free also
        turns tracing off (tracing_free_buffer_release)."""
        if self.options["disable_on_free"]:
            self.write_tracing_on(b"0")
        with self._lock, self.buffer_lock:
            self.buffer.resize(0)

    # pause-on-trace: an open `trace` holds recording off until it is closed
    def open_trace(self) -> bool:
        """Called when `trace` is opened; True when this open paused recording."""
        if not self.options["pause-on-trace"]:
            return False
        with self._lock:
            self._stop_count += 1
            if self._stop_count == 1:
                self._guest.set_stopped(self.slot, True)
        return True

    def close_trace(self, paused: bool) -> None:
        if paused:
            with self._lock:
                self._stop_count -= 1
                if self._stop_count == 0:
                    self._guest.set_stopped(self.slot, False)

    def pipe_ready(self, cpu: int | None, buffer: RingBuffer | None = None) -> bool:
        """A poll of trace_pipe (cpu None), per_cpu/cpuN/trace_pipe or trace_pipe_raw (or of
        snapshot_raw: `buffer` the snapshot's), as trace_poll(): readable always with the
        `block` option; else trace_pipe as soon as a record is in, a cpu's file once the
        buffer is buffer_percent full (ring_buffer_poll_wait()'s full_hit())."""
        if self.options["block"]:
            return True
        buffer = self.buffer if buffer is None else buffer
        with self.buffer_lock:
            if cpu is None:
                return not buffer.is_empty()
            return buffer.cpu(cpu).full_hit(self.buffer_percent)

    # trace_pipe, per_cpu/cpuN/trace_pipe and trace_pipe_raw readers hold the tracer
    def open_pipe(self) -> None:
        with self._lock:
            self._pipe_readers += 1

    def close_pipe(self, token: object = None) -> None:
        with self._lock:
            self._pipe_readers -= 1

    def shutdown(self) -> None:
        """An instance going away: its events and function tracer off, and its guest slot
        silent and empty."""
        self.triggers.release_all()
        self.events.disable_all()
        self.events.pid_filter.clear()
        self.events.notrace_pid_filter.clear()
        # the guest stops following forks for the slot (the next array given it starts clean)
        self.options.set("event-fork", False)
        self.options.set("function-fork", False)
        self.options.set("stacktrace", False)
        self.options.set("userstacktrace", False)
        if self.functions is not None:
            self.functions.release()
        self._guest.set_recording(self.slot, False)
        self._guest.reset(self.slot)
        self.guest_resets += 1

    # per_cpu/cpuN/stats
    def read_stats(self, cpu: int) -> bytes:
        with self._lock, self.buffer_lock:
            text = stats_text(self.buffer.cpu(cpu), self.buffer.time_stamp(), self.clock.in_ns)
        return text.encode()


def _syscall_names(registry: EventRegistry) -> dict[int, str]:
    """get_syscall_name(): number -> sys_NAME, from the syscalls:sys_enter_* events."""
    names = {}
    for event in registry.events("syscalls") if "syscalls" in registry.systems() else ():
        nr = getattr(event.desc, "syscall_nr", None)
        if nr is not None and event.name.startswith("sys_enter_"):
            names[nr] = "sys_" + event.name[len("sys_enter_"):]
    return names


# The shortest line a trace_pipe read is expected to hold (a default line is longer): it
# sizes the window of records one read looks at. Shorter lines only make reads shorter.
_MIN_LINE = 48

# Few payload sizes occur (one or two per event): their page lengths are computed once.
entry_length = functools.cache(event_length)
