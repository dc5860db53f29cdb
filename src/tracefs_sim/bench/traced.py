"""A machine with the trace core and the kprobe engine wired to it as daemon.py wires them
(FtraceSites shared by the function tracers and the kprobes; no FUSE), and the fixed workload
the probe benchmarks run on it.

Probes and tracers are set through the trace core's file-level methods (what a write to
kprobe_events, current_tracer or an event's enable does), so the benchmarks follow whatever
the engines do underneath.  The workload is `dd if=/dev/zero of=/dev/null bs=1 count=N`: two
syscalls per block, vfs_read once per block, no output to the host.

Two ways to run it: timed (no instrumentation) and counted (a counting hook on every guest
instruction, on a seeded machine so that a run is the same instruction stream each time;
it also counts how often chosen addresses execute: the hits).

A timed run gives its wall time and its host CPU time (the process's: the emulating thread,
plus the drain thread's few microseconds a page).  What a probe adds is the difference of two
such times, a few percent of a run: on a busy box the wall time also holds however long the
other processes kept the cores (here 2-4x the CPU time under a load of 6, varying from run to
run by more than a probe adds), while the CPU time varies by a few percent.  So comparisons
(side_by_side) use the CPU time, interleave runs with and without the thing measured, and take
the least of each: the least disturbed runs, measured in the same stretch of the box's load.

The guest's ring holds 8 pages per CPU (a few milliseconds of function events): a thread
hands its pages back as they fill, as the daemon's drain loop does, so that every event takes
the guest's write path and not its "ring full, event lost" one (under SCHED_FIFO when
permitted, see realtime_if_permitted).  It does not decode them (that is a reader's cost: the
`events` and `read` benchmarks).  It counts the events the guest lost;
a run that lost any measured the dropping of events, not their writing: timed runs that lost
some are set aside, and a counting run that lost some is an error."""

from __future__ import annotations

import struct
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from unicorn import UC_HOOK_BLOCK, UC_HOOK_CODE, Uc

from ..machine import Machine, MachineOptions
from ..machine.cpu import Cpu
from ..machine.paging import kernel_virt_to_phys
from ..stack import build_stack
from .realtime import realtime_if_permitted
from .runner import Sample

PROBED = "vfs_read"  # once per dd block
WAIT_S = 300.0
BEST_OF = 3
MAX_RUNS = 3 * BEST_OF  # runs best_of may make to get BEST_OF that lost no event
PAIRS = 9  # side_by_side: runs with and runs without, alternated (the least of 9 is near the floor)
DRAIN_WAIT_S = 0.2  # one wait for a doorbell (bounds how long close() takes)
# a counting run hands the pages back every this many instructions: a page of function
# events takes ~30,000, the ring's 8 pages ~240,000
TAKE_EVERY_INSNS = 10_000
TAKE_EVERY_BLOCKS = 2_000


class EventsLost(RuntimeError):
    """The guest's ring was full: events took the lost path, so the run did not measure the
    write path."""

    def __init__(self, lost: int, runs: int = 1):
        super().__init__(f"{lost} events lost (ring full: the host drain fell behind the guest) in "
                         + ("the run" if runs == 1 else f"{runs} runs, every one of them"))
        self.lost = lost


@dataclass(frozen=True)
class Best:
    seconds: float  # the fastest run that lost no event
    runs: int  # runs made, set-aside ones included (a kprobe's hits are counted over all)


@dataclass(frozen=True)
class Run:
    wall: float  # seconds from spawn to exit
    cpu: float  # host CPU seconds the process spent meanwhile


@dataclass(frozen=True)
class SideBySide:
    """Alternated timed runs without and with something armed (CPU seconds, runs that lost
    no event)."""
    off: tuple[float, ...]
    on: tuple[float, ...]
    hits: float  # per armed run, from the hits callable (0 without one)

    @property
    def added(self) -> float:
        """CPU seconds it added to a run: least armed run - least unarmed run."""
        return min(self.on) - min(self.off)


class RingDrain:
    """Hands the top-level trace array's guest pages back as they fill and counts the events
    the guest lost.  Live: a thread waiting on the doorbell, as daemon._drain_guest.  Seeded,
    host operations wait for the machine to pause (that is what makes a run repeatable), so
    a thread could not drain during a run: the counting hook calls take() instead, at points
    of the instruction stream, which keeps the run deterministic."""

    def __init__(self, machine: Machine, slot: int):
        self._guest = machine.tracing
        self._machine = machine
        self._slot = slot
        self._layout = lay = machine.tracing.layout
        control = kernel_virt_to_phys(machine.image.addr("trace_control"))
        self._rings = [control + lay.ring(slot, cpu) for cpu in range(machine.nr_cpus)]
        # per CPU, the last page whose page_lost is counted in _counted
        self._counted_to = [self._ring(cpu)[0] for cpu in range(machine.nr_cpus)]
        self._counted = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        # what takes the pages: handing them back unread, or a drain that keeps their records
        # (the trace core's, for a trace_pipe reader)
        self.keep: Callable[[], object] | None = None
        if machine.options.seed is None:
            self._thread = threading.Thread(target=self._loop, name="bench-ring-drain", daemon=True)
            self._thread.start()

    def _ring(self, cpu: int) -> tuple[int, int, tuple[int, ...]]:
        """(seq, lost, page_lost) of a CPU's ring as the guest has them now: read in place, as
        GuestTracing reads it, without stopping the CPUs (page_lost[s] is stored before seq
        becomes s, so every page up to the seq read has its count in place)."""
        buf, at, lay = self._machine._ram().buf, self._rings[cpu], self._layout
        return (struct.unpack_from("<Q", buf, at + lay.ring_seq)[0], struct.unpack_from("<Q", buf, at + lay.ring_lost)[0],
                struct.unpack_from(f"<{lay.ring_pages}Q", buf, at + lay.ring_page_lost))

    def _count(self) -> list[int]:
        """Add the losses recorded in pages started since last time (before their slots can be
        reused: that needs the pages handed back, which only take() does after this); the
        seq of each CPU's current page."""
        seqs = []
        for cpu in range(len(self._rings)):
            seq, _, page_lost = self._ring(cpu)
            for s in range(self._counted_to[cpu] + 1, seq + 1):
                self._counted += page_lost[s % self._layout.ring_pages]
            self._counted_to[cpu] = seq
            seqs.append(seq)
        return seqs

    def _loop(self) -> None:
        realtime_if_permitted()
        while not self._stop.is_set():
            self._guest.wait_for_data(DRAIN_WAIT_S)
            self.take()

    def take(self, wait: bool = True) -> None:
        """Hand back the pages the guest filled; wait=False (from a hook on the run-loop
        thread): not if another thread is at it, which may be waiting for that thread."""
        if not self._lock.acquire(wait):
            return
        try:
            self._count()
            if self.keep is None:
                self._guest.drain(self._slot)
            else:
                self.keep()
        finally:
            self._lock.release()

    def lost(self) -> int:
        """Events lost so far: those the started pages recorded and those since the current
        pages began (read again if a page began meanwhile: its page_lost took them)."""
        with self._lock:
            while True:
                seqs = self._count()
                pending = sum(self._ring(cpu)[1] for cpu in range(len(self._rings)))
                if self._count() == seqs:
                    return self._counted + pending

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def workload(blocks: int) -> list[str]:
    return ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", f"count={blocks}"]


class TracedKernel:
    def __init__(self, *, seed: int | None = None):
        self.machine = Machine(MachineOptions(cpus=1, workload="none", seed=seed))
        self.machine.start()
        try:
            stack = build_stack(self.machine)
            if stack.ftrace_sites is None or stack.kprobe_engine is None or stack.core.kprobes is None \
                    or stack.kprobe_views is None:
                raise RuntimeError("the kernel image has no ftrace sites or no kprobes")
            self.sites = stack.ftrace_sites
            self.tracing = stack.core
            self.engine = stack.kprobe_engine
            self.kprobes = stack.core.kprobes
            self.debug = stack.kprobe_views
            self.ring = RingDrain(self.machine, self.tracing.top.slot)
            self.runs_set_aside = 0  # timed runs best_of did not count: they lost events
            try:
                self.optimisable = optimisable_offset(self, PROBED)  # PROBED+this: an optimised kprobe
            except BaseException:
                self.ring.close()
                raise
        except BaseException:
            self.machine.stop()
            raise

    def close(self) -> None:
        self.ring.close()
        self.machine.stop()

    # ---- the files a user would write ----
    def probe(self, command: str) -> None:
        """A line written to kprobe_events."""
        self.kprobes.write_kprobe_events(command.encode() + b"\n")

    def enable(self, system: str, event: str, on: bool = True) -> None:
        self.tracing.top.events.write_enable(b"1" if on else b"0", system, event)

    def tracer(self, name: str) -> None:
        self.tracing.top.write_current_tracer(name.encode() + b"\n")

    def optimization(self, on: bool) -> None:
        self.debug.write_optimization(b"1" if on else b"0")

    def listing(self) -> str:
        """debug/kprobes/list."""
        return self.debug.read_list().decode()

    def hits(self, event: str) -> int:
        """The event's hit count from kprobe_profile."""
        for line in self.kprobes.read_profile().decode().splitlines():
            name, nhit, _ = line.split()
            if name == event:
                return int(nhit)
        raise KeyError(event)

    # ---- running the workload ----
    def best_of(self, blocks: int) -> Best:
        """The fastest of BEST_OF runs that lost no event: the least disturbed by whatever else
        the host runs.  A run that lost events is set aside and another made, up to MAX_RUNS;
        EventsLost when none of them kept every event."""
        clean: list[float] = []
        runs = 0
        lost = 0
        while len(clean) < BEST_OF and runs < MAX_RUNS:
            runs += 1
            try:
                clean.append(self.run(blocks))
            except EventsLost as e:
                lost += e.lost
        self.runs_set_aside += runs - len(clean)
        if not clean:
            raise EventsLost(lost, runs)
        return Best(min(clean), runs)

    def run(self, blocks: int, argv: list[str] | None = None) -> float:
        """Seconds from spawn to exit of the workload; EventsLost if the guest lost any."""
        return self.timed(blocks, argv).wall

    def timed(self, blocks: int, argv: list[str] | None = None) -> Run:
        """One run of the workload (argv: another program instead, `blocks` unused), its wall
        and CPU time; EventsLost if the guest lost any."""
        argv = workload(blocks) if argv is None else argv
        lost = self.ring.lost()
        t, c = time.perf_counter(), time.process_time()
        proc = self.machine.spawn(argv, lambda output: None)
        status = proc.wait(WAIT_S)
        elapsed, cpu = time.perf_counter() - t, time.process_time() - c
        if status != 0:
            raise RuntimeError(f"{' '.join(argv)}: exit status {status}")
        lost = self.ring.lost() - lost
        if lost:
            raise EventsLost(lost)
        return Run(elapsed, cpu)

    def side_by_side(self, blocks: int, arm: Callable[[], None], disarm: Callable[[], None],
                     hits: Callable[[], int] | None = None, pairs: int = PAIRS) -> SideBySide:
        """`pairs` runs without and `pairs` with arm() done, alternated (arm before each armed
        run, disarm after it); hits(): a counter read around each armed run.  A run that lost
        events is set aside and made again, up to twice per pair; EventsLost past that."""
        off: list[float] = []
        on: list[float] = []
        counted: list[int] = []
        lost = [0, 0]  # events, runs

        def clean(armed: bool) -> None:
            while True:
                before = hits() if armed and hits else 0
                try:
                    run = self.timed(blocks)
                except EventsLost as e:
                    self.runs_set_aside += 1
                    lost[0] += e.lost
                    lost[1] += 1
                    if lost[1] > 2 * pairs:
                        raise EventsLost(lost[0], lost[1]) from None
                    continue
                (on if armed else off).append(run.cpu)
                if armed and hits:
                    counted.append(hits() - before)
                return

        for _ in range(pairs):
            clean(False)
            arm()
            try:
                clean(True)
            finally:
                disarm()
        return SideBySide(tuple(off), tuple(on), sum(counted) / len(counted) if counted else 0)

    def count(self, blocks: int, watch: frozenset[int] = frozenset(),
              argv: list[str] | None = None) -> tuple[int, Counter[int]]:
        """Guest instructions the workload's run (argv: another program's) executed (the idle
        machine's around it included: a seeded machine makes that the same each time), and how
        many times each address in `watch` executed."""
        total = [0]
        seen: Counter[int] = Counter()

        take = self.ring.take

        def on_insn(uc: Uc, addr: int, size: int, data: object) -> None:
            total[0] += 1
            if addr in watch:
                seen[addr] += 1
            if not total[0] % TAKE_EVERY_INSNS:
                take(wait=False)

        self._run_hooked(blocks, UC_HOOK_CODE, on_insn, argv)
        return total[0], seen

    def reached(self, blocks: int, starts: frozenset[int]) -> set[int]:
        """Which of the code addresses `starts` (functions' first instructions) the workload's
        run reached. A function is entered at its start, which begins a translated block:
        one hook call per block instead of count()'s one per instruction."""
        seen: set[int] = set()
        blocks_run = [0]
        take = self.ring.take

        def on_block(uc: Uc, addr: int, size: int, data: object) -> None:
            blocks_run[0] += 1
            if addr in starts:
                seen.add(addr)
            if not blocks_run[0] % TAKE_EVERY_BLOCKS:
                take(wait=False)

        self._run_hooked(blocks, UC_HOOK_BLOCK, on_block)
        return seen

    def _run_hooked(self, blocks: int, kind: int, hook: Callable[[Uc, int, int, object], None],
                    argv: list[str] | None = None) -> None:
        """The workload's run with `hook` of `kind` on every CPU (code translated before the
        hook has no call to it: the translations are dropped on both sides)."""
        m = self.machine

        def add() -> list[tuple[Cpu, int]]:
            out = []
            for cpu in m._cpus:
                out.append((cpu, cpu.uc.hook_add(kind, hook)))
                cpu.uc.ctl_flush_tb()
            return out

        def remove(handles: list[tuple[Cpu, int]]) -> None:
            for cpu, handle in handles:
                cpu.uc.hook_del(handle)
                cpu.uc.ctl_flush_tb()

        handles = m._stop_machine(add)
        try:
            self.run(blocks, argv)
        finally:
            m._stop_machine(lambda: remove(handles))


def set_aside(kernel: TracedKernel, before: int) -> Sample:
    """The figure saying how many timed runs of a sample lost events and were not counted."""
    return Sample("timed runs set aside (the guest lost events)", "runs", kernel.runs_set_aside - before)


def noise(unarmed: list[float]) -> Sample:
    """The figure saying how much the same (unarmed) run's CPU time varied within a sample:
    max / min - 1 over all of them, against which to read the time a probe adds."""
    return Sample("unarmed runs' CPU time, spread within a sample (max/min - 1)", "%",
                  100 * (max(unarmed) / min(unarmed) - 1) if unarmed else None,
                  None if unarmed else "no unarmed run")


def optimisable_offset(kernel: TracedKernel, func: str) -> int:
    """The first instruction of `func` after its mcount site that the engine arms as an
    optimised kprobe (its decision, read back from debug/kprobes/list)."""
    from capstone import CS_ARCH_X86, CS_MODE_64, Cs

    sym = kernel.machine.image.symbol(func)
    code = kernel.machine.image.read(sym.addr, sym.size)
    for addr, _, _, _ in Cs(CS_ARCH_X86, CS_MODE_64).disasm_lite(code, sym.addr):
        off: int = addr - sym.addr
        if off < 5:
            continue
        try:
            kernel.probe(f"p:kprobes/optprobe_try {func}+{off}")
        except OSError:
            continue
        try:
            kernel.enable("kprobes", "optprobe_try")
            optimised = "[OPTIMIZED]" in kernel.listing()
            kernel.enable("kprobes", "optprobe_try", False)
        finally:
            kernel.probe("-:kprobes/optprobe_try")
        if optimised:
            return off
    raise RuntimeError(f"no instruction of {func} can carry an optimised kprobe")
