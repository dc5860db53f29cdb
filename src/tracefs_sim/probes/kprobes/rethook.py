"""Kretprobe instances and the return trampoline (Linux 6.1's rethook: kernel/trace/rethook.c,
arch/x86/kernel/rethook.c), for kretprobes the host handles.

Each kretprobe takes an instance from its own pool at the entry, keeping the return address it
finds; only the first swaps it for arch_rethook_trampoline, so a call with several (an
aggregate, a tail call) returns through the trampoline once per instance, newest first, each
pass restoring what its instance found and committing one record.  function_graph swaps after
the kprobe hook and restores what it found too.  The trampoline hands a return the guest has
no instance for to the host's hook (`kretprobe_hook`), handled here."""
from __future__ import annotations

import logging
import struct
from dataclasses import dataclass

from ...machine.contract import PatchableMachine
from ...machine.hooks import REG_INDEX, HookContext
from .hit import ProbeHit, ProbeStage
from .point import Kprobe, required_symbol
from .regs import Regs

log = logging.getLogger(__name__)
_U64 = struct.Struct("<Q")
_SP = REG_INDEX["sp"]


@dataclass(slots=True)
class _Instance:
    """A kretprobe instance: one call of the function in flight."""
    probe: Kprobe
    sp: int  # where the return address was (the entry rsp)
    ret_addr: int
    pid: int


class Rethook:
    def __init__(self, machine: PatchableMachine, stage: ProbeStage):
        self._machine = machine
        self._stage = stage
        self.trampoline = required_symbol(machine.image, "arch_rethook_trampoline")
        self._hook_addr = required_symbol(machine.image, "kretprobe_hook")
        self._hook: int | None = None
        self._instances: dict[int, list[_Instance]] = {}  # task address -> LIFO

    @property
    def hooked(self) -> bool:
        """The trampoline's host hook is in place."""
        return self._hook is not None

    def update_hook(self, needed: bool) -> None:
        """Hook the trampoline while a host-handled kretprobe is registered; the hook stays
        while an instance is in flight: that return must still be caught."""
        if needed and self._hook is None:
            self._hook = self._machine.add_code_hook(self._hook_addr, self.on_return)
        elif not needed and self._hook is not None and not any(self._instances.values()):
            self._machine.remove_code_hook(self._hook)
            self._hook = None

    def entry(self, kp: Kprobe, ctx: HookContext, regs: Regs) -> bool:
        """Take an instance from kp's pool and hook the return: the instance keeps the return
        address it finds (rethook_hook()).  One that is already the trampoline belongs to an
        instance of this very call (another kretprobe of the aggregate, or a caller that
        tail-called here): it stays, and the call returns through the trampoline once per
        instance, each restoring what it found.  False: no instance (a miss)."""
        if kp.free_instances <= 0:
            self._reclaim_dead_tasks()
            if kp.free_instances <= 0:
                kp.nmissed += 1
                return False
        sp = regs["sp"]
        raw = ctx.read(sp, 8)
        if raw is None:
            kp.nmissed += 1
            return False
        found = _U64.unpack(raw)[0]
        hooked = found == self.trampoline
        task, pid = ctx.current_task_addr(), ctx.current_pid()
        stack = self._instances.setdefault(task, [])
        # frames that never returned (their stack is reused): deeper ones, and one
        # at this sp unless the trampoline there says it is this call's; and those of
        # a task that died here before (its task_struct reused: another pid)
        while stack and (stack[-1].pid != pid or stack[-1].sp < sp or (stack[-1].sp == sp and not hooked)):
            stack.pop().probe.free_instances += 1
        if hooked and (not stack or stack[-1].sp != sp):
            log.error("kretprobe trampoline at sp %#x without an instance", sp)
            kp.nmissed += 1
            return False
        kp.free_instances -= 1
        stack.append(_Instance(kp, sp, found, pid))
        if not hooked:
            ctx.write(sp, _U64.pack(self.trampoline))
        return True

    def _reclaim_dead_tasks(self) -> None:
        """Instances of tasks that exited inside a probed function go back to their pools
        (Linux recycles them when the task is freed)."""
        live = {t.pid for t in self._machine.tasks()}
        for task, stack in list(self._instances.items()):
            if stack and stack[-1].pid not in live:
                for inst in stack:
                    inst.probe.free_instances += 1
                del self._instances[task]

    def on_return(self, ctx: HookContext) -> None:
        """The trampoline's host hook: the newest instance of this call returns."""
        v = ctx.regs()
        sp = v[_SP]
        stack = self._instances.get(ctx.current_task_addr())
        pid = ctx.current_pid()
        # frames left without returning, or a dead task's (its task_struct reused)
        while stack and (stack[-1].sp < sp or stack[-1].pid != pid):
            stack.pop().probe.free_instances += 1
        if not stack or stack[-1].sp != sp:
            log.error("kretprobe trampoline without an instance at sp %#x", sp)
            return
        inst = stack.pop()
        kp = inst.probe
        kp.free_instances += 1
        # what it found: the trampoline again while another instance of this call
        # waits (each pass commits one record), the caller for the first one taken
        ctx.write(sp, _U64.pack(inst.ret_addr))
        caller = inst.ret_addr
        for other in reversed(stack):
            if other.sp != sp:
                break
            caller = other.ret_addr
        if not kp.enabled or kp.on_return is None or self._stage.busy(ctx):
            return
        values = list(v)
        values[_SP] = sp + 8  # as after the function's ret
        # rethook_trampoline_handler(): regs->ip is the real return address; ret_ip is
        # the instance's own (the trampoline's, "[unknown/kretprobe'd]", for all but one)
        regs = Regs(tuple(values), REG_INDEX, caller)
        hit = ProbeHit(self._stage, self._machine.image, ctx, regs, kp.addr, inst.ret_addr)
        kp.nhit += 1
        kp.on_return(hit)
        if hit.missed:
            kp.nmissed += 1
