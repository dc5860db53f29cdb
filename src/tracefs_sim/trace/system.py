"""The tracing core assembled over a machine: the event registry, the clocks, the saved
cmdlines, the top-level trace array, its instances and the drain from the guest."""

from .clock import TraceClocks
from .cmdlines import SavedCmdlines
from .drain import Drain
from .events import EventRegistry
from .function_tracer import DISPATCHER, FtraceGlobal
from .instances import Instances
from .kernel_symbols import ImageSymbols
from .kprobe_events import KprobeEvents
from .output import KernelIdentity
from .trace_array import BufferExpansion, TraceArray
from .tracers import FUNCTION, FUNCTION_GRAPH, NOP, TracerRegistry


def kernel_identity(machine) -> KernelIdentity:
    """The release and preemption model from the emulated kernel's banner (`linux_banner`:
    "Linux version RELEASE (...) #1 SMP PREEMPT_DYNAMIC ...", as /proc/version reads)."""
    symbol = machine.image.lookup("linux_banner")
    text = machine.read_memory(symbol.addr, symbol.size).split(b"\0", 1)[0].decode()
    release = text.split()[2]
    build = text.partition(" #")[2]
    # preempt_model_*(): PREEMPT_DYNAMIC boots voluntary ("desktop") unless told otherwise.
    model = ("preempt_rt" if "PREEMPT_RT" in build else "desktop" if "PREEMPT_DYNAMIC" in build
             else "preempt" if "PREEMPT" in build else "server")
    return KernelIdentity(release, model)


def _section(image, name: str) -> tuple[int, int] | None:
    """[start, end) of a kernel text section from its NAME_start/NAME_end symbols."""
    start, end = image.lookup(f"{name}_start"), image.lookup(f"{name}_end")
    return None if start is None or end is None else (start.addr, end.addr)


class TracingSystem:
    def __init__(self, machine, *, realtime_at_boot_ns: int = 0, ftrace_sites=None):
        """machine: the Machine contract; its `tracing` (GuestTracing), when it has one,
        gives events, instances and the drain; ftrace_sites (probes.ftrace.FtraceSites), when
        given, the function tracers."""
        dispatcher = machine.image.lookup(DISPATCHER)
        self.ftrace_sites = ftrace_sites
        self.ftrace = None if ftrace_sites is None else FtraceGlobal(
            ftrace_sites, None if dispatcher is None else machine.image.kallsyms_lookup(dispatcher.addr)[2])
        self.tracers = TracerRegistry((NOP, FUNCTION, FUNCTION_GRAPH) if ftrace_sites is not None else (NOP,))
        self._irq_text = _section(machine.image, "__irqentry_text")
        self.registry = EventRegistry(machine.image.events, machine.image.tracepoint_strings)
        self.clocks = TraceClocks(machine.now_ns, realtime_at_boot_ns=realtime_at_boot_ns)
        self.cmdlines = SavedCmdlines()
        self.guest = getattr(machine, "tracing", None)
        self._expansion = BufferExpansion()
        self._nr_cpus = machine.nr_cpus
        image = machine.image

        def symbolize(addr: int):   # kallsyms_lookup(), as the kernel's output names addresses
            found = image.kallsyms_lookup(addr)
            return None if found is None else (found[0].name, found[1], found[2])

        self._symbolize = symbolize
        self._machine = machine
        self.kprobes: KprobeEvents | None = None
        self._kernel = kernel_identity(machine)
        if self.guest is not None:
            for event in self.registry.all_events():
                self.guest.set_event_id(event.desc, event.id)
        self.top = self._make_array(0)
        self.instances = None
        self.drain = None
        if self.guest is not None:
            self.instances = Instances(self._make_array, self.guest.nr_slots)
            self.drain = Drain(self.guest, self.arrays, self.cmdlines, machine.tasks)

    def _make_array(self, slot: int) -> TraceArray:
        array = TraceArray(self._nr_cpus, self.clocks, tracers=self.tracers, expansion=self._expansion,
                          events=self.registry, guest=self.guest, slot=slot, cmdlines=self.cmdlines,
                          symbolize=self._symbolize, kernel=self._kernel, ftrace=self.ftrace,
                          irq_text=self._irq_text, catch_up=self._catch_up)
        if slot:   # an instance
            array.options.inherit(self.top.options)
        return array

    def _catch_up(self) -> None:
        """The arrays' way to the drain, which is made after them (and knows them)."""
        if self.drain is not None:
            self.drain.drain_once()

    def arrays(self) -> list[TraceArray]:
        return [self.top, *(self.instances or ())]

    def attach_kprobes(self, engine) -> KprobeEvents:
        """Kprobe events over a probes.kprobes.KprobeEngine (before the fs tree is built).
        Their errors go to the top-level error_log, as Linux's tracing_log_err(NULL, ...)."""
        machine = self._machine
        self.kprobes = KprobeEvents(self.registry, ImageSymbols(machine.image, machine.read_memory), engine,
                                    self.top.error_log, self._nr_cpus)
        self.kprobes.listeners.append(_ArrayEventFiles(self.arrays))
        return self.kprobes


class _ArrayEventFiles:
    """Keeps every trace array's event files in step with dynamic events; an array that had
    a removed event enabled is cleared (tracing_reset_all_online_cpus: its records would name
    an id that no longer means that event)."""

    def __init__(self, arrays):
        self._arrays = arrays

    def event_added(self, event) -> None:
        for array in self._arrays():
            if array.events is not None:
                array.events.add_event(event)

    def event_removed(self, event) -> None:
        for array in self._arrays():
            if array.events is not None:
                removed = array.events.remove_event(event)
                if removed is not None and removed.was_enabled:
                    array.clear_trace()
