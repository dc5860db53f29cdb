"""trace_options and options/*: the trace_flags of a trace array (trace_options[] in trace.c).

Only options whose effect exists here are listed, in Linux's order (and two that Linux's own
function tracers ignore too); an option this simulator does not implement is absent from both
places, so writing it fails as an unknown name does.
"""

import errno
import threading
from collections.abc import Callable

from ..lib.kstrtox import kstrtoul_from_user, strstrip

# (name, default at boot), in the order of Linux 6.1's trace_options[].
OPTIONS = (
    ("print-parent", True),     # function records show their caller (no effect on events)
    ("sym-offset", False),      # symbols in output get +off/size
    ("sym-addr", False),        # symbols in output get <address>
    ("verbose", False),         # header without legend; syscall args with their types
    ("raw", False),             # "pid cpu ts type: N" lines
    ("hex", False),             # hex dump of the context fields
    ("bin", False),             # binary context fields
    ("block", False),           # poll of a trace pipe always says readable (trace_poll())
    ("trace_printk", True),     # trace_printk() records (this kernel makes none); printk-msg-only needs it
    ("annotate", True),         # `trace` marks where a CPU's records start after others lost theirs
    ("userstacktrace", False),  # a user_stack record (the task's user frames) after each event's
    ("sym-userobj", False),     # user addresses printed as the object mapped there and the offset in it
    ("printk-msg-only", False), # trace_marker (and trace_printk) records print their text alone
    ("context-info", True),     # the task-pid/cpu/flags/timestamp prefix and the header
    ("latency-format", False),  # the latency tracers' header and line format
    ("record-cmd", True),       # save comms of tasks that record events
    ("record-tgid", False),     # save tgids and print them
    ("overwrite", True),        # a full buffer overwrites its oldest page
    ("disable_on_free", False), # closing free_buffer also turns tracing off
    ("irq-info", True),         # the irqs-off/need-resched/... flag column
    ("markers", True),          # trace_marker writes are recorded
    ("event-fork", False),      # children of set_event_pid tasks join the list; freed tasks leave
    ("pause-on-trace", False),  # reading `trace` stops recording until the file is closed
    ("hash-ptr", True),         # %p in event output prints hashed pointers (else the address)
    # Only the latency tracers (irqsoff, wakeup: none here) read these two, so with the
    # tracers here, as in Linux with function/function_graph/nop, they change nothing.
    ("function-trace", True),   # a latency tracer also traces functions
    ("function-fork", False),   # the same for set_ftrace_pid / set_ftrace_notrace_pid
    ("display-graph", False),   # a latency tracer prints in function_graph's format
    ("stacktrace", False),      # a kernel_stack record (the writer's callers) after each event's
)
_NAMES = tuple(name for name, _ in OPTIONS)
# TOP_LEVEL_TRACE_FLAGS (of those present here): global in effect, so an instance's options/
# has no file for them, though its trace_options still lists and takes them.
TOP_LEVEL_ONLY = frozenset({"trace_printk", "printk-msg-only", "record-cmd"})
# ZEROED_TRACE_FLAGS: what a new instance does not take over from the top level.
_ZEROED_FOR_INSTANCES = frozenset({"event-fork", "function-fork"})
_MAX_OPTION = 256


class TraceOptions:
    def __init__(self, tracer_options: tuple[tuple[str, bool], ...] = (),
                 tracer_flags: dict[str, bool] | None = None, refused: frozenset[str] = frozenset()) -> None:
        """tracer_options: (name, default) of the options of every tracer this trace array may
        select (their files exist whichever tracer is current); tracer_flags: where their
        values live, shared by every array as Linux's struct tracer_flags is (one per
        tracer: options/func_stack_trace reads the same in every instance); None: here."""
        self._flags = {name: default for name, default in OPTIONS}
        self._tracer_names = tuple(name for name, _ in tracer_options)
        self._refused = refused     # tracer options whose tracer's set_flag() says EINVAL
        self._tracer_flags = {} if tracer_flags is None else tracer_flags
        for name, default in tracer_options:
            self._tracer_flags.setdefault(name, default)
        # The current tracer's options: listed by and writable through trace_options.
        self.current_tracer_options: tuple[str, ...] = ()
        self._watchers: dict[str, Callable[[bool], None]] = {}
        self._lock = threading.Lock()

    def __getitem__(self, name: str) -> bool:
        return self._tracer_flags[name] if name in self._tracer_names else self._flags[name]

    def get(self, name: str) -> bool:
        """An option's value, False for one this array does not have (a tracer's that instances
        cannot select)."""
        if name in self._tracer_names:
            return self._tracer_flags[name]
        return self._flags.get(name, False)

    def names(self) -> tuple[str, ...]:
        return _NAMES

    def file_names(self, top_level: bool) -> tuple[str, ...]:
        """The options/ files of a trace array (create_trace_options_dir, and the tracers'
        own options)."""
        core = _NAMES if top_level else tuple(name for name in _NAMES if name not in TOP_LEVEL_ONLY)
        return core + self._tracer_names

    def inherit(self, top: "TraceOptions") -> None:
        """trace_array_create(): a new instance starts with the top level's trace_flags as they
        are now, but for ZEROED_TRACE_FLAGS."""
        for name in _NAMES:
            if name not in _ZEROED_FOR_INSTANCES:
                self.set(name, top[name])

    def watch(self, name: str, callback: Callable[[bool], None]) -> None:
        """callback(value) runs when the option changes (set_tracer_flag's side effects)."""
        self._watchers[name] = callback

    def set(self, name: str, value: bool) -> None:
        """Set an option; its watcher, in this array, runs if the value changed (a tracer's
        option: its one shared value, as func_set_flag() compares)."""
        flags = self._tracer_flags if name in self._tracer_names else self._flags
        with self._lock:
            changed = flags[name] != value
            flags[name] = value
        watcher = self._watchers.get(name)
        if changed and watcher is not None:
            watcher(value)

    def read_trace_options(self) -> bytes:
        names = _NAMES + self.current_tracer_options
        return "".join(f"{'' if self[n] else 'no'}{n}\n" for n in names).encode()

    def write_trace_options(self, data: bytes) -> None:
        if len(data) >= _MAX_OPTION:
            raise OSError(errno.EINVAL, "option too long")
        name = strstrip(data).decode("latin-1")
        value = not name.startswith("no")
        if not value:
            name = name[2:]
        if name not in _NAMES and name not in self.current_tracer_options:
            raise OSError(errno.EINVAL, f"no option {name!r}")
        if name in self._refused:   # set_tracer_option(): the tracer's set_flag() asked, change or not
            raise OSError(errno.EINVAL, f"the tracer refuses {name!r}")
        self.set(name, value)

    def read_option(self, name: str) -> bytes:
        return b"1\n" if self[name] else b"0\n"

    def write_option(self, name: str, data: bytes) -> None:
        value = kstrtoul_from_user(data)
        if value not in (0, 1):
            raise OSError(errno.EINVAL, "options take 0 or 1")
        if name in self._refused and self[name] != bool(value):   # trace_options_write(): a change only
            raise OSError(errno.EINVAL, f"the tracer refuses {name!r}")
        self.set(name, bool(value))
