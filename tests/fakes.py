"""Test doubles for the trace and fs tests: event descriptions parsed from the real Linux 6.1
format files, and a small machine that implements the machine's contract (machine/contract.py:
ServedMachine, with a GuestTracingOps and a PidListOps; tests/machine/test_contract.py checks
them member for member) without emulating anything.
"""

import re
import errno
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tracefs_sim.machine import EventDesc, FieldDesc

FORMATS_FILE = Path(__file__).parent / "data" / "linux-6.1-formats.txt"


_FIELD = re.compile(r"\tfield:(.*);\toffset:(\d+);\tsize:(\d+);\tsigned:(\d);$")


def real_format_sections() -> dict[str, str]:
    """'system/event' (or 'header_page'...) -> the real file's text, from the captured formats."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in FORMATS_FILE.read_text().splitlines(keepends=True):
        if line.startswith("=== "):
            current = line[4:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {name: "".join(lines) for name, lines in sections.items()}


def _parse_field(declaration: str, offset: int, size: int, signed: bool) -> FieldDesc:
    """Back to the kernel's own spelling: `char comm[16]` is type `char[16]`, name `comm`."""
    if declaration.startswith("__data_loc"):
        type_, name = declaration.rsplit(" ", 1)
        return FieldDesc(type_, name, offset, size, signed)
    type_, name = declaration.rsplit(" ", 1)
    if "[" in name:
        name, dims = name.split("[", 1)
        type_ += "[" + dims
    return FieldDesc(type_, name, offset, size, signed)


def event_desc_from_format(system: str, text: str) -> EventDesc:
    name = re.search(r"^name: (.*)$", text, re.M).group(1)
    print_fmt = re.search(r"^print fmt: (.*)$", text, re.M).group(1)
    fields = []
    own_fields = text.split("\n\n", 1)[1]   # after the common fields' blank line
    for line in own_fields.splitlines():
        match = _FIELD.match(line)
        if match:
            fields.append(_parse_field(match.group(1), int(match.group(2)), int(match.group(3)),
                                       match.group(4) == "1"))
    return EventDesc(system, name, tuple(fields), print_fmt, key_addr=0)


def real_event_descs() -> list[EventDesc]:
    """The captured tracepoint events (ftrace's own record types and headers excluded)."""
    descs = []
    for section, text in real_format_sections().items():
        if "/" in section and not section.startswith("ftrace/"):
            descs.append(event_desc_from_format(section.split("/")[0], text))
    return descs


@dataclass(frozen=True)
class FakeOptions:
    cpus: int = 2
    seed: int | None = None
    workload: str = "none"
    kernel_image: str | None = None


@dataclass(frozen=True)
class FakeSymbol:
    name: str
    addr: int
    size: int
    type: str = "T"


def _fake_symbols() -> list:
    return [FakeSymbol("_stext", 0xFFFFFFFF81000000, 0x100), FakeSymbol("kmalloc_trace", 0xFFFFFFFF81001200, 0x80),
            FakeSymbol("vfs_read", 0xFFFFFFFF81002000, 0x200),
            FakeSymbol("linux_banner", 0xFFFFFFFF81010000, len(FAKE_VERSION) + 1, "D")]


FAKE_VERSION = (b"Linux version 6.1.0-tracefs-sim (gcc (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40)"
                b" #1 SMP PREEMPT_DYNAMIC Debian 6.1.0\n")


@dataclass
class FakeImage:
    events: list[EventDesc] = field(default_factory=real_event_descs)
    symbols: list = field(default_factory=_fake_symbols)
    mcount_sites: dict = field(default_factory=dict)
    # tracepoint_string()s: what printk_formats lists
    tracepoint_strings: dict = field(default_factory=lambda: {0xFFFFFFFF81020000: "Start scheduler-tick",
                                                              0xFFFFFFFF81020015: 'a "quoted"\ttab'})

    def lookup(self, name: str):
        return next((s for s in self.symbols if s.name == name), None)

    def symbolize(self, addr: int):
        for sym in self.symbols:
            if sym.addr <= addr < sym.addr + sym.size:
                return sym, addr - sym.addr
        return None

    def kallsyms_lookup(self, addr: int):
        # The fake's symbols are laid out so that the given sizes are kallsyms' sizes too.
        found = self.symbolize(addr)
        return None if found is None else (found[0], found[1], found[0].size)


class FakeMachine:
    """contract.ServedMachine for the trace core, fs and daemon: a clock, a CPU count and the
    event list. It runs nothing."""

    def __init__(self, options: FakeOptions = FakeOptions(), clock_ns: int | None = None):
        self.options = options
        self.nr_cpus = options.cpus
        self.image = FakeImage()
        self.tracing = FakeGuestTracing(options.cpus)
        self.live_tasks: list = []
        self._fixed_clock = clock_ns
        self._t0 = time.monotonic_ns()
        self._lock = threading.Lock()
        self.started = False
        self.stopped = False

    def start(self) -> None:
        self.started = True
        if self.options.workload == "ticks":
            threading.Thread(target=self._tick, daemon=True).start()

    def stop(self) -> None:
        self.stopped = True

    def _tick(self) -> None:
        """A stand-in workload: pid 42 ("ticker") switches out on alternate CPUs every 5 ms."""
        switch = next(e for e in self.image.events if e.name == "sched_switch")
        self.live_tasks.append(FakeTask(42, 42, "ticker"))
        n = 0
        while not self.stopped:
            n += 1
            self.tracing.emit(n % 2, switch, self.now_ns(), dict(
                prev_comm="ticker", prev_pid=42, prev_prio=120, prev_state=1, next_comm="swapper",
                next_pid=0, next_prio=120), pid=42, flags=1, preempt=2)
            time.sleep(0.005)

    def now_ns(self) -> int:
        if self._fixed_clock is not None:
            return self._fixed_clock
        return time.monotonic_ns() - self._t0

    def kallsyms(self) -> str:
        return ""

    def read_memory(self, vaddr: int, size: int) -> bytes:
        """Only the kernel's banner lives in this fake's memory."""
        symbol = self.image.lookup("linux_banner")
        if not (symbol.addr <= vaddr and vaddr + size <= symbol.addr + symbol.size):
            raise ValueError(f"{vaddr:#x}+{size} is not kernel memory")
        data = FAKE_VERSION + b"\0"
        return data[vaddr - symbol.addr:vaddr - symbol.addr + size]

    def session_ring(self):
        return None   # no kernel to mirror a session into

    def session_behind(self) -> bool:
        return False

    def session_stats(self):
        return None

    def session_caught_up(self, timeout: float = 0.0) -> bool:
        return True

    def btf(self) -> bytes | None:
        return None

    def debuginfo(self):
        return None

    def programs(self) -> list[str]:
        return []

    def spawn(self, argv, on_output=None, on_stderr=None, stdin=None):
        raise FileNotFoundError(argv[0])

    def tasks(self) -> list:
        return list(self.live_tasks)

    def user_vmas(self, tgid: int):
        """(start, end, path or None) of the task's mappings: tests set vmas[tgid]."""
        return getattr(self, "vmas", {}).get(tgid)


# ---- a guest that records events into Linux-layout pages, as machine.tracing does ----

import struct as _struct  # noqa: E402

from tracefs_sim.trace.rb_page import PageWriter  # noqa: E402

_INT_CODES = {1: "b", 2: "h", 4: "i", 8: "q"}


def encode_record(desc: EventDesc, event_id: int, values: dict, *, pid: int = 0, flags: int = 0,
                  preempt: int = 0) -> bytes:
    """The trace entry the guest's tracepoint would write: common header, then each field at its
    offset by its real layout; __data_loc strings go after the fixed part."""
    fixed = max((f.offset + f.size for f in desc.fields), default=8)
    buf = bytearray(fixed)
    _struct.pack_into("<HBBi", buf, 0, event_id, flags, preempt, pid)
    for f in desc.fields:
        value = values.get(f.name, 0)
        if f.type.startswith("__data_loc"):
            data = (value.encode() if isinstance(value, str) else value) + b"\0"
            _struct.pack_into("<I", buf, f.offset, len(buf) | (len(data) << 16))
            buf += data
        elif "[" in f.type:
            data = value.encode() if isinstance(value, str) else bytes(value)
            buf[f.offset:f.offset + f.size] = data[:f.size].ljust(f.size, b"\0")
        else:
            code = _INT_CODES[f.size]
            _struct.pack_into("<" + (code if f.is_signed else code.upper()), buf, f.offset,
                              value & ((1 << (8 * f.size)) - 1) if not f.is_signed else value)
    return bytes(buf)


@dataclass(frozen=True)
class FakeGuestPage:
    cpu: int
    seq: int
    data: bytes
    complete: bool
    lost: int


class FakeSynthEvents:
    """contract.GuestSynthOps: the synthetic events' entries as the guest would have them."""

    def __init__(self):
        self.entries: dict[int, dict] = {}

    def address(self, index: int) -> int:
        return 0xFFFFFFFF82000000 + 144 * index

    def add(self, event_id: int, fields, n_u64: int) -> int:
        index = next(i for i in range(256) if i not in self.entries)
        self.entries[index] = {"id": event_id, "fields": list(fields), "n_u64": n_u64, "slots": 0}
        return index

    def set_slots(self, index: int, slots: int) -> None:
        self.entries[index]["slots"] = slots

    def remove(self, index: int) -> None:
        del self.entries[index]


class FakePidLists:
    """contract.PidListOps without a guest: the lists, and which a task's event passes (the
    guest's trace_pid_event_slots)."""

    def __init__(self):
        self.lists: dict[tuple[int, bool], frozenset[int] | None] = {}
        self.event_fork: set[int] = set()
        self.function_fork: set[int] = set()

    def set_event_pids(self, slot: int, notrace: bool, pids) -> None:
        self.lists[(slot, notrace)] = None if pids is None else frozenset(pids)

    def event_pids(self, slot: int, notrace: bool):
        return self.lists.get((slot, notrace))

    def set_event_fork(self, slot: int, on: bool) -> None:
        (self.event_fork.add if on else self.event_fork.discard)(slot)

    def set_function_fork(self, slot: int, on: bool) -> None:
        (self.function_fork.add if on else self.function_fork.discard)(slot)

    def passes(self, slot: int, pid: int) -> bool:
        pids, notrace = self.lists.get((slot, False)), self.lists.get((slot, True))
        return (pids is None or pid in pids) and (notrace is None or pid not in notrace)


class FakeTriggers:
    """contract.EventTriggerOps without a guest: the table handed over is kept in `table`;
    tests act as the guest would (take a count, ask for a snapshot at a time)."""

    shift = 64   # trace_event_file.triggers follows .slots: one number, triggers above
    slot_ext = 63   # word 0's summary bit: the slots past it

    def __init__(self):
        self.table: list = []
        self.requests: dict[int, list[int]] = {}
        self.dyn_soft_off: dict[int, int] = {}    # probe event id -> its soft_off word

    def set_triggers(self, triggers) -> None:
        self.table = list(triggers)

    def set_dyn_soft_disabled(self, event_id: int, slot: int, off: bool) -> None:
        word = self.dyn_soft_off.get(event_id, 0)
        self.dyn_soft_off[event_id] = word | 1 << slot if off else word & ~(1 << slot)

    def dyn_soft_disabled(self, event_id: int, slot: int) -> bool:
        return bool(self.dyn_soft_off.get(event_id, 0) >> slot & 1)

    def read_count(self, count) -> int:
        return count.value

    def snapshot_requests(self, slot: int) -> list[int]:
        return self.requests.pop(slot, [])


class FakeHistMaps:
    """contract.HistMapOps without a guest: maps are kept here; tests put entries in them as
    the guest's writers would (put())."""

    def __init__(self):
        self.specs: dict[int, object] = {}
        self.entries: dict[int, list] = {}
        self.counts: dict[int, list[int]] = {}      # addr -> [hits, drops]
        self._paused: dict[int, bool] = {}
        self._next = 0xFFFFFFFF83000000

    def create(self, spec) -> int:
        addr, self._next = self._next, self._next + 0x100
        self.specs[addr], self.entries[addr], self.counts[addr], self._paused[addr] = spec, [], [0, 0], False
        return addr

    def destroy(self, addr: int) -> None:
        for table in (self.specs, self.entries, self.counts, self._paused):
            del table[addr]

    def put(self, addr: int, key: bytes, sums, comm: bytes = b"", hits: int = 1) -> None:
        from tracefs_sim.machine.contract import HistEntry
        self.entries[addr].append(HistEntry(key, comm, tuple(sums)))
        self.counts[addr][0] += hits

    def read(self, addr: int):
        from tracefs_sim.machine.contract import HistSnapshot
        return HistSnapshot(self.counts[addr][0], self.counts[addr][1], tuple(self.entries[addr]))

    def clear(self, addr: int) -> None:
        self.entries[addr], self.counts[addr] = [], [0, 0]

    def set_paused(self, addr: int, paused: bool) -> None:
        self._paused[addr] = paused

    def paused(self, addr: int) -> bool:
        return self._paused[addr]


class FakeFtraceDump:
    """contract.GuestFtraceDumpOps: a test sets `waiting` (the CPU a kernel's dump waits for
    the text of, -1: all) where the kernel would ask; the answers given are kept."""

    def __init__(self, text_size: int = 8192):
        self.text_size = text_size
        self.waiting: int | None = None
        self.answers: list[tuple[bytes, bool]] = []

    def asked(self) -> int | None:
        return self.waiting

    def answer(self, text: bytes, last: bool) -> None:
        self.answers.append((text, last))
        if last:
            self.waiting = None


class FakeGuestTracing:
    """contract.GuestTracingOps without a guest: tests call emit() where the kernel would hit a
    tracepoint; it records only for slots with the event enabled and recording on, into a
    ring of `ring_pages` pages per (slot, CPU) that drain() empties (full ring -> lost)."""

    def __init__(self, nr_cpus: int = 2, nr_slots: int = 64, ring_pages: int = 4,
                 buffers: int | None = None):
        """buffers: how many instances' buffers the kernel has memory for (None: any number)."""
        self.nr_slots = nr_slots
        self.instance_slots = tuple(range(1, nr_slots))
        self.buffers = buffers
        self.open_slots: set[int] = set()   # the instances' slots whose buffers exist
        self.nr_cpus = nr_cpus
        self.ring_pages = ring_pages
        self.ids: dict[tuple[str, str], int] = {}
        self.enabled: dict[tuple[str, str], set[int]] = {}
        self.soft_off: dict[tuple[str, str], set[int]] = {}   # soft-disabled slots
        self.recording = [False] * nr_slots
        self.cpumasks = [(1 << nr_cpus) - 1] * nr_slots
        self.stopped: set[int] = set()   # tracing_stop(): slots that record on no cpu
        self.stack_options: dict[int, tuple[bool, bool]] = {}   # slot -> (stacktrace, userstacktrace)
        self.key_flips: list[tuple[str, bool]] = []
        self._cond = threading.Condition()
        self._rings: dict[tuple[int, int], list] = {}    # (slot, cpu) -> [[seq, writer, lost], ...]
        self._next_seq: dict[tuple[int, int], int] = {}
        self._lost: dict[tuple[int, int], int] = {}
        self._pending = False
        self.saved: dict[int, str] = {}   # what the guest's saved cmdlines would hold
        self.renames: list[tuple[int, int, str]] = []   # (pid, ts, comm before) of the guest's renames
        self.cmdline_holders: set = set()   # record_cmdlines() holders: comms are saved while any
        self.pid_lists = FakePidLists()
        self.triggers = FakeTriggers()
        self.hist_maps = FakeHistMaps()
        self.synth_events = FakeSynthEvents()
        self.ftrace_dump = FakeFtraceDump()
        self.marker_writes: list[tuple[int, int, bytes]] = []   # marker_triggers() asked

    def set_event_id(self, event, event_id: int) -> None:
        self.ids[(event.system, event.name)] = event_id

    def open_slot(self, slot: int) -> None:
        assert 0 < slot < self.nr_slots and slot not in self.open_slots
        if self.buffers is not None and len(self.open_slots) >= self.buffers:
            raise OSError(errno.ENOMEM, "Cannot allocate memory")
        self.open_slots.add(slot)

    def close_slot(self, slot: int) -> None:
        self.open_slots.remove(slot)

    def set_event_ids(self, ids) -> None:
        for event, event_id in ids:
            self.set_event_id(event, event_id)

    def record_cmdlines(self, holder, on: bool) -> None:
        (self.cmdline_holders.add if on else self.cmdline_holders.discard)(holder)

    def enable_event(self, event, slot: int, on: bool) -> None:
        key = (event.system, event.name)
        slots = self.enabled.setdefault(key, set())
        before = bool(slots)
        (slots.add if on else slots.discard)(slot)
        if before != bool(slots):
            self.key_flips.append((event.name, bool(slots)))

    def set_dyn_event_slots(self, event_id: int, slots: int) -> int:
        """Word 0 of a dynamic event's slots, as the kernel keeps it: bit 63 says a slot past it
        is in the set (kept here, by type: dyn_ext)."""
        self.__dict__.setdefault("dyn_ext", {})[event_id] = slots
        word = (1 << 64) - 1
        return slots & word & ~(1 << 63) | bool(slots >> 64) << 63

    def set_recording(self, slot: int, on: bool) -> None:
        self.recording[slot] = on

    has_blk_tracer = False   # (a test sets it: the blk tracer registered)
    blk_tracer = False

    def set_blk_tracer(self, on: bool) -> None:
        self.blk_tracer = on

    def is_recording(self, slot: int) -> bool:
        return self.recording[slot]

    def event_file(self, event) -> int:
        """A stand-in for the guest address of the event's trace_event_file."""
        return 0xFFFFFFFF82000000 + (hash((event.system, event.name)) & 0xFFFF) * 8

    def event_recording(self, event, slot: int) -> bool:
        key = (event.system, event.name)
        return slot in self.enabled.get(key, ()) and slot not in self.soft_off.get(key, ())

    def set_event_soft_disabled(self, event, slot: int, off: bool) -> None:
        """What a function probe's enable_event/disable_event flips in the guest, too."""
        soft = self.soft_off.setdefault((event.system, event.name), set())
        (soft.add if off else soft.discard)(slot)

    def set_cpumask(self, slot: int, mask: int) -> None:
        self.cpumasks[slot] = mask

    def set_stopped(self, slot: int, stopped: bool) -> None:
        (self.stopped.add if stopped else self.stopped.discard)(slot)

    def set_stack_options(self, slot: int, kernel: bool, user: bool) -> None:
        self.stack_options[slot] = (kernel, user)

    def marker_triggers(self, slot: int, pid: int, text: bytes) -> None:
        """The kernel would run ftrace/print's triggers: kept for the test to look at."""
        self.marker_writes.append((slot, pid, text))

    def emit(self, cpu: int, desc: EventDesc, ts: int, values: dict | None = None, **header) -> None:
        key = (desc.system, desc.name)
        if not self.enabled.get(key):
            return                      # the static key is off: the tracepoint is a nop
        payload = encode_record(desc, self.ids[key], values or {}, **header)
        with self._cond:
            for slot in sorted(self.enabled.get(key, ()) - self.soft_off.get(key, set())):
                if self.recording[slot] and self.cpumasks[slot] >> cpu & 1 and slot not in self.stopped and \
                        self.pid_lists.passes(slot, header.get("pid", 0)):
                    self._append(slot, cpu, ts, payload)
            self._pending = True
            self._cond.notify_all()

    def commit_staged(self, cpu: int, ts: int, event_type: int, slots: int, body: bytes, *, pid: int = 0,
                      flags: int = 0) -> None:
        """What probe_commit_stub does with a probe's staged record: the common header, then
        the body, into every slot of `slots` that is recording."""
        payload = _struct.pack("<HBBi", event_type, flags, 0, pid) + body
        with self._cond:
            for slot in range(self.nr_slots):
                if slots & (1 << slot) and self.recording[slot] and self.cpumasks[slot] >> cpu & 1 and \
                        slot not in self.stopped and \
                        self.pid_lists.passes(slot, pid):
                    self._append(slot, cpu, ts, payload)
            self._pending = True
            self._cond.notify_all()

    def _append(self, slot: int, cpu: int, ts: int, payload: bytes) -> None:
        ring = self._rings.setdefault((slot, cpu), [])
        if ring and ring[-1][1].append(ts, payload):
            return
        if len(ring) >= self.ring_pages:
            # The reader has not drained: the event is lost, reported with the next page.
            self._lost[(slot, cpu)] = self._lost.get((slot, cpu), 0) + 1
            return
        seq = self._next_seq.get((slot, cpu), 0)
        self._next_seq[(slot, cpu)] = seq + 1
        writer = PageWriter()
        writer.append(ts, payload)
        ring.append([seq, writer, self._lost.pop((slot, cpu), 0)])

    def drain(self, slot: int) -> list:
        pages = []
        with self._cond:
            for (s, cpu), ring in sorted(self._rings.items()):
                if s != slot:
                    continue
                for index, (seq, writer, lost) in enumerate(ring):
                    pages.append(FakeGuestPage(cpu, seq, writer.ring_page(), index < len(ring) - 1, lost))
                # Complete pages go back to the guest; the page being written stays.
                del ring[:-1]
            self._pending = False
        return pages

    def reset(self, slot: int) -> None:
        with self._cond:
            for key in [k for k in self._rings if k[0] == slot]:
                del self._rings[key]

    def wait_for_data(self, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._pending, timeout)

    def saved_comms(self) -> dict[int, str]:
        return dict(self.saved)

    def comm_renames(self) -> list[tuple[int, int, str]]:
        return list(self.renames)


# A sched_switch's fields, as the trace tests record them: sleep (108) switching to idle.
SWITCH = dict(prev_comm="sleep", prev_pid=108, prev_prio=120, prev_state=1, next_comm="swapper/1",
              next_pid=0, next_prio=120)


@dataclass(frozen=True)
class FakeTask:
    pid: int
    tgid: int
    comm: str


class FakeFtraceSites:
    """probes.ftrace.FtraceSites without a guest: it remembers what each slot asked for, and
    counts sites as a patcher would (a site is patched while any slot traces it)."""

    def __init__(self, functions: list[str], base: int = 0xFFFFFFFF81100000):
        self.functions = list(functions)
        self._addresses = {name: base + 0x100 * i for i, name in enumerate(functions)}
        self.function_slots: dict[int, frozenset[str]] = {}
        self.graph_slots: dict[int, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}
        self.max_graph_depth = 0
        self.graph_thresh = 0
        self.pids: dict[int, tuple[frozenset[int], frozenset[int]]] = {}
        self.stack_trace: dict[int, bool] = {}
        self.no_repeats: dict[int, bool] = {}
        self.graph_irqs = True
        self.graph_sleep_time = True
        self.graph_graph_time = True
        self.probes: list = []
        self.calls: list[tuple] = []

    def address(self, name: str) -> int:
        return self._addresses[name]

    def set_function(self, slot: int, funcs) -> None:
        self.calls.append(("function", slot, funcs))
        if funcs is None:
            self.function_slots.pop(slot, None)
        else:
            self.function_slots[slot] = frozenset(funcs)

    def set_graph(self, slot: int, funcs, *, graph_functions, graph_notrace) -> None:
        self.calls.append(("graph", slot, funcs))
        if funcs is None:
            self.graph_slots.pop(slot, None)
        else:
            self.graph_slots[slot] = (frozenset(funcs), frozenset(graph_functions), frozenset(graph_notrace))

    def set_max_graph_depth(self, depth: int) -> None:
        self.max_graph_depth = depth

    def set_graph_thresh(self, ns: int) -> None:
        self.graph_thresh = ns

    def set_pids(self, slot: int, pids, notrace_pids) -> None:
        self.pids[slot] = (frozenset(pids), frozenset(notrace_pids))

    def read_pids(self, slot: int):
        pids, notrace = self.pids.get(slot, (frozenset(), frozenset()))
        return pids or None, notrace or None

    def set_profiler(self, funcs) -> None:
        self.profiled = funcs

    def read_profile(self) -> list:
        return [[]]

    def set_stack_trace(self, slot: int, on: bool) -> None:
        self.stack_trace[slot] = on

    def set_graph_irqs(self, on: bool) -> None:
        self.graph_irqs = on

    def set_graph_sleep_time(self, on: bool) -> None:
        self.graph_sleep_time = on

    def set_graph_graph_time(self, on: bool) -> None:
        self.graph_graph_time = on

    def set_no_repeats(self, slot: int, on: bool) -> None:
        self.no_repeats[slot] = on

    def clear_repeats(self, slot: int) -> None:
        self.calls.append(("clear_repeats", slot))

    def set_kprobe(self, name: str, on: bool) -> None:
        raise NotImplementedError

    def set_probes(self, probes) -> None:
        """The function probes' table, as probes.ftrace.FtraceSites.set_probes takes it."""
        for probe in probes:
            self._addresses[probe.function]  # KeyError, as the real one
        self.probes = list(probes)

    def read_counter(self, counter) -> int:
        return counter.value

    def enabled(self) -> list[tuple[str, int, str]]:
        users: dict[str, int] = {}
        for probe in self.probes:
            users[probe.function] = users.get(probe.function, 0) + 1
        for funcs in self.function_slots.values():
            for name in funcs:
                users[name] = users.get(name, 0) + 1
        for funcs, _, _ in self.graph_slots.values():
            for name in funcs:
                users[name] = users.get(name, 0) + 1
        return [(name, users[name], "      ") for name in self.functions if name in users]

    def direct_call(self, name: str) -> tuple[str, int] | None:
        return None  # no BPF trampolines here

    @property
    def patched_count(self) -> int:
        return len(self.enabled())


# ---- a trace array over these fakes ----

from tracefs_sim.trace.clock import TraceClocks  # noqa: E402
from tracefs_sim.trace.cmdlines import SavedCmdlines  # noqa: E402
from tracefs_sim.trace.events import EventRegistry  # noqa: E402
from tracefs_sim.trace.headers import KernelIdentity  # noqa: E402
from tracefs_sim.trace.trace_array import BufferExpansion, TraceArray, TraceGlobals  # noqa: E402
from tracefs_sim.trace.tracers import FUNCTION, FUNCTION_GRAPH, NOP, TracerRegistry  # noqa: E402
from tracefs_sim.trace.trigger import TriggerTable  # noqa: E402

FAKE_KERNEL = KernelIdentity("6.1.0-tracefs-sim", "desktop")


def trace_globals(nr_cpus: int = 2, clock=lambda: 1000, *, ftrace=None, guest=None, symbolize=lambda addr: None,
                  expansion=None, clocks=None, tracers=None) -> TraceGlobals:
    """What a trace array works with, made of fakes (the trace core makes the real ones):
    the function tracers when ftrace (a function_tracer.FtraceGlobal) is given.  Arrays that
    share something with each other get it passed (expansion, clocks, tracers, guest)."""
    guest = guest or FakeGuestTracing(nr_cpus)
    return TraceGlobals(
        nr_cpus=nr_cpus, clocks=clocks or TraceClocks(clock),
        tracers=tracers or TracerRegistry((NOP, FUNCTION, FUNCTION_GRAPH) if ftrace is not None else (NOP,)),
        expansion=expansion or BufferExpansion(), registry=EventRegistry(real_event_descs()),
        guest=guest, cmdlines=SavedCmdlines(), symbolize=symbolize,
        kernel=FAKE_KERNEL, ftrace=ftrace, irq_text=None, catch_up=lambda: None,
        triggers=TriggerTable(guest.triggers, guest.hist_maps))


def make_trace_array(slot: int = 0, **globals_) -> TraceArray:
    """A trace array recording into slot of a FakeGuestTracing (see trace_globals)."""
    return TraceArray(trace_globals(**globals_), slot)
