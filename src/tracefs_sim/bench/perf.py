"""perf: Debian's perf on the emulated kernel (issue 18's speed figures), in one session
(`tracefs-sim run --workload none`), a guest workload timed with and without perf recording
beside it, side by side in each sample:
- `perf record -e cycles -c 10000 -g -a`: the samples a second the kernel took (each an NMI, a
  call chain by frame pointers, a record in perf's buffer) while the workload ran, and the
  workload's wall time with it over without;
- `perf record -e raw_syscalls:sys_enter -a`: the tracepoint's events a second perf got (one a
  system call of the workload), and the workload's time with it over without;
- the wall time of `perf record -a -g sleep 1` as a user types it (perf's start-up, the second,
  its buffer's drain and the perf.data written).
The workload is the guest's getuid-loop (kernel_model/user/getuid-loop.c), run by `tracefs-sim
exec`: a getuid and a line written per round, all of it emulated kernel work.  perf is started
in the background a second before the workload and stopped with SIGINT after it, so its own
start-up and the perf.data it writes are outside the workload's time.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .launch import session_figures
from .runner import Sample

NAME = "perf"

# Prints "bare T0 T1", "<name> T0 T1 RECORDS" for each recording, and "sleep1 T0 T1".
SCRIPT = r"""
now() { echo $EPOCHREALTIME; }
work() { t0=$(now); tracefs-sim exec getuid-loop "$ROUNDS" > /dev/null; t1=$(now); }
recorded() {  # NAME PERF-RECORD-ARGS...: the workload with perf recording beside it
    name=$1; shift
    perf record -q -o "$DIR/$name.data" "$@" -a 2>/dev/null & pid=$!
    sleep 1
    work
    kill -INT $pid; wait $pid
    echo "$name $t0 $t1 $(perf script -i "$DIR/$name.data" -F cpu 2>/dev/null | wc -l)"
}
work; echo "bare $t0 $t1"
recorded cycles -e cycles -c 10000 -g
recorded tracepoint -e raw_syscalls:sys_enter
t0=$(now); perf record -q -o "$DIR/sleep.data" -a -g sleep 1 > /dev/null 2>&1; t1=$(now)
echo "sleep1 $t0 $t1"
"""


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    if shutil.which("perf") is None:
        raise RuntimeError("perf is not installed (Debian's linux-perf)")
    rounds = 20_000 if quick else 200_000
    with tempfile.TemporaryDirectory(prefix="tracefs-sim-bench-") as scratch:
        env = {"ROUNDS": str(rounds), "DIR": scratch}

        def sample() -> list[Sample]:
            got = session_figures(SCRIPT, env, "--workload", "none", timeout=600)
            bare = got["bare"][1] - got["bare"][0]
            samples = []
            for name, what, unit in (("cycles", "cycles -c 10000 -g: samples/s the kernel took", "samples/s"),
                                     ("tracepoint", "raw_syscalls:sys_enter: events/s perf got", "events/s")):
                t0, t1, records = got[name]
                samples += [Sample(what, unit, records / (t1 - t0)),
                            Sample(f"{name}: workload time recorded / not", "x", (t1 - t0) / bare)]
            samples.append(Sample("perf record -a -g sleep 1: wall time", "s", got["sleep1"][1] - got["sleep1"][0]))
            return samples
        yield sample
