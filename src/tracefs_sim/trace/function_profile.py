"""The function profiler (Linux 6.1's kernel/trace/ftrace.c, CONFIG_FUNCTION_PROFILER with the
graph tracer): function_profile_enabled and trace_stat/functionN.

On, it counts every call of the functions the top-level set_ftrace_filter/set_ftrace_notrace
select and times each (graph-time: the callees' time included), in the emulated kernel
(kernel/ftrace.c's profile_entry()/profile_return(): one record per function per cpu, the hits
on the cpu of the call, the time on the cpu of the return), never here.  Turned on it starts
from zero; turned off, what it found stays readable.  It is a function graph user, and 6.1 has
one at a time: while function_graph is the top-level tracer it cannot start, and while it
runs function_graph cannot (EBUSY; the old tracer gone, nop stays, as tracing_set_tracer()).

The real 6.1 this project checks against is built without the profiler (Debian's config), so
the formats are those of 6.1's source: function_stat_headers(), function_stat_show(), the
trace_stat files' order (stat.c's tree, by total time, largest first; of equal ones the later
found first).
"""
from __future__ import annotations

import errno
import threading
from collections.abc import Callable

from ..lib.kstrtox import kstrtoul_from_user
from ..probes.ftrace import FtraceSites
from .function_tracer import FunctionTracing
from .graph_output import format_duration

HEADERS = (b"  Function                               Hit    Time            Avg             s^2\n"
           b"  --------                               ---    ----            ---             ---\n")


class FunctionProfiler:
    def __init__(self, sites: FtraceSites, top: FunctionTracing, thresh: Callable[[], int]):
        """sites: the kernel's function sites; top: the global array's function tracing (its
        filters pick the functions, its tracer may be the graph tracer); thresh():
        tracing_thresh in ns (records whose average is below it are not shown)."""
        self._sites = sites
        self._top = top
        self._thresh = thresh
        self._lock = threading.Lock()   # ftrace_profile_lock
        self.enabled = False
        top.watch_filter(self._apply)
        top.graph_busy = lambda: self.enabled

    def read_enabled(self) -> bytes:
        return b"%u\n" % self.enabled

    def write_enabled(self, data: bytes) -> None:
        """ftrace_profile_write(): kstrtoul, any non-zero value is 1; only a change acts."""
        on = bool(kstrtoul_from_user(data))
        with self._lock:
            if on == self.enabled:
                return
            if on and self._top.tracer == "function_graph":
                raise OSError(errno.EBUSY, "the graph tracer is in use")   # register_ftrace_graph()
            self.enabled = on
            self._apply_locked()

    def _apply(self) -> None:
        """The filters changed: the profiler follows them while it is on."""
        with self._lock:
            if self.enabled:
                self._apply_locked()

    def _apply_locked(self) -> None:
        self._sites.set_profiler(self._top.traced() if self.enabled else None)

    def read_stat(self, cpu: int) -> bytes:
        """trace_stat/function<cpu>: the headers, then each function hit on that cpu."""
        records = self._sites.read_profile()[cpu]
        # stat_seq_init(): inserted in order found, each before the first it is not smaller
        # than, read from the largest: by time, largest first, the later found first
        ordered = [r for _, r in sorted(enumerate(records), key=lambda e: (-e[1][2], -e[0]))]
        thresh = self._thresh()
        out = [HEADERS]
        for name, hits, time_ns, squared in ordered:
            if not hits:
                continue
            avg = time_ns // hits
            if thresh and avg < thresh:
                continue
            # s^2 = (n * sum(x^2) - (sum x)^2) / (n * (n - 1)), in us^2 (the printer divides
            # by 1000 once more)
            denom = hits * (hits - 1) * 1000 & _ULONG
            stddev = ((hits * squared - time_ns * time_ns) & _ULONG) // denom if denom else 0
            out.append(b"  %-30.30s  %10d    %s    %s    %s\n" % (
                name.encode("latin-1")[:30], hits, format_duration(time_ns), format_duration(avg),
                format_duration(stddev)))
        return b"".join(out)


_ULONG = (1 << 64) - 1
