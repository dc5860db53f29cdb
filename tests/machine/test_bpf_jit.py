"""The eBPF JIT of the emulated kernel (kernel/bpf/bpf_jit_comp.c, as 6.1's
arch/x86/net/bpf_jit_comp.c): a program is compiled to x86-64 in the program pack while
net.core.bpf_jit_enable is 1, interpreted while it is 0, and both give the same results: random
programs of every ALU, jump, memory and atomic instruction run both ways and leave the same
registers; division and modulo by zero as 6.1; a fault-safe load (BPF_PROBE_MEM) of a bad
kernel pointer reads 0 through the JIT's exception table; map lookups and helper calls.  The
image is listed as kallsyms lists it (`bpf_prog_<tag>_<name>`) while the program exists."""
from __future__ import annotations

import re
import struct
import time
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpf_asm import (ADD, ALU, ALU64, AND, ARSH, ATOMIC, B, CMPXCHG, DIV, DW, END, EXIT, FETCH, H, JA, JEQ,
                     JGE, JGT, JLE, JLT, JMP, JMP32, JNE, JSET, JSGE, JSGT, JSLE, JSLT, K, LSH, MAP_ARRAY,
                     MAP_HASH, MOD, MOV, MUL, NEG, OR, R0, R1, R2, R3, R10, RSH, ST, STX, SUB, W, X, XCHG, XOR,
                     FN_get_current_pid_tgid, FN_map_lookup_elem, alu64_imm, call, exit_, insn, jmp_imm,
                     ld_imm64, ld_map_fd, ldx, mov64_imm, mov64_reg, prog, st as st_imm, stx)
from bpf_btf_cases import FEXIT, PROG_TRACING, func_ids
from test_bpf import run_case
from test_bpf_trace import count_into
from test_kprobe_pmu import count, key, stacked  # noqa: F401 (the module's fixture)

PROG_RAW_TRACEPOINT = 17
PROLOGUE = "0f1f4400006690554889e5"   # nop5; nop2; push rbp; mov rbp, rsp (6.1's)


@pytest.fixture(scope="module")
def machine(stacked):
    return stacked[0]


@pytest.fixture(scope="module")
def jit_enable(machine):
    from tracefs_sim.machine.sysctls import net_core_sysctls
    return net_core_sysctls(machine)["bpf_jit_enable"]


@contextmanager
def jit(sysctl, on: bool):
    sysctl.write_at(b"1\n" if on else b"0\n")
    try:
        yield
    finally:
        sysctl.write_at(b"1\n")


def bpftest(machine, *args, stdin: str | None = None) -> list[str]:
    """bpftest's lines; stdin: what a `load ... -` reads (a program too long for an argument)"""
    return run_case(machine, [str(a) for a in args], stdin, timeout=120).splitlines()


def jinfo(line: str) -> dict[str, str]:
    assert line.startswith("jinfo: 0 "), line
    words = line.split()[2:]
    return dict(zip(words[::2], words[1::2]))


def both_ways(machine, jit_enable, *args, stdin: str | None = None) -> tuple[list[str], list[str]]:
    """bpftest's lines with the JIT, and interpreted"""
    with jit(jit_enable, True):
        jited = bpftest(machine, *args, stdin=stdin)
    with jit(jit_enable, False):
        interpreted = bpftest(machine, *args, stdin=stdin)
    return jited, interpreted


def test_the_sysctl_is_1_and_takes_0_to_2(jit_enable):
    assert jit_enable.read() == b"1\n"
    for bad in (b"-1\n", b"3\n", b"x\n"):
        with pytest.raises(OSError):
            jit_enable.write_at(bad)
    with jit(jit_enable, False):
        assert jit_enable.read() == b"0\n"
    assert jit_enable.read() == b"1\n"
    jit_enable.write_at(b"2\n")
    try:
        assert jit_enable.read() == b"2\n"
    finally:
        jit_enable.write_at(b"1\n")


def test_a_program_is_jited_and_listed_while_it_exists(machine, jit_enable):
    """6.1's prologue and epilogue; the info's image is the program's code in the pack, one
    function of jited_len bytes; the kallsyms line bpf_prog_<tag>_<name> while it is loaded"""
    from tracefs_sim.machine.bpf_jit import BpfJitSymbols
    program = prog(mov64_imm(R0, 7), alu64_imm(MUL, R0, 6), exit_())
    out: list[bytes] = []
    proc = machine.spawn(["bpftest", "load", "17", program, "N=jit_test", "jinfo", "3", "run", "3", "sleep", "3000"],
                         out.append)
    symbols = BpfJitSymbols(machine.image, machine.read_memory)
    deadline = time.monotonic() + 30
    while not any(name.endswith("_jit_test") for name, _, _ in symbols.symbols()) and time.monotonic() < deadline:
        time.sleep(0.05)
    listed = [s for s in symbols.symbols() if s[0].endswith("_jit_test")]
    image = machine.read_memory(listed[0][1], listed[0][2] - listed[0][1]) if listed else b""   # while it lives
    assert proc.wait(60) == 0
    lines = b"".join(out).decode().splitlines()
    assert lines[0] == "load: 3" and lines[2] == "run: 0 retval 42", lines
    info = jinfo(lines[1])
    code = bytes.fromhex(info["code"])
    assert info["code"].startswith(PROLOGUE) and code.endswith(b"\xc9\xc3\xcc"), info   # ... leave; ret; int3
    assert int(info["jited_len"]) == len(code) == int(info["func_len"]) and info["ksyms"] == "1"
    start = struct.unpack("<Q", bytes.fromhex(info["ksym"]))[0]
    pack = machine.image.symbol("bpf_prog_pack")
    assert pack.addr <= start < pack.addr + pack.size
    assert len(listed) == 1 and re.fullmatch(r"bpf_prog_[0-9a-f]{16}_jit_test", listed[0][0]), listed
    assert listed[0][1:] == (start, start + len(code))
    assert image == code
    # freed with the program (its file's last reference goes as bpftest exits: soon after)
    deadline = time.monotonic() + 30
    while any(s[0].endswith("_jit_test") for s in symbols.symbols()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(s[0].endswith("_jit_test") for s in symbols.symbols())


def test_interpreted_when_disabled(machine, jit_enable):
    """bpf_jit_enable 0: no image, the interpreter's address as the one function, of length 0"""
    program = prog(mov64_imm(R0, 7), alu64_imm(MUL, R0, 6), exit_())
    with jit(jit_enable, False):
        lines = bpftest(machine, "load", 17, program, "jinfo", 3, "run", 3)
    info = jinfo(lines[1])
    assert info["jited_len"] == "0" and info["func_len"] == "0" and info["ksyms"] == "1", info
    interp = struct.unpack("<Q", bytes.fromhex(info["ksym"]))[0]
    sym = machine.image.kallsyms_lookup(interp)
    assert sym is not None and sym[0].name.startswith("__bpf_prog_run") and sym[1] == 0
    assert lines[2] == "run: 0 retval 42"


def registers_out(map_fd: int) -> list[bytes]:
    """R0-R9 into the array map's value 0 (80 bytes), through the stack"""
    spill = [stx(DW, R10, r, -8 * (r + 1)) for r in range(10)]
    copy = [a for r in range(10) for a in (ldx(DW, R1, R10, -8 * (r + 1)), stx(DW, R0, R1, 8 * r))]
    return [*spill, st_imm(W, R10, -84, 0), ld_map_fd(R1, map_fd), mov64_reg(R2, R10), alu64_imm(ADD, R2, -84),
            call(FN_map_lookup_elem), jmp_imm(JEQ, R0, 0, len(copy) + 1), *copy, mov64_imm(R0, 0), exit_()]


def run_registers(machine, jit_enable, body: list[bytes]) -> tuple[str, str]:
    """the program (R0-R9 set, the body, the registers stored) run both ways: the value each
    left, and the JIT's code length"""
    program = prog(*body, *registers_out(3))
    args = ["map", MAP_ARRAY, 4, 80, 1, "load", PROG_RAW_TRACEPOINT, "-", "jinfo", 4, "run", 4,
            "get", 3, "00000000"]
    jited, interpreted = both_ways(machine, jit_enable, *args, stdin=program)
    assert jited[:2] == ["map: 3", "load: 4"], jited
    assert int(jinfo(jited[2])["jited_len"]) > 0 and jinfo(interpreted[2])["jited_len"] == "0"
    assert jited[3:] == interpreted[3:]
    assert jited[4].startswith("get: 0 "), jited
    return jited[4].split()[2], jinfo(jited[2])["jited_len"]


def regs_of(value_hex: str) -> list[int]:
    return list(struct.unpack("<10Q", bytes.fromhex(value_hex)))


def init(*values: int) -> list[bytes]:
    return [ld_imm64(r, v & (2**64 - 1)) for r, v in enumerate(values)]


def test_division_and_modulo_by_zero(machine, jit_enable):
    """6.1's: x / 0 is 0, x % 0 is x (32-bit: its low half, zero-extended); by a register (the
    verifier's guard), both widths; a 0 constant divisor is refused by the verifier"""
    a = 0x1_2345_6789_ABCD
    body = [*init(0, a, 0, a, a, a, a, 7, a, a),
            insn(ALU64 | DIV | X, 1, 2), insn(ALU64 | MOD | X, 3, 2),
            insn(ALU | DIV | X, 4, 2), insn(ALU | MOD | X, 5, 2),
            insn(ALU64 | DIV | X, 6, 7), insn(ALU | MOD | X, 8, 7), insn(ALU64 | MOD | K, 9, imm=1000)]
    value, _ = run_registers(machine, jit_enable, body)
    assert regs_of(value)[1:] == [0, 0, a, 0, a & 0xFFFFFFFF, a // 7, 7, (a & 0xFFFFFFFF) % 7, a % 1000]


# ---- random programs, JIT against interpreter ----
ALU_OPS = (ADD, SUB, MUL, OR, AND, XOR, MOV, LSH, RSH, ARSH, DIV, MOD)
JMP_OPS = (JEQ, JNE, JGT, JGE, JLT, JLE, JSGT, JSGE, JSLT, JSLE, JSET)
REG = st.integers(0, 9)
SCRATCH = range(-120, -88)   # stack bytes the program may store to and load from (set first)


@st.composite
def alu(draw):
    cls = draw(st.sampled_from((ALU, ALU64)))
    op = draw(st.sampled_from(ALU_OPS + (NEG, END)))
    dst = draw(REG)
    if op == NEG:
        return [insn(cls | NEG, dst)]
    if op == END:
        return [insn(ALU | END | draw(st.sampled_from((0x00, 0x08))), dst, imm=draw(st.sampled_from((16, 32, 64))))]
    if draw(st.booleans()):
        return [insn(cls | op | X, dst, draw(REG))]
    width = 64 if cls == ALU64 else 32
    if op in (LSH, RSH, ARSH):
        imm = draw(st.integers(0, width - 1))
    elif op in (DIV, MOD):
        imm = draw(st.integers(-2**31, 2**31 - 1).filter(bool))
    else:
        imm = draw(st.one_of(st.integers(-128, 127), st.integers(-2**31, 2**31 - 1)))
    return [insn(cls | op | K, dst, imm=imm)]


@st.composite
def memory(draw):
    size = draw(st.sampled_from((B, H, W, DW)))
    width = {B: 1, H: 2, W: 4, DW: 8}[size]
    off = draw(st.sampled_from([o for o in SCRATCH if o % width == 0 and o + width <= -88]))
    kind = draw(st.sampled_from(("stx", "st", "ldx", "atomic")))
    if kind == "stx":
        return [stx(size, R10, draw(REG), off)]
    if kind == "st":
        return [st_imm(size, R10, off, draw(st.integers(-2**31, 2**31 - 1)))]
    if kind == "ldx":
        return [ldx(size, draw(REG), R10, off)]
    size = draw(st.sampled_from((W, DW)))
    off = draw(st.sampled_from([o for o in SCRATCH if o % 8 == 0 and o + 8 <= -88]))
    op = draw(st.sampled_from((ADD, AND, OR, XOR, ADD | FETCH, AND | FETCH, OR | FETCH, XOR | FETCH, XCHG, CMPXCHG)))
    return [insn(STX | size | ATOMIC, R10, draw(REG), off, op)]


@st.composite
def program_body(draw):
    """R0-R9 random, the scratch stack set, then ALU, memory and forward jumps"""
    values = draw(st.lists(st.one_of(st.integers(0, 2**64 - 1), st.sampled_from((0, 1, 2**63, 2**32 - 1, 2**64 - 1))),
                           min_size=10, max_size=10))
    body = [*init(*values), *(st_imm(DW, R10, o, 0x5A5A5A5A) for o in range(-120, -88, 8))]
    pieces = draw(st.lists(st.one_of(alu(), alu(), memory(), st.just(None)), min_size=1, max_size=24))
    n = len(pieces)
    out: list[bytes] = []
    for i, piece in enumerate(pieces):
        if piece is not None:
            out += piece
            continue
        # a forward jump over some of what follows (to the end at most)
        later = sum(len(p) if p is not None else 1 for p in pieces[i + 1:])
        off = draw(st.integers(0, min(later, 6)))
        if draw(st.integers(0, 4)) == 0:   # (to the next: what it skipped is unreachable, refused)
            out.append(insn(JMP | JA, off=0))
            continue
        cls = draw(st.sampled_from((JMP, JMP32)))
        op = draw(st.sampled_from(JMP_OPS))
        if draw(st.booleans()):
            out.append(insn(cls | op | X, draw(REG), draw(REG), off))
        else:
            out.append(insn(cls | op | K, draw(REG), 0, off, draw(st.one_of(st.integers(-3, 3),
                                                                          st.integers(-2**31, 2**31 - 1)))))
    assert n
    # a jump's count is of instructions: the pieces are one instruction each but for ld_imm64
    return body + out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(body=program_body())
def test_random_programs_leave_the_same_registers_jited_and_interpreted(machine, jit_enable, body):
    run_registers(machine, jit_enable, body)


def test_every_conditional_jump_both_widths(machine, jit_enable):
    """each jump op, X and K, JMP and JMP32, taken or not on values that tell signed, unsigned
    and 32-bit comparisons apart: the taken ones' bits in R0"""
    cases = [(0x1_0000_0001, 1), (2**64 - 1, 1), (5, 2**63), (0x8000_0000, 0x7FFF_FFFF), (7, 7)]
    for a, b in cases:
        body = [*init(0, 0, 0, 0, 0, 0, a, b, 0, 0)]
        bit = 0
        for cls in (JMP, JMP32):
            for op in JMP_OPS:
                for src in (X, K):
                    if src == X:
                        jump = insn(cls | op | X, 6, 7, 1)
                    else:
                        jump = insn(cls | op | K, 6, 0, 1, struct.unpack("<i", struct.pack("<I", b & 0xFFFFFFFF))[0])
                    body += [jump, ja(3), mov64_imm(R1, 1), insn(ALU64 | LSH | K, 1, imm=bit),
                             insn(ALU64 | OR | X, 0, 1)]
                    bit += 1
        run_registers(machine, jit_enable, body)


def ja(off: int) -> bytes:
    return insn(JMP | JA, off=off)


def test_map_and_helper_calls(machine, jit_enable):
    """a hash map counted into (the inline lookup's call, update, atomic add) five times, and a
    helper's result (the caller's tgid): the same both ways"""
    counts = count_into(3, st_imm(W, R10, -4, 3))
    tgid = prog(call(FN_get_current_pid_tgid), alu64_imm(RSH, R0, 32), exit_())
    args = ["map", MAP_HASH, 4, 8, 8, "load", PROG_RAW_TRACEPOINT, counts, "load", PROG_RAW_TRACEPOINT, tgid,
            "jinfo", 4, "jinfo", 5, *(a for _ in range(5) for a in ("run", 4)), "get", 3, key(3), "run", 5, "pid"]
    jited, interpreted = both_ways(machine, jit_enable, *args)
    assert int(jinfo(jited[3])["jited_len"]) > 0 and int(jinfo(jited[4])["jited_len"]) > 0
    for lines in (jited, interpreted):
        assert lines[5:10] == ["run: 0 retval 0"] * 5, lines
        assert count(lines[10]) == 5
        assert lines[11] == f"run: 0 retval {int(lines[12].split()[1])}", lines


def test_a_fault_safe_load_of_a_bad_kernel_pointer_reads_0(machine, jit_enable):
    """fexit on bpf_prog_get(fd): its struct bpf_prog * (PTR_TO_BTF_ID) read directly at
    offset 0 (len) and counted under that key.  A good fd gives the program's length; a bad one
    ERR_PTR(-EBADF), a kernel address that faults: the JIT's exception table entry makes the load
    0 (the interpreter's copy_from_kernel_nofault() does too), and the kernel lives on."""
    target = func_ids(machine.image.btf(), ("bpf_prog_get",))["bpf_prog_get"]
    by_len = count_into(3, ldx(DW, R2, R1, 8), ldx(W, R3, R2, 0), stx(W, R10, R3, -4))
    load = ["load", PROG_TRACING, by_len, 0, f"A={FEXIT}:{target}"]
    for on in (True, False):
        with jit(jit_enable, on):
            # (the program's own length: for the JIT the map's lookup is inlined, 6.1's fixups)
            info = bpftest(machine, "map", MAP_HASH, 4, 8, 8, *load, "pinfo", 4)[2].split()
            xlated = int(info[info.index("xlated_len") + 1]) // 8
            lines = bpftest(machine, "map", MAP_HASH, 4, 8, 8, *load, "jinfo", 4, "rawtp", 4, "-", "rawtp", 99, "-",
                            "rawtp", 98, "-", "rawtp", 4, "-", "get", 3, key(0), "get", 3, key(xlated))
        assert (int(jinfo(lines[2])["jited_len"]) > 0) == on, lines
        assert lines[3:7] == ["rawtp: 5", "rawtp: -9", "rawtp: -9", "rawtp: -16"], lines
        assert [count(line) for line in lines[7:9]] == [2, 1], lines


def test_long_and_short_jumps_converge(machine, jit_enable):
    """jumps across more code than a short form reaches (their long forms), and others near the
    bound, forward and backward-free: the passes converge and the results are the interpreter's"""
    filler = [insn(ALU64 | ADD | K, r % 10, imm=0x12345678 + r) for r in range(60)]   # 7 bytes each
    body = [*init(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)]
    for n in (60, 17, 18, 16, 1):
        body += [insn(JMP | JGT | X, 1, 0, n), *filler[:n]]
        body += [insn(JMP | JLE | X, 1, 0, n), *filler[:n]]
    value, length = run_registers(machine, jit_enable, body)
    assert int(length) > 60 * 7


def test_gotol_jited_as_interpreted(machine, jit_enable):
    """BPF_JMP32 | BPF_JA (gotol, its offset in imm): to the next instruction, over code a short
    jump reaches and over more (its long form), and back (a loop of 3 rounds): the registers the
    interpreter leaves"""
    filler = [insn(ALU64 | ADD | K, r % 8, imm=0x12345678 + r) for r in range(40)]   # 7 bytes each
    body = [*init(1, 2, 3, 4, 5, 6, 7, 8, 0, 10)]
    for n in (40, 5):
        # (the filler reachable too, for the verifier: past the gotol were R0 > R1)
        body += [insn(JMP | JGT | X, 0, 1, 1), insn(JMP32 | JA, imm=n), *filler[:n]]
    body += [insn(JMP32 | JA, imm=0),
             insn(ALU64 | ADD | K, 8, imm=1), insn(JMP | JGE | K, 8, 0, 1, 3), insn(JMP32 | JA, imm=-3),
             insn(ALU64 | ADD | K, 9, imm=100)]
    value, length = run_registers(machine, jit_enable, body)
    assert regs_of(value) == [1, 2, 3, 4, 5, 6, 7, 8, 3, 110]
    assert int(length) > 40 * 7


def test_functions_are_jited_apart_and_listed(machine, jit_enable):
    """a program of two functions (bpf-to-bpf call): each JITed apart into an image of its own,
    the call to the callee's image; kallsyms lists the program's image under its name and the
    callee's as bpf_prog_<its own tag>_F, the names the real 6.1 gave these (reference.txt:
    call_jit_info; the real one's kallsyms: 8413f4c71a6d8933_F, 8329a28ace03d13e_twofuncs)"""
    from bpf_cases import CALL_STACK_ARG
    from tracefs_sim.machine.bpf_jit import BpfJitSymbols
    out: list[bytes] = []
    proc = machine.spawn(["bpftest", "load", "17", CALL_STACK_ARG, "N=twofuncs", "pjit", "3", "jinfo", "3", "run", "3",
                          "sleep", "3000"], out.append)
    symbols = BpfJitSymbols(machine.image, machine.read_memory)
    deadline = time.monotonic() + 30
    while not any(name.endswith("_twofuncs") for name, _, _ in symbols.symbols()) and time.monotonic() < deadline:
        time.sleep(0.05)
    listed = {name: (start, end) for name, start, end in symbols.symbols()}
    assert proc.wait(60) == 0
    lines = b"".join(out).decode().splitlines()
    assert lines[0] == "load: 3" and lines[3] == "run: 0 retval 112", lines
    info = jinfo(lines[2])
    main = struct.unpack("<Q", bytes.fromhex(info["ksym"]))[0]
    assert info["ksyms"] == "2" and info["func_lens"] == "2"
    assert listed["bpf_prog_8329a28ace03d13e_twofuncs"] == (main, main + int(info["func_len"]))
    callee = listed["bpf_prog_8413f4c71a6d8933_F"][0]
    code = bytes.fromhex(info["code"])
    main_code, callee_code = code[:int(info["func_len"])], code[int(info["func_len"]):]
    assert main_code.startswith(bytes.fromhex(PROLOGUE)) and callee_code.startswith(bytes.fromhex(PROLOGUE))
    # the main function's call (e8 rel32) lands on the callee's image
    calls = [i for i in range(len(main_code) - 4) if main_code[i] == 0xE8
             and main + i + 5 + struct.unpack("<i", main_code[i + 1:i + 5])[0] == callee]
    assert calls, main_code.hex()


@pytest.mark.parametrize("name", ["call_stack_arg", "call_twice", "call_depth_8", "call_combined_stack_ok",
                                  "call_callee_writes_caller_stack", "call_map_value_from_callee",
                                  "call_ringbuf_submit_in_callee"])
def test_calls_give_the_same_jited_and_interpreted(machine, jit_enable, name):
    """bpf-to-bpf calls: JITed (jit_subprogs) and interpreted (BPF_CALL_ARGS), the same results"""
    from bpf_cases import CASES
    jited, interpreted = both_ways(machine, jit_enable, *CASES[name])
    # (the info's xlated_len differs: the JIT's program has its map lookups inline)
    same = [[line for line in lines if not line.startswith("pinfo:")] for lines in (jited, interpreted)]
    assert any(line.startswith("run:") for line in jited) and same[0] == same[1]


def test_callbacks_need_the_jit(machine, jit_enable):
    """bpf_loop's callback runs as the callback's JITed image: with the JIT off the program is
    refused, as 6.1 without CONFIG_BPF_JIT_ALWAYS_ON refuses it (fixup_call_args())"""
    from bpf_prog_btf_cases import CB_SUM, FI3, loop_load, loop_prog
    args = loop_load(loop_prog(CB_SUM), "B=3", FI3) + ["run", "4"]
    jited, interpreted = both_ways(machine, jit_enable, *args)
    assert jited[1:] == ["load: 4 rec 8 0", jited[2], "run: 0 retval 510"], jited
    assert interpreted[1:3] == ["load: -22 rec 8 0", "| callbacks are not allowed in non-JITed programs"], interpreted


def test_tail_calls_both_ways(machine, jit_enable):
    """bpf_tail_call(): JITed (an indirect jump past the next image's frame making, the count in
    the frame) and interpreted alike: at most 33 a run; the callee-saved registers and the stack
    of the caller unwound before the next program runs in its place"""
    from bpf_cases import FN_tail_call, SELF_TAIL
    from bpf_asm import R4, R5, R6, R7, R8, R9, alu64_reg
    limit = ["map", MAP_ARRAY, 4, 8, 1, "map", 3, 4, 4, 1, "load", PROG_RAW_TRACEPOINT, SELF_TAIL,
             "upd", 4, "00000000", "05000000", "run", 5, "get", 3, "00000000"]
    jited, interpreted = both_ways(machine, jit_enable, *limit)
    assert jited == interpreted and jited[-2:] == ["run: 0 retval 7", "get: 0 2200000000000000"], (jited, interpreted)
    # the callee: its own registers and stack; the caller: more of both
    callee = prog(mov64_imm(R6, 1), mov64_imm(R7, 2), mov64_imm(R8, 3), mov64_imm(R9, 4), st_imm(DW, R10, -16, 100),
                  ldx(DW, R0, R10, -16), alu64_reg(ADD, R0, R6), alu64_reg(ADD, R0, R7),
                  alu64_reg(ADD, R0, R8), alu64_reg(ADD, R0, R9), exit_())
    caller = prog(st_imm(DW, R10, -256, 5), mov64_imm(R6, 50), mov64_imm(R7, 60), mov64_imm(R8, 70),
                  mov64_imm(R9, 80), mov64_imm(R4, 0), mov64_imm(R5, 0), ld_map_fd(R2, 3), mov64_imm(R3, 0),
                  call(FN_tail_call), ldx(DW, R0, R10, -256), exit_())
    frames = ["map", 3, 4, 4, 1, "load", PROG_RAW_TRACEPOINT, callee, "load", PROG_RAW_TRACEPOINT, caller,
              "run", 5, "upd", 3, "00000000", "04000000", "run", 5, "run", 5, "jinfo", 5]
    jited, interpreted = both_ways(machine, jit_enable, *frames)
    assert jited[3:7] == interpreted[3:7] == ["run: 0 retval 5", "upd: 0", "run: 0 retval 110", "run: 0 retval 110"]
    # the caller's prologue zeroes the count and pushes it below its stack
    code = jinfo(jited[7])["code"]
    assert code.startswith("0f1f440000" "31c0" "55" "4889e5" "4881ec00010000" "50"), code
    # with bpf-to-bpf calls: JITed only (the calls pass the count on in rax)
    from bpf_cases import TAIL_WITH_SUBPROG
    subprog = ["map", 3, 4, 4, 1, "load", PROG_RAW_TRACEPOINT, callee, "upd", 3, "00000000", "04000000",
               "load", PROG_RAW_TRACEPOINT, TAIL_WITH_SUBPROG, 1, "run", 5]
    jited, interpreted = both_ways(machine, jit_enable, *subprog)
    assert jited[-1] == "run: 0 retval 110", jited
    assert interpreted[3] == "load: -22" and "| tail_calls are not allowed in non-JITed programs with bpf-to-bpf calls" \
        in interpreted, interpreted
