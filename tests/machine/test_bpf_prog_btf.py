"""BPF_PROG_LOAD of a program with its own BTF: prog_btf_fd, func_info and line_info checked as
6.1's check_btf_info() checks them, the source lines in the verifier's log, the records kept (the
line_info following the verifier's patches, the JIT's address of each line) and given back by
BPF_OBJ_GET_INFO_BY_FD.  Each case of bpf_prog_btf_cases.py ran on the real Linux 6.1 too
(tests/data/bpf/prog_btf_reference.txt): the errnos, logs and records must be the same."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpf_btf_load_cases import parse, with_stdin
from bpf_prog_btf_cases import cases
from test_bpf import machine, run_case  # noqa: F401 (machine: the module's fixture)

REFERENCE = parse((Path(__file__).resolve().parents[1] / "data/bpf/prog_btf_reference.txt").read_text())
CASES = cases()
# BTF object ids differ (6.1's module BTFs take ids after vmlinux's): a program's is N, 0 stays
BTF_ID = re.compile(r" btf_id [1-9]\d* ")
# a map's address in the log (bpf_for_each_map_elem's cases) is the kernel's own
ADDRESS = re.compile(r"0xffff[0-9a-f]{12}")
VERIFICATION_TIME = re.compile(r"verification time \d+ usec")


def normalize(text: str) -> str:
    return VERIFICATION_TIME.sub("verification time USEC", ADDRESS.sub("ADDR", BTF_ID.sub(" btf_id N ", text)))


# Where this kernel knowingly differs from 6.1, and why: (case, the reference's text, ours).
DIFFERENCES: list[tuple[str, str, str]] = [
    # the longest walk of a read up the checkpoints: 6.1 links a register to its checkpoint's by
    # pointers (liveness), this verifier by frame and index, one checkpoint further here
    ("loop_cb_calls", "total_states 2 peak_states 2 mark_read 1", "total_states 2 peak_states 2 mark_read 2"),
    # the same walk: the caller's uninitialized stack a global function is given, read here
    # from the checkpoint at the call
    # the path where p is NULL reaches g's exit with R4 unset, where the other path left a
    # scalar: 6.1 prunes it (R4 never read: liveness), this verifier follows it to the end
    ("global_static", "processed 14 insns (limit 1000000) max_states_per_insn 0",
     "processed 15 insns (limit 1000000) max_states_per_insn 1"),
    ("global_arg_mem_uninit", "total_states 1 peak_states 1 mark_read 0", "total_states 1 peak_states 1 mark_read 1"),
]


@pytest.mark.parametrize("name", sorted(CASES))
def test_prog_btf_as_linux(machine, name):
    assert name in REFERENCE, f"{name}: no reference captured (python3 tests/machine/bpf_prog_btf_cases.py)"
    expected = REFERENCE[name]
    for case, theirs, ours in DIFFERENCES:
        if case == name:
            expected = expected.replace(theirs, ours)
    args, stdin = with_stdin(CASES[name])   # (a BTF too long for an argument on bpftest's stdin)
    assert normalize(run_case(machine, args, stdin)) == normalize(expected)
