"""How the benchmarks start `tracefs-sim` in a fresh process, as a user would: a mount that
is always taken down again, and a session script whose lines are figures."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

POLL_S = 0.001
READY_TIMEOUT_S = 60.0


def tracefs_sim(*args: str) -> list[str]:
    """argv of the installed `tracefs-sim` beside this interpreter, else of the module."""
    script = os.path.join(os.path.dirname(sys.executable), "tracefs-sim")
    if os.access(script, os.X_OK):
        return [script, *args]
    return [sys.executable, "-c", "import sys; from tracefs_sim.cli import main; sys.exit(main())", *args]


@contextmanager
def mounted(mountpoint: str, *options: str) -> Iterator[float]:
    """A `tracefs-sim mount --foreground` on the empty directory `mountpoint`; yields the
    seconds from just before its process was created to the mount's first answer (a read of
    tracing_on). Unmounted on the way out, whatever happened."""
    empty_dev = os.stat(mountpoint).st_dev
    t0 = time.perf_counter()
    daemon = subprocess.Popen(tracefs_sim("mount", "--foreground", *options, "--", mountpoint),
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    stderr = daemon.stderr
    assert stderr is not None  # (a pipe)
    try:
        while True:
            try:
                if os.stat(mountpoint).st_dev != empty_dev:
                    with open(os.path.join(mountpoint, "tracing_on")) as f:
                        f.read()
                    break
            except OSError:
                pass  # mounted, not answering yet
            if daemon.poll() is not None:
                raise RuntimeError("the daemon ended before the mount was ready: "
                                   + stderr.read().decode(errors="replace").strip())
            if time.perf_counter() - t0 > READY_TIMEOUT_S:
                raise RuntimeError(f"the mount was not ready after {READY_TIMEOUT_S:.0f} s")
            time.sleep(POLL_S)
        yield time.perf_counter() - t0
    finally:
        daemon.send_signal(signal.SIGTERM)  # the daemon unmounts and exits
        try:
            daemon.wait(timeout=20)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        if _mounted_at(mountpoint):  # a daemon that died leaves its mount (stat: ENOTCONN)
            subprocess.run(["fusermount3", "-u", "-z", mountpoint], capture_output=True, timeout=20)
        stderr.close()


def _mounted_at(mountpoint: str) -> bool:
    where = os.path.realpath(mountpoint)
    with open("/proc/self/mountinfo") as f:
        # field 5 is the mountpoint, with space, tab, newline and backslash as \ooo escapes
        return any(line.split()[4].encode().decode("unicode_escape") == where for line in f)


def session_figures(script: str, env: dict[str, str], *options: str, timeout: float = 300) -> dict[str, list[float]]:
    """`tracefs-sim run OPTIONS -c SCRIPT` with env added: each line it prints, `NAME V1 V2...`,
    as {NAME: [V1, V2, ...]}; RuntimeError if the session fails."""
    done = subprocess.run(tracefs_sim("run", *options, "-c", script), capture_output=True, text=True,
                          timeout=READY_TIMEOUT_S + timeout, env={**os.environ, **env})
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr.strip()[-300:]}")
    found = {}
    for line in done.stdout.splitlines():
        name, *values = line.split()
        found[name] = [float(v) for v in values]
    return found
