"""Out-of-line code (Linux's kprobe_insn_cache of kernel/kprobes.c): the insn slots in the
guest's `kprobe_insn_slots` area, where a probe's copied instructions run (the XOL idea:
execute out of line), and the code written there.

A slot's code is a prologue (commit calls, or the guest handler's call), the instructions the
probe displaced, relocated, and a jmp back; an int3 point's is its instruction's copy and the
int3 that ends the kernel's single step of it.  A disarmed probe's slot is erased (int3 fill)
once no CPU runs in it or was interrupted there (Machine.text_release), as Linux frees insn
slots after a grace period."""
from __future__ import annotations

import errno
from collections.abc import Callable, Sequence

from ...machine.contract import PatchableMachine
from ...machine.hooks import HookContext
from .. import insn as X
from .point import Point

SLOT_GRANULE = 32


class InsnSlots:
    def __init__(self, machine: PatchableMachine):
        self._machine = machine
        image = machine.image
        area = image.lookup("kprobe_insn_slots")
        if area is None:
            raise RuntimeError("kernel image has no kprobe_insn_slots")
        self._base = area.addr
        self._used = [False] * (area.size // SLOT_GRANULE)
        self._retired: list[tuple[int, int]] = []  # freed slots not erased yet
        # the commit path a slot calls into (probe_commit_stub and the ring code) lies here
        self._callees = ((image.addr("__kprobes_text_start"), image.addr("__kprobes_text_end")),)

    def get(self, size: int) -> int:
        """get_insn_slot(): room for size bytes of code; OSError(ENOMEM) when full."""
        n = -(-size // SLOT_GRANULE)
        used = self._used
        for i in range(len(used) - n + 1):
            if not any(used[i:i + n]):
                used[i:i + n] = [True] * n
                return self._base + i * SLOT_GRANULE
        raise OSError(errno.ENOMEM, "kprobe insn slots exhausted")

    def install(self, point: Point, at: int, code: bytes) -> None:
        """Write a point's out-of-line code at the slot got for it."""
        point.insn_slot = (at, len(code))
        self._machine.text_poke_batch([(at, code)])

    def hook_commits(self, point: Point, calls: range, on_commit: Callable[[HookContext], None]) -> None:
        """Hook the point's extra commit calls: those whose index (5-byte calls from the start of
        its code) is in calls."""
        assert point.insn_slot is not None
        at = point.insn_slot[0]
        point.commit_hooks = [self._machine.add_code_hook(at + 5 * k, on_commit) for k in calls]

    def free(self, at: int, size: int) -> None:
        """free_insn_slot(): erased and given back once no CPU can be in it."""
        self._retired.append((at, size))
        self.collect()

    @property
    def pending(self) -> bool:
        """Freed slots still waiting to be erased."""
        return bool(self._retired)

    def collect(self) -> None:
        """collect_garbage_slots(): erase and give back the freed slots no CPU is executing (or
        will return into: an interrupted slot); the others wait for the next try."""
        still = []
        for at, size in self._retired:
            if self._machine.text_release(at, b"\xcc" * size, self._callees):
                i = (at - self._base) // SLOT_GRANULE
                n = -(-size // SLOT_GRANULE)
                self._used[i:i + n] = [False] * n
            else:
                still.append((at, size))
        self._retired = still


def commit_calls(at: int, stub: int, count: int) -> bytes:
    """count `call probe_commit_stub` at at (5 bytes each)."""
    return b"".join(X.call32(at + 5 * k, stub) for k in range(count))


def out_of_line(at: int, prologue: bytes, insns: Sequence[X.Insn], resume: int) -> tuple[bytes, int]:
    """The code of a slot at at: prologue, the instructions relocated, `jmp resume`; and the
    address of the first relocated instruction."""
    code = prologue
    copy_entry = at + len(code)
    for i in insns:
        code += X.relocate(i, at + len(code))
    code += X.jmp32(at + len(code), resume)
    return code, copy_entry
