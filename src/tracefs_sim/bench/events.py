"""events: events per second from the guest to a `trace_pipe` reader, through FUSE.

On a fresh mount (no background workload), sched and raw_syscalls events are enabled, a
`cat trace_pipe` reads, and `tracefs-sim exec dd if=/dev/zero of=/dev/null bs=1 count=N` makes
4N syscall events (a read and a write a block) plus scheduling, and writes nothing to the host
(getuid-loop prints a line a call, each a trip through the control socket that costs more than
the events it makes). The figure is the lines the reader got, over the time from the program's start
to the last line read (the reader must keep up with the guest: this is end to end).  The same
with the `function` tracer on every function instead of the events.

The guest side of the function tracer, without FUSE or a reader (traced.py's kernel and
workload, as the overhead ladder measures it): function events the guest writes per second
(function entries counted by a counting run, over the timed run's time) and the workload's
slowdown with the tracer on, against a run with it off next to it.

The trace core's stages on their own, in-process (no FUSE, no reader), on the guest pages of
a sched + raw_syscalls run of getuid-loop captured once: the drain (pages decoded, events
checked and kept in the buffers) and trace_pipe's text (the CPUs merged, lines formatted, in
128 KiB reads), each as events per second of the thread's own CPU time, so that load from
elsewhere on the box, which stretches wall time, moves them little."""

from __future__ import annotations

import gc
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..daemon import GC_THRESHOLDS
from ..machine import Machine, MachineOptions
from ..machine.contract import GuestPageInfo
from .realtime import realtime_if_permitted
from ..trace.drain import Drain
from ..trace.core import TraceCore
from .ladder import MECHANISMS, Counts
from .launch import mounted, tracefs_sim
from .runner import Sample
from .traced import EventsLost, TracedKernel, set_aside

NAME = "events"
BLOCKS = 50_000
QUICK_BLOCKS = 300
FUNCTION_BLOCKS = 5_000  # a few dozen function entries a block
QUICK_FUNCTION_BLOCKS = 50
FUNCTION_TRACER = next(m for m in MECHANISMS if m.name == "function tracer")
COUNT_BLOCKS, QUICK_COUNT_BLOCKS = 400, 20
TIME_BLOCKS, QUICK_TIME_BLOCKS = 10_000, 1_000
QUIET_S = 0.5  # no line for this long after the program ended: the reader has it all
SYSTEMS = ("sched", "raw_syscalls")
STAGE_CALLS, QUICK_STAGE_CALLS = 20_000, 300
STAGE_BUFFER_KB = 64 * 1024   # holds every captured event: the drain keeps them all
PIPE_READ = 128 * 1024
CAPTURE_WAIT_S = 0.2


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
        assert self._cat.stdout is not None  # (a pipe)
        while data := os.read(self._cat.stdout.fileno(), 1 << 16):
            self.lines += data.count(b"\n")
            self.last_read = time.perf_counter()

    def settle(self) -> None:
        while time.perf_counter() - self.last_read < QUIET_S:
            time.sleep(0.05)

    def close(self) -> None:
        stdout, stderr = self._cat.stdout, self._cat.stderr
        assert stdout is not None and stderr is not None  # (pipes)
        if self._cat.poll() is not None:
            self.error = (f"the trace_pipe reader exited {self._cat.returncode}: "
                          + stderr.read().decode(errors="replace").strip()[-160:])
        self._cat.kill()
        self._cat.wait()
        self._thread.join(5)
        stdout.close()
        stderr.close()


def write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def read_through_fuse(mnt: str, blocks: int, what: str, on: Callable[[], None],
                      off: Callable[[], None]) -> list[Sample]:
    """Lines/s a trace_pipe reader gets while `dd bs=1` copies blocks, with on() done before."""
    figure = f"{what} events/s to a trace_pipe reader"
    on()
    reader = PipeReader(mnt)
    try:
        t0 = time.perf_counter()
        done = subprocess.run(tracefs_sim("exec", "--mount", mnt, "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
                                          f"count={blocks}"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              timeout=300)
        reader.settle()
    finally:
        reader.close()
        off()
    if done.returncode != 0:
        return [Sample(figure, "events/s", None, f"dd exit {done.returncode}: "
                       + done.stderr.strip()[-160:])]
    if reader.error:
        return [Sample(figure, "events/s", None, reader.error)]
    if reader.lines == 0:
        return [Sample(figure, "events/s", None, "the reader got no events")]
    return [Sample(figure, "events/s", reader.lines / (reader.last_read - t0)),
            Sample(f"{what} events read per dd block", "events", reader.lines / blocks)]


HIST_TRIGGER = "hist:keys=common_pid.execname:vals=hitcount"


def with_hist_trigger(mnt: str, blocks: int, systems: Callable[[str], Callable[[], None]],
                      without: list[Sample]) -> list[Sample]:
    """The same read with a hist trigger on raw_syscalls:sys_enter (its map updated in the
    guest at each event), and its events/s over those of `without` (taken just before)."""
    trigger = os.path.join(mnt, "events", "raw_syscalls", "sys_enter", "trigger")

    def on() -> None:
        systems("1")()
        write(trigger, HIST_TRIGGER)

    def off() -> None:
        write(trigger, "!" + HIST_TRIGGER)
        systems("0")()
    with_hist = read_through_fuse(mnt, blocks, f"sched + raw_syscalls, {HIST_TRIGGER} on sys_enter", on, off)
    figure = f"sched + raw_syscalls events/s with {HIST_TRIGGER} on sys_enter, over without"
    base, hist = without[0].value, with_hist[0].value
    if base is None or hist is None:
        return [*with_hist, Sample(figure, "ratio", None, "a read failed")]
    return [*with_hist, Sample(figure, "ratio", hist / base)]


def function_guest_side(k: TracedKernel, counts: Counts, blocks: int) -> list[Sample]:
    figure = "function tracer, every function: events/s written by the guest"
    try:
        off = k.best_of(blocks).seconds
        FUNCTION_TRACER.arm(k)
        try:
            on = k.best_of(blocks).seconds
        finally:
            FUNCTION_TRACER.disarm(k)
    except EventsLost as e:
        return [Sample(figure, "events/s", None, str(e)),
                Sample("function tracer on/off: workload time (slowdown)", "ratio", None, str(e))]
    return [Sample(figure, "events/s", counts.hits_at(FUNCTION_TRACER.name, blocks) / on),
            Sample("function tracer on/off: workload time (slowdown)", "ratio", on / off)]


class _NoSnapshots:
    """The captured run's triggers: none asked for a snapshot."""

    @staticmethod
    def snapshot_requests(slot: int) -> list[int]:
        return []


class _CapturedGuest:
    """Stands in for the guest's rings: hands out the pages captured, once."""

    def __init__(self, pages: list[GuestPageInfo]):
        self._pages = pages
        self.triggers = _NoSnapshots()

    def drain(self, slot: int) -> list[GuestPageInfo]:
        pages, self._pages = self._pages, []
        return pages

    def saved_comms(self) -> dict[int, str]:
        return {}

    def comm_renames(self) -> list[tuple[int, int, str]]:
        return []


class HostStages:
    """The drain and trace_pipe's text on pages captured from a live run, one CPU."""

    def __init__(self, calls: int):
        self.machine = Machine(MachineOptions(cpus=1, workload="none"))
        self.machine.start()
        try:
            self.tracing = TraceCore(self.machine, ftrace_sites=None, kprobe_engine=None)
            self.pages = self._capture(calls)
        except BaseException:
            self.machine.stop()
            raise

    def _capture(self, calls: int) -> list[GuestPageInfo]:
        """The guest pages of the run as the daemon's drain gets them, partly filled ones
        again as they fill (events the guest lost meanwhile change no rate measured on them)."""
        guest, top = self.tracing.guest, self.tracing.top
        for system in SYSTEMS:
            top.events.write_enable(b"1", system)
        pages: list[GuestPageInfo] = []
        done = threading.Event()

        def take() -> None:
            realtime_if_permitted()
            while not done.is_set():
                guest.wait_for_data(CAPTURE_WAIT_S)
                pages.extend(guest.drain(top.slot))
        thread = threading.Thread(target=take, daemon=True)
        thread.start()
        try:
            status = self.machine.spawn(["getuid-loop", str(calls)], lambda output: None).wait(300)
        finally:
            done.set()
            thread.join()
            for system in SYSTEMS:
                top.events.write_enable(b"0", system)
        pages.extend(guest.drain(top.slot))
        if status != 0:
            raise RuntimeError(f"getuid-loop {calls}: exit status {status}")
        return pages

    def sample(self) -> list[Sample]:
        # as in the daemon, whose collector thresholds suit an object per event
        thresholds = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        try:
            return self._sample()
        finally:
            gc.set_threshold(*thresholds)

    def _sample(self) -> list[Sample]:
        top = self.tracing.top
        top.write_buffer_size_kb(b"%d" % STAGE_BUFFER_KB)
        top.clear_trace()
        drain = Drain(_CapturedGuest(list(self.pages)), lambda: [top], self.tracing.cmdlines, self.machine.tasks)
        t = time.thread_time()
        kept = drain.drain_once()
        drained = time.thread_time() - t
        lines = 0
        t = time.thread_time()
        while text := top.consume(None, PIPE_READ):
            lines += text.count(b"\n")
        formatted = time.thread_time() - t
        return [Sample("trace core alone: drain (guest pages decoded, events kept), CPU time", "events/s",
                       kept / drained),
                Sample("trace core alone: trace_pipe text (CPUs merged, lines made), CPU time", "lines/s",
                       lines / formatted)]

    def close(self) -> None:
        self.machine.stop()


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    dd_blocks = QUICK_BLOCKS if quick else BLOCKS
    function_blocks = QUICK_FUNCTION_BLOCKS if quick else FUNCTION_BLOCKS
    blocks = QUICK_TIME_BLOCKS if quick else TIME_BLOCKS
    counts = Counts(QUICK_COUNT_BLOCKS if quick else COUNT_BLOCKS, (FUNCTION_TRACER,))
    with tempfile.TemporaryDirectory(prefix="tracefs-sim-bench-") as mnt, \
            mounted(mnt, "--workload", "none"):
        kernel = TracedKernel()
        stages = None
        try:
            stages = HostStages(QUICK_STAGE_CALLS if quick else STAGE_CALLS)
            def systems(value: str) -> Callable[[], None]:
                def write_all() -> None:
                    for s in SYSTEMS:
                        write(os.path.join(mnt, "events", s, "enable"), value)
                return write_all

            def tracer(name: str) -> Callable[[], None]:
                return lambda: write(os.path.join(mnt, "current_tracer"), name)

            def sample() -> list[Sample]:
                before = kernel.runs_set_aside
                without = read_through_fuse(mnt, dd_blocks, "sched + raw_syscalls", systems("1"), systems("0"))
                return [
                    *without,
                    *with_hist_trigger(mnt, dd_blocks, systems, without),
                    *read_through_fuse(mnt, function_blocks, "function tracer, every function:",
                                       tracer("function"), tracer("nop")),
                    *function_guest_side(kernel, counts, blocks),
                    set_aside(kernel, before),
                    *stages.sample(),
                ]
            yield sample
        finally:
            if stages is not None:
                stages.close()
            kernel.close()
