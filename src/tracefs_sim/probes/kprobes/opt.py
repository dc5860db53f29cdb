"""Jump-optimised kprobes: which probes the optimizer optimizes (kernel/kprobes.c's
optimize_kprobe() and friends: Optimizer) and how one is armed (arch/x86/kernel/kprobes/opt.c:
OptKprobes).

An optimized probe is a 5-byte `jmp` to a detour in an insn slot: `call probe_commit_stub` (its
address hooked: the handlers run first), the instructions the jmp displaced (relocated), `jmp`
back; only where Linux's can_optimize() and copy_optimized_instructions() allow it.  Linux's
optimizer waits 5 jiffies; here a point is optimized (or falls back to int3) the moment it is
armed or disarmed."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ...machine.contract import PatchableMachine
from ...machine.hooks import HookContext
from .. import insn as X
from .hit import ProbeHit, ProbeStage
from .insn_slots import InsnSlots, commit_calls, out_of_line
from .point import Point
from .regs import Regs, cpu_regs

JUMP_LABEL_NOP_SIZE = 5


class Optimizer:
    """Which points are optimized: each point's `optimize` as Linux's optimizer leaves it."""

    def __init__(self, image: X.TextImage, mcount_sites: Iterable[int], site_size: int, jump_sites: Iterable[int]):
        """site_size: MCOUNT_INSN_SIZE, what an mcount site reserves."""
        self._image = image
        self._mcount = frozenset(mcount_sites)
        self._site_size = site_size
        self._jump_sites = sorted(jump_sites)
        self.enabled = True  # /proc/sys/debug/kprobes-optimization

    def opt_end(self, point: Point) -> int | None:
        """arch_prepare_optimized_kprobe(): where the jump's relocated instructions end, or None
        when the point cannot be optimized (can_optimize(), the copy, ftrace or jump-label text
        reserved: -EBUSY).  Fixed by the code, so kept."""
        if point.addr in self._mcount:
            return None
        if point.opt_end is None:
            point.opt_end = (self._compute_opt_end(point.addr),)
        return point.opt_end[0]

    def _compute_opt_end(self, addr: int) -> int | None:
        found = X.function_at(self._image, addr)
        if found is None:
            return None
        sym, insns = found
        if not X.can_optimize(insns, sym.addr, sym.size, addr):
            return None
        covered = X.optimized_insns(insns, addr)
        if covered is None:
            return None
        end = covered[-1].end
        for site in self._mcount:
            if site < end and addr < site + self._site_size:
                return None
        for code in self._jump_sites:
            if code < end and addr < code + JUMP_LABEL_NOP_SIZE:
                return None
        return end

    def window_clear(self, point: Point, points: Iterable[Point]) -> bool:
        """optimize_kprobe()'s arch_check_optimized_kprobe(): optimizable, and no probe that is
        not disarmed (its own KPROBE_FLAG_DISABLED clear) inside the jump's range."""
        end = self.opt_end(point)
        return end is not None and not any(point.addr < q.addr < end and not q.disabled for q in points)

    def _covering(self, addr: int, points: Iterable[Point]) -> list[Point]:
        """get_optimized_kprobe(): the optimizable points whose jump would cover addr."""
        return [q for q in points if q.addr < addr and (self.opt_end(q) or 0) > addr]

    def on_arm(self, point: Point, points: list[Point]) -> None:
        """__arm_kprobe(): an optimized probe whose jump covers this one falls back to int3
        (for good: nothing re-optimizes it but its own re-arming), then this one is tried."""
        for q in self._covering(point.addr, points):
            q.optimize = False
        point.optimize = self.enabled and self.window_clear(point, points)

    def on_disarm(self, point: Point, points: list[Point]) -> None:
        """__disarm_kprobe(): a probe that was not optimized lets a probe it blocked be
        optimized now; an optimized one is queued for unoptimization and does not (the
        kernel's "TODO: reoptimize others after unoptimized this probe")."""
        was_optimized = point.optimize and self.enabled
        point.optimize = False
        if was_optimized:
            return
        for q in self._covering(point.addr, points):
            if not q.disabled and self.enabled:
                q.optimize = self.window_clear(q, points)

    def set_enabled(self, on: bool, points: list[Point]) -> None:
        """optimize_all_kprobes() tries each enabled probe; unoptimize_all_kprobes() all."""
        self.enabled = on
        for point in points:
            point.optimize = on and not point.disabled and self.window_clear(point, points)


class OptKprobes:
    """Arming an optimized point with host handlers: the detour, its hook, the jmp."""

    def __init__(self, machine: PatchableMachine, insn_slots: InsnSlots, stage: ProbeStage,
                 run: Callable[[Point, HookContext, Regs], ProbeHit | None]):
        """run(point, ctx, regs): the point's handlers."""
        self._machine = machine
        self._insn_slots = insn_slots
        self._stage = stage
        self._run = run

    def arm(self, point: Point, extra: int) -> None:
        covered = optimized_insns(self._machine.image, point.addr)
        size = sum(c.size for c in covered)
        at = self._insn_slots.get(5 * (1 + extra) + size + 5)
        prologue = commit_calls(at, self._stage.commit_stub, 1 + extra)
        code, point.copy_entry = out_of_line(at, prologue, covered, point.addr + size)
        self._insn_slots.install(point, at, code)
        self._insn_slots.hook_commits(point, range(1, 1 + extra), self._stage.on_extra_commit)
        point.hook = self._machine.add_code_hook(at, lambda ctx: self._on_detour(point, ctx))
        self._machine.text_poke_batch([(point.addr, X.jmp32(point.addr, at))])
        point.length = size

    def _on_detour(self, point: Point, ctx: HookContext) -> None:
        """optimized_callback(): the handlers, ip as if after an int3."""
        regs = cpu_regs(ctx)
        regs.ip = point.addr + 1
        if self._run(point, ctx, regs) is None:
            # reentered from the commit path: the record being committed is not ours
            ctx.set_rip(point.copy_entry)


def optimized_insns(image: X.TextImage, addr: int) -> list[X.Insn]:
    """The instructions an optimized probe's jmp at addr displaces (an optimizable point's)."""
    found = X.function_at(image, addr)
    covered = None if found is None else X.optimized_insns(found[1], addr)
    if covered is None:
        raise ValueError(f"{addr:#x} cannot be optimized")
    return covered
