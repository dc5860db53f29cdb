"""Debian's BCC tools (bpfcc-tools 0.26), unmodified, in a session: they compile their C against
the kernel headers at /lib/modules/$(uname -r)/build (Debian's 6.1 headers, shown there by the
session), and load, attach and read their programs, maps and perf events in the emulated kernel
(served bpf(2), perf_event_open(2) and the calls on their fds, as bpftrace's)."""

import os
import re
import shutil
from pathlib import Path

import pytest
from simtest import SESSION_TIMEOUT, tracefs_sim

from tracefs_sim.namespace import debian_61_headers

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("funccount-bpfcc") is None, reason="bpfcc-tools is not installed"),
    pytest.mark.skipif(debian_61_headers() is None, reason="no Debian linux-headers-6.1 installed"),
]

# A tool ending by itself (its own duration option) while MARKER runs every 0.2 s.
WORKLOAD_RUNS = 25


# Ctrl-C again while the tool runs on: a SIGINT that lands while Python runs a ctypes callback
# (BCC's perf buffer reader) raises there and is swallowed ("Exception ignored on calling ctypes
# callback function"), as on Linux; it goes to the tool itself then (timeout passes one on)
_CTRL_C_AGAIN = ("for i in $(seq 300); do kill -0 $t 2>/dev/null || break; sleep 0.1; "
                 "[ $((i % 30)) = 0 ] && pkill -INT -P $t; done; ")


def bcc_while(tmp_path: Path, tool: str, workload: str, interrupt: bool = False) -> str:
    """`TOOL` (a BCC tool with a duration, so it ends by itself) in a session, with WORKLOAD run
    in a loop from when the tool is attached until it ends (or, with INTERRUPT, for a tool that
    runs until Ctrl-C, WORKLOAD_RUNS times and then a SIGINT). The tool's output (stdout and
    stderr)."""
    out = tmp_path / "bcc.out"
    if interrupt:
        # a background job of a script ignores SIGINT, and so would Python: timeout takes it
        # (its own handler) and passes it on, once (--foreground), to the tool, which it started with
        # SIGINT's default
        tool = f"timeout --foreground -s INT 200 {tool}"
    script = (f"{tool} >{out} 2>&1 & t=$!; "
              # BCC prints its banner once its probes are attached (compiling takes seconds)
              f"for i in $(seq 600); do [ -s {out} ] && break; sleep 0.1; done; "
              f"for i in $(seq {WORKLOAD_RUNS}); do kill -0 $t 2>/dev/null || break; {workload}; sleep 0.2; done; "
              + ("kill -INT $t; " + _CTRL_C_AGAIN if interrupt else "") +
              "wait $t; echo tool exited $?")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    text = out.read_text()
    assert result.returncode == 0 and "tool exited 0" in result.stdout, result.stdout + result.stderr + text
    return text


def marker(tmp_path: Path) -> Path:
    path = tmp_path / "bcc_marker"
    shutil.copy("/bin/cat", path)
    return path


def test_the_session_shows_debian_61_headers_as_the_running_kernels():
    """/lib/modules/$(uname -r)/{build,source} point at Debian's 6.1 headers (their
    version.h says 6.1); /lib/modules still lists the host's own entries, and the host's is
    untouched."""
    release, links = debian_61_headers()
    host_before = sorted(os.listdir("/lib/modules"))
    result = tracefs_sim("run", "-c", "r=$(uname -r); readlink /lib/modules/$r/build /lib/modules/$r/source; "
                         "grep -h LINUX_VERSION_MAJOR /lib/modules/$r/build/include/generated/uapi/linux/version.h; "
                         "ls -A /lib/modules", timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == [links["build"], links["source"]], result.stdout
    assert lines[2] == "#define LINUX_VERSION_MAJOR 6", result.stdout
    assert sorted(lines[3:]) == sorted(host_before + ["6.1.0-tracefs-sim"]), result.stdout
    assert sorted(os.listdir("/lib/modules")) == host_before


def test_funccount_counts_a_kernel_function(tmp_path):
    """funccount: a kprobe program (attached through a perf event of the kprobe PMU) counting in
    a hash map, read at the end: the marker's reads are among them."""
    cat = marker(tmp_path)
    out = bcc_while(tmp_path, "funccount-bpfcc -d 4 vfs_read", f"{cat} /etc/hostname >/dev/null")
    assert 'Tracing 1 functions for "b\'vfs_read\'"' in out, out
    counts = re.findall(r"^vfs_read\s+(\d+)$", out, re.M)
    # at least the marker's: each cat reads its file twice (data, then EOF) after its own loading
    assert counts and int(counts[0]) >= 2, out


def test_vfscount_attaches_every_vfs_function(tmp_path):
    """vfscount: kprobes on every `vfs_*` function BCC finds in /proc/kallsyms, skipping those
    between __init_begin and __init_end (init functions, which 6.1 refuses to probe after boot:
    EINVAL): each attaches, and the marker's opens and reads are counted. Ends on SIGINT."""
    cat = marker(tmp_path)
    out = bcc_while(tmp_path, "vfscount-bpfcc", f"{cat} /etc/hostname >/dev/null", interrupt=True)
    assert "cannot attach" not in out, out
    counts = {name: int(n) for name, n in re.findall(r"^[0-9a-f]{16} b'(\w+)'\s+(\d+)$", out, re.M)}
    assert counts.get("vfs_read", 0) >= 2 and counts.get("vfs_open", 0) >= 1, out
    assert not {"vfs_caches_init", "vfs_mount_init"} & set(counts), out


def test_cpudist_sizes_its_map_by_pid_max(tmp_path):
    """cpudist: its `start` hash map has pid_max entries (the host's 4194304 read from /proc:
    300 MB preallocated, which 6.1 vmallocs and gives on a 512 MiB machine too; so does the
    emulated kernel, bpf_map_area_alloc → vzalloc), then sched_switch's on-cpu times of the
    emulated kernel's tasks in a log2 histogram, one per interval."""
    out = bcc_while(tmp_path, "cpudist-bpfcc 1 2", "true")
    assert "Tracing on-CPU time" in out, out
    assert len(re.findall(r"^\s+usecs\s+: count\s+distribution$", out, re.M)) == 2, out
    assert sum(int(n) for n in re.findall(r"^\s+\d+ -> \d+\s+: (\d+)\s+\|", out, re.M)) > 0, out


def test_cachestat_counts_the_disk_writers_dirtied_buffers(tmp_path):
    """cachestat: kprobes on 6.1's add_to_page_cache_lru, mark_page_accessed and
    mark_buffer_dirty (folio_account_dirtied is inlined in 6.1: not attached). The background
    workload's disk writer writes files of simplefs (/mnt), whose write_end is ext2's
    (generic_write_end → block_write_end → __block_commit_write.constprop.0.isra.0 →
    mark_buffer_dirty): DIRTIES each second. (6.1's reads call the folio names, filemap_add_folio and folio_mark_accessed,
    not the two cachestat counts: no HITS or MISSES from reads, there as here.)"""
    out = bcc_while(tmp_path, "cachestat-bpfcc 1 3", "true")
    assert re.search(r"^\s+HITS\s+MISSES\s+DIRTIES\s+HITRATIO\s+BUFFERS_MB\s+CACHED_MB$", out, re.M), out
    rows = re.findall(r"^\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+%\s+\d+\s+\d+$", out, re.M)
    assert len(rows) == 3, out
    assert sum(int(dirties) for _, _, dirties in rows) > 0, out


def test_syscount_of_one_process_counts_its_calls(tmp_path):
    """syscount -p PID: a raw_syscalls:sys_exit tracepoint program filtered on the pid
    (bpf_get_current_pid_tgid), counting by syscall number in a hash map: a shell that opens
    a file 40 times once the tool is attached shows at least those 40 openat calls."""
    out = tmp_path / "bcc.out"
    script = (f"bash -c 'while [ ! -s {out} ]; do sleep 0.1; done; sleep 0.5; "
              f"for i in $(seq 40); do : < /etc/hostname; done; sleep 30' & m=$!; "
              f"syscount-bpfcc -p $m -d 6 >{out} 2>&1; echo tool exited $?; kill $m")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    text = out.read_text()
    assert result.returncode == 0 and "tool exited 0" in result.stdout, result.stdout + result.stderr + text
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", text, re.M))
    assert int(counts.get("openat", 0)) >= 40, text


def test_a_tools_programs_load_with_their_btf(tmp_path):
    """BCC loads each program with its BTF (prog_btf_fd, func_info, line_info) first, which 6.1
    keeps: the program's kallsyms line is named by its function in that BTF, whole
    (syscount's tracepoint__raw_syscalls__sys_exit); BCC's retry without BTF, after a kernel
    refused it, left a nameless bpf_prog_<tag> (and prog_name holds 15 characters at most)."""
    out = tmp_path / "bcc.out"
    script = (f"syscount-bpfcc -d 3 >{out} 2>&1 & t=$!; "
              f"for i in $(seq 600); do [ -s {out} ] && break; sleep 0.1; done; "
              "grep -o 'bpf_prog_[0-9a-f]*_[a-z_]*' /proc/kallsyms; wait $t; echo tool exited $?")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0 and "tool exited 0" in result.stdout, result.stdout + result.stderr
    assert re.search(r"^bpf_prog_[0-9a-f]{16}_tracepoint__raw_syscalls__sys_exit$", result.stdout, re.M), \
        result.stdout + out.read_text()


# BCC's "Hello, World!" (its tutorial's first lesson): a kprobe program calling
# bpf_trace_printk(), whose lines BPF.trace_fields() reads from trace_pipe; an opener thread
# fires the probe until a line came (the kernel enables the event from a work item)
HELLO_WORLD = r"""
import threading, time
from bcc import BPF
b = BPF(text='int kprobe__do_sys_openat2(void *ctx) { bpf_trace_printk("Hello, World! %d\\n", 42); return 0; }')
done = threading.Event()
def opener():
    while not done.is_set():
        open("/etc/hostname").close()
        time.sleep(0.1)
threading.Thread(target=opener, daemon=True).start()
task, pid, cpu, flags, ts, msg = b.trace_fields()
done.set()
print("line:", msg.decode())
print("enable:", open("/sys/kernel/tracing/events/bpf_trace/bpf_trace_printk/enable").read().strip())
"""


def test_hello_world_of_the_bcc_tutorial(tmp_path):
    """Loading a program that may call bpf_trace_printk() enables bpf_trace:bpf_trace_printk in
    the top-level array, as 6.1's bpf_get_trace_printk_proto() does (nobody enabled it by hand),
    so BCC's trace_fields() reads the program's line from trace_pipe."""
    script = tmp_path / "hello.py"
    script.write_text(HELLO_WORLD)
    result = tracefs_sim("run", "-c", f"cat /sys/kernel/tracing/events/bpf_trace/bpf_trace_printk/enable; "
                         f"/usr/bin/python3 {script}", timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["0", "line: Hello, World! 42", "enable: 1"], result.stdout + result.stderr


def test_stackcount_shows_the_kernel_call_chain(tmp_path):
    """stackcount: kernel stacks of a kprobe program in a stack trace map (bpf_get_stackid),
    symbolised by BCC from the emulated kernel's /proc/kallsyms."""
    cat = marker(tmp_path)
    out = bcc_while(tmp_path, "stackcount-bpfcc -D 4 vfs_read", f"{cat} /etc/hostname >/dev/null")
    stacks = [block.split() for block in re.split(r"\n\s*\d+\n", out)]
    assert any(s[:3] == ["vfs_read", "ksys_read", "__x64_sys_read"] for s in stacks), out


def test_funclatency_histogram_of_vfs_read(tmp_path):
    """funclatency: a kprobe and a kretprobe program, the time between them in a log2
    histogram map, printed as BCC prints it."""
    cat = marker(tmp_path)
    out = bcc_while(tmp_path, "funclatency-bpfcc -d 4 vfs_read", f"{cat} /etc/hostname >/dev/null")
    assert re.search(r"^\s+nsecs\s+: count\s+distribution$", out, re.M), out
    buckets = [int(n) for n in re.findall(r"^\s+\d+ -> \d+\s+: (\d+)\s+\|", out, re.M)]
    assert sum(buckets) >= 2, out


def test_exitsnoop_reads_the_task_struct_at_61s_offsets(tmp_path):
    """exitsnoop: a sched_process_exit tracepoint program reading the exiting task's pid, tgid,
    real_parent->tgid, start_time and exit_code with bpf_probe_read_kernel at the offsets of
    Debian 6.1's headers, which the emulated kernel's task_struct has: each marker's pid, its
    parent (the loop's shell), its age (it sleeps 0.5 s) and its exit code."""
    sleeper = tmp_path / "bcc_marker"
    shutil.copy("/bin/sleep", sleeper)
    out, pids = tmp_path / "bcc.out", tmp_path / "pids"
    script = (f"exitsnoop-bpfcc >{out} 2>&1 & t=$!; "
              f"for i in $(seq 600); do [ -s {out} ] && break; sleep 0.1; done; "
              f"bash -c 'for i in 1 2 3; do {sleeper} 0.5 & echo $$ $! >> {pids}; wait; done'; "
              f"sleep 1; for i in $(seq 20); do kill -INT $t 2>/dev/null || break; sleep 1; done; "
              # a SIGINT taken in BCC's perf buffer callback is dropped by ctypes (as on Linux): resent
              f"kill -9 $t 2>/dev/null; wait $t; echo tool exited $?")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    text = out.read_text()
    assert "tool exited" in result.stdout, result.stdout + result.stderr + text
    rows = {int(m.group(1)): m for m in re.finditer(
        r"^bcc_marker\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s*$", text, re.M)}
    for parent, pid in (map(int, line.split()) for line in pids.read_text().splitlines()):
        row = rows.get(pid)
        assert row is not None, text
        assert int(row.group(2)) == parent and int(row.group(3)) == pid, text
        assert 0.4 <= float(row.group(4)) < 3.0 and row.group(5) == "0", text


def test_opensnoop_shows_a_commands_opens(tmp_path):
    """opensnoop: kretfunc (fexit) programs on __x64_sys_open, __x64_sys_openat and
    __x64_sys_openat2 read the path, dfd and flags from the syscall's registers through their
    `struct pt_regs *` argument (6.1's PTR_TO_BTF_ID: direct loads of regs->si, regs->dx), the
    result from the return value: each marker's pid and comm, the fd of the file it reads, ENOENT
    of a missing one, and the flags (octal; ld.so opens with O_CLOEXEC, cat its files with 0).
    -F puts the cwd before a relative path, walking current->fs->pwd.dentry and its d_parents from
    bpf_get_current_task_btf() (direct loads through PTR_TO_BTF_ID again)."""
    cat, pids = marker(tmp_path), tmp_path / "pids"
    out = bcc_while(tmp_path, "opensnoop-bpfcc -e -F -n bcc_marker -d 4",
                    f"sh -c 'echo $$ >> {pids}; cd /usr/share; exec {cat} ../../etc/hostname /nonexistent' "
                    ">/dev/null 2>&1")
    assert re.search(r"^PID\s+COMM\s+FD ERR FLAGS\s+PATH$", out, re.M), out
    # (pid, path): (comm, fd, errno, flags)
    rows = {(int(pid), path): rest for pid, *rest, path in
            re.findall(r"^(\d+)\s+(\S+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s+(\S+)$", out, re.M)}
    hostname = "/usr/share/../../etc/hostname"
    # opensnoop prints its header before it opens its perf buffer (events up to then are lost, as
    # on Linux), and the last markers may have run (or been replayed by a kernel running behind
    # a loaded host) after it ended: every one in between is there
    started = [int(line) for line in pids.read_text().split()]
    seen = [i for i, pid in enumerate(started) if (pid, hostname) in rows]
    assert len(seen) >= 2, out
    for pid in started[seen[0]:seen[-1] + 1]:
        assert rows.get((pid, hostname)) == ["bcc_marker", "3", "0", "00000000"], out
        assert rows.get((pid, "/nonexistent")) == ["bcc_marker", "-1", "2", "00000000"], out
        assert rows.get((pid, "/etc/ld.so.cache")) == ["bcc_marker", "3", "0", "02000000"], out


def test_filelife_shows_the_age_of_a_file_removed(tmp_path):
    """filelife: kprobes on vfs_create, vfs_open, security_inode_create (the LSM hook, 6.1's
    security/security.c) and vfs_unlink, with the 6.1 signatures BCC picks from the kernel's BTF
    (struct renamedata has old_mnt_userns): a guest program (fsop life) makes one file by
    open(O_CREAT) (vfs_open of a file FMODE_CREATED) and one by mknod (vfs_create, then
    security_inode_create), and unlinks both 0.3 s later: each has its line, with its pid,
    comm, age and name. Ends on SIGINT."""
    out = bcc_while(tmp_path, "filelife-bpfcc",
                    "echo $(tracefs-sim exec fsop life /tmp/filelife-$i | wc -l) >> runs", interrupt=True)
    assert re.search(r"^TIME\s+PID\s+COMM\s+AGE\(s\)\s+FILE$", out, re.M), out
    rows = re.findall(r"^\d\d:\d\d:\d\d (\d+)\s+(\S+)\s+([\d.]+)\s+(\S+)$", out, re.M)
    runs = (tmp_path / "runs").read_text().split()
    assert runs and all(n == "6" for n in runs), runs   # every run made and removed its two files
    by_pid: dict[str, set[str]] = {}
    for pid, comm, age, name in rows:
        assert comm == "fsop" and name in ("created", "made"), out
        # 0.3 s asleep between the create and the unlink (AGE is whole ms / 1000)
        assert 0.29 <= float(age) < 3.0, out
        by_pid.setdefault(pid, set()).add(name)
    # a run after the tool attached and before its SIGINT shows both files
    assert sum(names == {"created", "made"} for names in by_pid.values()) >= 2, out


def test_capable_shows_the_capability_checks(tmp_path):
    """capable: a kprobe on cap_capable (the capability module behind security_capable): a
    guest program (fsop cap) asks in a child for CAP_SYS_CHROOT and CAP_SETUID (the setresuid)
    as root, and as uid 1000 for CAP_FOWNER and CAP_DAC_OVERRIDE (chmod, utimes and truncate of
    root's file: setattr_prepare's inode_owner_or_capable, the write permission's
    capable_wrt_inode_uidgid), CAP_KILL (kill of init, of its root parent, even SIGCONT's before
    its session exemption, and tgkill) and CAP_SYS_CHROOT: each with its uid, in the order the
    real 6.1's cap_capable sees them (a kprobe there: 18 7 3 3 3 1 3 5 5 5 5 18). Its mappings
    at address 0 ask CAP_SYS_RAWIO in cap_mmap_addr, where Debian's 6.1 inlines cap_capable: no
    line for them, there as here. Ends on SIGINT."""
    out = bcc_while(tmp_path, "capable-bpfcc", "tracefs-sim exec fsop cap /tmp/capable-$i >/dev/null",
                    interrupt=True)
    assert re.search(r"^TIME\s+UID\s+PID\s+COMM\s+CAP\s+NAME\s+AUDIT\s*$", out, re.M), out
    rows = re.findall(r"^\d\d:\d\d:\d\d\s+(\d+)\s+(\d+)\s+fsop\s+(\d+)\s+(\w+)\s+1\s*$", out, re.M)
    by_pid: dict[str, list[tuple[str, str]]] = {}
    for uid, pid, _, name in rows:
        by_pid.setdefault(pid, []).append((uid, name))
    assert all(name != "CAP_SYS_RAWIO" for _, _, _, name in rows), out
    children = [checks for checks in by_pid.values()
                if checks == [("0", "CAP_SYS_CHROOT"), ("0", "CAP_SETUID")]
                + [("1000", "CAP_FOWNER")] * 3 + [("1000", "CAP_DAC_OVERRIDE"), ("1000", "CAP_FOWNER")]
                + [("1000", "CAP_KILL")] * 4 + [("1000", "CAP_SYS_CHROOT")]]
    assert len(children) >= 2, out


def test_execsnoop_shows_each_exec_with_its_parent_and_arguments(tmp_path):
    """execsnoop: a kprobe on the execve entry keeps each argument (bpf_probe_read_user_str) and a
    kretprobe its return, sent through a perf buffer: the marker's execs with their pid, parent
    (the loop's shell), return 0 and arguments."""
    m = marker(tmp_path)
    out = bcc_while(tmp_path, "execsnoop-bpfcc", f"{m} /etc/hostname >/dev/null", interrupt=True)
    assert re.search(r"^PCOMM\s+PID\s+PPID\s+RET\s+ARGS$", out, re.M), out
    rows = re.findall(rf"^bcc_marker\s+(\d+)\s+(\d+)\s+(-?\d+)\s+{re.escape(str(m))} /etc/hostname$", out, re.M)
    assert len(rows) >= 2, out
    assert all(ret == "0" and pid != ppid for pid, ppid, ret in rows), out
