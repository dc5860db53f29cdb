"""The tracefs tree of Linux 6.1, for the parts of the tracing core that exist: which file sits
where, with which mode, bound to which trace-core operation. The files of a trace array are
laid out by one function, for the top level and for every instance.
"""

import errno
from collections.abc import Callable, Mapping
from functools import partial
from typing import Protocol, Unpack

from ..namespace import (BLOCK_TRACE_VIEW, BTF_VIEW, NOTES_VIEW, DEBUG_VIEWS_DIR, EVENT_SOURCE_VIEW, PROC_KALLSYMS_VIEW, PROC_KMSG_VIEW, PROC_MOUNTS_VIEW, PROC_VERSION_VIEW, SYSCTL_KERNEL_VIEW,
                         SYSCTL_NET_CORE_VIEW,
                         ProcMountsView)
from ..lib.sysctl import SysctlFile
from ..machine.contract import MARKER_EVENT
from ..probes.kprobes.debugfs import KprobeDebugViews
from ..trace import readme
from ..trace.core import TraceCore
from ..trace.event_control import EventControl
from ..trace.events import EventRegistry, TraceEvent
from ..trace.function_tracer import FunctionTracing
from ..trace.kallsyms_file import KallsymsView
from ..trace.raw_pipe import RawPageReader
from ..trace.ring_buffer import entry_header_format, page_header_format
from ..trace.trace_array import TraceArray
from .process import comm_of, traced_pid
from .tree import (MODE_MARKER, MODE_READ_ONLY, MODE_READ_WRITE, MODE_WRITE_ONLY, DirNode, FileBindings,
                   PageSource, PipeSource, Tree)

# note(path): told each README path a trace array's files create
Note = Callable[[str], None]


class AddFile(Protocol):
    """Adds a file of a trace array under parent, noting its README path."""

    def __call__(self, parent: DirNode, name: str, mode: int, path: str, **bindings: Unpack[FileBindings]) -> None:
        ...


def _text(text: str) -> Callable[[], bytes]:
    data = text.encode()
    return lambda: data


def _format(event: TraceEvent) -> bytes:
    """An event's format file: its text made at the first read of it (of ~800 events' formats a
    mount serves, few are read, and making them all took ~5 ms of every start)."""
    return event.format_text().encode()


def _close_trace(ta: TraceArray) -> Callable[[object], None]:
    """`trace`'s release: what its open returned (whether it paused recording) back to the array."""
    return lambda paused: ta.close_trace(bool(paused))


def _discard(data: bytes) -> None:
    """Writes to `trace` are accepted and ignored (tracing_write_stub); O_TRUNC clears."""


def build_tree(core: TraceCore) -> Tree:
    """The mount's tree: the top-level trace array, the global files, `instances/`, and the
    dynamic event files when there is a probe engine."""
    tree = Tree()
    root = tree.root
    ta = core.top
    events = core.registry
    instances = core.instances
    dynamic, kprobes, synth, uprobes = core.dynamic, core.kprobes, core.synth, core.uprobes
    # Paths as README names them: what exists decides which README sections appear.
    paths: set[str] = set()

    readme_node = tree.add_file(root, "README", MODE_READ_ONLY)
    events.listeners.append(add_trace_array_files(tree, root, ta, events, paths.add, top_level=True))

    def add(name: str, mode: int, **bindings: Unpack[FileBindings]) -> None:
        tree.add_file(root, name, mode, **bindings)
        paths.add(name)

    add("available_events", MODE_READ_ONLY,
        read=lambda: "".join(f"{e.system}:{e.name}\n" for e in events.all_events()).encode("latin-1"))
    if dynamic is not None:
        # O_TRUNC removes every dynamic event (EBUSY, failing the open, while one is enabled).
        add("dynamic_events", MODE_READ_WRITE, read=dynamic.read, write=dynamic.write, truncate=dynamic.truncate)
    if kprobes is not None:
        # O_TRUNC removes every kprobe event (EBUSY, failing the open, while one is enabled).
        add("kprobe_events", MODE_READ_WRITE, read=kprobes.read_kprobe_events,
            write=kprobes.write_kprobe_events, truncate=kprobes.release_all)
        add("kprobe_profile", MODE_READ_ONLY, read=kprobes.read_profile)
    if uprobes is not None:
        # O_TRUNC removes every uprobe event (EBUSY, failing the open, while one is enabled).
        add("uprobe_events", MODE_READ_WRITE, read=uprobes.read_uprobe_events,
            write=uprobes.write_uprobe_events, truncate=uprobes.release_all)
        add("uprobe_profile", MODE_READ_ONLY, read=uprobes.read_profile)
    if synth is not None:
        # O_TRUNC removes every synthetic event (EBUSY, failing the open, while one is in use).
        add("synthetic_events", MODE_READ_WRITE, read=synth.read, write=synth.write, truncate=synth.truncate)
    add("tracing_thresh", MODE_READ_WRITE, read=core.tracing_thresh.read, write=core.tracing_thresh.write)
    stack = core.stack_tracer
    if stack is not None:
        add("stack_max_size", MODE_READ_WRITE, read=stack.read_max_size, write=stack.write_max_size)
        add("stack_trace", MODE_READ_ONLY, read=stack.read_trace)
        add("stack_trace_filter", MODE_READ_WRITE, session=stack.filter.open)
    profiler = core.function_profiler
    if profiler is not None:
        add("function_profile_enabled", MODE_READ_WRITE, read=profiler.read_enabled, write=profiler.write_enabled)
        stat_dir = tree.mkdir(root, "trace_stat")
        for cpu in range(ta.nr_cpus):
            # TRACE_MODE_WRITE, as trace_stat.c creates every stat file (it takes no write)
            tree.add_file(stat_dir, f"function{cpu}", MODE_READ_WRITE, read=partial(profiler.read_stat, cpu))
    cmdlines = ta.cmdlines
    add("saved_cmdlines", MODE_READ_ONLY, read=cmdlines.read_saved_cmdlines)
    add("saved_cmdlines_size", MODE_READ_WRITE, read=cmdlines.read_size, write=cmdlines.write_size)
    add("saved_tgids", MODE_READ_ONLY, read=cmdlines.read_saved_tgids)
    add("printk_formats", MODE_READ_ONLY, read=events.printk_formats)

    instances_dir = tree.mkdir(root, "instances")
    paths.add("instances")
    instance_dirs: dict[str, EventDirs] = {}

    def make_instance(name: str) -> None:
        array = instances.create(name)
        dirs = add_trace_array_files(tree, tree.mkdir(instances_dir, name), array, events, lambda path: None,
                                     top_level=False)
        instance_dirs[name] = dirs
        events.listeners.append(dirs)

    def remove_instance(name: str) -> None:
        instances.remove(name)
        events.listeners.remove(instance_dirs.pop(name))
        tree.remove(instances_dir, name)

    instances_dir.make_child = make_instance
    instances_dir.remove_child = remove_instance

    readme_node.read = _text(readme.readme_text(paths))
    return tree


def add_trace_array_files(tree: Tree, top: DirNode, ta: TraceArray, events: EventRegistry, note: Note, *,
                          top_level: bool) -> "EventDirs":
    """The files every trace array has (init_tracer_tracefs, create_event_toplevel_files);
    note(path) is told each README path created; top_level: the global array, not an instance.
    Returns what keeps its events/ directory in step with dynamic events."""

    def add(parent: DirNode, name: str, mode: int, path: str, **bindings: Unpack[FileBindings]) -> None:
        tree.add_file(parent, name, mode, **bindings)
        note(path)

    add(top, "available_tracers", MODE_READ_ONLY, "available_tracers", read=ta.read_available_tracers)
    add(top, "buffer_percent", MODE_READ_WRITE, "buffer_percent",
        read=ta.read_buffer_percent, write=ta.write_buffer_percent)
    add(top, "buffer_size_kb", MODE_READ_WRITE, "buffer_size_kb",
        read=ta.read_buffer_size_kb, write=ta.write_buffer_size_kb)
    add(top, "buffer_total_size_kb", MODE_READ_ONLY, "buffer_total_size_kb",
        read=ta.read_buffer_total_size_kb)
    add(top, "current_tracer", MODE_READ_WRITE, "current_tracer",
        read=ta.read_current_tracer, write=ta.write_current_tracer)
    add(top, "error_log", MODE_READ_WRITE, "error_log",
        read=ta.error_log.read, write=ta.error_log.write, truncate=ta.error_log.clear)
    add(top, "free_buffer", MODE_WRITE_ONLY, "free_buffer",
        write=ta.write_free_buffer, released=lambda token: ta.release_free_buffer())
    add(top, "trace", MODE_READ_WRITE, "trace", read=ta.read_trace, write=_discard, truncate=ta.clear_trace,
        opened=ta.open_trace, released=_close_trace(ta))
    add(top, "trace_clock", MODE_READ_WRITE, "trace_clock", read=ta.read_trace_clock, write=ta.write_trace_clock)
    add(top, "timestamp_mode", MODE_READ_ONLY, "timestamp_mode", read=ta.read_timestamp_mode)
    add(top, "snapshot", MODE_READ_WRITE, "snapshot", read=ta.snapshot.read, write=ta.snapshot.write)
    # The writer of a marker is the host process that opened the file.
    add(top, "trace_marker", MODE_MARKER, "trace_marker",
        write_as=lambda data, pid: ta.write_marker(data, traced_pid(pid), comm_of(pid)))
    add(top, "trace_marker_raw", MODE_MARKER, "trace_marker_raw",
        write_as=lambda data, pid: ta.write_marker_raw(data, traced_pid(pid), comm_of(pid)))
    add(top, "trace_options", MODE_READ_WRITE, "trace_options",
        read=ta.options.read_trace_options, write=ta.options.write_trace_options)
    add(top, "trace_pipe", MODE_READ_ONLY, "trace_pipe",
        pipe=PipeSource(lambda size: ta.consume(None, size), ta.buffer.waiters, lambda: ta.tracing_on,
                        partial(ta.pipe_ready, None)),
        opened=ta.open_pipe, released=ta.close_pipe)
    add(top, "tracing_cpumask", MODE_READ_WRITE, "tracing_cpumask",
        read=ta.read_tracing_cpumask, write=ta.write_tracing_cpumask)
    add(top, "tracing_on", MODE_READ_WRITE, "tracing_on", read=ta.read_tracing_on, write=ta.write_tracing_on)
    add(top, "tracing_max_latency", MODE_READ_WRITE, "tracing_max_latency", read=ta.max_latency.read,
        write=ta.max_latency.write)
    if ta.functions is not None:
        _add_function_files(top, ta.functions, add)

    options_dir = tree.mkdir(top, "options")
    for name in ta.options.file_names(top_level):
        tree.add_file(options_dir, name, MODE_READ_WRITE,
                      read=partial(ta.options.read_option, name), write=partial(ta.options.write_option, name),
                      settled=True)

    per_cpu = tree.mkdir(top, "per_cpu")
    for cpu in range(ta.nr_cpus):
        cpu_dir = tree.mkdir(per_cpu, f"cpu{cpu}")
        add(cpu_dir, "buffer_size_kb", MODE_READ_WRITE, "per_cpu/cpu<N>/buffer_size_kb",
            read=partial(ta.read_buffer_size_kb, cpu), write=partial(ta.write_buffer_size_kb, cpu=cpu))
        add(cpu_dir, "stats", MODE_READ_ONLY, "per_cpu/cpu<N>/stats", read=partial(ta.read_stats, cpu))
        add(cpu_dir, "trace", MODE_READ_WRITE, "per_cpu/cpu<N>/trace",
            read=partial(ta.read_trace, cpu), write=_discard, truncate=partial(ta.clear_trace, cpu),
            opened=ta.open_trace, released=_close_trace(ta))
        # One wait queue for the whole buffer: a batch on any CPU wakes every pipe reader.
        add(cpu_dir, "trace_pipe", MODE_READ_ONLY, "per_cpu/cpu<N>/trace_pipe",
            pipe=PipeSource(partial(ta.consume, cpu), ta.buffer.waiters, lambda: ta.tracing_on,
                            partial(ta.pipe_ready, cpu)),
            opened=ta.open_pipe, released=ta.close_pipe)
        add(cpu_dir, "trace_pipe_raw", MODE_READ_ONLY, "per_cpu/cpu<N>/trace_pipe_raw",
            pages=PageSource(partial(RawPageReader, ta, cpu), ta.buffer.waiters, partial(ta.pipe_ready, cpu)),
            opened=ta.open_pipe, released=ta.close_pipe)
        add(cpu_dir, "snapshot", MODE_READ_WRITE, "per_cpu/cpu<N>/snapshot",
            read=partial(ta.snapshot.read, cpu), write=partial(ta.snapshot.write, cpu=cpu))
        add(cpu_dir, "snapshot_raw", MODE_READ_ONLY, "per_cpu/cpu<N>/snapshot_raw",
            pages=PageSource(partial(RawPageReader, ta.snapshot, cpu), ta.snapshot.waiters,
                             partial(ta.pipe_ready, cpu, ta.snapshot.buffer)))

    return _add_events(tree, top, ta, events, add, note)


def _add_function_files(top: DirNode, functions: FunctionTracing, add: AddFile) -> None:
    """The function tracers' files of a trace array (ftrace_init_tracefs,
    ftrace_init_dyn_tracefs): the filter and pid files, and with the graph tracer (top level
    only) the global ones."""
    for name, filter_file in (("set_ftrace_filter", functions.filter), ("set_ftrace_notrace", functions.notrace)):
        add(top, name, MODE_READ_WRITE, name, session=filter_file.open)
    for name, pid_file in (("set_ftrace_pid", functions.pids), ("set_ftrace_notrace_pid", functions.notrace_pids)):
        add(top, name, MODE_READ_WRITE, name, read=pid_file.read, write=pid_file.write, truncate=pid_file.clear)
    graph = functions.graph
    if graph is None:
        return
    ftrace = functions.ftrace
    add(top, "available_filter_functions", MODE_READ_ONLY, "available_filter_functions",
        read=ftrace.read_available_filter_functions)
    add(top, "dyn_ftrace_total_info", MODE_READ_ONLY, "dyn_ftrace_total_info",
        read=ftrace.read_dyn_ftrace_total_info)
    add(top, "enabled_functions", MODE_READ_ONLY, "enabled_functions", read=ftrace.read_enabled_functions)
    add(top, "max_graph_depth", MODE_READ_WRITE, "max_graph_depth", read=graph.read_max_depth,
        write=graph.write_max_depth)
    for name, graph_file in (("set_graph_function", graph.functions), ("set_graph_notrace", graph.notrace)):
        add(top, name, MODE_READ_WRITE, name, session=graph_file.open)


def _add_events(tree: Tree, top: DirNode, ta: TraceArray, events: EventRegistry, add: AddFile,
                note: Note) -> "EventDirs":
    control = ta.events
    events_dir = tree.mkdir(top, "events")
    note("events")
    add(top, "set_event", MODE_READ_WRITE, "set_event",
        read=control.read_set_event, write=control.write_set_event, truncate=control.disable_all)
    for name, pids in (("set_event_pid", control.pid_filter),
                       ("set_event_notrace_pid", control.notrace_pid_filter)):
        add(top, name, MODE_READ_WRITE, name, read=pids.read, write=pids.write, truncate=pids.clear)
    add(events_dir, "enable", MODE_READ_WRITE, "events/enable",
        read=control.read_enable, write=control.write_enable, settled=True)
    add(events_dir, "header_event", MODE_READ_ONLY, "events/header_event", read=_text(entry_header_format()),
        settled=True)
    add(events_dir, "header_page", MODE_READ_ONLY, "events/header_page", read=_text(page_header_format()),
        settled=True)
    for system in events.systems():
        system_events = events.events(system)
        system_dir = _add_system_dir(tree, events_dir, system, system_events, control, add, note,
                                     volatile=not any(events.is_builtin(e) for e in system_events))
        for event in system_events:
            _add_event_dir(tree, system_dir, event, control, add, note, volatile=not events.is_builtin(event))
    return EventDirs(tree, events_dir, control)


def _add_system_dir(tree: Tree, events_dir: DirNode, system: str, system_events: list[TraceEvent],
                    control: EventControl, add: AddFile, note: Note, *, volatile: bool) -> DirNode:
    """volatile: the directory goes with its last (dynamic) event (Node.volatile)."""
    system_dir = tree.mkdir(events_dir, system, volatile=volatile)
    note("events/<system>")
    # ftrace's own record types cannot be enabled or filtered: no enable/filter files.
    if not all(e.ftrace for e in system_events):
        add(system_dir, "enable", MODE_READ_WRITE, "events/<system>/enable",
            read=partial(control.read_enable, system), write=partial(control.write_enable, system=system),
            settled=True)
        add(system_dir, "filter", MODE_READ_WRITE, "events/<system>/filter",
            read=control.read_system_filter,
            write=partial(control.write_system_filter, system), settled=True)
    return system_dir


def _add_event_dir(tree: Tree, system_dir: DirNode, event: TraceEvent, control: EventControl, add: AddFile,
                   note: Note, *, volatile: bool) -> None:
    """volatile: a dynamic event's directory, which goes while its system's stays."""
    event_dir = tree.mkdir(system_dir, event.name, volatile=volatile)
    note("events/<system>/<event>")
    add(event_dir, "format", MODE_READ_ONLY, "events/<system>/<event>/format",
        read=partial(_format, event), settled=True)
    add(event_dir, "id", MODE_READ_ONLY, "events/<system>/<event>/id", read=_text(event.id_text()), settled=True)
    if not event.ftrace:
        add(event_dir, "enable", MODE_READ_WRITE, "events/<system>/<event>/enable",
            read=partial(control.read_enable, event.system, event.name),
            write=partial(control.write_enable, system=event.system, name=event.name), settled=True)
        add(event_dir, "filter", MODE_READ_WRITE, "events/<system>/<event>/filter",
            read=partial(control.read_filter, event), write=partial(control.write_filter, event), settled=True)
    # ftrace's own records have no triggers but trace_marker's (ftrace/print: 6.1's trace_marker_file)
    if not event.ftrace or (event.system, event.name) == MARKER_EVENT:
        add(event_dir, "trigger", MODE_READ_WRITE, "events/<system>/<event>/trigger",
            read=partial(control.triggers.read, event), write=partial(control.triggers.write, event),
            truncate=partial(control.triggers.truncate, event), settled=True)
    add(event_dir, "hist", MODE_READ_ONLY, "events/<system>/<event>/hist",
        read=partial(control.triggers.read_hist, event))


class EventDirs:
    """One trace array's events/ directory kept in step with dynamic events: an event's
    directory appears with it, and its system's directory with the system's first event and
    goes with its last (as trace_events.c's subsystem directories)."""

    def __init__(self, tree: Tree, events_dir: DirNode, control: EventControl):
        self._tree = tree
        self._events_dir = events_dir
        self._control = control

    def _add(self, parent: DirNode, name: str, mode: int, path: str, **bindings: Unpack[FileBindings]) -> None:
        self._tree.add_file(parent, name, mode, **bindings)

    def _system_dir(self, system: str) -> DirNode | None:
        found = self._events_dir.children.get(system)
        return found if isinstance(found, DirNode) else None

    def event_added(self, event: TraceEvent) -> None:
        system_dir = self._system_dir(event.system)
        if system_dir is None:
            system_dir = _add_system_dir(self._tree, self._events_dir, event.system, [event], self._control,
                                         self._add, lambda path: None, volatile=True)
        _add_event_dir(self._tree, system_dir, event, self._control, self._add, lambda path: None, volatile=True)

    def event_removed(self, event: TraceEvent) -> None:
        system_dir = self._system_dir(event.system)
        if system_dir is None or event.name not in system_dir.children:
            return
        self._tree.remove(system_dir, event.name)
        if not any(isinstance(child, DirNode) for child in system_dir.children.values()):
            self._tree.remove(self._events_dir, event.system)


# Modes of the kernel's own files: debugfs_create_dir's 0755, kprobes.c's 0400/0600/0400, and the
# sysctl directory (0555) and kprobes-optimization (0644) in /proc/sys/debug.
_MODE_DEBUGFS_DIR = 0o755
_MODE_SYSCTL_DIR = 0o555
_MODE_SYSCTL_RW = 0o644
_MODE_DEBUGFS_READ = 0o400
_MODE_DEBUGFS_RW = 0o600


def add_debug_views(tree: Tree, kprobe_views: KprobeDebugViews) -> None:
    """The emulated kernel's files that live outside tracefs on Linux, in a hidden directory of
    the root (namespace.DEBUG_VIEWS_DIR): `kprobes/` (debugfs's) and `sysctl-debug/`
    (/proc/sys/debug), which the session's namespace binds at the Linux paths."""
    hidden = _views_dir(tree)
    kprobes = tree.mkdir(hidden, "kprobes", _MODE_DEBUGFS_DIR)
    tree.add_file(kprobes, "list", _MODE_DEBUGFS_READ, read=kprobe_views.read_list)
    tree.add_file(kprobes, "blacklist", _MODE_DEBUGFS_READ, read=kprobe_views.read_blacklist)
    tree.add_file(kprobes, "enabled", _MODE_DEBUGFS_RW, read=kprobe_views.read_enabled,
                  write=kprobe_views.write_enabled)
    sysctl = tree.mkdir(hidden, "sysctl-debug", _MODE_SYSCTL_DIR)
    tree.add_file(sysctl, "kprobes-optimization", _MODE_SYSCTL_RW, read=kprobe_views.read_optimization,
                  write_at=kprobe_views.write_optimization)


_MODE_PROC_READ = 0o444
_MODE_PROC_KMSG = 0o400   # /proc/kmsg's
_MODE_SYSFS_DIR = 0o755
_MODE_SYSFS_READ = 0o444


def add_pmu_views(tree: Tree, pmus: dict[str, tuple[int, dict[str, str], dict[str, str]]]) -> None:
    """`event-source/`: the emulated kernel's PMUs as sysfs shows them in
    /sys/bus/event_source/devices (each `NAME/type`, `NAME/format/FIELD` for the PMUs whose
    attr fields have names: kprobe's `retprobe`, cpu's `event`..., and `NAME/events/EVENT` for
    those with named events: cpu's `cpu-cycles`), which the session binds there.  pmus: name ->
    (its perf_event_attr.type, {format field: what it says, as "config:0"}, {event: its terms,
    as "event=0x3c"})."""
    devices = tree.mkdir(_views_dir(tree), EVENT_SOURCE_VIEW, _MODE_SYSFS_DIR)
    for name, (pmu_type, formats, events) in pmus.items():
        pmu = tree.mkdir(devices, name, _MODE_SYSFS_DIR)
        tree.add_file(pmu, "type", _MODE_SYSFS_READ, read=_text(f"{pmu_type}\n"))
        for subdir, entries in (("format", formats), ("events", events)):
            if entries:
                directory = tree.mkdir(pmu, subdir, _MODE_SYSFS_DIR)
                for field, spec in entries.items():
                    tree.add_file(directory, field, _MODE_SYSFS_READ, read=_text(f"{spec}\n"))


_MODE_BLK_TRACE_ATTR = 0o644   # BLK_TRACE_DEVICE_ATTR: S_IRUGO | S_IWUSR


def add_block_trace_view(tree: Tree, disks: Mapping[str, Mapping[str, SysctlFile]]) -> None:
    """`block-trace/DEV/`: each disk's blktrace attributes as /sys/block/DEV/trace/ shows them
    (the kernel's: machine/blktrace.py), which the session binds there."""
    if not disks:
        return
    views = tree.mkdir(_views_dir(tree), BLOCK_TRACE_VIEW, _MODE_SYSFS_DIR)
    for disk, attrs in disks.items():
        directory = tree.mkdir(views, disk, _MODE_SYSFS_DIR)
        for name, attr in attrs.items():
            tree.add_file(directory, name, _MODE_BLK_TRACE_ATTR, read=attr.read, write_at=attr.write_at)


def add_btf_view(tree: Tree, btf: bytes) -> None:
    """`btf/vmlinux`: the emulated kernel's BTF as /sys/kernel/btf/vmlinux shows it (its size
    in stat, as sysfs's: libbpf reads the file to the size it finds), which the session binds
    at /sys/kernel/btf."""
    directory = tree.mkdir(_views_dir(tree), BTF_VIEW, _MODE_SYSFS_DIR)
    node = tree.add_file(directory, "vmlinux", _MODE_SYSFS_READ, read=lambda: btf, settled=True)
    node.size = len(btf)


def add_notes_view(tree: Tree, notes: bytes) -> None:
    """The emulated kernel's ELF notes (its build-id) as /sys/kernel/notes shows them, which the
    session binds there: perf matches the vmlinux it finds against them."""
    node = tree.add_file(_views_dir(tree), NOTES_VIEW, _MODE_SYSFS_READ, read=lambda: notes, settled=True)
    node.size = len(notes)


def _views_dir(tree: Tree) -> DirNode:
    """The hidden directory of the root that holds the daemon's views of the emulated kernel's
    files outside tracefs (namespace.DEBUG_VIEWS_DIR)."""
    found = tree.root.children.get(DEBUG_VIEWS_DIR)
    if isinstance(found, DirNode):
        return found
    return tree.mkdir(tree.root, DEBUG_VIEWS_DIR, _MODE_SYSCTL_DIR, hidden=True)


# Linux 6.1's tracing sysctls under /proc/sys/kernel that this kernel does not have (yet): the
# session covers the host's with files whose open says so (ENOENT, as on a kernel built
# without the feature), so that a session's write never reaches the host's. (stack_tracer_enabled:
# the kernel's where it has function tracing, perf_event_paranoid and perf_event_max_sample_rate
# the kernel's (machine/sysctls.py), as are bpf_stats_enabled and unprivileged_bpf_disabled where
# it has BPF, dmesg_restrict where it has a log; traceoff_on_warning, ftrace_dump_on_oops, tracepoint_printk:
# no WARN or oops dump, or printk of events; the other perf_event_* limits: not modelled.)
ABSENT_SYSCTLS = ("stack_tracer_enabled", "traceoff_on_warning", "ftrace_dump_on_oops", "tracepoint_printk",
                  "perf_event_paranoid", "perf_event_max_sample_rate", "perf_event_mlock_kb",
                  "perf_event_max_stack", "perf_event_max_contexts_per_stack", "perf_cpu_time_max_percent",
                  "bpf_stats_enabled", "unprivileged_bpf_disabled", "dmesg_restrict")


# 6.1's BPF JIT sysctls under /proc/sys/net/core that this kernel does not have: covered, as
# ABSENT_SYSCTLS, so that a session's write never reaches the host's JIT (bpf_jit_harden: no
# constant blinding here; bpf_jit_kallsyms: the images are always listed; bpf_jit_limit: one pack)
ABSENT_NET_CORE_SYSCTLS = ("bpf_jit_harden", "bpf_jit_kallsyms", "bpf_jit_limit")


def _absent() -> object:
    raise OSError(errno.ENOENT, "no such sysctl in the emulated kernel")


def _unserved_kmsg() -> object:
    # (an open of /proc/kmsg the emulated kernel serves never gets here: this is one it did not)
    raise OSError(errno.EACCES, "/proc/kmsg is the emulated kernel's, which did not answer")


def add_session_views(tree: Tree, proc_mounts: ProcMountsView, kallsyms: KallsymsView, banner: bytes,
                      sysctls: dict[str, SysctlFile], net_core_sysctls: dict[str, SysctlFile] | None = None) -> None:
    """Files a session lays over /proc: `proc-mounts` (/proc/mounts, as each
    reader sees it), `proc-kallsyms` (/proc/kallsyms, as kptr_restrict lets its reader see it),
    `proc-version` (/proc/version: the kernel's banner), `proc-kmsg` (over /proc/kmsg, whose
    opens the kernel serves: one it does not answer gets EACCES), `sysctl-kernel/` (/proc/sys/kernel's
    tracing sysctls: the kernel's, or absent) and `sysctl-net-core/` (/proc/sys/net/core's the
    kernel has: bpf_jit_enable)."""
    views = _views_dir(tree)
    tree.add_file(views, PROC_MOUNTS_VIEW, _MODE_PROC_READ, read_as=proc_mounts.read_as)
    tree.add_file(views, PROC_KALLSYMS_VIEW, _MODE_PROC_READ, read_as=kallsyms.read_as)
    tree.add_file(views, PROC_VERSION_VIEW, _MODE_PROC_READ, read=lambda: banner)
    tree.add_file(views, PROC_KMSG_VIEW, _MODE_PROC_KMSG, opened=_unserved_kmsg)
    directory = tree.mkdir(views, SYSCTL_KERNEL_VIEW, _MODE_SYSCTL_DIR)
    for name, sysctl in sysctls.items():
        tree.add_file(directory, name, _MODE_SYSCTL_RW, read=sysctl.read, write_at=sysctl.write_at)
    for name in ABSENT_SYSCTLS:
        if name in sysctls:
            continue
        tree.add_file(directory, name, _MODE_SYSCTL_RW, opened=_absent)
    if net_core_sysctls:   # /proc/sys/net/core's the kernel has (bpf_jit_enable)
        directory = tree.mkdir(views, SYSCTL_NET_CORE_VIEW, _MODE_SYSCTL_DIR)
        for name, sysctl in net_core_sysctls.items():
            tree.add_file(directory, name, _MODE_SYSCTL_RW, read=sysctl.read, write_at=sysctl.write_at)
        for name in ABSENT_NET_CORE_SYSCTLS:
            if name not in net_core_sysctls:
                tree.add_file(directory, name, _MODE_SYSCTL_RW, opened=_absent)
