"""eBPF instructions as bytes (the BPF_* macros of Linux's include/linux/filter.h), for the bpf
tests: programs are written here and passed to the guest's `bpftest load` as hex."""
from __future__ import annotations

import struct

# classes, sizes, modes, ops (include/uapi/linux/bpf.h)
LD, LDX, ST, STX, ALU, JMP, JMP32, ALU64 = range(8)
W, H, B, DW = 0x00, 0x08, 0x10, 0x18
IMM, MEM, ATOMIC = 0x00, 0x60, 0xC0
K, X = 0x00, 0x08
ADD, SUB, MUL, DIV, OR, AND, LSH, RSH, NEG, MOD, XOR, MOV, ARSH, END = (
    0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xA0, 0xB0, 0xC0, 0xD0)
JA, JEQ, JGT, JGE, JSET, JNE, JSGT, JSGE, CALL, EXIT, JLT, JLE, JSLT, JSLE = (
    0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xA0, 0xB0, 0xC0, 0xD0)
FETCH, XCHG, CMPXCHG = 0x01, 0xE1, 0xF1
PSEUDO_MAP_FD, PSEUDO_MAP_VALUE = 1, 2
R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10 = range(11)

# program and map types, helpers
PROG_SOCKET_FILTER, PROG_KPROBE, PROG_TRACEPOINT, PROG_PERF_EVENT, PROG_RAW_TRACEPOINT = 1, 2, 5, 7, 17
MAP_HASH, MAP_ARRAY, MAP_PERCPU_HASH, MAP_PERCPU_ARRAY, MAP_STACK_TRACE = 1, 2, 5, 6, 7
FN_map_lookup_elem, FN_map_update_elem, FN_map_delete_elem = 1, 2, 3
FN_ktime_get_ns, FN_trace_printk, FN_get_smp_processor_id = 5, 6, 8
FN_get_current_pid_tgid, FN_get_current_uid_gid, FN_get_current_comm = 14, 15, 16
FN_probe_read_kernel, FN_probe_read_kernel_str = 113, 115
FN_perf_event_output = 25
FN_get_stackid, FN_perf_prog_read_value = 27, 56
FN_get_stack = 67


def insn(code: int, dst: int = 0, src: int = 0, off: int = 0, imm: int = 0) -> bytes:
    return struct.pack("<BBhi", code, (src << 4) | dst, off, imm)


def alu64_imm(op, dst, imm): return insn(ALU64 | op | K, dst, 0, 0, imm)
def alu64_reg(op, dst, src): return insn(ALU64 | op | X, dst, src)
def alu32_imm(op, dst, imm): return insn(ALU | op | K, dst, 0, 0, imm)
def alu32_reg(op, dst, src): return insn(ALU | op | X, dst, src)
def mov64_imm(dst, imm): return alu64_imm(MOV, dst, imm)
def mov64_reg(dst, src): return alu64_reg(MOV, dst, src)
def mov32_imm(dst, imm): return alu32_imm(MOV, dst, imm)
def ldx(size, dst, src, off): return insn(LDX | size | MEM, dst, src, off)
def stx(size, dst, src, off): return insn(STX | size | MEM, dst, src, off)
def st(size, dst, off, imm): return insn(ST | size | MEM, dst, 0, off, imm)
def atomic(size, op, dst, src, off): return insn(STX | size | ATOMIC, dst, src, off, op)
def jmp_imm(op, dst, imm, off): return insn(JMP | op | K, dst, 0, off, imm)
def jmp_reg(op, dst, src, off): return insn(JMP | op | X, dst, src, off)
def jmp32_imm(op, dst, imm, off): return insn(JMP32 | op | K, dst, 0, off, imm)
def ja(off): return insn(JMP | JA, 0, 0, off)
def call(fn): return insn(JMP | CALL, 0, 0, 0, fn)
def exit_(): return insn(JMP | EXIT)


def ld_imm64(dst: int, imm: int, src: int = 0) -> bytes:
    return (insn(LD | DW | IMM, dst, src, 0, struct.unpack("<i", struct.pack("<I", imm & 0xFFFFFFFF))[0])
            + insn(0, 0, 0, 0, struct.unpack("<i", struct.pack("<I", (imm >> 32) & 0xFFFFFFFF))[0]))


def ld_map_fd(dst: int, fd: int) -> bytes:
    return ld_imm64(dst, fd, PSEUDO_MAP_FD)


def prog(*insns: bytes) -> str:
    return b"".join(insns).hex()


PSEUDO_CALL = 1


def call_pseudo(off: int) -> bytes:
    """a bpf-to-bpf call of the function starting off + 1 instructions past it"""
    return insn(JMP | CALL, 0, PSEUDO_CALL, 0, off)
