"""Debian's bpftrace tools (/usr/sbin/*.bt), unmodified, in a session: what each prints on Linux
6.1, from the emulated kernel's programs, maps and perf events.  interval: and profile: probes
are BPF_PROG_TYPE_PERF_EVENT programs on sampling cpu-clock events (PERF_EVENT_IOC_SET_BPF,
run by the event's overflow); kstack is a stack trace map filled by bpf_get_stackid()."""

import os
import re
import shutil

import pytest
from test_session_bpftrace import bpftrace_while

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("bpftrace") is None, reason="bpftrace is not installed"),
    pytest.mark.timeout(400),
]
TIME = re.compile(r"^\d\d:\d\d:\d\d$")
COUNT = re.compile(r"^@\[(.+)\]: (\d+)$")
BUCKET = re.compile(r"^\[(\d+), (\d+)\)\s+(\d+) \|@*\s*\|$")
BUSY = "tracefs-sim exec getuid-loop 100000 >/dev/null"


def tool(name: str) -> str:
    path = f"/usr/sbin/{name}"
    if not os.path.exists(path):
        pytest.skip(f"{path} is not installed")
    return path


def test_vfsstat_prints_the_vfs_counts_each_second(tmp_path):
    """vfsstat.bt: kprobes counting vfs_* calls into @, and interval:s:1 (a perf_event program
    on a cpu-clock event sampling once a second on cpu 0) printing and clearing them: a time
    line each second, then the counts, vfs_read's among them while a reader runs."""
    out, err = bpftrace_while(tmp_path, None, "cat /etc/hostname >/dev/null", runs=12, tool=tool("vfsstat.bt"))
    lines = out.splitlines()
    assert "Tracing key VFS calls... Hit Ctrl-C to end." in lines, out + err
    seconds = [i for i, line in enumerate(lines) if TIME.match(line)]
    assert len(seconds) >= 2, out + err
    reads = [int(m.group(2)) for line in lines if (m := COUNT.match(line)) and m.group(1) == "vfs_read"]
    assert reads and max(reads) > 0, out + err
    # each second's block: its counts after its time line
    assert all(COUNT.match(line) or TIME.match(line) for line in lines[seconds[0]:] if line), out


def test_pidpersec_counts_forks_each_second(tmp_path):
    """pidpersec.bt: sched_process_fork counted, printed by interval:s:1 as `@: N`"""
    out, err = bpftrace_while(tmp_path, None, "/bin/true", runs=12, tool=tool("pidpersec.bt"))
    lines = out.splitlines()
    per_second = [int(m.group(1)) for line in lines if (m := re.match(r"^\d\d:\d\d:\d\d PIDs/sec: @: (\d+)$", line))]
    assert len(per_second) >= 2, out + err
    assert max(per_second) > 0, out + err


def test_cpuwalk_histogram_of_the_sampled_cpus(tmp_path):
    """cpuwalk.bt: profile:hz:99 (a sampling cpu-clock event per cpu, 99 Hz as a 10101010 ns
    period) with a /pid/ filter, the cpus of the non-idle samples in an lhist at END"""
    out, err = bpftrace_while(tmp_path, None, BUSY, runs=2, tool=tool("cpuwalk.bt"))
    lines = out.splitlines()
    assert "@cpu: " in lines, out + err
    buckets = [BUCKET.match(line) for line in lines[lines.index("@cpu: ") + 1:] if line]
    assert buckets and all(buckets), out
    cpus = {int(m.group(1)) for m in buckets if int(m.group(3)) > 0}
    assert cpus and cpus <= set(range(os.cpu_count() or 64)), out


def stacks(out: str) -> dict[tuple[str, ...], int]:
    """bpftrace's `@[kstack] = count()` output: each stack's frames and its count"""
    found: dict[tuple[str, ...], int] = {}
    for m in re.finditer(r"^@\[\n((?:\s+\S+\n)*)(?:, [^\]]*)?\]: (\d+)$", out, re.M):
        found[tuple(f.strip() for f in m.group(1).splitlines())] = int(m.group(2))
    return found


def test_profile_kernel_stacks(tmp_path):
    """profile:hz:99 with plain kstack (127 frames: a stack map of 131072 entries of 1016
    bytes, 133 MB, which the machine's 512 MiB holds): bpf_get_stackid() from the sample's
    registers into it, read back by id: a busy loop's system calls, down to the entry"""
    out, err = bpftrace_while(tmp_path, "profile:hz:99 /comm == \"getuid-loop\"/ { @[kstack] = count() }",
                              BUSY, runs=2)
    found = stacks(out)
    assert found, out + err
    frames = [f for stack in found for f in stack]
    assert all(re.match(r"^[\w.]+\+\d+$", f) for f in frames), out
    assert any(stack[-2:] == (stack[-2], "entry_SYSCALL_64_after_hwframe+35") and stack[-2].startswith("do_syscall_64+")
               for stack in found), out


def test_kprobe_kernel_stacks(tmp_path):
    """kprobe:vfs_read with kstack(4): the probed function first (past its entry, as a kprobe's
    ip is), then its caller, whose return address is at sp at the entry (as 6.1's ORC unwinder
    finds it), then the frames up to the system call"""
    out, err = bpftrace_while(tmp_path, "kprobe:vfs_read { @[kstack(4)] = count() }", "cat /etc/hostname", runs=20)
    found = stacks(out)
    reads = [stack for stack in found if stack and stack[0] == "vfs_read+1"]
    assert reads, out + err
    assert any(stack[1].startswith("ksys_read+") and stack[2].startswith("__x64_sys_read+")
               for stack in reads if len(stack) >= 3), out
    assert sum(found[stack] for stack in reads) >= 5, out


def test_loads_reads_the_kernels_load_average(tmp_path):
    """loads.bt: interval:s:1 reading avenrun (kaddr() from the session's /proc/kallsyms, the
    emulated kernel's) each second; a busy loop in the emulated kernel raises it within the
    first 5 s window"""
    # busy for 7 s on end (loads are sampled every 5 s): a short loop run now and then may miss
    # every sample on a loaded box (the session's machine stops it with the session)
    out, err = bpftrace_while(tmp_path, None, "timeout 7 tracefs-sim exec getuid-loop 100000000 >/dev/null",
                              runs=1, tool=tool("loads.bt"))
    loads = [tuple(map(float, m.groups())) for line in out.splitlines()
             if (m := re.match(r"^\d\d:\d\d:\d\d load averages: (\d+\.\d{3}) (\d+\.\d{3}) (\d+\.\d{3})$", line))]
    assert len(loads) >= 3, out + err
    assert max(one for one, _, _ in loads) > 0, out + err


def test_capable_shows_the_capability_checks(tmp_path):
    """capable.bt: kprobe:cap_capable's cap (arg2) and audit options (arg3) while a program
    changes its ids: fsop's child asks CAP_SETGID and CAP_SETUID as id changes
    (ns_capable_setid: CAP_OPT_INSETID, 4) and, as uid 1000, CAP_DAC_OVERRIDE to create a file
    in root's directory (capable_wrt_inode_uidgid: 0)."""
    out, err = bpftrace_while(tmp_path, None, "tracefs-sim exec fsop task /tmp/fsop-cap >/dev/null",
                              runs=1, tool=tool("capable.bt"))
    lines = out.splitlines()
    assert "Tracing cap_capable syscalls... Hit Ctrl-C to end." in lines, out + err
    rows = [line.split() for line in lines if re.match(r"^\d\d:\d\d:\d\d ", line)]
    fsop = {(r[4], r[5], r[6]) for r in rows if r[3] == "fsop"}
    assert {("6", "CAP_SETGID", "4"), ("7", "CAP_SETUID", "4"), ("1", "CAP_DAC_OVERRIDE", "0")} <= fsop, out


def test_opensnoop_shows_each_open_with_its_fd_or_error(tmp_path):
    """opensnoop.bt: sys_enter_open/openat keep the filename pointer by tid, sys_exit_* print the
    pid, comm, fd (or -1 and the errno) and the name: a marker cat's open of /etc/hostname and of
    a file that does not exist (ENOENT)."""
    opener = tmp_path / "bt_opener"
    shutil.copy("/bin/cat", opener)
    out, err = bpftrace_while(tmp_path, None, f"{opener} /etc/hostname /nonexistent-bt >/dev/null 2>&1",
                              runs=3, tool=tool("opensnoop.bt"))
    lines = out.splitlines()
    header = lines.index("Tracing open syscalls... Hit Ctrl-C to end.")
    assert lines[header + 1] == "PID    COMM               FD ERR PATH", out + err
    mine = [line.split() for line in lines if " bt_opener " in line]
    found = [(fields[2], fields[3]) for fields in mine if fields[4] == "/etc/hostname"]
    missing = [(fields[2], fields[3]) for fields in mine if fields[4] == "/nonexistent-bt"]
    assert found and all(int(fd) >= 3 and err_ == "0" for fd, err_ in found), out
    assert missing and all(m == ("-1", "2") for m in missing), out


def test_execsnoop_shows_each_exec_with_its_arguments(tmp_path):
    """execsnoop.bt: sys_enter_exec* print the elapsed ms, the pid and join(args->argv): the
    workload's exec of the marker with its arguments, each time."""
    marker = tmp_path / "bt_exec_marker"
    shutil.copy("/bin/true", marker)
    out, err = bpftrace_while(tmp_path, None, f"{marker} one two", runs=3, tool=tool("execsnoop.bt"))
    lines = out.splitlines()
    assert re.match(r"^TIME\(ms\)\s+PID\s+ARGS$", lines[1] if lines[0].startswith("Attaching") else lines[0]), out
    execs = [line for line in lines if line.endswith(f"{marker} one two")]
    assert len(execs) >= 2 and all(re.match(r"^\d+\s+\d+\s+/", line) for line in execs), out + err


def test_syscount_counts_by_syscall_id_and_process(tmp_path):
    """syscount.bt: raw_syscalls:sys_enter counted by id and by comm, the top ten of each at END
    (bpftrace's print(@map, 10): the largest last)."""
    marker = tmp_path / "bt_counter"
    shutil.copy("/bin/ls", marker)
    out, err = bpftrace_while(tmp_path, None, f"{marker} -R /usr/share/doc >/dev/null", runs=3, tool=tool("syscount.bt"))
    lines = out.splitlines()
    assert "Counting syscalls... Hit Ctrl-C to end." in lines, out + err
    ids = lines.index("Top 10 syscalls IDs:")
    processes = lines.index("Top 10 processes:")
    named = re.compile(r"^@(?:syscall|process)\[(.+)\]: (\d+)$")
    by_id = [named.match(line) for line in lines[ids + 1:processes] if line]
    by_comm = [named.match(line) for line in lines[processes + 1:] if line]
    assert by_id and all(by_id) and len(by_id) <= 10, out
    assert by_comm and all(by_comm) and len(by_comm) <= 10, out
    assert [int(m.group(2)) for m in by_comm] == sorted(int(m.group(2)) for m in by_comm), out
    # ls -R's getdents64 (217) and the marker itself are among the busiest
    assert "217" in {m.group(1) for m in by_id} and "bt_counter" in {m.group(1) for m in by_comm}, out
