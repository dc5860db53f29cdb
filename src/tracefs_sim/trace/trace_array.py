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

from . import _lines, graph_output, output
from .clock import TraceClock, TraceClocks
from .cmdlines import SavedCmdlines
from .cpumask import format_cpumask, parse_cpumask
from .error_log import ErrorLog
from .event_control import EventControl
from .events import TRACE_PRINT, EventRegistry
from .ftrace_records import TRACE_FUNC_REPEATS, SymFlags, repeats_line
from .function_tracer import FunctionTracing
from .kstrtox import kstrtoul_from_user, strstrip
from .options import TraceOptions
from .rb_page import event_length
from .ring_buffer import Entry, RingBuffer
from .tracers import NOP, TracerRegistry

log = logging.getLogger(__name__)

# trace_marker: at most TRACE_BUF_SIZE bytes per write; the entry keeps room for "<faulted>".
TRACE_BUF_SIZE = 1024
_FAULTED_SIZE = len("<faulted>")
_PRINT_HEADER = struct.Struct("<HBBiQ")   # struct print_entry: trace_entry + ip
# A trace_pipe read returns at most this much text (one page of trace_seq per read).
_PIPE_CHUNK = 4096

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
    buffers stay minimal until tracing is first used anywhere."""

    trace_buf_size: int = TRACE_BUF_SIZE_DEFAULT
    expanded: bool = False


class TraceArray:
    def __init__(
        self,
        nr_cpus: int,
        clocks: TraceClocks,
        *,
        tracers: TracerRegistry | None = None,
        expansion: BufferExpansion | None = None,
        events: EventRegistry | None = None,
        guest=None,
        slot: int = 0,
        cmdlines: SavedCmdlines | None = None,
        symbolize: Callable | None = None,
        kernel: output.KernelIdentity | None = None,
        ftrace=None,
        irq_text: tuple[int, int] | None = None,
        catch_up: Callable[[], object] | None = None,
    ):
        """events + guest (a GuestTracing) give the array its events, recording into the
        guest's `slot`; cmdlines is shared by all arrays; symbolize(addr) -> (name, off, size);
        kernel: what the latency-format header names; ftrace (function_tracer.FtraceGlobal)
        gives it the function tracers; irq_text: the kernel's irq entry text [start, end), if any;
        catch_up(): moves what the guest has recorded so far into the buffers (the drain)."""
        self.nr_cpus = nr_cpus
        self.cpumask = (1 << nr_cpus) - 1
        self.clocks = clocks
        self.tracers = tracers or TracerRegistry()
        self.expansion = expansion or BufferExpansion()
        self.clock: TraceClock = clocks.default
        self.tracer = NOP
        self.top_level = slot == 0
        self.options = TraceOptions(tuple(option for tracer in self.tracers.usable(self.top_level)
                                          for option in tracer.options), self.tracers.flags)
        self.functions = None
        if ftrace is not None:
            self.functions = FunctionTracing(ftrace, slot, self.options, top_level=self.top_level, guest=guest)
        self.irq_text = irq_text
        # function_graph's trace_pipe readers (all CPUs: None, or one CPU): each one's printer
        # state, and the lines made but not yet read
        self._pipe_graph: dict[int | None, tuple[graph_output.GraphPrinter, list[bytes]]] = {}
        self._pipe_readers = 0
        self.cmdlines = cmdlines or SavedCmdlines()
        self.registry = events
        self.symbolize = symbolize
        self.kernel = kernel
        self.slot = slot
        # Clock value when the buffers were last reset: latency format counts from it.
        self.time_start = 0
        # Bumped when the guest's side of the slot is reset, so the drain starts afresh.
        self.guest_resets = 0
        self._guest = guest
        self._catch_up = catch_up
        self._on = True
        # pause-on-trace: readers of `trace` holding recording off (tracing_stop_tr).
        self._stop_count = 0
        self._pipe_idx = 0       # records handed to trace_pipe readers (latency format's idx)
        # (what they depend on, {(pid, cpu, flags, preempt): context prefix}) of the last read
        self._prefixes: tuple[tuple, dict] = ((), {})
        # (the options event texts depend on, {event id: (event, {fields: text})}): see _formatter
        self._texts: tuple[tuple, dict, list[int]] = ((), {}, [0])  # options, texts by event id, bytes held
        # One lock for all control operations, as trace_types_lock in Linux.
        self._lock = threading.Lock()
        # The buffers' own lock: the drain writes while readers read and consume.
        self.buffer_lock = threading.RLock()
        initial = self.expansion.trace_buf_size if self.expansion.expanded else _UNEXPANDED_SIZE
        self.buffer = RingBuffer(nr_cpus, initial, self.clock.read)
        self.error_log = ErrorLog(clocks.default.read)
        self.events = None
        if events is not None and guest is not None:
            self.events = EventControl(events, slot, guest, self.error_log, self.expand_buffers)
            guest.set_recording(slot, True)
            self.options.watch("event-fork", lambda on: guest.pid_lists.set_event_fork(slot, on))
            if self.functions is not None:  # enable_event / disable_event act on its events
                self.functions.commands.events = self.events

    @property
    def output_flags(self) -> output.OutputFlags:
        o = self.options
        return output.OutputFlags(context_info=o["context-info"], verbose=o["verbose"],
                                  irq_info=o["irq-info"], record_tgid=o["record-tgid"],
                                  latency_format=o["latency-format"])

    @property
    def recording(self) -> bool:
        """Whether records are kept now: tracing on and no reader pausing it."""
        return self._stop_count == 0 and self.tracing_on

    def expand_buffers(self) -> None:
        with self._lock:
            self._expand_locked()

    # tracing_on
    @property
    def tracing_on(self) -> bool:
        """The buffer's state, which the guest's traceon/traceoff function probes also change
        (while no reader pauses recording, the guest's bit is it)."""
        if self._guest is not None and self._stop_count == 0:
            self._on = self._guest.is_recording(self.slot)
        return self._on

    def read_tracing_on(self) -> bytes:
        return b"%d\n" % self.tracing_on

    # tracing_cpumask: the CPUs whose buffers record (the guest drops the others' records)
    def read_tracing_cpumask(self) -> bytes:
        return format_cpumask(self.cpumask, self.nr_cpus)

    def write_tracing_cpumask(self, data: bytes) -> None:
        mask = parse_cpumask(data, self.nr_cpus)
        with self._lock:
            self.cpumask = mask
        if self._guest is not None:
            self._guest.set_cpumask(self.slot, mask)

    def write_tracing_on(self, data: bytes) -> None:
        value = kstrtoul_from_user(data)
        on = self.tracing_on
        with self._lock:
            if bool(value) == on:
                return
            self._on = bool(value)
        if self._guest is not None:
            self._guest.set_recording(self.slot, self._on and self._stop_count == 0)
        if not self._on:
            # A trace_pipe reader that has read something ends once it finds the buffer empty
            # with tracing off: by then the buffer must hold what the guest recorded before
            # going off, as in Linux, where the writer puts records in the buffer itself.
            # (Readers look from the thread this runs in, so none looks in between.)
            self._caught_up()
            # Readers blocked in trace_pipe re-check: after having read something, they end.
            self.buffer.waiters.wake()

    def _caught_up(self) -> None:
        if self._catch_up is None:
            return
        try:
            self._catch_up()
        except Exception:
            # The drain loop retries; readers get what the buffers hold.
            log.exception("catching up with the guest failed")

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
                self.functions.select(tracer.name)
            self.tracer = tracer
            self.options.current_tracer_options = tuple(option for option, _ in tracer.options)
            # tracer_init(): every tracer starts on empty buffers.
            with self.buffer_lock:
                self._reset_all_locked()

    # trace_clock
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
        with self._lock, self.buffer_lock:
            entries = sum(b.entries for b in self.buffer)
            written = entries + sum(b.overrun for b in self.buffer)
            cpus = range(self.nr_cpus) if cpu is None else (cpu,)
            if self._graph_current():
                return self._read_graph_trace(cpus, entries, written)
            text = output.trace_header(self.tracer.name, entries, written, self.nr_cpus, self.output_flags,
                                       self.kernel)
            # A snapshot of the pages: records never change once kept, so formatting them
            # outside the locks lets the drain and pipe readers go on meanwhile.
            sources = [(c, [page.copy() for page in self.buffer.cpu(c).pages]) for c in cpus]
            records = sum(self.buffer.cpu(c).entries for c in cpus)
            lines = self._formatter()
        return _lines.trace_text(text.encode(), sources, lines, records)

    def _graph_current(self) -> bool:
        return self.tracer.name == "function_graph"

    def _graph_printer(self) -> graph_output.GraphPrinter:
        """A function_graph printer for the options as they are now, with fresh per-CPU state
        (each open file has its own in Linux)."""
        flags = graph_output.GraphFlags.from_options(self.options)
        lines = self._formatter()
        registry = self.registry
        symbolize = self.symbolize

        def symbol(addr: int) -> bytes:
            found = symbolize(addr) if symbolize is not None else None
            return found[0].encode() if found is not None else b"0x%x" % addr

        def comment(entry: Entry) -> bytes | None:
            event_type = _ENTRY_HEADER.unpack_from(entry.payload, 0)[0]
            event = registry.by_id(event_type) if registry is not None else None
            if event is None:
                return None
            if event.id == TRACE_PRINT:   # trace_print_printk_msg_only: the message alone
                return bytes(entry.payload[16:]).split(b"\0", 1)[0]
            o = self.options
            return event.body(entry.payload, o["verbose"], symbolize, None,
                              SymFlags(sym_offset=o["sym-offset"], sym_addr=o["sym-addr"]))

        return graph_output.GraphPrinter(
            self.nr_cpus, flags, find_comm=self.cmdlines.find, symbol=symbol,
            other_line=lambda cpu, entry: lines(cpu, entry, entry.ts, 0), comment=comment,
            irq_text=self.irq_text)

    def _read_graph_trace(self, cpus, entries: int, written: int) -> bytes:
        """`trace` under function_graph: its own header and lines (called with the locks held)."""
        flags = graph_output.GraphFlags.from_options(self.options)
        head = f"# tracer: {self.tracer.name}\n#\n"
        if flags.context_info and flags.latency_format and entries and self.kernel is not None:
            head += output.latency_header(self.tracer.name, entries, written, self.nr_cpus, self.kernel)
        head += graph_output.graph_header(flags)
        texts, _ = graph_output.render(self._graph_printer(), ((c, iter(list(self.buffer.cpu(c)))) for c in cpus))
        return head.encode() + b"".join(texts)

    def _consume_graph(self, cpu: int | None, max_bytes: int) -> bytes:
        """trace_pipe under function_graph: records are taken as they are printed; text made
        beyond max_bytes waits for the next read."""
        with self.buffer_lock:
            if cpu not in self._pipe_graph:
                self._pipe_graph[cpu] = (self._graph_printer(), [])
            printer, carry = self._pipe_graph[cpu]
            if not carry:
                cpus = range(self.nr_cpus) if cpu is None else (cpu,)
                texts, taken = graph_output.render(printer, ((c, iter(self.buffer.cpu(c))) for c in cpus), max_bytes)
                for c, count in taken.items():
                    if count:
                        self.buffer.cpu(c).consume(count)
                carry.extend(line for text in texts for line in text.splitlines(keepends=True))
            size = 0
            taken_lines = 0
            while taken_lines < len(carry) and (not taken_lines or size + len(carry[taken_lines]) <= max_bytes):
                size += len(carry[taken_lines])
                taken_lines += 1
            out = carry[:taken_lines]
            del carry[:taken_lines]
            return b"".join(out)

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
        self._pipe_graph = {}
        if self._guest is not None:
            self._guest.reset(self.slot)
            self.guest_resets += 1

    # trace_pipe, per_cpu/cpuN/trace_pipe
    def consume(self, cpu: int | None = None, max_bytes: int = _PIPE_CHUNK) -> bytes:
        """Take records, oldest first across the CPUs, as text of at most max_bytes (at least
        one line); b"" when the buffer(s) are empty. A reader that fell behind an overwrite
        gets `CPU:N [LOST M EVENTS]` before the next record of that CPU."""
        if self._graph_current():
            return self._consume_graph(cpu, max_bytes)
        lines = self._formatter()
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

    def _formatter(self) -> Callable[[int, Entry, int, int], bytes]:
        """A line printer for the options as they are now (print_trace_line):
        line(cpu, entry, time stamp of the next record, index of the record)."""
        o = self.options
        in_ns = self.clock.in_ns
        opts = output.LineOptions(
            context_info=o["context-info"], irq_info=o["irq-info"], record_tgid=o["record-tgid"],
            verbose=o["verbose"], raw=o["raw"], hex=o["hex"], bin=o["bin"],
            sym_offset=o["sym-offset"], sym_addr=o["sym-addr"])
        registry = self.registry
        by_id = registry.by_id if registry is not None else lambda event_type: None
        cmdlines = self.cmdlines
        symbolize = self.symbolize
        latency = o["latency-format"]
        time_start = self.time_start
        hash_pointer = None if o["hash-ptr"] else _address_itself
        verbose = opts.verbose
        sym_flags = SymFlags(print_parent=o["print-parent"], sym_offset=o["sym-offset"], sym_addr=o["sym-addr"])
        # What an event's text depends on besides the record.
        body_key = (verbose, hash_pointer is None, sym_flags)
        # Context prefixes, kept from read to read while the saved comms and tgids and the
        # options shaping them stay the same (trace_pipe formats a page at a time).
        prefix_key = (cmdlines.generation, opts.irq_info, opts.record_tgid)
        if self._prefixes[0] != prefix_key:
            self._prefixes = (prefix_key, {})
        # keyed by _prefix_key(pid, cpu, flags, preempt), as _lines.DefaultLine looks them up
        prefixes: dict[int, bytes] = self._prefixes[1]
        # Event texts by record content, kept from read to read while the options they depend
        # on stay the same: an event's text is a function of its fields alone (no print fmt
        # reads the common ones), and traces repeat themselves (the same syscall, the same
        # switch, the same function and parent), so most lines find theirs here, and reading
        # `trace` again evaluates no print fmt again.
        if self._texts[0] != body_key:
            self._texts = (body_key, {}, [0])
        texts: dict[int, tuple[object, dict[bytes, bytes]]] = self._texts[1]
        kept = self._texts[2]
        # A removed dynamic event's id is not given back (until ids run out), so its texts,
        # and the event they hold, would stay here for good: forget them with the event.
        for event_id in [i for i, (event, _) in texts.items() if by_id(i) is not event]:
            kept[0] -= sum(map(_text_cost, texts.pop(event_id)[1].items()))

        def body(event, entry: Entry) -> bytes:
            payload = entry.payload
            if event.id == TRACE_FUNC_REPEATS:
                # the one text that depends on the record's time stamp too: never kept
                return repeats_line(payload, entry.ts, in_ns, symbolize, sym_flags)
            known = texts.get(event.id)
            if known is None or known[0] is not event:   # a dynamic event's id may be reused
                known = texts[event.id] = (event, {})
            fields = payload[_ENTRY_HEADER.size:]
            text = known[1].get(fields)
            if text is None:
                if event.ftrace and event.id != TRACE_PRINT:
                    # function and stack records follow the sym-* and print-parent options
                    text = event.desc.line(payload, symbolize, sym_flags)
                else:
                    text = event.body(payload, verbose, symbolize, hash_pointer, sym_flags)
                if kept[0] >= _TEXTS_BUDGET:
                    for _, event_texts in texts.values():
                        event_texts.clear()
                    kept[0] = 0
                known[1][fields] = text
                kept[0] += _text_cost((fields, text))
            return text

        if opts.context_info and not (latency or opts.bin or opts.hex or opts.raw):
            # The default line, by far the most read: made in C from the two caches; this
            # Python printer makes (and caches) what they lack.
            record_tgid = opts.record_tgid
            unpack_header = _ENTRY_HEADER.unpack_from
            # trace_print_time(): ns clocks print seconds.micros rounded to the microsecond
            stamp = b"%s %5d.%06d: %s" if in_ns else b"%s %12d: %s"

            def default_line(cpu: int, entry: Entry, next_ts: int, idx: int) -> bytes:
                event_type, flags, preempt, pid = unpack_header(entry.payload, 0)
                key = _prefix_key(pid, cpu, flags, preempt)
                prefix = prefixes.get(key)
                if prefix is None:
                    tgid = cmdlines.find_tgid(pid) if record_tgid else None
                    prefix = prefixes[key] = output.context_prefix(cmdlines.find(pid), pid, tgid, cpu, flags,
                                                                   preempt, opts)
                event = by_id(event_type)
                text = b"Unknown type %d\n" % event_type if event is None else body(event, entry)
                if in_ns:
                    return stamp % (prefix, *divmod((entry.ts + 500) // 1000, 1_000_000), text)
                return stamp % (prefix, entry.ts, text)

            return _lines.DefaultLine(prefixes, texts, in_ns, default_line)

        def line(cpu: int, entry: Entry, next_ts: int, idx: int) -> bytes:
            event_type, flags, preempt, pid = _ENTRY_HEADER.unpack_from(entry.payload, 0)
            event = by_id(event_type)
            # bin and hex have no per-event printer here: trace_nop_print's `type: N` follows.
            if opts.bin:
                head = struct.pack("<iiQ", pid, cpu, entry.ts) if opts.context_info else b""
                return head + (b"type: %d\n" % event_type if event else b"")
            if opts.hex:
                head = (output._hex_field(pid, 4) + output._hex_field(cpu, 4) + output._hex_field(entry.ts, 8)
                        if opts.context_info else b"")
                return head + (b"type: %d\n" % event_type if event else b"") + b"\n"
            if opts.raw:
                head = b"%d %d %d " % (pid, cpu, entry.ts) if opts.context_info else b""
                return head + (event.raw_body(entry.payload) if event else b"%d ?\n" % event_type)
            head = b""
            if opts.context_info:   # and latency: the default line has its own path
                head = output.lat_context(cmdlines.find(pid), pid, cpu, flags, preempt, entry.ts, next_ts,
                                          time_start, idx, in_ns, opts.verbose)
            if event is None:
                return head + b"Unknown type %d\n" % event_type
            return head + body(event, entry)

        return line

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
        record carries its pid (comm saved from /proc) and is put on CPU 0."""
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
        return count

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
            self._sync_recording()
        return True

    def close_trace(self, paused: bool) -> None:
        if paused:
            with self._lock:
                self._stop_count -= 1
                self._sync_recording()

    # trace_pipe, per_cpu/cpuN/trace_pipe and trace_pipe_raw readers hold the tracer
    def open_pipe(self) -> None:
        with self._lock:
            self._pipe_readers += 1

    def close_pipe(self, token=None) -> None:
        with self._lock:
            self._pipe_readers -= 1

    def _sync_recording(self) -> None:
        if self._guest is not None:
            self._guest.set_recording(self.slot, self._on and self._stop_count == 0)

    def shutdown(self) -> None:
        """An instance going away: its events and function tracer off, and its guest slot
        silent and empty."""
        if self.events is not None:
            self.events.disable_all()
            self.events.pid_filter.clear()
            self.events.notrace_pid_filter.clear()
        # the guest stops following forks for the slot (the next array given it starts clean)
        self.options.set("event-fork", False)
        self.options.set("function-fork", False)
        if self.functions is not None:
            self.functions.release()
        if self._guest is not None:
            self._guest.set_recording(self.slot, False)
            self._guest.reset(self.slot)
            self.guest_resets += 1

    # per_cpu/cpuN/stats
    def read_stats(self, cpu: int) -> bytes:
        with self._lock, self.buffer_lock:
            text = output.stats_text(self.buffer.cpu(cpu), self.buffer.time_stamp(), self.clock.in_ns)
        return text.encode()


_ENTRY_HEADER = struct.Struct("<HBBi")


def _prefix_key(pid: int, cpu: int, flags: int, preempt: int) -> int:
    """The context prefix cache's key (one int: no tuple made per record)."""
    return (pid & 0xFFFFFFFF) << 32 | cpu << 16 | flags << 8 | preempt


# The shortest line a trace_pipe read is expected to hold (a default line is longer): it
# sizes the window of records one read looks at. Shorter lines only make reads shorter.
_MIN_LINE = 48
# The bytes an array's cached event texts (by record content, all event types together) may
# hold before that cache starts afresh. A budget in bytes, not a count: a function trace of
# every function has a few thousand short distinct texts, while texts that never repeat
# (trace_marker lines, strings a kprobe fetched) are long, and 8192 of those held ~3 MB.
_TEXTS_BUDGET = 1 << 20
# What one cached text costs besides its key's and its text's bytes: two bytes objects'
# headers (sys.getsizeof(b"") is 33) and a dict slot.
_TEXT_OVERHEAD = 100


def _text_cost(item: tuple[bytes, bytes]) -> int:
    fields, text = item
    return len(fields) + len(text) + _TEXT_OVERHEAD


# Few payload sizes occur (one or two per event): their page lengths are computed once.
entry_length = functools.cache(event_length)


def _address_itself(addr: int) -> int:
    """hash-ptr off: %p prints the address as %px does."""
    return addr
