"""Int3 kprobes whose handlers are the host's, and their out-of-line step.

(A point the guest handles whole takes its int3 through the guest's #BP gate: guest.py.)
The probed instruction's first byte becomes an int3, which the machine sends to the host's
breakpoint handler (Machine.set_int3_host).  A copied instruction runs out of line in an insn
slot: `call probe_commit_stub; <insn>; jmp back` (entered past the call when nothing was
staged).  Control flow (jmp, jcc, call, ret, loop, indirect jmp/call) is emulated in the
handler (insn.emulate), which then enters a slot `call probe_commit_stub; ret` with the
computed target pushed (or goes to the target when nothing was staged).  An aggregate has one further commit call per extra probe."""
from __future__ import annotations

import errno
import struct
from collections.abc import Callable

from ...machine.contract import PatchableImage, PatchableMachine
from ...machine.hooks import REG_INDEX, HookContext
from .. import insn as X
from .hit import ProbeHit, ProbeStage
from .insn_slots import InsnSlots, commit_calls, out_of_line
from .point import INT3, Point
from .regs import IP, Regs

_U64 = struct.Struct("<Q")
_SP = REG_INDEX["sp"]


def arch_prepare(image: PatchableImage, addr: int) -> tuple[str, X.Insn]:
    """arch_prepare_kprobe(): can_probe() (an instruction boundary of a function), then what
    the copy or the emulation needs; (the function, the probed instruction) or OSError."""
    found = X.function_at(image, addr)
    if found is None:
        raise OSError(errno.EILSEQ, "not in a function")
    sym, insns = found
    if not X.on_boundary(insns, sym.addr, addr):
        raise OSError(errno.EILSEQ, "not an instruction boundary")
    i = X.find(insns, addr)
    if i is None or X.int3_strategy(i) is None or not X.emulable(i):
        raise OSError(errno.EOPNOTSUPP, "instruction cannot be probed")
    return sym.name, i


class Int3Kprobes:
    def __init__(self, machine: PatchableMachine, insn_slots: InsnSlots, stage: ProbeStage,
                 point_at: Callable[[int], Point | None],
                 run: Callable[[Point, HookContext, Regs], ProbeHit | None]):
        """point_at(addr): the point probed there; run(point, ctx, regs): its handlers."""
        self._machine = machine
        self._insn_slots = insn_slots
        self._stage = stage
        self._point_at = point_at
        self._run = run
        machine.set_breakpoint_handler(self.on_breakpoint)

    def arm(self, point: Point, extra: int) -> None:
        """Host handlers: the out-of-line code (commit calls, then the copy or a `ret`), then
        the int3."""
        i = point.insn
        assert i is not None  # (a point off an mcount site always has its instruction)
        copy = X.int3_strategy(i) == X.COPY
        if not self._machine.set_int3_host(point.addr, True):
            raise OSError(errno.ENOMEM, "host int3 table full")
        try:
            at = self._insn_slots.get(5 * (1 + extra) + (i.size + 5 if copy else 1))
        except OSError:
            self._machine.set_int3_host(point.addr, False)
            raise
        prologue = commit_calls(at, self._stage.commit_stub, 1 + extra)
        if copy:
            code, point.copy_entry = out_of_line(at, prologue, [i], i.end)
        else:  # entered with the emulated target pushed: the stub calls, then `ret` to it
            code = prologue + b"\xc3"
        self._insn_slots.install(point, at, code)
        self._insn_slots.hook_commits(point, range(1, 1 + extra), self._stage.on_extra_commit)
        self._machine.text_poke_batch([(point.addr, b"\xcc")])
        point.length = 1

    def on_breakpoint(self, ctx: HookContext) -> bool:
        """A kernel-mode int3 (RIP past it); False: not a probe's (the machine's panic path)."""
        v = ctx.regs()
        point = self._point_at(v[IP] - 1)
        if point is None or point.kind != INT3 or point.guest is not None:
            return False  # (a guest point's int3 comes here only if the gate could not take it)
        slot = point.insn_slot
        assert slot is not None  # (an armed int3 point has its out-of-line code)
        regs = Regs(v, REG_INDEX, v[IP])
        hit = self._run(point, ctx, regs)
        staged = hit is not None and hit.staged
        if point.copy_entry:
            ctx.set_rip(slot[0] if staged else point.copy_entry)
            return True
        assert point.insn is not None
        target = X.emulate(point.insn, ctx, regs)
        if staged:  # the commit calls, then the slot's `ret` goes on to the target
            sp = ctx.regs()[_SP] - 8
            ctx.write(sp, _U64.pack(target))
            ctx.set_reg("sp", sp)
            target = slot[0]
        ctx.set_rip(target)
        return True
