"""A real FUSE mount of the daemon over a fake machine, driven with the shell as users do.
Every mount is unmounted in the fixture's finalizer, even when a test fails."""

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent.parent

DAEMON = """
import sys
sys.path.insert(0, {tests!r})
from fakes import FakeMachine, FakeOptions
from tracefs_sim.daemon import serve_machine
sys.exit(serve_machine(FakeMachine(FakeOptions(cpus=2)), {mnt!r}, ready_fd={fd}))
"""

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse and root")


def _mounted(mnt: Path) -> bool:
    return any(line.split()[1] == str(mnt) for line in Path("/proc/mounts").read_text().splitlines())


@pytest.fixture
def mount(tmp_path):
    mnt = tmp_path / "tracing"
    mnt.mkdir()
    ready_r, ready_w = os.pipe()
    env = dict(os.environ, TRACEFS_SIM_CONTROL=str(tmp_path / "control.sock"))
    daemon = subprocess.Popen(
        [sys.executable, "-c", DAEMON.format(tests=str(TESTS_DIR), mnt=str(mnt), fd=ready_w)],
        pass_fds=(ready_w,), env=env)
    os.close(ready_w)
    try:
        readable, _, _ = select.select([ready_r], [], [], 20)
        assert readable and os.read(ready_r, 1) == b"\0", "daemon did not report ready"
        yield mnt, daemon
    finally:
        os.close(ready_r)
        if daemon.poll() is None:
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(5)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        subprocess.run(["fusermount3", "-u", "-z", str(mnt)], stderr=subprocess.DEVNULL)


def sh(mnt, script, timeout=10):
    return subprocess.run(["bash", "-c", script], cwd=mnt, capture_output=True, text=True, timeout=timeout)


def test_proc_mounts_shows_tracefs(mount):
    mnt, _ = mount
    line = next(l for l in Path("/proc/mounts").read_text().splitlines() if l.split()[1] == str(mnt))
    assert line.split()[0] == "tracefs" and line.split()[2] == "fuse.tracefs"
    assert "default_permissions" in line


def test_listing_and_modes(mount):
    mnt, _ = mount
    out = sh(mnt, "ls -la").stdout.splitlines()
    modes = {line.split()[-1]: line.split()[0] for line in out[1:]}
    assert modes["."] == "drwx------"
    assert modes["README"] == "-r--r-----" and modes["trace_pipe"] == "-r--r-----"
    assert modes["tracing_on"] == "-rw-r-----" and modes["per_cpu"] == "drwxr-x---"
    assert sorted(modes) == sorted([".", "..", "README", "available_tracers", "buffer_size_kb",
                                    "buffer_total_size_kb", "current_tracer", "events", "per_cpu",
                                    "trace", "trace_clock", "trace_pipe", "tracing_on"])
    assert sh(mnt, "ls per_cpu").stdout.split() == ["cpu0", "cpu1"]
    assert sh(mnt, "ls per_cpu/cpu1").stdout.split() == ["buffer_size_kb", "stats", "trace", "trace_pipe"]
    assert "sched_switch" in sh(mnt, "ls events/sched").stdout.split()
    assert sh(mnt, "ls events/sched/sched_switch").stdout.split() == ["format", "id"]


def test_cat_and_echo_like_the_docs(mount):
    mnt, _ = mount
    assert sh(mnt, "cat tracing_on current_tracer available_tracers").stdout == "1\nnop\nnop\n"
    assert sh(mnt, "cat buffer_size_kb").stdout == "7 (expanded: 1408)\n"
    result = sh(mnt, "echo 2 > tracing_on && cat tracing_on && echo 0 > tracing_on && cat tracing_on")
    assert result.stdout == "1\n0\n"
    bad = sh(mnt, "echo abc > tracing_on")
    assert bad.returncode != 0 and "Invalid argument" in bad.stderr
    bad = sh(mnt, "echo nosuchtracer > current_tracer; cat current_tracer")
    assert "Invalid argument" in bad.stderr and bad.stdout == "nop\n"
    assert "Invalid argument" in sh(mnt, "echo x > available_tracers").stderr
    assert sh(mnt, "echo global > trace_clock; cat trace_clock").stdout.startswith("local [global] ")
    assert sh(mnt, "echo 100 > per_cpu/cpu1/buffer_size_kb; cat buffer_size_kb per_cpu/cpu1/buffer_size_kb").stdout == "X\n103\n"
    assert sh(mnt, "echo > trace && cat trace").stdout.startswith("# tracer: nop\n#\n# entries-in-buffer")
    assert "No such file or directory" in sh(mnt, "cat nosuchfile").stderr
    assert "Permission denied" in sh(mnt, "touch newfile").stderr
    assert "Operation not permitted" in sh(mnt, "mkdir newdir").stderr
    assert sh(mnt, "cat events/sched/sched_switch/format").stdout.startswith("name: sched_switch\nID: ")


def test_trace_pipe_blocks_until_interrupted(mount):
    mnt, _ = mount
    start = time.monotonic()
    result = sh(mnt, "timeout 1 cat trace_pipe; echo status=$?")
    assert result.stdout == "status=124\n"
    assert time.monotonic() - start < 3
    reader = subprocess.Popen(["cat", str(mnt / "per_cpu/cpu0/trace_pipe")], stderr=subprocess.PIPE)
    time.sleep(0.3)
    assert reader.poll() is None
    reader.send_signal(signal.SIGINT)
    reader.wait(2)
    nonblock = sh(mnt, "dd if=trace_pipe iflag=nonblock bs=4096 count=1")
    assert "Resource temporarily unavailable" in nonblock.stderr


def test_sigterm_unmounts(mount):
    mnt, daemon = mount
    reader = subprocess.Popen(["cat", str(mnt / "trace_pipe")], stderr=subprocess.DEVNULL)
    time.sleep(0.2)
    daemon.send_signal(signal.SIGTERM)
    assert daemon.wait(5) == 0
    assert not _mounted(mnt)
    reader.wait(5)
