"""bpf() cases run as `bpftest ARGS...` both in the emulated kernel and on the real Linux 6.1
(`python3 tests/machine/bpf_cases.py` captures the latter into tests/data/bpf/reference.txt
through ../shared/tools/real-tracefs): each case's output must be the real kernel's."""
from __future__ import annotations

import struct
import sys

from bpf_asm import *  # noqa: F401,F403

OK0 = prog(mov64_imm(R0, 0), exit_())
K4 = "01000000"


def lookup_prog(fd: int) -> str:
    """key 0 on the stack, look it up in map fd; returns the value's first u64 or 0."""
    return prog(st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4), ld_map_fd(R1, fd),
                call(FN_map_lookup_elem), jmp_imm(JEQ, R0, 0, 1), ldx(DW, R0, R0, 0), exit_())


def perf_output_prog(fd: int) -> str:
    """bpf_perf_event_output(ctx, map fd, BPF_F_CURRENT_CPU, 8 zero bytes on the stack, 8)"""
    return prog(mov64_reg(R6, R1), st(DW, R10, -8, 0), mov64_reg(R1, R6), ld_map_fd(R2, fd), mov32_imm(R3, -1),
                mov64_reg(R4, R10), alu64_imm(ADD, R4, -8), mov64_imm(R5, 8), call(FN_perf_event_output),
                mov64_imm(R0, 0), exit_())


FN_get_prandom_u32 = 7


def send_signal_outcomes(helper: int, sig: int) -> list[str]:
    """helper(sig) on every sched_switch while this process sleeps 300 ms, its outcomes marked
    in array map 3: [0] EPERM, [1] EINVAL, [2] 0 or EBUSY (the signal left to the cpu's
    irq_work, or one still pending there: when it runs differs, see README), [3] any other"""
    outcome = [mov64_imm(R1, sig), call(helper), mov64_imm(R6, 3)]
    for key, value in ((0, -1), (1, -22), (2, 0), (2, -16)):
        outcome += [jmp_imm(JNE, R0, value, 1), mov64_imm(R6, key)]
    mark = [stx(W, R10, R6, -4), st(DW, R10, -16, 1), ld_map_fd(R1, 3), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4),
            mov64_reg(R3, R10), alu64_imm(ADD, R3, -16), mov64_imm(R4, 0), call(FN_map_update_elem),
            mov64_imm(R0, 0), exit_()]
    return ["map", "2", "4", "8", "4", "load", "17", prog(*outcome, *mark), "rawtp", "4", "sched_switch",
            "sleep", "300", "close", "5"] + [arg for key in range(4) for arg in ("get", "3", f"{key:02x}000000")]
FN_get_numa_node_id, FN_jiffies64, FN_ktime_get_boot_ns = 42, 118, 125
FN_map_lookup_percpu_elem, FN_ktime_get_tai_ns = 195, 208
FN_send_signal, FN_send_signal_thread = 109, 117
FN_ringbuf_output, FN_ringbuf_reserve, FN_ringbuf_submit, FN_ringbuf_discard, FN_ringbuf_query = range(130, 135)


def RB_QUERY(flags: int, fd: int = 3) -> str:
    """bpf_ringbuf_query(map fd, flags)"""
    return prog(ld_map_fd(R1, fd), mov64_imm(R2, flags), call(FN_ringbuf_query), exit_())


def RB_OUTPUT_QUERY(flags: int, fd: int = 3) -> str:
    """bpf_ringbuf_output(map fd, 8 bytes of the stack, 8, flags), then the data available"""
    return prog(st(DW, R10, -8, 0), ld_map_fd(R1, fd), mov64_reg(R2, R10), alu64_imm(ADD, R2, -8),
                mov64_imm(R3, 8), mov64_imm(R4, flags), call(FN_ringbuf_output),
                ld_map_fd(R1, fd), mov64_imm(R2, 0), call(FN_ringbuf_query), exit_())


def RB_RESERVE(size: int, flags: int, commit: int) -> str:
    """bpf_ringbuf_reserve(map 3, size, flags); NULL: 7; else a u32 stored, committed; the
    data available"""
    return prog(ld_map_fd(R1, 3), mov64_imm(R2, size), mov64_imm(R3, flags), call(FN_ringbuf_reserve),
                jmp_imm(JNE, R0, 0, 2), mov64_imm(R0, 7), exit_(),
                st(W, R0, 0, 0x5678), mov64_reg(R1, R0), mov64_imm(R2, 0), call(commit),
                ld_map_fd(R1, 3), mov64_imm(R2, 0), call(FN_ringbuf_query), exit_())


def RB_HOLD(n: int) -> str:
    """n reservations of 8 bytes of map 3 held at once (each spilled to the stack), then all
    submitted; a NULL one releases those before it (the verifier tracks every one)"""
    steps, chain = [], []
    for k in range(n):
        to_chain_k = 7 * n + 3 * (n - k) - (7 * k + 5) - 1
        steps += [ld_map_fd(R1, 3), mov64_imm(R2, 8), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
                  jmp_imm(JEQ, R0, 0, to_chain_k), stx(DW, R10, R0, -8 * (k + 1))]
    for j in range(n, 0, -1):
        chain += [ldx(DW, R1, R10, -8 * j), mov64_imm(R2, 0), call(FN_ringbuf_submit)]
    return prog(*steps, *chain, mov64_imm(R0, 0), exit_())


# bpf_ringbuf_output of 8 bytes, its return value
RB_OUTPUT8 = prog(ld_map_fd(R1, 3), mov64_reg(R2, R10), alu64_imm(ADD, R2, -8), st(DW, R10, -8, 0),
                  mov64_imm(R3, 8), mov64_imm(R4, 0), call(FN_ringbuf_output), exit_())

# bpf-to-bpf calls (BPF_PSEUDO_CALL): a frame per call, R1-R5 the arguments, R6-R9 kept, R0 the
# callee's; the caller's stack reachable through a pointer passed down
# main: fp-8 = 5; f(fp-8, 7) + 100 (in R6 across the call); f: *r1 + r2
CALL_STACK_ARG = prog(st(DW, R10, -8, 5), mov64_reg(R1, R10), alu64_imm(ADD, R1, -8), mov64_imm(R2, 7),
                      mov64_imm(R6, 100), call_pseudo(2), alu64_reg(ADD, R0, R6), exit_(),
                      ldx(DW, R0, R1, 0), alu64_reg(ADD, R0, R2), exit_())


def call_chain(n: int, stack: int = 0) -> str:
    """func#0 calls func#1 ... calls func#n-1, each storing 8 bytes at -stack first (0: none);
    returns n"""
    body = []
    for k in range(n):
        if stack:
            body.append(st(DW, R10, -stack, k))
        if k < n - 1:
            body += [call_pseudo(1), exit_()]
        else:
            body += [mov64_imm(R0, n), exit_()]
    return prog(*body)


CALL_CASES: dict[str, list[str]] = {
    "call_stack_arg": ["load", "17", CALL_STACK_ARG, "2", "run", "3"],
    "call_stack_arg_log1": ["load", "17", CALL_STACK_ARG, "1", "run", "3"],
    "call_stats": ["load", "17", call_chain(3, 16), "5", "run", "3"],
    # the same function called twice, from two places; R7 kept across both
    "call_twice": ["load", "17", prog(mov64_imm(R1, 3), mov64_imm(R7, 1000), call_pseudo(6), mov64_reg(R6, R0),
                                      mov64_imm(R1, 4), call_pseudo(3), alu64_reg(ADD, R0, R6), alu64_reg(ADD, R0, R7),
                                      exit_(), mov64_reg(R0, R1), alu64_imm(MUL, R0, 10), exit_()), "2", "run", "3"],
    # 8 frames deep is the most
    "call_depth_8": ["load", "17", call_chain(8), "1", "run", "3"],
    "call_depth_9": ["load", "17", call_chain(9), "1"],
    # each function's stack, rounded up to 32, together at most 512
    "call_combined_stack_ok": ["load", "17", call_chain(2, 256), "run", "3"],
    "call_combined_stack": ["load", "17", call_chain(2, 264), "1"],
    "call_combined_stack_3": ["load", "17", call_chain(3, 192), "1"],
    # what a callee may not do
    "call_clobbers_r1": ["load", "17", prog(mov64_imm(R1, 1), call_pseudo(2), mov64_reg(R0, R1), exit_(),
                                            mov64_imm(R0, 0), exit_()), "1"],
    "call_callee_reads_r6": ["load", "17", prog(mov64_imm(R6, 1), call_pseudo(2), mov64_imm(R0, 0), exit_(),
                                                mov64_reg(R0, R6), exit_()), "1"],
    "call_return_stack_ptr": ["load", "17", prog(call_pseudo(2), mov64_imm(R0, 0), exit_(),
                                                 mov64_reg(R0, R10), exit_()), "1"],
    "call_return_caller_stack_ptr": ["load", "17", prog(mov64_reg(R1, R10), call_pseudo(2), mov64_imm(R0, 0), exit_(),
                                                        mov64_reg(R0, R1), exit_()), "1"],
    "call_callee_r0_uninit": ["load", "17", prog(call_pseudo(1), exit_(), exit_()), "1"],
    "call_recursion": ["load", "17", prog(call_pseudo(1), exit_(), call_pseudo(-1), exit_()), "1"],
    # the layout: jumps stay in their function, each ends in exit or ja, calls land in the program
    "call_jump_out_of_range": ["load", "17", prog(mov64_imm(R0, 0), jmp_imm(JEQ, R0, 0, 2), call_pseudo(1), exit_(),
                                                  mov64_imm(R0, 1), exit_()), "1"],
    "call_last_insn_not_exit": ["load", "17", prog(call_pseudo(1), mov64_imm(R0, 0), exit_()), "1"],
    "call_invalid_destination": ["load", "17", prog(call_pseudo(5), exit_()), "1",
                                 "load", "17", prog(call_pseudo(-2), exit_()), "1"],
    "call_reserved_fields": ["load", "17", prog(insn(JMP | CALL, 0, PSEUDO_CALL, 1, 1), exit_(),
                                                mov64_imm(R0, 0), exit_()), "1"],
    # a callee writes the caller's stack; the caller reads it back
    "call_callee_writes_caller_stack": ["load", "17", prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -16),
                                                           call_pseudo(2), ldx(DW, R0, R10, -16), exit_(),
                                                           st(DW, R1, 0, 42), mov64_imm(R0, 0), exit_()),
                                        "2", "run", "3"],
    # paths into a callee: a branch before the call (two paths, the second pruned in the
    # callee), a bounded loop in the callee, called from two places (level 1: 6.1's level 2
    # shows its precision tracking, which this verifier has not)
    "call_paths_and_loop": ["load", "17", prog(
        call(FN_get_prandom_u32), mov64_imm(R6, 0), jmp_imm(JEQ, R0, 0, 1), mov64_imm(R6, 1),
        mov64_imm(R1, 4), call_pseudo(5), mov64_reg(R7, R0), mov64_imm(R1, 6), call_pseudo(2),
        alu64_reg(ADD, R0, R7), exit_(),
        mov64_imm(R0, 0), alu64_reg(ADD, R0, R1), alu64_imm(SUB, R1, 1), jmp_imm(JNE, R1, 0, -3), exit_()),
        "1", "run", "3"],
    # a callee passes the caller's stack to a helper (filled) and a map lookup (the key)
    "call_caller_stack_to_helpers": ["map", "1", "4", "8", "4", "upd", "3", "62707465", "2a00000000000000",
                                     "load", "17", prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -16), call_pseudo(2),
                                                        ldx(B, R0, R10, -16), exit_(),
                                                        mov64_reg(R6, R1), mov64_imm(R2, 16), call(FN_get_current_comm),
                                                        ld_map_fd(R1, 3), mov64_reg(R2, R6), call(FN_map_lookup_elem),
                                                        jmp_imm(JEQ, R0, 0, 1), ldx(DW, R0, R0, 0), exit_()),
                                     "1", "run", "4"],
    # a pointer to the callee's stack may not be stored in the caller's
    "call_spill_stack_ptr_to_caller": ["load", "17", prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -8), call_pseudo(2),
                                                          mov64_imm(R0, 0), exit_(),
                                                          mov64_reg(R2, R10), stx(DW, R1, R2, 0), mov64_imm(R0, 0),
                                                          exit_()), "1"],
    # reading the caller's stack it did not write
    "call_caller_stack_uninit": ["load", "2", prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -8), call_pseudo(2),
                                                   mov64_imm(R0, 0), exit_(),
                                                   ldx(DW, R0, R1, 0), exit_()), "1"],
    # JITed: an image per function, the program's info lists each (the first the program's);
    # one function: one
    "call_jit_info": ["load", "17", CALL_STACK_ARG, "pjit", "3", "pinfo", "3", "run", "3"],
    "call_jit_info_8": ["load", "17", call_chain(8, 8), "pjit", "3", "run", "3"],
    "jit_info_one_function": ["load", "17", OK0, "pjit", "3"],
    # the program's instructions as a dump shows them after the JIT: a call's off the callee's
    # distance, its imm the callee's number
    "call_jit_xlated": ["load", "17", call_chain(3), "pxlated", "3"],
    # a ring buffer reservation released by a function the holder calls
    "call_ringbuf_submit_in_callee": ["map", "27", "0", "0", "4096", "load", "17", prog(
        ld_map_fd(R1, 3), mov64_imm(R2, 8), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
        jmp_imm(JEQ, R0, 0, 3), mov64_reg(R1, R0), call_pseudo(2), mov64_imm(R0, 1), exit_(),
        st(DW, R1, 0, 7), mov64_imm(R2, 0), call(FN_ringbuf_submit), mov64_imm(R0, 0), exit_()), "1",
        "run", "4", "load", "17", RB_QUERY(0), "run", "5"],
    # a map value looked up by a callee, returned, read by the caller
    "call_map_value_from_callee": ["map", "2", "4", "8", "1", "upd", "3", "00000000", "2a00000000000000",
                                   "load", "17", prog(call_pseudo(3), jmp_imm(JEQ, R0, 0, 1), ldx(DW, R0, R0, 0), exit_(),
                                                      st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4),
                                                      ld_map_fd(R1, 3), call(FN_map_lookup_elem), exit_()),
                                   "1", "pinfo", "4", "run", "4"],
}


def opcode_prog(code: int, variant: str) -> str:
    """one instruction of opcode code between a program's set-up and its exit: its other fields
    all zero ("zero"); dst r2, src r3, imm 1, both set ("regs"); dst and src r10, off -8, the
    slot written ("stack")"""
    if variant == "zero":
        return prog(mov64_imm(R0, 0), insn(code), exit_())
    if variant == "regs":
        return prog(mov64_imm(R0, 0), mov64_imm(R2, 1), mov64_imm(R3, 2), insn(code, R2, R3, 0, 1), exit_())
    return prog(mov64_imm(R0, 0), st(DW, R10, -8, 0), insn(code, R10, R10, -8, 0), exit_())


# the opcode space, eight opcodes a case (what a guest's argv holds), in three variants: what
# 6.1's verifier takes and what it rejects (the interpreter's table, bpf_opcode_in_insntable(),
# then each class's reserved fields and checks), its log at level 1
OPCODE_CASES: dict[str, list[str]] = {
    f"opcodes_{variant}_{first:02x}": [a for code in range(first, first + 8)
                                       for a in ("load", "17", opcode_prog(code, variant), "1")]
    for variant in ("zero", "regs", "stack") for first in range(0, 256, 8)}


def gotol(imm: int, off: int = 0) -> bytes:
    """BPF_JMP32 | BPF_JA: an unconditional jump by imm (6.1.192 has it: "gotol")"""
    return insn(JMP32 | JA, 0, 0, off, imm)


GOTOL_CASES: dict[str, list[str]] = {
    # over one instruction, and a loop back by gotol (5 rounds): the log as 6.1 prints it
    "gotol_run": ["load", "17", prog(mov64_imm(R0, 1), jmp_imm(JNE, R0, 1, 1), gotol(1), mov64_imm(R0, 2),
                                     mov64_imm(R1, 0), alu64_imm(ADD, R1, 1), alu64_imm(ADD, R0, 10),
                                     jmp_imm(JGE, R1, 5, 1), gotol(-4), exit_()), "1", "run", "3"],
    # off is reserved; the target in the function; a function may end in one
    "gotol_reserved_off": ["load", "17", prog(mov64_imm(R0, 1), gotol(0, 1), exit_()), "1"],
    "gotol_out_of_range": ["load", "17", prog(mov64_imm(R0, 1), gotol(5), exit_()), "1",
                           "load", "17", prog(mov64_imm(R0, 1), gotol(-3), exit_()), "1"],
    "gotol_ends_function": ["load", "17", prog(call_pseudo(1), exit_(), mov64_imm(R0, 3), jmp_imm(JEQ, R0, 3, 1),
                                               exit_(), gotol(-2)), "1", "run", "3"],
    # as the xlated dump shows it: its imm moved over the patch of a division before it
    "gotol_xlated": ["load", "17", prog(mov64_imm(R0, 6), mov64_imm(R1, 2), gotol(1), exit_(), alu64_reg(DIV, R0, R1),
                                        gotol(-3)), "pxlated", "3", "run", "3"],
}


def ld_map_value(dst: int, fd: int, off: int) -> bytes:
    """BPF_PSEUDO_MAP_VALUE: the address of the map's value at off (libbpf's global data)"""
    return ld_imm64(dst, fd | off << 32, PSEUDO_MAP_VALUE)


FN_ktime_get_coarse_ns = 160
# struct __sk_buff's offsets
SKB_LEN, SKB_PKT_TYPE, SKB_PROTOCOL, SKB_IFINDEX, SKB_CB = 0, 4, 16, 40, 48
SKB_DATA, SKB_FAMILY, SKB_TSTAMP, SKB_TSTAMP_TYPE = 76, 88, 152, 180

# BPF_PROG_TYPE_SOCKET_FILTER: libbpf's feature probes (a named program, global data, the
# coarse clock), what its context lets a program read and write, its helpers
SOCKFILTER_CASES: dict[str, list[str]] = {
    "sockfilter_probe": ["load", "1", OK0, "1", "N=libbpf_nametest"],
    "sockfilter_global_data": ["map", "2", "4", "32", "1", "load", "1",
                               prog(ld_map_value(R1, 3, 16), st(DW, R1, 0, 42), mov64_imm(R0, 0), exit_()), "2"],
    "sockfilter_rodata_write": ["map", "2", "4", "32", "1", str(1 << 7), "load", "1",
                                prog(ld_map_value(R1, 3, 16), st(DW, R1, 0, 42), mov64_imm(R0, 0), exit_()), "1"],
    "sockfilter_coarse_ns": ["load", "1", prog(call(FN_ktime_get_coarse_ns), exit_()), "2"],
    "sockfilter_ctx_reads": ["load", "1", prog(ldx(W, R2, R1, SKB_LEN), ldx(B, R3, R1, SKB_PKT_TYPE),
                                               ldx(H, R4, R1, SKB_PROTOCOL), ldx(W, R5, R1, SKB_CB + 8),
                                               ldx(B, R6, R1, SKB_CB + 19), ldx(W, R0, R1, SKB_IFINDEX), exit_()), "2"],
    "sockfilter_ctx_write_len": ["load", "1", prog(mov64_imm(R2, 0), stx(W, R1, R2, SKB_LEN), mov64_imm(R0, 0),
                                                   exit_()), "1"],
    "sockfilter_ctx_st_cb": ["load", "1", prog(st(W, R1, SKB_CB, 1), mov64_imm(R0, 0), exit_()), "1"],
    "sockfilter_ctx_data": ["load", "1", prog(ldx(W, R0, R1, SKB_DATA), exit_()), "1"],
    "sockfilter_ctx_family": ["load", "1", prog(ldx(W, R0, R1, SKB_FAMILY), exit_()), "1"],
    "sockfilter_ctx_tstamp": ["load", "1", prog(ldx(DW, R0, R1, SKB_TSTAMP), exit_()), "1"],
    "sockfilter_ctx_tstamp_type": ["load", "1", prog(ldx(B, R0, R1, SKB_TSTAMP_TYPE), exit_()), "1"],
    "sockfilter_ctx_cb_past_end": ["load", "1", prog(ldx(DW, R0, R1, SKB_CB + 16), exit_()), "1"],
    "sockfilter_ctx_misaligned": ["load", "1", prog(ldx(H, R0, R1, SKB_LEN + 1), exit_()), "1"],
    "sockfilter_ctx_past_end": ["load", "1", prog(ldx(W, R0, R1, 192), exit_()), "1"],
    "sockfilter_helper_pid": ["load", "1", prog(call(FN_get_current_pid_tgid), exit_()), "1"],
}


# BPF_MAP_FREEZE (libbpf freezes a .rodata once filled): the syscall side may not write the map
# any more, a program that may not write it either reads known values there
BPF_MAP_FREEZE = "22"
RDONLY_PROG = str(1 << 7)
# r0 = the map's first u64; 7: exit, else a read of the stack out of its frame
READ_RODATA = prog(ld_map_value(R1, 3, 0), ldx(DW, R0, R1, 0), jmp_imm(JEQ, R0, 7, 1), ldx(DW, R0, R10, 8), exit_())
FREEZE_CASES: dict[str, list[str]] = {
    "freeze_array": ["map", "2", "4", "8", "1", "upd", "3", "00000000", "2a00000000000000",
                     "raw", BPF_MAP_FREEZE, "03000000", "upd", "3", "00000000", "2b00000000000000",
                     "del", "3", "00000000", "get", "3", "00000000", "raw", BPF_MAP_FREEZE, "03000000"],
    "freeze_hash": ["map", "1", "4", "8", "4", "raw", BPF_MAP_FREEZE, "03000000",
                    "upd", "3", "00000000", "2a00000000000000", "get", "3", "00000000", "next", "3", "-"],
    "freeze_errors": ["raw", BPF_MAP_FREEZE, "63000000", "map", "2", "4", "8", "1",
                      "raw", BPF_MAP_FREEZE, "0300000001000000", "load", "1", OK0, "raw", BPF_MAP_FREEZE, "04000000"],
    "freeze_rdonly_known": ["map", "2", "4", "8", "1", RDONLY_PROG, "upd", "3", "00000000", "0700000000000000",
                            "raw", BPF_MAP_FREEZE, "03000000", "load", "1", READ_RODATA, "1"],
    "freeze_rdonly_unfrozen": ["map", "2", "4", "8", "1", RDONLY_PROG, "upd", "3", "00000000", "0700000000000000",
                               "load", "1", READ_RODATA, "1"],
    # a call libbpf poisoned (a failed CO-RE relocation) in the branch the value rules out: never
    # reached, so no fixup trips on it
    "freeze_dead_poisoned_call": ["map", "2", "4", "8", "1", RDONLY_PROG, "upd", "3", "00000000", "0700000000000000",
                                  "raw", BPF_MAP_FREEZE, "03000000", "load", "5",
                                  prog(ld_map_value(R1, 3, 0), ldx(DW, R0, R1, 0), jmp_imm(JEQ, R0, 7, 1),
                                       call(0xBAD2310), mov64_imm(R0, 0), exit_()), "1"],
    "freeze_writable_known": ["map", "2", "4", "8", "1", "upd", "3", "00000000", "0700000000000000",
                              "raw", BPF_MAP_FREEZE, "03000000", "load", "1", READ_RODATA, "1"],
}

# BPF_MAP_TYPE_CGROUP_ARRAY (libbpf-tools make one for -c): made, but no fd is a cgroup here
FN_current_task_under_cgroup = 37
UNDER_CGROUP = prog(ld_map_fd(R1, 3), mov64_imm(R2, 0), call(FN_current_task_under_cgroup), exit_())
CGROUP_ARRAY_CASES: dict[str, list[str]] = {
    "cgroup_array": ["map", "8", "4", "4", "4", "upd", "3", "00000000", "03000000", "upd", "3", "04000000", "03000000",
                     "upd", "3", "00000000", "03000000", "1", "get", "3", "00000000", "del", "3", "00000000",
                     "del", "3", "04000000", "next", "3", "-", "next", "3", "03000000", "map", "8", "4", "8", "4",
                     "map", "8", "4", "4", "4", RDONLY_PROG],
    "cgroup_array_helper": ["map", "8", "4", "4", "4", "load", "5", UNDER_CGROUP, "2", "load", "1", UNDER_CGROUP, "1",
                            "load", "5", lookup_prog(3), "1"],
    "cgroup_array_helper_wrong_map": ["map", "2", "4", "4", "4", "load", "5", UNDER_CGROUP, "1"],
}

# BPF_PROG_BIND_MAP (libbpf binds a .rodata to each program) and BPF_LINK_CREATE of a program on
# a perf event (BPF_PERF_EVENT: libbpf's attach when the kernel has it; its probe: EBADF for fd -1)
BPF_LINK_CREATE, BPF_PROG_BIND_MAP, BPF_PERF_EVENT = "28", "35", 41
PROG_PERF_EVENT_T = "7"


def u32s(*values: int) -> str:
    """the attribute's u32 fields, in hex"""
    return "".join(struct.pack("<I", v & 0xFFFFFFFF).hex() for v in values)


BIND_LINK_CASES: dict[str, list[str]] = {
    "prog_bind_map": ["map", "2", "4", "32", "1", "load", "1", OK0, "pinfo", "4",
                      "raw", BPF_PROG_BIND_MAP, u32s(4, 3, 0), "pinfo", "4", "raw", BPF_PROG_BIND_MAP, u32s(4, 3, 0),
                      "close", "3", "pinfo", "4", "map", "2", "4", "8", "1", "raw", BPF_PROG_BIND_MAP, u32s(4, 3, 0),
                      "pinfo", "4"],
    "prog_bind_map_errors": ["map", "2", "4", "32", "1", "load", "1", OK0, "raw", BPF_PROG_BIND_MAP, u32s(4, 3, 1),
                             "raw", BPF_PROG_BIND_MAP, u32s(4, 99, 0), "raw", BPF_PROG_BIND_MAP, u32s(4, 4, 0),
                             "raw", BPF_PROG_BIND_MAP, u32s(3, 3, 0), "raw", BPF_PROG_BIND_MAP, u32s(99, 3, 0),
                             "raw", BPF_PROG_BIND_MAP, u32s(4, 3, 0, 1), "pinfo", "4"],
    "perf_link": ["load", PROG_PERF_EVENT_T, OK0, "swev", "0", "1000000000", "raw", BPF_LINK_CREATE, u32s(3, 4, BPF_PERF_EVENT, 0),
                  "raw", BPF_LINK_CREATE, u32s(3, 4, BPF_PERF_EVENT, 0), "close", "5",
                  "raw", BPF_LINK_CREATE, u32s(3, 4, BPF_PERF_EVENT, 0), "close", "4", "close", "5"],
    "perf_link_errors": ["load", "5", OK0, "raw", BPF_LINK_CREATE, u32s(3, -1, BPF_PERF_EVENT, 0),
                         "raw", BPF_LINK_CREATE, u32s(3, 3, BPF_PERF_EVENT, 0), "load", PROG_PERF_EVENT_T, OK0,
                         "swev", "0", "1000000000", "raw", BPF_LINK_CREATE, u32s(3, 5, BPF_PERF_EVENT, 0),
                         "raw", BPF_LINK_CREATE, u32s(4, 5, BPF_PERF_EVENT - 1, 0),
                         "raw", BPF_LINK_CREATE, u32s(4, 5, BPF_PERF_EVENT, 1),
                         "load", "1", OK0, "raw", BPF_LINK_CREATE, u32s(6, 5, BPF_PERF_EVENT, 0)],
}

# ---- program arrays and bpf_tail_call() ----
FN_tail_call = 12
MAP_PROG_ARRAY = "3"


def tail_prog(fd: int, index: int, ret: int) -> str:
    """bpf_tail_call(ctx, map fd, index); if it comes back (no program there, or too many
    tail calls), ret"""
    return prog(ld_map_fd(R2, fd), mov64_imm(R3, index), call(FN_tail_call), mov64_imm(R0, ret), exit_())


def RET(n: int) -> str:
    return prog(mov64_imm(R0, n), exit_())


# counts its runs in map 3's value 0, then tail-calls index 0 of map 4 (itself): 1 + 33 runs
SELF_TAIL = prog(mov64_reg(R6, R1), st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4),
                 ld_map_fd(R1, 3), call(FN_map_lookup_elem), jmp_imm(JEQ, R0, 0, 2), mov64_imm(R1, 1),
                 atomic(DW, ADD, R0, R1, 0), mov64_reg(R1, R6), ld_map_fd(R2, 4), mov64_imm(R3, 0),
                 call(FN_tail_call), mov64_imm(R0, 7), exit_())

# main: f() (5 into R7), then bpf_tail_call(ctx, map 3, 0); back: R7
TAIL_WITH_SUBPROG = prog(mov64_reg(R6, R1), call_pseudo(8), mov64_reg(R7, R0), mov64_reg(R1, R6), ld_map_fd(R2, 3),
                         mov64_imm(R3, 0), call(FN_tail_call), mov64_reg(R0, R7), exit_(), mov64_imm(R0, 5), exit_())

TAIL_CALL_CASES: dict[str, list[str]] = {
    # an fd array of u32 keys and values, not written by programs
    "prog_array_create": ["map", MAP_PROG_ARRAY, "4", "8", "4", "map", MAP_PROG_ARRAY, "8", "4", "4",
                          "map", MAP_PROG_ARRAY, "4", "4", "0", "map", MAP_PROG_ARRAY, "4", "4", "4", str(1 << 7),
                          "map", MAP_PROG_ARRAY, "4", "4", "4", str(1 << 10),
                          "map", MAP_PROG_ARRAY, "4", "4", "4"],
    # programs go in by fd, of one type (the first's); a map, or no fd, is not one
    "prog_array_update": ["map", MAP_PROG_ARRAY, "4", "4", "4", "load", "17", RET(42), "load", "2", RET(0),
                          "get", "3", "00000000", "upd", "3", "00000000", "05000000",
                          "upd", "3", "00000000", "04000000", "upd", "3", "01000000", "04000000", "1",
                          "upd", "3", "04000000", "04000000", "upd", "3", "02000000", "03000000",
                          "upd", "3", "02000000", "63000000", "del", "3", "01000000", "del", "3", "01000000",
                          "del", "3", "04000000", "next", "3", "-", "next", "3", "03000000"],
    # the program at the index runs in place of the caller; none there: the caller goes on
    "tail_call_runs": ["map", MAP_PROG_ARRAY, "4", "4", "4", "load", "17", RET(42), "load", "17", tail_prog(3, 0, 1),
                       "load", "17", tail_prog(3, 9, 2), "run", "5", "upd", "3", "00000000", "04000000",
                       "run", "5", "run", "6", "del", "3", "00000000", "run", "5"],
    # at most 33 tail calls a run
    "tail_call_limit": ["map", "2", "4", "8", "1", "map", MAP_PROG_ARRAY, "4", "4", "1", "load", "17", SELF_TAIL,
                        "upd", "4", "00000000", "05000000", "run", "5", "get", "3", "00000000"],
    # a program of another type may not use the array (at its load); the array's last file
    # closed, its programs go
    "tail_call_owner": ["map", MAP_PROG_ARRAY, "4", "4", "4", "load", "17", RET(42), "upd", "3", "00000000", "04000000",
                        "load", "2", tail_prog(3, 0, 1), "load", "17", tail_prog(3, 0, 1), "run", "5",
                        "close", "3", "sleep", "100", "run", "5"],
    # the verifier: only bpf_tail_call takes a program array, and it takes no other map
    "tail_call_wrong_map": ["map", "1", "4", "8", "1", "load", "17", tail_prog(3, 0, 1), "1"],
    "prog_array_lookup": ["map", MAP_PROG_ARRAY, "4", "4", "1", "load", "17", lookup_prog(3), "1"],
    # (level 1: 6.1's level 2 shows its precision tracking of the index, which this verifier has not)
    "tail_call_log": ["map", MAP_PROG_ARRAY, "4", "4", "1", "load", "17", tail_prog(3, 0, 1), "1", "run", "4"],
    # nothing held may be carried into the next program
    "tail_call_reference_leak": ["map", "27", "0", "0", "4096", "map", MAP_PROG_ARRAY, "4", "4", "1", "load", "17", prog(
        mov64_reg(R7, R1), ld_map_fd(R1, 3), mov64_imm(R2, 8), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
        jmp_imm(JEQ, R0, 0, 9), mov64_reg(R6, R0), mov64_reg(R1, R7), ld_map_fd(R2, 4), mov64_imm(R3, 0),
        call(FN_tail_call), mov64_reg(R1, R6), mov64_imm(R2, 0), call(FN_ringbuf_submit), mov64_imm(R0, 0),
        exit_()), "1"],
    # JITed, a program of several functions may make tail calls (its calls pass the count on)
    "tail_call_with_subprog": ["map", MAP_PROG_ARRAY, "4", "4", "1", "load", "17", RET(42),
                               "upd", "3", "00000000", "04000000", "load", "17", TAIL_WITH_SUBPROG, "1",
                               "run", "5"],
    # a function's tail call needs its return type (BTF)
    "tail_call_in_subprog_no_btf": ["map", MAP_PROG_ARRAY, "4", "4", "1", "load", "17", prog(
        call_pseudo(1), exit_(), ld_map_fd(R2, 3), mov64_imm(R3, 0), call(FN_tail_call), mov64_imm(R0, 0),
        exit_()), "1"],
}


# ---- queue and stack maps: keyless, pushed and popped ----
FN_map_push_elem, FN_map_pop_elem, FN_map_peek_elem = 87, 88, 89
MAP_QUEUE, MAP_STACK = "22", "23"


def push_prog(fd: int, value: int, flags: int = 0) -> str:
    """bpf_map_push_elem(map fd, a u64 value on the stack, flags): its return"""
    return prog(st(DW, R10, -8, value), ld_map_fd(R1, fd), mov64_reg(R2, R10), alu64_imm(ADD, R2, -8),
                mov64_imm(R3, flags), call(FN_map_push_elem), exit_())


def get_prog(fd: int, fn: int) -> str:
    """bpf_map_pop_elem or _peek_elem(map fd, 8 bytes of stack never written): its error, or the
    u64 it wrote there"""
    return prog(ld_map_fd(R1, fd), mov64_reg(R2, R10), alu64_imm(ADD, R2, -8), call(fn),
                jmp_imm(JNE, R0, 0, 1), ldx(DW, R0, R10, -8), exit_())


def V(n: int, size: int = 4) -> str:
    return n.to_bytes(size, "little").hex()


QUEUE_STACK_CASES: dict[str, list[str]] = {
    # no key; a value of at most KMALLOC_MAX_SIZE (4 MiB); none of a hash map's flags
    "queue_create": ["map", MAP_QUEUE, "4", "4", "4", "map", MAP_QUEUE, "0", "0", "4", "map", MAP_QUEUE, "0", "4", "0",
                     "map", MAP_QUEUE, "0", "4", "4", "1", "map", MAP_QUEUE, "0", str((4 << 20) + 1), "1",
                     "map", MAP_STACK, "0", "4", "4", str(1 << 7), "map", MAP_QUEUE, "0", "4", "4",
                     "map", MAP_STACK, "0", "8", "2"],
    # first in, first out; full: E2BIG, or BPF_EXIST drops the oldest; lookup peeks,
    # lookup-and-delete pops; no key, no delete, no next key
    "queue_ops": ["map", MAP_QUEUE, "0", "4", "3", "get", "3", "-", "pop", "3", "-", "upd", "3", "-", V(1),
                  "upd", "3", "-", V(2), "upd", "3", "-", V(3), "upd", "3", "-", V(4), "upd", "3", "-", V(5), "2",
                  "get", "3", "-", "pop", "3", "-", "pop", "3", "-", "pop", "3", "-", "pop", "3", "-",
                  "upd", "3", "00000000", V(6), "get", "3", "00000000", "upd", "3", "-", V(6), "1",
                  "upd", "3", "-", V(6), "4", "del", "3", "-", "next", "3", "-", "pop", "3", "-", "4", "pop", "3", "-", "1",
                  "get", "3", "-"],
    # last in, first out
    "stack_ops": ["map", MAP_STACK, "0", "8", "2", "upd", "3", "-", V(1, 8), "upd", "3", "-", V(2, 8),
                  "upd", "3", "-", V(3, 8), "upd", "3", "-", V(3, 8), "2", "get", "3", "-", "pop", "3", "-",
                  "pop", "3", "-", "pop", "3", "-", "upd", "3", "-", V(4, 8), "get", "3", "-"],
    # programs push (flags as the syscall's), pop and peek into stack they never wrote
    "queue_from_programs": ["map", MAP_QUEUE, "0", "8", "2", "load", "17", push_prog(3, 7), "load", "17", push_prog(3, 9, 2),
                            "load", "17", get_prog(3, FN_map_pop_elem), "load", "17", get_prog(3, FN_map_peek_elem),
                            "load", "17", push_prog(3, 1, 1),
                            "run", "7", "run", "4", "run", "4", "run", "4", "run", "5", "get", "3", "-", "run", "6",
                            "run", "6", "pop", "3", "-", "run", "6", "run", "6"],
    "stack_from_programs": ["map", MAP_STACK, "0", "8", "2", "load", "17", push_prog(3, 7), "load", "17", push_prog(3, 9),
                            "load", "17", get_prog(3, FN_map_pop_elem), "run", "4", "run", "5", "run", "6", "run", "6",
                            "run", "6"],
    # the verifier: the helpers take a queue or stack only, and those maps nothing else; a
    # read-only one may be peeked at only; the value's room is the map's value size
    "queue_wrong_map": ["map", "1", "4", "8", "1", "load", "17", push_prog(3, 1), "1"],
    "queue_lookup": ["map", MAP_QUEUE, "0", "4", "1", "load", "17", prog(
        ld_map_fd(R1, 3), mov64_reg(R2, R10), alu64_imm(ADD, R2, -8), call(FN_map_lookup_elem), mov64_imm(R0, 0),
        exit_()), "1"],
    "queue_rdonly_prog": ["map", MAP_QUEUE, "0", "8", "1", str(1 << 7), "load", "17", get_prog(3, FN_map_peek_elem), "1",
                          "load", "17", get_prog(3, FN_map_pop_elem), "1", "load", "17", push_prog(3, 1), "1"],
    "queue_value_room": ["map", MAP_STACK, "0", "16", "1", "load", "17", get_prog(3, FN_map_pop_elem), "1"],
    "queue_push_uninit": ["map", MAP_QUEUE, "0", "8", "1", "load", "17", prog(
        ld_map_fd(R1, 3), mov64_reg(R2, R10), alu64_imm(ADD, R2, -8), mov64_imm(R3, 0), call(FN_map_push_elem),
        exit_()), "1"],
    # BPF_MAP_LOOKUP_AND_DELETE_ELEM of a hash map: the value, then the element gone; of an
    # array: not supported; flags: BPF_F_LOCK only, for a value with a lock
    "lookup_and_delete": ["map", "1", "4", "8", "4", "map", "9", "4", "8", "4", "map", "2", "4", "8", "4",
                          "upd", "3", K4, V(42, 8), "pop", "3", K4, "pop", "3", K4, "get", "3", K4,
                          "upd", "3", K4, V(43, 8), "pop", "3", K4, "4", "pop", "3", K4, "1",
                          "upd", "4", K4, V(44, 8), "pop", "4", K4, "get", "4", K4, "pop", "5", K4, "pop", "5", "-",
                          "pop", "3", "-"],
}


# ---- strings: bpf_strtol(), bpf_strtoul(), bpf_strncmp() ----
FN_strtol, FN_strtoul, FN_strncmp = 105, 106, 182


def strtox_prog(fn: int, text: bytes, length: int, flags: int) -> str:
    """fn(text at fp-32 (16 bytes at most), length, flags, fp-8 (0x55555555 first)): its return and
    result in map 3's value 0 (16 bytes)"""
    chunks = [text[k:k + 8].ljust(8, b"\0") for k in range(0, max(len(text), 1), 8)]
    store = [x for k, c in enumerate(chunks) for x in (ld_imm64(R1, int.from_bytes(c, "little")),
                                                       stx(DW, R10, R1, -32 + 8 * k))]
    return prog(*store, st(DW, R10, -8, 0x55555555), mov64_reg(R1, R10), alu64_imm(ADD, R1, -32),
                mov64_imm(R2, length), mov64_imm(R3, flags), mov64_reg(R4, R10), alu64_imm(ADD, R4, -8), call(fn),
                mov64_reg(R6, R0), st(W, R10, -36, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -36), ld_map_fd(R1, 3),
                call(FN_map_lookup_elem), jmp_imm(JEQ, R0, 0, 3), stx(DW, R0, R6, 0), ldx(DW, R1, R10, -8),
                stx(DW, R0, R1, 8), mov64_imm(R0, 0), exit_())


# (text, length, flags): up to 8 bytes of text, and (each a case of its own: its program is
# longer than an argument may be) up to 16
STRTOX_INPUTS = [(b"  -123ab", 8, 0), (b"0x1fz", 5, 0), (b"0x1fz", 5, 16), (b"077", 3, 0), (b"077", 3, 10),
                 (b"12345", 3, 10), (b"-", 1, 0), (b"+5", 2, 0), (b"5", 1, 3), (b"5", 1, 0x20),
                 (b"\t\n 42", 5, 0), (b"0x", 2, 0), (b"-42", 3, 0), (b"0x", 1, 16)]
STRTOX_LONG_INPUTS = [(b"99999999999999999999", 16, 10), (b"-9223372036854775808", 16, 10),
                      (b"9223372036854775808", 16, 10), (b"ffffffffffffffff", 16, 16)]


def strtox_case(fn: int, inputs) -> list[str]:
    args = ["map", "2", "4", "16", "1"]
    for text, length, flags in inputs:
        args += ["load", "17", strtox_prog(fn, text, length, flags), "run", "4", "close", "4", "get", "3", "00000000"]
    return args


def strncmp_prog(s1: bytes, size: int, off: int = 0) -> str:
    """bpf_strncmp(s1 (8 bytes at most) at fp-16, 8 zeros after it, size, map 3's value at off)"""
    return prog(ld_imm64(R1, int.from_bytes(s1.ljust(8, b"\0"), "little")), stx(DW, R10, R1, -16), st(DW, R10, -8, 0),
                mov64_reg(R1, R10), alu64_imm(ADD, R1, -16), mov64_imm(R2, size),
                ld_imm64(R3, 3 | off << 32, PSEUDO_MAP_VALUE), call(FN_strncmp), exit_())


STRING_CASES: dict[str, list[str]] = {
    # the number's bytes taken (its result at [8]), or an error and 0
    **{f"{name}{k // 2}": strtox_case(fn, STRTOX_INPUTS[k:k + 2]) for name, fn in (("strtol", FN_strtol),
                                                                                  ("strtoul", FN_strtoul))
       for k in range(0, len(STRTOX_INPUTS), 2)},
    **{f"{name}_long{k}": strtox_case(fn, [inp]) for name, fn in (("strtol", FN_strtol), ("strtoul", FN_strtoul))
       for k, inp in enumerate(STRTOX_LONG_INPUTS)},
    # the second string a constant of a frozen read-only map: -1, 0 or 1
    "strncmp": ["map", "2", "4", "8", "1", RDONLY_PROG, "upd", "3", "00000000", b"abc\0\0\0\0\0".hex(),
                "raw", "22", "03000000",
                "load", "17", strncmp_prog(b"abd", 4), "run", "4", "load", "17", strncmp_prog(b"abb", 4), "run", "5"],
    "strncmp_equal": ["map", "2", "4", "8", "1", RDONLY_PROG, "upd", "3", "00000000", b"abc\0\0\0\0\0".hex(),
                      "raw", "22", "03000000", "load", "17", strncmp_prog(b"abc", 8), "run", "4",
                      "load", "17", strncmp_prog(b"abd", 2), "run", "5", "load", "17", strncmp_prog(b"bc", 8, 1), "run", "6"],
    "strncmp_not_readonly": ["map", "2", "4", "8", "1", "load", "17", strncmp_prog(b"abc", 4), "1"],
    "strncmp_not_frozen": ["map", "2", "4", "8", "1", RDONLY_PROG, "load", "17", strncmp_prog(b"abc", 4), "1"],
    "strncmp_unterminated": ["map", "2", "4", "8", "1", RDONLY_PROG, "upd", "3", "00000000", b"abcdefgh".hex(),
                             "raw", "22", "03000000", "load", "17", strncmp_prog(b"abc", 4), "1",
                             "map", "2", "4", "8", "1", RDONLY_PROG, "upd", "4", "00000000", b"abcdef\0h".hex(),
                             "raw", "22", "04000000", "load", "17", strncmp_prog(b"abc", 4, 7), "1",
                             "load", "17", strncmp_prog(b"abc", 4, 8), "1"],
    "strncmp_stack_string": ["load", "17", prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -8), st(DW, R10, -8, 0),
                                                mov64_imm(R2, 4), mov64_reg(R3, R1), call(FN_strncmp), exit_()), "1"],
    # the result: 8 bytes of stack (or a map value), aligned
    "strtol_result_unaligned": ["load", "17", prog(st(DW, R10, -16, 0x31), mov64_reg(R1, R10), alu64_imm(ADD, R1, -16),
                                                   mov64_imm(R2, 1), mov64_imm(R3, 0), mov64_reg(R4, R10),
                                                   alu64_imm(ADD, R4, -7), call(FN_strtol), exit_()), "1"],
    "strtol_result_short": ["load", "17", prog(st(DW, R10, -16, 0x31), mov64_reg(R1, R10), alu64_imm(ADD, R1, -16),
                                               mov64_imm(R2, 1), mov64_imm(R3, 0), mov64_reg(R4, R10),
                                               alu64_imm(ADD, R4, -4), call(FN_strtol), exit_()), "1"],
}


# ---- bpf_snprintf(): a constant format (a frozen read-only map's) and an array of u64s ----
FN_snprintf = 165


def snprintf_prog(data: list[int], size: int, out: bool = True, data_len: int | None = None) -> str:
    """bpf_snprintf(map 4's value 0 (NULL: not out), size, map 3's value, data at fp-40,
    data_len (its size)); the return at map 4's value + 32"""
    stores = [st(DW, R10, -40 + 8 * k, v) for k, v in enumerate(data)]
    return prog(st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4), ld_map_fd(R1, 4),
                call(FN_map_lookup_elem), jmp_imm(JNE, R0, 0, 1), exit_(), mov64_reg(R7, R0), *stores,
                mov64_reg(R1, R7) if out else mov64_imm(R1, 0), mov64_imm(R2, size),
                ld_imm64(R3, 3, PSEUDO_MAP_VALUE), mov64_reg(R4, R10), alu64_imm(ADD, R4, -40),
                mov64_imm(R5, 8 * len(data) if data_len is None else data_len), call(FN_snprintf),
                stx(DW, R7, R0, 32), mov64_imm(R0, 0), exit_())


def snprintf_maps(fmt: bytes) -> list[str]:
    return ["map", "2", "4", "16", "1", RDONLY_PROG, "upd", "3", "00000000", fmt.ljust(16, b"\0").hex(),
            "raw", "22", "03000000", "map", "2", "4", "40", "1"]


SNPRINTF_CASES: dict[str, list[str]] = {
    # the output, NUL-terminated in size bytes, and its whole length with the NUL
    "snprintf": snprintf_maps(b"%d %x %5u|") + ["load", "17", snprintf_prog([-7, 255, 3], 32), "run", "5",
                                               "get", "4", "00000000"],
    "snprintf_truncated": snprintf_maps(b"%d %x %5u|") + ["load", "17", snprintf_prog([-7, 255, 3], 4), "run", "5",
                                                         "get", "4", "00000000"],
    "snprintf_no_output": snprintf_maps(b"%d %x %5u|") + ["load", "17", snprintf_prog([-7, 255, 3], 0, False),
                                                         "run", "5", "get", "4", "00000000"],
    "snprintf_char_percent": snprintf_maps(b"%c%%%-3d|%lx") + ["load", "17", snprintf_prog([65, 5, -1], 32),
                                                              "run", "5", "get", "4", "00000000"],
    # the verifier: as many arguments as conversions at least, whole u64s
    "snprintf_too_few_args": snprintf_maps(b"%d %d") + ["load", "17", snprintf_prog([1], 32), "1"],
    "snprintf_partial_arg": snprintf_maps(b"%d") + ["load", "17", snprintf_prog([1, 2], 32, data_len=12), "1"],
    "snprintf_bad_conversion": snprintf_maps(b"%q") + ["load", "17", snprintf_prog([1], 32), "1"],
    # a base helper for CAP_PERFMON: a socket filter has it too (GPL only)
    "snprintf_socket_filter": snprintf_maps(b"%d") + ["load", "1", snprintf_prog([1], 32), "load", "1",
                                                     snprintf_prog([1], 32), "1", "L=MIT"],
}


# BPF_TASK_FD_QUERY (bpftool perf): what the program behind a process's fd is attached to: a
# kprobe PMU event's function and offset (a kretprobe's too; none without a program: ENOENT), a
# raw tracepoint link's tracepoint; the name cut short to the buffer (ENOSPC) or not copied at
# all; ENOTSUPP for a program's fd and a file; flags, a missing fd or process
TASK_FD_QUERY_CASES: dict[str, list[str]] = {
    "task_fd_query": ["load", "2", OK0, "kpevt", "6", "vfs_read", "0", "0", "setbpf", "4", "3",
                      "tfq", "-", "4", "0", "64", "3", "tfq", "-", "4", "0", "4", "3", "tfq", "-", "4", "0", "0", "3",
                      "kpevt", "6", "vfs_write", "0", "1", "tfq", "-", "5", "0", "64", "3",
                      "setbpf", "5", "3", "tfq", "-", "5", "0", "64", "3",
                      "load", "17", OK0, "rawtp", "6", "sched_switch", "tfq", "-", "7", "0", "64", "6",
                      "tfq", "-", "7", "0", "5", "6"],
    "task_fd_query_errors": ["load", "2", OK0, "kpevt", "6", "vfs_read", "0", "0", "setbpf", "4", "3",
                             "tfq", "-", "4", "1", "64", "3", "tfq", "-", "3", "0", "64", "3",
                             "tfq", "-", "0", "0", "64", "3", "tfq", "-", "99", "0", "64", "3",
                             "tfq", "999999", "4", "0", "64", "3"],
}

CASES: dict[str, list[str]] = {
    # maps
    "hash_crud": ["map", "1", "4", "8", "4", "upd", "3", K4, "2a00000000000000", "get", "3", K4,
                  "upd", "3", K4, "2b00000000000000", "1", "upd", "3", K4, "2b00000000000000", "2",
                  "get", "3", K4],
    "hash_flags_delete": ["map", "1", "4", "8", "4", "upd", "3", "02000000", "00", "2", "upd", "3", K4, "00", "4",
                          "upd", "3", K4, "00", "3", "upd", "3", K4, "07", "del", "3", K4, "del", "3", K4],
    "hash_delete_get": ["map", "1", "4", "8", "4", "upd", "3", K4, "07", "del", "3", K4, "get", "3", K4],
    "hash_full": ["map", "1", "4", "4", "2", "upd", "3", "01000000", "01000000",
                  "upd", "3", "02000000", "02000000", "upd", "3", "03000000", "03000000",
                  "upd", "3", "02000000", "05000000"],
    "hash_full_no_prealloc": ["map", "1", "4", "4", "2", "1",
                              "upd", "3", "01000000", "01000000", "upd", "3", "02000000", "02000000",
                              "upd", "3", "03000000", "03000000", "del", "3", "01000000",
                              "upd", "3", "03000000", "03000000"],
    # cpudist's map: pid_max (4194304) entries preallocated, 300 MB that 6.1 vmallocs
    "hash_pid_max_prealloc": ["map", "1", "8", "8", "4194304", "upd", "3", K4 + K4, "2a00000000000000",
                              "get", "3", K4 + K4, "get", "3", "0700000007000000"],
    # runqslower's: an array of pid_max u64s, 32 MB (6.1 vmallocs it)
    "array_pid_max": ["map", "2", "4", "8", "4194304", "upd", "3", "ffff3f00", "2a00000000000000",
                      "get", "3", "ffff3f00", "get", "3", "00004000"],
    "hash_next_key": ["map", "1", "4", "4", "8", "next", "3", "-", "upd", "3", "07000000", "00000000",
                      "next", "3", "-", "next", "3", "07000000", "next", "3", "09000000"],
    "array_ops": ["map", "2", "4", "8", "3", "get", "3", "02000000", "get", "3", "03000000",
                  "upd", "3", "02000000", "0102030405060708", "get", "3", "02000000",
                  "upd", "3", "03000000", "0102030405060708", "upd", "3", "00000000", "00", "1"],
    "array_next_delete": ["map", "2", "4", "8", "3", "del", "3", "00000000", "next", "3", "-",
                          "next", "3", "01000000", "next", "3", "02000000", "next", "3", "09000000"],
    "map_create_errors": ["map", "2", "8", "4", "1", "map", "2", "4", "0", "1", "map", "1", "4", "4", "0",
                          "map", "1", "0", "4", "1", "map", "99", "4", "4", "1"],
    "map_create_flag_errors": ["map", "1", "4", "4", "1", "2", "map", "2", "4", "4", "1", "24",
                               "map", "5", "4", "8", "2", "4", "map", "2", "4", "4", "1", "8", "map", "1", "4", "4", "1", "64"],
    # LRU hash maps: always preallocated; BPF_F_NO_COMMON_LRU (theirs only) gives each of the 2
    # cpus an LRU of its own, max_entries rounded to a multiple of the cpus
    "lru_create_errors": ["map", "9", "4", "8", "4", "1", "map", "1", "4", "8", "4", "2",
                          "map", "10", "4", "8", "3", "2", "minfo", "3", "map", "9", "4", "8", "5", "2", "minfo", "4"],
    # a new key in a full map: the refill of the cpu's free list shrinks the inactive list, and
    # every key no program looked up goes
    "lru_evicts": ["map", "9", "4", "8", "4"] + [a for k in range(4) for a in ("upd", "3", f"0{k}000000", f"0{k}" + "00" * 7)]
                  + ["upd", "3", "04000000", "04" + "00" * 7] + [a for k in range(5) for a in ("get", "3", f"0{k}000000")],
    # a program's lookup marks key 0 used: it stays (the syscall's lookup marks nothing)
    "lru_lookup_keeps": ["map", "9", "4", "8", "4"] + [a for k in range(4) for a in ("upd", "3", f"0{k}000000", f"0{k}" + "00" * 7)]
                        + ["get", "3", "01000000", "load", "17", lookup_prog(3), "pinfo", "4", "run", "4",
                           "upd", "3", "04000000", "04" + "00" * 7] + [a for k in range(5) for a in ("get", "3", f"0{k}000000")],
    # replacing a key takes a free element first: a full map of 2 still replaces; flags as hash's
    "lru_replace_flags": ["map", "9", "4", "8", "2", "upd", "3", K4, "01" + "00" * 7, "upd", "3", K4, "02" + "00" * 7,
                          "upd", "3", K4, "03" + "00" * 7, "1", "upd", "3", "02000000", "00" * 8, "2",
                          "upd", "3", "02000000", "00" * 8, "4", "get", "3", K4, "del", "3", K4, "del", "3", K4,
                          "next", "3", "-"],
    "lru_percpu": ["cpus", "2", "map", "10", "4", "8", "2",
                   "upd", "3", "00000000", "0500000000000000" "0600000000000000", "get", "3", "00000000",
                   "upd", "3", "00000000", "0700000000000000" "0700000000000000", "2", "get", "3", "00000000",
                   "load", "17", lookup_prog(3), "1", "run", "4", "del", "3", "00000000", "get", "3", "00000000"],
    "map_fd_errors": ["get", "0", K4, "get", "99", K4, "upd", "-1", K4, K4, "next", "42", "-"],
    "map_info": ["map", "1", "8", "16", "32", "minfo", "3", "map", "6", "4", "4", "2", "minfo", "4",
                 "minfo", "9"],
    "percpu_array": ["cpus", "2", "map", "6", "4", "4", "2", "get", "3", "01000000",
                     "upd", "3", "01000000", "0100000000000000" "0200000000000000", "get", "3", "01000000"],
    # perf event arrays: fds of perf events as values; the syscall cannot look one up
    "perf_event_array_ops": ["map", "4", "4", "4", "2", "map", "4", "4", "8", "2", "get", "3", K4,
                             "upd", "3", K4, "03000000", "upd", "3", "05000000", "03000000",
                             "upd", "3", K4, "03000000", "1"],
    "perf_event_array_delete": ["map", "4", "4", "4", "2", "del", "3", K4, "del", "3", "05000000",
                                "next", "3", "-", "minfo", "3"],
    # which maps a helper takes
    "perf_output_to_perf_event_array": ["map", "4", "4", "4", "2", "load", "2", perf_output_prog(3), "1"],
    "perf_output_to_hash": ["map", "1", "4", "4", "2", "load", "2", perf_output_prog(3), "1"],
    "lookup_in_perf_event_array": ["map", "4", "4", "4", "2", "load", "2", lookup_prog(3), "1"],
    # programs that load
    "load_ok": ["load", "17", OK0, "1", "pinfo", "3", "run", "3"],
    "load_ok_loglevel2": ["load", "17", OK0, "2"],
    "run_lookup": ["map", "2", "4", "8", "1", "upd", "3", "00000000", "2a00000000000000",
                   "load", "17", lookup_prog(3), "pinfo", "4", "run", "4"],
    "run_alu": ["load", "17", prog(mov64_imm(R0, 7), alu64_imm(MUL, R0, 6), mov64_imm(R1, 0),
                                 alu64_reg(DIV, R0, R1), alu64_imm(ADD, R0, 40), mov32_imm(R2, -1),
                                 alu64_imm(RSH, R2, 28), alu64_reg(ADD, R0, R2), alu32_imm(NEG, R0, 0),
                                 alu64_imm(AND, R0, 0xff), exit_()), "run", "3"],
    "run_ctx": ["load", "17", prog(ldx(DW, R0, R1, 8), ldx(DW, R2, R1, 0), alu64_reg(SUB, R0, R2), exit_()),
                "1", "run", "3", "0300000000000000" "0a00000000000000"],
    "run_atomic": ["load", "17", prog(st(DW, R10, -8, 5), mov64_imm(R1, 3), atomic(DW, ADD | FETCH, R10, R1, -8),
                                     ldx(DW, R0, R10, -8), alu64_imm(LSH, R0, 8), alu64_reg(OR, R0, R1),
                                     exit_()), "run", "3"],
    "run_loop": ["load", "17", prog(mov64_imm(R0, 0), mov64_imm(R1, 0), alu64_reg(ADD, R0, R1),
                                   alu64_imm(ADD, R1, 1), jmp_imm(JLT, R1, 10, -3), exit_()), "run", "3"],
    "test_run_unsupported": ["load", "2", OK0, "run", "3", "load", "5", OK0, "run", "4"],
    # programs the verifier rejects
    "r0_not_init": ["load", "17", prog(exit_()), "1"],
    "r2_not_read_ok": ["load", "17", prog(mov64_reg(R0, R2), exit_()), "1"],
    "stack_uninit": ["load", "17", prog(ldx(DW, R0, R10, -8), exit_()), "1"],
    "stack_oob": ["load", "17", prog(st(DW, R10, -520, 0), mov64_imm(R0, 0), exit_()), "1"],
    "stack_positive": ["load", "17", prog(st(DW, R10, 8, 0), mov64_imm(R0, 0), exit_()), "1"],
    "null_deref": ["map", "1", "4", "8", "4",
                   "load", "17", prog(st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4),
                                      ld_map_fd(R1, 3), call(FN_map_lookup_elem), ldx(DW, R0, R0, 0),
                                      exit_()), "1"],
    "map_value_oob": ["map", "1", "4", "8", "4",
                      "load", "17", prog(st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4),
                                         ld_map_fd(R1, 3), call(FN_map_lookup_elem), jmp_imm(JEQ, R0, 0, 1),
                                         ldx(DW, R0, R0, 4), exit_()), "1"],
    "unknown_helper": ["load", "2", prog(call(9999), mov64_imm(R0, 0), exit_()), "1"],
    "helper_wrong_prog_type": ["load", "2", prog(call(9), mov64_imm(R0, 0), exit_()), "1"],
    "ctx_write_kprobe": ["load", "2", prog(st(DW, R1, 0, 0), mov64_imm(R0, 0), exit_()), "1"],
    "ctx_oob_kprobe": ["load", "2", prog(ldx(DW, R0, R1, 168), exit_()), "1"],
    "ctx_tracepoint_head": ["load", "5", prog(ldx(DW, R0, R1, 0), exit_()), "1",
                            "load", "5", prog(ldx(DW, R0, R1, 8), exit_()), "1"],
    "unreachable": ["load", "17", prog(mov64_imm(R0, 0), exit_(), mov64_imm(R0, 1), exit_()), "1"],
    "jump_out_of_range": ["load", "17", prog(ja(5), mov64_imm(R0, 0), exit_()), "1"],
    "infinite_loop": ["load", "17", prog(mov64_imm(R0, 0), jmp_imm(JEQ, R0, 0, -1), exit_()), "1"],
    "del_attr_tail": ["map", "1", "4", "4", "2", "raw", "3", "03000000" "00000000" + "00" * 8 + "0100000000000000", "32"],
    "bounded_loop_ok": ["load", "17", prog(mov64_imm(R0, 0), mov64_imm(R1, 0), alu64_reg(ADD, R0, R1),
                                          alu64_imm(ADD, R1, 1), jmp_imm(JLT, R1, 100, -3), exit_()), "1"],
    "unbounded_loop": ["load", "2", prog(ldx(DW, R1, R1, 0), mov64_imm(R0, 0), alu64_imm(ADD, R0, 1),
                                        jmp_reg(JLT, R0, R1, -2), exit_()), "1"],
    "branches_log2": ["map", "2", "4", "8", "1",
                      "load", "17", prog(st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4),
                                         ld_map_fd(R1, 3), call(FN_map_lookup_elem), jmp_imm(JNE, R0, 0, 2),
                                         mov64_imm(R0, 1), exit_(), ldx(W, R1, R0, 0), alu64_imm(AND, R1, 15),
                                         mov64_reg(R0, R1), exit_()), "2"],
    "comm_helper": ["load", "17", prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -16), mov64_imm(R2, 16),
                                      call(FN_get_current_comm), ldx(B, R0, R10, -16), exit_()), "1", "run", "3"],
    "probe_read_kernel_user_addr": ["load", "17", prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -8), mov64_imm(R2, 8),
                                                      mov64_imm(R3, 4096), call(FN_probe_read_kernel), exit_()),
                                    "run", "3"],
    "scalar_bounds_log": ["load", "2", prog(ldx(DW, R2, R1, 0), alu64_imm(AND, R2, 0xff), alu64_imm(ADD, R2, 3),
                                           mov64_reg(R3, R2), alu64_imm(RSH, R3, 1), alu32_imm(MOV, R4, -1),
                                           mov64_imm(R0, 0), exit_()), "2"],
    "bad_opcode": ["load", "17", prog(insn(0xff), mov64_imm(R0, 0), exit_()), "1"],
    "fall_off": ["load", "17", prog(mov64_imm(R0, 0)), "1"],
    "write_fp": ["load", "17", prog(mov64_imm(R10, 0), mov64_imm(R0, 0), exit_()), "1"],
    "no_log_rejected": ["load", "17", prog(exit_())],
    "map_fd_not_map": ["load", "17", prog(ld_map_fd(R1, 0), mov64_imm(R0, 0), exit_()), "1"],
    "lookup_key_uninit": ["map", "1", "4", "8", "4",
                          "load", "17", prog(mov64_reg(R2, R10), alu64_imm(ADD, R2, -4), ld_map_fd(R1, 3),
                                             call(FN_map_lookup_elem), mov64_imm(R0, 0), exit_()), "1"],
    "gpl_only_helper_ok": ["load", "2", prog(call(FN_ktime_get_ns), exit_()), "1", "L=Proprietary"],
    "empty_prog": ["load", "17", ""],
    "run_hash_lookup": ["map", "1", "4", "8", "4", "upd", "3", "00000000", "2a00000000000000",
                        "load", "17", lookup_prog(3), "pinfo", "4", "run", "4"],
    "run_update_from_prog": ["map", "1", "4", "8", "4",
                             "load", "17", prog(st(W, R10, -4, 1), st(DW, R10, -16, 7), mov64_reg(R2, R10),
                                                alu64_imm(ADD, R2, -4), mov64_reg(R3, R10), alu64_imm(ADD, R3, -16),
                                                ld_map_fd(R1, 3), mov64_imm(R4, 0), call(FN_map_update_elem),
                                                exit_()), "run", "4", "get", "3", "01000000"],
    "run_percpu_lookup": ["cpus", "2", "map", "5", "4", "8", "2",
                          "upd", "3", "00000000", "0500000000000000" "0500000000000000",
                          "load", "17", lookup_prog(3), "1", "run", "4"],
    "run_map_value_atomic": ["map", "2", "4", "8", "1",
                             "load", "17", prog(st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4),
                                                ld_map_fd(R1, 3), call(FN_map_lookup_elem), jmp_imm(JEQ, R0, 0, 3),
                                                mov64_imm(R1, 5), atomic(DW, ADD, R0, R1, 0), mov64_imm(R0, 0),
                                                exit_()), "run", "4", "run", "4", "get", "3", "00000000"],
    "spill_fill": ["load", "17", prog(ld_imm64(R1, 0x123456789), stx(DW, R10, R1, -8), ldx(DW, R0, R10, -8),
                                     alu64_imm(RSH, R0, 4), exit_()), "2", "run", "3"],
    "ptr_bitwise": ["load", "17", prog(mov64_reg(R0, R10), alu64_imm(AND, R0, 7), mov64_imm(R0, 0), exit_()), "1"],
    "ptr_alu32": ["load", "17", prog(mov64_reg(R2, R10), alu32_imm(ADD, R2, 8), mov64_imm(R0, 0), exit_()), "1"],
    "variable_map_value": ["map", "2", "4", "16", "1",
                           "load", "2", prog(ldx(DW, R6, R1, 0), st(W, R10, -4, 0), mov64_reg(R2, R10),
                                             alu64_imm(ADD, R2, -4), ld_map_fd(R1, 3), call(FN_map_lookup_elem),
                                             jmp_imm(JEQ, R0, 0, 4), alu64_imm(AND, R6, 15), alu64_reg(ADD, R0, R6),
                                             ldx(B, R0, R0, 0), exit_(), exit_()), "1"],
    "variable_map_value_ok": ["map", "2", "4", "16", "1",
                              "load", "2", prog(ldx(DW, R6, R1, 0), st(W, R10, -4, 0), mov64_reg(R2, R10),
                                                alu64_imm(ADD, R2, -4), ld_map_fd(R1, 3), call(FN_map_lookup_elem),
                                                jmp_imm(JEQ, R0, 0, 4), alu64_imm(AND, R6, 7), alu64_reg(ADD, R0, R6),
                                                ldx(W, R0, R0, 0), exit_(), exit_()), "1"],
    "div_by_zero_imm": ["load", "17", prog(mov64_imm(R0, 1), alu64_imm(DIV, R0, 0), exit_()), "1"],
    "bad_shift": ["load", "17", prog(mov64_imm(R0, 1), alu32_imm(LSH, R0, 32), exit_()), "1"],
    "probe_read_kernel_unmapped": ["load", "17", prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -8), mov64_imm(R2, 8),
                                                     ld_imm64(R3, 0xffff800000000000), call(FN_probe_read_kernel),
                                                     exit_()), "run", "3"],
    "probe_read_kernel_noncanonical": ["load", "17", prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -8), mov64_imm(R2, 8),
                                                         ld_imm64(R3, 0x8000000000000000), call(FN_probe_read_kernel),
                                                         exit_()), "run", "3"],
    "ids": ["map", "2", "4", "4", "1", "load", "17", OK0, "raw", "12", "00000000", "12", "raw", "11", "00000000", "12",
            "raw", "14", "ffffff7f", "12", "raw", "13", "ffffff7f", "12", "close", "3", "raw", "12", "ffffff7f", "12"],
    # perf_event programs: bpf_perf_event_data (regs, sample_period, addr), rewritten loads
    "pe_ctx_reads": ["load", "7", prog(ldx(DW, R2, R1, 128), ldx(DW, R3, R1, 168), ldx(W, R4, R1, 172),
                                       ldx(H, R5, R1, 170), ldx(DW, R0, R1, 176), exit_()), "1", "run", "3"],
    "pe_ctx_regs_narrow": ["load", "7", prog(ldx(W, R0, R1, 0), exit_()), "1"],
    "pe_ctx_past_end": ["load", "7", prog(ldx(DW, R0, R1, 184), exit_()), "1"],
    "pe_ctx_unaligned": ["load", "7", prog(ldx(W, R0, R1, 170), exit_()), "1"],
    "pe_ctx_write": ["load", "7", prog(mov64_imm(R2, 0), stx(DW, R1, R2, 168), mov64_imm(R0, 0), exit_()), "1",
                     "load", "7", prog(st(DW, R1, 168, 0), mov64_imm(R0, 0), exit_()), "1"],
    "pe_ctx_mixed_pointers": ["load", "7", prog(ldx(DW, R2, R1, 0), mov64_reg(R3, R1), st(DW, R10, -8, 0),
                                                jmp_imm(JEQ, R2, 0, 2), mov64_reg(R3, R10), alu64_imm(ADD, R3, -8),
                                                ldx(DW, R0, R3, 0), exit_()), "1"],
    "pe_read_value": ["load", "7", prog(mov64_reg(R2, R10), alu64_imm(ADD, R2, -24), mov64_imm(R3, 24),
                                        call(FN_perf_prog_read_value), exit_()), "1"],
    "pe_helper_not_kprobe": ["load", "2", prog(mov64_reg(R2, R10), alu64_imm(ADD, R2, -24), mov64_imm(R3, 24),
                                               call(FN_perf_prog_read_value), exit_()), "1"],
    # stack trace maps: chains by id, for bpf_get_stackid() only
    "stack_map_create": ["map", "7", "4", "1016", "4", "map", "7", "4", "1024", "4", "map", "7", "4", "12", "4",
                         "map", "7", "8", "16", "4", "map", "7", "4", "1016", "4", "32", "map", "7", "4", "16", "0"],
    "stack_map_ops": ["map", "7", "4", "16", "4", "get", "3", K4, "next", "3", "-", "upd", "3", K4, "00" * 16,
                      "del", "3", K4, "del", "3", "08000000", "minfo", "3"],
    "get_stackid_ok": ["map", "7", "4", "1016", "4",
                       "load", "2", prog(ld_map_fd(R2, 3), mov64_imm(R3, 0), call(FN_get_stackid), exit_()), "1",
                       "load", "7", prog(ld_map_fd(R2, 3), mov64_imm(R3, 0), call(FN_get_stackid), exit_()), "1"],
    "get_stackid_hash_map": ["map", "1", "4", "8", "4",
                             "load", "2", prog(ld_map_fd(R2, 3), mov64_imm(R3, 0), call(FN_get_stackid), exit_()), "1"],
    # BPF_F_STACK_BUILD_ID (32): values a whole number of struct bpf_stack_build_id (32 bytes),
    # at most 127 of them (perf_event_max_stack)
    "stackmap_build_id_create": ["map", "7", "4", "32", "4", "32", "map", "7", "4", "16", "4", "32",
                                 "map", "7", "4", "48", "4", "32", "map", "7", "4", "4064", "4", "32",
                                 "map", "7", "4", "4096", "4", "32", "minfo", "3"],
    # bpf_get_stack into the stack: what it returns is at most the size (or an errno), so it
    # may size a later read (do_refine_retval_range); a perf event's and a tracepoint's too
    "get_stack_size_as_length": ["load", "2", prog(
        mov64_reg(R6, R1), mov64_reg(R2, R10), alu64_imm(ADD, R2, -64), mov64_imm(R3, 64), mov64_imm(R4, 256),
        call(FN_get_stack), jmp_imm(JSLT, R0, 0, 5), mov64_reg(R2, R0), mov64_reg(R1, R10), alu64_imm(ADD, R1, -64),
        mov64_imm(R3, 0), call(FN_probe_read_kernel), mov64_imm(R0, 0), exit_()), "1",
        "load", "7", prog(mov64_reg(R2, R10), alu64_imm(ADD, R2, -64), mov64_imm(R3, 64), mov64_imm(R4, 0),
                          call(FN_get_stack), exit_()), "1",
        "load", "5", prog(mov64_reg(R2, R10), alu64_imm(ADD, R2, -64), mov64_imm(R3, 64), mov64_imm(R4, 0),
                          call(FN_get_stack), exit_()), "1",
        # past the buffer: the size is what is checked
        "load", "2", prog(mov64_reg(R2, R10), alu64_imm(ADD, R2, -64), mov64_imm(R3, 72), mov64_imm(R4, 0),
                          call(FN_get_stack), exit_()), "1"],
    "lookup_in_stack_map": ["map", "7", "4", "16", "4", "load", "2", lookup_prog(3), "1"],
    # ring buffer maps (BPF_MAP_TYPE_RINGBUF, 27): creation rules, no element commands, info
    # sizes past a page: up to 256 MiB on a machine of 1 GiB (each freed before the next); 512
    # MiB and more: ENOMEM (the memory is not there); 2^32 is 0 in max_entries: EINVAL
    "ringbuf_sizes": [a for size in (1 << 22, 1 << 23, 1 << 24, 1 << 26, 1 << 28, 1 << 29, 1 << 31, 1 << 32)
                      for a in ("map", "27", "0", "0", str(size), "close", "3")],
    "ringbuf_create_errors": ["map", "27", "4", "0", "4096", "map", "27", "0", "4", "4096", "map", "27", "0", "0", "12288",
                              "map", "27", "0", "0", "100", "map", "27", "0", "0", "0", "map", "27", "0", "0", "4096", "1",
                              "map", "27", "0", "0", "4096", "minfo", "3"],
    "ringbuf_elem_ops": ["map", "27", "0", "0", "4096", "get", "3", "", "upd", "3", "", "", "del", "3", "",
                         "next", "3", "-", "next", "3", "00"],
    # bpf_ringbuf_output of 8 bytes: a record of 16 (header and sample); bpf_ringbuf_query's answers
    "ringbuf_output_query": ["map", "27", "0", "0", "4096", "load", "17", RB_OUTPUT_QUERY(0), "run", "4", "run", "4",
                             "load", "17", RB_QUERY(1), "run", "5", "load", "17", RB_QUERY(3), "run", "6",
                             "load", "17", RB_QUERY(2), "run", "7"],
    # reserve 12 bytes (a record of 24), fill, submit or discard; flags make reserve NULL
    "ringbuf_reserve_submit": ["map", "27", "0", "0", "4096", "load", "17", RB_RESERVE(12, 0, FN_ringbuf_submit), "1",
                               "run", "4", "run", "4", "load", "17", RB_RESERVE(12, 0, FN_ringbuf_discard), "run", "5",
                               "load", "17", RB_RESERVE(12, 1, FN_ringbuf_submit), "run", "6"],
    # nobody reads: a record of 4008 fits, a second not (NULL); five of 16 more, a sixth not
    # (output's -EAGAIN): the producer stays less than the size ahead of the consumer
    "ringbuf_full": ["map", "27", "0", "0", "4096", "load", "17", RB_RESERVE(4000, 0, FN_ringbuf_submit), "run", "4",
                     "run", "4", "load", "17", RB_OUTPUT8] + ["run", "5"] * 6,
    # the verifier: a reservation must be released, on every path that has it
    "ringbuf_unreleased": ["map", "27", "0", "0", "4096", "load", "17", prog(
        ld_map_fd(R1, 3), mov64_imm(R2, 8), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
        jmp_imm(JEQ, R0, 0, 1), st(DW, R0, 0, 1), mov64_imm(R0, 0), exit_()), "1"],
    "ringbuf_size_not_const": ["map", "27", "0", "0", "4096", "load", "17", prog(
        call(FN_get_prandom_u32), mov64_reg(R2, R0), ld_map_fd(R1, 3), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
        mov64_imm(R0, 0), exit_()), "1"],
    "ringbuf_no_null_check": ["map", "27", "0", "0", "4096", "load", "17", prog(
        ld_map_fd(R1, 3), mov64_imm(R2, 8), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
        st(DW, R0, 0, 1), mov64_reg(R1, R0), mov64_imm(R2, 0), call(FN_ringbuf_submit), mov64_imm(R0, 0), exit_()), "1"],
    "ringbuf_out_of_bounds": ["map", "27", "0", "0", "4096", "load", "17", prog(
        ld_map_fd(R1, 3), mov64_imm(R2, 8), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
        jmp_imm(JEQ, R0, 0, 4), st(DW, R0, 4, 1), mov64_reg(R1, R0), mov64_imm(R2, 0), call(FN_ringbuf_submit),
        mov64_imm(R0, 0), exit_()), "1"],
    "ringbuf_use_after_submit": ["map", "27", "0", "0", "4096", "load", "17", prog(
        ld_map_fd(R1, 3), mov64_imm(R2, 8), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
        jmp_imm(JEQ, R0, 0, 5), mov64_reg(R6, R0), mov64_reg(R1, R0), mov64_imm(R2, 0), call(FN_ringbuf_submit),
        st(DW, R6, 0, 1), mov64_imm(R0, 0), exit_()), "1"],
    "ringbuf_submit_offset": ["map", "27", "0", "0", "4096", "load", "17", prog(
        ld_map_fd(R1, 3), mov64_imm(R2, 16), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
        jmp_imm(JEQ, R0, 0, 4), mov64_reg(R1, R0), alu64_imm(ADD, R1, 8), mov64_imm(R2, 0), call(FN_ringbuf_submit),
        mov64_imm(R0, 0), exit_()), "1"],
    "ringbuf_submit_stack": ["load", "17", prog(
        st(DW, R10, -8, 0), mov64_reg(R1, R10), alu64_imm(ADD, R1, -8), mov64_imm(R2, 0), call(FN_ringbuf_submit),
        mov64_imm(R0, 0), exit_()), "1"],
    "ringbuf_wrong_maps": ["map", "27", "0", "0", "4096", "map", "1", "4", "8", "4",
                           "load", "17", lookup_prog(3), "1", "load", "17", RB_OUTPUT_QUERY(0, 4), "1"],
    # a reservation is memory helpers may fill (get_current_comm into it), then submitted
    "ringbuf_sample_to_helper": ["map", "27", "0", "0", "4096", "load", "17", prog(
        ld_map_fd(R1, 3), mov64_imm(R2, 16), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
        jmp_imm(JEQ, R0, 0, 7), mov64_reg(R6, R0), mov64_reg(R1, R0), mov64_imm(R2, 16), call(FN_get_current_comm),
        mov64_reg(R1, R6), mov64_imm(R2, 0), call(FN_ringbuf_submit), mov64_imm(R0, 0), exit_()), "run", "4"],
    # 6.1 tracks any number of held reservations (acquired_refs grows): 12, or 48, at once,
    # 16 bytes of records each (the program too long for an argument: test_bpf.py gives it on
    # bpftest's stdin)
    **{f"ringbuf_{n}_held": ["map", "27", "0", "0", "4096", "load", "17", RB_HOLD(n), "run", "4",
                             "load", "17", RB_QUERY(0), "run", "5"] for n in (12, 48)},
    **CALL_CASES,
    **TAIL_CALL_CASES,
    **QUEUE_STACK_CASES,
    **STRING_CASES,
    **SNPRINTF_CASES,
    **OPCODE_CASES,
    **GOTOL_CASES,
    # a map value read 4 bytes at offset 2: x86 takes it unless BPF_F_STRICT_ALIGNMENT (1) asks,
    # and BPF_F_ANY_ALIGNMENT (2) overrides that; the stack always strict
    "strict_alignment": ["map", "2", "4", "8", "1"] + [
        a for flags in ("0", "1", "3") for a in (
            "load", "17", prog(st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4), ld_map_fd(R1, 3),
                               call(FN_map_lookup_elem), jmp_imm(JEQ, R0, 0, 1), ldx(W, R0, R0, 2), exit_()),
            "1", f"P={flags}")] + ["load", "17", prog(st(DW, R10, -8, 0), ldx(W, R0, R10, -6), exit_()), "1"],
    # BPF_MAP_*_BATCH (bpftrace reads its maps so): a hash map with BPF_F_ZERO_SEED so its
    # buckets are 6.1's; whole buckets a batch, ENOSPC when not even the first fits, ENOENT after
    # the last bucket, the out token the next bucket
    "hash_batch": ["map", "1", "4", "8", "8", "64",
                   "bupd", "3", "01000000" "02000000" "03000000" "04000000" "05000000",
                   "".join(f"{k:02x}" + "00" * 7 for k in range(1, 6)), "5",
                   "blook", "3", "-", "10", "blook", "3", "-", "2", "blook", "3", "03000000", "10",
                   "blook", "3", "-", "0", "blook", "3", "08000000", "4",
                   "blookdel", "3", "-", "2", "blook", "3", "-", "10", "next", "3", "-",
                   "bdel", "3", "01000000" "07000000" "02000000", "3", "blook", "3", "-", "10",
                   "bupd", "3", "09000000" "09000000", "09" + "00" * 7 + "0a" + "00" * 7, "2", "2",
                   "blook", "3", "-", "10"],
    # arrays: the generic batches by key (out: the last key given), no delete
    "array_batch": ["map", "2", "4", "8", "4",
                    "bupd", "3", "00000000" "02000000", "11" + "00" * 7 + "22" + "00" * 7, "2",
                    "blook", "3", "-", "3", "blook", "3", "02000000", "3", "blook", "3", "03000000", "3",
                    "blookdel", "3", "-", "3", "bdel", "3", "00000000", "1",
                    "bupd", "3", "01000000" "07000000", "33" + "00" * 7 + "44" + "00" * 7, "2",
                    "get", "3", "01000000"],
    "percpu_batch": ["cpus", "2", "map", "5", "4", "4", "4", "64", "map", "6", "4", "4", "2",
                     "bupd", "3", "01000000", "0100000000000000" "0200000000000000", "1",
                     "bupd", "4", "01000000", "0300000000000000" "0400000000000000", "1",
                     "blook", "3", "-", "4", "blook", "4", "-", "4", "blookdel", "3", "-", "4", "blook", "3", "-", "4"],
    "lru_batch": ["map", "9", "4", "8", "4", "64",
                  "bupd", "3", "01000000" "02000000", "01" + "00" * 7 + "02" + "00" * 7, "2",
                  "blookdel", "3", "-", "4", "bupd", "3", "03000000" "04000000" "05000000" "06000000",
                  "".join(f"{k:02x}" + "00" * 7 for k in range(3, 7)), "4", "blook", "3", "-", "8"],
    # BPF_F_LOCK without a spin lock, other elem_flags, flags, maps without batches (a ring
    # buffer, a stack map, a perf event array), fds that are no maps, a non-zero attr tail
    "batch_errors": ["map", "1", "4", "8", "8", "map", "27", "0", "0", "4096", "map", "7", "4", "32", "2",
                     "map", "4", "4", "4", "2", "load", "17", OK0,
                     "blook", "3", "-", "4", "4", "blook", "3", "-", "4", "1", "blook", "3", "-", "4", "0", "1",
                     "bupd", "3", K4, "00" * 8, "1", "4", "bupd", "3", K4, "00" * 8, "1", "1",
                     "blook", "4", "-", "4", "blook", "5", "-", "4", "blook", "6", "-", "4", "bdel", "6", K4, "1",
                     "blook", "7", "-", "4", "blook", "99", "-", "4", "blook", "0", "-", "4",
                     "raw", "24", "00" * 36 + "0300000000" + "00" * 19 + "01", "raw", "24", "00" * 36 + "03000000"],
    # bpf_map_lookup_percpu_elem(): cpu 1's value of a per-cpu array, NULL past the last cpu;
    # only per-cpu maps are taken
    "lookup_percpu_elem": ["cpus", "2", "map", "6", "4", "8", "1", "map", "1", "4", "8", "1",
                           "upd", "3", "00000000", "0500000000000000" "0700000000000000"] + [
        a for cpu in (0, 1, 2) for a in (
            "load", "17", prog(st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4), ld_map_fd(R1, 3),
                               mov64_imm(R3, cpu), call(FN_map_lookup_percpu_elem), jmp_imm(JEQ, R0, 0, 1),
                               ldx(DW, R0, R0, 0), exit_()), "run", str(5 + cpu))] + [
        "load", "17", prog(st(W, R10, -4, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -4), ld_map_fd(R1, 4),
                           mov64_imm(R3, 0), call(FN_map_lookup_percpu_elem), mov64_imm(R0, 0), exit_()), "1"],
    # the boot clock is the monotonic one and the time suspended (here: the host's boot clock at
    # the machine's boot), never behind it; TAI the wall clock's (past 2020); jiffies start 5
    # minutes before the 32-bit wrap at HZ 250 (run within an hour of boot); one node
    "time_helpers": ["load", "17", prog(call(FN_ktime_get_ns), mov64_reg(R6, R0), call(FN_ktime_get_boot_ns),
                                        alu64_reg(SUB, R0, R6), mov64_reg(R7, R0), mov64_imm(R0, 2),
                                        jmp_imm(JSLT, R7, 0, 7), call(FN_ktime_get_tai_ns), ld_imm64(R1, 1577836800 * 10**9),
                                        mov64_reg(R7, R0), mov64_imm(R0, 1), jmp_reg(JGT, R7, R1, 1),
                                        mov64_imm(R0, 3), exit_()), "run", "3",
                     "load", "17", prog(call(FN_jiffies64), ld_imm64(R1, (1 << 32) - 300 * 250), alu64_reg(SUB, R0, R1),
                                        mov64_reg(R6, R0), mov64_imm(R0, 1), jmp_imm(JLE, R6, 250 * 3600, 1),
                                        mov64_imm(R0, 0), exit_()), "run", "4",
                     "load", "17", prog(call(FN_get_numa_node_id), exit_()), "run", "5"],
    # bpf_send_signal(sig) and bpf_send_signal_thread(sig), run by BPF_PROG_TEST_RUN: the caller's
    # (0: none sent; 17, SIGCHLD: ignored), by an irq_work (the run is get_cpu()'s: preemption
    # off), which has run 20 ms later (here at the next tick: sooner, -EBUSY); a signal past 64:
    # EINVAL; a socket filter has neither
    "send_signal_run": ["load", "17", prog(mov64_imm(R1, 0), call(FN_send_signal), exit_()), "run", "3", "sleep", "20",
                        "load", "17", prog(mov64_imm(R1, 17), call(FN_send_signal_thread), exit_()), "run", "4",
                        "load", "17", prog(mov64_imm(R1, 65), call(FN_send_signal), exit_()), "run", "5",
                        "load", "17", prog(mov64_imm(R1, 65), call(FN_send_signal_thread), exit_()), "run", "6",
                        "load", "1", prog(mov64_imm(R1, 0), call(FN_send_signal), exit_())],
    # ... from sched_switch, whose current is the task switched out: a kernel thread or the idle
    # task (EPERM), or this process while it sleeps (0, or EINVAL for a signal past 64)
    "send_signal_kthread": send_signal_outcomes(FN_send_signal, 0),
    "send_signal_thread_kthread": send_signal_outcomes(FN_send_signal_thread, 0),
    "send_signal_bad_signal": send_signal_outcomes(FN_send_signal, 65),
    "log_too_small": ["raw", "5", "11000000" "03000000" + "00" * 8 + "00" * 8 + "01000000" + "0a000000", "128"],
    **SOCKFILTER_CASES,
    **FREEZE_CASES,
    **CGROUP_ARRAY_CASES,
    **BIND_LINK_CASES,
    **TASK_FD_QUERY_CASES,
}


def rb_reserve_ht(size: int, head: int, tail: int) -> str:
    """reserve size bytes of map 3, head at its first u32 and tail at its last, submit; 0"""
    return prog(ld_map_fd(R1, 3), mov64_imm(R2, size), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
                jmp_imm(JNE, R0, 0, 2), mov64_imm(R0, 7), exit_(),
                st(W, R0, 0, head), st(W, R0, size - 4, tail), mov64_reg(R1, R0), mov64_imm(R2, 0),
                call(FN_ringbuf_submit), mov64_imm(R0, 0), exit_())


# mmap of a ring buffer map's fd, as libbpf's ring_buffer__new maps it, and what 6.1 refuses:
# run by a session's process (the emulated kernel's own programs map no map fds:
# tests/integration/test_session_bpf_ringbuf.py), each case's output the real 6.1's too
RINGBUF_MMAP_CASES: dict[str, list[str]] = {
    # the consumer page read-write, the producer page and the data twice read only: a
    # record's header (len 12, pg_off 3) and sample in both copies
    "ringbuf_mmap": ["map", "27", "0", "0", "4096", "load", "17", RB_RESERVE(12, 0, FN_ringbuf_submit), "run", "4",
                     "mmap", "3", "0", "4096", "3", "1", "@0",
                     "mmap", "3", "4096", "12288", "1", "1", "@0", "@4096", "@4104", "@8192", "@8200"],
    # writable past the consumer page: EPERM; past the area: EINVAL; private: EINVAL; a hash
    # map: ENOTSUPP; a program: ENODEV
    "ringbuf_mmap_errors": ["map", "27", "0", "0", "4096", "map", "1", "4", "8", "4", "load", "17", OK0,
                            "mmap", "3", "4096", "12288", "3", "1", "mmap", "3", "0", "8192", "3", "1",
                            "mmap", "3", "4096", "16384", "1", "1", "mmap", "3", "0", "4096", "1", "2",
                            "mmap", "3", "0", "4096", "3", "2", "mmap", "4", "0", "4096", "1", "1",
                            "mmap", "5", "0", "4096", "1", "1"],
    # a mapping keeps the map after its fd (and the program's) is closed: a second buffer made
    # then has pages of its own, and the first one's record (0x5678) is still what the mapping
    # shows, as the second one's (0x1111) is in its own; after munmap, a third one reads empty
    "ringbuf_mmap_outlives_fd": ["map", "27", "0", "0", "4096", "load", "17", RB_RESERVE(12, 0, FN_ringbuf_submit),
                                 "run", "4", "mmapk", "3", "4096", "12288", "1", "1", "close", "4", "close", "3",
                                 "map", "27", "0", "0", "4096", "load", "17", rb_reserve_ht(8, 0x1111, 0x2222),
                                 "run", "4", "mmapk", "3", "4096", "12288", "1", "1",
                                 "peek", "0", "@0", "@4096", "@4104", "peek", "1", "@0", "@4096", "@4104",
                                 "unmap", "0", "unmap", "1", "close", "4", "close", "3",
                                 "map", "27", "0", "0", "4096", "mmap", "3", "4096", "12288", "1", "1", "@0", "@4096"],
    # a buffer of 8 MiB (more than an ordinary perf pool region holds): its record in both
    # copies of the data, 8 MiB apart
    "ringbuf_mmap_big": ["map", "27", "0", "0", str(8 << 20), "load", "17", RB_RESERVE(12, 0, FN_ringbuf_submit),
                         "run", "4", "mmap", "3", "0", "4096", "3", "1", "@0",
                         "mmap", "3", "4096", str(4096 + (16 << 20)), "1", "1", "@0", "@4096", "@4104",
                         f"@{4096 + (8 << 20)}", f"@{4104 + (8 << 20)}", f"@{(16 << 20) - 4096}"],
    # a record that wraps: its tail past the end, read linearly, and at the first copy's start
    "ringbuf_mmap_wrap": ["map", "27", "0", "0", "4096", "load", "17", rb_reserve_ht(4000, 0x1111, 0x2222),
                          "run", "4", "mmap", "3", "0", "4096", "3", "1", "!0=4008", "@0", "run", "4",
                          "mmap", "3", "4096", "12288", "1", "1", "@0", "@8104", "@12104", "@8008"],
}


# mmap of a BPF_F_MMAPABLE array's fd (libbpf's skeleton maps its global data so), from a
# session's process: the values the syscall and the process write, and 6.1's refusals
MMAPABLE = str(1 << 10)
ARRAY_MMAP_CASES: dict[str, list[str]] = {
    "array_mmap": ["map", "2", "4", "8", "512", MMAPABLE, "upd", "3", "01000000", "2a00000000000000",
                   "mmap", "3", "0", "4096", "3", "1", "@8", "!16=7", "get", "3", "02000000",
                   "mmap", "3", "0", "4096", "1", "1", "@16", "mmap", "3", "4096", "4096", "1", "1"],
    "array_mmap_refused": ["map", "2", "4", "8", "1", "mmap", "3", "0", "4096", "1", "1",
                           "map", "2", "4", "8", "1", MMAPABLE, "mmap", "4", "0", "8192", "1", "1",
                           "mmap", "4", "0", "4096", "1", "2", "map", "6", "4", "8", "1", "mmap", "5", "0", "4096", "1", "1"],
    "array_mmap_frozen": ["map", "2", "4", "8", "1", MMAPABLE, "upd", "3", "00000000", "0500000000000000",
                          "raw", "22", "03000000", "mmap", "3", "0", "4096", "3", "1", "mmap", "3", "0", "4096", "1", "1", "@0"],
    "array_mmap_rdonly_prog": ["map", "2", "4", "8", "1", str(1 << 10 | 1 << 7), "mmap", "3", "0", "4096", "3", "1",
                               "mmap", "3", "0", "4096", "1", "1", "@0"],
}

def reference_script(cases: dict[str, list[str]], binary: str) -> str:
    lines = []
    for name, args in cases.items():
        quoted = " ".join("'" + a + "'" for a in args)
        lines.append(f"echo '=== {name}'; {binary} {quoted}; echo \"=== rc $?\"")
    return "\n".join(lines) + "\n"


def parse(output: str) -> dict[str, str]:
    out: dict[str, str] = {}
    name = None
    for line in output.splitlines(keepends=True):
        if line.startswith("=== rc"):
            continue
        if line.startswith("=== "):
            name = line[4:].strip()
            out[name] = ""
        elif name is not None:
            out[name] += line
    return out


def merge(old: str, new: str, names: list[str]) -> str:
    """the reference text old with the sections of the named cases taken from new (added at the
    end when old has none)"""
    def sections(text: str) -> dict[str, str]:
        out: dict[str, str] = {}
        name = None
        for line in text.splitlines(keepends=True):
            if line.startswith("=== ") and not line.startswith("=== rc"):
                name = line[4:].strip()
                out[name] = ""
            if name is not None:
                out[name] += line
        return out
    merged, fresh = sections(old), sections(new)
    for name in names:
        merged[name] = fresh[name]
    return "".join(merged.values())


if __name__ == "__main__":
    # python3 tests/machine/bpf_cases.py [NAME...]: every case (or the named ones, the others'
    # reference kept) run on the real 6.1
    import subprocess
    import tempfile
    from pathlib import Path
    repo = Path(__file__).resolve().parents[2]
    every = {**CASES, **RINGBUF_MMAP_CASES, **ARRAY_MMAP_CASES}
    names = sys.argv[1:]
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["gcc", "-static", "-O1", "-DHOST", "-o", f"{d}/bpftest",
                        str(repo / "kernel_model/user/bpftest.c")], check=True)
        chosen = {name: every[name] for name in names} if names else every
        Path(d, "run.sh").write_text(reference_script(chosen, "/mnt/host/bpftest"))
        res = subprocess.run(["/work/shared/tools/real-tracefs", "-s", f"{d}:/mnt/host", "-t", "300",
                              "-c", "sh /mnt/host/run.sh"], capture_output=True, text=True, timeout=400)
    dest = repo / "tests/data/bpf/reference.txt"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(merge(dest.read_text(), res.stdout, names) if names else res.stdout)
    print(res.stdout[-2000:], file=sys.stderr)
