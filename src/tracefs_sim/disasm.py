"""Disassembly of one function of the emulated kernel as its CPUs see it now: the live bytes,
in objdump's AT&T form (what Linux's documentation shows), with the code-patching sites named
— the ftrace nop5 at the entry and the tracepoints' jump labels — and what each holds.

Capstone decodes; only the rendering is ours, because Capstone's AT&T text differs from
objdump's (`nopl (%rax, %rax)` for `nopl 0x0(%rax,%rax,1)`, decimal immediates, `callq`)."""

from __future__ import annotations

import bisect
import re
import struct
from dataclasses import dataclass
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Protocol

from capstone import CS_ARCH_X86, CS_MODE_64, CS_OPT_SYNTAX_ATT, Cs, CsInsn, x86

if TYPE_CHECKING:  # (the image is read by whoever asks: this module only names its types)
    from .machine.image import KernelImage, Symbol


class _Named(Protocol):
    @property
    def name(self) -> str: ...

# The 5-byte nop at every traceable function's entry (-mfentry -mrecord-mcount) and at every
# jump label: what "off" looks like.
NOP5 = bytes.fromhex("0f1f440000")
_CALL_REL32 = 0xE8
_JMP_REL32 = 0xE9
_JMP_REL8 = 0xEB
_INT3 = 0xCC
_U64 = (1 << 64) - 1
# Segment overrides 64-bit mode ignores.
_NULL_SEGMENTS = (x86.X86_REG_CS, x86.X86_REG_DS, x86.X86_REG_ES, x86.X86_REG_SS)
# movs, cmps, stos, lods, scas, ins, outs: the operands are implicitly %ds:(%rsi), %es:(%rdi).
_STRING_OPCODES = frozenset((0x6C, 0x6D, 0x6E, 0x6F, 0xA4, 0xA5, 0xA6, 0xA7, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE, 0xAF))
_STRING_SEGMENTS = {"(%rsi)": "%ds:(%rsi)", "(%rdi)": "%es:(%rdi)"}
# Where objdump names an instruction whose size the mode fixes without Capstone's suffix.
_OBJDUMP_NAMES = {"pushfq": "pushf", "popfq": "popf", "lgdtq": "lgdt", "lidtq": "lidt",
                  "sgdtq": "sgdt", "sidtq": "sidt", "ljmpl": "ljmp", "lcalll": "lcall"}
_BYTES_PER_ROW = 7  # objdump's for x86-64
# An address as a user gives one; anything else is a symbol name (some names look like hex).
_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]+|[0-9a-fA-F]{16}")

# (symbol, offset) for an address, as KernelImage.symbolize answers.
Symbolize = Callable[[int], "tuple[_Named, int] | None"]


class DisasmError(Exception):
    """The thing asked for is not a function of the emulated kernel."""


@dataclass(frozen=True)
class Line:
    address: int
    data: bytes
    text: str      # "nopl   0x0(%rax,%rax,1)"
    note: str = ""  # objdump's "# ADDR <sym>" for a rip-relative operand


# ---------------------------------------------------------------------------------------------
# which function


def resolve_function(image: KernelImage, target: str,
                     dynamic: Sequence[tuple[str, int, int]] = ()) -> tuple[str, int, int]:
    """(name, start, end) of the kernel function named `target`, or containing the address
    `target`: 0x-prefixed hex, or the 16 hex digits /proc/kallsyms prints.  `dynamic`: code the
    kernel wrote at run time (its BPF trampolines), (name, start, end) each, looked at first."""
    address = int(target, 16) if _ADDRESS.fullmatch(target) else None
    for name, start, end in dynamic:
        if target == name or address is not None and start <= address < end:
            return name, start, end
    symbol = image.lookup(target)
    if symbol is None:
        if not _ADDRESS.fullmatch(target):
            raise DisasmError(f"{target}: no such symbol in the emulated kernel")
        hit = image.symbolize(int(target, 16))
        if hit is None:
            raise DisasmError(f"{target}: not in any function of the emulated kernel")
        symbol = hit[0]
    if not symbol.is_text:
        raise DisasmError(f"{target}: not a function (kallsyms type {symbol.type})")
    return symbol.name, symbol.addr, _function_end(image, symbol)


def _function_end(image: KernelImage, symbol: Symbol) -> int:
    if symbol.size:
        return symbol.addr + symbol.size
    # An asm label without .size runs to the next text symbol (or the end of the text).
    text = [s.addr for s in image.symbols if s.is_text]
    i = bisect.bisect_right(text, symbol.addr)
    return text[i] if i < len(text) else image.text_range[1]


def kernel_symbolizer(image: KernelImage, dynamic: Sequence[tuple[str, int, int]] = ()) -> Symbolize:
    """Names for any address in the image: code written at run time (`dynamic`: name, start,
    end), functions as KernelImage.symbolize has them, data (what a rip-relative operand
    points at) by the symbol holding it."""
    from .machine.image import Symbol
    written = [(Symbol(name, start, end - start, "t"), start, end) for name, start, end in dynamic]
    # Of the symbols starting at one address (_sdata and the first .data object), the one with
    # the largest size sorts last, so the lookup below lands on the object that holds the address.
    data = sorted((s for s in image.symbols if not s.is_text), key=lambda s: (s.addr, s.size))
    starts = [s.addr for s in data]

    def symbolize(addr: int) -> tuple[Symbol, int] | None:
        for sym, start, end in written:
            if start <= addr < end:
                return sym, addr - start
        hit = image.symbolize(addr)
        if hit is not None:
            return hit
        i = bisect.bisect_right(starts, addr) - 1
        if i >= 0 and addr < data[i].addr + max(data[i].size, 1):
            return data[i], addr - data[i].addr
        # past an object's end, before the next one: objdump names it by that object too
        # (`<new_state+0x10>`, a table's end a loop compares with)
        if i >= 0 and i + 1 < len(data) and data[i].size and addr < data[i + 1].addr:
            return data[i], addr - data[i].addr
        return None

    return symbolize


# ---------------------------------------------------------------------------------------------
# what the patch sites hold


def site_notes(image: KernelImage, start: int, code: bytes) -> dict[int, str]:
    """Address -> what the patch site there is and what its live bytes make it do."""
    end = start + len(code)
    notes: dict[int, str] = {}
    for site in image.mcount_sites.values():
        if start <= site and site + len(NOP5) <= end:
            notes[site] = f"ftrace site ({_ftrace_state(code[site - start:site - start + 5])})"
    for entry in image.jump_entries:
        if start <= entry.code and entry.code + len(NOP5) <= end:
            live = code[entry.code - start:entry.code - start + 5]
            notes[entry.code] = (f"jump label of {_key_name(image, entry.key)} "
                                 f"({_jump_state(live, entry.code, entry.target)})")
    return notes


def _ftrace_state(live: bytes) -> str:
    if live == NOP5:
        return "nop"
    if live[0] == _CALL_REL32:
        return "call"
    if live[0] == _INT3:
        return "int3: being patched"
    return "unexpected bytes"


def _jump_state(live: bytes, site: int, target: int) -> str:
    if live == NOP5:
        return "disabled"
    if live[0] == _JMP_REL32 and site + 5 + struct.unpack_from("<i", live, 1)[0] == target:
        return "enabled"
    if live[0] == _JMP_REL8 and site + 2 + struct.unpack_from("<b", live, 1)[0] == target:
        return "enabled"
    if live[0] == _INT3:
        return "int3: being patched"
    return "unexpected bytes"


def _key_name(image: KernelImage, key: int) -> str:
    # syscalls:* events ride on raw_syscalls' keys: such a key is raw_syscalls'.
    events = [f"{e.system}:{e.name}" for e in image.events
              if e.key_addr == key and e.syscall_nr is None]
    if events:
        return ", ".join(events)
    named = [s.name for s in image.symbols if s.addr == key]
    return named[0] if named else f"static key {key:#x}"


# ---------------------------------------------------------------------------------------------
# decoding and rendering


def _decoder() -> Cs:
    md = Cs(CS_ARCH_X86, CS_MODE_64)
    md.syntax = CS_OPT_SYNTAX_ATT  # also puts the detail operands in AT&T order
    md.detail = True
    return md


def disassemble(code: bytes, start: int, symbolize: Symbolize) -> list[Line]:
    """Every instruction of `code` (loaded at `start`), objdump-style; bytes that decode to
    nothing are one `(bad)` line each, as objdump shows them."""
    md = _decoder()
    lines: list[Line] = []
    offset = 0
    while offset < len(code):
        for insn in md.disasm(code[offset:], start + offset):
            lines.append(_render(insn, symbolize))
            offset += insn.size
        if offset < len(code):
            lines.append(Line(start + offset, code[offset:offset + 1], "(bad)"))
            offset += 1
    return lines


def _render(insn: CsInsn, symbolize: Symbolize) -> Line:
    if insn.opcode[0] == 0x90 and 0x66 in insn.prefix:
        return Line(insn.address, bytes(insn.bytes), "xchg   %ax,%ax")  # objdump's name for 66 90
    branch = _is_branch(insn)
    parts = _split_operands(insn.op_str)
    prefixes, note = [], ""
    # Capstone leaves implicit operands out of the detail (rep stos %eax): then keep its text.
    if len(parts) == len(insn.operands):
        parts = []
        for op in insn.operands:
            if op.type == x86.X86_OP_REG:
                reg = "%" + insn.reg_name(op.reg)
                port = op.reg == x86.X86_REG_DX and insn.insn_name() in ("in", "out")
                parts.append(f"({reg})" if port else reg)  # objdump: out %al,(%dx)
            elif op.type == x86.X86_OP_IMM and branch:
                parts.append(_target(op.imm & _U64, symbolize))
            elif op.type == x86.X86_OP_IMM:
                parts.append(f"$0x{op.imm & ((1 << (8 * (op.size or 8))) - 1):x}")
            else:
                if op.mem.segment in _NULL_SEGMENTS:
                    # Ignored in 64-bit mode; objdump shows such an override as a prefix (cs nopw).
                    prefixes.append(insn.reg_name(op.mem.segment))
                parts.append(_memory(insn, op))
                if op.mem.base == x86.X86_REG_RIP:
                    note = "# " + _target((insn.address + insn.size + op.mem.disp) & _U64, symbolize)
        if branch and insn.operands[:1] and insn.operands[0].type != x86.X86_OP_IMM:
            parts[0] = "*" + parts[0]  # an indirect call/jmp
    if insn.opcode[0] in (0xD0, 0xD1):
        # shifts by one: objdump shows no count (shr %eax), Capstone an implicit $0x1
        parts = [part for part in parts if part != "$0x1"]
    if insn.opcode[0] in _STRING_OPCODES:
        # objdump names the segments of the string operands: %ds:(%rsi), %es:(%rdi).
        parts = [_STRING_SEGMENTS.get(part, part) for part in parts]
    # A register operand tells the size, so objdump drops the suffix; a shift's count %cl does not.
    sized = parts[1:] if insn.opcode[0] in (0xD2, 0xD3) else parts
    has_register = any(re.fullmatch(r"%\w+", part) for part in sized)
    mnemonic = " ".join([*prefixes, _mnemonic(insn, branch, has_register)])
    text = f"{mnemonic:<6} {','.join(parts)}" if parts else mnemonic
    return Line(insn.address, bytes(insn.bytes), text, note)


def _split_operands(op_str: str) -> list[str]:
    """Capstone's operand text split at the commas between operands, not those in (...)."""
    return [p.replace(" ", "") for p in re.split(r",\s*(?![^()]*\))", op_str)] if op_str else []


def _is_branch(insn: CsInsn) -> bool:
    return any(g in (x86.X86_GRP_JUMP, x86.X86_GRP_CALL) for g in insn.groups)


def _memory(insn: CsInsn, op: Any) -> str:  # (a capstone X86Op)
    mem = op.mem
    segment = ""
    if mem.segment and mem.segment not in _NULL_SEGMENTS:
        segment = f"%{insn.reg_name(mem.segment)}:"
    if not mem.base and not mem.index:  # an absolute address
        return f"{segment}0x{mem.disp & _U64:x}"
    # objdump shows a displacement whenever the encoding has one, even 0 (nopl 0x0(...)).
    disp = ""
    if insn.disp_size or mem.disp:
        disp = f"-0x{-mem.disp:x}" if mem.disp < 0 else f"0x{mem.disp:x}"
    base = "%" + insn.reg_name(mem.base) if mem.base else ""
    index = f",%{insn.reg_name(mem.index)},{mem.scale}" if mem.index else ""
    return f"{segment}{disp}({base}{index})"


def _mnemonic(insn: CsInsn, branch: bool, has_register: bool) -> str:
    """Capstone always writes the size suffix; objdump only where nothing else tells the size:
    no register operand (`nopl 0x0(...)`, `cmpq $0x0,(%rax)`) — never on call/jmp/ret/push/pop,
    whose size the mode fixes."""
    *prefixes, mnemonic = insn.mnemonic.split()  # rep, lock
    # Capstone names string instructions by size (stosb, stosd); objdump by the suffix rule.
    base = mnemonic[:-1] if insn.opcode[0] in _STRING_OPCODES else insn.insn_name()
    if mnemonic in _OBJDUMP_NAMES:
        mnemonic = _OBJDUMP_NAMES[mnemonic]
    elif mnemonic[:-1] == base and mnemonic[-1] in "bwlq":  # not movzbl, cltq: part of the name
        if branch or base in ("ret", "push", "pop") or has_register or not insn.operands:
            mnemonic = base
    return " ".join([*prefixes, mnemonic])


def _target(addr: int, symbolize: Symbolize) -> str:
    """objdump's `ffffffff81004b00 <access_ok>` / `<vfs_read+0x90>`; `0x...` where no symbol is."""
    hit = symbolize(addr)
    if hit is None:
        return f"0x{addr:x}"
    symbol, offset = hit
    return f"{addr:x} <{symbol.name}{f'+0x{offset:x}' if offset else ''}>"


def format_listing(name: str, start: int, code: bytes, symbolize: Symbolize,
                   notes: dict[int, str]) -> str:
    """objdump -d's layout: a header, then `ADDR:\tBYTES\tINSN`, bytes wrapped at 7 a line as
    objdump does, with the patch-site notes after `;`."""
    out = [f"{start:016x} <{name}>:"]
    for line in disassemble(code, start, symbolize):
        row = f"{line.address:x}:\t{line.data[:_BYTES_PER_ROW].hex(' '):<21}\t{line.text}"
        if line.note:
            row += "        " + line.note  # objdump's spacing
        if line.address in notes:
            row += f"\t; {notes[line.address]}"
        out.append(row)
        for more in range(_BYTES_PER_ROW, len(line.data), _BYTES_PER_ROW):
            out.append(f"{line.address + more:x}:\t{line.data[more:more + _BYTES_PER_ROW].hex(' ')}")
    return "\n".join(out) + "\n"
