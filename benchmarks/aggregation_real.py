"""`tracefs-sim bench bpf-aggregation`'s comparison on the real 6.1 (the reference VM,
/work/shared/tools/real-tracefs), to read the emulated figures against; run by hand:

    .venv/bin/python benchmarks/aggregation_real.py [--blocks N] [--rounds R]

Real dd (`/bin/dd if=/dev/zero of=/dev/null bs=1 count=N`) timed untraced, as a child of
bpftest (built -DHOST) with the same program bpf-aggregation loads (bpftrace's `@[comm] =
count()` on raw_syscalls:sys_enter), and with the event enabled and `cat trace_pipe` to a file
beside it (counted by comm afterwards).  Times from /proc/uptime (10 ms), so N is large; the
program's setup is timed apart and taken off.  Prints per round: each way's time and the µs an
event adds to dd, the reader's CPU time (its utime + stime at 100 Hz) and its time past dd's end
draining the buffer, the bytes it read, dd's count by each way, and the events the reader missed
(`[LOST N EVENTS]`: the 32 MiB buffer overwritten before it read them)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
from tracefs_sim.bench.aggregation import COUNT_BY_COMM, COMM_LEN, COUNT_SIZE, MAP_PERCPU_HASH, MAX_ENTRIES, \
    PROG_TRACEPOINT  # noqa: E402

REAL = "/work/shared/tools/real-tracefs"
HZ = 100

SCRIPT = r"""
id=$(cat events/raw_syscalls/sys_enter/id)
now() { cut -d' ' -f1 /proc/uptime; }
bpf="/mnt/host/bpftest cpus $(nproc) map @MAP@ load @PROG_TYPE@ @PROG@ tpevall $id setbpf 5 4"
dd="/bin/dd if=/dev/zero of=/dev/null bs=1 count=@BLOCKS@"
echo 32768 > buffer_size_kb
for round in $(seq @ROUNDS@); do
  t0=$(now); $dd 2>/dev/null; t1=$(now); echo "bare $t0 $t1"
  t0=$(now); $bpf >/dev/null; t1=$(now); echo "setup $t0 $t1"
  t0=$(now); $bpf child 5 $dd dump 3 >/tmp/bpf.out 2>/dev/null; t1=$(now)
  echo "bpf $t0 $t1 $(grep -o 'dump:.*' /tmp/bpf.out)"
  echo > trace
  cat trace_pipe > /tmp/tp & cat=$!
  echo 1 > events/raw_syscalls/sys_enter/enable
  t0=$(now); $dd 2>/dev/null; t1=$(now)
  echo 0 > events/raw_syscalls/sys_enter/enable
  prev=-1; while [ "$(stat -c %s /tmp/tp)" != "$prev" ]; do prev=$(stat -c %s /tmp/tp); sleep 0.3; done
  t2=$(now)
  set -- $(cut -d' ' -f14,15 /proc/$cat/stat)
  kill $cat; wait $cat 2>/dev/null
  echo "pipe $t0 $t1 $t2 $(($1 + $2)) $(stat -c %s /tmp/tp) $(grep -c ' dd-' /tmp/tp) $(grep ' dd-' /tmp/tp | grep -c ' NR 59 ') $(grep -o 'LOST [0-9]*' /tmp/tp | awk '{s += $2} END {print s + 0}')"
done
"""


def dd_in_map(words: list[str]) -> int:
    """dd's count in bpftest's `dump` words (KEY:VALUE, each CPU's u64 added)."""
    for pair in words:
        if ":" not in pair or pair.endswith(":"):
            continue
        key, value = (bytes.fromhex(h) for h in pair.split(":"))
        if key.split(b"\0", 1)[0] == b"dd":
            return sum(int.from_bytes(value[i:i + 8], "little") for i in range(0, len(value), 8))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["gcc", "-static", "-O1", "-DHOST", "-o", f"{d}/bpftest",
                        str(REPO / "kernel_model/user/bpftest.c")], check=True)
        script = SCRIPT
        for name, value in (("MAP", f"{MAP_PERCPU_HASH} {COMM_LEN} {COUNT_SIZE} {MAX_ENTRIES}"),
                            ("PROG_TYPE", PROG_TRACEPOINT), ("PROG", COUNT_BY_COMM.hex()),
                            ("BLOCKS", args.blocks), ("ROUNDS", args.rounds)):
            script = script.replace(f"@{name}@", str(value))
        Path(d, "run.sh").write_text(script)
        done = subprocess.run([REAL, "-s", f"{d}:/mnt/host", "-t", "1200", "-c", "sh /mnt/host/run.sh"],
                              capture_output=True, text=True, timeout=1500)
    lines = [line.split() for line in done.stdout.splitlines() if line.split()[:1] in (["bare"], ["setup"], ["bpf"],
                                                                                       ["pipe"])]
    if not lines:
        print(done.stdout, done.stderr, file=sys.stderr)
        return 1
    for i in range(0, len(lines), 4):
        bare, setup, bpf, pipe = lines[i:i + 4]
        t_bare = float(bare[2]) - float(bare[1])
        t_bpf = float(bpf[2]) - float(bpf[1]) - (float(setup[2]) - float(setup[1]))
        t_pipe, drain = float(pipe[2]) - float(pipe[1]), float(pipe[3]) - float(pipe[2])
        events = dd_in_map(bpf[3:])
        per = {name: (t - t_bare) / events * 1e6 for name, t in (("bpf", t_bpf), ("pipe", t_pipe))}
        print(f"dd {t_bare:.2f} s; with BPF {t_bpf:.2f} s (+{per['bpf']:.2f} µs an event); with the reader "
              f"{t_pipe:.2f} s (+{per['pipe']:.2f} µs an event), then {drain:.2f} s draining; reader CPU "
              f"{int(pipe[4]) / HZ:.2f} s ({int(pipe[4]) / HZ / events * 1e6:.2f} µs an event), {int(pipe[5]):,} bytes; "
              f"dd's events: map {events}, trace_pipe {int(pipe[6]) - int(pipe[7])} (+{pipe[7]} execve); "
              f"the reader missed {pipe[8]} (LOST)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
