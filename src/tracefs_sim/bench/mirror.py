"""mirror: what a session's processes pay for being tasks of the emulated kernel (every system
call of theirs goes to the supervisor, and is mirrored into the kernel), and how fast the
kernel takes the calls.

One sample runs the same commands in a mirrored session, in a session that does not mirror
(`--no-mirror`: the same namespaces and the filter for the tracing calls only) and outside any
session, side by side:
- a C loop of getppid(): the microseconds mirroring adds to a call (target <= 5); past the
  ~52,000 calls the ring holds, the loop goes at the kernel's pace if that is slower;
- `ls -R /usr/share`: wall time mirrored over not mirrored (target <= 2.0);
- 200 fork+exec of /bin/true from sh: mirrored over not mirrored (target <= 1.5);
- the kernel's side: the calls `ls -R` made (those the session made from its start to its end)
  over the time from its start until the kernel was done with every one of them, and the
  calls it lost (its ring full while it took none: a stalled kernel; the supervisor waits for
  room while the kernel takes records).
"""

from __future__ import annotations

import os
import sys
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .launch import session_figures
from .runner import Sample

NAME = "mirror"

LOOP_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
"""

# Prints "getppid NS", "ls S", "forks S" and, mirrored, "before PRODUCED" and "caught S CALLS
# LOST". What the session had produced is read before `ls -R` and after it, before the reader's
# own calls: the wait is for the kernel to be done with every record up to that (retired_upto),
# not with the reader's later looks, which a sleeping reader's kernel task finishes only at its
# next call.
SCRIPT = r"""
now() { echo $EPOCHREALTIME; }
echo "getppid $("$LOOP" "$CALLS")"
produced() { "$PY" -c 'import os; from tracefs_sim import control; s = control.info(os.environ["TRACEFS_SIM_CONTROL"])["session"]; print(s["produced"] if s else -1)'; }
echo "before $(produced)"
t0=$(now); ls -R "$TREE" > /dev/null; t1=$(now)
echo "ls $t0 $t1"
"$PY" - <<'EOF'
import os, time
from tracefs_sim import control
path = os.environ["TRACEFS_SIM_CONTROL"]
stats = control.info(path)["session"]
target = stats["produced"] if stats else 0
while stats and stats["retired_upto"] < target:
    time.sleep(0.01)
    stats = control.info(path)["session"]
if stats:
    print("caught", time.time(), target, stats["lost"])
EOF
t2=$(now); sh -c 'i=0; while [ $i -lt '"$FORKS"' ]; do /bin/true; i=$((i+1)); done'; t3=$(now)
echo "forks $t2 $t3"
"""


def _session_run(script_env: dict[str, str], mirrored: bool) -> dict[str, list[float]]:
    options = [] if mirrored else ["--no-mirror"]
    return session_figures(SCRIPT, script_env, "--workload", "none", *options)


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    # --quick lists /etc (about 1,000 names) instead of /usr/share (tens of thousands)
    calls, forks, tree = (2000, 20, "/etc") if quick else (200_000, 200, "/usr/share")
    with tempfile.TemporaryDirectory(prefix="tracefs-sim-bench-") as scratch:
        loop = os.path.join(scratch, "getppid-loop")
        source = loop + ".c"
        with open(source, "w") as f:
            f.write(LOOP_C)
        subprocess.run(["gcc", "-O2", "-o", loop, source], check=True, timeout=60)
        env = {"LOOP": loop, "CALLS": str(calls), "FORKS": str(forks), "PY": sys.executable, "TREE": tree}

        def sample() -> list[Sample]:
            bare = float(subprocess.run([loop, str(calls)], capture_output=True, text=True,
                                        check=True, timeout=60).stdout)
            plain = _session_run(env, mirrored=False)
            mirrored = _session_run(env, mirrored=True)
            ls_plain = plain["ls"][1] - plain["ls"][0]
            ls_mirrored = mirrored["ls"][1] - mirrored["ls"][0]
            samples = [
                Sample("getppid() outside a session", "ns/call", bare),
                Sample("getppid() host time added by mirroring (target <= 5)", "us/call",
                       (mirrored["getppid"][0] - plain["getppid"][0]) / 1000),
                Sample(f"ls -R {tree} mirrored / not (target <= 2.0)", "x", ls_mirrored / ls_plain),
                Sample(f"{forks} fork+exec of /bin/true mirrored / not (target <= 1.5)", "x",
                       (mirrored["forks"][1] - mirrored["forks"][0]) / (plain["forks"][1] - plain["forks"][0])),
            ]
            if "caught" in mirrored and mirrored["before"][0] >= 0:
                caught_at, produced, lost = mirrored["caught"]
                samples += [Sample("calls the kernel took per second (ls -R)", "calls/s",
                                   (produced - mirrored["before"][0]) / max(caught_at - mirrored["ls"][0], 1e-9)),
                            Sample("calls lost (ls -R and before)", "calls", lost)]
            return samples
        yield sample
