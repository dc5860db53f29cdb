"""Tracepoint cost in the guest, and the guest -> host event rate.

Runs `getuid-loop N` on a one-CPU machine (no background workload) three ways:
  * nothing enabled (the jump labels are nops);
  * raw_syscalls:sys_enter + sys_exit enabled, a host thread draining the
    rings (wait_for_data + drain, decoding every page as the trace core would);
  * the same with the rings never drained (the guest counts lost events).
Prints wall time per run, events/s recorded, and the slowdown of the program.
Then the guest-side cost of an event in bytes of guest code executed (about 4
per instruction), from seeded runs, whose clock is bytes of code executed x
1 ns: short enough that every event fits in the rings, which a seeded machine
drains only when it pauses after the program.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from tracefs_sim.machine import Machine, MachineOptions  # noqa: E402
from tracefs_sim.trace.rb_page import decode_page  # noqa: E402


def run(iterations: int, enable: bool, drain: bool, seed: int | None = None) -> tuple[float, int, int]:
    """(seconds, events drained, events lost) for one getuid-loop run; seeded:
    seconds of virtual time from the pause before the spawn to the program's
    exit (SeededClock: 1 ns per byte of guest code)."""
    m = Machine(MachineOptions(cpus=1, workload="none", seed=seed))
    m.start()
    if seed is not None:
        assert m._runner.wait_paused()
    try:
        tracing = m.tracing
        events = {e.name: e for e in m.image.events}
        for i, e in enumerate(m.image.events):
            tracing.set_event_id(e, i + 1)
        tracing.set_recording(0, True)
        if enable:
            tracing.enable_event(events["sys_enter"], 0, True)
            tracing.enable_event(events["sys_exit"], 0, True)
        taken: dict[int, int] = {}  # seq -> events already counted
        counts = [0, 0]
        stop = threading.Event()

        def drain_pages() -> None:
            for page in tracing.drain(0):
                n = len(decode_page(page.data).events)
                if page.seq not in taken:
                    counts[1] += page.lost
                counts[0] += n - taken.get(page.seq, 0)
                taken[page.seq] = n

        def reader() -> None:
            while not stop.is_set():
                if tracing.wait_for_data(0.05):
                    drain_pages()

        thread = threading.Thread(target=reader, daemon=True)
        if drain:
            thread.start()
        t = m.now_ns() if seed is not None else time.perf_counter()  # seeded: paused after boot
        proc = m.spawn(["getuid-loop", str(iterations)])
        assert proc.wait(600) == 0
        elapsed = (proc.exit_ns - t) / 1e9 if seed is not None else time.perf_counter() - t
        stop.set()
        if drain:
            thread.join()
        m.read_memory(m.image.text_range[0], 1)  # the run loop finished the round (seeded: paused)
        drain_pages()
        return elapsed, counts[0], counts[1]
    finally:
        m.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=100_000)
    ap.add_argument("--seeded-iterations", type=int, default=100)
    args = ap.parse_args()
    base, _, _ = run(args.iterations, enable=False, drain=False)
    print(f"getuid-loop {args.iterations}, no events: {base:.2f} s")
    for drain in (True, False):
        t, got, lost = run(args.iterations, enable=True, drain=drain)
        label = "drained" if drain else "never drained"
        # lost events are reported with the next page: never, in the undrained run
        print(f"raw_syscalls enter+exit, {label}: {t:.2f} s ({t / base:.2f}x), {got} events recorded "
              f"({got / t / 1e3:.0f} k/s), {lost} reported lost")
    n = args.seeded_iterations
    base_bytes = run(n, enable=False, drain=False, seed=1)[0] * 1e9
    t, got, lost = run(n, enable=True, drain=False, seed=1)
    assert not lost, "the seeded run must fit in the rings: lower --seeded-iterations"
    print(f"guest cost: {(t * 1e9 - base_bytes) / got:.0f} bytes of code per raw_syscalls event "
          f"({base_bytes / n:.0f} per getuid-loop iteration without events; getuid-loop {n}, seeded)")


if __name__ == "__main__":
    main()
