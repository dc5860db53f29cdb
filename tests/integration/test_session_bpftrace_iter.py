"""bpftrace's `iter:task` and `iter:task_file` probes in a session: a BPF_TRACE_ITER program on
bpf_iter_task or bpf_iter_task_file (found in the emulated kernel's BTF), linked to its target
(BPF_LINK_CREATE) and read through BPF_ITER_CREATE's fd, whose reads are served by the kernel's
bpf_seq_read(): each task, or each open file of each task, printed by the program's
bpf_seq_printf() (kernel/bpf/bpf_iter.c, task_iter.c)."""

import os
import re
import shutil

import pytest
from simtest import SESSION_TIMEOUT, tracefs_sim

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("bpftrace") is None, reason="bpftrace is not installed"),
]


def session(tmp_path, script: str) -> list[str]:
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def test_iter_support_is_found(tmp_path):
    """`bpftrace --info` loads an iterator program on each target's bpf_iter_<target> (by its BTF
    id) and says yes to both, as on the real 6.1; `bpftrace -l 'iter:*'` lists the targets whose
    function the BTF has (the real 6.1 has more: task_vma, bpf_map, tcp...)"""
    lines = session(tmp_path, "bpftrace --info 2>&1 | grep 'iter:'; bpftrace -l 'iter:*'")
    assert [line.split() for line in lines] == [["iter:task:", "yes"], ["iter:task_file:", "yes"],
                                                ["iter:task"], ["iter:task_file"]], lines


def test_iter_task_lists_every_task(tmp_path):
    """`iter:task { printf("%s %d\\n", ctx->task->comm, ctx->task->pid) }`: every task of the
    kernel, by pid: its kthreads, init, and the session's own processes (the shell that ran the
    command, bpftrace itself); bpftrace exits by itself at the end of the walk"""
    lines = session(tmp_path, 'bpftrace -e \'iter:task { printf("%s %d\\n", ctx->task->comm, ctx->task->pid); }\'; '
                              'echo "shell $$"; echo "bpftrace exited $?"')
    assert lines[0] == "Attaching 1 probe...", lines
    assert lines[-1] == "bpftrace exited 0", lines
    # (bpftrace ends its output with empty lines, as on the real 6.1)
    tasks = [re.fullmatch(r"(\S+) (\d+)", line) for line in lines[1:-2] if line]
    assert all(tasks), lines
    pids = [int(m.group(2)) for m in tasks]
    comms = {int(m.group(2)): m.group(1) for m in tasks}
    assert pids == sorted(pids) and len(set(pids)) == len(pids), lines
    assert comms[1] == "init" and comms[2] == "kthreadd", lines
    shell = int(lines[-2].split()[1])
    assert shell in comms and "bpftrace" in comms.values(), lines


def test_iter_task_file_lists_each_task_s_files(tmp_path):
    """`iter:task_file`: each open file of each task, with its fd: bpftrace's own, among them
    the iterator's fd it reads from"""
    lines = session(tmp_path, 'bpftrace -e \'iter:task_file { printf("%s %d %d\\n", ctx->task->comm, ctx->task->pid, '
                              'ctx->fd); }\'; echo "bpftrace exited $?"')
    assert lines[0] == "Attaching 1 probe...", lines
    assert lines[-1] == "bpftrace exited 0", lines
    files = [re.fullmatch(r"(\S+) (\d+) (\d+)", line) for line in lines[1:-1] if line]
    assert all(files), lines
    keys = [(int(m.group(2)), int(m.group(3))) for m in files]
    assert keys == sorted(keys) and len(set(keys)) == len(keys), lines
    own = [fd for m, (pid, fd) in zip(files, keys) if m.group(1) == "bpftrace"]
    assert len(own) >= 5, lines
