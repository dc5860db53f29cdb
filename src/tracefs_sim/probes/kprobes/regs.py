"""The probed context's registers as struct pt_regs names them: read from the CPU at an int3
or a detour, or from the frame ftrace_regs_caller saved."""
from __future__ import annotations

import struct

from ...machine.hooks import REG_INDEX, HookContext

# struct pt_regs, in order: the frame ftrace_regs_caller saves, and the index the guest's
# fetch programs load a register by (KG_LOAD_REG)
PT_REGS = ("r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax", "cx", "dx",
           "si", "di", "orig_ax", "ip", "cs", "flags", "sp", "ss")
PT_REGS_FRAME = struct.Struct("<21Q")
PT_INDEX = {name: i for i, name in enumerate(PT_REGS)}
KERNEL_CS, KERNEL_DS = 0x10, 0x18
_MASK = 0xFFFFFFFFFFFFFFFF
# CPU registers as pt_regs: what a trap frame would hold besides them
_FRAME_CONSTANTS = {"orig_ax": _MASK, "ss": KERNEL_DS}
IP = REG_INDEX["ip"]


class Regs:
    """A register snapshot read by pt_regs name, with ip as the probe reports it."""

    __slots__ = ("values", "index", "ip")

    def __init__(self, values: tuple[int, ...], index: dict[str, int], ip: int):
        self.values, self.index, self.ip = values, index, ip

    def __getitem__(self, name: str) -> int:
        if name == "ip":
            return self.ip
        i = self.index.get(name)
        return _FRAME_CONSTANTS[name] if i is None else self.values[i]


def cpu_regs(ctx: HookContext) -> Regs:
    """The CPU's registers now, ip the instruction's."""
    v = ctx.regs()
    return Regs(v, REG_INDEX, v[IP])


def frame_regs(values: tuple[int, ...], ip: int) -> Regs:
    """A saved struct pt_regs (PT_REGS_FRAME unpacked), ip as the probe reports it."""
    return Regs(values, PT_INDEX, ip)
