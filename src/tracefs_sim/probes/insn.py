"""x86-64 instructions for the kprobe engine (arch/x86/kernel/kprobes/core.c
and opt.c): instruction boundaries, what can be copied out of line and how,
what the kernel's int3 handler emulates (prepare_emulation()), and Linux's
can_boost() / can_optimize() rules.  Decoding is Capstone's, always of the image's original
bytes (Linux's recover_probed_instruction: a probe's own int3/jmp is never
decoded).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Protocol

from ..machine.contract import SymbolInfo

JMP32_INSN_SIZE = 5
INT3_INSN_SIZE = 1
DISP32_SIZE = 4


@cache
def _md() -> Any:  # (capstone Cs)
    """The decoder, made at the first decode (importing capstone is ~11 ms of a start that
    decodes nothing)."""
    import capstone

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.detail = True
    return md


# twobyte_is_boostable[] of arch/x86/kernel/kprobes/core.c, one row of 16 per line.
_TWOBYTE_BOOSTABLE_ROWS = (
    "0011001011000000", "0000000000000001", "1111000000000000", "0100000000000000",
    "1111111111111111", "0000000000000000", "1111111111110011", "0000111100000011",
    "0000000000000000", "1111111111111111", "1101110011011101", "1111111100011111",
    "1100000011111111", "0111010011011101", "0110010011011101", "0111010011101110",
)
_TWOBYTE_BOOSTABLE = frozenset(16 * r + c for r, row in enumerate(_TWOBYTE_BOOSTABLE_ROWS)
                               for c, bit in enumerate(row) if bit == "1")
# can_boost(): one-byte opcodes that are never boosted.
_NOT_BOOSTABLE = frozenset([0x62, 0x9A, 0xC0, 0xC1, 0xCC, 0xCD, 0xCE, 0xD0, 0xD1, 0xD2, 0xD3,
                            0xD6, 0xE8, 0xE9, 0xEB, 0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF6, 0xF7,
                            0xFE] + list(range(0x70, 0x80)) + list(range(0xD8, 0xE0))
                           + list(range(0xE0, 0xE4)))
_ADDRESS_SIZE_PREFIX, _CS_PREFIX = 0x67, 0x2E


@dataclass(frozen=True)
class Insn:
    addr: int
    raw: bytes
    cs: Any  # capstone CsInsn (detail on)

    @property
    def size(self) -> int:
        return len(self.raw)

    @property
    def end(self) -> int:
        return self.addr + len(self.raw)

    @property
    def opcode(self) -> tuple[int, ...]:
        """The opcode bytes (1, 2 or 3 of them, as Linux's insn.opcode)."""
        op = self.cs.opcode
        if op[0] != 0x0F:
            return (op[0],)
        if op[1] in (0x38, 0x3A):
            return tuple(op[:3])
        return tuple(op[:2])

    @property
    def modrm_reg(self) -> int:
        return int(self.cs.modrm >> 3) & 7

    @property
    def rip_relative(self) -> bool:
        from capstone import x86

        return any(o.type == x86.X86_OP_MEM and o.mem.base == x86.X86_REG_RIP
                   for o in self.cs.operands)

    def branch_target(self) -> int | None:
        """The target of a relative jmp/jcc/call/loop (None if not one)."""
        if not self.is_relative_branch():
            return None
        return int(self.cs.operands[0].imm) & 0xFFFFFFFFFFFFFFFF

    def is_relative_branch(self) -> bool:
        op = self.opcode
        if len(op) == 1:
            return op[0] in (0xE8, 0xE9, 0xEB) or 0x70 <= op[0] <= 0x7F or 0xE0 <= op[0] <= 0xE3
        return len(op) == 2 and 0x80 <= op[1] <= 0x8F

    def is_indirect_jump(self) -> bool:
        """insn_is_indirect_jump(): jmp *x (ff /4, ff /5)."""
        return self.opcode == (0xFF,) and self.modrm_reg in (4, 5)


@lru_cache(maxsize=4096)
def _decode_cached(code: bytes, addr: int) -> tuple[Insn, ...]:
    out = []
    for i in _md().disasm(code, addr):
        out.append(Insn(i.address, bytes(i.bytes), i))
    return tuple(out)


def decode(code: bytes, addr: int) -> tuple[Insn, ...]:
    """The instructions of code placed at addr, up to the first undecodable byte."""
    return _decode_cached(bytes(code), addr)


class TextImage(Protocol):
    """The kernel image's own bytes (never the live, patched text)."""

    def symbolize(self, addr: int) -> tuple[SymbolInfo, int] | None: ...
    def read(self, addr: int, size: int) -> bytes: ...


def function_at(image: TextImage, addr: int) -> tuple[SymbolInfo, tuple[Insn, ...]] | None:
    """The function holding addr and its instructions; None: addr is in none."""
    found = image.symbolize(addr)
    if found is None:
        return None
    sym = found[0]
    return sym, decode(image.read(sym.addr, sym.size), sym.addr)


def on_boundary(insns: tuple[Insn, ...], start: int, addr: int) -> bool:
    """can_probe(): decoding from the function start reaches addr exactly."""
    pos = start
    for i in insns:
        if pos >= addr:
            break
        if i.addr != pos:
            return False
        pos = i.end
    return pos == addr


def find(insns: tuple[Insn, ...], addr: int) -> Insn | None:
    for i in insns:
        if i.addr == addr:
            return i
    return None


def can_boost(insn: Insn) -> bool:
    """Linux's can_boost() (there are no exception tables in this kernel)."""
    op = insn.opcode
    if len(op) == 2:
        return op[1] in _TWOBYTE_BOOSTABLE
    if len(op) != 1:
        return False
    if any(p in (_CS_PREFIX, _ADDRESS_SIZE_PREFIX) for p in insn.cs.prefix if p):
        return False
    if op[0] in _NOT_BOOSTABLE:
        return False
    if op[0] == 0xFF:
        return insn.modrm_reg == 4
    return True


# ---- how the int3 path executes the probed instruction ----
EMULATE, COPY = "emulate", "copy"


def int3_strategy(insn: Insn) -> str | None:
    """prepare_emulation(): EMULATE for control flow (relative and indirect
    jmp/call, jcc, loop, ret), COPY for the rest; None for what Linux refuses
    (-EOPNOTSUPP: int3, iret, far call/jmp, VMX)."""
    op = insn.opcode
    b0 = op[0]
    if len(op) == 1:
        if b0 in (0x9A, 0xEA, 0xCC, 0xCF, 0xCA, 0xCB):
            return None
        if b0 in (0xC2, 0xC3, 0xE8, 0xE9, 0xEB) or 0x70 <= b0 <= 0x7F or 0xE0 <= b0 <= 0xE3:
            return EMULATE
        if b0 == 0xFF and insn.modrm_reg in (2, 3, 4, 5):
            if insn.modrm_reg in (3, 5):  # far indirect call/jmp
                return None
            return EMULATE
        return COPY
    if len(op) == 2:
        if 0x80 <= op[1] <= 0x8F:
            return EMULATE
        if op[1] == 0x01 and (insn.cs.modrm >> 6) == 3 and insn.modrm_reg == 0:
            return None
    return COPY


@dataclass(frozen=True)
class Emulation:
    """prepare_emulation()'s struct arch_specific_insn for an emulated instruction: op names
    the emulate_op (ifmodifiers, ret, call, jmp, jcc, loop, call_indirect, jmp_indirect); type
    is the opcode (IF modifiers), jcc.type, loop.type or indirect.reg; asize loop.asize."""
    op: str
    type: int = 0
    asize: int = 0
    rel32: int = 0


def emulation(insn: Insn) -> Emulation | None:
    """How 6.1 runs the instruction at an int3 whose single step is an int3 after its copy
    (interrupts off): emulated (the IF modifiers, which would change IF mid-step, and control
    flow), or None: its copy is stepped.  ValueError for a memory-indirect call/jmp, which
    6.1 does not emulate (-EOPNOTSUPP)."""
    op = insn.opcode
    b0 = op[0]
    target = insn.branch_target()
    rel32 = 0 if target is None else ((target - insn.end + (1 << 63)) & _MASK) - (1 << 63)
    if len(op) == 2:
        return Emulation("jcc", op[1] & 0xF, rel32=rel32) if 0x80 <= op[1] <= 0x8F else None
    if len(op) != 1:
        return None
    if b0 in (0xFA, 0xFB, 0x9C, 0x9D):
        return Emulation("ifmodifiers", b0)
    if b0 in (0xC2, 0xC3):
        return Emulation("ret")
    if b0 == 0xE8:
        return Emulation("call", rel32=rel32)
    if b0 in (0xE9, 0xEB):
        return Emulation("jmp", rel32=rel32)
    if 0x70 <= b0 <= 0x7F:
        return Emulation("jcc", b0 & 0xF, rel32=rel32)
    if 0xE0 <= b0 <= 0xE3:
        return Emulation("loop", b0 & 3, asize=8 * insn.cs.addr_size, rel32=rel32)
    if b0 == 0xFF and insn.modrm_reg in (2, 4):
        if insn.cs.modrm >> 6 != 3:
            raise ValueError("memory-indirect call/jmp")
        reg = (insn.cs.modrm & 7) | (insn.cs.rex & 1) << 3
        return Emulation("call_indirect" if insn.modrm_reg == 2 else "jmp_indirect", reg)
    return None


def relocate(insn: Insn, new_addr: int) -> bytes:
    """The instruction's bytes to run at new_addr: a RIP-relative displacement
    adjusted so that it still reaches the same address.  ValueError if the
    displacement no longer fits (never, within kernel text)."""
    if not insn.rip_relative:
        return insn.raw
    off = insn.cs.disp_offset
    disp = struct.unpack_from("<i", insn.raw, off)[0]
    new = disp + insn.addr - new_addr
    if not -(1 << 31) <= new < (1 << 31):
        raise ValueError("displacement out of range")
    return insn.raw[:off] + struct.pack("<i", new) + insn.raw[off + 4:]


def rel32(at: int, size: int, target: int) -> bytes:
    disp = target - (at + size)
    if not -(1 << 31) <= disp < (1 << 31):
        raise ValueError("branch out of range")
    return struct.pack("<i", disp)


def jmp32(at: int, target: int) -> bytes:
    return b"\xe9" + rel32(at, 5, target)


def call32(at: int, target: int) -> bytes:
    return b"\xe8" + rel32(at, 5, target)


def can_optimize(insns: tuple[Insn, ...], func_start: int, func_size: int, paddr: int) -> bool:
    """can_optimize() of opt.c: room for a 5-byte jmp before the function
    end, no indirect jump in the function, no jump into the bytes after the
    first one that the jmp replaces."""
    if func_size - (paddr - func_start) < JMP32_INSN_SIZE:
        return False
    lo, hi = paddr + INT3_INSN_SIZE, paddr + INT3_INSN_SIZE + DISP32_SIZE
    covered = func_start
    for i in insns:
        if i.addr >= func_start + func_size:
            break
        if i.is_indirect_jump():
            return False
        target = i.branch_target()
        if target is not None and lo <= target < hi:
            return False
        covered = i.end
    return covered >= func_start + func_size


def optimized_insns(insns: tuple[Insn, ...], paddr: int) -> list[Insn] | None:
    """copy_optimized_instructions(): the instructions the 5-byte jmp
    displaces, each boostable; None if one is not."""
    out, length = [], 0
    while length < JMP32_INSN_SIZE:
        i = find(insns, paddr + length)
        if i is None or not can_boost(i):
            return None
        out.append(i)
        length += i.size
    return out


_MASK = 0xFFFFFFFFFFFFFFFF
