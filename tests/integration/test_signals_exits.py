"""Signals and exits (issue 8): Ctrl-C and `timeout` end blocked readers, stop signals unmount
cleanly, a SIGKILLed daemon's dead mount is cleared by `umount`, and `tracefs-sim run` leaves
neither a mount nor a process behind whatever its script does. Everything runs through the
installed command and real programs; `no_leftovers` checks the host afterwards."""

import errno
import os
import selectors
import signal
import subprocess
import sys
import time

import pytest
from simtest import (TRACEFS_SIM, blocked_in_read, process_running, simulator_mounted_at,
                     tracefs_sim, unmount, wait_until)

from tracefs_sim import control

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse and root"),
    pytest.mark.usefixtures("no_leftovers"),
]

# "Promptly": what a user at a terminal would still call immediate, on a loaded 2-core box.
PROMPT = 3.0
# Boot plus mount.
START = 90
# A session forwards a stop signal to its script, then stops its daemon (which unmounts).
STOP_WITHIN = 15.0


def start_readers(path, count: int) -> list[subprocess.Popen]:
    """`count` `cat PATH` in one new process group (a shell pipeline's job), each blocked in
    read() before this returns."""
    readers = []
    for _ in range(count):
        group = readers[0].pid if readers else 0
        readers.append(subprocess.Popen(["cat", str(path)], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, process_group=group))
    assert wait_until(lambda: all(blocked_in_read(r.pid) for r in readers), 20), \
        "the readers never blocked in read()"
    return readers


def wait_all(processes: list[subprocess.Popen], timeout: float) -> list[int | None]:
    deadline = time.monotonic() + timeout
    statuses = []
    for p in processes:
        try:
            statuses.append(p.wait(max(0.0, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            statuses.append(None)
    return statuses


def kill_all(processes) -> None:
    for p in processes:
        if p.poll() is None:
            p.kill()
            p.wait(10)


def assert_directory_usable(mnt) -> None:
    """Unmounted: the plain, empty directory is back and can be written."""
    assert os.listdir(mnt) == []
    probe = mnt / "probe"
    probe.write_text("x")
    probe.unlink()


# ---------------------------------------------------------------------------------------------
# readers


@pytest.mark.parametrize("count", [1, 3])
def test_ctrl_c_ends_blocked_trace_pipe_readers(mount_at, count):
    mnt = mount_at("--workload", "none")
    readers = start_readers(mnt / "trace_pipe", count)
    try:
        started = time.monotonic()
        os.killpg(readers[0].pid, signal.SIGINT)    # what ^C does to the foreground job
        statuses = wait_all(readers, PROMPT)
        assert statuses == [-signal.SIGINT] * count, f"after {time.monotonic() - started:.1f} s"
    finally:
        kill_all(readers)
    # The daemon is unharmed: the mount still answers.
    assert (mnt / "tracing_on").read_text() == "1\n"


def test_timeout_ends_blocked_reader_in_about_a_second(mounted):
    started = time.monotonic()
    result = subprocess.run(["timeout", "1", "cat", str(mounted / "trace_pipe")],
                            capture_output=True, timeout=30)
    elapsed = time.monotonic() - started
    assert result.returncode == 124
    assert 0.9 <= elapsed < 1 + PROMPT


# ---------------------------------------------------------------------------------------------
# the daemon's stop signals


# A subreaper, so that the daemonized mount (re-parented to it) can be waited for: prints
# `tracefs-sim mount`'s status, then the daemon's pid and exit status when it ends.
_REAPER = """
import ctypes, os, subprocess, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
print(subprocess.run(sys.argv[1:]).returncode, flush=True)
pid, status = os.wait()
print(pid, os.waitstatus_to_exitcode(status), flush=True)
"""


class Daemon:
    """A daemon serving mnt, started in the foreground or daemonized; `status()` is its exit
    status once it ended."""

    def __init__(self, mnt, foreground: bool):
        self.mnt = mnt
        self.socket_path = control.mount_socket_path(str(mnt))
        argv = [TRACEFS_SIM, "mount", str(mnt), "--workload", "none"]
        if foreground:
            self.process = subprocess.Popen([*argv, "--foreground"], stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True)
        else:
            self.process = subprocess.Popen([sys.executable, "-c", _REAPER, *argv],
                                            stdout=subprocess.PIPE, text=True)
            assert self.process.stdout.readline() == "0\n", "tracefs-sim mount failed"
        self.foreground = foreground
        assert wait_until(lambda: simulator_mounted_at(mnt) and os.path.exists(self.socket_path),
                          START), "the mount never became ready"
        self.pid = control.info(self.socket_path)["pid"]
        if foreground:
            assert self.pid == self.process.pid

    def status(self, timeout: float) -> int:
        if self.foreground:
            return self.process.wait(timeout)
        pid, status = self.process.communicate(timeout=timeout)[0].split()
        assert int(pid) == self.pid
        return int(status)

    def close(self) -> None:
        if self.process.poll() is None:
            if process_running(self.pid):
                os.kill(self.pid, signal.SIGKILL)
            self.process.kill()
            self.process.wait(10)
        unmount(self.mnt)


@pytest.mark.parametrize("foreground", [True, False], ids=["foreground", "daemonized"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stop_signal_unmounts_cleanly_and_releases_readers(tmp_path, signum, foreground):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    daemon = Daemon(mnt, foreground)
    readers = []
    try:
        readers = start_readers(mnt / "trace_pipe", 2)
        os.kill(daemon.pid, signum)
        assert daemon.status(30) == 0
        # Released, not hung: EOF, or an error (EINTR, or the kernel's answer once the
        # connection is gone) -- never a reader left waiting.
        assert None not in wait_all(readers, PROMPT)
        for reader in readers:
            assert reader.returncode in (0, 1), reader.stderr.read()
        assert not simulator_mounted_at(mnt)
        assert_directory_usable(mnt)
        assert not os.path.exists(daemon.socket_path)
        assert not os.path.exists(control.pidfile_path(daemon.socket_path))
    finally:
        kill_all(readers)
        daemon.close()


def test_sigkill_leaves_a_dead_mount_that_umount_clears(mount_at):
    mnt = mount_at("--workload", "none")
    socket_path = control.mount_socket_path(str(mnt))
    pid = control.info(socket_path)["pid"]
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: not process_running(pid), 10)
    assert simulator_mounted_at(mnt)
    with pytest.raises(OSError) as dead:
        os.listdir(mnt)
    # ENOTCONN, or ECONNABORTED on hosts whose FUSE says so for a connection whose server
    # went away (6.18 does)
    assert dead.value.errno in (errno.ENOTCONN, errno.ECONNABORTED)

    result = tracefs_sim("umount", str(mnt), timeout=60)
    assert (result.returncode, result.stderr) == (0, "")
    assert not simulator_mounted_at(mnt)
    assert_directory_usable(mnt)
    assert not os.path.exists(socket_path)

    again = tracefs_sim("umount", str(mnt), timeout=60)
    assert again.returncode != 0
    assert again.stderr == f"tracefs-sim umount: {mnt}: not mounted\n"


# ---------------------------------------------------------------------------------------------
# tracefs-sim run


def run(script: str, timeout: float = START, **kwargs) -> subprocess.CompletedProcess:
    return tracefs_sim("run", "--workload", "none", "-c", script, timeout=timeout, **kwargs)


@pytest.mark.parametrize("status", [0, 3, 255])
def test_run_propagates_the_exit_status(status):
    assert run(f"exit {status}").returncode == status


def test_run_script_killed_by_sigkill_is_137():
    result = run("kill -9 $$")
    assert result.returncode == 128 + signal.SIGKILL, result.stderr


@pytest.mark.parametrize("start", [
    "sleep 1000 &",
    "setsid sleep 1000 &",                      # out of the script's process group
    "nohup sleep 1000 >/dev/null 2>&1 &",
    "(trap '' TERM; exec sleep 1000) &",
], ids=["background", "setsid", "nohup", "ignores-SIGTERM"])
def test_run_ends_what_the_script_left_running(start):
    result = run(f"{start} echo started")
    assert (result.returncode, result.stdout) == (0, "started\n"), result.stderr
    # no_leftovers checks that no sleep survived


def run_in_background(script: str) -> subprocess.Popen:
    return subprocess.Popen([TRACEFS_SIM, "run", "--workload", "none", "-c", script],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_line(process: subprocess.Popen, timeout: float) -> str:
    """The first line the process prints (the script saying it got going)."""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        assert selector.select(timeout), "the script never started"
    return process.stdout.readline()


def test_sigterm_to_run_ends_a_script_blocked_in_trace_pipe():
    session = run_in_background("echo go; cat /sys/kernel/tracing/trace_pipe; sleep 1000")
    try:
        assert wait_for_line(session, START) == "go\n"
        time.sleep(1)   # cat is in read() by now
        assert session.poll() is None
        started = time.monotonic()
        session.send_signal(signal.SIGTERM)
        status = session.wait(STOP_WITHIN)
        assert time.monotonic() - started < STOP_WITHIN
        assert status == 128 + signal.SIGTERM, session.stderr.read()
    finally:
        if session.poll() is None:
            session.kill()
            session.wait(10)


def test_sigkill_of_run_takes_the_daemon_and_the_script_with_it():
    session = run_in_background("echo go; cat /sys/kernel/tracing/trace_pipe; sleep 1000")
    try:
        assert wait_for_line(session, START) == "go\n"
        time.sleep(1)
        session.kill()
        assert session.wait(10) == -signal.SIGKILL
        # no_leftovers checks that the daemon, cat and sleep are gone and nothing is mounted;
        # the mount lived in the session's namespace, so the host never saw it.
        assert not simulator_mounted_at("/sys/kernel/tracing")
    finally:
        if session.poll() is None:
            session.kill()
            session.wait(10)
