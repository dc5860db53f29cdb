"""bpf-aggregation: in-kernel aggregation against copying every event to user space, one
workload run both ways side by side (issue 19's claim, measured).

The workload: the guest's `dd if=/dev/zero of=/dev/null bs=1 count=N` (two system calls a
block) run as a child of the guest's bpftest (fork, execve, wait4), in three configurations:
  untraced     bpftest runs dd, nothing armed;
  bpf          bpftest first loads what `bpftrace -e 'tracepoint:raw_syscalls:sys_enter
               { @[comm] = count() }'` loads, the way it loads it: a per-CPU hash map of 16-byte
               comm keys, a TRACEPOINT program (get_current_comm, a lookup, the count or 1
               written back by an update: it JITs to the bytes bpftrace's program JITs to) on a
               raw_syscalls:sys_enter perf event of every task on CPU 0 by
               PERF_EVENT_IOC_SET_BPF; after dd, it reads the map as bpftrace does at exit
               (BPF_MAP_GET_NEXT_KEY, BPF_MAP_LOOKUP_ELEM per key).  Not bpftrace itself: its
               start-up (LLVM's compile, BTF) is seconds of host time, a run's own noise larger
               than what is measured, and it cannot run on a seeded machine.
  trace_pipe   raw_syscalls:sys_enter enabled; a reader drains trace_pipe as the events come
               (the trace core's drain and trace_pipe's text, as the mount serves them, in a
               thread of its own) and counts the lines by comm.
Both give counts by comm; the workload's (dd's) must agree.  They may differ by one call, by
the kernel's design: trace_pipe names an event by its pid's comm when the line is made (the
saved cmdlines), BPF by the comm at the event (get_current_comm), so dd's execve can be dd's in
the pipe and is bpftest's in the map; the check leaves execve lines out of the pipe's count.

Per event, each configuration at two sizes and the difference taken, less the untraced one's:
what a run does once (loading, verifying, JITing the program, reading the map; the reader's
start) cancels.  Guest instructions: counting runs on a seeded machine (every instruction
counted by a hook), one run a machine; the reader's work is the host's in this model (the
mount formats trace_pipe), so the pipe's instructions are the writer's only, and its reading
shows in host time alone.  Host time: wall and CPU (the process's: the emulating thread, the
drain and the reader) of timed runs on one live machine, every configuration's runs
alternated, the least of each.  Bytes copied to user space: the map's keys and values as the
reads return them; the text trace_pipe's reads return."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .bpf import insn, ld_map_fd
from .runner import Figure, Sample, fmt
from .traced import WAIT_S, TracedKernel

NAME = "bpf-aggregation"
COUNT_BLOCKS, QUICK_COUNT_BLOCKS = (500, 2_500), (20, 100)
TIME_BLOCKS, QUICK_TIME_BLOCKS = (2_000, 20_000), (100, 1_000)
PAIRS, QUICK_PAIRS = 9, 2
PROG_TRACEPOINT, MAP_PERCPU_HASH = 5, 5
FN_map_lookup_elem, FN_map_update_elem, FN_get_current_comm = 1, 2, 16
COMM_LEN, COUNT_SIZE, MAX_ENTRIES = 16, 8, 4096  # bpftrace's key, value and default map size
MAP_FD = 3
PIPE_READ = 65536  # a reader's read(2) size
PIPE_BUFFER_KB = 8192  # a CPU's trace buffer: a large run's events (~80 bytes each) twice over
MAX_TRIES = 3  # runs of one configuration and size the reader may spoil in a row
READER_IDLE_S = 0.001
NR_execve = 59

# As bpftrace 0.17 compiles `@[comm] = count()` (its JITed code read with `tracefs-sim disasm` in a
# session): key = comm (zeroed first); value = lookup(map, &key); n = value ? *value + 1 : 1;
# update(map, &key, &n); return 1
COUNT_BY_COMM = b"".join((
    insn(0xB7, 1, imm=0), insn(0x7B, 10, 1, -16), insn(0x7B, 10, 1, -24),     # key = {0}
    insn(0xBF, 6, 10), insn(0x07, 6, imm=-24),                                  # r6 = &key
    insn(0xBF, 1, 6), insn(0xB7, 2, imm=COMM_LEN), insn(0x85, imm=FN_get_current_comm),
    ld_map_fd(1, MAP_FD), insn(0xBF, 2, 6), insn(0x85, imm=FN_map_lookup_elem),
    insn(0xB7, 1, imm=1), insn(0x15, 0, 0, 2, 0),                               # n = 1; if !value
    insn(0x79, 1, 0, 0), insn(0x07, 1, imm=1),                                  # n = *value + 1
    insn(0x7B, 10, 1, -8),
    ld_map_fd(1, MAP_FD), insn(0xBF, 2, 10), insn(0x07, 2, imm=-24), insn(0xBF, 3, 10),
    insn(0x07, 3, imm=-8), insn(0xB7, 4, imm=0), insn(0x85, imm=FN_map_update_elem),
    insn(0xB7, 0, imm=1), insn(0x95),
))

UNTRACED, BPF, PIPE = "untraced", "bpf", "trace_pipe"
CONFIGS = (UNTRACED, BPF, PIPE)
ROW = {BPF: "BPF @[comm] = count(), in-kernel", PIPE: "trace_pipe, counted by comm in user space"}
WORKLOAD = "dd"
RATIO = "trace_pipe / BPF"
AGREE = f"runs where BPF's and trace_pipe's counts of {WORKLOAD} differ"
_TASK = re.compile(rb"^\s*(.*)-\d+\s+\[\d+\]")
_EXECVE = b" NR %d " % NR_execve
_LOST = re.compile(rb"^CPU:\d+ \[LOST (\d+) EVENTS\]")


def argv(k: TracedKernel, config: str, blocks: int) -> list[str]:
    dd = [WORKLOAD, "if=/dev/zero", "of=/dev/null", "bs=1", f"count={blocks}"]
    run = ["child", str(len(dd)), *dd]
    if config != BPF:
        return ["bpftest", *run]
    event = k.tracing.registry.get("raw_syscalls", "sys_enter")
    assert event is not None
    return ["bpftest", "map", str(MAP_PERCPU_HASH), str(COMM_LEN), str(COUNT_SIZE), str(MAX_ENTRIES),
            "load", str(PROG_TRACEPOINT), COUNT_BY_COMM.hex(), "tpevall", str(event.id), "setbpf", "5", "4",
            *run, "dump", str(MAP_FD)]


@dataclass
class Outcome:
    wall: float
    cpu: float
    counts: Counter[str]  # events by comm, as the configuration counted them
    copied: int  # bytes copied to user space


def _map_counts(output: str) -> tuple[Counter[str], int]:
    """bpftest's `dump` line: counts by comm (each CPU's value added) and the bytes its reads
    copied (every key, every value)."""
    line = next(ln for ln in output.splitlines() if ln.startswith("dump:"))
    counts: Counter[str] = Counter()
    copied = 0
    for pair in line.split()[1:-2]:
        key, value = (bytes.fromhex(h) for h in pair.split(":"))
        comm = key.split(b"\0", 1)[0].decode(errors="replace")
        counts[comm] += sum(int.from_bytes(value[i:i + COUNT_SIZE], "little") for i in range(0, len(value), COUNT_SIZE))
        copied += len(key) + len(value)
    return counts, copied


class PipeReader:
    """A trace_pipe reader in a thread: reads as the mount's trace_pipe does (the trace core's
    consume) and counts lines by comm, execve lines apart, and the events a `CPU:N [LOST M
    EVENTS]` line says it missed (the buffer overwritten before it read them)."""

    def __init__(self, k: TracedKernel):
        self._top = k.tracing.top
        self.counts: Counter[str] = Counter()
        self.execs: Counter[str] = Counter()
        self.lost = 0
        self.copied = 0
        self._error: BaseException | None = None
        self._last = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bench-pipe-reader", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        try:
            while True:
                text = self._top.consume(None, PIPE_READ)
                if not text:
                    if self._last.is_set():
                        return
                    time.sleep(READER_IDLE_S)
                    continue
                self.copied += len(text)
                for line in text.splitlines():
                    self._count(line)
        except BaseException as e:  # noqa: BLE001 - finish() raises it on the benchmark's thread
            self._error = e

    def _count(self, line: bytes) -> None:
        lost = _LOST.match(line)
        if lost is not None:
            self.lost += int(lost.group(1))
            return
        m = _TASK.match(line)
        if m is None:
            raise RuntimeError(f"trace_pipe: a line with no task: {line!r}")
        comm = m.group(1).decode(errors="replace")
        self.counts[comm] += 1
        if _EXECVE in line:
            self.execs[comm] += 1

    def finish(self) -> None:
        """Read to the end of what is in the buffer, then stop; what the reader raised."""
        self._last.set()
        self._thread.join()
        if self._error is not None:
            raise RuntimeError(f"the trace_pipe reader failed: {self._error}") from self._error


class ReaderOverrun(RuntimeError):
    """The trace_pipe reader fell behind the buffer: events were overwritten unread."""


def timed(k: TracedKernel, config: str, blocks: int) -> Outcome:
    """One run: spawn to exit, and for the pipe to the reader's last line; ReaderOverrun if
    the reader missed events."""
    out: list[bytes] = []
    lost = k.ring.lost()
    reader = None
    if config == PIPE:
        k.ring.keep = k.tracing.drain.drain_once  # the pages' records into the trace core's buffer
        k.enable("raw_syscalls", "sys_enter")
        reader = PipeReader(k)
    try:
        t, c = time.perf_counter(), time.process_time()
        status = k.machine.spawn(argv(k, config, blocks), out.append).wait(WAIT_S)
        if reader is not None:
            k.enable("raw_syscalls", "sys_enter", False)
            k.ring.take()  # the last page, partly written
            reader.finish()
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    finally:
        if reader is not None:
            k.enable("raw_syscalls", "sys_enter", False)
            reader.finish()
            k.ring.keep = None
    if k.ring.lost() != lost:
        raise RuntimeError(f"{config}: the guest lost events (its ring full)")
    text = b"".join(out).decode(errors="replace")
    if status != 0 or "child: 0" not in text:
        raise RuntimeError(f"bpftest ({config}): status {status}: {text[-300:]}")
    if config == BPF:
        return Outcome(wall, cpu, *_map_counts(text))
    if reader is not None:
        if reader.lost:
            raise ReaderOverrun(f"the trace_pipe reader missed {reader.lost} events (the buffer overwritten)")
        return Outcome(wall, cpu, reader.counts - reader.execs, reader.copied)
    return Outcome(wall, cpu, Counter(), 0)


def counted(config: str, blocks: int) -> int:
    """Guest instructions of a run (the idle machine's around it included: the same each time
    on a seeded machine), on a machine of its own."""
    k = TracedKernel(seed=1)
    try:
        if config == PIPE:
            k.enable("raw_syscalls", "sys_enter")
        return k.count(0, argv=argv(k, config, blocks))[0]
    finally:
        k.close()


@dataclass(frozen=True)
class Insns:
    per_event: dict[str, float]  # BPF, PIPE: guest instructions an event adds
    whole: dict[str, float]  # every configuration: a run's instructions at the larger size


def insns(blocks: tuple[int, int], events_per_block: float) -> Insns:
    """Guest instructions from counting runs at two sizes (events_per_block: the traced
    events a block adds, from the timed runs: the same workload)."""
    got = {(c, n): counted(c, n) for c in CONFIGS for n in blocks}
    small, large = blocks
    events = events_per_block * (large - small)
    base = got[UNTRACED, large] - got[UNTRACED, small]
    return Insns({c: (got[c, large] - got[c, small] - base) / events for c in (BPF, PIPE)},
                 {c: got[c, large] for c in CONFIGS})


Runs = dict[tuple[str, int], list[Outcome]]


def alternated(k: TracedKernel, blocks: tuple[int, int], pairs: int) -> tuple[Runs, int]:
    """`pairs` runs of every configuration at each size, one of each in turn; and how many
    runs were set aside and made again because the reader missed events (ReaderOverrun past
    MAX_TRIES of one)."""
    runs: Runs = {}
    aside = 0
    for _ in range(pairs):
        for c in CONFIGS:
            for n in blocks:
                for _ in range(MAX_TRIES):
                    try:
                        runs.setdefault((c, n), []).append(timed(k, c, n))
                        break
                    except ReaderOverrun:
                        aside += 1
                else:
                    raise ReaderOverrun(f"the trace_pipe reader missed events in {MAX_TRIES} runs in a row")
    return runs, aside


def measured(runs: Runs, blocks: tuple[int, int], guest: Insns, count_blocks: tuple[int, int]) -> list[Sample]:
    small, large = blocks
    events = {c: sum(runs[c, large][0].counts.values()) - sum(runs[c, small][0].counts.values()) for c in (BPF, PIPE)}
    least = {key: (min(r.wall for r in rs), min(r.cpu for r in rs)) for key, rs in runs.items()}

    def per_event(c: str, i: int) -> float:
        """host seconds (i 0: wall, 1: CPU) an event adds: the least runs' difference between
        the sizes, less the untraced one's"""
        base = least[UNTRACED, large][i] - least[UNTRACED, small][i]
        return (least[c, large][i] - least[c, small][i] - base) / events[c]

    out = []
    for c in (BPF, PIPE):
        out += [Sample(f"{ROW[c]}: guest insns/hit", "insns", guest.per_event[c]),
                Sample(f"{ROW[c]}: host time/hit", "µs", per_event(c, 0) * 1e6),
                Sample(f"{ROW[c]}: host time/hit, CPU", "µs", per_event(c, 1) * 1e6),
                Sample(f"{ROW[c]}: bytes copied to user space, run of {large} blocks", "bytes",
                       runs[c, large][0].copied),
                Sample(f"{ROW[c]}: whole run of {count_blocks[1]} blocks, guest insns over untraced", "x",
                       guest.whole[c] / guest.whole[UNTRACED]),
                Sample(f"{ROW[c]}: whole run of {large} blocks, host time over untraced", "x",
                       least[c, large][0] / least[UNTRACED, large][0])]
    out += [Sample(f"{RATIO}: guest insns/hit", "x", guest.per_event[PIPE] / guest.per_event[BPF]),
            Sample(f"{RATIO}: host time/hit", "x", per_event(PIPE, 0) / per_event(BPF, 0)),
            Sample(f"{RATIO}: host time/hit, CPU", "x", per_event(PIPE, 1) / per_event(BPF, 1)),
            Sample(f"{RATIO}: bytes copied to user space", "x",
                   runs[PIPE, large][0].copied / runs[BPF, large][0].copied),
            _agreement(runs, blocks),
            Sample(f"{WORKLOAD}'s events a run of {large} blocks", "events", runs[BPF, large][0].counts[WORKLOAD])]
    untraced = [r.wall for r in runs[UNTRACED, large]]
    out.append(Sample(f"untraced runs of {large} blocks: wall time, spread within a sample (max/min - 1)", "%",
                      100 * (max(untraced) / min(untraced) - 1)))
    return out


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    blocks = QUICK_TIME_BLOCKS if quick else TIME_BLOCKS
    count_blocks = QUICK_COUNT_BLOCKS if quick else COUNT_BLOCKS
    pairs = QUICK_PAIRS if quick else PAIRS
    k = TracedKernel()
    try:
        # room for a run's events however late the reader (a busy host): it drains them after
        k.tracing.top.write_buffer_size_kb(b"%d\n" % PIPE_BUFFER_KB)
        for c in CONFIGS:  # a first run of each, not taken: pages faulted in, code translated
            timed(k, c, blocks[0])
        guest: list[Insns] = []  # the counts are the same every sample: made once

        def sample() -> list[Sample]:
            runs, aside = alternated(k, blocks, pairs)
            if not guest:
                per_block = (runs[BPF, blocks[1]][0].counts[WORKLOAD] - runs[BPF, blocks[0]][0].counts[WORKLOAD]) \
                    / (blocks[1] - blocks[0])
                guest.append(insns(count_blocks, per_block))
            return [*measured(runs, blocks, guest[0], count_blocks),
                    Sample("trace_pipe runs set aside (the reader missed events)", "runs", aside)]
        yield sample
    finally:
        k.close()


def _agreement(runs: dict[tuple[str, int], list[Outcome]], blocks: tuple[int, int]) -> Sample:
    """Runs whose workload count differs between the map and the pipe: 0, or the failure."""
    for n in blocks:
        got = {c: {r.counts[WORKLOAD] for r in runs[c, n]} for c in (BPF, PIPE)}
        if len(got[BPF]) != 1 or got[BPF] != got[PIPE]:
            return Sample(AGREE, "runs", None, f"{n} blocks: map {sorted(got[BPF])}, trace_pipe {sorted(got[PIPE])}")
    return Sample(AGREE, "runs", 0)


def summary(figures: list[Figure]) -> str:
    """The two ways per event (to set beside the overhead ladder's rows) and their ratio, medians."""
    medians = {f.name: f.median for f in figures}
    columns = ("guest insns/hit", "host time/hit", "host time/hit, CPU")
    rows: list[tuple[str, ...]] = [("raw_syscalls:sys_enter by comm, per event", "guest insns", "host µs (wall)",
                                    "host µs (CPU)", "bytes to user space, a run")]
    for name in (ROW[BPF], ROW[PIPE], RATIO):
        unit = "x" if name == RATIO else ""
        copied = next((f.median for f in figures if f.name.startswith(f"{name}: bytes copied")), None)
        cells = [medians.get(f"{name}: {c}") for c in columns] + [copied]
        rows.append((name, *("FAILED" if v is None else fmt(v) + unit for v in cells)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)
