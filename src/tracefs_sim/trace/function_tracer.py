"""The function and function_graph tracers of one trace array: the files that choose what they
trace (set_ftrace_filter & co), and the link to the kernel's patched call sites (FtraceSites,
probes/ftrace.py), which does the tracing itself in the guest (trace_functions.c,
trace_functions_graph.c, the per-array parts of ftrace.c).
"""

import errno
import threading
from collections.abc import Callable

from ..machine.contract import GuestTracingOps
from ..probes.ftrace import FtraceSites
from .event_control import EventControl, PidFilter
from .function_commands import FunctionCommands
from .ftrace_filter import ALL_ENABLED, NONE_DISABLED, FunctionFilter, GraphFilter
from ..lib.kstrtox import kstrtoul_from_user
from .options import TraceOptions

_UINT_MAX = (1 << 32) - 1
# The guest's C function every patched site's ftrace_caller calls.
DISPATCHER = "ftrace_dispatch"
# struct dyn_ftrace is 16 bytes: 256 records a page (ENTRIES_PER_PAGE).
_RECORDS_PER_PAGE = 4096 // 16


class FtracePidFilter(PidFilter):
    """set_ftrace_pid / set_ftrace_notrace_pid: set_event_pid's grammar, `no pid` when there is
    no list, kept in the guest's ftrace_control (where function-fork changes it too)."""

    def __init__(self, load: Callable[[], frozenset[int] | None],
                 store: Callable[[frozenset[int] | None], None]) -> None:
        super().__init__(load, self._checked(store))

    @staticmethod
    def _checked(store: Callable[[frozenset[int] | None], None]) -> Callable[[frozenset[int] | None], None]:
        def write(pids: frozenset[int] | None) -> None:
            try:
                store(pids)
            except ValueError:
                # The guest's list holds FTRACE_PIDS_MAX pids; more cannot be traced.
                raise OSError(errno.ENOMEM, "too many pids") from None
        return write

    def read(self) -> bytes:
        if self._load() is None:
            return b"no pid\n"
        return super().read()


class GraphFilters:
    """set_graph_function, set_graph_notrace and max_graph_depth: global in Linux 6.1 (the
    graph tracer exists only at the top level)."""

    def __init__(self, sites: FtraceSites, on_change: Callable[[], None]) -> None:
        self._sites = sites
        self.functions = GraphFilter(sites.functions, sites.address, ALL_ENABLED, on_change)
        self.notrace = GraphFilter(sites.functions, sites.address, NONE_DISABLED, on_change)
        self.max_depth = 0

    def read_max_depth(self) -> bytes:
        return b"%d\n" % self.max_depth

    def write_max_depth(self, data: bytes) -> None:
        # kstrtoul into an unsigned long, kept in an int (fgraph_max_depth)
        value = kstrtoul_from_user(data) & _UINT_MAX
        self._sites.set_max_graph_depth(value)
        self.max_depth = value if value < 1 << 31 else value - (1 << 32)


class FtraceGlobal:
    """What all trace arrays share: the kernel's call sites (FtraceSites), the graph tracer's
    global filters, and the global files about the sites."""

    def __init__(self, sites: FtraceSites, dispatcher_size: int | None = None):
        """dispatcher_size: the size of the guest's DISPATCHER symbol (None: no such symbol)."""
        self.sites = sites
        self._dispatcher_size = dispatcher_size
        self._graph_users: list[Callable[[], None]] = []
        self.graph = GraphFilters(sites, self._graph_changed)
        self._commands: list[FunctionCommands] = []   # every array's set_ftrace_filter commands

    def add_graph_user(self, apply: Callable[[], None]) -> None:
        """apply() runs when the graph tracer's global filters change."""
        self._graph_users.append(apply)

    def add_commands(self, commands: FunctionCommands) -> None:
        self._commands.append(commands)

    def remove_commands(self, commands: FunctionCommands) -> None:
        self._commands.remove(commands)
        self.update_probes()

    def update_probes(self) -> None:
        """Hand the guest every array's function probes (OSError ENOMEM: too many)."""
        self.sites.set_probes([probe for commands in self._commands for probe in commands.guest_probes()])

    def _graph_changed(self) -> None:
        for apply in list(self._graph_users):
            apply()

    def read_available_filter_functions(self) -> bytes:
        return "".join(f"{name}\n" for name in self.sites.functions).encode()

    def read_enabled_functions(self) -> bytes:
        """Each patched site with its users and flags, then the function its call goes to
        (ftrace_caller hands every hit to the dispatcher, as arch_ftrace_ops_list_func does
        when several ops share a site), and the BPF trampoline it calls directly, if any."""
        size = self._dispatcher_size
        target = b" ->%s+0x0/0x%x" % (DISPATCHER.encode(), size) if size is not None else b""
        out = []
        for name, count, flags in self.sites.enabled():
            out.append(b"%s (%d)%s%s\n" % (name.encode(), count, flags.encode(), target))
            direct = self.sites.direct_call(name)
            if direct is not None:  # a BPF trampoline's direct call (6.1's `direct-->` line)
                out.append(b"\tdirect-->%s+0x0/0x%x\n" % (direct[0].encode(), direct[1]))
        return b"".join(out)

    def read_dyn_ftrace_total_info(self) -> bytes:
        """`RECORDS pages:P groups: G`: the pages ftrace_allocate_pages() takes for the
        records, in power-of-two groups filled as far as possible."""
        count = remaining = len(self.sites.functions)
        pages = groups = 0
        while remaining > 0:
            order = (-(-remaining // _RECORDS_PER_PAGE)).bit_length() - 1
            pages += 1 << order
            groups += 1
            remaining -= (1 << order) * _RECORDS_PER_PAGE
        return b"%d pages:%d groups: %d\n" % (count, pages, groups)


class FunctionTracing:
    def __init__(self, ftrace: FtraceGlobal, slot: int, options: TraceOptions, events: EventControl,
                 alloc_snapshot: Callable[[], None], guest: GuestTracingOps, *, top_level: bool):
        """slot: the trace array's guest slot; options: its options (func_stack_trace goes to
        the guest); events: its events (what enable_event/disable_event commands act on);
        alloc_snapshot: its snapshot buffer's allocation (the snapshot command);
        guest: saves comms while a tracer records; top_level: the global array, which alone
        has the graph tracer."""
        self._guest = guest
        sites = ftrace.sites
        self.ftrace = ftrace
        self._sites = sites
        self.slot = slot
        self._lock = threading.RLock()
        self._tracer: str | None = None
        self._filter_watchers: list[Callable[[], None]] = []
        # another user of the function graph (6.1 has one at a time): the function profiler
        self.graph_busy: Callable[[], bool] = lambda: False
        self.commands = FunctionCommands(sites.functions, sites.address, slot, sites.read_counter,
                                         ftrace.update_probes, events, alloc_snapshot)
        ftrace.add_commands(self.commands)
        self.filter = FunctionFilter(sites.functions, ALL_ENABLED, self._apply, commands=self.commands)
        self.notrace = FunctionFilter(sites.functions, NONE_DISABLED, self._apply, enable=False)
        self.pids = FtracePidFilter(lambda: sites.read_pids(slot)[0],
                                    lambda pids: self._store_pids(pids, notrace=False))
        self.notrace_pids = FtracePidFilter(lambda: sites.read_pids(slot)[1],
                                            lambda pids: self._store_pids(pids, notrace=True))
        self.graph = ftrace.graph if top_level else None
        if top_level:
            ftrace.add_graph_user(self._apply)
        # The function tracer's options are shared by all arrays (one struct tracer_flags):
        # as func_set_flag(), a change through this array takes effect in it while it runs the
        # function tracer; any array takes them as they are when it starts the tracer.
        self._options = options
        options.watch("func_stack_trace", lambda on: self._function_option(sites.set_stack_trace, on))
        options.watch("func-no-repeats", lambda on: self._function_option(sites.set_no_repeats, on))
        if top_level:   # func_graph_set_flag(): ftrace_graph_skip_irqs, fgraph_sleep_time, fgraph_graph_time
            options.watch("funcgraph-irqs", sites.set_graph_irqs)
            options.watch("sleep-time", sites.set_graph_sleep_time)
            options.watch("graph-time", sites.set_graph_graph_time)
        # the guest follows forks into the lists above
        options.watch("function-fork", lambda on: guest.pid_lists.set_function_fork(slot, on))

    @property
    def tracer(self) -> str | None:
        return self._tracer

    def select(self, tracer_name: str) -> None:
        """current_tracer changed: `function`, `function_graph`, anything else turns both off."""
        with self._lock:
            new = tracer_name if tracer_name in ("function", "function_graph") else None
            if new == self._tracer:
                return
            # The old tracer's sites go before the new one's come.
            self._tracer = None
            self._sites.set_function(self.slot, None)
            self._set_graph(None)
            if new == "function_graph" and self.graph_busy():
                # register_ftrace_graph(): one function graph user at a time (the profiler)
                self._guest.record_cmdlines(self, False)
                raise OSError(errno.EBUSY, "the function graph is in use")
            self._tracer = new
            if new == "function":   # function_trace_init(): the options as they are now
                self._sites.set_stack_trace(self.slot, self._options["func_stack_trace"])
                self._sites.set_no_repeats(self.slot, self._options["func-no-repeats"])
            self._apply()
            self._guest.record_cmdlines(self, new is not None)

    def _function_option(self, apply: Callable[[int, bool], None], on: bool) -> None:
        with self._lock:
            if self._tracer == "function":
                apply(self.slot, on)

    def release(self) -> None:
        """The trace array goes away: nothing of its slot stays in the kernel (the next array
        given the slot starts clean)."""
        self.select("nop")
        self.commands.clear()
        self.ftrace.remove_commands(self.commands)
        self.pids.clear()
        self.notrace_pids.clear()
        self._sites.set_stack_trace(self.slot, False)
        self._sites.set_no_repeats(self.slot, False)
        self._sites.clear_repeats(self.slot)

    def traced(self) -> frozenset[str]:
        """The functions the tracers hook: the filter (all when empty; none when it holds only
        `:mod:` entries) minus notrace."""
        base = frozenset(self._sites.functions) if self.filter.selects_all else self.filter.names
        return base - self.notrace.names

    def watch_filter(self, fn: Callable[[], None]) -> None:
        """fn() after each change of the filters (another user of this array's global_ops
        hash: the function profiler)."""
        self._filter_watchers.append(fn)

    def _apply(self) -> None:
        with self._lock:
            if self._tracer == "function":
                self._sites.set_function(self.slot, self.traced())
            elif self._tracer == "function_graph":
                self._set_graph(self.traced())
        for fn in self._filter_watchers:
            fn()

    def _set_graph(self, funcs: frozenset[str] | None) -> None:
        if self.graph is None:
            return
        self._sites.set_graph(self.slot, funcs, graph_functions=self.graph.functions.names,
                              graph_notrace=self.graph.notrace.names)

    def _store_pids(self, pids: frozenset[int] | None, *, notrace: bool) -> None:
        lists = list(self._sites.read_pids(self.slot))
        lists[notrace] = pids
        self._sites.set_pids(self.slot, lists[0] or frozenset(), lists[1] or frozenset())
