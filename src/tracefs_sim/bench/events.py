"""events: events per second from the guest to a `trace_pipe` reader, through FUSE.

On a fresh mount (no background workload), sched and raw_syscalls events are enabled, a
`cat trace_pipe` reads, and `tracefs-sim exec getuid-loop N` makes 2N+ syscall events plus
scheduling. The figure is the lines the reader got, over the time from the program's start
to the last line read (the reader must keep up with the guest: this is end to end).
Not measured yet: the function tracer on everything (there is no function tracer yet)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager

from .launch import mounted, tracefs_sim
from .runner import Sample

NAME = "events"
CALLS = 20_000
QUICK_CALLS = 300
QUIET_S = 0.5  # no line for this long after the program ended: the reader has it all
SYSTEMS = ("sched", "raw_syscalls")


class PipeReader:
    """`cat trace_pipe` in a subprocess, its lines counted by a thread as they arrive."""

    def __init__(self, tracing: str):
        self.lines = 0
        self.last_read = time.perf_counter()
        self.error: str | None = None  # set when cat ended by itself (a read failed)
        self._cat = subprocess.Popen(["cat", os.path.join(tracing, "trace_pipe")],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._thread = threading.Thread(target=self._count, daemon=True)
        self._thread.start()

    def _count(self) -> None:
        while data := os.read(self._cat.stdout.fileno(), 1 << 16):
            self.lines += data.count(b"\n")
            self.last_read = time.perf_counter()

    def settle(self) -> None:
        while time.perf_counter() - self.last_read < QUIET_S:
            time.sleep(0.05)

    def close(self) -> None:
        if self._cat.poll() is not None:
            self.error = (f"the trace_pipe reader exited {self._cat.returncode}: "
                          + self._cat.stderr.read().decode(errors="replace").strip()[-160:])
        self._cat.kill()
        self._cat.wait()
        self._thread.join(5)
        self._cat.stdout.close()
        self._cat.stderr.close()


def write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


@contextmanager
def session(quick: bool):
    calls = QUICK_CALLS if quick else CALLS
    with tempfile.TemporaryDirectory(prefix="tracefs-sim-bench-") as mnt, \
            mounted(mnt, "--workload", "none"):
        def sample() -> list[Sample]:
            for system in SYSTEMS:
                write(os.path.join(mnt, "events", system, "enable"), "1")
            reader = PipeReader(mnt)
            try:
                t0 = time.perf_counter()
                done = subprocess.run(tracefs_sim("exec", "--mount", mnt, "getuid-loop", str(calls)),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                      timeout=300)
                reader.settle()
            finally:
                reader.close()
                for system in SYSTEMS:
                    write(os.path.join(mnt, "events", system, "enable"), "0")
            figure = "sched + raw_syscalls events/s to a trace_pipe reader"
            if done.returncode != 0:
                return [Sample(figure, "events/s", None, f"getuid-loop exit {done.returncode}: "
                               + done.stderr.strip()[-160:])]
            if reader.error:
                return [Sample(figure, "events/s", None, reader.error)]
            if reader.lines == 0:
                return [Sample(figure, "events/s", None, "the reader got no events")]
            return [Sample(figure, "events/s", reader.lines / (reader.last_read - t0)),
                    Sample("events read per getuid call", "events", reader.lines / calls)]
        yield sample
