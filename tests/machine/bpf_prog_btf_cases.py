"""BPF_PROG_LOAD of a program with its own BTF (prog_btf_fd, func_info, line_info), run as
`bpftest ARGS...` both in the emulated kernel and on the real Linux 6.1:
`python3 tests/machine/bpf_prog_btf_cases.py` captures what 6.1 answers (errnos, verifier logs,
BPF_OBJ_GET_INFO_BY_FD's records) into tests/data/bpf/prog_btf_reference.txt through
../shared/tools/real-tracefs.  Each case loads BTF (fd 3) first, then the program (fd 4)."""
from __future__ import annotations

import struct

from bpf_asm import (ADD, ALU64, AND, B, DIV, DW, JEQ, JNE, MUL, R0, R1, R2, R3, R4, R5, R6, R7, R10, W, X, alu64_imm, alu64_reg, call,
                     call_pseudo, exit_, insn, ja, jmp_imm, ld_imm64, ldx, mov64_imm, mov64_reg, prog, st, stx)
from bpf_btf_load_cases import FUNC, FUNC_PROTO, PTR, STRUCT, Strings, blob, capture, int_t, t, u32s

KPROBE = "2"
# the program's source: its file, its lines (as clang writes them: indented)
S = Strings("int", "handle_the_event_with_a_long_name", "prog.c", "int handle(struct pt_regs *ctx)",
            "\tlong a = 0, b = 1;", "\ta /= b;", "  \t return a + 5;", "}")
# [1] int, [2] int (void), [3] FUNC handle_the_event_with_a_long_name (global)
BTF = blob(int_t(S.off("int")) + t(0, FUNC_PROTO, size_type=1) +
           t(S.off("handle_the_event_with_a_long_name"), FUNC, vlen=1, size_type=2), S.data)
BTF_LOAD = ["btf", BTF, "0"]
FUNC_ID = 3

# 0-1: a, b; 2: a /= b (6.1 makes it 4 instructions: a divisor of 0 gives 0); 3-4: ld_imm64; 5-6
PROG = prog(mov64_imm(R0, 0), mov64_imm(R1, 1), insn(ALU64 | DIV | X, R0, R1), ld_imm64(R2, 5),
            alu64_imm(ADD, R0, 5), exit_())
LINES = [(0, "int handle(struct pt_regs *ctx)"), (1, "\tlong a = 0, b = 1;"), (2, "\ta /= b;"),
         (3, "  \t return a + 5;"), (6, "}")]


def finfo(*recs: tuple[int, int], tail: bytes = b"") -> str:
    """func_info records (insn_off, type_id), each followed by tail"""
    return b"".join(struct.pack("<II", off, tid) + tail for off, tid in recs).hex()


def linfo(*recs: tuple[int, str] | tuple[int, int, int], tail: bytes = b"") -> str:
    """line_info records: (insn_off, source line) in prog.c at line 10 + i, col 2; or raw
    (insn_off, file_name_off, line_off)"""
    out = b""
    for i, r in enumerate(recs):
        if len(r) == 2:
            off, line = r  # type: ignore[misc]
            out += struct.pack("<IIII", off, S.off("prog.c"), S.off(line), (10 + i) << 10 | 2)
        else:
            off, file_off, line_off = r  # type: ignore[misc]
            out += struct.pack("<IIII", off, file_off, line_off, 0)
        out += tail
    return out.hex()


FI = f"FI=8:1:{finfo((0, FUNC_ID))}"
LI = f"LI=16:{len(LINES)}:{linfo(*LINES)}"


def load(*opts: str, level: str = "1", program: str = PROG) -> list[str]:
    return BTF_LOAD + ["load", KPROBE, program, level, *opts]


def pbtf(nf: int = 2, nl: int = 8, nj: int = 8, frs: int = 8, lrs: int = 16, jrs: int = 8) -> list[str]:
    return ["pbtf", "4"] + [str(v) for v in (nf, nl, nj, frs, lrs, jrs)]


# two functions (a bpf-to-bpf call of a static one): [1] int, [2] int (void), [3] FUNC handle
# (global), [4] FUNC twice (static); a func_info record and source lines for each
S2 = Strings("int", "handle", "twice", "prog.c", "int handle(struct pt_regs *ctx)", "\treturn twice(3) + 1;",
             "static __noinline int twice(int x)", "\treturn x * 2;")
BTF2 = blob(int_t(S2.off("int")) + t(0, FUNC_PROTO, size_type=1) + t(S2.off("handle"), FUNC, vlen=1, size_type=2) +
            t(S2.off("twice"), FUNC, vlen=0, size_type=2), S2.data)
# 0: r1 = 3; 1: call twice; 2: r0 += 1; 3: exit; twice: 4: r0 = r1; 5: r0 += r1; 6: exit
PROG2 = prog(mov64_imm(R1, 3), call_pseudo(2), alu64_imm(ADD, R0, 1), exit_(),
             mov64_reg(R0, R1), insn(ALU64 | ADD | X, R0, R1), exit_())


def linfo2(*recs: tuple[int, str]) -> str:
    return b"".join(struct.pack("<IIII", off, S2.off("prog.c"), S2.off(line), (20 + i) << 10 | 1)
                    for i, (off, line) in enumerate(recs)).hex()


FI2 = f"FI=8:2:{finfo((0, 3), (4, 4))}"
LI2 = f"LI=16:4:{linfo2((0, 'int handle(struct pt_regs *ctx)'), (1, chr(9) + 'return twice(3) + 1;'), (4, 'static __noinline int twice(int x)'), (5, chr(9) + 'return x * 2;'))}"


def load2(*opts: str, level: str = "1") -> list[str]:
    return ["btf", BTF2, "0", "load", KPROBE, PROG2, level, *opts]


# bpf_loop (helper 181): a callback, ld_imm64 of BPF_PSEUDO_FUNC, a static function of the BTF:
# [1] int, [2] int (void), [3] FUNC sum (global), [4] FUNC cb (static).  (Level 1 logs: 6.1's
# level 2 shows its precision tracking, which this verifier has not; a global callback: 6.1
# verifies global functions apart, this verifier not yet.)
FN_loop, PSEUDO_FUNC, RAW_TP = 181, 4, "17"
S3 = Strings("int", "sum", "cb")
BTF3 = blob(int_t(S3.off("int")) + t(0, FUNC_PROTO, size_type=1) + t(S3.off("sum"), FUNC, vlen=1, size_type=2) +
            t(S3.off("cb"), FUNC, vlen=0, size_type=2), S3.data)


def loop_prog(cb: list[bytes], nr: int = 5, flags: int = 0) -> str:
    """fp-8 = 0; r0 = bpf_loop(nr, cb, fp-8, flags); r0 * 100 + fp-8"""
    return prog(st(DW, R10, -8, 0), mov64_imm(R1, nr), ld_imm64(R2, 9, PSEUDO_FUNC), mov64_reg(R3, R10),
                alu64_imm(ADD, R3, -8), mov64_imm(R4, flags), call(FN_loop), ldx(DW, R1, R10, -8),
                alu64_imm(MUL, R0, 100), alu64_reg(ADD, R0, R1), exit_(), *cb)


# the callback (index, ctx): *ctx += index; 0 (on), or 1 (stop) at index 2
CB_SUM = [ldx(DW, R3, R2, 0), alu64_reg(ADD, R3, R1), stx(DW, R2, R3, 0), mov64_imm(R0, 0), exit_()]
CB_STOP = [ldx(DW, R3, R2, 0), alu64_reg(ADD, R3, R1), stx(DW, R2, R3, 0), mov64_imm(R0, 0),
           jmp_imm(JNE, R1, 2, 1), mov64_imm(R0, 1), exit_()]
CB_RET_2 = [mov64_imm(R0, 2), exit_()]
# the callback calls a static function (twice its index, added to *ctx): a third frame
CB_CALLS = [mov64_reg(R6, R2), call_pseudo(5), ldx(DW, R3, R6, 0), alu64_reg(ADD, R3, R0), stx(DW, R6, R3, 0),
            mov64_imm(R0, 0), exit_(), mov64_reg(R0, R1), alu64_reg(ADD, R0, R1), exit_()]
FI3 = f"FI=8:2:{finfo((0, 3), (12, 4))}"
# [5] FUNC twice (static), for the callback's own call
BTF4 = blob(int_t(S3.off("int")) + t(0, FUNC_PROTO, size_type=1) + t(S3.off("sum"), FUNC, vlen=1, size_type=2) +
            t(S3.off("cb"), FUNC, vlen=0, size_type=2) + t(S3.off("sum"), FUNC, vlen=0, size_type=2), S3.data)


def bytes_insns(hexprog: str) -> list[bytes]:
    """a program's instructions again, each as bytes"""
    raw = bytes.fromhex(hexprog)
    return [raw[i:i + 8] for i in range(0, len(raw), 8)]


def loop_load(program: str, *opts: str, level: str = "1") -> list[str]:
    return ["btf", BTF3, "0", "load", RAW_TP, program, level, *opts]


# bpf_for_each_map_elem (helper 164): map fd 4 (after the BTF), its callback (map, key, value,
# ctx) the static function at 13; fp-8 the context
FN_for_each_map_elem = 164


def for_each_prog(cb: list[bytes], flags: int = 0, fd: int = 4) -> str:
    """fp-8 = 0; r0 = bpf_for_each_map_elem(map fd, cb, fp-8, flags); r0 * 100 + fp-8"""
    return prog(st(DW, R10, -8, 0), ld_imm64(R1, fd, 1), ld_imm64(R2, 9, PSEUDO_FUNC), mov64_reg(R3, R10),
                alu64_imm(ADD, R3, -8), mov64_imm(R4, flags), call(FN_for_each_map_elem), ldx(DW, R1, R10, -8),
                alu64_imm(MUL, R0, 100), alu64_reg(ADD, R0, R1), exit_(), *cb)


# *ctx += *value + *key * 1000 (a u32 key); 0 (on), or 1 (stop) at the first
CB_EACH_SUM = [ldx(DW, R0, R4, 0), ldx(DW, R5, R3, 0), alu64_reg(ADD, R0, R5), ldx(W, R5, R2, 0),
               alu64_imm(MUL, R5, 1000), alu64_reg(ADD, R0, R5), stx(DW, R4, R0, 0), mov64_imm(R0, 0), exit_()]
CB_EACH_STOP = CB_EACH_SUM[:-2] + [mov64_imm(R0, 1), exit_()]
# *value += 1 (the map's own memory)
# each element deleted as it is visited (the map's own delete, R1 the map, R2 the key)
CB_EACH_DELETE = [call(3), mov64_imm(R0, 0), exit_()]
CB_EACH_INC = [ldx(DW, R0, R3, 0), alu64_imm(ADD, R0, 1), stx(DW, R3, R0, 0), mov64_imm(R0, 0), exit_()]
# the value looked up again by the key (R1 the map, R2 a key for its helpers), added to *ctx
CB_EACH_LOOKUP = [mov64_reg(R6, R4), call(1), jmp_imm(JEQ, R0, 0, 4), ldx(DW, R0, R0, 0), ldx(DW, R1, R6, 0),
                  alu64_reg(ADD, R1, R0), stx(DW, R6, R1, 0), mov64_imm(R0, 0), exit_()]
FI_EACH = f"FI=8:2:{finfo((0, 3), (13, 4))}"
U64 = lambda v: struct.pack("<Q", v).hex()  # noqa: E731
U32 = lambda v: struct.pack("<I", v).hex()  # noqa: E731


def for_each_load(map_args: list[str], program: str, *opts: str, cpus: list[str] = []) -> list[str]:
    return [*cpus, "btf", BTF3, "0", "map", *map_args, "load", RAW_TP, program, "1", "B=3", FI_EACH, *opts]


def filled(map_args: list[str], entries: dict[int, str]) -> list[str]:
    return map_args + [a for k, v in entries.items() for a in ("upd", "4", U32(k), v)]


ARRAY4 = filled(["2", "4", "8", "4"], {0: U64(1), 1: U64(20), 3: U64(300)})
HASH3 = filled(["1", "4", "8", "8"], {7: U64(5), 9: U64(60), 12: U64(700)})
PERCPU_ARRAY2 = filled(["6", "4", "8", "2"], {1: U64(40) + U64(40)})
PERCPU_HASH2 = filled(["5", "4", "8", "4"], {3: U64(8) + U64(8), 4: U64(90) + U64(90)})
LRU_HASH2 = filled(["9", "4", "8", "4"], {2: U64(11), 6: U64(22)})


# global functions (BTF_FUNC_GLOBAL linkage): verified apart on their BTF prototype, each call
# checked against it.  [1] int, [2] int (void), [3] FUNC handle (global), [4] struct
# bpf_raw_tracepoint_args (the context), [5] its pointer, [6] int *, [7] int (int x, ctx *,
# int *p), [8] FUNC g (global), [9] FUNC g (static), [10] void (int x), [11] FUNC gv (global),
# [12] struct s (4 bytes), [13] void *, [14] int (void *p), [15] FUNC gp (global), [16] int (6
# ints), [17] FUNC g6 (global), [18] int (struct s), [19] FUNC gs (global)
SG = Strings("int", "handle", "bpf_raw_tracepoint_args", "x", "ctx", "p", "g", "gv", "s", "gp", "g6", "gs")
GBTF = blob(int_t(SG.off("int")) + t(0, FUNC_PROTO, size_type=1) + t(SG.off("handle"), FUNC, vlen=1, size_type=2) +
            t(SG.off("bpf_raw_tracepoint_args"), STRUCT, size_type=8) + t(0, PTR, size_type=4) + t(0, PTR, size_type=1) +
            t(0, FUNC_PROTO, vlen=3, size_type=1) + u32s(SG.off("x"), 1, SG.off("ctx"), 5, SG.off("p"), 6) +
            t(SG.off("g"), FUNC, vlen=1, size_type=7) + t(SG.off("g"), FUNC, vlen=0, size_type=7) +
            t(0, FUNC_PROTO, vlen=1, size_type=0) + u32s(SG.off("x"), 1) + t(SG.off("gv"), FUNC, vlen=1, size_type=10) +
            t(SG.off("s"), STRUCT, size_type=4) + t(0, PTR, size_type=0) +
            t(0, FUNC_PROTO, vlen=1, size_type=1) + u32s(SG.off("p"), 13) + t(SG.off("gp"), FUNC, vlen=1, size_type=14) +
            t(0, FUNC_PROTO, vlen=6, size_type=1) + u32s(*[a for _ in range(6) for a in (SG.off("x"), 1)]) +
            t(SG.off("g6"), FUNC, vlen=1, size_type=16) +
            t(0, FUNC_PROTO, vlen=1, size_type=1) + u32s(SG.off("x"), 12) + t(SG.off("gs"), FUNC, vlen=1, size_type=18),
            SG.data)


def global_prog(r1: bytes = mov64_imm(R1, 7), r2: bytes = mov64_reg(R2, R6),
                r3: list[bytes] = [mov64_reg(R3, R10), alu64_imm(ADD, R3, -8)],
                body: list[bytes] | None = None) -> str:
    """fp-8 = 5; r0 = g(r1, r2, r3) (a call of the function at 8); g: x + (p ? *p : 0)"""
    main = [mov64_reg(R6, R1), st(DW, R10, -8, 5), r1, r2, *r3]
    main += [mov64_imm(R7, 0)] * (6 - len(main))
    assert len(main) == 6
    g = body if body is not None else [mov64_reg(R0, R1), jmp_imm(JEQ, R3, 0, 2), ldx(W, R4, R3, 0),
                                       alu64_reg(ADD, R0, R4), exit_()]
    return prog(*main, call_pseudo(1), exit_(), *g)


def global_load(program: str, func_type: int = 8, level: str = "1") -> list[str]:
    return ["btf", GBTF, "0", "load", RAW_TP, program, level, "B=3", f"FI=8:2:{finfo((0, 3), (8, func_type))}"]


# tail calls in a function (bpf_tail_call, helper 12): [1] int, [2] int (void), [3] FUNC handle
# (global), [4] FUNC sub (static, int), [5] void (void), [6] FUNC vsub (static, void); the
# program array is fd 4 (after the BTF), the program it holds fd 5
S_TAIL = Strings("int", "handle", "sub", "vsub")
BTF_TAIL = blob(int_t(S_TAIL.off("int")) + t(0, FUNC_PROTO, size_type=1) +
                t(S_TAIL.off("handle"), FUNC, vlen=1, size_type=2) + t(S_TAIL.off("sub"), FUNC, vlen=0, size_type=2) +
                t(0, FUNC_PROTO, size_type=0) + t(S_TAIL.off("vsub"), FUNC, vlen=0, size_type=5), S_TAIL.data)


def sub_tail_load(stack: int = 0, sub_type: int = 4) -> list[str]:
    """main: (8 bytes at -stack), sub(ctx) + 100; sub: bpf_tail_call(ctx, fd 4, 0), else 1"""
    main = [st(DW, R10, -stack, 0)] if stack else []
    program = prog(*main, call_pseudo(2), alu64_imm(ADD, R0, 100), exit_(), ld_imm64(R2, 4, 1), mov64_imm(R3, 0),
                   call(12), mov64_imm(R0, 1), exit_())
    sub = len(main) + 3
    return ["btf", BTF_TAIL, "0", "map", "3", "4", "4", "1", "load", RAW_TP, prog(mov64_imm(R0, 42), exit_()),
            "upd", "4", "00000000", "05000000",
            "load", RAW_TP, program, "1", "B=3", f"FI=8:2:{finfo((0, 3), (sub, sub_type))}"]


def cases() -> dict[str, list[str]]:
    c: dict[str, list[str]] = {
        # a program with its BTF: the log's source lines (level 2 keeps a passing path's log), the
        # records as it runs (after a /= b became 4 instructions), the JIT's address of each line
        "prog_btf_lines_level2": load("B=3", FI, LI, level="2") + pbtf(),
        "prog_btf_no_log": load("B=3", FI, LI, level="0") + pbtf(),
        "prog_btf_func_only": load("B=3", FI) + pbtf(),
        "prog_btf_lines_only": load("B=3", LI) + pbtf(),
        # prog_btf_fd without records is not looked at
        "prog_btf_fd_alone": load("B=3") + pbtf() + ["load", KPROBE, prog(mov64_imm(R0, 0), exit_()), "1", "B=99"],
        # the failing path at level 1, each line once before its first instruction
        "prog_btf_lines_fail": load("B=3", FI, f"LI=16:3:{linfo((0, LINES[0][1]), (1, LINES[1][1]), (2, LINES[4][1]))}",
                                    program=prog(mov64_imm(R1, 1), ja(0), exit_())),
        "prog_btf_infinite_loop": load("B=3", FI, f"LI=16:2:{linfo((0, LINES[0][1]), (1, LINES[3][1]))}",
                                       program=prog(mov64_imm(R0, 0), jmp_imm(JEQ, R0, 0, -1), exit_())),
        "prog_btf_ctx_access": load("B=3", FI, f"LI=16:2:{linfo((0, LINES[0][1]), (1, LINES[1][1]))}",
                                    program=prog(mov64_imm(R0, 0), ldx(DW, R0, R1, 4096), exit_())),
        # the program keeps its BTF object: it lives on, by its id, after its fd is closed, and goes
        # with the program
        "prog_btf_holds_its_btf": load("B=3", FI, level="0") + ["close", "3"] + pbtf(0, 0, 0) +
        ["bfdlast", "close", "3", "close", "4", "bfdlast"],
        # prog_btf_fd: no fd, not a BTF, vmlinux's
        "prog_btf_bad_fd": load("B=99", FI) + ["load", KPROBE, PROG, "1", "B=1", FI],
        "prog_btf_vmlinux": BTF_LOAD + ["bfd", "1", "load", KPROBE, PROG, "1", "B=4", FI],
        # func_info
        "prog_btf_func_cnt": load("B=3", f"FI=8:2:{finfo((0, FUNC_ID), (3, FUNC_ID))}"),
        "prog_btf_func_rec_small": load("B=3", f"FI=4:1:{finfo((0, FUNC_ID))}"),
        "prog_btf_func_rec_odd": load("B=3", f"FI=10:1:{finfo((0, FUNC_ID), tail=bytes(2))}"),
        "prog_btf_func_rec_big": load("B=3", f"FI=256:1:{finfo((0, FUNC_ID))}"),
        "prog_btf_func_rec_tail_zero": load("B=3", f"FI=12:1:{finfo((0, FUNC_ID), tail=bytes(4))}") + pbtf(),
        "prog_btf_func_rec_tail": load("B=3", f"FI=12:1:{finfo((0, FUNC_ID), tail=b'1234')}"),
        "prog_btf_func_insn_off": load("B=3", f"FI=8:1:{finfo((1, FUNC_ID))}"),
        "prog_btf_func_not_func": load("B=3", f"FI=8:1:{finfo((0, 1))}"),
        "prog_btf_func_no_type": load("B=3", f"FI=8:1:{finfo((0, 99))}"),
        # line_info
        "prog_btf_line_rec_small": load("B=3", FI, f"LI=12:1:{linfo((0, LINES[0][1]))}"),
        "prog_btf_line_rec_odd": load("B=3", FI, f"LI=18:1:{linfo((0, LINES[0][1]), tail=bytes(2))}"),
        "prog_btf_line_rec_tail_zero": load("B=3", FI, f"LI=20:2:{linfo(*LINES[:2], tail=bytes(4))}") + pbtf(),
        "prog_btf_line_rec_tail": load("B=3", FI, f"LI=20:2:{linfo(*LINES[:2], tail=bytes(3) + b'x')}"),
        "prog_btf_line_cnt_huge": load("B=3", FI, f"LI=16:{0x8000000}:{linfo(LINES[0])}"),
        "prog_btf_line_order": load("B=3", FI, f"LI=16:3:{linfo(LINES[0], LINES[2], LINES[1])}"),
        "prog_btf_line_same": load("B=3", FI, f"LI=16:2:{linfo(LINES[0], LINES[0])}"),
        "prog_btf_line_past_end": load("B=3", FI, f"LI=16:2:{linfo(LINES[0], (7, LINES[1][1]))}"),
        "prog_btf_line_ld_imm64": load("B=3", FI, f"LI=16:2:{linfo(LINES[0], (4, LINES[1][1]))}"),
        "prog_btf_line_off": load("B=3", FI, f"LI=16:1:{linfo((0, S.off('prog.c'), len(S.data)))}"),
        "prog_btf_line_file_off": load("B=3", FI, f"LI=16:1:{linfo((0, 1000, S.off('}')))}"),
        "prog_btf_line_missing_func": load("B=3", FI, f"LI=16:1:{linfo(LINES[1])}"),
        # two functions: a record each, each function's lines (and its name in kallsyms)
        "prog_btf_two_funcs": load2("B=3", FI2, LI2, level="2") + pbtf(2, 8, 0) + ["pjit", "4", "run", "4"],
        "prog_btf_two_funcs_one_record": load2("B=3", f"FI=8:1:{finfo((0, 3))}"),
        "prog_btf_two_funcs_layout": load2("B=3", f"FI=8:2:{finfo((0, 3), (3, 4))}"),
        "prog_btf_two_funcs_line_missing": load2("B=3", FI2, f"LI=16:2:{linfo2((0, 'int handle(struct pt_regs *ctx)'), (1, chr(9) + 'return twice(3) + 1;'))}"),
        # bpf_loop: the callback verified as a frame of its own (R1 the index, R2 the context,
        # R0 0 or 1), JITed, called by the helper
        "loop_sum": loop_load(loop_prog(CB_SUM), "B=3", FI3) + ["pjit", "4", "run", "4"],
        "loop_stop": loop_load(loop_prog(CB_STOP), "B=3", FI3) + ["run", "4"],
        # flags: -EINVAL; past 8M loops: -E2BIG; none: 0
        "loop_flags": loop_load(loop_prog(CB_SUM, flags=1), "B=3", FI3) + ["run", "4"],
        "loop_too_many": loop_load(loop_prog(CB_SUM, nr=(8 << 20) + 1), "B=3", FI3) + ["run", "4"],
        "loop_none": loop_load(loop_prog(CB_SUM, nr=0), "B=3", FI3) + ["run", "4"],
        "loop_cb_ret_2": loop_load(loop_prog(CB_RET_2), "B=3", FI3),
        "loop_no_btf": ["load", RAW_TP, loop_prog(CB_SUM), "1"],
        "loop_cb_calls": ["btf", BTF4, "0", "load", RAW_TP, loop_prog(CB_CALLS), "1", "B=3",
                          f"FI=8:3:{finfo((0, 3), (12, 4), (19, 5))}", "pjit", "4", "run", "4"],
        # flags a known 0 and one callback: 6.1 inlines the loop (optimize_bpf_loop()), its
        # xlated program the loop with R6-R8 spilled past the stack, the callback a bpf-to-bpf
        # call; the stack 24 bytes deeper (level 4: the stats)
        "loop_inlined": loop_load(loop_prog(CB_SUM), "B=3", FI3, level="4") + ["pxlated", "4", "run", "4"],
        "loop_inlined_stop": loop_load(loop_prog(CB_STOP), "B=3", FI3, level="4") + ["run", "4"],
        # a function's stack not a multiple of 8: the spills 8-aligned past it
        "loop_inlined_odd_stack": loop_load(prog(st(B, R10, -11, 1), *bytes_insns(loop_prog(CB_SUM))), "B=3",
                                            f"FI=8:2:{finfo((0, 3), (13, 4))}", level="4") + ["pxlated", "4", "run", "4"],
        # flags not 0 on a path: the helper called
        "loop_not_inlined": loop_load(prog(call(7), alu64_imm(AND, R0, 1), mov64_reg(R4, R0), st(DW, R10, -8, 0),
                                           mov64_imm(R1, 5), ld_imm64(R2, 6, PSEUDO_FUNC), mov64_reg(R3, R10),
                                           alu64_imm(ADD, R3, -8), call(FN_loop), ldx(DW, R0, R10, -8), exit_(),
                                           *CB_SUM), "B=3", f"FI=8:2:{finfo((0, 3), (12, 4))}", level="4"),
        # the callback's context: what bpf_loop was given, here NULL
        "loop_ctx_null": loop_load(prog(mov64_imm(R1, 5), ld_imm64(R2, 5, PSEUDO_FUNC), mov64_imm(R3, 0),
                                        mov64_imm(R4, 0), call(FN_loop), exit_(), *CB_SUM), "B=3",
                                   f"FI=8:2:{finfo((0, 3), (7, 4))}"),
        # bpf_for_each_map_elem: each element (arrays all their indexes), the callback verified
        # as a frame of its own (R1 the map, R2 the key, read only, R3 the value, R4 the
        # context), the elements visited; a per-cpu map's value this cpu's
        "for_each_array": for_each_load(ARRAY4, for_each_prog(CB_EACH_SUM), "run", "5"),
        "for_each_hash": for_each_load(HASH3, for_each_prog(CB_EACH_SUM), "run", "5"),
        "for_each_percpu_array": for_each_load(PERCPU_ARRAY2, for_each_prog(CB_EACH_SUM), "run", "5",
                                               cpus=["cpus", "2"]),
        "for_each_percpu_hash": for_each_load(PERCPU_HASH2, for_each_prog(CB_EACH_SUM), "run", "5",
                                              cpus=["cpus", "2"]),
        "for_each_lru_hash": for_each_load(LRU_HASH2, for_each_prog(CB_EACH_SUM), "run", "5"),
        "for_each_empty_hash": for_each_load(["1", "4", "8", "8"], for_each_prog(CB_EACH_SUM), "run", "5"),
        "for_each_stop": for_each_load(ARRAY4, for_each_prog(CB_EACH_STOP), "run", "5"),
        "for_each_writes_values": for_each_load(HASH3, for_each_prog(CB_EACH_INC), "run", "5", "run", "5",
                                                "get", "4", U32(9)),
        "for_each_deletes": for_each_load(HASH3, for_each_prog(CB_EACH_DELETE), "run", "5", "run", "5",
                                          "next", "4", "-"),
        "for_each_lookup_by_key": for_each_load(HASH3, for_each_prog(CB_EACH_LOOKUP), "run", "5"),
        "for_each_flags": for_each_load(ARRAY4, for_each_prog(CB_EACH_SUM, flags=1), "run", "5"),
        # what the callback may not do; maps it does not take
        "for_each_write_key": for_each_load(ARRAY4, for_each_prog([st(W, R2, 0, 1), mov64_imm(R0, 0), exit_()])),
        "for_each_key_bounds": for_each_load(ARRAY4, for_each_prog([ldx(W, R0, R2, 4), mov64_imm(R0, 0), exit_()])),
        "for_each_value_bounds": for_each_load(ARRAY4, for_each_prog([ldx(DW, R0, R3, 8), mov64_imm(R0, 0), exit_()])),
        "for_each_ret_2": for_each_load(ARRAY4, for_each_prog([mov64_imm(R0, 2), exit_()])),
        "for_each_r5_uninit": for_each_load(ARRAY4, for_each_prog([mov64_reg(R0, R5), exit_()])),
        "for_each_ringbuf": for_each_load(["27", "0", "0", "4096"], for_each_prog(CB_EACH_SUM)),
        "for_each_not_a_map": ["btf", BTF3, "0", "load", RAW_TP, prog(
            st(DW, R10, -8, 0), mov64_imm(R1, 0), mov64_imm(R1, 0), ld_imm64(R2, 9, PSEUDO_FUNC), mov64_reg(R3, R10),
            alu64_imm(ADD, R3, -8), mov64_imm(R4, 0), call(FN_for_each_map_elem), ldx(DW, R1, R10, -8),
            alu64_imm(MUL, R0, 100), alu64_reg(ADD, R0, R1), exit_(), *CB_EACH_SUM), "1", "B=3", FI_EACH],
        # a global function: verified first, on its own (x a scalar, ctx the context, p NULL or
        # 4 bytes); the call checked against its prototype, not followed (R0 a scalar)
        "global_ok": global_load(global_prog()) + ["run", "4"],
        "global_p_null": global_load(global_prog(r3=[mov64_imm(R3, 0)])) + ["run", "4"],
        # the same function static: followed in the caller's path
        "global_static": global_load(global_prog(), func_type=9) + ["run", "4"],
        # calls that do not match the prototype
        "global_arg_not_scalar": global_load(global_prog(r1=mov64_reg(R1, R10))),
        "global_arg_not_ctx": global_load(global_prog(r2=mov64_reg(R2, R10))),
        "global_arg_mem_too_small": global_load(global_prog(r3=[mov64_reg(R3, R10), alu64_imm(ADD, R3, -2)])),
        "global_arg_mem_uninit": global_load(global_prog(r3=[mov64_reg(R3, R10), alu64_imm(ADD, R3, -16)])),
        "global_arg_mem_scalar": global_load(global_prog(r3=[mov64_imm(R3, 8)])),
        # the function's own faults: p used without a NULL check, past its 4 bytes, ctx moved
        "global_no_null_check": global_load(global_prog(body=[ldx(W, R0, R3, 0), exit_()])),
        "global_past_mem": global_load(global_prog(body=[jmp_imm(JEQ, R3, 0, 1), ldx(W, R0, R3, 2), mov64_imm(R0, 0),
                                                         exit_()])),
        "global_reads_r4": global_load(global_prog(body=[mov64_reg(R0, R4), exit_()])),
        "global_returns_pointer": global_load(global_prog(body=[mov64_reg(R0, R10), exit_()])),
        # prototypes 6.1 does not take for a global function
        "global_void_return": global_load(global_prog(), func_type=11),
        "global_void_pointer": global_load(global_prog(), func_type=15),
        "global_six_args": global_load(global_prog(), func_type=17),
        "global_struct_arg": global_load(global_prog(), func_type=19),
        # a function's tail call: the program in its place returns to the function's caller;
        # callers' stack of 256 bytes at most; an int returned
        "tail_call_in_subprog": sub_tail_load() + ["run", "6", "del", "4", "00000000", "run", "6"],
        "tail_call_in_subprog_deep": sub_tail_load(stack=256),
        "tail_call_in_subprog_stack_ok": sub_tail_load(stack=200) + ["run", "6"],
        "tail_call_in_void_subprog": sub_tail_load(sub_type=6),
        # the records given back: room for fewer, none, the wrong sizes
        "prog_btf_info_room": load("B=3", FI, LI, level="0") + pbtf(1, 2, 3) + pbtf(0, 0, 0) +
        pbtf(0, 0, 0, 0, 0, 0),
        "prog_btf_info_rec_sizes": load("B=3", FI, LI, level="0") + pbtf(1, 0, 0, 12) + pbtf(0, 1, 0, 8, 32) +
        pbtf(0, 0, 1, 8, 16, 4) + pbtf(0, 0, 0, 4, 16, 8),
    }
    return c


if __name__ == "__main__":
    capture(cases(), "prog_btf_reference.txt")
