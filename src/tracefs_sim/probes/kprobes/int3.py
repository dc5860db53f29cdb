"""Int3 kprobes (arch/x86/kernel/kprobes/core.c): what can be probed, and the host's half of a
point whose probes' handlers are the host's.

Every int3 point is the kernel's to run: its int3 goes through the guest's #BP gate and
kprobe_int3_handler() runs the pre-handlers, then emulates the instruction or single-steps its
copy (guest.py arms it).  A point with a probe the guest's fetch programs do not cover (symstr)
is a host point: its pre-handler rings PORT_KPROBE_HIT with the trap's pt_regs, the host runs
the probes' handlers here and stages their records in the cpu's probe_stage (an aggregate's
first one, then the next at each further ring), and the kernel commits each."""
from __future__ import annotations

import errno
from collections.abc import Callable

from ...machine.contract import PatchableImage, PatchableMachine
from ...machine.hooks import HookContext
from .. import insn as X
from .hit import ProbeHit, ProbeStage
from .point import Point
from .regs import PT_REGS_FRAME, Regs, frame_regs


def arch_prepare(image: PatchableImage, addr: int) -> tuple[str, X.Insn]:
    """arch_prepare_kprobe(): can_probe() (an instruction boundary of a function), then what
    the copy or the emulation needs (prepare_emulation()); (the function, the probed
    instruction) or OSError."""
    found = X.function_at(image, addr)
    if found is None:
        raise OSError(errno.EILSEQ, "not in a function")
    sym, insns = found
    if not X.on_boundary(insns, sym.addr, addr):
        raise OSError(errno.EILSEQ, "not an instruction boundary")
    i = X.find(insns, addr)
    if i is None or X.int3_strategy(i) is None:
        raise OSError(errno.EOPNOTSUPP, "instruction cannot be probed")
    try:
        X.emulation(i)
    except ValueError:  # a memory-indirect call/jmp: "TODO: support memory addressing"
        raise OSError(errno.EOPNOTSUPP, "instruction cannot be probed") from None
    return sym.name, i


class HostInt3Handlers:
    """The host's handlers of host int3 points, at the kernel's PORT_KPROBE_HIT doorbell."""

    def __init__(self, machine: PatchableMachine, stage: ProbeStage, point_at: Callable[[int], Point | None],
                 run: Callable[[Point, HookContext, Regs], ProbeHit | None]):
        """point_at(addr): the point probed there; run(point, ctx, regs): its handlers."""
        a = machine.image.abi_value
        self._hit, self._next, self._missed = a("KPROBE_HOST_HIT"), a("KPROBE_HOST_NEXT"), a("KPROBE_HOST_MISSED")
        self._stage = stage
        self._point_at = point_at
        self._run = run
        machine.set_doorbell_handler(a("PORT_KPROBE_HIT"), self._on_doorbell)

    def _on_doorbell(self, ctx: HookContext, args: tuple[int, int, int, int]) -> None:
        regs_va, kind, addr, _ = args
        if kind == self._next:  # an aggregate's next record
            self._stage.on_extra_commit(ctx)
            return
        point = self._point_at(addr)
        if kind == self._missed:  # kprobes_inc_nmissed_count(): reentered, nothing run
            for kp in point.probes if point is not None else ():
                if kp.enabled:
                    kp.nmissed += 1
            return
        raw = ctx.read(regs_va, PT_REGS_FRAME.size)
        if kind != self._hit or point is None or raw is None:
            return  # (the point went while the trap was on its way: nothing staged)
        values = PT_REGS_FRAME.unpack(raw)
        self._run(point, ctx, frame_regs(values, values[16]))  # ip: past the int3, as 6.1's
