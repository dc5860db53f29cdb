"""BPF iterators (BPF_TRACE_ITER programs on the "task" and "task_file" targets), run as `bpftest
ARGS...` both in the emulated kernel and on the real Linux 6.1: `python3 tests/machine/bpf_iter_cases.py`
reads the real kernel's BTF ids of bpf_iter_task, bpf_iter_task_file and vfs_read (its
/sys/kernel/btf/vmlinux) and captures what it answers into tests/data/bpf/iter_reference.txt through
../shared/tools/real-tracefs.  The programs print what both kernels have alike: pid 1, the
bpftest process's own fds, and a line at the stop that ends each walk (the NULL object).
struct task_struct: pid 2416, tgid 2420 in both; struct bpf_iter__task_file: fd 16."""
from __future__ import annotations

from bpf_asm import *  # noqa: F401,F403
from bpf_btf_cases import PROG_TRACING, capture, func_ids, real_btf
from bpf_cases import parse  # noqa: F401 (for the test)

ITER = 28
FN_seq_printf, FN_seq_write, FN_d_path = 126, 127, 147
TARGETS = ("bpf_iter_task", "bpf_iter_task_file", "vfs_read", "filp_close")
PID, TGID = 2416, 2420
END = 0x0A646E65      # "end\n"
FMT_D = 0x000A6425    # "%d\n\0"
FMT_S = 0x000A7325    # "%s\n\0"


def ja(off: int) -> bytes:
    return insn(JMP | JA, 0, 0, off)


def seq_write_word(word: int, off: int = -8) -> list[bytes]:
    """bpf_seq_write(r1 = seq, the 4 bytes of word)"""
    return [mov64_imm(R2, word), stx(DW, R10, R2, off), mov64_reg(R2, R10), alu64_imm(ADD, R2, off),
            mov64_imm(R3, 4), call(FN_seq_write)]


def seq_printf_d(reg: int) -> list[bytes]:
    """bpf_seq_printf(r1 = seq, "%d\\n", the u64 in reg)"""
    return [stx(DW, R10, reg, -8), mov64_imm(R2, FMT_D), stx(DW, R10, R2, -16), mov64_reg(R2, R10), alu64_imm(ADD, R2, -16),
            mov64_imm(R3, 4), mov64_reg(R4, R10), alu64_imm(ADD, R4, -8), mov64_imm(R5, 8), call(FN_seq_printf)]


def iter_prog(obj_off: int, on_object: list[bytes]) -> str:
    """r6 = ctx->meta, r7 = the object at obj_off (NULL at the stop), r1 = meta->seq; "end\\n" at
    the stop, on_object (r1 the seq, r7 the object, r8 the context) for each object; return 0"""
    end = seq_write_word(END)
    body = [*on_object]
    head = [mov64_reg(R8, R1), ldx(DW, R6, R1, 0), ldx(DW, R7, R1, obj_off), ldx(DW, R1, R6, 0),
            jmp_imm(JNE, R7, 0, len(end) + 1)]
    return prog(*head, *end, ja(len(body)), *body, mov64_imm(R0, 0), exit_())


def pid_1() -> str:
    """task: its pid printed for pid 1 (which both kernels' init has)"""
    show = seq_printf_d(R3)
    return iter_prog(8, [ldx(W, R3, R7, PID), jmp_imm(JNE, R3, 1, len(show)), *show])


def own_fds() -> str:
    """task_file: the fd of each file of this process (the context's fd, u32 at 16)"""
    show = seq_printf_d(R3)
    own = [call(FN_get_current_pid_tgid), alu64_imm(RSH, R0, 32), ldx(DW, R1, R6, 0)]
    return iter_prog(8, [*own, ldx(W, R3, R7, TGID), jmp_reg(JNE, R3, R0, len(show) + 1), ldx(W, R3, R8, 16),
                         *show])


def own_paths() -> str:
    """task_file: bpf_d_path() of each file of this process past its stdio (bpf's anonymous
    files: alike in both kernels), printed "%s\\n" (the argument a pointer to the stack)"""
    zero = [st(DW, R10, -off, 0) for off in range(8, 72, 8)]
    show = [*zero, mov64_reg(R1, R9), alu64_imm(ADD, R1, 16), mov64_reg(R2, R10), alu64_imm(ADD, R2, -64),
            mov64_imm(R3, 64), call(FN_d_path), ldx(DW, R1, R6, 0), mov64_reg(R2, R10), alu64_imm(ADD, R2, -64),
            stx(DW, R10, R2, -72), mov64_imm(R2, FMT_S), stx(DW, R10, R2, -80), mov64_reg(R2, R10),
            alu64_imm(ADD, R2, -80), mov64_imm(R3, 4), mov64_reg(R4, R10), alu64_imm(ADD, R4, -72), mov64_imm(R5, 8),
            call(FN_seq_printf)]
    own = [call(FN_get_current_pid_tgid), alu64_imm(RSH, R0, 32), ldx(W, R3, R7, TGID),
           jmp_reg(JNE, R3, R0, len(show) + 4), ldx(W, R3, R8, 16), jmp_imm(JLT, R3, 3, len(show) + 2),
           ldx(DW, R9, R8, 24), jmp_imm(JEQ, R9, 0, len(show))]
    return iter_prog(8, [*own, *show])


def seq_nums() -> str:
    """meta->seq_num (u64 at 16) of each object and of the stop"""
    return prog(ldx(DW, R6, R1, 0), ldx(DW, R1, R6, 0), ldx(DW, R3, R6, 16), *seq_printf_d(R3), mov64_imm(R0, 0),
                exit_())


def wide_seq_nums() -> str:
    """meta->seq_num printed "%1500d\\n": a line longer than bpf_trace_printk's 1 KiB buffer"""
    fmt = int.from_bytes(b"%1500d\n\0", "little")
    return prog(ldx(DW, R6, R1, 0), ldx(DW, R1, R6, 0), ldx(DW, R3, R6, 16), stx(DW, R10, R3, -8),
                ld_imm64(R2, fmt), stx(DW, R10, R2, -16), mov64_reg(R2, R10), alu64_imm(ADD, R2, -16),
                mov64_imm(R3, 8), mov64_reg(R4, R10), alu64_imm(ADD, R4, -8), mov64_imm(R5, 8), call(FN_seq_printf),
                mov64_imm(R0, 0), exit_())


def overflow() -> str:
    """130 writes of 256 bytes for each object: more than the read's 8-page buffer holds"""
    zero = [st(DW, R10, -off, 0) for off in range(8, 264, 8)]
    write = [mov64_reg(R1, R8), mov64_reg(R2, R10), alu64_imm(ADD, R2, -256), mov64_imm(R3, 256),
             call(FN_seq_write), alu64_imm(ADD, R7, 1)]
    loop = [*write, jmp_imm(JLT, R7, 130, -(len(write) + 1))]
    return prog(ldx(DW, R6, R1, 0), ldx(DW, R8, R6, 0), *zero, mov64_imm(R7, 0), *loop, mov64_imm(R0, 0), exit_())


def cases(ids: dict[str, int]) -> dict[str, list[str]]:
    task, task_file = f"A={ITER}:{ids['bpf_iter_task']}", f"A={ITER}:{ids['bpf_iter_task_file']}"

    def load(program: str, attach: str = task, level: int = 1) -> list[str]:
        return ["load", str(PROG_TRACING), program, str(level), attach]

    def walk(program: str, attach: str = task, link: list[str] | None = None) -> list[str]:
        return load(program, attach) + ["link", "3", str(ITER), *(link or []), "iter", "4", "read", "5", "4096"]
    ret = lambda *insns: prog(*insns, exit_())  # noqa: E731
    seq = [ldx(DW, R6, R1, 0), ldx(DW, R1, R6, 0)]
    # bpf_d_path(r1, an 8-byte buffer on the stack, 8), then r0 = 0
    d_path_args = [mov64_imm(R2, 0), stx(DW, R10, R2, -8), mov64_reg(R2, R10), alu64_imm(ADD, R2, -8), mov64_imm(R3, 8), call(FN_d_path),
                   mov64_imm(R0, 0)]
    word = seq_write_word(END)[:-1]
    return {
        "iter_task_pid_1": load(pid_1()) + ["link", "3", str(ITER), "iter", "4", "read", "5", "4096",
                                                     "read", "5", "4096", "close", "5", "iter", "4", "read", "5", "1"],
        "iter_task_tid_1": walk(pid_1(), link=["I=01000000"]),
        "iter_task_file_own_fds": walk(own_fds(), task_file) + ["pinfo", "3"],
        "iter_task_pid_1_threads": walk(pid_1(), link=["I=0000000001000000"]),
        "iter_task_no_such_tid": walk(pid_1(), link=["I=9f860100"]),
        "iter_task_seq_num": walk(seq_nums(), link=["I=01000000"]),
        "iter_task_wide_line": walk(wide_seq_nums(), link=["I=01000000"]),
        "iter_task_overflow": ["load", str(PROG_TRACING), overflow(), "0", task, "link", "3", str(ITER), "I=01000000",
                               "iter", "4", "read", "5", "4096"],
        "iter_returns_1_read": load(ret(mov64_imm(R0, 1))) + ["link", "3", str(ITER), "iter", "4", "read", "5",
                                                              "4096"],
        "iter_read_after_link_closed": load(pid_1()) + ["link", "3", str(ITER), "iter", "4", "close", "4", "close", "3",
                                                        "read", "5", "4096", "iter", "4"],
        "iter_task_file_d_path": walk(own_paths(), task_file),
        "d_path_in_fentry_on_vfs_read": load(ret(ldx(DW, R1, R1, 0), alu64_imm(ADD, R1, 16), *d_path_args),
                                             f"A=24:{ids['vfs_read']}"),
        "d_path_in_fentry_on_filp_close": load(ret(ldx(DW, R1, R1, 0), alu64_imm(ADD, R1, 16), *d_path_args),
                                               f"A=24:{ids['filp_close']}"),
        "d_path_of_a_task": load(ret(ldx(DW, R1, R1, 8), jmp_imm(JEQ, R1, 0, len(d_path_args) - 1), *d_path_args)),
        "d_path_in_kprobe": ["load", "2", prog(mov64_imm(R1, 0), *d_path_args, exit_()), "1"],
        "iter_task_two_fields": load(pid_1()) + ["link", "3", str(ITER), "I=0100000001000000"],
        "iter_task_pid_fd": load(pid_1()) + ["link", "3", str(ITER), "I=000000000000000001000000"],
        "iter_task_info_tail": load(pid_1()) + ["link", "3", str(ITER), "I=01000000000000000000000000000000ff"],
        "iter_link_wrong_type": load(pid_1()) + ["link", "3", "24"],
        "iter_create_flags": load(pid_1()) + ["link", "3", str(ITER), "iter", "4", "1"],
        "iter_create_of_prog": load(pid_1()) + ["iter", "3"],
        "iter_rawtp_open": load(pid_1()) + ["rawtp", "3", "-"],
        "iter_no_null_check": load(ret(ldx(DW, R2, R1, 8), ldx(W, R0, R2, PID), mov64_imm(R0, 0)), level=2),
        "iter_ctx_write": load(ret(st(DW, R1, 8, 0), mov64_imm(R0, 0))),
        "iter_ctx_past_end": load(ret(ldx(DW, R2, R1, 16), mov64_imm(R0, 0))),
        "iter_file_ctx_fd": load(ret(ldx(W, R0, R1, 16), mov64_imm(R0, 0)), task_file, 2),
        "iter_returns_2": load(ret(mov64_imm(R0, 2))),
        "iter_returns_1": load(ret(mov64_imm(R0, 1))),
        "iter_on_vfs_read": load(ret(mov64_imm(R0, 0)), f"A={ITER}:{ids['vfs_read']}"),
        "iter_no_btf_id": load(ret(mov64_imm(R0, 0)), f"A={ITER}"),
        "iter_seq_write_ctx": load(ret(*word, call(FN_seq_write), mov64_imm(R0, 0))),
        "iter_seq_write_meta": load(ret(ldx(DW, R1, R1, 0), *word, call(FN_seq_write), mov64_imm(R0, 0))),
        "iter_seq_printf_null_data": load(ret(*seq, mov64_imm(R2, FMT_D), stx(DW, R10, R2, -8), mov64_reg(R2, R10),
                                              alu64_imm(ADD, R2, -8), mov64_imm(R3, 4), mov64_imm(R4, 0),
                                              mov64_imm(R5, 0), call(FN_seq_printf), mov64_imm(R0, 0))),
        "iter_seq_printf_null_with_size": load(ret(*seq, mov64_imm(R2, FMT_D), stx(DW, R10, R2, -8), mov64_reg(R2, R10),
                                                   alu64_imm(ADD, R2, -8), mov64_imm(R3, 4), mov64_imm(R4, 0),
                                                   mov64_imm(R5, 8), call(FN_seq_printf), mov64_imm(R0, 0))),
        "iter_seq_write_in_fentry": load(ret(*word, call(FN_seq_write), mov64_imm(R0, 0)),
                                         f"A=24:{ids['vfs_read']}"),
    }


if __name__ == "__main__":
    capture(cases(func_ids(real_btf(), TARGETS)), "iter_reference.txt")
