"""bpf-jit: what a kprobe BPF program counting into a hash map costs per hit, interpreted and
JITed (the kernel's net.core.bpf_jit_enable 0 and 1), in guest instructions and host
microseconds, measured side by side.

The workload is the guest's bpftest: a hash map, a KPROBE program (the caller's tgid counted:
lookup, then an atomic add or an update, as bpftrace's `@[pid] = count()`), a kprobe PMU event on
__do_sys_getpid with the program on it (PERF_EVENT_IOC_SET_BPF: the guest's kprobe handler runs
it at each hit, no Python), then N getpid() calls.  Each configuration runs at two sizes and the
difference is taken per call, so that what a run does once (loading, verifying, JITing, the
event's probe) cancels; the same difference without the event (the getpid calls alone) is taken
off: what remains is the hit, the probe and the program.  The rows: the probe with an empty
program (`r0 = 0; exit`, JITed), with the counting program interpreted and JITed, and what the
JIT saves a hit (the interpreted row less the JITed one: the same probe, helpers and map).

Instructions are the emulated PMU's count of bpftest's own (user and kernel: the hits run in
its context), a counter it opens once all is set up and reads after the calls, the least of
COUNT_RUNS at each size (what interrupts add in the task's context varies), counted once per
benchmark run; a seeded machine cannot serve the kprobe PMU's request to the host.
Host time is the CPU time of timed runs on the same live machine, every configuration's runs
alternated (PAIRS of each size), the least of each: the least disturbed by the rest of the
host."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..machine.sysctls import net_core_sysctls
from .runner import Figure, Sample, per_hit_table
from .traced import WAIT_S, TracedKernel

NAME = "bpf-jit"
PROBED = "__do_sys_getpid"
COUNT_CALLS, QUICK_COUNT_CALLS = (1_000, 6_000), (100, 500)
COUNT_RUNS = 3
TIME_CALLS, QUICK_TIME_CALLS = (2_000, 12_000), (200, 1_200)
PAIRS, QUICK_PAIRS = 5, 2
PROG_KPROBE, MAP_HASH = 2, 1
FN_map_lookup_elem, FN_map_update_elem, FN_get_current_pid_tgid = 1, 2, 14
PERF_COUNT_HW_INSTRUCTIONS = 1


def insn(code: int, dst: int = 0, src: int = 0, off: int = 0, imm: int = 0) -> bytes:
    return struct.pack("<BBhi", code, src << 4 | dst, off, imm)


def ld_map_fd(dst: int, fd: int) -> bytes:
    return insn(0x18, dst, 1, 0, fd) + insn(0)


# r0 = 0; exit
EMPTY = insn(0xB7, 0) + insn(0x95)
# key = tgid; value = lookup(map, &key); if value: *value += 1 (atomic) else update(map, &key, &1)
COUNTING = b"".join((
    insn(0x85, imm=FN_get_current_pid_tgid), insn(0x77, 0, imm=32),   # r0 >>= 32
    insn(0x63, 10, 0, -4),                                              # *(u32 *)(r10 - 4) = r0
    insn(0xBF, 2, 10), insn(0x07, 2, imm=-4), ld_map_fd(1, 3), insn(0x85, imm=FN_map_lookup_elem),
    insn(0x15, 0, 0, 3, 0),                                             # if r0 == 0 goto new
    insn(0xB7, 1, imm=1), insn(0xDB, 0, 1, 0, 0x00),                  # lock *(u64 *)r0 += 1
    insn(0x05, off=9),
    insn(0x7A, 10, 0, -16, 1),                                          # new: *(u64 *)(r10 - 16) = 1
    ld_map_fd(1, 3), insn(0xBF, 2, 10), insn(0x07, 2, imm=-4), insn(0xBF, 3, 10), insn(0x07, 3, imm=-16),
    insn(0xB7, 4, imm=0), insn(0x85, imm=FN_map_update_elem),
    insn(0xB7, 0, imm=0), insn(0x95),
))


@dataclass(frozen=True)
class Config:
    name: str
    program: bytes | None  # None: no event at all (the getpid calls alone)
    jit: bool = True


OFF = Config("getpid alone", None)
CONFIGS = (OFF, Config("kprobe + empty program", EMPTY), Config("kprobe + counting program, interpreted", COUNTING, False),
           Config("kprobe + counting program, JITed", COUNTING))
INTERPRETED, JITED = CONFIGS[2:]
SAVED = "what the JIT saves (interpreted - JITed)"


def argv(k: TracedKernel, config: Config, calls: int, count: bool = False) -> list[str]:
    """bpftest's arguments; count: with a counter of its own instructions (user and kernel: the
    emulated PMU's, opened once all is set up) read after the calls"""
    head = ["bpftest", "map", str(MAP_HASH), "4", "8", "1024"]
    fd = 4
    if config.program is not None:
        kprobe_pmu = k.machine.image.abi_value("PERF_TYPE_KPROBE")
        head += ["load", str(PROG_KPROBE), config.program.hex(), "kpev", str(kprobe_pmu), PROBED, "0", "0",
                 "setbpf", "5", "4"]
        fd = 6
    if not count:
        return [*head, "calls", str(calls)]
    return [*head, "hwev", str(PERF_COUNT_HW_INSTRUCTIONS), "calls", str(calls), "count", str(fd)]


def set_jit(k: TracedKernel, on: bool) -> None:
    net_core_sysctls(k.machine)["bpf_jit_enable"].write_at(b"1\n" if on else b"0\n")


def counted(k: TracedKernel, config: Config, calls: int) -> int:
    """Guest instructions bpftest's task executed over the calls (the PMU's count)."""
    out: list[bytes] = []
    set_jit(k, config.jit)
    proc = k.machine.spawn(argv(k, config, calls, count=True), out.append)
    status = proc.wait(WAIT_S)
    lines = b"".join(out).decode().splitlines()
    if status != 0 or not lines or not lines[-1].startswith("count: "):
        raise RuntimeError(f"bpftest: status {status}: {lines}")
    return int(lines[-1].split()[1])


def insns_per_hit(k: TracedKernel, calls: tuple[int, int], runs: int) -> dict[str, float]:
    """Each configuration's guest instructions per getpid() call beyond the calls' own: the least
    of `runs` counts at each size (the interrupts that came during the calls count too), after
    a run of each that the count does not take (bpftest's first run faults its pages in)."""
    small, large = calls
    for c in CONFIGS:
        counted(k, c, small)
    per_call = {c.name: (min(counted(k, c, large) for _ in range(runs)) - min(counted(k, c, small) for _ in range(runs)))
                / (large - small) for c in CONFIGS}
    set_jit(k, True)
    return {c.name: per_call[c.name] - per_call[OFF.name] for c in CONFIGS[1:]}


def host_per_hit(k: TracedKernel, calls: tuple[int, int], pairs: int) -> tuple[dict[str, float], list[float]]:
    """Each configuration's host CPU seconds per call beyond the calls' own (runs of every
    configuration and size alternated, the least of each); and the off runs' times (noise)."""
    small, large = calls
    times: dict[tuple[str, int], list[float]] = {}
    for _ in range(pairs):
        for c in CONFIGS:
            set_jit(k, c.jit)
            for n in (small, large):
                times.setdefault((c.name, n), []).append(k.timed(0, argv(k, c, n)).cpu)
    set_jit(k, True)
    per_call = {c.name: (min(times[c.name, large]) - min(times[c.name, small])) / (large - small) for c in CONFIGS}
    return {c.name: per_call[c.name] - per_call[OFF.name] for c in CONFIGS[1:]}, times[OFF.name, large]


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    calls = QUICK_TIME_CALLS if quick else TIME_CALLS
    pairs = QUICK_PAIRS if quick else PAIRS
    k = TracedKernel()
    try:
        insns = insns_per_hit(k, QUICK_COUNT_CALLS if quick else COUNT_CALLS, 1 if quick else COUNT_RUNS)
        def sample() -> list[Sample]:
            host, off = host_per_hit(k, calls, pairs)
            out = []
            for c in CONFIGS[1:]:
                out.append(Sample(f"{c.name}: guest insns/hit", "insns", insns[c.name]))
                out.append(Sample(f"{c.name}: host time/hit", "µs", host[c.name] * 1e6))
            out.append(Sample(f"{SAVED}: guest insns/hit", "insns", insns[INTERPRETED.name] - insns[JITED.name]))
            out.append(Sample(f"{SAVED}: host time/hit", "µs", (host[INTERPRETED.name] - host[JITED.name]) * 1e6))
            out.append(Sample("getpid alone runs' CPU time, spread within a sample (max/min - 1)", "%",
                              100 * (max(off) / min(off) - 1)))
            return out
        yield sample
    finally:
        k.close()


def summary(figures: list[Figure]) -> str:
    """interpreted against JITed, medians"""
    return per_hit_table(figures, "per kprobe hit", [c.name for c in CONFIGS[1:]] + [SAVED])
