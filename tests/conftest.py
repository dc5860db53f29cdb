"""Fixtures that drive the installed `tracefs-sim` command: mounts on temporary directories,
always unmounted, even when the test fails. Helpers live in integration/simtest.py."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "integration"))
from simtest import simulator_mounted_at, tracefs_sim, unmount  # noqa: E402


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
