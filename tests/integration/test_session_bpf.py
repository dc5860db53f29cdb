"""bpf(2) from a session's own (host) process is the emulated kernel's: the same bpftest the
machine tests run in the guest (kernel_model/user/bpftest.c), built for the host, makes maps and
loads programs there; the fds it gets are its own host fds, and nothing reaches the host's BPF."""

import os
import sys
import shutil
import subprocess
from pathlib import Path

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0 or not shutil.which("gcc"),
                                reason="needs /dev/fuse, root, mount namespaces and gcc")

SOURCE = Path(__file__).resolve().parents[2] / "kernel_model/user/bpftest.c"


@pytest.fixture
def host_bpftest(tmp_path):
    binary = tmp_path / "bpftest"
    subprocess.run(["gcc", "-static", "-O1", "-DHOST", "-o", str(binary), str(SOURCE)], check=True, timeout=120)
    return binary


def test_a_sessions_bpf_calls_are_served_by_the_emulated_kernel(tmp_path, host_bpftest):
    script = (f"{host_bpftest} map 1 4 8 4 upd 3 01000000 2a00000000000000 get 3 01000000 next 3 - "
              # r0 = 7; exit, loaded with a log
              f"load 17 b7000000070000009500000000000000 1 run 4 minfo 3; "
              "echo rc $?")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=150, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "map: 3",
        "upd: 0",
        "get: 0 2a00000000000000",
        "next: 0 01000000",
        "load: 4",
        "| processed 2 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0",
        "run: 0 retval 7",
        "minfo: 0 type 1 id 1 key_size 4 value_size 8 max_entries 4 map_flags 0 name  info_len 88",
        "rc 0",
    ]


def test_a_raw_tracepoint_program_counts_a_sessions_syscalls(tmp_path, host_bpftest):
    """A session process attaches a raw tracepoint program to sys_enter (BPF_RAW_TRACEPOINT_OPEN)
    that counts syscalls by number into a hash map, makes 37 getpid() calls and reads the count
    back: its calls, mirrored into the kernel, fired the kernel's sys_enter, which ran the
    program there (tests/machine/test_bpf_trace.py has the program)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "machine"))
    from test_bpf_trace import NR_getpid, count, count_by_syscall, key
    script = (f"{host_bpftest} map 1 4 8 64 load 17 {count_by_syscall(3)} rawtp 4 sys_enter "
              f"calls 37 get 3 {key(NR_getpid)}; echo rc $?")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=150, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[:4] == ["map: 3", "load: 4", "rawtp: 5", "calls: 37"], lines
    assert count(lines[4]) == 37
    assert lines[5] == "rc 0"


def test_a_tracepoint_program_on_a_sessions_perf_event(tmp_path, host_bpftest):
    """As BCC and bpftrace attach to a tracepoint: perf_event_open on the event's id (read from
    the session's tracefs), PERF_EVENT_IOC_SET_BPF with the program, both served by the kernel;
    the process's own getpid() calls are counted there."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "machine"))
    from test_bpf_trace import NR_getpid, count, count_by_syscall, key
    script = ("id=$(cat /sys/kernel/tracing/events/raw_syscalls/sys_enter/id) && "
              f"{host_bpftest} map 1 4 8 64 load 5 {count_by_syscall(3)} tpev $id setbpf 5 4 "
              f"calls 25 get 3 {key(NR_getpid)}; echo rc $?")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=150, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[:5] == ["map: 3", "load: 4", "tpev: 5", "setbpf: 0", "calls: 25"], lines
    assert count(lines[5]) == 25
    assert lines[6] == "rc 0"
