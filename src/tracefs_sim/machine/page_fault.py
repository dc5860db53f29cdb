"""The error code of a page fault (arch/x86/include/asm/trap_pf.h), as the CPU pushes it.

Unicorn raises the #PF and sets CR2 but keeps the error code to itself, so the machine
rebuilds it: P from the page tables (the fault was on a present page: a protection
fault), U from the privilege the fault came from, I when the bytes that could not be
fetched are the instruction's own on a page that is absent or no-execute, and W when the
faulting instruction writes memory.  That is certain for a data access to a present page
the access may read (a user page for user mode, any page for the kernel: only a write can
fault there); a fault at the very start of the page after rip's, absent, is the fetch of
an instruction further on in the block Unicorn translates; for an absent page the instruction tells (its operands as Capstone decodes
them, and the stack writes of push, call and enter), and where it would not, a write taken
for a read costs one more fault (the zero page mapped, then its copy-on-write).
"""
from __future__ import annotations

import struct
from functools import lru_cache

from .paging import PTE_NX, PTE_P, PTE_PS, PhysMem

X86_PF_PROT, X86_PF_WRITE, X86_PF_USER, X86_PF_INSTR = 0x1, 0x2, 0x4, 0x10
PTE_ADDR, PTE_U = 0x000FFFFFFFFFF000, 0x4
_U64 = struct.Struct("<Q")
# instructions that store to the stack without naming it as an operand
_STACK_WRITERS = frozenset({"push", "pushf", "pushfq", "call", "enter"})


@lru_cache(maxsize=1)
def _decoder():
    from capstone import CS_ARCH_X86, CS_MODE_64, Cs

    md = Cs(CS_ARCH_X86, CS_MODE_64)
    md.detail = True
    return md


def _leaf(mem: PhysMem, cr3: int, vaddr: int) -> int | None:
    """The page's last-level entry (None where a level is absent)."""
    table = cr3 & PTE_ADDR
    for shift in (39, 30, 21, 12):
        entry = _U64.unpack_from(mem.buf, table + 8 * ((vaddr >> shift) & 511))[0]
        if not entry & PTE_P:
            return None
        if shift != 12 and entry & PTE_PS:
            return entry
        table = entry & PTE_ADDR
    return entry


def _read(mem: PhysMem, cr3: int, vaddr: int, size: int) -> bytes:
    """Up to size bytes from vaddr, stopping at the first page that is absent."""
    out = b""
    while len(out) < size:
        entry = _leaf(mem, cr3, vaddr)
        if entry is None:
            break
        n = min(size - len(out), 0x1000 - (vaddr & 0xFFF))
        pa = (entry & PTE_ADDR) + (vaddr & 0xFFF)
        out += mem.buf[pa:pa + n]
        vaddr += n
    return out


def error_code(mem: PhysMem, cr3: int, cr2: int, rip: int, rsp: int, rsi: int, rdi: int, user: bool) -> int:
    code = X86_PF_USER if user else 0
    leaf = _leaf(mem, cr3, cr2)
    if leaf is not None:
        code |= X86_PF_PROT
    page = cr2 & ~0xFFF
    if page in (rip & ~0xFFF, (rip + 15) & ~0xFFF) and (leaf is None or leaf & PTE_NX):
        text = _read(mem, cr3, rip, 16)
        insn = next(_decoder().disasm(text, rip, 1), None) if text else None
        if insn is None or rip + insn.size > cr2:
            return code | X86_PF_INSTR  # its own bytes could not be fetched
    if leaf is None and cr2 == page == (rip & ~0xFFF) + 0x1000:
        # Unicorn translates a block of instructions ahead of the one it resumes at (rip),
        # and the block may run on into the next page: a fetch fault there comes with rip at
        # the block's start. Taken for a fetch (a data access at exactly that address costs
        # one more fault: the page mapped readable, then the access faults again on it).
        return code | X86_PF_INSTR
    if leaf is not None and (not user or leaf & PTE_U):
        return code | X86_PF_WRITE  # readable where it is: only a write faults
    text = _read(mem, cr3, rip, 16)
    insn = next(_decoder().disasm(text, rip, 1), None) if text else None
    if insn is None:
        return code
    if _writes(insn, cr2, rsp, rsi, rdi):
        code |= X86_PF_WRITE
    return code


def _writes(insn, cr2: int, rsp: int, rsi: int, rdi: int) -> bool:
    from capstone import CS_AC_WRITE
    from capstone.x86 import X86_OP_MEM

    if insn.mnemonic in _STACK_WRITERS and rsp - 64 <= cr2 < rsp:
        return True
    mnemonic = insn.mnemonic.split()[-1]
    if mnemonic[:-1] in ("movs", "cmps", "stos", "lods", "scas"):
        # string instructions: the fault is at the element in hand, at %rdi (the one
        # stored to, for movs and stos) or %rsi
        return mnemonic[:-1] in ("movs", "stos") and rdi <= cr2 < rdi + 8
    ops = insn.operands
    if ops and ops[0].type == X86_OP_MEM and insn.mnemonic.startswith(("mov", "vmov", "stos")):
        return True  # stores whose access Capstone does not always say (movups, movdqa...)
    return any(op.type == X86_OP_MEM and op.access & CS_AC_WRITE for op in ops)
