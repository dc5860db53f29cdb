"""A session's processes in their PID namespace, under the session's seccomp filter: what they
ask of the kernel's tracing is answered by the simulator or refused, never by the host."""

import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and namespaces")

# A call, by number, through libc's syscall(), made TIMES times: prints "RESULT ERRNO" each.
SYSCALL = ("TIMES=${TIMES:-1} python3 -c 'import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True);"
           " args = [int(a, 0) for a in sys.argv[1:]]\nfor _ in range(int(os.environ[\"TIMES\"])):"
           " r = libc.syscall(*args); print(r, ctypes.get_errno())'")
ENOSYS = 38
EINVAL = 22
EBADF = 9
ENOTTY = 25


def run(script: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return tracefs_sim("run", "-c", script, timeout=timeout)


def host_mountinfo() -> list[str]:
    with open("/proc/self/mountinfo") as f:
        return [" ".join(line.split()[3:]) for line in f]   # without ids, which may be reused


def test_session_pids_start_above_the_emulated_kernels():
    result = run("echo $$ $PPID; sh -c 'echo $$ $PPID'; cat /proc/1/comm")
    assert result.returncode == 0, result.stderr
    shell, child, init = result.stdout.splitlines()
    assert shell == "1000 1"
    pid, parent = map(int, child.split())
    assert pid > 1000 and parent == 1000
    assert init == "init"


def test_mount_of_tracefs_and_debugfs_mounts_the_simulator(tmp_path):
    before = host_mountinfo()
    result = run(textwrap.dedent(f"""
        cd {tmp_path}; mkdir t d
        mount -t tracefs nodev t && cat t/current_tracer
        echo 0 > t/tracing_on; cat /sys/kernel/tracing/tracing_on
        mount -t debugfs nodev d && ls d
        grep -E ' {tmp_path}/[td] ' /proc/mounts
        umount t && umount d && echo unmounted; echo $(ls -A d | wc -l)$(ls -A t | wc -l)
        """))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "nop", "0", "kprobes", "tracing",
        f"tracefs {tmp_path}/t tracefs rw,nosuid,nodev,noexec,relatime 0 0",
        f"debugfs {tmp_path}/d debugfs rw,nosuid,nodev,noexec,relatime 0 0",
        "unmounted", "00"]
    assert host_mountinfo() == before


def test_mount_of_a_missing_directory_fails_as_on_linux():
    result = run(f"{SYSCALL} 165 0 0 0 0 0; mount -t tracefs nodev /nonexistent; echo $?")
    # a NULL fstype is not ours: the host's mount(2) answers (EFAULT)
    assert result.stdout.splitlines()[0] == "-1 14"
    assert result.stdout.splitlines()[-1] == "32", result.stderr
    assert "mount point does not exist" in result.stderr   # ENOENT, as mount(8) words it


@pytest.mark.parametrize("call, number, args", [
    ("init_module", 313, "-1 0 0"),            # finit_module: the host would say EBADF
    ("delete_module", 176, "0 0"),
])
def test_tracing_and_module_calls_never_reach_the_host(call, number, args):
    result = run(f"TIMES=2 {SYSCALL} {number} {args}")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"-1 {ENOSYS}"] * 2
    # said once, however often the caller tries
    assert result.stderr.count(f"tracefs-sim: {call}() refused: ") == 1, result.stderr


def test_a_session_without_mirroring_refuses_perf_and_bpf():
    # no task in the kernel to make them: refused, never the host's
    result = tracefs_sim("run", "--no-mirror", "-c", f"{SYSCALL} 298 0 0 -1 -1 0; {SYSCALL} 321 0 0 0",
                         timeout=120)
    assert result.stdout.splitlines() == [f"-1 {ENOSYS}"] * 2, result.stderr
    for call in ("perf_event_open", "bpf"):
        assert f"tracefs-sim: {call}() refused: the emulated kernel did not serve this call" in result.stderr


def test_blktrace_never_reaches_the_hosts_disks():
    # blktrace's ioctls: ENOTTY from the filter, before any fd is looked up (the host would say
    # EBADF for fd -1), whatever the command's size bits or upper half; other block ioctls go on
    calls = [(0x1274, ENOTTY), (0xC0481273, ENOTTY), (0xDEADBEEF00001276, ENOTTY), (0x1272, EBADF), (0x1277, EBADF)]
    script = "; ".join(f"{SYSCALL} 16 -1 {cmd:#x} 0" for cmd, _ in calls)
    traced = sorted(str(p) for p in Path("/sys/class/block").glob("*/trace") if p.is_dir())
    if traced:   # the host's sysfs files of its disks' blktrace: an empty, read-only directory
        script += f"; ls -A {traced[0]} | wc -l; echo 1 > {traced[0]}/enable; echo $?"
    before = [Path(t, "enable").read_text() for t in traced]
    result = run(script)
    lines = result.stdout.splitlines()
    assert lines[:len(calls)] == [f"-1 {errno}" for _, errno in calls], result.stderr
    if traced:
        assert lines[len(calls):] == ["0", "1"], result.stderr
        assert "Read-only file system" in result.stderr
    assert [Path(t, "enable").read_text() for t in traced] == before


def test_the_hosts_pmus_are_covered_by_their_own_paths_too():
    # /sys/devices/NAME of each host PMU: the emulated kernel's PMU of that name or nothing, so
    # perf_event_mux_interval_ms (writable) is never the host's
    pmus = sorted(p for p in Path("/sys/bus/event_source/devices").iterdir())
    intervals = {p.resolve(): Path(p.resolve(), "perf_event_mux_interval_ms") for p in pmus}
    intervals = {d: f for d, f in intervals.items() if f.exists()}
    if not intervals:
        pytest.skip("the host's PMUs have no mux interval files")
    before = {f: f.read_text() for f in intervals.values()}
    script = "; ".join(f"ls {d} | grep -c perf_event_mux_interval_ms; echo 1 > {f} 2>/dev/null || echo refused"
                       for d, f in intervals.items())
    result = run(script)
    assert result.stdout.splitlines() == ["0", "refused"] * len(intervals), result.stderr
    assert {f: f.read_text() for f in intervals.values()} == before


def test_uname_is_the_emulated_kernels_in_every_personality():
    # the supervisor answers a default-personality caller from the kernel's first answer; a
    # caller of another personality gets the kernel's own (setarch: PER_LINUX32, UNAME26)
    out = run("uname -rm; setarch linux32 uname -rm; setarch --uname-2.6 uname -r; uname -rm").stdout.splitlines()
    assert out == ["6.1.0-tracefs-sim x86_64", "6.1.0-tracefs-sim i686", "2.6.61-tracefs-sim",
                   "6.1.0-tracefs-sim x86_64"], out


def test_bpf_is_the_emulated_kernels():
    """bpf(2) is served (tests/integration/test_session_bpf.py): BPF_MAP_CREATE of a zeroed attr
    gets the emulated 6.1's EINVAL, nothing said on stderr."""
    result = run(f"TIMES=2 {SYSCALL} 321 0 0 0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"-1 {EINVAL}"] * 2
    assert "bpf() refused" not in result.stderr


def _host_log_lines() -> int:
    return len(subprocess.run(["dmesg"], capture_output=True, text=True, timeout=30).stdout.splitlines())


def test_dmesg_is_the_emulated_kernels_log():
    """syslog(2) and /dev/kmsg are served by the emulated kernel (kernel/printk.c's do_syslog and
    devkmsg; test_session_kmsg.py has more), so dmesg shows the emulated kernel's log, and its -c
    clears that one; the host's log is never read nor cleared."""
    host_before = _host_log_lines()
    result = run(f"dmesg | head -1; head -n1 /dev/kmsg | cut -d';' -f2 | cut -c1-13; "
                 f"{SYSCALL} 103 10 0 0; {SYSCALL} 103 99 0 0; dmesg -c > /dev/null; echo left $(dmesg | wc -l)")
    assert result.returncode == 0, result.stderr
    banner, kmsg, size, bad, left = result.stdout.splitlines()
    assert "Linux version 6.1.0-tracefs-sim" in banner, banner
    assert kmsg == "Linux version"
    assert size == "57344 0" and bad == f"-1 {EINVAL}"  # the log's size; an unknown action
    assert left == "left 0"
    assert _host_log_lines() >= host_before  # (the host may log meanwhile, never loses lines)


def test_proc_version_is_the_emulated_kernels():
    """/proc/version in a session is the emulated kernel's banner (its linux_banner, which the
    boot log starts with, as /proc/version and the banner are the same text on Linux), not the
    host's: a test that compares a probe's read of linux_proc_banner with it (ftracetest's
    kprobe_args_symbol.tc) finds the same compiler and builder."""
    result = run("cat /proc/version; uname -r; dmesg | head -1")
    assert result.returncode == 0, result.stderr
    version, release, banner = result.stdout.splitlines()
    assert re.fullmatch(r"Linux version 6\.1\.0-tracefs-sim \(root@tracefs-sim\) \(gcc .*\) #1 SMP PREEMPT_DYNAMIC .*",
                        version), version
    assert release == "6.1.0-tracefs-sim" and banner.endswith(version), (banner, version)
    assert version != Path("/proc/version").read_text().strip()


def test_syslog_read_takes_the_log_in_parts():
    """SYSLOG_ACTION_READ (2) as klogd reads: what no such read took yet; a record larger than
    the buffer is given in parts, the next read going on where the last stopped; SIZE_UNREAD (9)
    counts what is left."""
    script = ("python3 -c 'import ctypes; l = ctypes.CDLL(None); b = ctypes.create_string_buffer(20)\n"
              "left = l.klogctl(9, None, 0)\n"
              "for _ in range(2): n = l.klogctl(2, b, 20); print(n, b.raw[:n])\n"
              "print(left - l.klogctl(9, None, 0))'")
    result = run(script)
    assert result.returncode == 0, result.stderr
    first, second, taken = result.stdout.splitlines()
    assert first.startswith("20 b'<5>[") and second.startswith("20 b'"), result.stdout
    assert taken == "40"


def test_other_abis_cannot_go_around_the_filter(tmp_path):
    source = tmp_path / "abi.c"
    source.write_text(textwrap.dedent("""
        #include <stdio.h>
        int main(void) {
            long r32, rx32;
            /* perf_event_open through int 0x80 (i386 number 336) and through the x32 bit */
            asm volatile("int $0x80" : "=a"(r32) : "a"(336L), "b"(0L), "c"(0L), "d"(-1L), "S"(-1L), "D"(0L)
                         : "memory");
            asm volatile("syscall" : "=a"(rx32) : "a"(0x40000000L | 298), "D"(0L), "S"(0L), "d"(-1L)
                         : "rcx", "r11", "memory");
            printf("%ld %ld\\n", r32, rx32);
            return 0;
        }"""))
    subprocess.run(["gcc", "-o", str(tmp_path / "abi"), str(source)], check=True, timeout=60)
    result = run(str(tmp_path / "abi"))
    assert (result.returncode, result.stdout) == (0, f"{-ENOSYS} {-ENOSYS}\n"), result.stderr


def test_perf_event_open_is_the_emulated_kernels(tmp_path):
    """A tracepoint event by the simulator's id (the host's ids differ) counts the process's
    calls as the emulated kernel sees them; a bad attr gets the emulated kernel's EFAULT."""
    source = tmp_path / "count.c"
    source.write_text(textwrap.dedent("""
        #include <linux/perf_event.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <sys/syscall.h>
        #include <unistd.h>
        int main(int argc, char **argv) {
            struct perf_event_attr a;
            unsigned long long v[3];
            long fd, i, n;
            memset(&a, 0, sizeof(a));
            a.type = PERF_TYPE_TRACEPOINT;
            a.size = sizeof(a);
            a.config = atol(argv[1]);
            a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
            fd = syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
            for (i = 0; i < 7; i++)
                syscall(__NR_getuid);
            n = read(fd, v, sizeof(v));
            printf("%ld %llu\\n", n, v[0]);
            return 0;
        }"""))
    subprocess.run(["gcc", "-o", str(tmp_path / "count"), str(source)], check=True, timeout=60)
    result = run(f"{tmp_path / 'count'} $(cat /sys/kernel/tracing/events/syscalls/sys_enter_getuid/id);"
                 f" {SYSCALL} 298 0 0 -1 -1 0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["24 7", "-1 14"], result.stderr
    assert "refused" not in result.stderr


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_perf_stat_counts_in_the_emulated_kernel():
    result = run("perf stat -x, -e task-clock,context-switches,syscalls:sys_enter_openat ls / >/dev/null")
    assert result.returncode == 0, result.stderr
    rows = {line.split(",")[2]: line.split(",") for line in result.stderr.splitlines() if line.count(",") > 3}
    # counted (run time > 0, all of it), not "<not counted>"; the task's own time is what its
    # mirror ran in the emulated kernel, some microseconds
    assert all(int(rows[e][3]) > 0 and rows[e][4] == "100.00" for e in rows), result.stderr
    assert set(rows) == {"task-clock", "context-switches", "syscalls:sys_enter_openat"}
    assert int(rows["syscalls:sys_enter_openat"][0]) > 0, result.stderr
    assert "refused" not in result.stderr


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_perf_counts_an_emulated_programs_page_faults():
    """A program of the emulated kernel faults its pages in (do_user_addr_fault counts each in
    page-faults, and each it resolves in minor-faults; none waits for I/O: no major-faults).  One
    group, so the three count over the same moments (apart, a fault of another task between one
    counter's disabling and the next's was seen by one alone)."""
    result = run("perf stat -a -x, -e '{page-faults,minor-faults,major-faults}' -- "
                 "tracefs-sim exec fsop mm /tmp/fsop-mm > /dev/null")
    assert result.returncode == 0, result.stderr
    rows = {line.split(",")[2]: int(line.split(",")[0]) for line in result.stderr.splitlines() if line.count(",") > 3}
    assert rows["page-faults"] > 0 and rows["minor-faults"] > 0 and rows["major-faults"] == 0, result.stderr
    assert rows["minor-faults"] <= rows["page-faults"], result.stderr


def test_the_session_goes_on_when_its_supervisor_dies():
    result = run(textwrap.dedent(f"""
        kill -9 $(pgrep -x tracefs-sim-sup); sleep 0.2
        pgrep -x tracefs-sim-sup || echo gone
        ls / > /dev/null && echo alive
        {SYSCALL} 321 0 0 0
        """))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["gone", "alive", f"-1 {ENOSYS}"]
    assert "init answers its calls from now on" in result.stderr
