"""The machine's contract: what the layers above call on an emulated machine.

Three roles, one Protocol each, so that every caller names the part it depends on and a
test double implements exactly that part (tests/fakes.py):

- ``TracedMachine``: what the tracing core asks of the kernel it traces -- the CPU count,
  the virtual clock, live tasks, kernel memory, the image's symbols and tracepoints, and the
  guest half of tracing (``GuestTracingOps``: event enable bits, recording switches, rings).
- ``ServedMachine``: a traced machine a daemon serves (start, stop, programs to run).
- ``PatchableMachine``: what the probe engines (probes/) patch and hook: text pokes, code
  hooks, the int3 handler and its native redirects, and guest memory reached in a way that
  keeps a seeded run deterministic (``guest_op``, ``with_cpus_stopped``, ``on_ram_loaded``).

``machine.Machine`` implements all three.  Nothing here imports Unicorn: the tracing core
depends on this module and on nothing else of the machine.
"""
from __future__ import annotations

import mmap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

from .image import EventDesc, JumpEntry

if TYPE_CHECKING:  # (only for the types: hooks.py imports Unicorn)
    from .hooks import HookContext

T = TypeVar("T")

# x86-64 TASK_SIZE_MAX (4-level paging): below it an address is user memory.
TASK_SIZE = (1 << 47) - 4096
# The emulated CPU's TSC rate: the virtual clock's cycles (the x86-tsc trace clock, the PMU's cycles)
TSC_KHZ = 2_000_000
# A task's kernel stack (kernel.h's THREAD_SIZE; hostif.check_abi checks it against the image).
THREAD_SIZE = 16 * 1024


class SymbolInfo(Protocol):
    """A kernel symbol as kallsyms lists it."""

    @property
    def name(self) -> str: ...
    @property
    def addr(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def type(self) -> str: ...  # the kallsyms type letter


class TaskRecord(Protocol):
    """A live task of the guest (machine.TaskInfo)."""

    @property
    def pid(self) -> int: ...
    @property
    def tgid(self) -> int: ...
    @property
    def comm(self) -> str: ...


class MachineOptionsInfo(Protocol):
    @property
    def cpus(self) -> int: ...
    @property
    def seed(self) -> int | None: ...  # None: a live machine
    @property
    def workload(self) -> str: ...


@runtime_checkable
class KernelSymbols(Protocol):
    """The kernel image as the tracing core reads it: symbols, function entries, events."""

    @property
    def symbols(self) -> Sequence[SymbolInfo]: ...
    @property
    def mcount_sites(self) -> Mapping[str, int]: ...  # traceable function -> its ftrace site
    @property
    def events(self) -> Sequence[EventDesc]: ...  # the tracepoints compiled in
    @property
    def tracepoint_strings(self) -> Mapping[int, str]: ...  # tracepoint_string()s: address -> text

    def lookup(self, name: str) -> SymbolInfo | None: ...

    def kallsyms_lookup(self, addr: int) -> tuple[SymbolInfo, int, int] | None:
        """(symbol, offset, size) as kallsyms_lookup_size_offset() gives them."""
        ...

    def symbolize(self, addr: int) -> tuple[SymbolInfo, int] | None:
        """(function, offset) of a text address, by the compiler's sizes."""
        ...


@runtime_checkable
class GuestRam(Protocol):
    """The guest's physical RAM, shared with every CPU (paging.PhysMem)."""

    @property
    def buf(self) -> bytearray | memoryview | mmap.mmap: ...  # (writable, sliceable)
    @property
    def size(self) -> int: ...

    def read(self, pa: int, size: int) -> bytes: ...
    def write(self, pa: int, data: bytes) -> None: ...


class EventName(Protocol):
    """A tracepoint by its name (its description: the image's EventDesc)."""

    @property
    def system(self) -> str: ...
    @property
    def name(self) -> str: ...


@runtime_checkable
class PidListOps(Protocol):
    """The guest's set_event_pid / set_event_notrace_pid bitmaps and fork following
    (trace_pids.GuestPidLists), per trace-array slot."""

    def set_event_pids(self, slot: int, notrace: bool, pids: frozenset[int] | None) -> None: ...
    def event_pids(self, slot: int, notrace: bool) -> frozenset[int] | None: ...
    def set_event_fork(self, slot: int, on: bool) -> None: ...
    def set_function_fork(self, slot: int, on: bool) -> None: ...


@dataclass(frozen=True)
class GuestTriggerPred:
    """One predicate of a trigger's filter as the guest runs it (struct trigger_pred):
    filter_match_preds()'s program, each entry branching to `target` when its result is
    `when_to_branch`.  kind: "num", "cpu", "comm", "str" (char[size]; size 0: NUL-ended),
    "dyn_str" (__data_loc char[]), "never"; op: "eq" "ne" "lt" "le" "gt" "ge" "band" for
    numbers, "full" "front" "middle" "end" "glob" for strings."""

    kind: str
    op: str
    when_to_branch: bool
    target: int
    offset: int = 0
    size: int = 0
    is_signed: bool = False
    value: int = 0          # cast to the field's size and signedness
    string: bytes = b""
    negate: bool = False


class TriggerCount(Protocol):
    """A trigger's remaining count (the guest decrements it while it runs)."""

    value: int


@dataclass(frozen=True)
class GuestTrigger:
    """One event trigger as the guest runs it (struct event_trigger).  cmd: "traceon",
    "traceoff", "stacktrace", "snapshot", "enable_event", "disable_event", "hist",
    "enable_hist", "disable_hist", "eprobe" (an eprobe's trigger: data is its record program, a
    kprobe_guest.probes index)."""

    event: EventName
    event_id: int
    cmd: str
    slot: int
    preds: tuple[GuestTriggerPred, ...] = ()
    count: TriggerCount | None = None   # None: unlimited
    post: bool = False       # EVENT_CMD_FL_POST_TRIGGER
    cond: bool = False       # its file's EVENT_FILE_FL_TRIGGER_COND
    paused: bool = False
    target: EventName | None = None     # enable_event / disable_event / enable_hist / disable_hist
    target_id: int = 0                  # the target's event id
    target_dyn: bool = False            # the target is a dynamic event (probe or synthetic): its soft_off word
    hist: int = 0            # a hist trigger: its map (HistMapOps.create)
    data: int = 0            # eprobe


@dataclass(frozen=True)
class HistExprStep:
    """One step of an expression (a variable's, a key's or a value's), in postfix order (struct hist_expr).  op: "field"
    (a numeric field of the record), "cpu", "ts", "ts_usecs", "ref" (var_ref_vals[offset]),
    "const" (val), "plus", "minus", "mult", "div" (val != 0: by the constant val), "neg";
    "str" / "dyn_str": a string variable's only step, a char[N] / __data_loc char[] field
    copied into the element's string slot val (STR_VAR_LEN_MAX bytes), the value its address."""

    op: str
    offset: int = 0
    size: int = 0
    is_signed: bool = False
    val: int = 0


@dataclass(frozen=True)
class HistField:
    """A key or value of a histogram as the guest computes it (struct hist_key_field /
    hist_val_field).  kind: "num" (a record field), "cpu", "str" (char[size]), "dyn_str"
    (__data_loc char[]), "hitcount" (values only), "stacktrace" (keys only: the caller's stack),
    "expr" (steps: an expression, a constant, common_timestamp or a $var, computed at the event)."""

    kind: str
    offset: int = 0         # in the record
    size: int = 0
    is_signed: bool = False
    log2: bool = False
    buckets: int = 0        # 0: none
    key_offset: int = 0     # keys: in the map's key
    str_size: int = 0       # string keys: their room in the key (one byte for the NUL)
    steps: tuple[HistExprStep, ...] = ()    # "expr": its steps in postfix order


@dataclass(frozen=True)
class HistVarRef:
    """A $var reference (struct hist_var_ref): variable `var` of the map at `map` (0: the map
    being made), read from the element of the referring event's key."""

    map: int
    var: int
    read_once: bool = False


@dataclass(frozen=True)
class HistParam:
    """An action's argument: kind "ref" (var_ref_vals[offset]), "num", "str", "dyn_str" (a
    field of the record)."""

    kind: str
    offset: int = 0
    size: int = 0
    is_signed: bool = False

    @property
    def saved_size(self) -> int:
        """Its room among an element's saved values (a string: STR_VAR_LEN_MAX bytes)."""
        return STR_VAR_LEN_MAX if self.kind in ("str", "dyn_str") else 8


STR_VAR_LEN_MAX = 256   # a string's room in an element (MAX_FILTER_STR_VAL)


@dataclass(frozen=True)
class HistAction:
    """struct hist_action: handler "onmatch" "onmax" "onchange", action "trace" (trace_synth()
    of the synthetic event at `synth`), "save" or "snapshot"."""

    handler: str
    action: str
    params: tuple[HistParam, ...] = ()
    track_ref: int = 0      # onmax / onchange: the var_ref_vals index of the tracked value
    synth: int = 0


@dataclass(frozen=True)
class HistMapSpec:
    map_bits: int
    key_size: int
    keys: tuple[HistField, ...]
    vals: tuple[HistField, ...]
    comm: bool = False      # an execname key: each element keeps the comm of its first hit
    vars: tuple[tuple[HistExprStep, ...], ...] = ()   # each variable's expression
    refs: tuple[HistVarRef, ...] = ()
    actions: tuple[HistAction, ...] = ()


@dataclass(frozen=True)
class HistEntry:
    key: bytes
    comm: bytes             # b"" without an execname key
    sums: tuple[int, ...]
    tracked: tuple[tuple[int, bytes], ...] = ()   # per onmax / onchange action: the value, the saved bytes


@dataclass(frozen=True)
class HistSnapshot:
    hits: int
    drops: int
    entries: tuple[HistEntry, ...]  # in the order of the map's table
    # a snapshot action's conditional snapshot once one was taken: the value that took it and
    # the element it was tracked in (its key, its comm)
    cond_snapshot: tuple[int, HistEntry] | None = None


@runtime_checkable
class HistMapOps(Protocol):
    """The guest's histogram maps (tracing_map.GuestHistMaps): made, read, cleared, paused."""

    def create(self, spec: HistMapSpec) -> int: ...  # the map's guest address (ENOMEM: no room)
    def destroy(self, addr: int) -> None: ...
    def read(self, addr: int) -> HistSnapshot: ...
    def clear(self, addr: int) -> None: ...
    def set_paused(self, addr: int, paused: bool) -> None: ...
    def paused(self, addr: int) -> bool: ...


@runtime_checkable
class EventTriggerOps(Protocol):
    """The guest's event triggers (event_triggers.GuestEventTriggers)."""

    # a trace_event_file's `triggers` word follows `slots`: as one number, slot s runs its triggers at
    # bit shift + s (64); a slot past word 0 at shift + slot_ext, word 0's summary bit (63)
    shift: int
    slot_ext: int
    def set_triggers(self, triggers: Sequence[GuestTrigger]) -> None: ...  # all of them, each event's in order
    def read_count(self, count: TriggerCount) -> int: ...  # as the guest has it now
    def snapshot_requests(self, slot: int) -> list[int]: ...  # times of the snapshots asked since last time
    # EVENT_FILE_FL_SOFT_DISABLED of a dynamic event (by id) in a slot, as its writers see it
    def set_dyn_soft_disabled(self, event_id: int, slot: int, off: bool) -> None: ...
    def dyn_soft_disabled(self, event_id: int, slot: int) -> bool: ...


@runtime_checkable
class GuestSynthOps(Protocol):
    """The guest's synthetic events (synth_events.GuestSynthEvents): the layout and enable
    bits trace_synth() writes a synthetic event's record by."""

    def address(self, index: int) -> int: ...  # the entry trace_synth() takes
    def add(self, event_id: int, fields: Sequence[tuple[int, int]], n_u64: int) -> int: ...
    def set_slots(self, index: int, slots: int) -> None: ...
    def remove(self, index: int) -> None: ...


@runtime_checkable
class GuestFtraceDumpOps(Protocol):
    """The kernel's ftrace_dump() (ftrace_dump.GuestFtraceDump): the text it prints, a part at a
    time."""

    @property
    def text_size(self) -> int: ...  # the most one part may hold

    def asked(self) -> int | None: ...  # the CPU whose buffer a waiting dump prints (-1: all), or None
    def answer(self, text: bytes, last: bool) -> None: ...


class GuestPageInfo(Protocol):
    """A ring page the guest filled (tracing.GuestPage)."""

    @property
    def cpu(self) -> int: ...
    @property
    def seq(self) -> int: ...  # per (slot, cpu), from 0; seen again with more data until complete
    @property
    def data(self) -> bytes: ...  # the whole page as the guest wrote it
    @property
    def complete(self) -> bool: ...
    @property
    def lost(self) -> int: ...  # events the guest could not record before this page


@runtime_checkable
class GuestTracingOps(Protocol):
    """The guest half of tracing (tracing.GuestTracing): the kernel writes events into rings
    per (trace-array slot, CPU); the host flips what it records and takes the pages out."""

    @property
    def nr_slots(self) -> int: ...  # trace arrays the guest can record for (slot 0: the top level)
    @property
    def instance_slots(self) -> Sequence[int]: ...  # the slots instances are given, in order
    @property
    def pid_lists(self) -> PidListOps: ...
    @property
    def triggers(self) -> EventTriggerOps: ...
    @property
    def hist_maps(self) -> HistMapOps: ...
    @property
    def synth_events(self) -> GuestSynthOps: ...
    @property
    def ftrace_dump(self) -> GuestFtraceDumpOps: ...

    def set_event_id(self, event: EventName, event_id: int) -> None: ...
    def set_event_ids(self, ids: list[tuple[EventName, int]]) -> None: ...  # several, one guest op
    def enable_event(self, event: EventName, slot: int, on: bool) -> None: ...
    # a dynamic event's slots: those past word 0 where its writers find them; word 0 back
    def set_dyn_event_slots(self, event_id: int, slots: int) -> int: ...
    def event_file(self, event: EventName) -> int: ...  # the guest's trace_event_file address
    def event_recording(self, event: EventName, slot: int) -> bool: ...
    def set_event_soft_disabled(self, event: EventName, slot: int, off: bool) -> None: ...
    def record_cmdlines(self, holder: object, on: bool) -> None: ...
    def saved_comms(self) -> dict[int, str]: ...
    def comm_renames(self) -> list[tuple[int, int, str]]: ...  # (pid, ts, comm before), oldest first
    def set_recording(self, slot: int, on: bool) -> None: ...
    def is_recording(self, slot: int) -> bool: ...
    @property
    def has_blk_tracer(self) -> bool: ...  # the kernel has blktrace (kernel/blktrace.c)
    def set_blk_tracer(self, on: bool) -> None: ...  # blk_tracer_enabled: blk is the top level's tracer
    def set_cpumask(self, slot: int, mask: int) -> None: ...
    def set_stopped(self, slot: int, stopped: bool) -> None: ...  # tracing_stop: no CPU records
    def set_stack_options(self, slot: int, kernel: bool, user: bool) -> None: ...  # stacktrace, userstacktrace
    def open_slot(self, slot: int) -> None: ...  # an instance's buffers allocated (OSError ENOMEM: no memory)
    def close_slot(self, slot: int) -> None: ...  # ... and freed (every bit of the slot clear)
    def drain(self, slot: int) -> Sequence[GuestPageInfo]: ...
    def reset(self, slot: int) -> None: ...
    def wait_for_data(self, timeout: float) -> bool: ...
    # the triggers of the slot's ftrace/print event (MARKER_EVENT) on a trace_marker write by pid,
    # run by the kernel; the write's record is the trace core's (OSError: the kernel's errno)
    def marker_triggers(self, slot: int, pid: int, text: bytes) -> None: ...


# The event whose triggers a write to trace_marker runs (6.1's tr->trace_marker_file)
MARKER_EVENT = ("ftrace", "print")


@runtime_checkable
class TracedMachine(Protocol):
    """What the tracing core asks of the machine it traces."""

    @property
    def nr_cpus(self) -> int: ...
    @property
    def image(self) -> KernelSymbols: ...
    @property
    def tracing(self) -> GuestTracingOps: ...

    def now_ns(self) -> int: ...  # the virtual clock: ns since boot
    def tasks(self) -> Sequence[TaskRecord]: ...  # the live tasks
    # a live task's mappings (start, end, file path or None), by address; None: no such task or mm
    def user_vmas(self, tgid: int) -> list[tuple[int, int, str | None]] | None: ...

    def read_memory(self, vaddr: int, size: int) -> bytes:
        """Kernel virtual memory; ValueError outside it."""
        ...


class SessionRingInfo(Protocol):
    """The session ring in the machine's RAM file (machine/session_ring.py)."""

    @property
    def ram_fd(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def doorbell_fd(self) -> int: ...
    @property
    def reply_fd(self) -> int: ...
    @property
    def pool_fds(self) -> tuple[int, ...]: ...  # the perf pool's region files (machine/perf_pool.py)
    @property
    def wake_fd(self) -> int: ...  # written by the kernel at a perf buffer's wakeup (uapi/perf_pool.h)


class SpawnedProgram(Protocol):
    """A program started in the guest (process.Process)."""

    @property
    def pid(self) -> int: ...
    @property
    def killed_by(self) -> str | None: ...
    @property
    def exit_ns(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int | None: ...


@dataclass(frozen=True)
class DebugInfo:
    """The kernel's debuginfo, where a session shows it as a distribution kernel with its debug
    package installed shows its own (perf finds the vmlinux by `uname -r` and checks its build-id
    against /sys/kernel/notes; perf probe -L reads the sources the DWARF names)."""
    notes: bytes    # /sys/kernel/notes: the GNU build-id note
    vmlinux: str    # the image's file (with DWARF), for /usr/lib/debug/boot/vmlinux-RELEASE
    release: str    # UTS_RELEASE
    comp_dir: str   # where the DWARF says the sources are
    sources: str    # the directory that holds them on this machine


@runtime_checkable
class ServedMachine(TracedMachine, Protocol):
    """A traced machine that a daemon starts, serves and stops (daemon.py, control.py)."""

    @property
    def options(self) -> MachineOptionsInfo: ...

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def kallsyms(self) -> str: ...  # /proc/kallsyms
    def btf(self) -> bytes | None: ...  # /sys/kernel/btf/vmlinux; None: not built
    def debuginfo(self) -> DebugInfo | None: ...  # None: an image without DWARF or build-id
    def programs(self) -> list[str]: ...

    def spawn(self, argv: list[str], on_output: Callable[[bytes], None] | None = None,
              on_stderr: Callable[[bytes], None] | None = None, stdin: int | None = None) -> SpawnedProgram:
        """Run an emulated program; its stdout to on_output, its stderr to on_stderr (else to
        on_output), its stdin what it reads of the host fd `stdin` (which the machine takes
        over and closes), else /dev/null; FileNotFoundError for one the kernel does not have."""
        ...

    # -- a session's processes as the kernel's tasks (session/, kernel/session.c) --
    def session_ring(self) -> SessionRingInfo | None:
        """What a supervisor needs to write the kernel's session ring; None: no ring (a kernel
        without one, or a seeded machine)."""
        ...

    def session_stats(self) -> dict[str, int] | None: ...  # produced, retired(_upto), lost; None: no session
    def session_behind(self) -> bool: ...  # records the kernel has not acted on yet
    def session_caught_up(self) -> bool:
        """Wait (bounded) until the kernel acted on every record produced so far."""
        ...


class PatchableImage(KernelSymbols, Protocol):
    """The kernel image as the probe engines read it: its bytes too, never the live text."""

    @property
    def text_range(self) -> tuple[int, int]: ...
    @property
    def init_text_range(self) -> tuple[int, int]: ...  # the __init functions' (gone after boot)
    @property
    def jump_entries(self) -> Sequence[JumpEntry]: ...

    def addr(self, name: str) -> int: ...  # KeyError for a symbol the image lacks

    def abi_value(self, name: str) -> int:
        """A constant of the tables the kernel shares with the host, as this build has it
        (kernel/host_abi.c); KeyError for one it lacks."""
        ...
    def abi_table(self, name: str, size: int | None = None) -> SymbolInfo:
        """One of those tables, checked to take size bytes (by default sizeof(struct name) of
        the host ABI); ValueError where the image's does not."""
        ...
    def read(self, addr: int, size: int) -> bytes: ...
    def u64(self, addr: int) -> int: ...


@runtime_checkable
class PatchableMachine(Protocol):
    """What the probe engines patch, hook and reach in the machine."""

    @property
    def nr_cpus(self) -> int: ...
    @property
    def image(self) -> PatchableImage: ...
    @property
    def running(self) -> bool: ...  # started, not stopped, not panicked

    def tasks(self) -> Sequence[TaskRecord]: ...

    # -- guest memory, reached so that a seeded run stays one run --
    def on_ram_loaded(self, fn: Callable[[GuestRam], None]) -> None:
        """fn(ram) once the guest's RAM is loaded, before any CPU runs (now, if it is)."""
        ...

    def guest_op(self, fn: Callable[[], T]) -> T:
        """A host operation on guest memory: seeded, while the machine is paused; live, now."""
        ...

    def with_cpus_stopped(self, fn: Callable[[], T]) -> T:
        """fn with no CPU half-way through a store (between slices; not running: now)."""
        ...

    # -- kernel text --
    def text_poke(self, addr: int, data: bytes) -> None: ...

    # -- user text (uprobes) --
    def poke_user_text(self, collect: Callable[[GuestRam, list[int]], list[tuple[int, bytes, bool]]]) -> int:
        """With CPUs stopped, collect(ram, live task_struct addresses) gives (physical address,
        bytes, code) patches; each is written, a code page's translations dropped."""
        ...

    def text_poke_batch(self, patches: Iterable[tuple[int, bytes]]) -> None:
        """Every patch in one stop-the-world, each range's translations dropped."""
        ...

    def text_release(self, addr: int, data: bytes, callees: tuple[tuple[int, int], ...] = ()) -> bool:
        """Patch text CPUs may be executing, only if none runs in it or in callees (False:
        nothing patched, try later)."""
        ...

    # -- host code at guest instructions --
    def add_code_hook(self, addr: int, callback: Callable[[HookContext], None]) -> int: ...
    def remove_code_hook(self, handle: int) -> None: ...
    def set_doorbell_handler(self, port: int,
                             fn: Callable[[HookContext, tuple[int, int, int, int]], None] | None) -> None: ...


@dataclass(frozen=True)
class KprobeRequest:
    """The kernel's request to the host's kprobe engine (struct kernel_req of
    include/kernel_request.h): REGISTER (func: the function's name, "" for a probe at addr;
    offset into func; is_return) or UNREGISTER (probe: what REGISTER answered) of a local probe;
    with perf_event, the id of a kprobe event that perf opens as a tracepoint (register: its
    first perf event, PERF_OPEN; else its last one went, PERF_CLOSE)."""
    register: bool
    func: str
    addr: int
    offset: int
    is_return: bool
    probe: int
    perf_event: int = 0


@dataclass(frozen=True)
class DirectCall:
    """DIRECT (register_ftrace_direct() of the kernel's BPF trampolines): the ftrace site at
    `site` calls `tramp` (0: no longer), whose `size` bytes of code, named `name` (as kallsyms
    names it), the kernel has just written."""
    site: int
    tramp: int
    size: int
    name: str = ""


@dataclass(frozen=True)
class UprobeRequest:
    """The uprobe PMU's request (KERNEL_REQ_UPROBE_REGISTER/UNREGISTER of
    include/kernel_request.h): register a consumer of the uprobe at `offset` in the hostfs
    file the kernel found at `path` (the host's; `ino` its inode number), `ref_ctr_offset` its
    reference counter's, whose hits run the kernel's perf call in slot `slot`; or (not
    register) unregister slot's."""
    register: bool
    path: str
    ino: int
    offset: int
    ref_ctr_offset: int
    is_return: bool
    slot: int


@dataclass(frozen=True)
class KprobeEventAnswer:
    """PERF_OPEN's answer: the indexes of the event's probes in the guest's tables, and its
    fields after the common ones as its format file has them (type, name, offset, size,
    signed), which the kernel's filters of its perf events name; where its first probe is
    (its function, None for an address probe, the offset in it, the address, a kretprobe),
    which BPF_TASK_FD_QUERY tells."""
    probes: tuple[int, ...]
    fields: tuple[tuple[str, str, int, int, bool], ...]
    symbol: str | None = None
    offset: int = 0
    addr: int = 0
    is_return: bool = False


@dataclass(frozen=True)
class EventEnable:
    """EVENT_ENABLE (trace_set_clr_event() of 6.1): the top-level trace array's events of
    `system` named `event` enabled or disabled, as their enable files do it (a BPF program that
    may call bpf_trace_printk() enables bpf_trace:bpf_trace_printk when it loads)."""
    system: str
    event: str
    enable: bool


KernelRequest = KprobeRequest | DirectCall | UprobeRequest | EventEnable
# answers a request: a kprobe's REGISTER, the probe's index in the guest's tables or -errno;
# UNREGISTER and PERF_CLOSE, 0; PERF_OPEN, a KprobeEventAnswer or -errno; FTRACE_DIRECT,
# EVENT_ENABLE, UPROBE_REGISTER and UPROBE_UNREGISTER, 0 or -errno
KernelRequestService = Callable[[KernelRequest], int | KprobeEventAnswer]


@runtime_checkable
class KernelRequestMachine(Protocol):
    """A machine whose kernel asks the host for what the host's machinery does (probes for its
    kprobe and uprobe PMUs, ftrace sites for its BPF trampolines, events enabled:
    kernel_requests.py)."""

    def serve_kernel_requests(self, service: KernelRequestService | None) -> None: ...
