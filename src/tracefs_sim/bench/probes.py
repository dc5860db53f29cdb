"""probes: what kprobes and the function tracers cost, through the trace core (traced.py).

* Hits per second of an enabled kprobe with three fetch args on an ftrace site, optimised,
  int3, and of a kretprobe: hits (kprobe_profile) over the host CPU time they added to the
  workload, its runs alternated with runs with nothing armed (the ladder's timed runs, least
  of each).  Issue 5's target: int3 >= 300 k/s.
* The workload's speed with 100 kprobes armed on cold functions (never executed by a counting
  run of the workload) against none, runs alternated the same way (CPU time, least of each):
  two per function, at its entry (on the ftrace site) and at the instruction after that (int3
  or optimised, as the engine decides).  Target >= 0.95.
* The time a write of `function` (then `function_graph`) to current_tracer takes with every
  function in the filter, and of `nop` back.  Target <= 50 ms."""

from __future__ import annotations

import time
from contextlib import contextmanager

from .ladder import MECHANISMS, QUICK_PAIRS, QUICK_TIME_BLOCKS, TIME_BLOCKS, Counts, timed_costs
from .runner import Sample
from .traced import PAIRS, EventsLost, TracedKernel, noise, set_aside

NAME = "probes"
KPROBES = tuple(m for m in MECHANISMS if m.event)
COUNT_BLOCKS, QUICK_COUNT_BLOCKS = 400, 20
COLD_PROBES = 100


def cold_functions(blocks: int) -> list[str]:
    """Traceable functions the workload (and the idle machine around it) never executes."""
    k = TracedKernel(seed=1)
    try:
        starts = {k.machine.image.addr(name): name for name in k.sites.functions}
        seen = k.reached(blocks, frozenset(starts))
        return [name for addr, name in starts.items() if addr not in seen]
    finally:
        k.close()


def arm_cold(k: TracedKernel, candidates: list[str]) -> list[str]:
    """COLD_PROBES enabled kprobes on cold functions, two per function: at its entry and at
    the instruction after its mcount site; the events made, to remove."""
    made = []
    for func in candidates:
        for where in (func, f"{func}+{k.machine.image.abi_value('MCOUNT_INSN_SIZE')}"):
            if len(made) == COLD_PROBES:
                return made
            event = f"cold{len(made)}"
            try:
                k.probe(f"p:kprobes/{event} {where}")
            except OSError:  # blacklisted, not probeable: the next one
                continue
            k.enable("kprobes", event)
            made.append(event)
    disarm_cold(k, made)
    raise RuntimeError(f"only {len(made)} probes could be put on cold functions")


def disarm_cold(k: TracedKernel, events: list[str]) -> None:
    for event in events:
        k.enable("kprobes", event, False)
        k.probe(f"-:kprobes/{event}")


def switch_times(k: TracedKernel, tracer: str) -> tuple[float, float]:
    """Seconds to switch `tracer` on (every function) and back to nop."""
    t = time.perf_counter()
    k.tracer(tracer)
    on = time.perf_counter() - t
    t = time.perf_counter()
    k.tracer("nop")
    return on, time.perf_counter() - t


@contextmanager
def session(quick: bool):
    count_blocks = QUICK_COUNT_BLOCKS if quick else COUNT_BLOCKS
    blocks = QUICK_TIME_BLOCKS if quick else TIME_BLOCKS
    pairs = QUICK_PAIRS if quick else PAIRS
    counts = Counts(count_blocks, KPROBES)
    cold = cold_functions(count_blocks)
    k = TracedKernel()
    try:
        def sample() -> list[Sample]:
            before = k.runs_set_aside
            samples = []
            costs, unarmed = timed_costs(k, counts, blocks, KPROBES, pairs)
            for m, cost in costs.items():
                figure = f"{m} (3 fetch args) hits/s"
                if isinstance(cost, str):
                    samples.append(Sample(figure, "hits/s", None, cost))
                elif cost <= 0:  # a difference of two timings: noise can outweigh tiny sizes
                    samples.append(Sample(figure, "hits/s", None, "the hits added no time measurable "
                                          f"above noise ({cost * 1e6:.2f} µs/hit)"))
                else:
                    samples.append(Sample(figure, "hits/s", 1 / cost))
            figure = f"speed, {COLD_PROBES} kprobes on cold functions / none (target >= 0.95)"
            events: list[str] = []

            def arm() -> None:
                events[:] = arm_cold(k, cold)
            try:
                runs = k.side_by_side(blocks, arm, lambda: disarm_cold(k, events), pairs=pairs)
                unarmed += runs.off
                samples.append(Sample(figure, "ratio", min(runs.off) / min(runs.on)))
            except EventsLost as e:
                samples.append(Sample(figure, "ratio", None, str(e)))
            samples.append(noise(unarmed))
            for tracer in ("function", "function_graph"):
                on, off = switch_times(k, tracer)
                samples.append(Sample(f"switch {tracer} on, every function (target <= 50)", "ms", on * 1e3))
                samples.append(Sample(f"switch {tracer} off", "ms", off * 1e3))
            samples.append(set_aside(k, before))
            return samples
        yield sample
    finally:
        k.close()
