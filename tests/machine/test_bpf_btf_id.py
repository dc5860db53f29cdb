"""PTR_TO_BTF_ID: a tracing program's struct pointer argument (btf_ctx_access), loads through it
checked member by member against vmlinux's BTF (check_ptr_to_btf_access -> btf_struct_access),
and run fault-safe (BPF_PROBE_MEM).  The verifier's answers, errnos and logs, are the real 6.1's
for the same programs (bpf_btf_cases.py, tests/data/bpf/btf_id_reference.txt), the BTF ids and
kernel addresses set aside; the runs are the emulated kernel's own."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpf_asm import DW, MAP_HASH, R0, R1, R2, R6, R7, R10, W, call, ldx, mov64_reg, stx
from bpf_btf_cases import FEXIT, PROG_TRACING, cases, func_ids, parse
from test_bpf import normalize, run_case
from test_bpf_trace import count_into
from test_kprobe_pmu import count, key, stacked  # noqa: F401 (the module's fixture)

REFERENCE = parse((Path(__file__).resolve().parents[1] / "data/bpf/btf_id_reference.txt").read_text())
BTF_ID = re.compile(r"btf_id \d+")


@pytest.fixture(scope="module")
def machine(stacked):
    """with the probe engine, which finds a target function's ftrace site"""
    return stacked[0]


@pytest.fixture(scope="module")
def ids(machine):
    return func_ids(machine.image.btf())


@pytest.mark.parametrize("name", sorted(cases({"vfs_read": 0, "filp_open": 0})))
def test_verifier_answers_as_6_1(machine, ids, name):
    assert name in REFERENCE, f"{name}: no reference captured (python3 tests/machine/bpf_btf_cases.py)"
    ours = run_case(machine, cases(ids)[name])
    assert BTF_ID.sub("btf_id N", normalize(ours)) == BTF_ID.sub("btf_id N", normalize(REFERENCE[name]))


def test_fexit_reads_the_returned_struct_and_a_null_one_reads_0(machine, ids):
    """fexit on pick_file(files, fd), which close(fd) calls: its return value is PTR_TO_BTF_ID of
    struct file, read directly: ->f_flags of a map's file (O_RDWR: as in 6.1, O_CLOEXEC is the
    fd's) counted under that key; for an fd that is not open it returns NULL, and the load through
    it reads 0 (BPF_PROBE_MEM) instead of faulting: counted under 0, and the kernel lives on."""
    pick_file = func_ids(machine.image.btf(), ("pick_file",))["pick_file"]
    flags = count_into(3, ldx(DW, R2, R1, 16), ldx(W, R7, R2, 64), stx(W, R10, R7, -4))
    args = ["map", MAP_HASH, 4, 8, 8, "map", 1, 4, 4, 1, "load", PROG_TRACING, flags, 0, f"A={FEXIT}:{pick_file}",
            "rawtp", 5, "-", "close", 4, "close", 99, "close", 98, "get", 3, key(2), "get", 3, key(0)]
    out = run_case(machine, [str(a) for a in args]).splitlines()
    assert out[:7] == ["map: 3", "map: 4", "load: 5", "rawtp: 6", "close: 0", "close: -9", "close: -9"], out
    assert [count(line) for line in out[7:9]] == [1, 2], out


def test_current_task_btf_is_the_calling_task(machine):
    """bpf_get_current_task_btf() in a fentry program on getpid: current's tgid read through the
    struct task_struct * it returns, xor the tgid bpf_get_current_pid_tgid() gives, is the key
    counted: 0 for each of bpftest's calls (5, then its pid's), and no other key"""
    from bpf_asm import FN_get_current_pid_tgid, RSH, XOR, alu64_imm, alu64_reg

    from bpf_btf_cases import FENTRY, FN_get_current_task_btf
    getpid = func_ids(machine.image.btf(), ("__do_sys_getpid",))["__do_sys_getpid"]
    by_tgid = count_into(3, call(FN_get_current_pid_tgid), alu64_imm(RSH, R0, 32), mov64_reg(R6, R0),
                         call(FN_get_current_task_btf), ldx(W, R7, R0, 2420), alu64_reg(XOR, R7, R6),
                         stx(W, R10, R7, -4))
    args = ["map", MAP_HASH, 4, 8, 8, "load", PROG_TRACING, by_tgid, 0, f"A={FENTRY}:{getpid}", "rawtp", 4, "-",
            "calls", 5, "pid", "get", 3, key(0), "next", 3, key(0)]
    out = run_case(machine, [str(a) for a in args]).splitlines()
    assert out[:4] == ["map: 3", "load: 4", "rawtp: 5", "calls: 5"], out
    assert count(out[5]) == 6 and out[6] == "next: -2", out
