"""overhead-ladder: guest instructions and host microseconds per hit of each tracing
mechanism, measured on the mechanism itself.

One workload (traced.workload: dd, vfs_read once per block, two syscalls per block) runs with
everything off and with one mechanism armed whose probe point is on its path:
  tracepoint off / on   raw_syscalls:sys_enter (its static-key site runs once per syscall)
  function tracer       `function` on every function (hits: function entries executed)
  kprobe on ftrace      p vfs_read            (the mcount site)
  optimised kprobe      p vfs_read+N          (N: the first offset the engine optimises)
  int3 kprobe           the same, with kprobes-optimization 0
  kretprobe             r vfs_read
each with three fetch args.  Instructions come from counting runs on a seeded machine (every
instruction counted by a hook, the probe point's executions too: the hits); per hit =
(with - without) / hits.  Time is host CPU time (traced.py says why not wall time) of timed
runs of a larger size on a live machine, each mechanism's runs alternated with runs with
everything off (PAIRS of each; the least of each, the least disturbed by the rest of the host):
(with - without) / hits, the hits scaled from the counting runs (counted at two sizes: the
workload is linear in its size) except for kprobes, whose hits kprobe_profile gives.  The
spread of all the unarmed runs' times in a sample is a figure of its own, the noise to read
the differences against.  A disabled tracepoint costs what executes inside its static-key
site's bytes (counted, per time the site is reached); it cannot be timed apart from the code
around it, so its host time is those instructions times the off runs' host time per guest
instruction.  The kprobe rows check that the engine armed them as named
(debug/kprobes/list)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from .runner import Figure, Sample, per_hit_table
from .traced import PAIRS, PROBED, EventsLost, TracedKernel, noise, set_aside

NAME = "overhead-ladder"
COUNT_BLOCKS, QUICK_COUNT_BLOCKS = 400, 20
# timed runs: large enough that a probe's hits add a good part of a run (a kprobe's 30,000
# hits ~0.05 s of CPU over ~0.22 s), repeated PAIRS times each way
TIME_BLOCKS, QUICK_TIME_BLOCKS = 30_000, 1_000
QUICK_PAIRS = 2
FETCH_ARGS = "a=%di b=%si c=%dx"
RETURN_FETCH_ARGS = "ret=$retval sp=$stack c=%cx"
JUMP_LABEL_NOP_SIZE = 5


@dataclass(frozen=True)
class Mechanism:
    name: str
    arm: Callable[[TracedKernel], None]
    disarm: Callable[[TracedKernel], None]
    points: Callable[[TracedKernel], frozenset[int]]  # addresses whose executions are its hits
    event: str | None = None  # a kprobe event: its kprobe_profile hits
    kind: str | None = None  # how debug/kprobes/list must show it armed: FTRACE, OPTIMIZED, int3


def check_kind(k: TracedKernel, m: Mechanism) -> None:
    """The engine armed the probe as the row says (it decides the kind, not the benchmark)."""
    listing = k.listing()
    kind = "[FTRACE]" if "[FTRACE]" in listing else "[OPTIMIZED]" if "[OPTIMIZED]" in listing else "int3"
    if kind.strip("[]") != m.kind:
        raise RuntimeError(f"{m.name}: armed as {kind}: {listing.strip()!r}")


def _sys_enter_sites(k: TracedKernel) -> frozenset[int]:
    desc = next(e for e in k.machine.image.events if (e.system, e.name) == ("raw_syscalls", "sys_enter"))
    return frozenset(k.machine.image.jump_sites(desc.key_addr))


def _sys_enter_site_bytes(k: TracedKernel) -> frozenset[int]:
    """Every address inside the static-key sites: what executes there when the key is off."""
    return frozenset(a + i for a in _sys_enter_sites(k) for i in range(JUMP_LABEL_NOP_SIZE))


def _function_sites(k: TracedKernel) -> frozenset[int]:
    return frozenset(k.sites.address(name) for name in k.sites.functions)


def _kprobe(event: str, where: Callable[[TracedKernel], str], args: str = FETCH_ARGS,
            kind: str = "p") -> tuple[Callable[[TracedKernel], None], Callable[[TracedKernel], None]]:
    def arm(k: TracedKernel) -> None:
        k.probe(f"{kind}:kprobes/{event} {where(k)} {args}")
        k.enable("kprobes", event)

    def disarm(k: TracedKernel) -> None:
        k.enable("kprobes", event, False)
        k.probe(f"-:kprobes/{event}")
    return arm, disarm


def _entry(k: TracedKernel) -> str:
    return PROBED


def _mid(k: TracedKernel) -> str:
    return f"{PROBED}+{k.optimisable}"


def _entry_point(k: TracedKernel) -> frozenset[int]:
    return frozenset({k.machine.image.addr(PROBED)})


def _mid_point(k: TracedKernel) -> frozenset[int]:
    return frozenset({k.machine.image.addr(PROBED) + k.optimisable})


def _int3(k: TracedKernel) -> None:
    k.optimization(False)
    _kprobe("bench_int3", _mid)[0](k)


def _int3_off(k: TracedKernel) -> None:
    _kprobe("bench_int3", _mid)[1](k)
    k.optimization(True)


def _nothing(k: TracedKernel) -> None:
    return None


MECHANISMS = (
    Mechanism("tracepoint off", _nothing, _nothing, _sys_enter_sites),
    Mechanism("tracepoint on", lambda k: k.enable("raw_syscalls", "sys_enter"),
              lambda k: k.enable("raw_syscalls", "sys_enter", False), _sys_enter_sites),
    Mechanism("function tracer", lambda k: k.tracer("function"), lambda k: k.tracer("nop"),
              _function_sites),
    Mechanism("kprobe on ftrace", *_kprobe("bench_ftrace", _entry), _entry_point, "bench_ftrace",
              "FTRACE"),
    Mechanism("optimised kprobe", *_kprobe("bench_opt", _mid), _mid_point, "bench_opt", "OPTIMIZED"),
    Mechanism("int3 kprobe", _int3, _int3_off, _mid_point, "bench_int3", "int3"),
    Mechanism("kretprobe", *_kprobe("bench_ret", _entry, RETURN_FETCH_ARGS, "r"), _entry_point,
              "bench_ret", "FTRACE"),
)
TRACEPOINT_OFF = MECHANISMS[0]


def _fresh_count(blocks: int, watch: frozenset[int] = frozenset(),
                 mechanism: Mechanism | None = None) -> tuple[int, Counter[int]]:
    """TracedKernel.count on a machine of its own, seeded (so every counting run starts from
    the same state), with `mechanism` armed. One run a machine: on a seeded machine the run
    after a counting run stalls for minutes (its slices execute nothing until a timer tick;
    a machine bug not found yet)."""
    k = TracedKernel(seed=1)
    try:
        if mechanism is None:
            return k.count(blocks, watch)
        mechanism.arm(k)
        try:
            if mechanism.kind:
                check_kind(k, mechanism)
            return k.count(blocks, watch)
        finally:
            mechanism.disarm(k)
    finally:
        k.close()


class Counts:
    """Instructions and hits of the workload from counting runs, per mechanism."""

    def __init__(self, blocks: int, mechanisms: Sequence[Mechanism] = MECHANISMS):
        k = TracedKernel(seed=1)
        try:
            points = {m.name: m.points(k) for m in mechanisms}
            site_bytes = _sys_enter_site_bytes(k)
        finally:
            k.close()
        watch = frozenset().union(site_bytes, *points.values())
        small, seen_small = _fresh_count(blocks, watch)
        large, seen_large = _fresh_count(2 * blocks, watch)
        self.blocks = blocks
        self.hits = {n: sum(seen_small[a] for a in p) for n, p in points.items()}
        self.hits_per_block = {n: (sum(seen_large[a] for a in p) - self.hits[n]) / blocks
                               for n, p in points.items()}
        self.insns = small
        self.insns_per_block = (large - small) / blocks
        self.insns_with: dict[str, int] = {}
        for m in mechanisms:
            if m is TRACEPOINT_OFF:
                # the disabled site is in the off run already: the instructions executed
                # inside its bytes, per time it was reached
                self.insns_with[m.name] = small + sum(seen_small[a] for a in site_bytes)
            else:
                self.insns_with[m.name] = _fresh_count(blocks, mechanism=m)[0]

    def insns_per_hit(self, name: str) -> float:
        return (self.insns_with[name] - self.insns) / self.hits[name]

    def hits_at(self, name: str, blocks: int) -> float:
        return self.hits[name] + self.hits_per_block[name] * (blocks - self.blocks)

    def insns_at(self, blocks: int) -> float:
        return self.insns + self.insns_per_block * (blocks - self.blocks)


def timed_costs(k: TracedKernel, counts: Counts, blocks: int, mechanisms: Sequence[Mechanism] = MECHANISMS,
                pairs: int = PAIRS) -> tuple[dict[str, float | str], list[float]]:
    """Host CPU seconds per hit of each mechanism (or why it could not be measured), each
    from its runs alternated with runs with everything off (traced.side_by_side: the least of
    each); and the CPU times of every unarmed run, the sample's noise."""
    out: dict[str, float | str] = {}
    unarmed: list[float] = []
    for m in mechanisms:
        if m is TRACEPOINT_OFF:
            continue
        if m.kind:  # the engine armed it as the row says
            m.arm(k)
            try:
                check_kind(k, m)
            finally:
                m.disarm(k)
        event = m.event
        try:
            runs = k.side_by_side(blocks, lambda: m.arm(k), lambda: m.disarm(k),
                                  (lambda: k.hits(event)) if event else None, pairs)
        except EventsLost as e:
            out[m.name] = f"{m.name}: {e}"
            continue
        unarmed += runs.off
        hits = runs.hits if m.event else counts.hits_at(m.name, blocks)
        out[m.name] = runs.added / hits if hits else f"{m.name}: no hits"
    if unarmed and TRACEPOINT_OFF in mechanisms:
        # its instructions at the off runs' host time per guest instruction
        out[TRACEPOINT_OFF.name] = (counts.insns_per_hit(TRACEPOINT_OFF.name) * min(unarmed)
                                    / counts.insns_at(blocks))
    return out, unarmed


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    counts = Counts(QUICK_COUNT_BLOCKS if quick else COUNT_BLOCKS)
    blocks = QUICK_TIME_BLOCKS if quick else TIME_BLOCKS
    pairs = QUICK_PAIRS if quick else PAIRS
    k = TracedKernel()
    try:

        def sample() -> list[Sample]:
            before = k.runs_set_aside
            costs, unarmed = timed_costs(k, counts, blocks, pairs=pairs)
            samples = []
            for m in MECHANISMS:
                samples.append(Sample(f"{m.name}: guest insns/hit", "insns", counts.insns_per_hit(m.name)))
                cost = costs.get(m.name, f"{m.name}: every timed run lost events")
                samples.append(Sample(f"{m.name}: host time/hit", "µs", cost * 1e6)
                               if isinstance(cost, float) else Sample(f"{m.name}: host time/hit", "µs", None, cost))
            samples.append(noise(unarmed))
            samples.append(set_aside(k, before))
            return samples
        yield sample
    finally:
        k.close()


def summary(figures: list[Figure]) -> str:
    """The overhead table the docs teach: one row per mechanism, medians."""
    return per_hit_table(figures, "mechanism", [m.name for m in MECHANISMS])
