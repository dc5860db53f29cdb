"""bpf() in the emulated kernel, from a guest program (`bpftest`, kernel_model/user/bpftest.c):
maps, program loads with the verifier's log, test runs.  Each case of bpf_cases.py ran on the
real Linux 6.1 too (tests/data/bpf/reference.txt): the emulated kernel must answer the same,
errnos and log lines, once the kernel addresses in the log are set aside."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bpf_cases import CASES, parse

REFERENCE = parse((Path(__file__).resolve().parents[1] / "data/bpf/reference.txt").read_text())
ADDRESS = re.compile(r"0xffff[0-9a-f]{12}")
VERIFICATION_TIME = re.compile(r"verification time \d+ usec")

# Where this kernel knowingly differs from 6.1, and why: (case, the reference's text, ours).
DIFFERENCES: list[tuple[str, str, str]] = [
    # 6.1 prunes the second path (R6 0 or 1, never read: its liveness and precision tracking);
    # this verifier treats every scalar as precise and walks it through both calls
    ("call_paths_and_loop",
     "processed 49 insns (limit 1000000) max_states_per_insn 1 total_states 5 peak_states 5 mark_read 3",
     "processed 86 insns (limit 1000000) max_states_per_insn 3 total_states 9 peak_states 9 mark_read 3"),
]


@pytest.fixture(scope="module")
def machine(vmlinux):
    """A live machine with the tracing stack (its probe engines answer the kernel's requests:
    the kprobe PMU's probes), as the mount runs it."""
    from tracefs_sim.machine import Machine, MachineOptions
    from tracefs_sim.stack import build_stack
    m = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=2))
    m.start()
    build_stack(m)
    yield m
    m.stop()


def run_case(machine, args: list[str], stdin: str | None = None, timeout: float = 60) -> str:
    """bpftest's output; stdin: what it reads for a "-" argument (one too long for an argument)"""
    out: list[bytes] = []
    fd = None
    if stdin is not None:
        r, w = os.pipe()
        os.write(w, stdin.encode())
        os.close(w)
        fd = r
    proc = machine.spawn(["bpftest", *args], out.append, stdin=fd)
    status = proc.wait(timeout)
    assert status is not None, f"bpftest {args} did not finish"
    text = b"".join(out).decode()
    # bpftest prints an errno line for a failed call and exits 0; anything else is a crash
    assert status == 0, (status, proc.killed_by, text, machine.console_output()[-2000:])
    return text


def normalize(text: str) -> str:
    return VERIFICATION_TIME.sub("verification time USEC", ADDRESS.sub("ADDR", text))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_as_linux(machine, name):
    if name not in REFERENCE:
        pytest.skip(f"{name}: no reference output captured yet (python3 tests/machine/bpf_cases.py)")
    expected = REFERENCE[name]
    for case, theirs, ours in DIFFERENCES:
        if case == name:
            expected = expected.replace(theirs, ours)
    args, stdin = CASES[name], None
    long = [i for i, a in enumerate(args) if len(a) > 400]
    if long:  # one argument too long for the spawn request's argv: on bpftest's stdin ("-")
        assert len(long) == 1, f"{name}: more than one argument too long"
        args, stdin = args[:long[0]] + ["-"] + args[long[0] + 1:], args[long[0]]
    assert normalize(run_case(machine, args, stdin)) == normalize(expected)


def test_helpers_see_the_calling_task(machine):
    """get_current_pid_tgid and get_current_comm, run by BPF_PROG_TEST_RUN, are the caller's."""
    from bpf_asm import (ADD, B, FN_get_current_comm, FN_get_current_pid_tgid, LSH, OR, R0, R1, R2, R6,
                         R10, alu64_imm, alu64_reg, call, exit_, ldx, mov64_imm, mov64_reg, prog)
    pid_prog = prog(call(FN_get_current_pid_tgid), exit_())
    # the first two bytes of the comm, as a number
    comm_prog = prog(mov64_reg(R1, R10), alu64_imm(ADD, R1, -16), mov64_imm(R2, 16), call(FN_get_current_comm),
                     ldx(B, R6, R10, -15), alu64_imm(LSH, R6, 8), ldx(B, R0, R10, -16), alu64_reg(OR, R0, R6),
                     exit_())
    out = run_case(machine, ["pid", "load", "17", pid_prog, "run", "3", "load", "17", comm_prog, "run", "4"])
    lines = out.splitlines()
    pid = int(lines[0].split()[1])
    assert lines[2] == f"run: 0 retval {pid}"
    assert lines[4] == f"run: 0 retval {ord('b') | ord('p') << 8}"


def test_coarse_clock_is_the_clock_at_a_tick(machine):
    """ktime_get_coarse_ns is the clock at a jiffies update (a multiple of the 4 ms tick here),
    never ahead of ktime_get_ns."""
    from bpf_asm import (FN_ktime_get_ns, MOD, R0, R6, RSH, SUB, alu64_imm, alu64_reg, call, exit_, mov64_reg,
                         prog)
    FN_ktime_get_coarse_ns = 160
    phase = prog(call(FN_ktime_get_coarse_ns), alu64_imm(MOD, R0, 4_000_000), exit_())
    behind = prog(call(FN_ktime_get_coarse_ns), mov64_reg(R6, R0), call(FN_ktime_get_ns), alu64_reg(SUB, R0, R6),
                  alu64_imm(RSH, R0, 63), exit_())
    out = run_case(machine, ["load", "17", phase, "run", "3", "load", "17", behind, "run", "4"]).splitlines()
    assert out[1] == "run: 0 retval 0" and out[3] == "run: 0 retval 0", out


def test_the_kernels_btf_is_object_1(machine):
    """vmlinux's BTF (the image's .BTF, pahole's from the kernel's DWARF) as 6.1 shows it through
    bpf(): the only BTF object, id 1, read-only, named "vmlinux", kernel_btf set, its data from
    BTF's magic 0xeb9f; a name buffer too short gets what fits and ENOSPC; no id 2."""
    out = run_case(machine, ["bnext", "0", "bnext", "1", "bfd", "2", "bfd", "1", "binfo", "3", "32",
                             "binfo", "3", "4"])
    assert out.splitlines() == [
        "bnext: 0 1", "bnext: -2", "bfd: -2", "bfd: 3",
        "binfo: 0 data 9feb0100 btf_size_over_16 1 id 1 name vmlinux name_len 7 kernel_btf 1",
        "binfo: -28 data 9feb0100 btf_size_over_16 1 id 1 name vml name_len 7 kernel_btf 1"]
    assert machine.btf()[:4] == b"\x9f\xeb\x01\x00"
