"""progs: real programs in the emulated kernel, and uprobes on them (issue 17's speed).

Each sample, on a mount of its own (workload `none`), runs a statically linked C program of
ours and Debian's busybox-static both on the host and in the emulated kernel (`tracefs-sim
exec --mount`), side by side:
- a loop of getppid() system calls: the loop's time in the kernel over on the host (the
  program times its loop itself with CLOCK_MONOTONIC, which the live kernel keeps as host time);
- busybox `sh -c` counting to N: wall time in the kernel over on the host, each less the same
  shell's start-up (`sh -c :`);
- uprobe hits/s: a uprobe with three fetch args (%di, %si, %dx) on a function the program calls
  N times, hits over the loop's time (uprobe_profile must count every call);
- an unprobed program with 100 uprobes armed on another file: its getppid loop's time with them
  over without (target >= 0.95: arming elsewhere must cost nothing).

The files live under /var/tmp: the emulated kernel mounts its own tmpfs on /tmp, so a program
there would be invisible to it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from .launch import mounted, tracefs_sim
from .runner import Sample

NAME = "progs"
BUSYBOX = "/bin/busybox"
RUN_TIMEOUT_S = 600.0
ARMED_ELSEWHERE = 100

PROG_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

/* the uprobed function: three arguments in %di, %si, %dx */
__attribute__((noinline)) long probed(long a, long b, long c)
{
	__asm__ volatile("" ::: "memory");
	return a + b * c;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0, sum = 0;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (argc > 2 && !strcmp(argv[1], "sys"))
		for (long i = 0; i < n; i++)
			sum += syscall(SYS_getppid);
	else
		for (long i = 0; i < n; i++)
			sum += probed(i, 2, 3);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.0f %ld\n", (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec), sum & 1);
	return 0;
}
"""


def _build(scratch: str) -> tuple[str, str]:
    """The program, and a copy of it under another name (another inode) to arm uprobes on."""
    source = os.path.join(scratch, "prog.c")
    prog = os.path.join(scratch, "prog")
    with open(source, "w") as f:
        f.write(PROG_C)
    subprocess.run(["gcc", "-static", "-O2", "-fno-inline", "-o", prog, source], check=True, timeout=120)
    other = os.path.join(scratch, "other")
    shutil.copy(prog, other)
    return prog, other


def _file_offsets(path: str, names: list[str] | None = None, count: int = 0) -> list[tuple[str, int]]:
    """(name, file offset) of the named functions, or of the first `count` functions of .text
    with a body: what a uprobe takes after `PATH:`."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        text = elf.get_section_by_name(".text")
        symtab = elf.get_section_by_name(".symtab")
        if text is None or not isinstance(symtab, SymbolTableSection):
            raise RuntimeError(f"{path} has no .text or no symbol table")
        lo, hi = text["sh_addr"], text["sh_addr"] + text["sh_size"]
        found: dict[str, int] = {}
        for sym in symtab.iter_symbols():
            if sym["st_info"]["type"] != "STT_FUNC" or not sym["st_size"] or not lo <= sym["st_value"] < hi:
                continue
            if names is None or sym.name in names:
                found.setdefault(sym.name, sym["st_value"] - lo + text["sh_offset"])
    if names is not None:
        return [(name, found[name]) for name in names]
    return sorted(found.items(), key=lambda item: item[1])[:count]


def _host(argv: list[str]) -> tuple[str, float]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=RUN_TIMEOUT_S)
    return done.stdout, time.perf_counter() - t0


def _emulated(mnt: str, argv: list[str]) -> tuple[str, float]:
    t0 = time.perf_counter()
    done = subprocess.run(tracefs_sim("exec", "--mount", mnt, *argv), capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} in the kernel: exit {done.returncode}: {done.stderr.strip()[-200:]}")
    return done.stdout, elapsed


def _loop_ns(output: str) -> float:
    return float(output.split()[0])


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _hits(mnt: str, event: str) -> int:
    """The event's hits in uprobe_profile (`  PATH EVENT HITS`, the event without its group)."""
    with open(os.path.join(mnt, "uprobe_profile")) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 3 and fields[1] == event:
                return int(fields[2])
    raise RuntimeError(f"{event} is not in uprobe_profile")


def _one_sample(mnt: str, prog: str, other: str, calls: int, counts: int) -> list[Sample]:
    samples = []
    host_sys = _loop_ns(_host([prog, "sys", str(calls)])[0])
    kernel_sys = _loop_ns(_emulated(mnt, [prog, "sys", str(calls)])[0])
    samples.append(Sample(f"getppid() loop ({calls} calls): kernel / host time", "x", kernel_sys / host_sys))
    samples.append(Sample("getppid() in the kernel", "calls/s", calls / (kernel_sys / 1e9)))

    loop = f"i=0; while [ $i -lt {counts} ]; do i=$((i+1)); done"
    # (the host's times are a few ms: the least of three runs, so that start-up noise stays out)
    host_bb = (min(_host([BUSYBOX, "sh", "-c", loop])[1] for _ in range(3))
               - min(_host([BUSYBOX, "sh", "-c", ":"])[1] for _ in range(3)))
    kernel_bb = _emulated(mnt, [BUSYBOX, "sh", "-c", loop])[1] - _emulated(mnt, [BUSYBOX, "sh", "-c", ":"])[1]
    samples.append(Sample(f"busybox sh counting to {counts}: kernel / host time", "x",
                          kernel_bb / max(host_bb, 1e-6)))

    # uprobe hits with three fetch args
    (_, offset), = _file_offsets(prog, ["probed"])
    events = os.path.join(mnt, "uprobe_events")
    _write(events, f"p:bench/probed {prog}:{offset:#x} a=%di b=%si c=%dx\n")
    try:
        _write(os.path.join(mnt, "events/bench/probed/enable"), "1\n")
        kernel_call = _loop_ns(_emulated(mnt, [prog, "call", str(calls)])[0])
        _write(os.path.join(mnt, "events/bench/probed/enable"), "0\n")
        hits = _hits(mnt, "probed")
    finally:
        _write(events, "")
    if hits != calls:
        samples.append(Sample("uprobe hits/s (three fetch args)", "hits/s", None,
                              f"uprobe_profile counted {hits} hits of {calls} calls"))
    else:
        samples.append(Sample("uprobe hits/s (three fetch args)", "hits/s", calls / (kernel_call / 1e9)))

    # an unprobed program, with 100 uprobes armed on another file and without
    armed = _file_offsets(other, count=ARMED_ELSEWHERE)
    bare = _loop_ns(_emulated(mnt, [prog, "sys", str(calls)])[0])
    _write(events, "".join(f"p:elsewhere/p{i} {other}:{off:#x}\n" for i, (_, off) in enumerate(armed)))
    try:
        _write(os.path.join(mnt, "events/elsewhere/enable"), "1\n")
        with_armed = _loop_ns(_emulated(mnt, [prog, "sys", str(calls)])[0])
        _write(os.path.join(mnt, "events/elsewhere/enable"), "0\n")
    finally:
        _write(events, "")
    samples.append(Sample(f"getppid() loop, {len(armed)} uprobes armed elsewhere / none (target >= 0.95)",
                          "ratio", bare / with_armed))
    return samples


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    calls, counts = (2_000, 5_000) if quick else (100_000, 50_000)
    with tempfile.TemporaryDirectory(prefix="tracefs-sim-bench-", dir="/var/tmp") as scratch:
        prog, other = _build(scratch)
        mnt = os.path.join(scratch, "tracing")
        os.mkdir(mnt)
        with mounted(mnt, "--workload", "none"):
            yield lambda: _one_sample(mnt, prog, other, calls, counts)

