"""The tracing core assembled over a machine: the event registry, the clocks, the saved
cmdlines, the top-level trace array, its instances, the drain from the guest, and the dynamic
events (kprobe events over the kprobe engine, when there is one)."""

from __future__ import annotations

import errno
import functools
import struct
from collections.abc import Callable

from ..machine.contract import KernelSymbols, TracedMachine
from ..probes.ftrace import FtraceSites
from ..probes.kprobes import KprobeEngine
from .clock import TraceClocks
from .cmdlines import SavedCmdlines
from .drain import Drain
from .ftrace_dump import FtraceDump
from .dynevent import DynamicEvents
from .events import EventRegistry, TraceEvent
from .function_tracer import DISPATCHER, FtraceGlobal
from .headers import KernelIdentity
from .instances import Instances
from .kallsyms_file import WrittenCode, WrittenCodeSymbols
from .kernel_symbols import ImageSymbols
from .trace_array import BufferExpansion, TraceArray, TraceGlobals
from .trace_eprobe import EprobeEventOps
from .trace_kprobe import KprobeEventOps
from .trace_stack import StackTracer
from .function_profile import FunctionProfiler
from .trace_synth import SynthEvent, SyntheticEvents
from .trace_uprobe import UprobeEngine, UprobeEventOps
from .tracing_nsecs import NsecsFile
from .blk_tracer import BLK
from .tracers import FUNCTION, FUNCTION_GRAPH, NOP, TracerRegistry
from .trigger import TriggerTable


def kernel_banner(machine: TracedMachine) -> bytes:
    """The emulated kernel's `linux_banner`: "Linux version RELEASE (BY@HOST) (COMPILER) #1 SMP
    PREEMPT_DYNAMIC ...\n", which is what its /proc/version reads."""
    symbol = machine.image.lookup("linux_banner")
    if symbol is None:
        raise ValueError("kernel image has no version string")
    return machine.read_memory(symbol.addr, symbol.size).split(b"\0", 1)[0]


def print_flags_table(machine: TracedMachine, name: str) -> tuple[tuple[int, str], ...]:
    """A `struct trace_print_flags` table of the kernel's (gfpflag_names): each (mask, name),
    up to its entry without a name; none if the kernel has no such table."""
    symbol = machine.image.lookup(name)
    if symbol is None:
        return ()
    table = []
    for at in range(symbol.addr, symbol.addr + symbol.size, 16):
        mask, name_at = struct.unpack("<QQ", machine.read_memory(at, 16))
        if not name_at:
            break
        table.append((mask, machine.read_memory(name_at, 64).split(b"\0", 1)[0].decode()))
    return tuple(table)


def kernel_identity(machine: TracedMachine) -> KernelIdentity:
    """The release and preemption model from the emulated kernel's banner."""
    text = kernel_banner(machine).decode()
    release = text.split()[2]
    build = text.partition(" #")[2]
    # preempt_model_*(): PREEMPT_DYNAMIC boots voluntary ("desktop") unless told otherwise.
    model = ("preempt_rt" if "PREEMPT_RT" in build else "desktop" if "PREEMPT_DYNAMIC" in build
             else "preempt" if "PREEMPT" in build else "server")
    return KernelIdentity(release, model)


def _section(image: KernelSymbols, name: str) -> tuple[int, int] | None:
    """[start, end) of a kernel text section from its NAME_start/NAME_end symbols."""
    start, end = image.lookup(f"{name}_start"), image.lookup(f"{name}_end")
    return None if start is None or end is None else (start.addr, end.addr)


def _kernel_variables(machine: TracedMachine) -> dict[str, Callable[[], int]]:
    """The kernel variables event formats print from: `jiffies` (writeback's inode ages)."""
    jiffies = machine.image.lookup("jiffies")
    if jiffies is None:
        return {}
    addr = jiffies.addr
    return {"jiffies": lambda: int.from_bytes(machine.read_memory(addr, 8), "little")}


class TraceCore:
    def __init__(self, machine: TracedMachine, *, ftrace_sites: FtraceSites | None,
                 kprobe_engine: KprobeEngine | None, uprobe_engine: UprobeEngine | None = None,
                 realtime_at_boot_ns: int = 0, boottime_at_boot_ns: int = 0,
                 written_code: WrittenCode | None = None):
        """machine: what the tracing core traces; ftrace_sites: its function entries' sites
        (None: a kernel without function tracing); kprobe_engine: the probe engine kprobe
        events register with (None: no kprobe events); uprobe_engine: the one uprobe events
        register with (None: no uprobe events); realtime_at_boot_ns: the wall clock at
        the machine's boot (the realtime trace clocks count from it); boottime_at_boot_ns: the
        host's CLOCK_BOOTTIME then (the boot clock counts from it); written_code: the code
        the kernel writes at run time (its BPF trampolines and programs), which the output names
        as kallsyms does."""
        image = machine.image
        self.registry = EventRegistry(image.events, image.tracepoint_strings, _kernel_variables(machine))
        self.clocks = TraceClocks(machine.now_ns, realtime_at_boot_ns=realtime_at_boot_ns,
                                  boottime_at_boot_ns=boottime_at_boot_ns)
        self.cmdlines = SavedCmdlines()
        self.guest = machine.tracing
        self.guest.set_event_ids([(event.desc, event.id) for event in self.registry.all_events()])
        ftrace = None
        if ftrace_sites is not None:
            dispatcher = image.lookup(DISPATCHER)
            found = None if dispatcher is None else image.kallsyms_lookup(dispatcher.addr)
            ftrace = FtraceGlobal(ftrace_sites, None if found is None else found[2])

        written = None if written_code is None else WrittenCodeSymbols(written_code)

        def symbolize(addr: int) -> tuple[str, int, int] | None:
            """kallsyms_lookup(), as the kernel's output names addresses."""
            found = image.kallsyms_lookup(addr)
            if found is None:
                return None if written is None else written.lookup(addr)
            return found[0].name, found[1], found[2]

        self.globals = TraceGlobals(
            nr_cpus=machine.nr_cpus, clocks=self.clocks,
            tracers=TracerRegistry(((NOP, FUNCTION, FUNCTION_GRAPH) if ftrace is not None else (NOP,)) +
                                   ((BLK,) if self.guest.has_blk_tracer else ())),
            expansion=BufferExpansion(), registry=self.registry, guest=self.guest, cmdlines=self.cmdlines,
            symbolize=symbolize, kernel=kernel_identity(machine), ftrace=ftrace,
            irq_text=_section(image, "__irqentry_text"), catch_up=self._catch_up,
            triggers=TriggerTable(self.guest.triggers, self.guest.hist_maps), user_vmas=machine.user_vmas)
        # the stack tracer (trace_stack.c): its files, and kernel.stack_tracer_enabled
        self.stack_tracer = None if ftrace_sites is None else StackTracer(ftrace_sites, symbolize)
        # tracing_thresh: function_graph's duration threshold
        self.tracing_thresh = NsecsFile(None if ftrace_sites is None else ftrace_sites.set_graph_thresh)
        self.top = self._make_array(0)
        # the function profiler (ftrace.c): function_profile_enabled, trace_stat/functionN
        self.function_profiler = None if ftrace_sites is None or self.top.functions is None else \
            FunctionProfiler(ftrace_sites, self.top.functions, lambda: self.tracing_thresh.ns)
        self.instances = Instances(self._make_array, self.guest.instance_slots, self.guest)
        self.drain = Drain(self.guest, self.arrays, self.cmdlines, machine.tasks)
        # the dump and cpudump function commands' text (ftrace_dump() prints global_trace)
        self.ftrace_dump = FtraceDump(self.guest.ftrace_dump, self.top, self.drain.drain_once)
        # trace arrays keep their event files in step with the dynamic events
        self.registry.listeners.append(_ArrayEventFiles(self))
        self.dynamic: DynamicEvents | None = None
        self.kprobes: KprobeEventOps | None = None
        self.synth: SyntheticEvents | None = None
        self.uprobes: UprobeEventOps | None = None
        if kprobe_engine is not None:
            # Their errors go to the top-level error_log, as Linux's tracing_log_err(NULL, ...).
            self.dynamic = DynamicEvents(self.top.error_log)
            symbols = ImageSymbols(image, machine.read_memory)
            self.kprobes = KprobeEventOps(self.dynamic, self.registry, symbols, kprobe_engine)
            # eprobes: record programs in the kprobe engine's guest tables, run by triggers
            EprobeEventOps(self.dynamic, self.registry, symbols, kprobe_engine, self.globals.triggers,
                           lambda slot: self._array(slot).events, self.top.error_log.log)
            # synthetic events: written by the guest's trace_synth() (a histogram's action)
            self.synth = SyntheticEvents(self.dynamic, self.registry, self.guest.synth_events,
                                         functools.partial(print_flags_table, machine, "gfpflag_names"))
            self.globals.triggers.find_synth = self._find_synth
            if uprobe_engine is not None:
                self.uprobes = UprobeEventOps(self.dynamic, self.registry, uprobe_engine)

    def _find_synth(self, name: str) -> tuple[SynthEvent, int] | None:
        """A hist action's synthetic event: (the event, its entry in the guest's synth_events)."""
        ev = self.synth.find(name) if self.synth is not None else None
        if ev is None or ev.guest_index is None:
            return None
        return ev, self.guest.synth_events.address(ev.guest_index)

    def _make_array(self, slot: int) -> TraceArray:
        array = TraceArray(self.globals, slot)
        if slot:   # an instance
            array.options.inherit(self.top.options)
        return array

    def _catch_up(self) -> None:
        """The arrays' way to the drain, which is made after them (and knows them)."""
        self.drain.drain_once()

    def _array(self, slot: int) -> TraceArray:
        """The trace array recording into a guest slot."""
        for array in self.arrays():
            if array.slot == slot:
                return array
        raise OSError(errno.ENOENT, f"no trace array in slot {slot}")

    def arrays(self) -> list[TraceArray]:
        return [self.top, *self.instances]


class _ArrayEventFiles:
    """Keeps every trace array's event files in step with dynamic events; an array that had
    a removed event enabled is cleared (tracing_reset_all_online_cpus: its records would name
    an id that no longer means that event)."""

    def __init__(self, core: TraceCore):
        self._core = core

    def event_added(self, event: TraceEvent) -> None:
        for array in self._core.arrays():
            array.events.add_event(event)

    def event_removed(self, event: TraceEvent) -> None:
        for array in self._core.arrays():
            removed = array.events.remove_event(event)
            if removed is not None and removed.was_enabled:
                array.clear_trace()
