"""Fixtures that drive the installed `tracefs-sim` command: mounts on temporary directories,
always unmounted, even when the test fails. Helpers live in integration/simtest.py."""

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "integration"))
from simtest import (TAG_VAR, simulator_mounted_at, simulator_mounts, tagged_processes,  # noqa: E402
                     tracefs_sim, unmount, wait_until)


REPO = Path(__file__).resolve().parents[1]

# A shell starts its background jobs with SIGINT ignored, and exec keeps that: under
# `pytest &`, a reader that a test interrupts the way Ctrl-C does would shrug it off. A
# terminal's foreground job has the default action: give it back to this process and its children.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# The host kernel's own tracing file systems: no test may ever mount one in the host's
# namespace (a client run on the host by mistake does: perf's and libtracefs's tracefs__mount()).
_HOST_TRACING_FS = ("tracefs", "debugfs")


def _host_tracing_mounts() -> set[str]:
    """The host namespace's mounts of those file systems, each as its mountinfo line."""
    with open("/proc/self/mountinfo") as f:
        return {line for line in f if line.split(" - ", 1)[1].split()[0] in _HOST_TRACING_FS}


@pytest.fixture(autouse=True)
def host_tracing_untouched():
    """Every test: it leaves the host's mounts of its real tracefs and debugfs as it found them."""
    before = _host_tracing_mounts()
    yield
    added = _host_tracing_mounts() - before
    assert not added, f"the test mounted the host kernel's tracing file systems: {sorted(added)}"


@pytest.fixture(scope="session")
def vmlinux() -> str:
    """The emulated kernel, built once per session (make is incremental)."""
    subprocess.run(["make", "-s", "-C", str(REPO / "kernel_model")], check=True, timeout=300)
    return str(REPO / "kernel_model" / "build" / "vmlinux")


@pytest.fixture(scope="session")
def image(vmlinux):
    from tracefs_sim.machine import KernelImage
    return KernelImage(vmlinux)


@pytest.fixture
def make_machine(vmlinux):
    """Factory for started machines; every machine is stopped at teardown. traced=True gives
    the machine its ftrace sites (made before the start, which they hook) as `m.sites`, and
    the top-level array recording."""
    from tracefs_sim.machine import Machine, MachineOptions
    from tracefs_sim.probes import FtraceSites
    machines = []

    def make(*, traced=False, **kw):
        kw.setdefault("workload", "none")
        m = Machine(MachineOptions(kernel_image=vmlinux, **kw))
        machines.append(m)
        if traced:
            m.sites = FtraceSites(m)
        m.start()
        if traced:
            m.tracing.set_recording(0, True)
        return m
    yield make
    for m in machines:
        m.stop()


@pytest.fixture
def mount_at(tmp_path):
    """mount_at(*options) -> Path: a daemonized `tracefs-sim mount` on a new directory."""
    mounts = []

    def mount(*options: str) -> Path:
        mnt = tmp_path / f"tracing{len(mounts)}"
        mnt.mkdir()
        mounts.append(mnt)
        result = tracefs_sim("mount", str(mnt), *options)
        assert result.returncode == 0, f"mount failed: {result.stderr}"
        assert simulator_mounted_at(mnt)
        return mnt

    try:
        yield mount
    finally:
        for mnt in mounts:
            unmount(mnt)
        assert not any(simulator_mounted_at(mnt) for mnt in mounts), "a mount survived its test"


@pytest.fixture
def mounted(mount_at):
    """The simulator (2 CPUs, default workload) mounted on a temporary directory."""
    return mount_at()


# Where a session's mount appears if it ever escaped its private namespace.
_SESSION_PLACES = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")


@pytest.fixture
def no_leftovers(monkeypatch, tmp_path):
    """After the test: no tracefs-sim mount under tmp_path (or on the host's tracing paths) and
    no process the test started is still running. Leftovers are cleaned up, and fail the test.
    Returns the list to which a test adds further directories it mounts on."""
    tag = uuid.uuid4().hex
    monkeypatch.setenv(TAG_VAR, tag)
    roots = [str(tmp_path)]
    yield roots

    def ours(mnt: str) -> bool:
        return mnt in _SESSION_PLACES or any(mnt == r or mnt.startswith(r + "/") for r in roots)

    wait_until(lambda: not tagged_processes(tag) and not any(map(ours, simulator_mounts())), 10)
    processes = tagged_processes(tag)
    described = {pid: _cmdline(pid) for pid in processes}
    for pid in processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    mounts = [m for m in simulator_mounts() if ours(m)]
    for mnt in mounts:
        subprocess.run(["fusermount3", "-u", "-z", mnt], capture_output=True, timeout=20)
    assert not mounts, f"mounts left behind: {mounts}"
    assert not processes, f"processes left behind: {described}"


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"
