"""The function tracers' call sites (kernel_model/include/trace/ftrace.h).

Every traceable function of the guest starts with a 5-byte nop listed in
`__mcount_loc`; `ftrace_site_map` takes the guest's dispatcher from a site's
address to its entry in one load: the site's index (written once at attach)
and its state.  A site some tracer wants is rewritten into `call ftrace_caller`
(`call ftrace_regs_caller` where an ftrace-based kprobe sits: it saves the
whole pt_regs), and its state says what the site does: which trace-array
slots record it with `function`, which with `function_graph`, its
set_graph_function / set_graph_notrace flags, whether a kprobe sits there,
whether function probes (the set_ftrace_filter commands) sit there; the
guest's `ftrace_control` holds, per slot, the pid filters and
func_stack_trace; globally max_graph_depth and funcgraph-irqs.  The
function probes' table (`ftrace_probes`) is rewritten with every CPU
stopped, since the guest decrements its counts.  Each setter recomputes the
state of every site, writes the sites whose state changed and patches, in
one `text_poke_batch`, only the sites whose bytes change (nop, or a call to
either trampoline).  Before `machine.start()` the state is kept and written
when the guest's memory is loaded.
"""
from __future__ import annotations

import errno
import struct
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..lib.sysctl import parse_sysctl_int
from ..machine.contract import GuestRam, PatchableImage, PatchableMachine
from ..machine.paging import kernel_virt_to_phys

T = TypeVar("T")

# ftrace_probe.cmd, by name (the guest's numbers: FTRACE_PROBE_<name> of the host ABI)
PROBE_TRACEON, PROBE_TRACEOFF, PROBE_TRACEON_COUNT, PROBE_TRACEOFF_COUNT = (
    "TRACEON", "TRACEOFF", "TRACEON_COUNT", "TRACEOFF_COUNT")
PROBE_STACKTRACE, PROBE_STACKTRACE_COUNT, PROBE_ENABLE_EVENT, PROBE_DISABLE_EVENT = (
    "STACKTRACE", "STACKTRACE_COUNT", "ENABLE_EVENT", "DISABLE_EVENT")
PROBE_SNAPSHOT, PROBE_SNAPSHOT_COUNT = "SNAPSHOT", "SNAPSHOT_COUNT"
PROBE_DUMP, PROBE_CPUDUMP = "DUMP", "CPUDUMP"
PROBE_COMMANDS = (PROBE_TRACEON, PROBE_TRACEOFF, PROBE_TRACEON_COUNT, PROBE_TRACEOFF_COUNT, PROBE_STACKTRACE,
                  PROBE_STACKTRACE_COUNT, PROBE_ENABLE_EVENT, PROBE_DISABLE_EVENT, PROBE_SNAPSHOT,
                  PROBE_SNAPSHOT_COUNT, PROBE_DUMP, PROBE_CPUDUMP)
CALL_REL32 = 0xE8


_PROFILE = struct.Struct("<QQQII")  # struct ftrace_profile
# struct ftrace_site_state: func_slots, graph_slots (u64 masks, bit s: slot s), flags, kprobe,
# graph (graph_slots != 0: the dispatcher's fast path reads flags to graph as one word)
_SITE_STATE = struct.Struct("<QQBBBx4x")
SiteState = tuple[int, int, int, int]  # (func_slots, graph_slots, flags, kprobe) of a site
_OFF: SiteState = (0, 0, 0, 0)
_WORD = (1 << 64) - 1


@dataclass(frozen=True)
class FtraceLayout:
    """The guest's function-tracer tables (include/trace/ftrace.h), from the image's host ABI:
    ftrace_site_map's entries, ftrace_control and its per-slot states, the function probes'
    table; a slot past word 0's state (struct ftrace_ext_slot, allocated with its buffers)."""

    slots: int  # TRACE_SLOTS: the slots the function tracers and probes take
    word_slots: int  # TRACE_WORD_SLOTS: word 0's (the sites' masks; their states in ftrace_control)
    slot_ext: int  # TRACE_SLOT_EXT: word 0's bit for "a slot past word 0 is in the set"
    insn_size: int  # MCOUNT_INSN_SIZE: an mcount site's nop, or the call it becomes
    max_sites: int  # FTRACE_MAX_SITES
    pids_max: int  # FTRACE_PIDS_MAX
    map_grain: int  # FTRACE_MAP_GRAIN: bytes of text per ftrace_site_map entry
    map_entries: int  # FTRACE_MAP_ENTRIES
    map_entry_size: int
    map_entry_index: int
    graph_function: int  # ftrace_site_state.flags
    graph_notrace: int
    site_probes: int
    site_stack: int  # FTRACE_SITE_STACK: the stack tracer measures here
    probes_max: int  # FTRACE_PROBES_MAX
    probe_size: int
    probes_size: int
    probes_first: int
    probes_counts: int
    probes_table: int
    slot_state_size: int
    slot_nr_pids: int
    slot_nr_notrace_pids: int
    slot_pids: int
    slot_notrace_pids: int
    control_size: int
    control_max_graph_depth: int
    control_graph_filtered: int
    control_pid_filtered: int
    control_stack_trace: int
    control_graph_skip_irqs: int
    control_slow_slots: int
    control_no_repeats: int
    control_slots: int
    control_sleep_time_off: int
    control_graph_time_off: int
    commands: dict[str, int]  # PROBE_* -> ftrace_probe.cmd
    site_profile: int  # FTRACE_SITE_PROFILE: the function profiler counts here
    site_direct: int  # FTRACE_SITE_DIRECT: a BPF trampoline is called here (a direct call)
    control_func_ext: int  # the extension words of ftrace_control's sets of slots
    control_graph_ext: int
    control_pid_filtered_ext: int
    control_stack_trace_ext: int
    control_no_repeats_ext: int
    control_ext: int  # [TRACE_SLOTS]: a slot past word 0's struct ftrace_ext_slot (kernel virtual; 0: none)
    ext_func_sites: int  # struct ftrace_ext_slot: bit i, the site of index i
    ext_graph_sites: int
    ext_pids: int  # its struct ftrace_slot_state
    ext_repeats: int  # its func_repeats_state per cpu

    @classmethod
    def of(cls, image: PatchableImage) -> FtraceLayout:
        a = image.abi_value
        return cls(
            a("TRACE_SLOTS"), a("TRACE_WORD_SLOTS"), a("TRACE_SLOT_EXT"), a("MCOUNT_INSN_SIZE"), a("FTRACE_MAX_SITES"), a("FTRACE_PIDS_MAX"),
            a("FTRACE_MAP_GRAIN"), a("FTRACE_MAP_ENTRIES"), a("sizeof(ftrace_site_entry)"),
            a("ftrace_site_entry.index"), a("FTRACE_GRAPH_FUNCTION"), a("FTRACE_GRAPH_NOTRACE"),
            a("FTRACE_SITE_PROBES"), a("FTRACE_SITE_STACK"), a("FTRACE_PROBES_MAX"), a("sizeof(ftrace_probe)"), a("sizeof(ftrace_probes)"),
            a("ftrace_probes.first"), a("ftrace_probes.counts"), a("ftrace_probes.probe"),
            a("sizeof(ftrace_slot_state)"), a("ftrace_slot_state.nr_pids"), a("ftrace_slot_state.nr_notrace_pids"),
            a("ftrace_slot_state.pids"), a("ftrace_slot_state.notrace_pids"), a("sizeof(ftrace_control)"),
            a("ftrace_control.max_graph_depth"), a("ftrace_control.graph_filtered"),
            a("ftrace_control.pid_filtered"), a("ftrace_control.stack_trace"), a("ftrace_control.graph_skip_irqs"),
            a("ftrace_control.slow_slots"), a("ftrace_control.no_repeats"), a("ftrace_control.slots"),
            a("ftrace_control.sleep_time_off"), a("ftrace_control.graph_time_off"),
            {name: a(f"FTRACE_PROBE_{name}") for name in PROBE_COMMANDS}, a("FTRACE_SITE_PROFILE"),
            a("FTRACE_SITE_DIRECT"), a("ftrace_control.func_ext"), a("ftrace_control.graph_ext"),
            a("ftrace_control.pid_filtered_ext"), a("ftrace_control.stack_trace_ext"),
            a("ftrace_control.no_repeats_ext"), a("ftrace_control.ext"), a("ftrace_ext_slot.func_sites"),
            a("ftrace_ext_slot.graph_sites"), a("ftrace_ext_slot.pids"), a("ftrace_ext_slot.repeats"))

    def slot_state(self, slot: int) -> int:
        """A slot of word 0's struct ftrace_slot_state's offset in ftrace_control."""
        return self.control_slots + slot * self.slot_state_size

    def words(self, slots: int) -> list[int]:
        """A set of slots as the guest keeps it: word 0, its slot_ext bit set when a slot past
        it is in the set, then the extension words."""
        ext = [slots >> 64 * i & _WORD for i in range(1, self.slots // 64)]
        return [slots & _WORD & ~(1 << self.slot_ext) | any(ext) << self.slot_ext, *ext]


class ProbeCounter:
    """A count the guest decrements (one per function for traceon/stacktrace, one per
    registration for enable_event); `value` is the host's copy while the guest has none."""

    def __init__(self, value: int):
        self.value = value


@dataclass(frozen=True)
class FunctionProbe:
    """One command at one site, as the guest runs it (struct ftrace_probe)."""
    function: str
    command: str                   # PROBE_*
    slot: int                      # the trace array it acts on
    counter: ProbeCounter | None   # None: no count (unlimited traceon/traceoff/stacktrace)
    event_file: int = 0            # enable/disable_event: the guest's trace_event_file


class FtraceSites:
    def __init__(self, machine: PatchableMachine):
        self._machine = machine
        image = machine.image
        self._image = image
        start, stop = image.addr("__start_mcount_loc"), image.addr("__stop_mcount_loc")
        # the records ftrace keeps once the kernel has booted: not the init text's
        # (ftrace_free_init_mem())
        init_start, init_end = image.init_text_range
        addrs = [a for (a,) in struct.iter_unpack("<Q", image.read(start, stop - start))
                 if not init_start <= a < init_end]
        self.layout = lay = FtraceLayout.of(image)
        if addrs != sorted(addrs) or len(addrs) > lay.max_sites:
            raise ValueError("kernel image's __mcount_loc is not a sorted table of at most FTRACE_MAX_SITES")
        a = image.abi_value
        if (a("sizeof(ftrace_site_state)"), a("ftrace_site_state.func_slots"), a("ftrace_site_state.graph_slots"),
                a("ftrace_site_state.flags"), a("ftrace_site_state.kprobe"), a("ftrace_site_state.graph")) != \
                (_SITE_STATE.size, 0, 8, 16, 17, 18):
            raise ValueError("kernel image's ftrace_site_state layout does not match this host")
        self._control = kernel_virt_to_phys(image.abi_table("ftrace_control", lay.control_size).addr)
        self._probes_pa = kernel_virt_to_phys(image.abi_table("ftrace_probes", lay.probes_size).addr)
        repeats = image.lookup("ftrace_repeats")   # [TRACE_WORD_SLOTS][NR_CPUS] func-no-repeats states
        self._repeats = None if repeats is None else (kernel_virt_to_phys(repeats.addr), repeats.size // lay.word_slots)
        self._stack_pa = kernel_virt_to_phys(image.abi_table("stack_tracer").addr)
        self._stack_fields = {name: image.abi_value(f"stack_tracer.{name}")
                              for name in ("seq", "max_size", "nr_entries", "dump", "index")}
        if image.abi_value("sizeof(ftrace_profile)") != _PROFILE.size:
            raise ValueError("kernel image's ftrace_profile layout does not match this host")
        self._profiler_pa = kernel_virt_to_phys(image.abi_table("ftrace_profiler").addr)
        self._profile_stat = (image.abi_value("ftrace_profiler.stat"), image.abi_value("sizeof(ftrace_profile_stat)"),
                              image.abi_value("ftrace_profile_stat.rec"))
        self._profiling = False
        thresh = image.lookup("tracing_thresh")
        self._thresh_pa = None if thresh is None else kernel_virt_to_phys(thresh.addr)
        self._thresh = 0
        self._caller = image.addr("ftrace_caller")
        self._regs_caller = image.addr("ftrace_regs_caller")
        self._addrs: list[int] = addrs
        self._map, self._map_slots = self._site_map(image, addrs, lay)
        names = []
        for addr in addrs:
            hit = image.symbolize(addr)
            names.append(hit[0].name if hit else f"{addr:#x}")
        self.functions: list[str] = names
        self._index: dict[str, int] = {}
        for i, name in enumerate(names):
            self._index.setdefault(name, i)
        self._lock = threading.Lock()
        self._mem: GuestRam | None = None
        # desired state; the site bytes below are what the guest holds (once attached)
        self._function: dict[int, frozenset[int]] = {}  # slot -> site indexes
        self._graph: dict[int, frozenset[int]] = {}
        self._graph_functions: frozenset[int] = frozenset()
        self._graph_notrace: frozenset[int] = frozenset()
        self._kprobes: set[int] = set()
        self._stack_sites: frozenset[int] = frozenset()  # the stack tracer's (none while it is off)
        self._profile_sites: frozenset[int] = frozenset()  # the function profiler's
        self._direct: dict[int, int] = {}  # site index -> the BPF trampoline it calls directly
        self._site_index = {addr: i for i, addr in enumerate(addrs)}
        self._tramps: dict[int, tuple[str, int]] = {}  # a BPF trampoline's code: start -> (name, length)
        self._patched_direct: dict[int, int] = {}  # the direct calls the sites' bytes have
        # /proc/sys/kernel/ftrace_enabled: 0 keeps every site a nop, whatever wants it
        self._calls_enabled = True
        self._sites: list[SiteState] = [_OFF] * len(addrs)
        # the slots past word 0 whose site bitmaps the guest has: slot -> (function's, graph's)
        self._ext_written: dict[int, tuple[frozenset[int], frozenset[int]]] = {}
        self._max_graph_depth = 0
        self._pids: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        # slots whose pid lists the host changed: the others' the guest may have changed itself
        # (options/function-fork), so only these are written
        self._pids_dirty: set[int] = set(range(lay.slots))
        self._stack_trace = [False] * lay.slots
        self._no_repeats = [False] * lay.slots
        self._graph_irqs = True
        self._sleep_time_off = 0   # options/sleep-time: 0 on; off, a new number each time
        self._sleep_time_generation = 0
        self._graph_time = True
        self._written_filtered = False  # the guest's graph_filtered (set_graph_function not empty)
        self._probes: list[FunctionProbe] = []   # the table, in the guest's order
        self._counter_index: dict[int, int] = {}  # id(counter) -> its slot in the guest's counts
        machine.on_ram_loaded(self._attach)

    # ---- the contract ----
    def address(self, name: str) -> int:
        return self._addrs[self._index[name]]

    @property
    def patched_count(self) -> int:
        return sum(1 for i in range(len(self._addrs)) if self._target(self._sites, i) is not None)

    def set_function(self, slot: int, funcs: frozenset[str] | None) -> None:
        self._check_slot(slot)
        sites = None if funcs is None else self._indexes(funcs)
        with self._lock:
            self._set_or_drop(self._function, slot, sites)
            self._update()

    def set_graph(self, slot: int, funcs: frozenset[str] | None, *, graph_functions: frozenset[str],
                  graph_notrace: frozenset[str]) -> None:
        self._check_slot(slot)
        sites = None if funcs is None else self._indexes(funcs)
        gf, gn = self._indexes(graph_functions), self._indexes(graph_notrace)
        with self._lock:
            self._set_or_drop(self._graph, slot, sites)
            self._graph_functions, self._graph_notrace = gf, gn
            self._update()

    def set_max_graph_depth(self, depth: int) -> None:
        if not 0 <= depth <= 0xFFFFFFFF:
            raise ValueError(f"max_graph_depth {depth} out of range")
        with self._lock:
            self._max_graph_depth = depth
            self._write_control()

    def set_graph_thresh(self, ns: int) -> None:
        """tracing_thresh: not 0, function_graph records only the exits that took at least
        ns, and no entries."""
        with self._lock:
            self._thresh = ns & 0xFFFFFFFFFFFFFFFF
            self._write_control()

    def set_graph_irqs(self, on: bool) -> None:
        """options/funcgraph-irqs (global in Linux 6.1: ftrace_graph_skip_irqs)."""
        with self._lock:
            self._graph_irqs = bool(on)
            self._write_control()

    def set_graph_sleep_time(self, on: bool) -> None:
        """options/sleep-time (global in Linux 6.1: fgraph_sleep_time): off, the function
        graph's durations and the profiler's times leave out the time a task was switched out."""
        with self._lock:
            if not on and not self._sleep_time_off:
                self._sleep_time_generation = self._sleep_time_generation % 0xFFFFFFFF + 1
            self._sleep_time_off = 0 if on else self._sleep_time_generation
            self._write_control()

    def set_graph_graph_time(self, on: bool) -> None:
        """options/graph-time (global in Linux 6.1: fgraph_graph_time): off, the profiler's time
        of a function leaves out its callees'."""
        with self._lock:
            self._graph_time = bool(on)
            self._write_control()

    def set_pids(self, slot: int, pids: frozenset[int], notrace_pids: frozenset[int]) -> None:
        self._check_slot(slot)
        pids_max = self.layout.pids_max
        if len(pids) > pids_max or len(notrace_pids) > pids_max:
            raise ValueError(f"at most {pids_max} pids per list")
        with self._lock:
            self._pids[slot] = (tuple(sorted(pids)), tuple(sorted(notrace_pids)))
            self._pids_dirty.add(slot)
            self._write_control()

    def read_pids(self, slot: int) -> tuple[frozenset[int] | None, frozenset[int] | None]:
        """set_ftrace_pid and set_ftrace_notrace_pid of a slot as the guest has them (None: no
        list): with function-fork on, the guest adds children of listed tasks, and a freed
        task's entry becomes -1, so a list whose tasks all went is empty, not gone."""
        self._check_slot(slot)

        def read(mem: GuestRam) -> tuple[frozenset[int] | None, frozenset[int] | None]:
            lists: list[frozenset[int] | None] = []
            lay = self.layout
            st = self._slot_state(mem, slot)
            if st is None:
                return None, None
            for offset, count in ((lay.slot_pids, lay.slot_nr_pids), (lay.slot_notrace_pids, lay.slot_nr_notrace_pids)):
                nr = min(struct.unpack_from("<I", mem.buf, st + count)[0], lay.pids_max)
                pids = struct.unpack_from(f"<{nr}i", mem.buf, st + offset)
                lists.append(frozenset(p for p in pids if p >= 0) if nr else None)
            return lists[0], lists[1]
        with self._lock:
            mem = self._mem
            if mem is None:
                pids, notrace = self._pids.get(slot, ((), ()))
                return frozenset(pids) or None, frozenset(notrace) or None
            return self._machine.with_cpus_stopped(lambda: read(mem))

    def set_stack_trace(self, slot: int, on: bool) -> None:
        self._check_slot(slot)
        with self._lock:
            self._stack_trace[slot] = bool(on)
            self._write_control()

    def set_no_repeats(self, slot: int, on: bool) -> None:
        """options/func-no-repeats of the slot's array (the guest counts repeated calls)."""
        self._check_slot(slot)
        with self._lock:
            self._no_repeats[slot] = bool(on)
            self._write_control()

    def clear_repeats(self, slot: int) -> None:
        """Forget the slot's last calls and counts (a new trace array gets the slot)."""
        self._check_slot(slot)
        if self._repeats is None:
            return
        base, size = self._repeats

        def clear() -> None:
            if self._mem is None:
                return
            if slot < self.layout.word_slots:
                self._mem.write(base + slot * size, bytes(size))
            elif (ext := self._ext_state(self._mem, slot)) is not None:
                self._mem.write(ext + self.layout.ext_repeats, bytes(size))

        with self._lock:
            self._machine.guest_op(clear)

    def set_stack_tracer(self, funcs: frozenset[str] | None) -> None:
        """The functions the stack tracer measures the stack at (None: it is off)."""
        sites = frozenset() if funcs is None else self._indexes(funcs)
        with self._lock:
            self._stack_sites = sites
            self._update()

    def set_profiler(self, funcs: frozenset[str] | None) -> None:
        """The functions the function profiler counts and times (None: it is off).  Turned on,
        it starts from zero (ftrace_profile_init() resets every cpu's records); turned off, the
        records stay for reading."""
        sites = frozenset() if funcs is None else self._indexes(funcs)
        with self._lock:
            start = funcs is not None and not self._profiling
            self._profiling = funcs is not None
            mem = self._mem
            if mem is not None:
                def flag() -> None:
                    if start:
                        size = self._profile_stat[1] * self._machine.nr_cpus
                        base = self._profiler_pa + self._profile_stat[0]
                        mem.buf[base:base + size] = bytes(size)
                    struct.pack_into("<I", mem.buf, self._profiler_pa, int(self._profiling))
                self._machine.with_cpus_stopped(flag)
            self._profile_sites = sites
            self._update()

    def read_profile(self) -> list[list[tuple[str, int, int, int]]]:
        """Per cpu, the profiler's records in the order of their first hit there: (function,
        hits, time in ns, sum of the squared times)."""
        def read() -> list[list[tuple[str, int, int, int]]]:
            mem = self._mem
            if mem is None:
                return [[] for _ in range(self._machine.nr_cpus)]
            stat_at, stat_size, rec_at = self._profile_stat
            out = []
            for cpu in range(self._machine.nr_cpus):
                base = self._profiler_pa + stat_at + stat_size * cpu + rec_at
                table = mem.buf[base:base + _PROFILE.size * len(self._addrs)]
                recs = [(order, self.functions[i], counter, time_ns, squared)
                        for i, (counter, time_ns, squared, order, _) in enumerate(_PROFILE.iter_unpack(table))
                        if order]
                out.append([r[1:] for r in sorted(recs)])
            return out
        with self._lock:
            return self._machine.with_cpus_stopped(read)

    def read_stack_max(self) -> tuple[int, list[tuple[int, int]]]:
        """The stack tracer's deepest stack as the guest keeps it: stack_trace_max_size and
        each entry's (return address, depth of its slot)."""
        def read(mem: GuestRam) -> tuple[int, list[tuple[int, int]]] | None:
            buf, f = mem.buf, self._stack_fields
            base = self._stack_pa
            if struct.unpack_from("<I", buf, base + f["seq"])[0] & 1:
                return None   # a cpu stopped in the middle of an update
            size, = struct.unpack_from("<Q", buf, base + f["max_size"])
            nr, = struct.unpack_from("<I", buf, base + f["nr_entries"])
            dump = struct.unpack_from(f"<{nr}Q", buf, base + f["dump"])
            index = struct.unpack_from(f"<{nr}I", buf, base + f["index"])
            return size, list(zip(dump, index))
        return self._stack_op(read) or (0, [])

    def set_stack_max_size(self, size: int) -> None:
        """stack_max_size written: the size a stack must pass to become the deepest."""
        def write(mem: GuestRam) -> bool | None:
            base, f = self._stack_pa, self._stack_fields
            if struct.unpack_from("<I", mem.buf, base + f["seq"])[0] & 1:
                return None
            struct.pack_into("<Q", mem.buf, base + f["max_size"], size & 0xFFFFFFFFFFFFFFFF)
            return True
        self._stack_op(write)

    def _stack_op(self, fn: Callable[[GuestRam], T | None]) -> T | None:
        """fn(mem) with every cpu stopped, again while it finds an update under way (None);
        None before the RAM is loaded."""
        while True:
            with self._lock:
                mem = self._mem
                if mem is None:
                    return None
                got = self._machine.with_cpus_stopped(lambda: fn(mem))
            if got is not None:
                return got
            time.sleep(0.0001)

    def set_kprobe(self, name: str, on: bool) -> None:
        i = self._index[name]
        with self._lock:
            (self._kprobes.add if on else self._kprobes.discard)(i)
            self._update()

    def direct_call(self, name: str) -> tuple[str, int] | None:
        """The BPF trampoline function `name`'s site calls (its name and the size 6.1's kallsyms
        gives it: a page), None: none."""
        with self._lock:
            i = self._index.get(name)
            tramp = None if i is None else self._direct.get(i)
            return None if tramp is None else (self._tramps[tramp][0], 4096)

    def trampolines(self) -> list[tuple[str, int, int]]:
        """The BPF trampolines the sites call now: (name, start, end of its code)."""
        with self._lock:
            return sorted(((name, addr, addr + size) for addr, (name, size) in self._tramps.items()),
                          key=lambda t: t[1])

    def set_direct(self, site: int, tramp: int, size: int, name: str = "") -> int:
        """register_ftrace_direct()/modify_ftrace_direct()/unregister_ftrace_direct() of the
        kernel's BPF trampolines: the site at `site` calls the trampoline at `tramp` (0: no
        longer), directly where nothing else wants the site, else through ftrace_regs_caller,
        which goes on into it (the guest's ftrace_find_rec_direct()).  The `size` bytes of code
        the kernel has just written at tramp are re-poked with the site, in the same stop of
        every cpu, so that no cpu runs translations of what the page held before; trampolines()
        names them (`name`).  0, or -EINVAL for an address that is no site."""
        i = self._site_index.get(site)
        if i is None:
            return -errno.EINVAL
        with self._lock:
            old = self._direct.pop(i, None)
            if old is not None:
                self._tramps.pop(old, None)
            if tramp:
                self._direct[i] = tramp
                self._tramps[tramp] = (name or f"{tramp:#x}", size)
            extra = []
            if tramp and size and self._mem is not None:
                pa = kernel_virt_to_phys(tramp)
                extra.append((tramp, bytes(self._mem.buf[pa:pa + size])))
            self._update(extra)
        return 0

    def set_probes(self, probes: Sequence[FunctionProbe]) -> None:
        """The function probes of every trace array, each site's in the order they run
        (the newest first, as Linux adds ops at the head of its list).  Counts the guest
        holds carry over to the probes that keep their counter."""
        probes = list(probes)
        if len(probes) > self.layout.probes_max:
            raise OSError(errno.ENOMEM, "too many function probes")
        for probe in probes:
            self._index[probe.function]  # KeyError: not a traceable function
            if not 0 <= probe.slot < self.layout.slots:
                raise ValueError(f"slot {probe.slot} out of range 0..{self.layout.slots - 1}")
        with self._lock:
            order = sorted(range(len(probes)), key=lambda k: (self._index[probes[k].function], k))
            self._write_probes([probes[k] for k in order])
            self._update()

    def read_counter(self, counter: ProbeCounter) -> int:
        """A count as the guest has it now."""
        def read() -> int:
            i = self._counter_index.get(id(counter))
            if i is None or self._mem is None:
                return counter.value
            value: int = struct.unpack_from("<q", self._mem.buf, self._probes_pa + self.layout.probes_counts + 8 * i)[0]
            return value
        with self._lock:
            return self._machine.guest_op(read)

    @property
    def calls_enabled(self) -> bool:
        return self._calls_enabled

    @calls_enabled.setter
    def calls_enabled(self, on: bool) -> None:
        """ftrace_enabled (ftrace_startup_sysctl/ftrace_shutdown_sysctl): off, every site goes
        back to its nop (FTRACE_DISABLE_CALLS) and stays one while what wants it changes; on,
        every site that should call a trampoline does again."""
        with self._lock:
            if on == self._calls_enabled:
                return
            self._calls_enabled = on
            sites = range(len(self._addrs))
            self._patch([(self._addrs[i], self._site_bytes(i, self._sites))
                         for i in sites if self._on(self._sites, i)])

    def enabled(self) -> list[tuple[str, int, str]]:
        """enabled_functions: (name, number of users, the R/I/D flag columns); none while
        ftrace_enabled is off (no record was updated, as Linux's)."""
        out: list[tuple[str, int, str]] = []
        with self._lock:
            if not self._calls_enabled:
                return out
            s = self._sites
            users = [0] * len(self.functions)
            for idx in self._function.values():   # each slot's function tracer is an ftrace_ops
                for i in idx:
                    users[i] += 1
            for probe in self._probes:  # each probe is an ftrace_ops of its own
                users[self._index[probe.function]] += 1
            for i in self._stack_sites:  # so is the stack tracer's
                users[i] += 1
            for i in self._profile_sites:  # and the profiler's fgraph_ops
                users[i] += 1
            for i in self._direct:  # and a BPF trampoline's direct ops
                users[i] += 1
            for i, name in enumerate(self.functions):
                fn, graph, _, kprobe = s[i]
                if fn | graph | kprobe or users[i]:
                    refs = bool(graph) + bool(kprobe) + users[i]
                    # kprobe's ftrace_ops saves regs (R), so does a direct call's (D); none modifies ip (I)
                    direct = i in self._direct
                    out.append((name, refs, (" R" if kprobe or direct else "  ") + "  " + (" D" if direct else "  ")))
        return out

    # ---- state ----
    def _compute(self) -> list[SiteState]:
        n = len(self._sites)
        fn, graph, flags, kprobe = [0] * n, [0] * n, [0] * n, [0] * n
        # a slot past word 0: the summary bit (its own bit is in its ftrace_ext_slot's bitmaps)
        word = self.layout.word_slots
        for slot, idx in self._function.items():
            for i in idx:
                fn[i] |= 1 << (slot if slot < word else self.layout.slot_ext)
        for slot, idx in self._graph.items():
            for i in idx:
                graph[i] |= 1 << (slot if slot < word else self.layout.slot_ext)
        for i in self._graph_functions:
            flags[i] |= self.layout.graph_function
        for i in self._graph_notrace:
            flags[i] |= self.layout.graph_notrace
        for i in self._kprobes:
            kprobe[i] = 1
        for probe in self._probes:
            flags[self._index[probe.function]] |= self.layout.site_probes
        for i in self._stack_sites:
            flags[i] |= self.layout.site_stack
        for i in self._profile_sites:
            flags[i] |= self.layout.site_profile
        for i in self._direct:
            flags[i] |= self.layout.site_direct
        return list(zip(fn, graph, flags, kprobe))

    def _on(self, sites: list[SiteState], i: int) -> bool:
        """Whether site i calls a trampoline."""
        return bool(sites[i][2] & self.layout.site_direct) or self._others(sites, i)

    def _others(self, sites: list[SiteState], i: int) -> bool:
        """Whether a tracer (not a direct call) wants site i."""
        fn, graph, flags, kprobe = sites[i]
        return bool(fn | graph | kprobe
                    | flags & (self.layout.site_probes | self.layout.site_stack | self.layout.site_profile))

    def _update(self, extra: list[tuple[int, bytes]] | None = None) -> None:
        """Write the sites whose state changed; patch those whose call changes (on, off, or
        to another trampoline), with the extra patches in the same batch."""
        new, old = self._compute(), self._sites
        changed = [i for i in range(len(self._addrs)) if new[i] != old[i]]
        ext = {slot: (self._function.get(slot, frozenset()), self._graph.get(slot, frozenset()))
               for slot in self._function.keys() | self._graph.keys() if slot >= self.layout.word_slots}
        ext_changed = ext != self._ext_written
        if not changed and not extra and not ext_changed and bool(self._graph_functions) == self._written_filtered:
            return
        patches = list(extra or ())
        moved = {i for i in self._direct.keys() | self._patched_direct.keys()
                 if self._direct.get(i) != self._patched_direct.get(i)}  # a direct call to another trampoline
        for i in sorted(set(changed) | moved):
            if self._target(old, i, self._patched_direct) != self._target(new, i):
                patches.append((self._addrs[i], self._site_bytes(i, new)))
        self._patched_direct = dict(self._direct)
        self._sites = new
        mem = self._mem
        if mem is None:
            return  # written at attach (no slot past word 0 has its state then)

        def write() -> None:
            if ext_changed:
                self._write_ext_sites(mem, ext)
            self._write_sites(mem, changed)
        # state first: a site that starts calling a trampoline finds its state there (the
        # slots past word 0's before the sites' summary bits)
        self._machine.guest_op(write)
        self._patch(patches)

    def _patch(self, patches: list[tuple[int, bytes]]) -> None:
        if not patches or self._mem is None:
            return
        if self._machine.running:
            self._machine.text_poke_batch(patches)
        else:  # stopped: nothing executes, memory is all there is
            for addr, data in patches:
                self._mem.write(kernel_virt_to_phys(addr), data)

    def _target(self, sites: list[SiteState], i: int, direct: dict[int, int] | None = None) -> int | None:
        """The trampoline site i calls in state `sites` (with `direct`, the direct calls of
        that state: the current ones if None); None: its nop."""
        if not self._calls_enabled or not self._on(sites, i):
            return None
        if sites[i][2] & self.layout.site_direct:
            if not self._others(sites, i):
                return (self._direct if direct is None else direct).get(i)
            return self._regs_caller
        return self._regs_caller if sites[i][3] else self._caller

    def _site_bytes(self, i: int, sites: list[SiteState]) -> bytes:
        site, target = self._addrs[i], self._target(sites, i)
        if target is None:
            return self._image.read(site, self.layout.insn_size)
        rel = target - (site + self.layout.insn_size)
        return bytes([CALL_REL32]) + rel.to_bytes(4, "little", signed=True)

    @staticmethod
    def _site_map(image: PatchableImage, addrs: list[int], lay: FtraceLayout) -> tuple[int, list[int]]:
        """ftrace_site_map's physical address, and each site's entry in it:
        (site - _stext) / FTRACE_MAP_GRAIN."""
        sym = image.abi_table("ftrace_site_map", lay.map_entry_size * lay.map_entries)
        text = image.addr("_stext")
        slots: list[int] = []
        for addr in addrs:
            slot, rest = divmod(addr - text, lay.map_grain)
            if rest or not 0 <= slot < lay.map_entries or (slots and slot <= slots[-1]):
                raise ValueError(f"mcount site {addr:#x} does not fit ftrace_site_map "
                                 f"(functions {lay.map_grain}-byte aligned within its text)")
            slots.append(slot)
        return kernel_virt_to_phys(sym.addr), slots

    def _attach(self, mem: GuestRam) -> None:
        with self._lock:
            self._mem = mem
            for i, slot in enumerate(self._map_slots):
                struct.pack_into("<H", mem.buf, self._map + self.layout.map_entry_size * slot + self.layout.map_entry_index,
                             i + 1)
            self._write_sites(mem, range(len(self._addrs)))
            self._write_probe_table(mem)
            for i in range(len(self._addrs)):
                if self._on(self._sites, i):
                    mem.write(kernel_virt_to_phys(self._addrs[i]), self._site_bytes(i, self._sites))
            self._write_control_now()
            struct.pack_into("<I", mem.buf, self._profiler_pa, int(self._profiling))

    def _write_sites(self, mem: GuestRam, indexes: Iterable[int]) -> None:
        buf, base = mem.buf, self._map
        for i in indexes:
            entry = base + self.layout.map_entry_size * self._map_slots[i]
            fn, graph, flags, kprobe = self._sites[i]
            _SITE_STATE.pack_into(buf, entry, fn, graph, flags, kprobe, int(graph != 0))
        self._written_filtered = bool(self._graph_functions)
        struct.pack_into("<I", buf, self._control + self.layout.control_graph_filtered, int(self._written_filtered))

    def _write_ext_sites(self, mem: GuestRam, ext: dict[int, tuple[frozenset[int], frozenset[int]]]) -> None:
        """The slots past word 0: each one's site bitmaps (struct ftrace_ext_slot; a slot
        without state, none to write), then ftrace_control's words of those with sites."""
        buf, lay = mem.buf, self.layout
        nbits = lay.max_sites // 64
        for slot in ext.keys() | self._ext_written.keys():
            funcs, graphs = ext.get(slot, (frozenset(), frozenset()))
            if self._ext_written.get(slot) == (funcs, graphs):
                continue
            st = self._ext_state(mem, slot)
            if st is None:
                continue
            for offset, sites in ((lay.ext_func_sites, funcs), (lay.ext_graph_sites, graphs)):
                bits = sum(1 << i for i in sites)
                struct.pack_into(f"<{nbits}Q", buf, st + offset, *(bits >> 64 * w & _WORD for w in range(nbits)))
        self._ext_written = ext
        for offset, slots in ((lay.control_func_ext, [s for s, (f, _) in ext.items() if f]),
                              (lay.control_graph_ext, [s for s, (_, g) in ext.items() if g])):
            words = lay.words(sum(1 << s for s in slots))[1:]
            struct.pack_into(f"<{len(words)}Q", buf, self._control + offset, *words)

    def _ext_state(self, mem: GuestRam, slot: int) -> int | None:
        """The physical address of slot's struct ftrace_ext_slot (a slot past word 0); None:
        the slot has none (no instance has it)."""
        ptr = struct.unpack_from("<Q", mem.buf, self._control + self.layout.control_ext + 8 * slot)[0]
        return kernel_virt_to_phys(ptr) if ptr else None

    def _slot_state(self, mem: GuestRam, slot: int) -> int | None:
        """The physical address of slot's struct ftrace_slot_state (its pid lists); None: a
        slot past word 0 without state."""
        if slot < self.layout.word_slots:
            return self._control + self.layout.slot_state(slot)
        ext = self._ext_state(mem, slot)
        return None if ext is None else ext + self.layout.ext_pids

    def _write_probes(self, probes: list[FunctionProbe]) -> None:
        """Take the guest's counts back, then write the new table, with every CPU stopped
        (a count decremented in between would be lost)."""
        def swap() -> None:
            if self._mem is not None:
                buf = self._mem.buf
                for probe in self._probes:
                    if probe.counter is not None:
                        i = self._counter_index[id(probe.counter)]
                        counts = self._probes_pa + self.layout.probes_counts
                        probe.counter.value = struct.unpack_from("<q", buf, counts + 8 * i)[0]
            self._probes = probes
            self._counter_index = {}
            for probe in probes:
                if probe.counter is not None:
                    self._counter_index.setdefault(id(probe.counter), len(self._counter_index))
            if self._mem is not None:
                self._write_probe_table(self._mem)
        self._machine.with_cpus_stopped(swap)

    def _write_probe_table(self, mem: GuestRam) -> None:
        buf, base, probes = mem.buf, self._probes_pa, self._probes
        struct.pack_into("<I", buf, base, 0)  # no entry is valid while the table changes
        lay = self.layout
        first = [len(probes)] * lay.max_sites
        for k in reversed(range(len(probes))):
            first[self._index[probes[k].function]] = k
        struct.pack_into(f"<{lay.max_sites}H", buf, base + lay.probes_first, *first)
        counters = {}
        for k, probe in enumerate(probes):
            counter = probe.counter
            i = 0
            if counter is not None:
                i = self._counter_index[id(counter)]
                counters[i] = counter.value
            struct.pack_into("<HBxHHQ", buf, base + lay.probes_table + lay.probe_size * k, self._index[probe.function],
                             lay.commands[probe.command], probe.slot, i, probe.event_file)
        for i, value in counters.items():
            struct.pack_into("<q", buf, base + lay.probes_counts + 8 * i, value)
        struct.pack_into("<I", buf, base, len(probes))

    def _write_control(self) -> None:
        if self._mem is not None:
            self._machine.guest_op(self._write_control_now)

    def _write_control_now(self) -> None:
        if self._mem is None:
            return
        buf, base = self._mem.buf, self._control
        lay = self.layout
        struct.pack_into("<I", buf, base + lay.control_max_graph_depth, self._max_graph_depth)
        struct.pack_into("<I", buf, base + lay.control_graph_skip_irqs, int(not self._graph_irqs))
        struct.pack_into("<I", buf, base + lay.control_sleep_time_off, self._sleep_time_off)
        struct.pack_into("<I", buf, base + lay.control_graph_time_off, int(not self._graph_time))
        if self._thresh_pa is not None:
            struct.pack_into("<Q", buf, self._thresh_pa, self._thresh)
        filtered = 0
        for slot in range(lay.slots):
            pids, notrace = self._pids.get(slot, ((), ()))
            st = self._slot_state(self._mem, slot) if slot != lay.slot_ext else None
            if st is None:
                continue
            if slot in self._pids_dirty:
                # lists before their lengths: the guest reads a length, then that many entries
                struct.pack_into(f"<{len(pids)}i", buf, st + lay.slot_pids, *pids)
                struct.pack_into(f"<{len(notrace)}i", buf, st + lay.slot_notrace_pids, *notrace)
                struct.pack_into("<I", buf, st + lay.slot_nr_pids, len(pids))
                struct.pack_into("<I", buf, st + lay.slot_nr_notrace_pids, len(notrace))
            if pids or notrace:
                filtered |= 1 << slot
        self._pids_dirty.clear()
        stack = sum(1 << slot for slot, on in enumerate(self._stack_trace) if on)
        repeats = sum(1 << slot for slot, on in enumerate(self._no_repeats) if on)
        for offset, ext, slots in ((lay.control_pid_filtered, lay.control_pid_filtered_ext, filtered),
                                   (lay.control_stack_trace, lay.control_stack_trace_ext, stack),
                                   (lay.control_no_repeats, lay.control_no_repeats_ext, repeats)):
            words = lay.words(slots)   # the extension words first: word 0's summary bit says they are there
            struct.pack_into(f"<{len(words) - 1}Q", buf, base + ext, *words[1:])
            struct.pack_into("<Q", buf, base + offset, words[0])
        # the dispatcher's fast path records none of these slots' events (the summary bit: a
        # site that slots past word 0 trace goes to the slow path while any of them has these)
        struct.pack_into("<Q", buf, base + lay.control_slow_slots, lay.words(filtered | stack | repeats)[0])

    # ---- helpers ----
    def _indexes(self, names: frozenset[str]) -> frozenset[int]:
        return frozenset(self._index[n] for n in names)  # KeyError: not a traceable function

    @staticmethod
    def _set_or_drop(table: dict[int, frozenset[int]], slot: int, sites: frozenset[int] | None) -> None:
        if sites is None:
            table.pop(slot, None)
        else:
            table[slot] = sites

    def _check_slot(self, slot: int) -> None:
        if not 0 <= slot < self.layout.slots or slot == self.layout.slot_ext:
            raise ValueError(f"slot {slot} out of range 0..{self.layout.slots - 1} (or word 0's summary bit)")


_INT_MIN, _INT_MAX = -2**31, 2**31 - 1


class FtraceEnabled:
    """kernel.ftrace_enabled (ftrace_enable_sysctl: proc_dointvec, any int; what is not 0 is
    on). Off, every ftrace site stays a nop and enabled_functions is empty; on again, the
    sites that should call a trampoline do."""

    def __init__(self, sites: FtraceSites):
        self._sites = sites
        self._value = 1

    def read(self) -> bytes:
        return b"%d\n" % self._value

    def write_at(self, data: bytes, offset: int = 0) -> int:
        if offset:
            return len(data)
        self._value, taken = parse_sysctl_int(data, _INT_MIN, _INT_MAX)
        self._sites.calls_enabled = bool(self._value)
        return taken
