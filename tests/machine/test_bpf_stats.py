"""The kernel's BPF sysctls (kernel/bpf/syscall.c's, as 6.1's): kernel.bpf_stats_enabled and a
BPF_ENABLE_STATS fd turn on the programs' run-time statistics (run_cnt and run_time_ns of their
info, counted by bpf_prog_run() and by a trampoline's __bpf_prog_enter/exit); the trampoline's
recursion misses are in recursion_misses; kernel.unprivileged_bpf_disabled keeps a task without
CAP_BPF from making maps and programs, and 1 is for good."""
from __future__ import annotations

import errno

import pytest

from bpf_asm import MAP_HASH, R0, exit_, mov64_imm, prog
from test_bpf_fentry import FENTRY, KIND_FUNC, PROG_TRACING, btf_ids  # noqa: F401 (a fixture)
from test_bpf_jit import PROG_RAW_TRACEPOINT, bpftest
from test_kprobe_pmu import by_comm, stacked  # noqa: F401 (the module's fixture)

RETURN_0 = prog(mov64_imm(R0, 0), exit_())


@pytest.fixture(scope="module")
def machine(stacked):
    return stacked[0]


@pytest.fixture
def sysctls(machine):
    from tracefs_sim.machine.sysctls import kernel_sysctls
    found = kernel_sysctls(machine)
    yield found
    found["bpf_stats_enabled"].write_at(b"0\n")


def stats(line: str) -> dict[str, int]:
    assert line.startswith("pstats: 0 "), line
    words = line.split()[2:]
    return {k: int(v) for k, v in zip(words[::2], words[1::2])}


def test_the_sysctl_counts_and_times_the_runs_while_it_is_1(machine, sysctls):
    enabled = sysctls["bpf_stats_enabled"]
    assert enabled.read() == b"0\n"
    off = bpftest(machine, "load", PROG_RAW_TRACEPOINT, RETURN_0, "run", 3, "run", 3, "pstats", 3)
    assert stats(off[3]) == {"run_cnt": 0, "timed": 0, "recursion_misses": 0}
    enabled.write_at(b"1\n")
    assert enabled.read() == b"1\n"
    on = bpftest(machine, "load", PROG_RAW_TRACEPOINT, RETURN_0, "run", 3, "run", 3, "run", 3, "pstats", 3)
    assert stats(on[4]) == {"run_cnt": 3, "timed": 1, "recursion_misses": 0}
    with pytest.raises(OSError) as e:
        enabled.write_at(b"2\n")
    assert e.value.errno == errno.EINVAL and enabled.read() == b"1\n"
    enabled.write_at(b"0\n")
    after = bpftest(machine, "load", PROG_RAW_TRACEPOINT, RETURN_0, "run", 3, "pstats", 3)
    assert stats(after[2])["run_cnt"] == 0


def test_an_enable_stats_fd_counts_while_it_is_open(machine, sysctls):
    out = bpftest(machine, "load", PROG_RAW_TRACEPOINT, RETURN_0, "run", 3, "estats", "run", 3, "run", 3,
                  "pstats", 3, "close", 4, "run", 3, "pstats", 3)
    assert out[:3] == ["load: 3", "run: 0 retval 0", "estats: 4"], out
    assert stats(out[5])["run_cnt"] == 2 and stats(out[5])["timed"] == 1
    assert out[6] == "close: 0" and stats(out[8])["run_cnt"] == 2
    # the sysctl's share and the fds' are apart: 0 written while an fd is open leaves it on
    sysctls["bpf_stats_enabled"].write_at(b"1\n")
    sysctls["bpf_stats_enabled"].write_at(b"0\n")
    out = bpftest(machine, "load", PROG_RAW_TRACEPOINT, RETURN_0, "estats", "run", 3, "pstats", 3)
    assert stats(out[3])["run_cnt"] == 1


def test_a_trampolines_runs_are_counted(machine, sysctls, btf_ids):
    ids, _ = btf_ids
    getpid = ids[(KIND_FUNC, "__do_sys_getpid")]
    sysctls["bpf_stats_enabled"].write_at(b"1\n")
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_TRACING, by_comm(3), 0, f"A={FENTRY}:{getpid}",
                  "rawtp", 4, "-", "calls", 25, "pstats", 4)
    assert out[:4] == ["map: 3", "load: 4", "rawtp: 5", "calls: 25"], out
    counted = stats(out[4])
    assert counted["run_cnt"] >= 25 and counted["timed"] == 1 and counted["recursion_misses"] == 0, out


def test_unprivileged_bpf_disabled_keeps_others_from_making_maps_and_programs(machine, sysctls):
    disabled = sysctls["unprivileged_bpf_disabled"]
    assert disabled.read() == b"2\n"   # CONFIG_BPF_UNPRIV_DEFAULT_OFF, as Debian's 6.1 boots
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 4, "uid", 1000, "map", MAP_HASH, 4, 8, 4,
                  "load", PROG_RAW_TRACEPOINT, RETURN_0, "upd", 3, "00000000", "0000000000000000")
    # root's map; then as uid 1000: EPERM for a map or a program, but the map root made still works
    assert out == ["map: 3", "uid: 0", f"map: -{errno.EPERM}", f"load: -{errno.EPERM}", "upd: 0"], out
    with pytest.raises(OSError) as e:
        disabled.write_at(b"3\n")
    assert e.value.errno == errno.EINVAL and disabled.read() == b"2\n"
    disabled.write_at(b"0\n")
    try:
        # 0: a map of a plain type may be made; a tracing program still wants CAP_BPF
        out = bpftest(machine, "uid", 1000, "map", MAP_HASH, 4, 8, 4, "load", PROG_RAW_TRACEPOINT, RETURN_0)
        assert out == ["uid: 0", "map: 3", f"load: -{errno.EPERM}"], out
        disabled.write_at(b"1\n")
        with pytest.raises(OSError) as e:
            disabled.write_at(b"0\n")
        assert e.value.errno == errno.EPERM and disabled.read() == b"1\n"
        out = bpftest(machine, "uid", 1000, "map", MAP_HASH, 4, 8, 4)
        assert out == ["uid: 0", f"map: -{errno.EPERM}"], out
    finally:
        # (1 is for good: the test's machine is its module's alone, so the others never see it)
        if disabled.read() != b"1\n":
            disabled.write_at(b"2\n")
