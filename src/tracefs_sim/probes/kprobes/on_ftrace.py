"""Kprobes on ftrace (arch/x86/kernel/kprobes/ftrace.c): a probe at a function's mcount site is
armed by routing the site's call to ftrace_regs_caller (FtraceSites.set_kprobe), which saves a
whole pt_regs and calls `ftrace_kprobe_hook` with it (rdi), where a one-address code hook runs
the host handlers (kprobe_ftrace_handler()).  ftrace_regs_caller resumes at regs->ip: an
aggregate's extra commit calls sit in an insn slot it resumes at, then the function."""
from __future__ import annotations

import struct
from collections.abc import Callable

from ...machine.contract import PatchableMachine
from ...machine.hooks import HookContext
from .. import insn as X
from ..ftrace import FtraceSites
from .hit import ProbeHit, ProbeStage
from .insn_slots import InsnSlots, commit_calls
from .point import FTRACE, Point, required_symbol
from .regs import PT_INDEX, PT_REGS_FRAME, Regs, frame_regs

_U64 = struct.Struct("<Q")
_IP = PT_INDEX["ip"]


class FtraceKprobes:
    def __init__(self, machine: PatchableMachine, sites: FtraceSites, insn_slots: InsnSlots, stage: ProbeStage,
                 point_at: Callable[[int], Point | None],
                 run: Callable[[Point, HookContext, Regs], ProbeHit | None]):
        """point_at(addr): the point probed there; run(point, ctx, regs): its handlers."""
        self._machine = machine
        self.sites = sites
        self._insn_slots = insn_slots
        self._stage = stage
        self._point_at = point_at
        self._run = run
        self._hook_addr = required_symbol(machine.image, "ftrace_kprobe_hook")
        self._site_size = machine.image.abi_value("MCOUNT_INSN_SIZE")
        self._hook: int | None = None

    @property
    def hooked(self) -> bool:
        """ftrace_kprobe_hook's host hook is in place."""
        return self._hook is not None

    def update_hook(self, needed: bool) -> None:
        """Hook ftrace_kprobe_hook while a host-handled point is armed on ftrace."""
        if needed and self._hook is None:
            self._hook = self._machine.add_code_hook(self._hook_addr, self.on_hook)
        elif not needed and self._hook is not None:
            self._machine.remove_code_hook(self._hook)
            self._hook = None

    def arm(self, point: Point, extra: int) -> None:
        """Host handlers: route the site to ftrace_regs_caller; an aggregate resumes through
        its extra commit calls, then the function."""
        if extra:
            at = self._insn_slots.get(5 * extra + 5)
            code = commit_calls(at, self._stage.commit_stub, extra)
            code += X.jmp32(at + len(code), point.addr + self._site_size)
            self._insn_slots.install(point, at, code)
            self._insn_slots.hook_commits(point, range(extra), self._stage.on_extra_commit)
        self.sites.set_kprobe(point.func, True)

    def disarm(self, point: Point) -> None:
        self.sites.set_kprobe(point.func, False)

    def on_hook(self, ctx: HookContext) -> None:
        """kprobe_ftrace_handler(), the pt_regs ftrace_regs_caller saved at rdi."""
        frame_va = ctx.reg("di")
        raw = ctx.read(frame_va, PT_REGS_FRAME.size)
        if raw is None:
            return
        values = PT_REGS_FRAME.unpack(raw)
        point = self._point_at(values[_IP])
        if point is None or point.kind != FTRACE or point.guest is not None:
            return
        # ip as if after an int3
        hit = self._run(point, ctx, frame_regs(values, point.addr + 1))
        if hit is not None and hit.queue and point.insn_slot:  # resume via the extra commit calls
            ctx.write(frame_va + 8 * _IP, _U64.pack(point.insn_slot[0]))
