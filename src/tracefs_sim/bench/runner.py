"""Runs benchmarks, repeats their measurements and reports median and spread per figure.

A benchmark is a module with NAME and `session(quick)`: a context manager that sets up once
(a booted snapshot, built images...) and yields a function taking one sample of every figure;
optionally `summary(figures) -> str`, a table of its own printed after the rows. Ratios are figures of their own, computed inside one sample from measurements taken
side by side, so a noisy neighbour moves both terms of a ratio together."""

from __future__ import annotations

import datetime
import importlib
import json
import os
import platform
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from types import ModuleType

# name on the command line -> module in this package
BENCHMARKS = {"boot": "boot", "off-cost": "offcost", "smp": "smp", "events": "events",
              "read": "read", "recipe": "recipe", "probes": "probes", "overhead-ladder": "ladder",
              "mirror": "mirror", "progs": "progs", "perf": "perf", "bpf-jit": "bpf",
              "bpf-aggregation": "aggregation"}

# the figure under which a benchmark that raised reports its error
BROKEN = "(benchmark did not complete)"
DEFAULT_REPEAT = 5
QUICK_REPEAT = 1


@dataclass(frozen=True)
class Sample:
    """One measurement of one figure; value None with `failure` set when it could not be
    measured (a recipe that failed has no time)."""
    figure: str
    unit: str
    value: float | None
    failure: str | None = None


@dataclass
class Figure:
    benchmark: str
    name: str
    unit: str
    samples: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def median(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None

    @property
    def spread(self) -> dict[str, float] | None:
        """min and max; the interquartile range too once there are enough samples to mean it."""
        if not self.samples:
            return None
        spread = {"min": min(self.samples), "max": max(self.samples)}
        if len(self.samples) >= 4:
            q1, _, q3 = statistics.quantiles(self.samples, n=4)
            spread["iqr"] = q3 - q1
        return spread


class UnknownBenchmark(ValueError):
    pass


Session = Callable[[bool], AbstractContextManager[Callable[[], list[Sample]]]]


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.{BENCHMARKS[name]}")


def _session(name: str) -> Session:
    session: Session = _module(name).session
    return session


def summaries(names: list[str], figures: list[Figure]) -> list[str]:
    """The tables benchmarks print besides the rows (a module's `summary(figures)`)."""
    out = []
    for name in names:
        summary = getattr(_module(name), "summary", None)
        if summary is not None:
            out.append(summary([f for f in figures if f.benchmark == name]))
    return out


def check_names(names: list[str]) -> list[str]:
    """The benchmarks to run, in the order given (all when none is)."""
    for name in names:
        if name not in BENCHMARKS:
            raise UnknownBenchmark(f"unknown benchmark {name!r}; available: "
                                   + ", ".join(BENCHMARKS))
    return names or list(BENCHMARKS)


def run(names: list[str], repeat: int, quick: bool,
        progress: Callable[[str], None] = lambda line: None) -> Iterator[Figure]:
    """Each benchmark's figures, after `repeat` samples of each."""
    for name in check_names(names):
        figures: dict[str, Figure] = {}
        progress(f"{name}: setting up")
        try:
            with _session(name)(quick) as take_sample:
                for i in range(repeat):
                    progress(f"{name}: sample {i + 1}/{repeat}")
                    for s in take_sample():
                        fig = figures.setdefault(s.figure, Figure(name, s.figure, s.unit))
                        if s.value is None:
                            fig.failures.append(s.failure or "failed")
                        else:
                            fig.samples.append(s.value)
        except Exception as e:  # noqa: BLE001 - one broken benchmark must not hide the others
            figures[BROKEN] = Figure(name, BROKEN, "", failures=[f"{type(e).__name__}: {e}"])
        yield from figures.values()


def fmt(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def per_hit_table(figures: list[Figure], heading: str, names: list[str]) -> str:
    """A summary of what each of names costs a hit: its `NAME: guest insns/hit` and `NAME:
    host time/hit` figures' medians (FAILED where none), one row each under heading."""
    medians = {f.name: f.median for f in figures}
    rows = [(heading, "guest insns/hit", "host µs/hit")]
    for name in names:
        cells = [medians.get(f"{name}: {what}") for what in ("guest insns/hit", "host time/hit")]
        insns, host = ("FAILED" if c is None else fmt(c) for c in cells)
        rows.append((name, insns, host))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def table(figures: list[Figure]) -> str:
    rows = [("benchmark", "figure", "median", "min–max", "unit", "n")]
    for f in figures:
        median, s = f.median, f.spread
        if median is not None and s is not None:
            rows.append((f.benchmark, f.name, fmt(median), f"{fmt(s['min'])}–{fmt(s['max'])}",
                         f.unit, str(len(f.samples))))
        for failure in dict.fromkeys(f.failures):  # each distinct failure once
            rows.append((f.benchmark, f.name, "FAILED", failure, "", str(f.failures.count(failure))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def host() -> dict[str, object]:
    """What the figures were measured on."""
    import unicorn

    cpu_model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu_model": cpu_model, "cores": os.cpu_count(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "unicorn": unicorn.__version__, "python": platform.python_version()}


def to_json(figures: list[Figure], repeat: int, quick: bool) -> str:
    return json.dumps({
        "host": host(), "repeat": repeat, "quick": quick,
        "results": [{"name": f.benchmark, "figure": f.name, "unit": f.unit,
                     "samples": f.samples, "median": f.median, "spread": f.spread,
                     "failures": f.failures} for f in figures],
    }, indent=2) + "\n"


def main(names: list[str], repeat: int | None, quick: bool, json_path: str | None) -> int:
    """`tracefs-sim bench`: exit 0; 1 if a figure could not be measured; 2 for a name that is
    no benchmark."""
    try:
        names = check_names(names)
    except UnknownBenchmark as e:
        print(f"tracefs-sim bench: {e}", file=sys.stderr)
        return 2
    if repeat is None:
        repeat = QUICK_REPEAT if quick else DEFAULT_REPEAT
    figures = list(run(names, repeat, quick, progress=lambda line: print(line, file=sys.stderr)))
    print(table(figures))
    for text in summaries(names, figures):
        print("\n" + text)
    if json_path is not None:
        with open(json_path, "w") as f:
            f.write(to_json(figures, repeat, quick))
    return 1 if any(f.failures for f in figures) else 0
