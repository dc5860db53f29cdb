"""The tracefs tree of Linux 6.1, for the parts of the tracing core that exist: which file sits
where, with which mode, bound to which trace-core operation.
"""

from ..trace import readme
from ..trace.events import EventRegistry
from ..trace.ring_buffer import entry_header_format, page_header_format
from ..trace.trace_array import TraceArray
from .tree import MODE_READ_ONLY, MODE_READ_WRITE, DirNode, Tree


def _text(text: str):
    data = text.encode()
    return lambda: data


def _discard(data: bytes) -> None:
    """Writes to `trace` are accepted and ignored (tracing_write_stub); O_TRUNC clears."""


def build_tree(trace_array: TraceArray, events: EventRegistry) -> Tree:
    tree = Tree()
    root = tree.root
    ta = trace_array
    # Paths as README names them: what exists decides which README sections appear.
    paths: set[str] = set()

    def add(parent: DirNode, name: str, mode: int, path: str, **bindings) -> None:
        tree.add_file(parent, name, mode, **bindings)
        paths.add(path)

    readme_node = tree.add_file(root, "README", MODE_READ_ONLY)
    add(root, "available_tracers", MODE_READ_ONLY, "available_tracers", read=ta.read_available_tracers)
    add(root, "buffer_size_kb", MODE_READ_WRITE, "buffer_size_kb",
        read=ta.read_buffer_size_kb, write=ta.write_buffer_size_kb)
    add(root, "buffer_total_size_kb", MODE_READ_ONLY, "buffer_total_size_kb",
        read=ta.read_buffer_total_size_kb)
    add(root, "current_tracer", MODE_READ_WRITE, "current_tracer",
        read=ta.read_current_tracer, write=ta.write_current_tracer)
    add(root, "trace", MODE_READ_WRITE, "trace", read=ta.read_trace, write=_discard, truncate=ta.clear_trace)
    add(root, "trace_clock", MODE_READ_WRITE, "trace_clock", read=ta.read_trace_clock, write=ta.write_trace_clock)
    add(root, "trace_pipe", MODE_READ_ONLY, "trace_pipe", pipe_waiters=ta.buffer.waiters)
    add(root, "tracing_on", MODE_READ_WRITE, "tracing_on", read=ta.read_tracing_on, write=ta.write_tracing_on)

    per_cpu = tree.mkdir(root, "per_cpu")
    for cpu in range(ta.nr_cpus):
        cpu_dir = tree.mkdir(per_cpu, f"cpu{cpu}")
        add(cpu_dir, "buffer_size_kb", MODE_READ_WRITE, "per_cpu/cpu<N>/buffer_size_kb",
            read=lambda cpu=cpu: ta.read_buffer_size_kb(cpu),
            write=lambda data, cpu=cpu: ta.write_buffer_size_kb(data, cpu))
        add(cpu_dir, "stats", MODE_READ_ONLY, "per_cpu/cpu<N>/stats", read=lambda cpu=cpu: ta.read_stats(cpu))
        add(cpu_dir, "trace", MODE_READ_WRITE, "per_cpu/cpu<N>/trace",
            read=ta.read_trace, write=_discard, truncate=lambda cpu=cpu: ta.clear_trace(cpu))
        # One wait queue for the whole buffer: a batch on any CPU wakes every pipe reader.
        add(cpu_dir, "trace_pipe", MODE_READ_ONLY, "per_cpu/cpu<N>/trace_pipe", pipe_waiters=ta.buffer.waiters)

    events_dir = tree.mkdir(root, "events")
    paths.add("events")
    add(events_dir, "header_event", MODE_READ_ONLY, "events/header_event", read=_text(entry_header_format()))
    add(events_dir, "header_page", MODE_READ_ONLY, "events/header_page", read=_text(page_header_format()))
    for system in events.systems():
        system_dir = tree.mkdir(events_dir, system)
        paths.add("events/<system>")
        for event in events.events(system):
            event_dir = tree.mkdir(system_dir, event.name)
            paths.add("events/<system>/<event>")
            add(event_dir, "format", MODE_READ_ONLY, "events/<system>/<event>/format",
                read=_text(event.format_text()))
            add(event_dir, "id", MODE_READ_ONLY, "events/<system>/<event>/id", read=_text(event.id_text()))

    readme_node.read = _text(readme.readme_text(paths))
    return tree
