"""BPF_BTF_LOAD: a user's BTF checked as 6.1's btf_parse() checks it, then a BTF object of its own
(an fd, an id listed by BPF_BTF_GET_NEXT_ID and opened by BPF_BTF_GET_FD_BY_ID, its data given back
by BPF_OBJ_GET_INFO_BY_FD).  Each case of bpf_btf_load_cases.py ran on the real Linux 6.1 too
(tests/data/bpf/btf_load_reference.txt): the errnos and the logs must be the same."""
from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from bpf_btf_load_cases import cases, parse, with_stdin
from test_bpf import machine, run_case  # noqa: F401 (machine: the module's fixture)

REFERENCE = parse((Path(__file__).resolve().parents[1] / "data/bpf/btf_load_reference.txt").read_text())
CASES = cases()
# 6.1's module BTFs take ids after vmlinux's: the ids of the objects loaded differ
BTF_ID = re.compile(r" id \d+ ")


def run(machine, args: list[str]) -> str:
    """bpftest's output, a long blob given on its stdin"""
    args, stdin = with_stdin(args)
    return run_case(machine, args, stdin)


@pytest.mark.parametrize("name", sorted(CASES))
def test_btf_load_as_linux(machine, name):
    assert name in REFERENCE, f"{name}: no reference captured (python3 tests/machine/bpf_btf_load_cases.py)"
    assert BTF_ID.sub(" id N ", run(machine, CASES[name])) == BTF_ID.sub(" id N ", REFERENCE[name])


def test_ids_follow_vmlinux_and_are_not_reused(machine):
    """vmlinux's BTF is 1; a loaded one's id is listed after it while it lives; the next one loaded,
    after the first was freed, has an id of its own"""
    good = CASES["btf_object"][1]
    ids = []
    for _ in range(2):
        lines = run(machine, ["btf", good, "0", "bnext", "0", "bnext", "1"]).splitlines()
        assert lines[:2] == ["btf: 3", "bnext: 0 1"] and lines[2].startswith("bnext: 0 ")
        ids.append(int(lines[2].split()[2]))
    assert 1 < ids[0] < ids[1]


def test_a_maps_and_a_programs_btf_are_refused(machine):
    """A map's BTF (btf_fd, key and value type ids) and a program's (prog_btf_fd, func_info) are
    not checked here: refused (ENOTSUPP, EINVAL) where 6.1 checks and keeps them, never taken
    unchecked; BCC answers both by going on without them"""
    from bpf_cases import OK0
    hash_map = struct.pack("<7I16s5IQ", 1, 4, 4, 4, 0, 0, 0, b"", 0, 3, 1, 1, 0, 0)
    out = run(machine, ["btf", CASES["btf_object"][1], "0", "raw", "0", hash_map.hex(), "load", "2", OK0, "0",
                        "F=3:13", "load", "2", OK0])
    assert out.splitlines() == ["btf: 3", "raw: -524", "load: -22", "load: 4"]
