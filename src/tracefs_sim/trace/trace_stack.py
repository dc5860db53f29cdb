"""The stack tracer (Linux 6.1's kernel/trace/trace_stack.c): kernel.stack_tracer_enabled,
stack_trace_filter, stack_max_size and stack_trace.

Enabled, it measures the stack at every function entry its filter lets through (all while the
filter is empty), in the emulated kernel (kernel/trace_stack.c: the dispatcher's check_stack()),
and keeps the deepest: its size (stack_max_size) and its return addresses, each with the depth
of its slot (stack_trace). Disabling keeps what was found; writing stack_max_size sets the size
a stack must pass to be kept (0 starts over)."""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ..lib.kstrtox import kstrtoul_from_user
from ..lib.sysctl import parse_sysctl_int
from ..probes.ftrace import FtraceSites
from .ftrace_filter import FunctionFilter
from .function_commands import COMMANDS

_ALL_FUNCTIONS = b"#### all functions enabled ####\n"
_DISABLED = (b"#\n"
             b"#  Stack tracer disabled\n"
             b"#\n"
             b"# To enable the stack tracer, either add 'stacktrace' to the\n"
             b"# kernel command line\n"
             b"# or 'echo 1 > /proc/sys/kernel/stack_tracer_enabled'\n"
             b"#\n")
_INT_MIN, _INT_MAX = -2**31, 2**31 - 1


class StackTracer:
    def __init__(self, sites: FtraceSites, symbolize: Callable[[int], tuple[str, int, int] | None]):
        """sites: the kernel's function sites; symbolize: kallsyms_lookup() (addr -> (name,
        offset, size) or None)."""
        self._sites = sites
        self._symbolize = symbolize
        self._lock = threading.Lock()   # stack_sysctl_mutex
        self.enabled = 0                 # stack_tracer_enabled, as proc_dointvec keeps it
        # stack_trace_filter: the stack tracer's ftrace_ops filter (no function commands)
        self.filter = FunctionFilter(sites.functions, _ALL_FUNCTIONS, self._apply, orphan_commands=COMMANDS)
        self.sysctl = StackTracerEnabled(self)

    def set_enabled(self, data: bytes) -> int:
        """stack_trace_sysctl() written: the int proc_dointvec takes; the tracer registers or
        unregisters when it goes from zero to not, or back."""
        with self._lock:
            self.enabled, taken = parse_sysctl_int(data, _INT_MIN, _INT_MAX)
            self._apply()
        return taken

    def _apply(self) -> None:
        """Register the tracer's sites (the filter's, every function's while it is empty), or
        none while it is disabled."""
        if not self.enabled:
            self._sites.set_stack_tracer(None)
        elif self.filter.selects_all:
            self._sites.set_stack_tracer(frozenset(self._sites.functions))
        else:
            self._sites.set_stack_tracer(self.filter.names)

    # stack_max_size
    def read_max_size(self) -> bytes:
        size, _ = self._sites.read_stack_max()
        return b"%d\n" % (size - (1 << 64) if size >= 1 << 63 else size)

    def write_max_size(self, data: bytes) -> None:
        self._sites.set_stack_max_size(kstrtoul_from_user(data))

    # stack_trace (t_show)
    def read_trace(self) -> bytes:
        size, entries = self._sites.read_stack_max()
        out = [b"        Depth    Size   Location    (%d entries)\n"
               b"        -----    ----   --------\n" % len(entries)]
        if not self.enabled and not size:
            out.append(_DISABLED)
        out += [b"%3d) %8d   %5d   %s\n" % (i, depth, depth - _next_depth(entries, i), self._sym(addr))
                for i, (addr, depth) in enumerate(entries)]
        return b"".join(out)

    def _sym(self, addr: int) -> bytes:
        """%pS: name+0xoffset/0xsize, or the address."""
        found = self._symbolize(addr)
        if found is None:
            return b"0x%x" % addr
        name, offset, length = found
        return b"%s+0x%x/0x%x" % (name.encode(), offset, length)


def _next_depth(entries: Sequence[tuple[int, int]], i: int) -> int:
    """The depth of the entry after i (0 after the last: its size is its depth)."""
    return entries[i + 1][1] if i + 1 < len(entries) else 0


class StackTracerEnabled:
    """kernel.stack_tracer_enabled (/proc/sys/kernel/stack_tracer_enabled)."""

    def __init__(self, tracer: StackTracer):
        self._tracer = tracer

    def read(self) -> bytes:
        return b"%d\n" % self._tracer.enabled

    def write_at(self, data: bytes, offset: int = 0) -> int:
        if offset:
            return len(data)
        return self._tracer.set_enabled(data)
