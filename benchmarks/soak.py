"""Soak: load a mounted simulator for minutes and watch the daemon's memory.

Not run in CI; by hand:

    .venv/bin/python benchmarks/soak.py [--minutes 10] [--interval 10] [--cpus 2]

Mounts `tracefs-sim mount` on a temporary directory (always unmounted: try/finally, and
SIGINT/SIGTERM/SIGHUP end the run through the same path), then runs every phase at once in
worker threads until the time is up, while the main thread samples the daemon's memory
(/proc/PID/status and smaps), thread count and open fds every second, and keeps for each
--interval the sample with the least memory (its floor: transient peaks, such as a `trace`
read's text in flight, lift single samples, a leak lifts them all). Prints those as a table,
each phase's step and failure counts, and a verdict (exit status 1 when the growth is flagged
or the run was interrupted).

The verdict judges RSS without Unicorn's translated code, from the start of the post-warm-up
samples to their end (each end the lowest of a tenth of the samples, so that a transient spike
at either end, such as a `trace` read's text in flight, neither hides nor fakes a leak): it must
grow by at most GROWTH_LIMIT_PERCENT. Translated code is left out because it has a bound of its
own: each emulated CPU writes it into one buffer (machine/cpu.py's TCG_BUFFER_BYTES, an
anonymous rwx mapping) which Unicorn flushes when full and fills again from its start, so its
RSS climbs, as probes and tracers invalidate code and it is translated again, until it reaches
the buffer's size, and no further. The verdict shows how far it has got against that ceiling,
read from the mappings' sizes, and flags a ceiling that grows (a new buffer: a CPU emulator made
and never freed). The judged growth is split into guest RAM (RssShmem: pages the emulated
machine has touched; bounded by its RAM size, but judged: a guest that keeps touching new pages
is a leak in the emulated kernel) and the other host anonymous memory (Python objects, C heaps).

The phases (PHASES below, one entry each) are what the simulator has today:
  events     sched:*, raw_syscalls:*, kmem:* on the top-level buffer;
  instances  mkdir an instance, enable syscalls:* there, read its trace, rmdir, in a loop;
  filters    rewrite filters on sched_switch / sys_enter / kmalloc with valid and bad text;
  pipe       a non-blocking reader draining trace_pipe;
  trace      a reader of the whole `trace` file;
  marker     writes to trace_marker;
  exec       `tracefs-sim exec` of cat, getuid-loop, dd and sleep in turn;
  function   the function tracer on a filter (vfs_*, ksys_*, do_sys_*), then function_graph
             on vfs_read, then nop, in turn;
  kprobes    a kprobe with a string fetch, a kretprobe and a mid-function (optimizable)
             kprobe added and enabled, kprobes-optimization and debugfs's kprobes/list
             exercised through the mount's hidden debug directory, then all removed.

The load is modest on purpose (the pauses in each loop): the point is many repetitions of each
path over a long time, not saturation, and the machine this runs on is shared.

--heap: the daemon also reports its allocators at each sample (through a sitecustomize on
PYTHONPATH, on SIGUSR2): glibc malloc's memory in use and freed-but-kept, pymalloc's blocks in
use, free, and its arenas. A leak grows what is in use; a heap that keeps its high-water mark
(transient peaks, fragmentation) grows only what is kept. At the end, the change of each.
--tracemalloc DIR: as --heap, with tracemalloc on in the daemon and a snapshot at each sample
kept in DIR; at the end the top growth between the post-warm-up snapshot and the last is
printed by file:line and by call path, to name what grows. This slows the daemon and tracemalloc
holds memory of its own, so RSS figures from such a run are not comparable with a plain one.
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from tracefs_sim import control  # noqa: E402

# The installed console script, beside this interpreter (the venv's bin/).
CLI = [str(Path(sys.executable).parent / "tracefs-sim")]

# Growth flagged: more than this share of the post-warm-up RSS without translated code, over
# the run. The fixed part of the daemon's memory (interpreter, libraries, kernel image, the rings
# once filled) is in place by the end of the warm-up; what may still move with no leak is the
# allocators' high-water marks (pymalloc arenas a transient peak left partly filled, glibc heap
# kept), a few MiB of a ~55 MiB daemon. A leak of one small object per event or per request
# (thousands a second) adds far more than 5% over ten minutes. One of a few KiB per control-file
# command (a kprobe defined and removed, 45 a minute here) adds ~2 MiB in ten minutes, under
# the limit: a run of 30 minutes or more (--minutes 30) is what catches those.
GROWTH_LIMIT_PERCENT = 5.0
# Frames of each allocation's call path that --tracemalloc records.
TRACEMALLOC_FRAMES = 8


# --------------------------------------------------------------------------------------------
# Tracefs access: every error is an outcome to count, not a reason to stop the soak.

def _write(path: Path, text: str, append: bool) -> None:
    fd = os.open(path, os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def write(path: Path, text: str, append: bool = False) -> bool:
    try:
        _write(path, text, append)
        return True
    except OSError:
        return False


def must_write(path: Path, text: str, append: bool = False) -> None:
    """A write that must succeed: its failure (with its errno) counts as the phase's."""
    try:
        _write(path, text, append)
    except OSError as e:
        raise OSError(e.errno, f"write of {text!r} to {path.name}: {e.strerror}") from None


def read_all(path: Path) -> int:
    with open(path, "rb") as f:
        return len(f.read())


@dataclass
class Phase:
    """One kind of load: `setup` once, then `step` in a loop (with `pause` between steps) until
    the soak ends, then `teardown` once."""
    name: str
    step: Callable[[Path, int], None]
    pause: float
    setup: Callable[[Path], None] | None = None
    teardown: Callable[[Path], None] | None = None


def events_setup(mnt: Path) -> None:
    for system in ("sched", "raw_syscalls", "kmem"):
        write(mnt / "events" / system / "enable", "1")
    write(mnt / "tracing_on", "1")


def events_step(mnt: Path, i: int) -> None:
    # Toggle one system off and on again so enabling is exercised, not only left on.
    system = ("sched", "raw_syscalls", "kmem")[i % 3]
    write(mnt / "events" / system / "enable", "0")
    write(mnt / "events" / system / "enable", "1")


def events_teardown(mnt: Path) -> None:
    write(mnt / "events" / "enable", "0")


def instances_step(mnt: Path, i: int) -> None:
    inst = mnt / "instances" / f"soak{i % 4}"
    try:
        os.mkdir(inst)
    except OSError:
        return
    try:
        write(inst / "events" / "syscalls" / "enable", "1")
        write(inst / "events" / "sched" / "sched_wakeup" / "enable", "1")
        time.sleep(0.2)
        read_all(inst / "trace")
        write(inst / "trace", "")  # clear
    finally:
        write(inst / "events" / "enable", "0")
        try:
            os.rmdir(inst)
        except OSError:
            pass


FILTERS = [
    ("sched/sched_switch", "prev_pid != 0"),
    ("sched/sched_switch", "next_comm ~ \"sshd*\" || prev_prio < 100"),
    ("raw_syscalls/sys_enter", "id == 102"),
    ("raw_syscalls/sys_enter", "id >= 0 && id < 500"),
    ("kmem/kmalloc", "bytes_req > 64"),
    ("sched/sched_switch", "no_such_field == 1"),  # rejected: EINVAL, error_log grows
    ("raw_syscalls/sys_enter", "id == "),          # rejected
    ("sched/sched_switch", "0"),                   # clears
    ("raw_syscalls/sys_enter", "0"),
    ("kmem/kmalloc", "0"),
]


def filters_step(mnt: Path, i: int) -> None:
    event, text = FILTERS[i % len(FILTERS)]
    write(mnt / "events" / event / "filter", text)
    if i % 50 == 0:
        write(mnt / "error_log", "")  # cleared now and then, as a user would


class PipeReader:
    """Drains trace_pipe with O_NONBLOCK so the soak can stop it without a signal."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.bytes = 0

    def setup(self, mnt: Path) -> None:
        self.fd = os.open(mnt / "trace_pipe", os.O_RDONLY | os.O_NONBLOCK)

    def step(self, mnt: Path, i: int) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError as e:
                if e.errno == errno.EAGAIN:
                    return
                raise
            if not data:
                return
            self.bytes += len(data)

    def teardown(self, mnt: Path) -> None:
        if self.fd is not None:
            os.close(self.fd)


def trace_step(mnt: Path, i: int) -> None:
    read_all(mnt / "trace")


def marker_step(mnt: Path, i: int) -> None:
    write(mnt / "trace_marker", f"soak marker {i} " + "x" * (i % 200), append=True)


EXEC_PROGRAMS = [["cat", "/proc/version"], ["getuid-loop", "20000"],
                 ["dd", "if=/dev/zero", "of=/dev/null", "bs=4096", "count=200"], ["sleep", "1"]]


def exec_step_for(timeout: float) -> Callable[[Path, int], None]:
    def step(mnt: Path, i: int) -> None:
        argv = EXEC_PROGRAMS[i % len(EXEC_PROGRAMS)]
        subprocess.run(CLI + ["exec", "--mount", str(mnt), *argv], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=timeout, cwd=REPO)
    return step


FUNCTION_STEPS = [("function", "vfs_*"), ("function", "ksys_*"), ("function", "do_sys_*"),
                  ("function_graph", None), ("nop", None)]


def function_step(mnt: Path, i: int) -> None:
    tracer, pattern = FUNCTION_STEPS[i % len(FUNCTION_STEPS)]
    if pattern is not None:
        must_write(mnt / "set_ftrace_filter", pattern)
    elif tracer == "function_graph":
        must_write(mnt / "set_ftrace_filter", "")        # O_TRUNC: all functions again
        must_write(mnt / "set_graph_function", "vfs_read")
    must_write(mnt / "current_tracer", tracer)
    if tracer == "nop":
        must_write(mnt / "set_graph_function", "")


def function_teardown(mnt: Path) -> None:
    write(mnt / "current_tracer", "nop")
    write(mnt / "set_ftrace_filter", "")
    write(mnt / "set_graph_function", "")


KPROBES = ["p:soak/open do_sys_openat2 name=+0(%si):ustring flags=%dx:x32",
           "r:soak/readret vfs_read ret=$retval",
           "p:soak/mid do_sys_openat2+6"]
# The emulated kernel's /proc/sys/debug and debugfs kprobes/, as the daemon serves them.
DEBUG_VIEWS = Path(".tracefs-sim-debug")


def kprobes_step(mnt: Path, i: int) -> None:
    phase = i % 4
    if phase == 0:
        for spec in KPROBES:
            must_write(mnt / "kprobe_events", spec, append=True)
        must_write(mnt / "events" / "soak" / "enable", "1")
    elif phase == 1:
        must_write(mnt / DEBUG_VIEWS / "sysctl-debug" / "kprobes-optimization", "0")
        read_all(mnt / DEBUG_VIEWS / "kprobes" / "list")
        read_all(mnt / "kprobe_profile")
    elif phase == 2:
        must_write(mnt / DEBUG_VIEWS / "sysctl-debug" / "kprobes-optimization", "1")
        read_all(mnt / DEBUG_VIEWS / "kprobes" / "list")
    else:
        kprobes_teardown(mnt)


def kprobes_teardown(mnt: Path) -> None:
    write(mnt / "events" / "soak" / "enable", "0")
    for spec in KPROBES:
        write(mnt / "kprobe_events", "-:" + spec.split()[0].split(":")[1], append=True)


def make_phases() -> list[Phase]:
    pipe = PipeReader()
    return [
        Phase("events", events_step, 5.0, events_setup, events_teardown),
        Phase("instances", instances_step, 1.0),
        Phase("filters", filters_step, 0.2),
        Phase("pipe", pipe.step, 0.1, pipe.setup, pipe.teardown),
        Phase("trace", trace_step, 2.0),
        Phase("marker", marker_step, 0.05),
        Phase("exec", exec_step_for(60.0), 0.5),
        Phase("function", function_step, 2.0, teardown=function_teardown),
        Phase("kprobes", kprobes_step, 1.0, teardown=kprobes_teardown),
    ]


class Worker(threading.Thread):
    def __init__(self, phase: Phase, mnt: Path, stop: threading.Event):
        super().__init__(name=f"soak-{phase.name}", daemon=True)
        self.phase, self.mnt, self.stop = phase, mnt, stop
        self.steps = 0
        self.failures = 0
        self.last_error = ""

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.phase.step(self.mnt, self.steps)
            except (OSError, subprocess.SubprocessError) as e:
                self.failures += 1
                self.last_error = f"{type(e).__name__}: {e}"
            self.steps += 1
            self.stop.wait(self.phase.pause)


# --------------------------------------------------------------------------------------------
# Sampling

@dataclass
class Sample:
    t: float          # seconds since the load started
    rss_kib: int      # VmRSS
    anon_kib: int     # RssAnon: the host heaps (Python objects, Unicorn's translation caches)
    guest_kib: int    # RssShmem: the emulated machine's RAM (a shared anonymous mapping, the
                      # daemon's only shared memory), i.e. guest pages touched so far
    tcg_kib: int      # of RssAnon, Unicorn's translated-code buffers (one per emulated CPU, the
                      # process's only anonymous rwx mappings)
    tcg_ceiling_kib: int  # the size of those buffers: what tcg_kib can reach, since Unicorn
                          # flushes a full buffer and writes it again from its start
    threads: int
    fds: int

    @property
    def judged_kib(self) -> int:
        """What must stay flat: RSS without the translated code, which has its own bound."""
        return self.rss_kib - self.tcg_kib


def sample(pid: int, t: float) -> Sample:
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.split()
    tcg_kib, tcg_ceiling_kib = code_buffers_kib(pid)
    return Sample(t, int(fields["VmRSS"][0]), int(fields["RssAnon"][0]),
                  int(fields["RssShmem"][0]), tcg_kib, tcg_ceiling_kib, int(fields["Threads"][0]),
                  len(os.listdir(f"/proc/{pid}/fd")))


# Within each --interval the daemon is sampled this often, and the row is the sample with the
# least judged memory: a `trace` read's text, a batch of records in flight, garbage not yet
# collected are transient and lift single samples by a few MiB, while a leak lifts them all.
SUB_SAMPLE_SECONDS = 1.0


def interval_floor(pid: int, t0: float, end: float) -> Sample:
    """Samples every SUB_SAMPLE_SECONDS from now until `end` (seconds since t0; at least one):
    the one with the least judged memory, timed at the interval's end."""
    floor = None
    while True:
        s = sample(pid, time.monotonic() - t0)
        if floor is None or s.judged_kib < floor.judged_kib:
            floor = s
        left = end - (time.monotonic() - t0)
        if left <= 0:
            return replace(floor, t=time.monotonic() - t0)
        time.sleep(min(SUB_SAMPLE_SECONDS, left))


def code_buffers_kib(pid: int) -> tuple[int, int]:
    """(Rss, Size) of the anonymous rwx mappings: where Unicorn (QEMU's TCG) writes translated
    code, one buffer per emulated CPU."""
    rss = size = 0
    in_code = False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if not parts[0].endswith(":"):  # a mapping: range perms offset dev inode [path]
                in_code = parts[1] == "rwxp" and len(parts) == 5
            elif in_code and parts[0] == "Rss:":
                rss += int(parts[1])
            elif in_code and parts[0] == "Size:":
                size += int(parts[1])
    return rss, size


# Each end of the judged span is the lowest of this share of the post-warm-up samples (at least
# one): a `trace` read in flight when a sample is taken holds the whole text for a moment, an
# upward spike that says nothing about a leak, while a leak raises every later sample, the
# lowest included.
END_WINDOW_SHARE = 0.1


def verdict(samples: list[Sample], warmup: float) -> tuple[str, bool]:
    """(text, flagged): the growth of RSS without translated code between the two ends of the
    samples taken at or after `warmup`; translated code is shown against its ceiling, and a
    ceiling that grows (a new code buffer: a CPU emulator made and never freed) is flagged."""
    after = [s for s in samples if s.t >= warmup]
    if len(after) < 2:
        return "verdict: too few samples after the warm-up to judge", False
    n = max(1, round(len(after) * END_WINDOW_SHARE))
    first = min(after[:n], key=lambda s: s.judged_kib)
    last = min(after[-n:], key=lambda s: s.judged_kib)
    percent = 100.0 * (last.judged_kib - first.judged_kib) / first.judged_kib
    grew = percent > GROWTH_LIMIT_PERCENT
    new_code_buffers = after[-1].tcg_ceiling_kib > after[0].tcg_ceiling_kib

    def mib(kib: int) -> str:
        return f"{kib / 1024:.1f} MiB"

    def change(kib: int) -> str:
        return f"{kib / 1024:+.1f} MiB"

    if grew:
        judgement = f"GROWTH above {GROWTH_LIMIT_PERCENT:.0f}%"
    elif new_code_buffers:
        judgement = "GROWTH of the translated-code ceiling"
    else:
        judgement = f"flat (limit {GROWTH_LIMIT_PERCENT:.0f}%)"
    # Guest RAM grows at most to the RAM size, and is judged all the same: a guest that keeps
    # touching new pages is a leak in the emulated kernel. The rest of the judged memory is the
    # daemon's own (Python objects, C heaps, libraries' pages).
    other = (last.anon_kib - last.tcg_kib) - (first.anon_kib - first.tcg_kib)
    window = f"lowest of {n} samples at each end" if n > 1 else "first and last sample"
    text = (f"verdict: RSS {mib(after[0].rss_kib)} at {after[0].t:.0f} s -> {mib(after[-1].rss_kib)} "
            f"at {after[-1].t:.0f} s; without translated code ({window}) {mib(first.judged_kib)} at "
            f"{first.t:.0f} s -> {mib(last.judged_kib)} at {last.t:.0f} s: "
            f"{change(last.judged_kib - first.judged_kib)} ({percent:+.1f}%); "
            f"threads {after[0].threads}->{after[-1].threads}, fds {after[0].fds}->{after[-1].fds}; "
            f"{judgement}"
            f"\n  of which guest RAM {change(last.guest_kib - first.guest_kib)}, other host anon "
            f"{change(other)}; translated code (bounded, not judged) "
            f"{change(after[-1].tcg_kib - after[0].tcg_kib)}, {mib(after[-1].tcg_kib)} of its "
            f"{mib(after[-1].tcg_ceiling_kib)} ceiling")
    return text, grew or new_code_buffers


# --------------------------------------------------------------------------------------------
# Looking inside the daemon without touching its code: a sitecustomize on PYTHONPATH, run by
# `tracefs-sim mount` (the daemon is its fork), that on SIGUSR2 writes the allocators' figures
# (glibc malloc's mallinfo2, pymalloc's arenas) and, when tracemalloc was asked for, a snapshot.
# The figures split "other host anon" into memory in use and memory freed but kept by an
# allocator, which is what tells a leak from a heap that has kept its high-water mark.

SITECUSTOMIZE = """\
import os
if os.environ.get("TRACEFS_SIM_SOAK_DIAG"):
    import ctypes, json, signal, sys, tempfile
    _FRAMES = int(os.environ.get("TRACEFS_SIM_SOAK_FRAMES", "0"))
    if _FRAMES:
        import tracemalloc
        tracemalloc.start(_FRAMES)

    class _Mallinfo2(ctypes.Structure):  # glibc's struct mallinfo2 (2.33+): ten size_t
        _fields_ = [(name, ctypes.c_size_t) for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
            "fordblks", "keepcost")]

    _libc = ctypes.CDLL(None)
    _mallinfo2 = getattr(_libc, "mallinfo2", None)
    if _mallinfo2 is not None:
        _mallinfo2.restype = _Mallinfo2
    _PYMALLOC = {"# bytes in allocated blocks": "py_used", "# bytes in available blocks": "py_free"}
    _count = [0]

    def _pymalloc_figures():
        # sys._debugmallocstats() prints to C's stderr, so it gets a file for the call (a line
        # another thread logs meanwhile lands there too: a diagnostic run's price).
        with tempfile.TemporaryFile() as f:
            sys.stderr.flush()
            saved = os.dup(2)
            os.dup2(f.fileno(), 2)
            try:
                sys._debugmallocstats()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            f.seek(0)
            text = f.read().decode(errors="replace")
        out = {}
        for line in text.splitlines():
            key, _, value = line.rpartition("=")
            if key.strip() in _PYMALLOC:
                out[_PYMALLOC[key.strip()]] = int(value.strip().replace(",", ""))
            elif key.strip().endswith(" bytes/arena"):   # "N arenas * SIZE bytes/arena = TOTAL"
                out["py_arenas"] = int(value.strip().replace(",", ""))
        return out

    def _dump(signum, frame):
        _count[0] += 1
        base = os.path.join(os.environ["TRACEFS_SIM_SOAK_DIAG"], "%d-%04d" % (os.getpid(), _count[0]))
        figures = _pymalloc_figures()
        if _mallinfo2 is not None:
            info = _mallinfo2()
            figures.update(malloc_used=info.uordblks + info.hblkhd, malloc_free=info.fordblks)
        if _FRAMES:
            tracemalloc.take_snapshot().dump(base + ".pickle")
        with open(base + ".tmp", "w") as f:
            json.dump(figures, f)
        os.rename(base + ".tmp", base + ".json")  # last: the soak waits for it

    signal.signal(signal.SIGUSR2, _dump)
"""


def diagnostics_env(directory: Path, tracemalloc_frames: int) -> dict[str, str]:
    site = directory / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "TRACEFS_SIM_SOAK_DIAG": str(directory),
            "TRACEFS_SIM_SOAK_FRAMES": str(tracemalloc_frames)}


@dataclass
class HeapFigures:
    """What the daemon's allocators hold (bytes; None: that allocator gave no figures, as
    pymalloc under tracemalloc, whose hooks hide it, or a libc without mallinfo2), and its
    tracemalloc snapshot if taken."""
    malloc_used: int | None       # glibc malloc: blocks in use, heap and mmapped
    malloc_free: int | None       # glibc malloc: freed blocks it keeps in its heaps
    py_used: int | None           # pymalloc: blocks in use (objects of up to 512 bytes)
    py_free: int | None           # pymalloc: free blocks in its arenas
    py_arenas_bytes: int | None   # pymalloc: arenas held (one goes back only when all free)
    snapshot: Path | None


def heap_figures_now(pid: int, directory: Path, timeout: float = 60.0) -> HeapFigures | None:
    before = set(directory.glob(f"{pid}-*.json"))
    os.kill(pid, signal.SIGUSR2)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        new = set(directory.glob(f"{pid}-*.json")) - before
        if new:
            path = max(new)
            with open(path) as f:
                fig = json.load(f)
            snapshot = path.with_suffix(".pickle")
            return HeapFigures(fig.get("malloc_used"), fig.get("malloc_free"), fig.get("py_used"),
                               fig.get("py_free"), fig.get("py_arenas"),
                               snapshot if snapshot.exists() else None)
        time.sleep(0.2)
    return None


HEAP_FIELDS = ("malloc_used", "malloc_free", "py_used", "py_free", "py_arenas_bytes")
HEAP_COLUMNS = f"{'m_used':>7} {'m_free':>7} {'py_used':>7} {'py_free':>7} {'py_arenas':>9}"


def heap_row(h: HeapFigures | None) -> str:
    if h is None:
        return "(no answer)"
    widths = (7, 7, 7, 7, 9)
    values = (getattr(h, name) for name in HEAP_FIELDS)
    return " ".join(f"{'-':>{w}}" if v is None else f"{v / 1024 / 1024:{w}.1f}" for v, w in zip(values, widths))


def report_heap(first: HeapFigures, last: HeapFigures) -> None:
    labels = ("malloc in use", "malloc freed but kept", "pymalloc in use", "pymalloc free",
              "pymalloc arenas")
    changes = []
    for name, label in zip(HEAP_FIELDS, labels):
        a, b = getattr(first, name), getattr(last, name)
        changes.append(f"{label} " + ("-" if a is None or b is None else f"{(b - a) / 1024 / 1024:+.1f} MiB"))
    print("\nallocators, first sample after the warm-up -> last: " + ", ".join(changes))


def report_growth(first: Path, last: Path, top: int = 10) -> None:
    """The traced Python heap's growth, by allocation site (file:line) and by call path (a
    leak reached from several callers shows in the first, its cause in the second)."""
    import tracemalloc
    ignore = [tracemalloc.Filter(False, tracemalloc.__file__),
              tracemalloc.Filter(False, "<frozen importlib._bootstrap>")]
    old = tracemalloc.Snapshot.load(str(first)).filter_traces(ignore)
    new = tracemalloc.Snapshot.load(str(last)).filter_traces(ignore)
    total = sum(t.size for t in new.traces) - sum(t.size for t in old.traces)
    print(f"\ntracemalloc: {first.name} -> {last.name}: traced heap {total / 1024 / 1024:+.1f} MiB")
    print("by allocation site:")
    for stat in new.compare_to(old, "lineno")[:top]:
        frame = stat.traceback[0]
        print(f"  {stat.size_diff / 1024:+10.1f} KiB {stat.count_diff:+8d} blocks  "
              f"{frame.filename}:{frame.lineno}")
    print("by call path:")
    for stat in new.compare_to(old, "traceback")[:top // 2]:
        print(f"  {stat.size_diff / 1024:+10.1f} KiB {stat.count_diff:+8d} blocks")
        for line in stat.traceback.format(limit=6):
            print("      " + line)


# --------------------------------------------------------------------------------------------

def is_mounted(mnt: Path) -> bool:
    with open("/proc/self/mounts") as f:
        return any(line.split()[1] == str(mnt) for line in f)


class Stop(Exception):
    pass


def _on_signal(signum, frame) -> None:
    raise Stop(signal.Signals(signum).name)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--interval", type=float, default=10.0, help="seconds between samples")
    p.add_argument("--warmup", type=float, default=None,
                   help="seconds of load before the reference sample (default: 1/10 of the run, "
                        "at most 60)")
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--phases", default=None, metavar="NAME,...",
                   help="run only these phases (default: all), to find which one a growth follows")
    p.add_argument("--heap", action="store_true",
                   help="ask the daemon's allocators (glibc malloc, pymalloc) at each sample")
    p.add_argument("--tracemalloc", metavar="DIR", default=None,
                   help="as --heap, and snapshot the daemon's Python allocations into DIR; "
                        "report the top growth")
    args = p.parse_args(argv)
    duration = args.minutes * 60
    chosen = None if args.phases is None else set(args.phases.split(","))
    known = {phase.name for phase in make_phases()}
    if chosen is not None and not chosen <= known:
        p.error(f"unknown phases {', '.join(sorted(chosen - known))}; known: {', '.join(sorted(known))}")
    warmup = args.warmup if args.warmup is not None else min(60.0, duration / 10)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _on_signal)

    env = dict(os.environ)
    env.pop(control.ENV_VAR, None)  # name the mount by its directory, not an outer session
    tmp = tempfile.mkdtemp(prefix="tsim-soak-")
    diagdir = None
    if args.tracemalloc:
        diagdir = Path(args.tracemalloc).resolve()
        env.update(diagnostics_env(diagdir, TRACEMALLOC_FRAMES))
    elif args.heap:
        diagdir = Path(tempfile.mkdtemp(prefix="tsim-soak-heap-"))
        env.update(diagnostics_env(diagdir, 0))

    mnt = Path(tmp) / "tracing"
    mnt.mkdir()
    mounted = False
    stop = threading.Event()
    workers: list[Worker] = []
    phases: list[Phase] = []
    samples: list[Sample] = []
    heaps: list[tuple[float, HeapFigures]] = []
    interrupted = None
    try:
        subprocess.run(CLI + ["mount", "--cpus", str(args.cpus), str(mnt)], check=True, env=env,
                       cwd=REPO)
        mounted = True
        pid = control.daemon_from_pidfile(control.mount_socket_path(str(mnt)))
        if pid is None:
            raise RuntimeError("no live daemon in the pidfile after mount")
        print(f"# daemon pid {pid}, mount {mnt}, {args.minutes:g} min, sample every "
              f"{args.interval:g} s, warm-up {warmup:g} s", flush=True)

        phases = [phase for phase in make_phases() if chosen is None or phase.name in chosen]
        for phase in phases:
            if phase.setup:
                phase.setup(mnt)
        workers = [Worker(phase, mnt, stop) for phase in phases]
        t0 = time.monotonic()
        for w in workers:
            w.start()

        print(f"{'time_s':>7} {'rss_mib':>8} {'anon_mib':>8} {'tcg_mib':>8} {'guest_mib':>9} "
              f"{'threads':>7} {'fds':>5}" + ("  " + HEAP_COLUMNS if diagdir else ""), flush=True)
        end = 0.0
        while True:
            s = interval_floor(pid, t0, end)
            t = s.t
            samples.append(s)
            row = (f"{s.t:7.1f} {s.rss_kib / 1024:8.1f} {s.anon_kib / 1024:8.1f} "
                   f"{s.tcg_kib / 1024:8.1f} {s.guest_kib / 1024:9.1f} {s.threads:7d} {s.fds:5d}")
            if diagdir:
                heap = heap_figures_now(pid, diagdir)
                if heap:
                    heaps.append((t, heap))
                row += "  " + heap_row(heap)
            print(row, flush=True)
            if end >= duration:
                break
            end = min(end + args.interval, duration)
    except Stop as e:
        interrupted = str(e)
    finally:
        # Stop the load first; the workers' steps are short (exec has its own timeout).
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        stop.set()
        for w in workers:
            w.join(timeout=90)
        if mounted or is_mounted(mnt):  # a signal may land after the mount, before `mounted`
            for phase in phases:
                if phase.teardown:
                    try:
                        phase.teardown(mnt)
                    except OSError:
                        pass
            subprocess.run(CLI + ["umount", str(mnt)], env=env, cwd=REPO)
        try:
            mnt.rmdir()
            os.rmdir(tmp)
        except OSError:
            print(f"# could not remove {tmp} (still mounted?)", file=sys.stderr)
        if diagdir and not args.tracemalloc:
            shutil.rmtree(diagdir, ignore_errors=True)

    print("\nphase       steps  failures  last failure")
    for w in workers:
        print(f"{w.phase.name:<10} {w.steps:6d} {w.failures:9d}  {w.last_error[:70]}")
    if interrupted:
        print(f"\n# interrupted by {interrupted}")
    text, flagged = verdict(samples, warmup)
    print("\n" + text)
    after = [heap for t, heap in heaps if t >= warmup]
    if len(after) >= 2:
        report_heap(after[0], after[-1])
        if after[0].snapshot and after[-1].snapshot:
            report_growth(after[0].snapshot, after[-1].snapshot)
    return 1 if flagged or interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
