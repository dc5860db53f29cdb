"""BPF_BTF_LOAD: a user's BTF checked as 6.1's btf_parse() checks it, then a BTF object of its own
(an fd, an id listed by BPF_BTF_GET_NEXT_ID and opened by BPF_BTF_GET_FD_BY_ID, its data given back
by BPF_OBJ_GET_INFO_BY_FD).  Each case of bpf_btf_load_cases.py ran on the real Linux 6.1 too
(tests/data/bpf/btf_load_reference.txt): the errnos and the logs must be the same."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpf_btf_load_cases import (HASH, PTR, STRUCT, TYPE_TAG, Strings, blob, cases, int_t, map_attr, parse, t, u32s,
                                with_stdin)
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


def test_a_map_value_with_a_spin_lock_timer_or_kptr_is_refused(machine):
    """This kernel's maps hold no bpf_spin_lock, bpf_timer or kptr: a value type with one is
    ENOTSUPP (6.1 takes them in a hash or an array), which BCC answers by creating the map without
    its BTF"""
    s = Strings("int", "v", "l", "bpf_spin_lock", "bpf_timer", "kptr", "p")

    def member_(name: str, type_id: int, offset: int) -> bytes:
        return u32s(s.off(name), type_id, offset)
    types = b"".join([int_t(s.off("int")),
                      t(s.off("bpf_spin_lock"), STRUCT, vlen=1, size_type=4) + member_("v", 1, 0),
                      t(s.off("bpf_timer"), STRUCT, size_type=16),
                      t(s.off("kptr"), TYPE_TAG, size_type=1), t(0, PTR, size_type=4),
                      t(s.off("v"), STRUCT, vlen=2, size_type=8) + member_("v", 1, 0) + member_("l", 2, 32),
                      t(s.off("v"), STRUCT, vlen=1, size_type=16) + member_("v", 3, 0),
                      t(s.off("v"), STRUCT, vlen=1, size_type=8) + member_("p", 5, 0)])
    btf = blob(types, s.data)
    out = run(machine, ["btf", btf, "0"] + [a for v, size in ((6, 8), (7, 16), (8, 8))
                                            for a in ("raw", "0", map_attr(HASH, 4, size, 4, 3, 1, v))])
    assert out.splitlines() == ["btf: 3", "raw: -524", "raw: -524", "raw: -524"]
