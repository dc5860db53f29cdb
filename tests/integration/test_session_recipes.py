"""The recipes of mountpoint_scripts/session_*.sh: the docs' and tools' recipes with the
session's own commands as their workload (issue: the session's processes are the kernel's)."""

import os
import re
import shutil

import pytest
from simtest import REPO, section, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and namespaces")

RECORD = r"^ +{comm}-(\d+) +\[\d{{3}}\] [.dDbXnNphHsSzZ0-9]{{5}} +\d+\.\d{{6}}: "


def recipe(name: str) -> str:
    result = tracefs_sim("run", "--workload", "none", str(REPO / "mountpoint_scripts" / name), timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_function_tracer_sees_the_sessions_cat_read():
    reads = section(recipe("session_vfs_read.sh"), "cat's reads:")
    # (its loader pread64s the libraries through vfs_read too, as on Linux)
    assert reads and all(re.match(RECORD.format(comm="cat") + r"vfs_read <-ksys_p?read(64)?$", l) for l in reads), reads
    assert len({re.match(RECORD.format(comm="cat"), l).group(1) for l in reads}) == 1


def test_getuid_of_ten_ids_counted():
    out = recipe("session_getuid_count.sh")
    assert section(out, "getuid() calls of id:") == ["10"]
    assert section(out, "the ids that made them:") == ["10"]    # ten processes, one call each


def test_kprobe_on_the_open_path_shows_cats_file():
    opened = section(recipe("session_kprobe_open.sh"), "what cat opened:")
    assert any(re.match(RECORD.format(comm="cat") + r'myprobe: \(do_sys_openat2\+0x0/0x[0-9a-f]+\) '
                                                    r'filename="/etc/hostname"$', l) for l in opened), opened


@pytest.mark.skipif(shutil.which("trace-cmd") is None, reason="trace-cmd is not installed")
def test_trace_cmd_records_the_ls_it_runs():
    lines = section(recipe("session_trace_cmd_record.sh"), "ls in the report:")
    assert [re.search(r": +(\w+):", l).group(1) for l in lines] == \
        ["sched_process_exec", "sys_enter_getdents64", "sys_enter_getdents64"], lines
    assert "filename=/usr/bin/ls" in lines[0]


@pytest.mark.skipif(shutil.which("kprobe-perf") is None, reason="perf-tools are not installed")
def test_perf_tools_kprobe_and_funcgraph_catch_the_sessions_cat():
    out = recipe("session_perf_tools.sh")
    kprobe = section(out, "kprobe:")
    assert kprobe and all(re.match(RECORD.format(comm="cat") + r"do_sys_openat2: \(do_sys_openat2\+0x0/0x[0-9a-f]+\) "
                                                               r'filename="[^"]+"$', l) for l in kprobe), kprobe
    graph = section(out, "funcgraph:")
    assert graph[0] == 'Tracing "vfs_read" for 5 seconds...' and any("vfs_read() {" in l for l in graph[1:]), graph
