"""benchmarks/soak.py, run for seconds instead of minutes: it mounts, loads every phase, samples
the daemon, prints a well-formed table and verdict, and leaves no mount behind, also when
interrupted. Memory figures are never asserted: a short run says nothing about leaks."""

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOAK = [sys.executable, str(REPO / "benchmarks" / "soak.py")]
PHASES = {"events", "instances", "filters", "pipe", "trace", "marker", "exec", "function", "kprobes"}

HEADER = re.compile(r"^# daemon pid (\d+), mount (\S+), ")
ROW = re.compile(r"^\s*(\d+\.\d)" + r"\s+(\d+\.\d)" * 4 + r"\s+(\d+)\s+(\d+)$")
HEAP_FIGURE = re.compile(r"^\d+\.\d$")   # each of --heap's columns, after ROW's
ALLOCATORS = re.compile(r"^allocators, first sample after the warm-up -> last: malloc in use [+-]\d+\.\d MiB, "
                        r"malloc freed but kept [+-]\d+\.\d MiB, pymalloc in use [+-]\d+\.\d MiB, "
                        r"pymalloc free [+-]\d+\.\d MiB, pymalloc arenas [+-]\d+\.\d MiB$")
VERDICT = re.compile(r"^verdict: RSS \d+\.\d MiB at \d+ s -> \d+\.\d MiB at \d+ s; without translated code "
                     r"\((first and last sample|lowest of \d+ samples at each end)\) (\d+\.\d) MiB at \d+ s -> "
                     r"(\d+\.\d) MiB at \d+ s: [+-]\d+\.\d MiB \([+-]\d+\.\d%\); threads \d+->\d+, fds \d+->\d+; "
                     r"(flat \(limit \d+%\)|GROWTH above \d+%|GROWTH of the translated-code ceiling)$")
SPLIT = re.compile(r"^  of which guest RAM [+-]\d+\.\d MiB, other host anon [+-]\d+\.\d MiB; translated code "
                   r"\(bounded, not judged\) [+-]\d+\.\d MiB, (\d+\.\d) MiB of its (\d+\.\d) MiB ceiling$")


def mounted(path: str) -> bool:
    with open("/proc/self/mounts") as f:
        return any(line.split()[1] == path for line in f)


def check_leftovers(mnt: str) -> None:
    assert not mounted(mnt)
    assert not Path(mnt).parent.exists()


def phase_rows(lines: list[str]) -> dict[str, tuple[int, int]]:
    start = lines.index("phase       steps  failures  last failure")
    rows = {}
    for line in lines[start + 1:]:
        if not line.strip():
            break
        name, steps, failures = line.split()[:3]
        rows[name] = (int(steps), int(failures))
    return rows


@pytest.mark.parametrize("heap", [False, True], ids=["plain", "heap"])
def test_short_soak_prints_table_phases_and_verdict(heap):
    done = subprocess.run(SOAK + ["--minutes", "0.25", "--interval", "2", "--warmup", "4"]
                          + (["--heap"] if heap else []),
                          capture_output=True, text=True, timeout=180, cwd=REPO)
    assert done.returncode in (0, 1), done.stderr  # 1 = growth flagged, which is no error here
    lines = done.stdout.splitlines()
    header = HEADER.match(lines[0])
    assert header, lines[0]
    assert lines[1].split() == ["time_s", "rss_mib", "anon_mib", "tcg_mib", "guest_mib", "threads",
                                "fds"] + (["m_used", "m_free", "py_used", "py_free", "py_arenas"] if heap else [])

    rows = []
    for line in lines[2:]:
        if not line:
            break
        parts = line.split()
        m = ROW.match(" ".join(parts[:7]))
        assert m and len(parts) == (12 if heap else 7), line
        rows.append(m.groups())
        if heap:
            assert all(HEAP_FIGURE.match(x) for x in parts[7:]), line
            m_used, m_free, py_used, py_free, py_arenas = (float(x) for x in parts[7:])
            assert m_used > 0 and py_used > 0 and py_used + py_free <= py_arenas
    times = [float(r[0]) for r in rows]
    assert len(rows) >= 5 and times == sorted(times) and times[-1] >= 15.0
    for _, rss, anon, tcg, guest, threads, fds in rows:
        assert 0 < float(anon) + float(guest) <= float(rss) and int(threads) >= 1 and int(fds) >= 1
        assert 0 < float(tcg) <= float(anon)  # the CPUs have translated code

    phases = phase_rows(lines)
    assert set(phases) == PHASES
    assert all(steps > 0 for steps, _ in phases.values()), phases
    assert all(failures == 0 for _, failures in phases.values()), done.stdout

    at = [i for i, line in enumerate(lines) if line.startswith("verdict:")]
    assert len(at) == 1 and VERDICT.match(lines[at[0]]), lines[at[0]:]
    split = SPLIT.match(lines[at[0] + 1])
    assert split, lines[at[0] + 1]
    code, ceiling = (float(x) for x in split.groups())
    assert 0 < code <= ceiling
    assert "interrupted" not in done.stdout
    assert any(ALLOCATORS.match(line) for line in lines) == heap, done.stdout
    check_leftovers(header.group(2))


def test_sigint_ends_the_soak_and_unmounts():
    proc = subprocess.Popen(SOAK + ["--minutes", "5", "--interval", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        header = HEADER.match(proc.stdout.readline())
        assert header
        assert proc.stdout.readline().split()[0] == "time_s"
        assert ROW.match(proc.stdout.readline())  # the load is running
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, err
    assert "# interrupted by SIGINT" in out
    assert set(phase_rows(out.splitlines())) == PHASES
    check_leftovers(header.group(2))


# --------------------------------------------------------------------------------------------
# The verdict on made-up series: what it must flag and what it must not.

def load_soak():
    import importlib.util
    spec = importlib.util.spec_from_file_location("soak", REPO / "benchmarks" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module   # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


soak = load_soak()
MIB = 1024
CEILING = 2 * 32 * MIB   # two CPUs' code buffers


def series(judged_mib, tcg_mib=None, ceiling=None, every=30.0):
    """Samples whose RSS without translated code follows judged_mib (host anon holds all of
    it but 1 MiB of guest RAM and 15 MiB of files), translated code tcg_mib."""
    tcg_mib = tcg_mib or [4.0] * len(judged_mib)
    ceiling = ceiling or [CEILING] * len(judged_mib)
    out = []
    for i, (judged, tcg, ceil) in enumerate(zip(judged_mib, tcg_mib, ceiling)):
        judged_kib, tcg_kib = int(judged * MIB), int(tcg * MIB)
        out.append(soak.Sample(t=i * every, rss_kib=judged_kib + tcg_kib,
                               anon_kib=judged_kib - 16 * MIB + tcg_kib, guest_kib=MIB,
                               tcg_kib=tcg_kib, tcg_ceiling_kib=ceil, threads=6, fds=12))
    return out


def test_verdict_flags_a_steady_leak():
    # +0.3 MiB a sample of 30 s: the lowest of the last two is 17 samples after the lowest
    # of the first two (the warm-up takes two)
    text, flagged = soak.verdict(series([60 + 0.3 * i for i in range(21)]), warmup=60)
    assert flagged and "GROWTH above 5%" in text, text
    assert "other host anon +5.1 MiB" in text, text


def test_verdict_flags_a_leak_hidden_under_bounded_code_growth():
    text, flagged = soak.verdict(series([60 + 0.3 * i for i in range(21)],
                                        tcg_mib=[4.0 + i for i in range(21)]), warmup=60)
    assert flagged, text


def test_verdict_does_not_judge_translated_code_under_its_ceiling():
    text, flagged = soak.verdict(series([60.0] * 21, tcg_mib=[4.0 + 2 * (i // 4) for i in range(21)]),
                                 warmup=60)
    assert not flagged and "flat (limit 5%)" in text, text
    assert "translated code (bounded, not judged) +10.0 MiB, 14.0 MiB of its 64.0 MiB ceiling" in text, text


def test_verdict_ignores_a_transient_spike_at_either_end():
    judged = [60.0] * 21
    judged[2] = judged[-1] = 75.0    # a `trace` read's text in memory as the sample was taken
    text, flagged = soak.verdict(series(judged), warmup=60)
    assert not flagged, text


def test_verdict_flags_a_new_code_buffer():
    ceiling = [CEILING] * 10 + [CEILING + 32 * MIB] * 11
    text, flagged = soak.verdict(series([60.0] * 21, ceiling=ceiling), warmup=60)
    assert flagged and "GROWTH of the translated-code ceiling" in text, text


def test_verdict_needs_two_samples_after_the_warm_up():
    text, flagged = soak.verdict(series([60.0, 90.0]), warmup=60)
    assert not flagged and "too few samples" in text
