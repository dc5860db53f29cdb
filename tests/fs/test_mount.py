"""A real FUSE mount of the daemon over a fake machine, driven with the shell as users do.
Every mount is unmounted in the fixture's finalizer, even when a test fails."""

import fcntl
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
sys.exit(serve_machine(FakeMachine(FakeOptions(cpus=2, workload={workload!r})), {mnt!r}, ready_fd={fd}))
"""

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse and root")


def _mounted(mnt: Path) -> bool:
    return any(line.split()[1] == str(mnt) for line in Path("/proc/mounts").read_text().splitlines())


@pytest.fixture
def mount(tmp_path):
    yield from _mount(tmp_path, "none")


@pytest.fixture
def ticking_mount(tmp_path):
    """A daemon whose fake guest records a sched_switch every 5 ms while it is enabled."""
    yield from _mount(tmp_path, "ticks")


def _mount(tmp_path, workload):
    mnt = tmp_path / "tracing"
    mnt.mkdir()
    ready_r, ready_w = os.pipe()
    env = dict(os.environ, TRACEFS_SIM_CONTROL=str(tmp_path / "control.sock"))
    daemon = subprocess.Popen(
        [sys.executable, "-c", DAEMON.format(tests=str(TESTS_DIR), mnt=str(mnt), fd=ready_w, workload=workload)],
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
    assert modes["printk_formats"] == "-r--r-----"
    assert modes["free_buffer"] == "--w-------" and modes["trace_marker"] == "--w--w----"
    assert sorted(modes) == sorted([".", "..", "README", "available_events", "available_tracers", "buffer_percent", "buffer_size_kb",
                                    "buffer_total_size_kb", "current_tracer", "error_log", "events", "free_buffer",
                                    "instances", "options", "per_cpu", "printk_formats", "saved_cmdlines", "saved_cmdlines_size",
                                    "saved_tgids", "set_event", "set_event_notrace_pid", "set_event_pid", "snapshot", "timestamp_mode", "trace",
                                    "trace_clock", "trace_marker", "trace_marker_raw", "trace_options", "trace_pipe", "tracing_cpumask",
                                    "tracing_max_latency", "tracing_on", "tracing_thresh"])
    assert sh(mnt, "ls per_cpu").stdout.split() == ["cpu0", "cpu1"]
    assert sh(mnt, "ls per_cpu/cpu1").stdout.split() == ["buffer_size_kb", "snapshot", "snapshot_raw", "stats",
                                                          "trace", "trace_pipe", "trace_pipe_raw"]
    assert modes["snapshot"] == "-rw-r-----"
    assert sh(mnt, "ls -l per_cpu/cpu1/snapshot_raw").stdout.split()[0] == "-r--r-----"
    assert "sched_switch" in sh(mnt, "ls events/sched").stdout.split()
    assert sh(mnt, "ls events/sched/sched_switch").stdout.split() == ["enable", "filter", "format", "hist", "id", "trigger"]


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
    reader = subprocess.Popen(["cat", str(mnt / "trace_pipe")], stderr=subprocess.PIPE)
    time.sleep(0.2)
    daemon.send_signal(signal.SIGTERM)
    assert daemon.wait(5) == 0
    assert not _mounted(mnt)
    # The blocked reader gets EOF, not an error cat would retry into a vanishing mount.
    status = reader.wait(5)
    assert (status, reader.stderr.read()) == (0, b"")


def test_events_stream_through_trace_pipe(ticking_mount):
    mnt, daemon = ticking_mount
    result = sh(mnt, "echo 1 > events/sched/sched_switch/enable; timeout 1 cat trace_pipe > /tmp/pipe.$$;"
                     " rc=$?; head -3 /tmp/pipe.$$; rm /tmp/pipe.$$; exit $rc", timeout=10)
    assert result.returncode == 124                      # timeout ended the blocked reader
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and all(" sched_switch: prev_comm=ticker prev_pid=42 " in l for l in lines)
    assert lines[0].startswith("          ticker-42      [00")
    result = sh(mnt, "echo 0 > events/sched/sched_switch/enable; echo > trace; cat trace | wc -l;"
                     " echo 'prev_pid != 42' > events/sched/sched_switch/filter;"
                     " echo 1 > events/sched/sched_switch/enable; sleep 0.3; cat trace | wc -l")
    assert result.stdout.split() == ["12", "12"]         # only the header: every event filtered
    result = sh(mnt, "mkdir instances/foo && echo 1 > instances/foo/events/sched/enable && sleep 0.3 &&"
                     " grep -c sched_switch instances/foo/trace; echo 0 > instances/foo/events/sched/enable;"
                     " rmdir instances/foo; ls instances | wc -l")
    count, remaining = result.stdout.split()
    assert int(count) > 10 and remaining == "0"
    assert daemon.poll() is None


def test_cat_trace_pipe_is_interrupted_by_ctrl_c(ticking_mount):
    mnt, _ = ticking_mount
    reader = subprocess.Popen(["cat", "trace_pipe"], cwd=mnt, stdout=subprocess.PIPE)
    time.sleep(0.3)
    reader.send_signal(signal.SIGINT)
    assert reader.wait(3) != 0


def test_big_writes_and_readers_leaving_mid_read_leave_the_daemon_answering(ticking_mount):
    mnt, daemon = ticking_mount
    result = sh(mnt, "head -c 1048576 /dev/zero | tr '\\0' 1 > tracing_on; echo rc=$?;"
                     " head -c 1048576 /dev/urandom > set_event; echo rc=$?; cat set_event | wc -c;"
                     " echo 1 > events/sched/sched_switch/enable; sleep 0.3;"
                     " cat trace | head -c 100 > /dev/null; grep -c sched_switch trace;"
                     " timeout 0.5 cat trace_pipe | head -c 10 > /dev/null; cat tracing_on", timeout=20)
    lines = result.stdout.split()
    assert lines[0] == "rc=1" and "Numerical result out of range" in result.stderr
    assert lines[1] == "rc=1" and lines[2] == "0"
    assert int(lines[3]) > 10 and lines[4] == "1"
    assert daemon.poll() is None


def test_trace_pipe_raw_honours_o_nonblock_set_after_open(ticking_mount):
    """trace-cmd opens trace_pipe_raw blocking, then sets O_NONBLOCK with fcntl to flush what
    is left: the read must see the flag (FUSE sends it, pyfuse3 does not pass it on)."""
    mnt, _ = ticking_mount
    raw = mnt / "per_cpu/cpu0/trace_pipe_raw"
    fd = os.open(raw, os.O_RDONLY)
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        start = time.monotonic()
        with pytest.raises(BlockingIOError):
            os.read(fd, 4096)
        assert time.monotonic() - start < 1
        (mnt / "events/sched/sched_switch/enable").write_text("1\n")
        time.sleep(0.3)
        (mnt / "tracing_on").write_text("0\n")
        pages = b""
        while True:
            try:
                page = os.read(fd, 4096)
            except BlockingIOError:
                break
            assert len(page) == 4096
            pages += page
        assert pages and b"ticker" in pages
    finally:
        os.close(fd)
    # Blocking again: a blocked read ends on a signal (timeout's SIGTERM).
    result = sh(mnt, "timeout 0.5 dd if=per_cpu/cpu0/trace_pipe_raw bs=4096 count=1 status=none | wc -c;"
                     " echo ${PIPESTATUS[0]}")
    assert result.stdout.split() == ["0", "124"]
