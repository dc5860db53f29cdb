"""arch_uprobe_analyze_insn() of the uprobe engine, no machine: what is emulated (call, jmp,
jcc with their displacement and condition), what is copied out of line as it is, how a
RIP-relative operand is rewritten onto a scratch register the instruction does not use, and
what is refused (ENOTSUPP)."""
import pytest

from tracefs_sim.probes import insn as X
from tracefs_sim.probes.uprobes import (ENOTSUPP, UPROBE_EMU_CALL, UPROBE_EMU_JCC, UPROBE_EMU_JMP,
                                        analyze_insn)


def asm(code: bytes) -> list[str]:
    return [f"{i.cs.mnemonic} {i.cs.op_str}".strip() for i in X.decode(code, 0)]


@pytest.mark.parametrize("code, flags, rel, cc", [
    (bytes.fromhex("e810000000"), UPROBE_EMU_CALL, 0x10, 0),
    (bytes.fromhex("e9f0ffffff"), UPROBE_EMU_JMP, -0x10, 0),
    (bytes.fromhex("ebfe"), UPROBE_EMU_JMP, -2, 0),
    (bytes.fromhex("7417"), UPROBE_EMU_JCC, 0x17, 4),
    (bytes.fromhex("0f8f00010000"), UPROBE_EMU_JCC, 0x100, 0xF),
])
def test_branches_are_emulated(code, flags, rel, cc):
    a = analyze_insn(code + b"\x90" * 8)
    assert (a.insn, a.flags, a.rel, a.cc, a.xol) == (code, flags, rel, cc, b"")


def test_plain_instructions_are_copied():
    a = analyze_insn(bytes.fromhex("4157") + b"\x90" * 8)  # push %r15
    assert (a.insn, a.flags, a.xol, a.riprel_at) == (bytes.fromhex("4157"), 0, bytes.fromhex("4157"), 0)


def test_rip_relative_goes_through_a_scratch_register():
    # glibc's write(): cmpb $0x0,0x7f2e1(%rip)
    a = analyze_insn(bytes.fromhex("803de1f2070000") + b"\x74\x17")
    assert asm(a.xol) == ["lea rsp, [rsp - 0x80]", "push rax", "movabs rax, 0", "cmp byte ptr [rax + 0x7f2e1], 0",
                          "pop rax", "lea rsp, [rsp + 0x80]"]
    assert a.xol[a.riprel_at - 2:a.riprel_at] == b"\x48\xb8"  # the movabs's 8 bytes are the original rip
    # mov 0x10(%rip),%rax uses rax: the next free register, rcx
    b = analyze_insn(bytes.fromhex("488b0510000000"))
    assert asm(b.xol)[1:5] == ["push rcx", "movabs rcx, 0", "mov rax, qword ptr [rcx + 0x10]", "pop rcx"]
    # REX.B cleared: r8's 0x10(%rip) load keeps its REX.R, the base stays the scratch register
    c = analyze_insn(bytes.fromhex("4c8b0510000000"))
    assert asm(c.xol)[3] == "mov r8, qword ptr [rax + 0x10]"


@pytest.mark.parametrize("code", [
    bytes.fromhex("cc"),            # int3
    bytes.fromhex("e2fe"),          # loop
    bytes.fromhex("ffd0"),          # call *%rax
    bytes.fromhex("ff3510000000"),  # push 0x10(%rip)
    b"\x06",                        # undecodable in 64-bit mode (push %es)
])
def test_refused(code):
    with pytest.raises(OSError) as e:
        analyze_insn(code)
    assert e.value.errno == ENOTSUPP
