"""`tracefs-sim mount` / `umount` / `exec`, and the mounted tree driven with real cat, echo,
ls and sh, compared with Linux 6.1 (captured in data/linux-6.1)."""

import hashlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from simtest import (FUNCTION_PROFILER_MODES, TRACEFS_SIM, emulated_passwd, process_running,
                     reference_section, sh, simulator_mounted_at, tracefs_sim, unmount)

from tracefs_sim import control

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse and root")


def ls_modes(listing: str) -> dict[str, str]:
    """`ls -la` output -> {name: mode string}."""
    return {line.split()[-1]: line.split()[0] for line in listing.splitlines()[1:]}


def test_mount_shows_in_proc_mounts(mounted):
    entries = [line.split() for line in Path("/proc/mounts").read_text().splitlines()]
    (entry,) = [e for e in entries if e[1] == str(mounted)]
    assert entry[0] == "tracefs" and entry[2] == "fuse.tracefs"


def test_top_level_files_and_modes_are_linux_6_1(mounted):
    ours = ls_modes(sh(mounted, "ls -la").stdout)
    real = ls_modes(reference_section("a_layout", "ls -la /sys/kernel/tracing"))
    real.update({name: mode for name, (mode, _, _) in FUNCTION_PROFILER_MODES.items() if "/" not in name})
    required = {"README", "tracing_on", "current_tracer", "available_tracers", "trace", "trace_pipe",
                "trace_clock", "buffer_size_kb", "buffer_total_size_kb", "per_cpu", "events"}
    assert required <= set(ours)
    for name, mode in ours.items():
        if name != "..":
            assert name in real, f"{name} does not exist on Linux 6.1"
            assert mode == real[name], f"{name}: {mode}, Linux 6.1 has {real[name]}"


def test_timestamp_mode_as_linux_6_1(mounted):
    """Read-only, `[delta] absolute` (6.1 has nothing left that makes a buffer absolute)."""
    assert sh(mounted, "cat timestamp_mode").stdout == reference_section("a_layout", "cat timestamp_mode")
    assert sh(mounted, "echo absolute > timestamp_mode").returncode != 0
    assert sh(mounted, "cat timestamp_mode").stdout == "[delta] absolute\n"


def test_per_cpu_follows_cpus(mount_at):
    mnt = mount_at("--cpus", "3", "--workload", "none")
    assert sh(mnt, "ls per_cpu").stdout.split() == ["cpu0", "cpu1", "cpu2"]
    assert "#P:3" in sh(mnt, "cat trace").stdout


def test_empty_trace_header(mounted):
    expected = reference_section("b_empty_trace", "cat trace")
    assert sh(mounted, "cat trace").stdout == expected
    assert sh(mounted, "cat per_cpu/cpu0/trace").stdout == reference_section("b_empty_trace",
                                                                              "cat per_cpu/cpu0/trace")


def test_unknown_tracer_is_einval_and_kept(mounted):
    assert sh(mounted, "cat current_tracer").stdout == "nop\n"
    result = sh(mounted, "echo nosuchtracer > current_tracer")
    assert result.returncode != 0 and "Invalid argument" in result.stderr
    assert sh(mounted, "cat current_tracer").stdout == "nop\n"


def test_tracing_on_accepts_what_linux_accepts(mounted):
    assert sh(mounted, "echo 0 > tracing_on; cat tracing_on").stdout == "0\n"
    assert sh(mounted, "echo 2 > tracing_on; cat tracing_on").stdout == "1\n"
    sh(mounted, "echo 0 > tracing_on")
    for bad in ("-1", "abc"):
        result = sh(mounted, f"echo {bad} > tracing_on")
        assert result.returncode != 0 and "Invalid argument" in result.stderr, bad
        assert sh(mounted, "cat tracing_on").stdout == "0\n"


def test_read_only_file_refuses_writes(mounted):
    # As on Linux 6.1 for root: the open succeeds, the write has no handler: EINVAL.
    before = sh(mounted, "cat available_tracers").stdout
    result = sh(mounted, "echo x > available_tracers")
    assert result.returncode != 0 and "Invalid argument" in result.stderr
    assert sh(mounted, "cat available_tracers").stdout == before
    result = sh(mounted, "cat nosuchfile")
    assert result.returncode != 0 and "No such file or directory" in result.stderr


def test_blocked_trace_pipe_reader_can_be_interrupted(mounted):
    started = time.monotonic()
    result = sh(mounted, "timeout 1 cat trace_pipe", timeout=15)
    assert result.returncode == 124
    assert time.monotonic() - started < 5


def test_exec_in_the_mounts_kernel(mounted):
    result = tracefs_sim("exec", "--mount", str(mounted), "cat", "/etc/passwd", timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == emulated_passwd()
    result = tracefs_sim("exec", "--mount", str(mounted), "getuid-loop", "5", timeout=60)
    assert (result.returncode, result.stdout) == (0, "0\n" * 5)
    result = tracefs_sim("exec", "--mount", str(mounted), "nosuchprog", timeout=60)
    assert result.returncode == 127
    assert result.stderr == "tracefs-sim exec: nosuchprog: no such program\n"


@pytest.mark.skipif(not os.path.exists("/bin/busybox") or b"/ld-linux" in open("/bin/busybox", "rb").read(4096),
                    reason="needs Debian's busybox-static at /bin/busybox")
def test_exec_of_busybox_sh_with_a_pipe(mounted):
    """The issue's command: a shell, a pipe and two applets, all emulated tasks."""
    names = [n for n in os.listdir("/") if not n.startswith(".")]
    result = tracefs_sim("exec", "--mount", str(mounted), "/bin/busybox", "sh", "-c", "ls / | wc -l", timeout=120)
    assert (result.returncode, result.stdout) == (0, f"{len(names)}\n"), result.stderr


@pytest.mark.skipif(not os.path.exists("/bin/busybox") or b"/ld-linux" in open("/bin/busybox", "rb").read(4096),
                    reason="needs Debian's busybox-static at /bin/busybox")
def test_exec_reads_the_callers_stdin(mounted, tmp_path):
    """The program's stdin is the caller's: a pipe (a shell's commands, more than one request's
    worth of data) and a file, each to its end; without one, /dev/null."""
    script = "echo hi from sh\nls / | wc -l\n"
    result = tracefs_sim("exec", "--mount", str(mounted), "/bin/busybox", "sh", input=script, timeout=120)
    names = [n for n in os.listdir("/") if not n.startswith(".")]
    assert (result.returncode, result.stdout) == (0, f"hi from sh\n{len(names)}\n"), result.stderr
    data = tmp_path / "data"
    data.write_bytes(bytes(range(256)) * 40)  # ten requests' worth
    with open(data, "rb") as f:
        result = tracefs_sim("exec", "--mount", str(mounted), "/bin/busybox", "md5sum", stdin=f, timeout=120)
    assert result.stdout.split()[0] == hashlib.md5(data.read_bytes()).hexdigest(), result.stdout + result.stderr
    result = tracefs_sim("exec", "--mount", str(mounted), "/bin/busybox", "wc", "-c", stdin=subprocess.DEVNULL,
                         timeout=120)
    assert result.stdout.split() == ["0"], result.stdout + result.stderr


@pytest.mark.skipif(not os.path.exists("/bin/busybox") or b"/ld-linux" in open("/bin/busybox", "rb").read(4096),
                    reason="needs Debian's busybox-static at /bin/busybox")
def test_a_reader_the_program_left_gets_the_end_of_its_input(mounted):
    """A background child still reading the program's stdin when the program exits gets its
    end (the caller no longer gives it any), so it ends rather than waiting in the kernel for
    ever; here the caller's stdin is a pipe that stays open. (The child reads it as fd 3: a
    background job's own stdin is /dev/null.)"""
    sh(mounted, "echo > trace; echo 1 > events/sched/sched_process_exit/enable")
    r, w = os.pipe()
    try:
        result = tracefs_sim("exec", "--mount", str(mounted), "/bin/busybox", "sh", "-c",
                             "exec 3<&0; cat <&3 > /dev/null & echo $!", stdin=r, timeout=120)
        assert result.returncode == 0, result.stderr
        child = result.stdout.strip()
        exits = ""
        for _ in range(100):
            exits = sh(mounted, "grep sched_process_exit trace").stdout
            if f" pid={child} " in exits:
                break
            time.sleep(0.1)
        assert f" pid={child} " in exits, exits
    finally:
        os.close(r)
        os.close(w)
        sh(mounted, "echo 0 > events/sched/sched_process_exit/enable; echo > trace")


def test_exec_of_a_dynamically_linked_program_says_why_not(mounted):
    result = tracefs_sim("exec", "--mount", str(mounted), "/bin/ls", timeout=60)
    assert result.returncode == 126
    assert "/bin/ls: cannot execute: dynamically linked (needs the interpreter /" in result.stdout + result.stderr


def test_exec_status_and_stderr_of_the_program(mounted):
    result = tracefs_sim("exec", "--mount", str(mounted), "cat", "/no/such/file", timeout=60)
    assert result.returncode != 0
    assert "/no/such/file" in result.stdout + result.stderr


def test_mount_errors_are_one_line(mounted, tmp_path):
    cases = [
        (("mount", str(mounted)), "already mounted"),
        (("mount", str(tmp_path / "absent")), "not a directory"),
        (("mount", "/sys/kernel/tracing"), "refusing"),
        (("umount", str(tmp_path)), "not mounted"),
        (("mount", str(tmp_path), "--cpus", "9"), "1 to 8 CPUs"),
    ]
    for args, message in cases:
        result = tracefs_sim(*args, timeout=30)
        assert result.returncode != 0, args
        assert message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr
    assert not simulator_mounted_at("/sys/kernel/tracing")


def test_exec_without_a_daemon(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != control.ENV_VAR}
    result = tracefs_sim("exec", "--mount", str(tmp_path), "cat", "/etc/passwd", timeout=30, env=env)
    assert result.returncode == 1
    assert "no daemon socket" in result.stderr and "Traceback" not in result.stderr


def test_umount_after_the_daemon_was_killed(mount_at):
    mnt = mount_at()
    pid = control.daemon_from_pidfile(control.mount_socket_path(str(mnt)))
    os.kill(pid, signal.SIGKILL)
    assert simulator_mounted_at(mnt)
    result = tracefs_sim("umount", str(mnt), timeout=60)
    assert result.returncode == 0, result.stderr
    assert not simulator_mounted_at(mnt)
    assert not os.path.exists(control.mount_socket_path(str(mnt)))


def test_umount_ends_the_daemon(mount_at):
    mnt = mount_at()
    pid = control.info(control.mount_socket_path(str(mnt)))["pid"]
    assert tracefs_sim("umount", str(mnt), timeout=60).returncode == 0
    assert not simulator_mounted_at(mnt)
    assert not process_running(pid)


def test_foreground_mount_until_sigterm(tmp_path):
    mnt = tmp_path / "fg"
    mnt.mkdir()
    daemon = subprocess.Popen([TRACEFS_SIM, "mount", "--foreground", str(mnt)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        socket_path = control.mount_socket_path(str(mnt))
        deadline = time.monotonic() + 90
        while not (simulator_mounted_at(mnt) and os.path.exists(socket_path)):
            assert daemon.poll() is None, daemon.stderr.read()
            assert time.monotonic() < deadline, "foreground mount never became ready"
            time.sleep(0.05)
        assert control.info(socket_path)["pid"] == daemon.pid
        assert sh(mnt, "cat tracing_on").stdout == "1\n"
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(30) == 0
        assert not simulator_mounted_at(mnt)
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait(10)
        unmount(mnt)


# data/trace_poll.c on the real 6.1 (real-tracefs, Debian's 6.1.192, run on cpu 0)
TRACE_POLL_6_1 = """\
unexpanded trace_pipe: poll=0 revents=0 waited=1
unexpanded per_cpu/cpu0/trace_pipe: poll=1 revents=0x1 waited=0
unexpanded per_cpu/cpu0/trace_pipe_raw: poll=1 revents=0x1 waited=0
expanded per_cpu/cpu0/trace_pipe: poll=0 revents=0 waited=1
expanded per_cpu/cpu0/trace_pipe_raw: poll=0 revents=0 waited=1
one record trace_pipe: poll=1 revents=0x1 waited=0
one record per_cpu/cpu0/trace_pipe_raw: poll=0 revents=0 waited=1
percent 0 per_cpu/cpu0/trace_pipe_raw: poll=1 revents=0x1 waited=0
block trace_pipe: poll=1 revents=0x1 waited=0
block per_cpu/cpu0/trace_pipe_raw: poll=1 revents=0x1 waited=0
woken trace_pipe: poll=1 revents=0x1 waited=0
"""


def test_poll_of_the_trace_pipes_as_linux_6_1(mount_at, tmp_path):
    """trace_poll(): trace_pipe is readable once a record is in, a cpu's pipes once its buffer is
    buffer_percent full, every pipe with options/block; a record wakes a waiting poll."""
    mnt = mount_at("--workload", "none")
    program = tmp_path / "trace_poll"
    subprocess.run(["gcc", "-O1", "-o", str(program), str(Path(__file__).parent / "data/trace_poll.c")],
                   check=True, timeout=60)
    result = subprocess.run(["taskset", "1", str(program), str(mnt)], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (0, TRACE_POLL_6_1), result.stderr
    assert sh(mnt, "cat buffer_percent").stdout == "50\n"
    assert sh(mnt, "echo 101 > buffer_percent").returncode != 0
    assert sh(mnt, "echo 7 > buffer_percent; cat buffer_percent").stdout == "7\n"
