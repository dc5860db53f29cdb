"""Debian's libbpf-tools (BCC's CO-RE tools, 0.26), unmodified, in a session: libbpf probes the
kernel's features with socket filter programs, creates, fills and freezes each tool's .rodata,
maps its global data (BPF_F_MMAPABLE arrays) and loads the programs against the session's
/sys/kernel/btf/vmlinux."""

import os
import re
import shutil
from pathlib import Path

import pytest
from simtest import SESSION_TIMEOUT, tracefs_sim

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(not os.path.exists("/usr/sbin/opensnoop") or not os.path.exists("/usr/sbin/vfsstat"),
                       reason="libbpf-tools is not installed"),
]


def run_tool_in_session(tmp_path: Path, tool: str, then: str) -> tuple[str, str]:
    """TOOL in a session until it prints, then the shell commands THEN, then Ctrl-C: the tool's
    output and the session's.  Line-buffered (stdbuf): these tools print their header once
    attached, but into a file stdio keeps it until they exit."""
    out = tmp_path / "tool.out"
    script = (f"timeout --foreground -s INT 120 stdbuf -oL {tool} >{out} 2>&1 & t=$!; "
              f"for i in $(seq 600); do [ -s {out} ] && break; sleep 0.1; done; "
              f"{then}; "
              "kill -INT $t; wait $t; echo tool exited $?")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    text = out.read_text()
    assert result.returncode == 0 and "tool exited 0" in result.stdout, result.stdout + result.stderr + text
    return text, result.stdout


def run_tool(tmp_path: Path, tool: str, workload: str) -> str:
    """TOOL in a session until it prints, WORKLOAD run 20 times, then Ctrl-C: its output"""
    return run_tool_in_session(tmp_path, tool, f"for i in $(seq 20); do {workload}; sleep 0.2; done")[0]


def test_opensnoop_sees_a_process_open_a_file(tmp_path):
    """its .rodata (targ_pid, targ_failed...) frozen and its programs loaded: a process's opens"""
    marker = tmp_path / "libbpf_marker"
    shutil.copy("/bin/cat", marker)
    text = run_tool(tmp_path, "opensnoop", f"{marker} /etc/hostname >/dev/null")
    assert text.splitlines()[0].split() == ["PID", "COMM", "FD", "ERR", "PATH"], text
    assert any(line.split()[1:2] == ["libbpf_marker"] and line.endswith("/etc/hostname")
               for line in text.splitlines()), text


def test_vfsstat_reads_its_counters_through_the_mapped_bss(tmp_path):
    """vfsstat reads the counters its programs add to in .bss through libbpf's mmap of it"""
    text = run_tool(tmp_path, "vfsstat 1 3", "cat /etc/hostname >/dev/null")
    lines = text.splitlines()
    assert lines[0].split() == ["TIME", "READ/s", "WRITE/s", "FSYNC/s", "OPEN/s", "CREATE/s"], text
    rows = [line.split() for line in lines[1:] if line.strip()]
    assert len(rows) == 3, text
    assert all(len(row) == 6 and all(v.isdigit() for v in row[1:]) for row in rows), text
    assert sum(int(row[1]) for row in rows) > 0 and sum(int(row[4]) for row in rows) > 0, text


def test_execsnoop_sees_a_process_exec(tmp_path):
    """execsnoop (its cgroup array made, unused): a process's execs with their arguments"""
    marker = tmp_path / "libbpf_exec_marker"
    shutil.copy("/bin/true", marker)
    text = run_tool(tmp_path, "execsnoop", f"{marker} one two")
    assert text.splitlines()[0].split() == ["PCOMM", "PID", "PPID", "RET", "ARGS"], text
    assert any(line.split()[0] == "libbpf_exec_mar" and line.split()[3] == "0" and
               line.split()[4:] == [str(marker), "one", "two"] for line in text.splitlines()[1:]), text


def test_biolatency_histograms_the_disks_requests(tmp_path):
    """biolatency (its block_rq_* program variants for other kernels poisoned by libbpf and
    never reached): a power-of-two histogram of the disk writer's requests"""
    text = run_tool(tmp_path, "biolatency",
                    "dd if=/dev/zero of=/mnt/libbpf_bio bs=4k count=8 oflag=sync 2>/dev/null")
    assert "usecs" in text and "distribution" in text, text
    counts = [int(line.split(":")[1].split()[0]) for line in text.splitlines() if "->" in line]
    assert sum(counts) > 0, text


def test_bitesize_histograms_the_request_sizes_by_process(tmp_path):
    """bitesize: a BTF-enabled raw tracepoint program (tp_btf/block_rq_issue, by the typedef
    btf_trace_block_rq_issue) reading the request through its typed argument; the disk's 4 KiB
    page writes in the histogram of the task that issued them"""
    text = run_tool(tmp_path, "bitesize",
                    "dd if=/dev/zero of=/mnt/libbpf_bitesize bs=4k count=8 oflag=sync 2>/dev/null")
    assert "Tracing block device I/O" in text and "Kbytes" in text, text
    sections = text.split("Process Name = ")[1:]
    assert sections, text
    rows = [(line.split(":")[0].strip(), int(line.split(":")[1].split()[0]))
            for section in sections for line in section.splitlines() if "->" in line]
    assert sum(count for bucket, count in rows if bucket == "4 -> 7") > 0, text


def test_offcputime_shows_the_stacks_that_slept(tmp_path):
    """offcputime: a tp_btf/sched_switch program keeps each switched-out task's kernel stack
    (bpf_get_stackid from the raw tracepoint: the walk goes from the program's JITed frame, as
    6.1's __kernel_text_address() takes a BPF program's image for kernel text, down to the
    scheduler's callers) and its time off the cpu"""
    text = run_tool(tmp_path, "offcputime 3", "sleep 0.1")
    stacks = [block.split("\n") for block in text.split("\n\n") if "__schedule" in block]
    assert stacks, text
    assert any(lines[0].strip().startswith("bpf_prog_") and lines[0].strip().endswith("_sched_switch")
               for lines in stacks), text
    assert any("do_nanosleep" in block for block in text.split("\n\n")), text


def test_funclatency_histograms_a_kernel_function(tmp_path):
    """funclatency: a kprobe and a kretprobe on vfs_read, nanoseconds in a log2 histogram"""
    text = run_tool(tmp_path, "funclatency -d 3 vfs_read", "cat /etc/hostname >/dev/null")
    assert "Tracing vfs_read" in text and "Exiting trace of vfs_read" in text, text
    counts = [int(line.split(":")[1].split()[0]) for line in text.splitlines() if "->" in line]
    assert sum(counts) > 0, text


def test_syscount_counts_the_system_calls(tmp_path):
    """syscount: raw_syscalls:sys_exit counted by syscall, the top ones named"""
    text = run_tool(tmp_path, "syscount -d 3", "cat /etc/hostname >/dev/null")
    assert text.splitlines()[0].startswith("Tracing syscalls"), text
    rows = [line.split() for line in text.splitlines() if len(line.split()) == 2 and line.split()[1].isdigit()]
    assert any(name in ("read", "openat", "close") for name, _ in rows), text


def test_klockstat_times_the_mutexes_an_exec_takes(tmp_path):
    """klockstat: fentry/fexit programs on every mutex and rw_semaphore function 6.1 has
    (mutex_lock_interruptible and _killable, down_read/down_write and their interruptible,
    killable and trylock forms, up_read/up_write); an exec waits for and holds its group's
    cred_guard_mutex (mutex_lock_interruptible from bprm_execve, as 6.1's prepare_bprm_creds)"""
    text = run_tool(tmp_path, "klockstat -n 100", "/bin/true")
    assert "Tracing mutex/sem lock events" in text, text
    assert re.search(r"^\s+Caller\s+Avg Wait\s+Count\s+Max Wait\s+Total Wait$", text, re.M), text
    assert re.search(r"^\s+bprm_execve\+0x[0-9a-f]+\s+[\d.]+ [mun]?s\s+\d+", text, re.M), text


def test_runqlen_samples_the_run_queues_of_busy_cpus(tmp_path):
    """runqlen: a perf_event program at 99 Hz reads current->se.cfs_rq->nr_running (6.1's
    sched_entity and cfs_rq layouts); three programs spinning in the kernel on two cpus keep
    tasks waiting, so some samples see a queue (the session's own processes run on the host)"""
    spin = "(while :; do :; done) & " * 3
    script = (f"tracefs-sim exec -- /bin/busybox sh -c '{spin} sleep 6; kill %1 %2 %3' & s=$!; sleep 1; "
              f"runqlen 3 1 >{tmp_path}/rq.out 2>&1; echo runqlen exited $?; wait $s")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    text = (tmp_path / "rq.out").read_text()
    assert "runqlen exited 0" in result.stdout, result.stdout + result.stderr + text
    slots = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"^\s+(\d+)\s+:\s+(\d+)\s+\|", text, re.M)}
    assert sum(count for slot, count in slots.items() if slot > 0) > 0, text
