"""BPF iterators: a BPF_TRACE_ITER program on bpf_iter_task or bpf_iter_task_file, linked to its
target (BPF_LINK_CREATE) and read through BPF_ITER_CREATE's fd (bpf_seq_read, task_iter.c).  The
verifier's answers, errnos and logs, the links' and the reads' are the real 6.1's for the same
programs (bpf_iter_cases.py, tests/data/bpf/iter_reference.txt), the BTF ids set aside; the walk
over every task is checked against the emulated kernel's own tasks."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpf_asm import DW, R3, R7, W, ldx
from bpf_btf_cases import func_ids
from bpf_iter_cases import PID, TARGETS, cases, iter_prog, parse, seq_printf_d
from test_bpf import machine, normalize, run_case  # noqa: F401 (machine: the module's fixture)

REFERENCE = parse((Path(__file__).resolve().parents[1] / "data/bpf/iter_reference.txt").read_text())
BTF_ID = re.compile(r"(btf_id|attach_btf_id) \d+")
# The iterators' programs branch on the object being NULL (the stop), then on the task: 6.1 prunes
# the second path at the exit it shares with the first (its liveness and precision tracking),
# this verifier treats every scalar as precise and walks it, so the count of instructions and
# states processed differs, as in test_bpf.py's DIFFERENCES; the rest of the log is 6.1's.
PROCESSED = re.compile(r"processed \d+ insns \(limit 1000000\) max_states_per_insn \d+ total_states \d+ "
                       r"peak_states \d+ mark_read \d+")
WALKS = {"iter_task_pid_1", "iter_read_after_link_closed", "iter_task_file_d_path", "iter_task_pid_1_threads",
         "iter_task_no_such_tid", "iter_task_tid_1", "iter_task_file_own_fds",
         "iter_task_two_fields", "iter_task_pid_fd", "iter_task_info_tail", "iter_link_wrong_type",
         "iter_create_flags", "iter_create_of_prog", "iter_rawtp_open"}


@pytest.fixture(scope="module")
def ids(machine):
    return func_ids(machine.image.btf(), TARGETS)


def same(text: str, name: str) -> str:
    text = BTF_ID.sub(r"\1 N", normalize(text))
    return PROCESSED.sub("processed N", text) if name in WALKS else text


@pytest.mark.parametrize("name", sorted(cases({name: 0 for name in TARGETS})))
def test_iterators_answer_as_6_1(machine, ids, name):
    assert name in REFERENCE, f"{name}: no reference captured (python3 tests/machine/bpf_iter_cases.py)"
    assert same(run_case(machine, cases(ids)[name]), name) == same(REFERENCE[name], name)


def test_task_iterator_walks_every_task(machine, ids):
    """each task's pid, in order, then the stop's line: the kernel's tasks (its kthreads, init,
    bpftest itself); a read of 64 bytes at a time gives the same text, the rest of an object's
    output kept for the next read, and the stop runs once"""
    program = iter_prog(8, [ldx(W, R3, R7, PID), *seq_printf_d(R3)])
    head = ["load", "26", program, "0", f"A=28:{ids['bpf_iter_task']}", "link", "3", "28", "iter", "4", "pid"]
    whole = run_case(machine, head + ["read", "5", "4096"]).splitlines()
    assert whole[:5] == ["load: 3", "link: 4", "iter: 5", whole[3], whole[4]], whole
    own = int(whole[3].split()[1])
    reads = [int(r) for r in whole[4].split()[1:]]
    pids = [int(line[2:]) for line in whole[5:-1]]
    assert whole[-1] == "| end", whole
    assert reads[-1] == 0 and sum(reads) == sum(len(line) - 1 for line in whole[5:]), whole
    assert pids == sorted(pids) and len(set(pids)) == len(pids) and pids[:2] == [1, 2], pids
    assert own in pids, (own, pids)
    small = run_case(machine, head + ["read", "5", "64"]).splitlines()
    assert all(0 <= int(r) <= 64 for r in small[4].split()[1:]) and small[-1] == "| end", small
    assert len(small) >= len(pids) and [line for line in small[5:-1] if int(line[2:]) < own] == \
        [line for line in whole[5:-1] if int(line[2:]) < own]
