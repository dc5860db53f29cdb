"""Loads through PTR_TO_BTF_ID (a tracing program's struct pointer argument), run as `bpftest ARGS...`
both in the emulated kernel and on the real Linux 6.1: `python3 tests/machine/bpf_btf_cases.py`
reads the real kernel's BTF ids of the target functions (its /sys/kernel/btf/vmlinux) and captures
what it answers into tests/data/bpf/btf_id_reference.txt through ../shared/tools/real-tracefs.
The structs read have 6.1's layout at these offsets in both kernels: struct file (232 bytes):
f_path.dentry 24, f_inode 32, a hole at 52 (after the 4-byte f_lock), f_flags 64; struct inode:
i_mode 0, i_sb 40, i_ino 64; struct task_struct: tgid 2420, real_parent 2432, fs 3040."""
from __future__ import annotations

import base64
import sys

from bpf_asm import *  # noqa: F401,F403
from bpf_cases import parse, reference_script  # noqa: F401 (parse: for the test)

FENTRY, FEXIT, PROG_TRACING = 24, 25, 26
FN_get_current_task_btf = 158
# the functions the cases attach to
TARGETS = ("vfs_read", "filp_open")


def func_ids(btf: bytes, names: tuple[str, ...] = TARGETS) -> dict[str, int]:
    """The BTF ids of the FUNCs names in a kernel's BTF."""
    from test_bpf_fentry import KIND_FUNC, btf_types
    types, strings = btf_types(btf)
    ids: dict[str, int] = {}
    for i, (name_off, kind, _, _) in enumerate(types):
        name = strings[name_off:strings.index(b"\0", name_off)].decode()
        if kind == KIND_FUNC and name in names:
            ids.setdefault(name, i)
    return ids


def file_arg(*insns: bytes) -> str:
    """r2 = vfs_read's struct file *, then insns, then return 0"""
    return prog(ldx(DW, R2, R1, 0), *insns, mov64_imm(R0, 0), exit_())


def cases(ids: dict[str, int]) -> dict[str, list[str]]:
    on_read = f"A={FENTRY}:{ids['vfs_read']}"

    def load(program: str, level: int = 1, attach: str = on_read) -> list[str]:
        return ["load", str(PROG_TRACING), program, str(level), attach]
    walk = prog(
        ldx(DW, R6, R1, 0),            # struct file *file
        ldx(DW, R2, R6, 24),           # file->f_path.dentry: a member of a struct member
        ldx(DW, R3, R6, 32),           # file->f_inode
        ldx(DW, R0, R3, 64),           # ->i_ino: a scalar
        ldx(H, R4, R3, 0),             # ->i_mode, 2 bytes
        stx(DW, R10, R3, -8),          # spilled and filled, still a struct inode *
        ldx(DW, R5, R10, -8),
        ldx(DW, R5, R5, 40),           # ->i_sb
        jmp_imm(JEQ, R6, 0, 1),        # compared with NULL: both ways
        ldx(W, R0, R6, 64),            # file->f_flags
        mov64_imm(R0, 0), exit_())
    # bpf_get_current_task_btf(): ->real_parent->tgid, in a kprobe program too
    parent = prog(call(FN_get_current_task_btf), ldx(DW, R1, R0, 2432), ldx(W, R0, R1, 2420), mov64_imm(R0, 0),
                  exit_())
    return {
        "btf_current_task": ["load", str(PROG_KPROBE), parent, "2", "pinfo", "3"],
        "btf_current_task_fentry": load(parent, 2),
        "btf_current_task_not_gpl": ["load", str(PROG_KPROBE), parent, "1", "L=MIT"],
        "btf_current_task_fs_write": load(prog(call(FN_get_current_task_btf), ldx(DW, R1, R0, 3040),
                                               st(DW, R1, 40, 0), mov64_imm(R0, 0), exit_())),
        "btf_walk_members": load(walk, 2) + ["pinfo", "3"],
        "btf_constant_offset": load(file_arg(alu64_imm(ADD, R2, 24), ldx(DW, R0, R2, 8)), 2),
        "btf_fexit_return_value": load(prog(ldx(DW, R2, R1, 24), ldx(W, R0, R2, 64), mov64_imm(R0, 0), exit_()),
                                       2, f"A={FEXIT}:{ids['filp_open']}"),
        "btf_probe_read_through": load(file_arg(mov64_reg(R3, R2), mov64_reg(R1, R10), alu64_imm(ADD, R1, -8),
                                                mov64_imm(R2, 8), call(FN_probe_read_kernel))),
        "btf_beyond_struct": load(file_arg(ldx(W, R0, R2, 232))),
        "btf_negative_offset": load(file_arg(ldx(DW, R0, R2, -8))),
        "btf_store_reg": load(file_arg(mov64_imm(R3, 0), stx(DW, R2, R3, 64))),
        "btf_store_imm": load(file_arg(st(W, R2, 64, 1))),
        "btf_ptr_member_part": load(file_arg(ldx(W, R0, R2, 32))),
        "btf_variable_offset": load(file_arg(ldx(DW, R3, R1, 16), alu64_imm(AND, R3, 8), alu64_reg(ADD, R2, R3),
                                             ldx(DW, R0, R2, 0))),
        "btf_past_member_end": load(file_arg(ldx(DW, R0, R2, 64))),
        "btf_hole": load(file_arg(ldx(W, R0, R2, 52))),
        "btf_bitwise": load(file_arg(alu64_imm(AND, R2, 1))),
        # one load through a struct file * on one path, the stack on the other
        "btf_same_insn_two_pointers": load(file_arg(ldx(DW, R3, R1, 16), st(DW, R10, -8, 0), jmp_imm(JEQ, R3, 0, 2),
                                                    mov64_reg(R2, R10), alu64_imm(ADD, R2, -40),
                                                    ldx(DW, R0, R2, 32))),
        "btf_as_map_key": ["map", "1", "8", "8", "4"] + load(file_arg(ld_map_fd(R1, 3),
                                                                      call(FN_map_lookup_elem))),
        "btf_returned": load(prog(ldx(DW, R0, R1, 0), exit_())),
        "btf_scalar_arg_is_no_pointer": load(prog(ldx(DW, R2, R1, 16), ldx(DW, R0, R2, 0), exit_())),
    }


def real_btf() -> bytes:
    import subprocess
    res = subprocess.run(["/work/shared/tools/real-tracefs", "-t", "120", "-c", "base64 /sys/kernel/btf/vmlinux"],
                         capture_output=True, text=True, timeout=300, check=True)
    return base64.b64decode(res.stdout)


def capture(cases: dict[str, list[str]], reference: str) -> None:
    """the cases run by bpftest on the real 6.1, its output written to tests/data/bpf/REFERENCE"""
    import subprocess
    import tempfile
    from pathlib import Path
    repo = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["gcc", "-static", "-O1", "-DHOST", "-o", f"{d}/bpftest",
                        str(repo / "kernel_model/user/bpftest.c")], check=True)
        Path(d, "run.sh").write_text(reference_script(cases, "/mnt/host/bpftest"))
        res = subprocess.run(["/work/shared/tools/real-tracefs", "-s", f"{d}:/mnt/host", "-t", "300",
                              "-c", "sh /mnt/host/run.sh"], capture_output=True, text=True, timeout=400)
    dest = repo / "tests/data/bpf" / reference
    dest.write_text(res.stdout)
    print(res.stdout[-3000:], file=sys.stderr)


if __name__ == "__main__":
    capture(cases(func_ids(real_btf())), "btf_id_reference.txt")
