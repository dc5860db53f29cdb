"""read: `cat trace` MB/s on a full buffer, and trace_pipe latency to a reader.

* A fresh mount (no background workload) records raw_syscalls events from getuid-loop until a
  CPU's buffer has overwritten events (per_cpu/cpuN/stats overrun > 0: full), then tracing_on
  is set to 0 and each sample reads the whole `trace` file in 128 KiB reads.
* Latency: in an instance of its own, numbered lines are written to trace_marker one at a time
  and a `cat trace_pipe` reader timestamps each on arrival: from the start of the host's write
  to the reader, median and p99. (A marker is committed by the write itself; events the
  guest commits carry only the guest's virtual clock, which cannot be compared with the
  reader's.)"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .events import write
from .launch import mounted, tracefs_sim
from .runner import Sample

NAME = "read"
READ_SIZE = 128 * 1024
QUICK_BUFFER_KB = 16
FILL_CALLS = 20_000
FILL_ROUNDS = 10
MARKERS = 200
QUICK_MARKERS = 20
MARKER_GAP_S = 0.005
REPLY_TIMEOUT_S = 10.0


def _full(mnt: str) -> bool:
    cpus = os.listdir(os.path.join(mnt, "per_cpu"))
    for cpu in cpus:
        with open(os.path.join(mnt, "per_cpu", cpu, "stats")) as f:
            for line in f:
                if line.startswith("overrun:") and int(line.split()[1]) > 0:
                    return True
    return False


def _fill(mnt: str) -> None:
    write(os.path.join(mnt, "events", "raw_syscalls", "enable"), "1")
    for _ in range(FILL_ROUNDS):
        subprocess.run(tracefs_sim("exec", "--mount", mnt, "getuid-loop", str(FILL_CALLS)),
                       stdout=subprocess.DEVNULL, check=True, timeout=300)
        if _full(mnt):
            break
    else:
        raise RuntimeError("the trace buffer did not fill")
    write(os.path.join(mnt, "tracing_on"), "0")


def _read_trace(mnt: str) -> tuple[int, float]:
    t0 = time.perf_counter()
    size = 0
    with open(os.path.join(mnt, "trace"), "rb", buffering=0) as f:
        while chunk := f.read(READ_SIZE):
            size += len(chunk)
    return size, time.perf_counter() - t0


def _marker_latencies(instance: str, count: int) -> list[float]:
    """Seconds from each trace_marker write's start to its line reaching the reader. (From its
    return, a loaded host could schedule the reader first and make the figure negative.)"""
    cat = subprocess.Popen(["cat", os.path.join(instance, "trace_pipe")], stdout=subprocess.PIPE)
    lines = cat.stdout
    assert lines is not None  # (a pipe)
    arrived: dict[int, float] = {}
    got_all = threading.Event()

    def reader() -> None:
        for line in lines:
            now = time.perf_counter()
            tail = line.rsplit(b"bench-marker-", 1)
            if len(tail) == 2:
                arrived[int(tail[1])] = now
                if len(arrived) == count:
                    got_all.set()

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    written = {}
    try:
        with open(os.path.join(instance, "trace_marker"), "w", buffering=1) as marker:
            for i in range(count):
                written[i] = time.perf_counter()
                marker.write(f"bench-marker-{i}\n")
                time.sleep(MARKER_GAP_S)
        got_all.wait(REPLY_TIMEOUT_S)
    finally:
        cat.kill()
        cat.wait()
        thread.join(5)
        lines.close()
    return [arrived[i] - written[i] for i in written if i in arrived]


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    markers = QUICK_MARKERS if quick else MARKERS
    with tempfile.TemporaryDirectory(prefix="tracefs-sim-bench-") as mnt, \
            mounted(mnt, "--workload", "none"):
        if quick:
            write(os.path.join(mnt, "buffer_size_kb"), str(QUICK_BUFFER_KB))
        _fill(mnt)
        instance = os.path.join(mnt, "instances", "bench-latency")
        os.mkdir(instance)

        def sample() -> list[Sample]:
            size, elapsed = _read_trace(mnt)
            samples = [Sample("cat trace, full buffer", "MB/s", size / elapsed / 1e6),
                       Sample("trace file size, full buffer", "MB", size / 1e6)]
            latencies = _marker_latencies(instance, markers)
            figure = "trace_marker write -> trace_pipe reader"
            if len(latencies) < markers:
                return samples + [Sample(f"{figure}, median", "ms", None,
                                         f"{markers - len(latencies)} of {markers} markers never arrived")]
            p99 = statistics.quantiles(latencies, n=100)[98]
            return samples + [Sample(f"{figure}, median", "ms", statistics.median(latencies) * 1e3),
                              Sample(f"{figure}, p99", "ms", p99 * 1e3)]
        try:
            yield sample
        finally:
            os.rmdir(instance)
