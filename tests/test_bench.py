"""`tracefs-sim bench`: each benchmark runs at --quick size and reports well-formed figures,
in the table and in the JSON file. Speeds are never asserted: only that they were measured."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from tracefs_sim.bench import aggregation, runner
from tracefs_sim.bench.traced import EventsLost, TracedKernel

TRACEFS_SIM = str(Path(sys.executable).parent / "tracefs-sim")
LADDER = ("tracepoint off", "tracepoint on", "function tracer", "kprobe on ftrace", "optimised kprobe",
          "int3 kprobe", "kretprobe")
# figures that are (with - without) timings: at --quick size noise may make them <= 0
DIFFERENCES = ("host time/hit", "hits/s", "added by mirroring")
# a count that is 0 when all went well
COUNTS = ("runs", "calls")
# how a figure from timed runs fails when the host's drain fell behind the guest in every run:
# the load elsewhere on the box decides that, so it is reported, never turned into a rate
LOST = "events lost (ring full"
# figures some benchmarks must give, beyond "well-formed"
EXPECTED = {
    "overhead-ladder": [f"{m}: {what}" for m in LADDER for what in ("guest insns/hit", "host time/hit")],
    "probes": [f"{k} (3 fetch args) hits/s" for k in LADDER[3:]]
    + ["speed, 100 kprobes on cold functions / none (target >= 0.95)",
       "switch function on, every function (target <= 50)", "switch function off",
       "switch function_graph on, every function (target <= 50)", "switch function_graph off"],
    "bpf-aggregation": [f"{row}: {what}" for row in (*aggregation.ROW.values(), aggregation.RATIO)
                        for what in ("guest insns/hit", "host time/hit", "host time/hit, CPU")],
    "events": ["function tracer, every function: events/s to a trace_pipe reader",
               "function tracer, every function: events/s written by the guest",
               "function tracer on/off: workload time (slowdown)",
               "sched + raw_syscalls events/s with hist:keys=common_pid.execname:vals=hitcount on sys_enter,"
               " over without"],
}


def bench(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([TRACEFS_SIM, "bench", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("name", list(runner.BENCHMARKS))
def test_benchmark_runs_quick_and_reports_json(name, tmp_path):
    out = tmp_path / "bench.json"
    done = bench(name, "--quick", "--repeat", "2", "--json", str(out))
    report = json.loads(out.read_text())
    # exit 1 says a figure has failures; which failures are allowed is checked below
    assert done.returncode == (1 if any(r["failures"] for r in report["results"]) else 0), done.stderr

    host = report["host"]
    assert host["cpu_model"] and host["cores"] >= 1 and host["date"] and host["unicorn"]
    assert report["repeat"] == 2 and report["quick"] is True
    results = report["results"]
    assert results and all(r["name"] == name for r in results)
    table = done.stdout.splitlines()
    assert table[0].split()[:3] == ["benchmark", "figure", "median"]
    for r in results:
        assert r["figure"] and r["unit"]
        difference = any(d in r["figure"] for d in DIFFERENCES)
        # at --quick size the time a probe adds can drown in noise: only said so, never a number
        assert all((difference and "above noise" in f) or LOST in f for f in r["failures"]), (r["figure"], r["failures"])
        assert len(r["samples"]) + len(r["failures"]) == 2
        assert all(math.isfinite(v) and (v > 0 or difference or r["unit"] in COUNTS) for v in r["samples"])
        if r["samples"]:
            assert r["spread"]["min"] <= r["median"] <= r["spread"]["max"]
        assert any(line.startswith(name) and r["figure"] in line for line in table[1:]), r["figure"]
    figures = {r["figure"] for r in results}
    assert set(EXPECTED.get(name, ())) <= figures
    if name == "bpf-aggregation":  # both ways counted the workload's system calls alike
        agree = next(r for r in results if r["figure"] == aggregation.AGREE)
        assert agree["samples"] == [0, 0] and not agree["failures"]
        workload = next(r for r in results if r["figure"].startswith(f"{aggregation.WORKLOAD}'s events"))
        assert workload["samples"][0] > 2 * aggregation.QUICK_TIME_BLOCKS[1]  # two calls a block, and its start
        summary = done.stdout.split("\n\nraw_syscalls:sys_enter by comm", 1)[1].splitlines()[1:]
        assert [row.split("  ")[0] for row in summary] == [*aggregation.ROW.values(), aggregation.RATIO]
        assert all("FAILED" not in row for row in summary)
    if name == "overhead-ladder":  # and the table the docs teach, one row per mechanism
        summary = done.stdout.split("\n\nmechanism ", 1)[1].splitlines()[1:]
        assert [row.split("  ")[0] for row in summary] == list(LADDER)
        lost = {r["figure"].split(":")[0] for r in results if any(LOST in f for f in r["failures"])}
        assert all(len(row.split()) >= 3 for row in summary)
        assert all("FAILED" not in row for row in summary if row.split("  ")[0] not in lost)


def test_a_run_whose_events_were_lost_is_refused_not_timed():
    k = TracedKernel()
    try:
        k.ring.close()  # nothing hands the pages back while the workload runs: the ring fills
        k.tracer("function")
        with pytest.raises(EventsLost) as lost:
            k.run(2000)  # some tens of thousands of function events: many rings full
        assert lost.value.lost > 0
    finally:
        k.close()


def test_the_drain_keeps_every_event_of_a_counting_run():
    k = TracedKernel(seed=1)
    try:
        k.tracer("function")
        before = k.ring.lost()
        total, _ = k.count(50)  # far more function events than the 8-page ring holds
        assert total > 0 and k.ring.lost() == before
    finally:
        k.close()


def test_unknown_benchmark_is_an_error_with_status_2():
    done = bench("boot", "no-such-bench")
    assert done.returncode == 2
    assert "unknown benchmark 'no-such-bench'" in done.stderr
    assert done.stdout == ""


def test_failures_are_reported_not_timed():
    fig = runner.Figure("recipe", "broken.sh", "s", samples=[], failures=["exit 1: boom"] * 2)
    ok = runner.Figure("recipe", "fine.sh", "s", samples=[3.0, 1.0, 2.0])
    text = runner.table([fig, ok])
    assert "FAILED" in text and "exit 1: boom" in text
    assert ok.median == 2.0 and ok.spread == {"min": 1.0, "max": 3.0}
    report = json.loads(runner.to_json([fig, ok], repeat=2, quick=False))["results"]
    assert report[0]["median"] is None and report[0]["failures"] == ["exit 1: boom"] * 2


def test_a_benchmark_that_raises_is_a_failure_and_the_others_still_run(monkeypatch):
    from contextlib import contextmanager

    @contextmanager
    def broken(quick):
        raise RuntimeError("no kernel")
        yield

    @contextmanager
    def fine(quick):
        yield lambda: [runner.Sample("x", "s", 1.5)]

    monkeypatch.setattr(runner, "_session", lambda name: broken if name == "boot" else fine)
    figures = list(runner.run(["boot", "smp"], repeat=2, quick=True))
    assert [(f.benchmark, f.name) for f in figures] == [("boot", runner.BROKEN), ("smp", "x")]
    assert figures[0].failures == ["RuntimeError: no kernel"]
    assert figures[1].samples == [1.5, 1.5]


def test_the_pipe_reader_counts_by_comm_and_what_it_missed():
    """bpf-aggregation's trace_pipe reader: lines by comm, execve lines apart, and a `[LOST N
    EVENTS]` line's events (its run is then refused, not timed)"""
    from types import SimpleNamespace

    class Top:  # trace_pipe's text in one read, then nothing
        text = (b"         bpftest-7       [000] .....     0.076943: sys_enter: NR 57 (0, 0, 0, 0, 0, 0)\n"
                b"              dd-8       [000] .....     0.077800: sys_enter: NR 59 (4836c0, 0, 0, 0, 0, 0)\n"
                b"CPU:0 [LOST 12 EVENTS]\n"
                b"    my-dd-x-tool-9       [000] .....     0.080322: sys_enter: NR 0 (0, 0, 0, 0, 0, 0)\n"
                b"              dd-8       [000] .....     0.080322: sys_enter: NR 231 (0, 0, 0, 0, 0, 0)\n")

        def consume(self, cpu, size):
            text, self.text = self.text, b""
            return text

    reader = aggregation.PipeReader(SimpleNamespace(tracing=SimpleNamespace(top=Top())))
    reader.finish()
    assert reader.counts == {"bpftest": 1, "dd": 2, "my-dd-x-tool": 1}
    assert reader.execs == {"dd": 1} and reader.lost == 12


def test_the_map_is_read_by_comm_each_cpus_count_added():
    key = b"dd".ljust(aggregation.COMM_LEN, b"\0").hex()
    counts, copied = aggregation._map_counts(f"child: 0\ndump: {key}:0300000000000000{'01' + '00' * 7} entries 1\n")
    assert counts == {"dd": 4} and copied == aggregation.COMM_LEN + 16
