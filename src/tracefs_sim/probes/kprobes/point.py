"""A registered probe and a probed address (struct kprobe, and the aggregate kprobe that
kernel/kprobes.c makes when several probes share an address)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ...machine.contract import KernelSymbols
from .. import insn as X

if TYPE_CHECKING:
    from .hit import ProbeHit

# How a point is armed: at its function's mcount site through ftrace_regs_caller; a 5-byte
# jmp to a detour (jump-optimised); or an int3.
FTRACE, OPTIMIZED, INT3 = "ftrace", "optimized", "int3"

Handler = Callable[["ProbeHit"], None]


class KprobeControl(Protocol):
    """What a probe asks of the engine that registered it (enable_kprobe() and the rest)."""

    def enable_kprobe(self, kp: Kprobe) -> None: ...
    def disable_kprobe(self, kp: Kprobe) -> None: ...
    def unregister_kprobe(self, kp: Kprobe) -> None: ...
    def set_kprobe_slots(self, kp: Kprobe, slots: int) -> None: ...
    def guest_counts(self, probe: GuestProbe) -> tuple[int, int]: ...


@dataclass(frozen=True)
class GuestProbe:
    """A probe's entry in the guest's tables (guest.GuestTables): hits run in the guest."""
    index: int
    first_arg: int
    nargs: int


class Kprobe:
    """One registered probe (struct kprobe / struct kretprobe)."""

    def __init__(self, engine: KprobeControl, addr: int, on_hit: Handler | None, is_return: bool,
                 maxactive: int, on_return: Handler | None):
        self._engine = engine
        self.guest: GuestProbe | None = None
        # no host handler: only the guest's program records (a probe event's)
        self.guest_only = False
        # the trace-array slots its event records in (what a guest handler writes):
        # set_record_slots()
        self.record_slots = 0
        self.addr = addr
        self.on_hit = on_hit
        self.on_return = on_return
        self.is_return = is_return
        self.maxactive = maxactive
        self.free_instances = maxactive
        # what host handlers counted (the guest counts in its tables)
        self.host_nhit = 0
        self.host_nmissed = 0
        self.enabled = False
        self.registered = True

    # kprobe_profile: what host handlers counted plus what the guest's did
    @property
    def nhit(self) -> int:
        return self.host_nhit + (self._engine.guest_counts(self.guest)[0] if self.guest else 0)

    @nhit.setter
    def nhit(self, value: int) -> None:
        self.host_nhit += value - self.nhit

    @property
    def nmissed(self) -> int:
        return self.host_nmissed + (self._engine.guest_counts(self.guest)[1] if self.guest else 0)

    @nmissed.setter
    def nmissed(self, value: int) -> None:
        self.host_nmissed += value - self.nmissed

    def set_record_slots(self, slots: int) -> None:
        """The trace-array slots its event records in now (what a guest handler writes)."""
        self._engine.set_kprobe_slots(self, slots)

    def enable(self) -> None:
        self._engine.enable_kprobe(self)

    def disable(self) -> None:
        self._engine.disable_kprobe(self)

    def unregister(self) -> None:
        self._engine.unregister_kprobe(self)


@dataclass
class Point:
    """A probed address and its probes (an aggregate when more than one)."""
    addr: int
    func: str
    probes: list[Kprobe] = field(default_factory=list)  # newest first, as list_add_rcu
    kind: str | None = None  # armed as FTRACE / OPTIMIZED / INT3; None: not armed
    insn: X.Insn | None = None  # the probed instruction (not FTRACE)
    insn_slot: tuple[int, int] | None = None  # (address, bytes) of its code in kprobe_insn_slots
    copy_entry: int = 0  # OPTIMIZED: the relocated instructions, past the prologue
    hook: int | None = None  # OPTIMIZED: the detour's code hook
    commit_hooks: list[int] = field(default_factory=list)  # the extra commit calls' hooks
    extra: int = 0  # records a hit can commit besides the first (armed layout)
    length: int = 0  # bytes of text the armed probe replaced
    guest: int | None = None  # armed in the guest's tables (guest handlers, or an int3 point): its index
    # KPROBE_FLAG_DISABLED of the hashed kprobe: of the probe itself while it is alone, of
    # the aggregate (which it becomes for good once a second probe joins) after that
    disabled: bool = True
    aggregate: bool = False
    # Linux's optimizer has this point optimized (or queued to be): set when it is armed with
    # no armed probe inside its jump's range, cleared when one is armed there, as
    # optimize_kprobe()/__arm_kprobe()/__disarm_kprobe() decide (opt.Optimizer)
    optimize: bool = False
    opt_end: tuple[int | None] | None = None  # (Optimizer.opt_end's answer,) once computed


def required_symbol(image: KernelSymbols, name: str) -> int:
    """The address of a symbol the kprobe engine cannot work without."""
    sym = image.lookup(name)
    if sym is None or not sym.addr:
        raise RuntimeError(f"kernel image has no {name}: kprobes unavailable")
    return sym.addr
