"""The VFS (kernel_model/fs/): each family of file calls, driven by the guest program `fsop`
(kernel_model/user/fsop.c), gives in the emulated kernel what it gives on this Linux host:
the same static binary runs on both, in a new directory, and prints every call's result.
Then the emulated kernel's own file systems: procfs, devtmpfs, the boot tree, the mounts; and
that nothing a guest program does reaches the host's directories."""
import os
import re
import resource
import struct
import subprocess
from pathlib import Path

import pytest

from kernel_paths import host_directory

FSOP = Path(__file__).resolve().parents[2] / "kernel_model" / "build" / "user" / "fsop.elf"
FAMILIES = ["open", "rw", "stat", "dir", "link", "fd", "pipe", "exec", "task", "mm", "life", "cap", "fdinfo",
            "persona", "procmem"]


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2)


def _nofile_1024():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))


def on_host(vmlinux, family: str, workdir: Path) -> bytes:
    """fsop's output on this Linux host (RLIMIT_NOFILE 1024, as init's in the guest)."""
    out = subprocess.run([str(FSOP), family, str(workdir / family)], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, close_fds=True,
                         preexec_fn=_nofile_1024, timeout=60, check=True).stdout
    assert out.count(b"\n") > 5
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_a_call_family_gives_what_linux_gives(vmlinux, machine, run_program, tmp_path, family):
    if family in ("task", "cap") and os.geteuid() != 0:
        pytest.skip(f"the {family} family changes its ids as root does (as init's programs run)")
    expected = on_host(vmlinux, family, tmp_path)
    status, out = run_program(machine, ["fsop", family, f"/tmp/{family}"])
    assert status == 0
    assert out.decode().splitlines() == expected.decode().splitlines()


def test_proc_locks_lists_the_locks_as_linux(make_machine, run_program, tmp_path):
    """/proc/locks: a file's flock, POSIX and OFD locks, and two requests blocked on one, the
    second under the first it conflicts with (6.1's tree of blocked requests); each cpu's
    locks newest first, so one cpu here and on the host.  (The real 6.1 prints the same.)"""
    def one_cpu():
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    expected = subprocess.run([str(FSOP), "proclocks", str(tmp_path / "proclocks")], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=one_cpu,
                              timeout=60, check=True).stdout.decode()
    assert "3:  -> POSIX  ADVISORY  WRITE CHILD2 DEV:INO 0 4" in expected.splitlines()
    status, out = run_program(make_machine(cpus=1), ["fsop", "proclocks", "/tmp/proclocks"])
    assert status == 0
    assert out.decode().splitlines() == expected.splitlines()


def test_leases_as_linux(make_machine, run_program, tmp_path):
    """Leases (fcntl F_SETLEASE): which opens a read or write lease allows, a conflicting open
    or truncate breaking it (the holder signalled: SIGIO, or F_SETSIG's signal with POLL_MSG and
    its fd; /proc/locks' BREAKING line and the waiting open's BREAKER line under it; O_NONBLOCK:
    EWOULDBLOCK) until the holder downgrades or gives it up.  The real 6.1 prints the same."""
    expected = subprocess.run([str(FSOP), "lease", str(tmp_path / "lease")], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=60,
                              check=True).stdout.decode()
    assert "1: -> LEASE  BREAKER   WRITE CHILD1 <none>:0 0 EOF" in expected.splitlines()
    status, out = run_program(make_machine(cpus=1), ["fsop", "lease", "/tmp/lease"])
    assert status == 0
    assert out.decode().splitlines() == expected.splitlines()


# `fsop leasebreak` on the real 6.1 (real-tracefs): the holder never gives way
LEASE_BREAK_TIME_6_1 = """\
rt_sigprocmask(SIG_BLOCK, SIGIO) = 0
F_SETLEASE(a, F_WRLCK) = 0
breaking:
1: LEASE  BREAKING  UNLCK PID DEV:INO 0 EOF
1: -> LEASE  BREAKER   WRITE CHILD1 <none>:0 0 EOF
rt_sigtimedwait: SIGIO = 29
  code 128
child: open = 1, after 45..47 s: 1
wait4: the open went ahead at last = 1
F_GETLEASE(a): none left = 2
after the break time:
F_SETLEASE(a, F_UNLCK) = -11
"""


def test_a_lease_times_out_after_lease_break_time(make_machine, run_program):
    """A breaker waits lease_break_time (45 s: the test takes as long) for a holder that never
    answers, then time_out_leases() removes the lease and its open goes ahead."""
    status, out = run_program(make_machine(cpus=1), ["fsop", "leasebreak", "/tmp/lb"], timeout=120)
    assert status == 0
    assert out.decode() == LEASE_BREAK_TIME_6_1


def test_signal_driven_io_as_linux(machine, run_program, tmp_path):
    """fcntl F_SETOWN(_EX)/F_GETOWN(_EX)/F_SETSIG/F_GETOWNER_UIDS and O_ASYNC on a pipe: its
    owner signalled (SIGIO; F_SETSIG's signal with POLL_IN, the band and the fd) when data comes
    and when the last writer goes; a regular file keeps no O_ASYNC."""
    expected = on_host(None, "fasync", tmp_path)
    status, out = run_program(machine, ["fsop", "fasync", "/tmp/fasync"])
    assert status == 0
    assert out.decode().splitlines() == expected.decode().splitlines()


def test_what_a_program_wrote_stays(vmlinux, machine, run_program, tmp_path):
    """A second run meets what the first left behind (its directory: EEXIST), and the
    first's files are there, with what the host's run left in its own."""
    on_host(vmlinux, "rw", tmp_path)
    assert run_program(machine, ["fsop", "rw", "/run/x"])[0] == 0
    assert run_program(machine, ["fsop", "rw", "/run/x"]) == (2, b"usage: fsop FAMILY NEW-DIR\n")
    for name in ("f", "g"):
        assert run_program(machine, ["cat", f"/run/x/{name}"]) == (0, (tmp_path / "rw" / name).read_bytes())


def test_proc(machine, run_program):
    status, out = run_program(machine, ["cat", "/proc/self/comm", "/proc/self/status", "/proc/filesystems"])
    assert status == 0
    lines = out.decode().splitlines()
    assert lines[0] == "cat"
    status_fields = dict(l.split(":\t", 1) for l in lines[1:] if ":\t" in l)
    assert status_fields["Name"] == "cat" and status_fields["State"] == "R (running)"
    assert status_fields["Pid"] == status_fields["Tgid"] and int(status_fields["PPid"]) > 1
    assert status_fields["Umask"] == "0022" and status_fields["FDSize"] == "64"
    assert "nodev\ttmpfs" in lines and "nodev\tproc" in lines and "nodev\tdevtmpfs" in lines
    assert "nodev\tpipefs" in lines


BUSYBOX = "/bin/busybox"


def _busybox(machine, run_program, script: str) -> list[str]:
    status, out = run_program(machine, [BUSYBOX, "sh", "-c", script], timeout=60)
    assert status == 0, out
    return out.decode().splitlines()


@pytest.mark.skipif(not os.path.exists(BUSYBOX), reason="needs Debian's busybox-static")
def test_proc_pid_stack_wchan_and_syscall_of_a_sleeping_task(machine, run_program):
    """A task asleep in clock_nanosleep, as the reference 6.1 showed busybox's `sleep 5 &`:
    its kernel stack without the scheduler's frames ([<0>]: addresses hidden), wchan the
    function it sleeps in, syscall its number, arguments, user sp and ip; the reader's own
    stack starts at proc_pid_stack; a kernel thread's registers are zero."""
    lines = _busybox(machine, run_program,
                     "sleep 5 & sleep 0.3; cat /proc/$!/stack; echo; cat /proc/$!/wchan; echo; cat /proc/$!/syscall; "
                     "cat /proc/self/stack; echo; cat /proc/2/stack; echo; cat /proc/2/syscall; kill $!")
    groups = "\n".join(lines).split("\n\n")	# (each stack ends with the echo's empty line)
    assert len(groups) == 4, lines
    sleeper, (wchan, syscall, *reader), kthread, (kthread_syscall,) = [g.splitlines() for g in groups]
    frame = re.compile(r"^\[<0>\] (\w+)\+0x[0-9a-f]+/0x[0-9a-f]+$")
    assert all(frame.match(line) for line in sleeper + reader + kthread), lines
    assert [frame.match(line).group(1) for line in sleeper] == [
        "hrtimer_nanosleep", "common_nsleep", "__x64_sys_clock_nanosleep", "do_syscall_64",
        "entry_SYSCALL_64_after_hwframe"]
    assert wchan == "hrtimer_nanosleep"
    nr, *args = syscall.split()
    assert nr == "230" and len(args) == 8 and args[:2] == ["0x0", "0x0"] and args[2] == args[3], lines
    assert [frame.match(line).group(1) for line in reader[:4]] == ["proc_pid_stack", "proc_single_show",
                                                                  "seq_read_iter", "seq_read"]
    assert frame.match(reader[-1]).group(1) == "entry_SYSCALL_64_after_hwframe"
    assert [frame.match(line).group(1) for line in kthread] == ["kthreadd", "ret_from_fork"]
    assert kthread_syscall == " ".join(["0"] + ["0x0"] * 8)


@pytest.mark.skipif(not os.path.exists(BUSYBOX), reason="needs Debian's busybox-static")
def test_proc_pid_timerslack_ns(machine, run_program):
    """50 us by default; a write sets it, a child inherits it, 0 restores the default (the
    parent's slack when the task forked)."""
    lines = _busybox(machine, run_program,
                     "cat /proc/self/timerslack_ns; echo 1000 > /proc/$$/timerslack_ns; cat /proc/$$/timerslack_ns; "
                     "sh -c 'cat /proc/self/timerslack_ns; echo 0 > /proc/$$/timerslack_ns; cat /proc/$$/timerslack_ns'; "
                     "echo x > /proc/$$/timerslack_ns || echo refused")
    assert lines[:4] == ["50000", "1000", "1000", "1000"] and lines[-1] == "refused", lines


@pytest.mark.skipif(not os.path.exists(BUSYBOX), reason="needs Debian's busybox-static")
def test_proc_pid_environ_and_auxv(machine, run_program):
    """environ: the strings exec put on the new stack, read from the task's memory; auxv: the
    (type, value) pairs exec gave it, to AT_NULL (AT_PAGESZ 4096, AT_ENTRY the ELF's entry);
    a kernel thread's are empty."""
    status, out = run_program(machine, [BUSYBOX, "sh", "-c", "FOO=bar /bin/busybox cat /proc/self/environ; echo; "
                                        "cat /proc/2/environ /proc/2/auxv | wc -c; cat /proc/self/auxv"], timeout=60)
    assert status == 0
    environ, kthread, auxv = out.split(b"\n", 2)
    assert b"FOO=bar\0" in environ and environ.endswith(b"\0") and kthread.strip() == b"0"
    pairs = [struct.unpack_from("<QQ", auxv, i) for i in range(0, len(auxv), 16)]
    assert len(auxv) % 16 == 0 and pairs[-1] == (0, 0) and all(t for t, _ in pairs[:-1])
    entry = struct.unpack_from("<Q", Path(BUSYBOX).read_bytes(), 24)[0]
    assert dict(pairs)[6] == 4096 and dict(pairs)[9] == entry	# AT_PAGESZ, AT_ENTRY


@pytest.mark.skipif(not os.path.exists(BUSYBOX), reason="needs Debian's busybox-static")
def test_proc_pid_io_counts_as_linux(machine, run_program, tmp_path):
    """/proc/PID/io, read by the shell's process itself (`exec cat`): the shell's own reads and
    writes (busybox's `read` takes a byte a call) add what they add on this host's Linux, and a
    reaped child's I/O is its parent's too; a kernel thread's are zero."""
    scripts = ['exec cat /proc/$$/io',
               'echo abcdefg > "$T/f"; read x < "$T/f"; echo "$x" >> "$T/f"; exec cat /proc/$$/io',
               'cat "$T/f" > /dev/null; exec cat /proc/$$/io']

    def counts(lines):
        return [int(line.split()[1]) for line in lines[:7]]

    def added(run):
        base, *others = [counts(run(script)) for script in scripts]
        return [[n - b for n, b in zip(other, base)] for other in others]
    host = added(lambda script: subprocess.run([BUSYBOX, "sh", "-c", script], env={"T": str(tmp_path)},
                                               capture_output=True, text=True, timeout=60,
                                               check=True).stdout.splitlines())
    kernel = added(lambda script: _busybox(machine, run_program, "T=/tmp; " + script))
    assert host[0][:4] == kernel[0][:4] == [8, 16, 8, 2]	# rchar wchar syscr syscw
    assert host[1][0] > 0 and kernel[1][0] > 0 and kernel[1][2] > 0	# the child cat's reads
    assert counts(_busybox(machine, run_program, "cat /proc/3/io")) == [0] * 7	# ksoftirqd/0


# /proc/PID/sched's lines on the reference 6.1 (real-tracefs: `cat /proc/self/sched`), of which
# the model writes those its scheduler keeps (no PELT averages, no NUMA balancing)
SCHED_KEYS_6_1 = ["se.exec_start", "se.vruntime", "se.sum_exec_runtime", "se.nr_migrations", "nr_switches",
                  "nr_voluntary_switches", "nr_involuntary_switches", "se.load.weight", "se.avg.load_sum",
                  "se.avg.runnable_sum", "se.avg.util_sum", "se.avg.load_avg", "se.avg.runnable_avg",
                  "se.avg.util_avg", "se.avg.last_update_time", "se.avg.util_est.ewma",
                  "se.avg.util_est.enqueued", "policy", "prio", "clock-delta", "mm->numa_scan_seq",
                  "numa_pages_migrated", "numa_preferred_nid", "total_numa_faults"]


@pytest.mark.skipif(not os.path.exists(BUSYBOX), reason="needs Debian's busybox-static")
def test_proc_pid_sched_and_schedstat(machine, run_program):
    """/proc/PID/sched as 6.1's proc_sched_show_task writes it (its header, then `%-45s:%21Ld`
    lines, times as ms.ns), of a shell that slept: its switches voluntary, each counted once
    in the sum; /proc/PID/schedstat its time on the cpu in ns (read after sched: no less),
    its wait for one and the times it came to run; status's switch counts (read later); a
    write to sched is taken whole."""
    lines = _busybox(machine, run_program,
                     "sleep 0.1; sleep 0.1; cat /proc/$$/sched; cat /proc/$$/schedstat; "
                     "grep ctxt /proc/$$/status; echo 0 > /proc/$$/sched && echo written")
    assert re.fullmatch(r"busybox \((\d+), #threads: 1\)", lines[0]) and lines[1] == "-" * 67
    body, schedstat, status, written = lines[2:-4], lines[-4], lines[-3:-1], lines[-1]
    keys = [line[:45].rstrip() for line in body]
    assert keys == [k for k in SCHED_KEYS_6_1 if k in keys]
    assert keys[:7] == SCHED_KEYS_6_1[:7] and keys[-3:] == ["policy", "prio", "clock-delta"]
    for line in body:
        assert re.fullmatch(r".{45}:( {0,13}\d+\.\d{6}| {0,20}\d+)", line) and len(line) == 67, line
    sched = {line[:45].rstrip(): line[46:].strip() for line in body}
    assert int(sched["nr_switches"]) == int(sched["nr_voluntary_switches"]) + int(sched["nr_involuntary_switches"])
    assert int(sched["nr_voluntary_switches"]) >= 2             # the shell waited for its two sleeps
    assert sched["prio"] == "120" and sched["policy"] == "0" and sched["se.load.weight"] == "1048576"
    runtime, run_delay, pcount = map(int, schedstat.split())
    ms, ns = sched["se.sum_exec_runtime"].split(".")
    assert runtime >= int(ms) * 1000000 + int(ns) > 0
    assert pcount >= int(sched["nr_voluntary_switches"]) and run_delay >= 0
    assert [line.split(":\t")[0] for line in status] == ["voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"]
    assert int(status[0].split("\t")[1]) > int(sched["nr_voluntary_switches"])     # (it waited for cat)
    assert int(status[1].split("\t")[1]) >= int(sched["nr_involuntary_switches"])
    assert written == "written"


def test_proc_pid_task_has_a_directory_per_thread(machine, run_program):
    """/proc/self/task: the leader and its two threads (each directory its own task's stat),
    the directory's links 2 + 3; a task of another process is not under it."""
    status, out = run_program(machine, ["progtest", "taskdir"], timeout=60)
    assert status == 0
    lines = out.decode().splitlines()
    assert lines[0] == "task links: 5"
    assert lines[1] == "leader progtest is itself, waits in 0"	# (it runs: reading the file)
    assert lines[2:4] == ["thread progtest is itself, waits in __do_sys_pause"] * 2	# (as in 6.1)
    assert lines[4] == "the parent's tid under it: No such file or directory"


# /proc/self/limits as Linux 6.1 printed it (real-tracefs, `cat /proc/self/limits`), but for the
# two limits 6.1 derives from the RAM (max_threads / 2: RLIMIT_NPROC, RLIMIT_SIGPENDING)
LIMITS_6_1 = """\
Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max file size             unlimited            unlimited            bytes     
Max data size             unlimited            unlimited            bytes     
Max stack size            8388608              unlimited            bytes     
Max core file size        0                    unlimited            bytes     
Max resident set          unlimited            unlimited            bytes     
Max open files            1024                 4096                 files     
Max locked memory         8388608              8388608              bytes     
Max address space         unlimited            unlimited            bytes     
Max file locks            unlimited            unlimited            locks     
Max msgqueue size         819200               819200               bytes     
Max nice priority         0                    0                    
Max realtime priority     0                    0                    
Max realtime timeout      unlimited            unlimited            us        
"""


def test_proc_limits_and_statm(machine, run_program):
    """/proc/PID/limits in 6.1's columns; /proc/PID/statm's pages agree with status' kB"""
    status, out = run_program(machine, ["cat", "/proc/self/limits", "/proc/self/statm", "/proc/self/status"])
    assert status == 0
    lines = out.decode().splitlines(keepends=True)
    limits = [l for l in lines[:17] if not l.startswith(("Max processes", "Max pending signals"))]
    assert "".join(limits) == LIMITS_6_1
    assert lines[7].split()[2:4] == lines[12].split()[3:5] and lines[7].endswith("processes \n")  # both max_threads / 2
    size, resident, shared, text, lib, data, dt = map(int, lines[17].split())
    kb = {k: int(v.split()[0]) for k, v in (l.split(":", 1) for l in lines[18:] if l.startswith(("Vm", "Rss")))}
    assert (size * 4, resident * 4, shared * 4) == (kb["VmSize"], kb["VmRSS"], kb["RssFile"] + kb["RssShmem"])
    assert (data * 4, lib, dt) == (kb["VmData"] + kb["VmStk"], 0, 0) and text >= 1


def test_proc_mounts_lists_the_host_view(machine, run_program):
    """A spawned program's tree: the host's "/" (hostfs, read-only), the kernel's own file
    systems on it (the disk's on /mnt, where the host has a /mnt); the services' boot tree
    (rootfs) is not under its root, so not listed."""
    status, out = run_program(machine, ["cat", "/proc/mounts"])
    assert status == 0
    mounts = [l.split() for l in out.decode().splitlines()]
    assert [(m[0], m[1], m[2]) for m in mounts] == [
        ("hostfs", "/", "hostfs"), ("proc", "/proc", "proc"), ("udev", "/dev", "devtmpfs"),
        ("tmpfs", "/dev/shm", "tmpfs"), ("tmpfs", "/tmp", "tmpfs"), ("tmpfs", "/run", "tmpfs")] + (
        [("/dev/nvme0n1", "/mnt", "simplefs")] if Path("/mnt").is_dir() else [])
    assert mounts[0][3].startswith("ro,") and mounts[4][3].startswith("rw,nosuid,nodev,")
    assert all(m[4:] == ["0", "0"] for m in mounts)


def test_the_root_is_the_hosts_read_only(machine, run_program):
    assert run_program(machine, ["cat", "/etc/hostname"]) == (0, Path("/etc/hostname").read_bytes())
    status, out = run_program(machine, ["dd", "if=/dev/zero", "of=/etc/new", "count=1"])
    assert status == 1 and b"Read-only file system" in out
    status, out = run_program(machine, ["dd", "if=/dev/zero", "of=/etc/hostname", "count=1"])
    assert status == 1 and b"Read-only file system" in out
    status, out = run_program(machine, ["fsop", "open", "/newdir"])
    assert status == 2


def test_dev_nodes(machine, run_program):
    status, out = run_program(machine, ["dd", "if=/dev/urandom", "of=/dev/null", "bs=512", "count=4"])
    assert status == 0 and out.endswith(b"2048 bytes copied\n")
    status, out = run_program(machine, ["cat", "/dev/tty"])
    assert status == 1 and out == b"cat: /dev/tty: No such device or address\n"


@pytest.fixture
def host_dir() -> Path:
    """A host directory out of the host's /tmp (the guest's /tmp is its own) with a file, a
    directory and a symlink in it."""
    where = host_directory()
    (where / "a file").write_text("some text\n")
    (where / "sub").mkdir()
    (where / "link").symlink_to("a file")
    return where


def test_nothing_reaches_the_hosts_directories(machine, run_program, tmp_path, host_dir):
    """The host's tree is read-only to a guest program (hostfs: EROFS), and the guest's /tmp
    is its own tmpfs over the host's: nothing a program does lands on the host."""
    here = host_dir
    before = sorted(p.name for p in here.iterdir())
    status, out = run_program(machine, ["fsop", "rw", str(here / "fsop-was-here")])
    assert status == 2 and not (here / "fsop-was-here").exists()
    assert run_program(machine, ["cat", str(here / "link")]) == (0, b"some text\n")
    status, _ = run_program(machine, ["fsop", "dir", str(tmp_path)])   # no such directory in the guest's /tmp
    assert status == 2
    status, _ = run_program(machine, ["fsop", "dir", f"/tmp/{tmp_path.name}"])
    assert status == 0 and not any(tmp_path.iterdir())
    assert sorted(p.name for p in here.iterdir()) == before


def test_host_kernel_file_systems_are_sealed(machine, run_program):
    """The host's /sys (sysfs, tracefs, debugfs...) is an empty directory to the guest; its
    /proc is the guest's own procfs."""
    status, out = run_program(machine, ["cat", "/sys/kernel/tracing/trace", "/sys/kernel/debug"])
    assert status == 1
    assert out == (b"cat: /sys/kernel/tracing/trace: No such file or directory\n"
                   b"cat: /sys/kernel/debug: No such file or directory\n")
    assert run_program(machine, ["cat", "/proc/self/comm"]) == (0, b"cat\n")


def _host_listing(path: str) -> str:
    """fsop ls's line for a host directory: every name with its type, sorted."""
    import os
    entries = [(".", 4), ("..", 4)]
    with os.scandir(path) as it:
        for e in it:
            kind = 10 if e.is_symlink() else 4 if e.is_dir(follow_symlinks=False) else \
                8 if e.is_file(follow_symlinks=False) else None
            if kind is None:
                kind = {0o010000: 1, 0o020000: 2, 0o060000: 6, 0o140000: 12}[os.lstat(e.path).st_mode & 0o170000]
            entries.append((e.name[:60], kind))
    return f"{path}: getdents64 = 0:" + "".join(f" [{k:02d} {n}]" for n, k in sorted(entries, key=lambda x: x[0]))


def test_host_directories_list_as_on_the_host(machine, run_program, host_dir):
    for path in ("/etc", str(host_dir)):
        status, out = run_program(machine, ["fsop", "ls", path])
        assert status == 0
        assert out.decode().strip() == _host_listing(path)


def test_host_symlinks_are_walked_by_the_guest(machine, run_program):
    """/bin/sh on the host is a chain of links (merged /usr, the alternatives): the guest
    reads each and walks it; a large binary comes through whole."""
    target = Path("/bin/sh")
    assert run_program(machine, ["cat", "/bin/sh"]) == (0, target.read_bytes())


@pytest.fixture
def host_file_with_xattr():
    """A host file outside /tmp (the guest's /tmp is its own) with a user attribute, if the
    host's file system takes one."""
    import shutil
    import tempfile
    d = Path(tempfile.mkdtemp(prefix="tracefs-sim-xattr-", dir="/var/tmp"))
    try:
        f = d / "f"
        f.write_text("x\n")
        try:
            os.setxattr(f, "user.tracefs_sim", b"hello")
        except OSError:
            pytest.skip("/var/tmp takes no user attributes")
        yield f
    finally:
        shutil.rmtree(d)


def test_host_files_extended_attributes_are_the_hosts(machine, run_program, host_file_with_xattr, host_dir):
    """getxattr/lgetxattr of host files (hostfs asks the host, as `ls -l` does for every name):
    a file with a user attribute, a symlink, a directory; ERANGE for a short buffer or a bad name."""
    paths = [str(host_file_with_xattr), "/bin/sh", "/etc", str(host_dir)]
    expected = subprocess.run([str(FSOP), "xattr", *paths], stdout=subprocess.PIPE, timeout=60, check=True).stdout
    assert b"  hello\n" in expected
    assert run_program(machine, ["fsop", "xattr", *paths]) == (0, expected)


def test_tmpfs_extended_attributes_are_6_1s(machine, run_program):
    """The guest's tmpfs is 6.1's with CONFIG_TMPFS_XATTR (Debian's): security.* and trusted.*
    are kept (none yet: ENODATA), user.* is not (EOPNOTSUPP until 6.6), the list is empty; as
    the real 6.1 says.  (system.posix_acl_*: 6.1's CONFIG_TMPFS_POSIX_ACL is not modelled.)"""
    status, out = run_program(machine, ["fsop", "xattr", "/tmp"])
    assert status == 0
    lines = out.decode().splitlines()
    assert lines[1] == "lgetxattr(security.selinux, 255) = -61"
    assert lines[3:] == ["getxattr(user.tracefs_sim_none, NULL, 0) = -95", "getxattr(user.tracefs_sim) = -95",
                         'getxattr("") = -34', "getxattr(300-byte name) = -34", "llistxattr(NULL, 0) = 0",
                         "listxattr(NULL, 0) = 0", "listxattr(1 byte) = 0"]