"""Soak: load a mounted simulator for minutes and watch the daemon's memory.

Not run in CI; by hand:

    .venv/bin/python benchmarks/soak.py [--minutes 10] [--interval 10] [--cpus 2]

Mounts `tracefs-sim mount` on a temporary directory (always unmounted: try/finally, and
SIGINT/SIGTERM/SIGHUP end the run through the same path), then runs every phase at once in
worker threads until the time is up, while the main thread samples the daemon's memory
(/proc/PID/status and smaps), thread count and open fds every --interval seconds. Prints the
samples as a table, each phase's step and failure counts, and a verdict (exit status 1 when
the growth is flagged or the run was interrupted): RSS growth between the first sample after the warm-up and the last one, split
into guest RAM (RssShmem: the emulated machine's memory, pages the guest has touched; bounded by
its RAM size), Unicorn's translated code (bounded by its TCG buffer, 1 GiB per CPU by default)
and the other host anonymous memory (Python objects, C heaps), which is what must stay flat.

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

--tracemalloc DIR: run the daemon with tracemalloc on (through a sitecustomize on PYTHONPATH)
and have it write a snapshot at each sample; at the end the top growth between the
post-warm-up snapshot and the last is printed by file:line, to name what grows. This slows the
daemon, so RSS figures from such a run are not comparable with a plain one.
"""
from __future__ import annotations

import argparse
import errno
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from tracefs_sim import control  # noqa: E402

# The installed console script, beside this interpreter (the venv's bin/).
CLI = [str(Path(sys.executable).parent / "tracefs-sim")]

# Growth flagged: more than this share of the post-warm-up RSS over the run. The fixed part of
# the daemon's RSS (interpreter, libraries, kernel image, first translations, the rings once
# filled) is in place by the end of the warm-up; what may still move with no leak is pymalloc
# arenas and glibc heap fragmentation, which settle at a few MiB, a few % of a ~60 MiB daemon.
# A leak of one small object per event or per request (thousands a second) adds far more than
# 5% over ten minutes, so 5% separates the two with margin on either side.
GROWTH_LIMIT_PERCENT = 5.0


# --------------------------------------------------------------------------------------------
# Tracefs access: every error is an outcome to count, not a reason to stop the soak.

def write(path: Path, text: str, append: bool = False) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
        return True
    except OSError:
        return False


def must_write(path: Path, text: str, append: bool = False) -> None:
    """A write that must succeed: its failure counts as the phase's."""
    if not write(path, text, append):
        raise OSError(f"write of {text!r} to {path.name} refused")


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
    threads: int
    fds: int


def sample(pid: int, t: float) -> Sample:
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.split()
    return Sample(t, int(fields["VmRSS"][0]), int(fields["RssAnon"][0]),
                  int(fields["RssShmem"][0]), code_buffer_kib(pid), int(fields["Threads"][0]),
                  len(os.listdir(f"/proc/{pid}/fd")))


def code_buffer_kib(pid: int) -> int:
    """Rss of the anonymous rwx mappings: where Unicorn (QEMU's TCG) writes translated code."""
    total, in_code = 0, False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if not parts[0].endswith(":"):  # a mapping: range perms offset dev inode [path]
                in_code = parts[1] == "rwxp" and len(parts) == 5
            elif in_code and parts[0] == "Rss:":
                total += int(parts[1])
    return total


def verdict(samples: list[Sample], warmup: float) -> tuple[str, bool]:
    """(text, flagged): RSS growth from the first sample at or after `warmup` to the last."""
    after = [s for s in samples if s.t >= warmup]
    if len(after) < 2:
        return "verdict: too few samples after the warm-up to judge", False
    first, last = after[0], after[-1]
    grew = (last.rss_kib - first.rss_kib) / 1024
    percent = 100.0 * (last.rss_kib - first.rss_kib) / first.rss_kib
    flagged = percent > GROWTH_LIMIT_PERCENT

    def mib(kib: int) -> str:
        return f"{kib / 1024:+.1f} MiB"

    # Guest RAM and translated code grow to bounds of their own (RAM size, TCG buffer size);
    # the other host memory has none, so the split says which kind of growth this is.
    other = (last.anon_kib - last.tcg_kib) - (first.anon_kib - first.tcg_kib)
    text = (f"verdict: RSS {first.rss_kib / 1024:.1f} MiB at {first.t:.0f} s -> "
            f"{last.rss_kib / 1024:.1f} MiB at {last.t:.0f} s: {grew:+.1f} MiB ({percent:+.1f}%); "
            f"threads {first.threads}->{last.threads}, fds {first.fds}->{last.fds}; "
            + (f"GROWTH above {GROWTH_LIMIT_PERCENT:.0f}%" if flagged
               else f"flat (limit {GROWTH_LIMIT_PERCENT:.0f}%)")
            + f"\n  of which guest RAM {mib(last.guest_kib - first.guest_kib)}, translated code "
              f"{mib(last.tcg_kib - first.tcg_kib)}, other host anon {mib(other)}")
    return text, flagged


# --------------------------------------------------------------------------------------------
# tracemalloc in the daemon, without touching the daemon's code: a sitecustomize that starts
# tracemalloc in the `tracefs-sim mount` process (the daemon is its fork) and dumps a snapshot
# on SIGUSR2.

SITECUSTOMIZE = '''\
import os
if os.environ.get("TRACEFS_SIM_SOAK_TRACEMALLOC"):
    import signal, tracemalloc
    tracemalloc.start(int(os.environ.get("TRACEFS_SIM_SOAK_FRAMES", "8")))
    _count = [0]
    def _dump(signum, frame):
        _count[0] += 1
        path = os.path.join(os.environ["TRACEFS_SIM_SOAK_TRACEMALLOC"],
                            "snap-%d-%04d.pickle" % (os.getpid(), _count[0]))
        tracemalloc.take_snapshot().dump(path + ".tmp")
        os.rename(path + ".tmp", path)
    signal.signal(signal.SIGUSR2, _dump)
'''


def tracemalloc_env(directory: Path) -> dict[str, str]:
    site = directory / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "TRACEFS_SIM_SOAK_TRACEMALLOC": str(directory)}


def snapshot_now(pid: int, directory: Path, timeout: float = 60.0) -> Path | None:
    before = set(directory.glob("snap-*.pickle"))
    os.kill(pid, signal.SIGUSR2)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        new = set(directory.glob("snap-*.pickle")) - before
        if new:
            return max(new)
        time.sleep(0.2)
    return None


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
    p.add_argument("--tracemalloc", metavar="DIR", default=None,
                   help="snapshot the daemon's allocations into DIR and report the top growth")
    args = p.parse_args(argv)
    duration = args.minutes * 60
    warmup = args.warmup if args.warmup is not None else min(60.0, duration / 10)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _on_signal)

    env = dict(os.environ)
    env.pop(control.ENV_VAR, None)  # name the mount by its directory, not an outer session
    snapdir = Path(args.tracemalloc).resolve() if args.tracemalloc else None
    if snapdir:
        env.update(tracemalloc_env(snapdir))

    tmp = tempfile.mkdtemp(prefix="tsim-soak-")
    mnt = Path(tmp) / "tracing"
    mnt.mkdir()
    mounted = False
    stop = threading.Event()
    workers: list[Worker] = []
    phases: list[Phase] = []
    samples: list[Sample] = []
    snaps: list[tuple[float, Path]] = []
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

        phases = make_phases()
        for phase in phases:
            if phase.setup:
                phase.setup(mnt)
        workers = [Worker(phase, mnt, stop) for phase in phases]
        t0 = time.monotonic()
        for w in workers:
            w.start()

        print(f"{'time_s':>7} {'rss_mib':>8} {'anon_mib':>8} {'tcg_mib':>8} {'guest_mib':>9} "
              f"{'threads':>7} {'fds':>5}", flush=True)
        while True:
            t = time.monotonic() - t0
            s = sample(pid, t)
            samples.append(s)
            print(f"{s.t:7.1f} {s.rss_kib / 1024:8.1f} {s.anon_kib / 1024:8.1f} "
                  f"{s.tcg_kib / 1024:8.1f} {s.guest_kib / 1024:9.1f} {s.threads:7d} {s.fds:5d}",
                  flush=True)
            if snapdir:
                snap = snapshot_now(pid, snapdir)
                if snap:
                    snaps.append((t, snap))
            if t >= duration:
                break
            time.sleep(min(args.interval, max(0.0, duration - t)))
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

    print("\nphase       steps  failures  last failure")
    for w in workers:
        print(f"{w.phase.name:<10} {w.steps:6d} {w.failures:9d}  {w.last_error[:70]}")
    if interrupted:
        print(f"\n# interrupted by {interrupted}")
    text, flagged = verdict(samples, warmup)
    print("\n" + text)
    if snapdir:
        after = [path for t, path in snaps if t >= warmup]
        if len(after) >= 2:
            report_growth(after[0], after[-1])
    return 1 if flagged or interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
