"""bpf() in the emulated kernel, from a guest program (`bpftest`, kernel_model/user/bpftest.c):
maps, program loads with the verifier's log, test runs.  Each case of bpf_cases.py ran on the
real Linux 6.1 too (tests/data/bpf/reference.txt): the emulated kernel must answer the same,
errnos and log lines, once the kernel addresses in the log are set aside."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpf_cases import CASES, parse

REFERENCE = parse((Path(__file__).resolve().parents[1] / "data/bpf/reference.txt").read_text())
ADDRESS = re.compile(r"0xffff[0-9a-f]{12}")

# Where this kernel knowingly differs from 6.1, and why: (case, the reference's text, ours).
DIFFERENCES: list[tuple[str, str, str]] = []


@pytest.fixture(scope="module")
def machine(vmlinux):
    from tracefs_sim.machine import Machine, MachineOptions
    m = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=2))
    m.start()
    yield m
    m.stop()


def run_case(machine, args: list[str]) -> str:
    out: list[bytes] = []
    proc = machine.spawn(["bpftest", *args], out.append)
    status = proc.wait(60)
    assert status is not None, f"bpftest {args} did not finish"
    return b"".join(out).decode()


def normalize(text: str) -> str:
    return ADDRESS.sub("ADDR", text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_as_linux(machine, name):
    if name not in REFERENCE:
        pytest.skip(f"{name}: no reference output captured yet (python3 tests/machine/bpf_cases.py)")
    expected = REFERENCE[name]
    for case, theirs, ours in DIFFERENCES:
        if case == name:
            expected = expected.replace(theirs, ours)
    assert normalize(run_case(machine, CASES[name])) == normalize(expected)
