"""The tracing core assembled over a machine: the event registry, the clocks, the saved
cmdlines, the top-level trace array, its instances and the drain from the guest."""

from .clock import TraceClocks
from .cmdlines import SavedCmdlines
from .drain import Drain
from .events import EventRegistry
from .instances import Instances
from .output import KernelIdentity
from .trace_array import BufferExpansion, TraceArray


def kernel_identity(machine) -> KernelIdentity:
    """The release and preemption model from the emulated kernel's /proc/version text (its
    `version` string: "Linux version RELEASE (...) #1 SMP PREEMPT_DYNAMIC ...")."""
    symbol = machine.image.lookup("version")
    text = machine.read_memory(symbol.addr, symbol.size).split(b"\0", 1)[0].decode()
    release = text.split()[2]
    build = text.partition(" #")[2]
    # preempt_model_*(): PREEMPT_DYNAMIC boots voluntary ("desktop") unless told otherwise.
    model = ("preempt_rt" if "PREEMPT_RT" in build else "desktop" if "PREEMPT_DYNAMIC" in build
             else "preempt" if "PREEMPT" in build else "server")
    return KernelIdentity(release, model)


class TracingSystem:
    def __init__(self, machine, *, realtime_at_boot_ns: int = 0):
        """machine: the Machine contract; its `tracing` (GuestTracing), when it has one,
        gives events, instances and the drain."""
        self.registry = EventRegistry(machine.image.events)
        self.clocks = TraceClocks(machine.now_ns, realtime_at_boot_ns=realtime_at_boot_ns)
        self.cmdlines = SavedCmdlines()
        self.guest = getattr(machine, "tracing", None)
        self._expansion = BufferExpansion()
        self._nr_cpus = machine.nr_cpus
        image = machine.image

        def symbolize(addr: int):
            found = image.symbolize(addr)
            return None if found is None else (found[0].name, found[1], found[0].size)

        self._symbolize = symbolize
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
        return TraceArray(self._nr_cpus, self.clocks, expansion=self._expansion, events=self.registry,
                          guest=self.guest, slot=slot, cmdlines=self.cmdlines, symbolize=self._symbolize,
                          kernel=self._kernel)

    def arrays(self) -> list[TraceArray]:
        return [self.top, *(self.instances or ())]
