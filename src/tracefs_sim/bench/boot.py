"""boot: process start -> machine ready, -> mount ready, and `tracefs-sim run -c true`, each
in a fresh process.

"Mount ready" is the moment the mount answers: a read of its tracing_on returns, timed from
just before the `tracefs-sim mount --foreground` process is created (so interpreter start-up,
imports, the machine's boot and the FUSE mount are all inside)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .launch import READY_TIMEOUT_S as TIMEOUT_S, mounted, tracefs_sim
from .runner import Sample

NAME = "boot"
MOUNT_READY = "process start -> mount ready (target <= 0.3)"


def _mount_ready_time(mountpoint: str) -> float:
    with mounted(mountpoint) as ready_s:
        return ready_s


# Times itself from the parent's clock reading (CLOCK_REALTIME is shared across processes).
MACHINE_READY = """
import os, sys, time
t0 = float(os.environ["TRACEFS_SIM_BENCH_T0"])
from tracefs_sim.machine import Machine, MachineOptions
m = Machine(MachineOptions(workload=sys.argv[1]))
m.start()
print(time.time() - t0)
m.stop()
"""


def _machine_ready_time(workload: str) -> float:
    """Process start -> init running, the machine alone (no trace core, no FUSE)."""
    env = dict(os.environ, TRACEFS_SIM_BENCH_T0=repr(time.time()))
    done = subprocess.run([sys.executable, "-c", MACHINE_READY, workload], env=env, check=True,
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    return float(done.stdout.split()[-1])


def _run_true_time() -> Sample:
    t0 = time.perf_counter()
    done = subprocess.run(tracefs_sim("run", "-c", "true"), capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        return Sample("tracefs-sim run -c true", "s", None,
                      f"exit {done.returncode}: {done.stderr.strip()[-200:]}")
    return Sample("tracefs-sim run -c true", "s", elapsed)


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    with tempfile.TemporaryDirectory(prefix="tracefs-sim-bench-") as mountpoint:
        def sample() -> list[Sample]:
            try:
                ready = Sample(MOUNT_READY, "s", _mount_ready_time(mountpoint))
            except RuntimeError as e:
                ready = Sample(MOUNT_READY, "s", None, str(e))
            return [Sample("process start -> machine ready (workload none)", "s",
                           _machine_ready_time("none")),
                    Sample("process start -> machine ready (workload default)", "s",
                           _machine_ready_time("default")),
                    ready, _run_true_time()]
        yield sample
