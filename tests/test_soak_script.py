"""benchmarks/soak.py, run for seconds instead of minutes: it mounts, loads every phase, samples
the daemon, prints a well-formed table and verdict, and leaves no mount behind, also when
interrupted. Memory figures are never asserted: a short run says nothing about leaks."""

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOAK = [sys.executable, str(REPO / "benchmarks" / "soak.py")]
PHASES = {"events", "instances", "filters", "pipe", "trace", "marker", "exec", "function", "kprobes"}

HEADER = re.compile(r"^# daemon pid (\d+), mount (\S+), ")
ROW = re.compile(r"^\s*(\d+\.\d)" + r"\s+(\d+\.\d)" * 4 + r"\s+(\d+)\s+(\d+)$")
VERDICT = re.compile(r"^verdict: RSS (\d+\.\d) MiB at \d+ s -> (\d+\.\d) MiB at \d+ s: "
                     r"[+-]\d+\.\d MiB \([+-]\d+\.\d%\); threads \d+->\d+, fds \d+->\d+; "
                     r"(flat \(limit \d+%\)|GROWTH above \d+%)$")
SPLIT = re.compile(r"^  of which guest RAM [+-]\d+\.\d MiB, translated code [+-]\d+\.\d MiB, "
                   r"other host anon [+-]\d+\.\d MiB$")


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


def test_short_soak_prints_table_phases_and_verdict():
    done = subprocess.run(SOAK + ["--minutes", "0.25", "--interval", "2", "--warmup", "4"],
                          capture_output=True, text=True, timeout=180, cwd=REPO)
    assert done.returncode in (0, 1), done.stderr  # 1 = growth flagged, which is no error here
    lines = done.stdout.splitlines()
    header = HEADER.match(lines[0])
    assert header, lines[0]
    assert lines[1].split() == ["time_s", "rss_mib", "anon_mib", "tcg_mib", "guest_mib", "threads",
                                "fds"]

    rows = []
    for line in lines[2:]:
        if not line:
            break
        m = ROW.match(line)
        assert m, line
        rows.append(m.groups())
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
    assert SPLIT.match(lines[at[0] + 1]), lines[at[0] + 1]
    assert "interrupted" not in done.stdout
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
