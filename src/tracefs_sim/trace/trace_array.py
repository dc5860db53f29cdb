"""A trace array: one set of per-CPU buffers with its tracer, clock and on/off switch
(struct trace_array in trace.h; the top level is Linux's global_trace, instances come later).

Every control-file operation is a method here that takes and returns plain text/bytes and
raises OSError with the errno Linux gives, leaving state unchanged on error.
"""

import errno
import threading
from dataclasses import dataclass

from . import output
from .clock import TraceClock, TraceClocks
from .kstrtox import kstrtoul_from_user, strstrip
from .ring_buffer import RingBuffer
from .tracers import NOP, TracerRegistry

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
    ):
        self.nr_cpus = nr_cpus
        self.clocks = clocks
        self.tracers = tracers or TracerRegistry()
        self.expansion = expansion or BufferExpansion()
        self.clock: TraceClock = clocks.default
        self.tracer = NOP
        self.output_flags = output.OutputFlags()
        self._on = True
        # One lock for all control operations, as trace_types_lock in Linux.
        self._lock = threading.Lock()
        initial = self.expansion.trace_buf_size if self.expansion.expanded else _UNEXPANDED_SIZE
        self.buffer = RingBuffer(nr_cpus, initial, self.clock.read)

    # tracing_on
    @property
    def tracing_on(self) -> bool:
        return self._on

    def read_tracing_on(self) -> bytes:
        return b"%d\n" % self._on

    def write_tracing_on(self, data: bytes) -> None:
        value = kstrtoul_from_user(data)
        with self._lock:
            if bool(value) == self._on:
                return
            self._on = bool(value)
        if not self._on:
            # Readers blocked in trace_pipe re-check: after having read something, they end.
            self.buffer.waiters.wake()

    # current_tracer / available_tracers
    def read_current_tracer(self) -> bytes:
        return f"{self.tracer.name}\n".encode()

    def read_available_tracers(self) -> bytes:
        return self.tracers.available_text().encode()

    def write_current_tracer(self, data: bytes) -> None:
        name = strstrip(data[:_MAX_TRACER_SIZE]).decode("latin-1")
        with self._lock:
            # Linux expands the buffers before looking the name up, even for a bad name.
            self._expand_locked()
            tracer = self.tracers.get(name)
            if tracer is None:
                raise OSError(errno.EINVAL, f"no tracer {name!r}")
            self.tracer = tracer

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
            self.buffer.clock = clock.read
            # Timestamps of different clocks do not compare: the buffers start afresh.
            self.buffer.reset()

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
            self.buffer.resize(self.expansion.trace_buf_size)

    # trace, per_cpu/cpuN/trace
    def read_trace(self) -> bytes:
        """The non-consuming view of `trace` and `per_cpu/cpuN/trace`: the header block (whose
        counts cover all CPUs, as in Linux), then the records; nothing writes records until
        tracepoints exist."""
        with self._lock:
            entries = sum(b.entries for b in self.buffer)
            written = entries + sum(b.overrun for b in self.buffer)
            text = output.trace_header(self.tracer.name, entries, written, self.nr_cpus, self.output_flags)
        return text.encode()

    def clear_trace(self, cpu: int | None = None) -> None:
        """Opening `trace` (or per_cpu/cpuN/trace) with O_TRUNC empties the buffer(s)."""
        with self._lock:
            self.buffer.reset(cpu)

    # per_cpu/cpuN/stats
    def read_stats(self, cpu: int) -> bytes:
        with self._lock:
            text = output.stats_text(self.buffer.cpu(cpu), self.buffer.time_stamp(), self.clock.in_ns)
        return text.encode()
