"""A machine with the trace core and the kprobe engine wired to it as daemon.py wires them
(FtraceSites shared by the function tracers and the kprobes; no FUSE), and the fixed workload
the probe benchmarks run on it.

Probes and tracers are set through the trace core's file-level methods (what a write to
kprobe_events, current_tracer or an event's enable does), so the benchmarks follow whatever
the engines do underneath.  The workload is `dd if=/dev/zero of=/dev/null bs=1 count=N`: two
syscalls per block, vfs_read once per block, no output to the host.

Two ways to run it: timed (no instrumentation) and counted (a counting hook on every guest
instruction, on a seeded machine so that a run is the same instruction stream each time;
it also counts how often chosen addresses execute: the hits)."""

from __future__ import annotations

import time
from collections import Counter

from unicorn import UC_HOOK_CODE

from ..machine import Machine, MachineOptions
from ..probes.ftrace import FtraceSites
from ..probes.kprobes import KprobeEngine
from ..trace.kprobe_debug import KprobeDebugViews
from ..trace.system import TracingSystem

PROBED = "vfs_read"  # once per dd block
WAIT_S = 300.0
BEST_OF = 3


def workload(blocks: int) -> list[str]:
    return ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", f"count={blocks}"]


class TracedKernel:
    def __init__(self, *, seed: int | None = None):
        self.machine = Machine(MachineOptions(cpus=1, workload="none", seed=seed))
        self.machine.start()
        try:
            self.sites = FtraceSites(self.machine)
            self.tracing = TracingSystem(self.machine, ftrace_sites=self.sites)
            self.engine = KprobeEngine(self.machine, self.sites)
            self.kprobes = self.tracing.attach_kprobes(self.engine)
            self.debug = KprobeDebugViews(self.engine)
            self.optimisable = optimisable_offset(self, PROBED)  # PROBED+this: an optimised kprobe
        except BaseException:
            self.machine.stop()
            raise

    def close(self) -> None:
        self.machine.stop()

    # ---- the files a user would write ----
    def probe(self, command: str) -> None:
        """A line written to kprobe_events."""
        self.kprobes.write_kprobe_events(command.encode() + b"\n")

    def enable(self, system: str, event: str, on: bool = True) -> None:
        self.tracing.top.events.write_enable(b"1" if on else b"0", system, event)

    def tracer(self, name: str) -> None:
        self.tracing.top.write_current_tracer(name.encode() + b"\n")

    def optimization(self, on: bool) -> None:
        self.debug.write_optimization(b"1" if on else b"0")

    def listing(self) -> str:
        """debug/kprobes/list."""
        return self.debug.read_list().decode()

    def hits(self, event: str) -> int:
        """The event's hit count from kprobe_profile."""
        for line in self.kprobes.read_profile().decode().splitlines():
            name, nhit, _ = line.split()
            if name == event:
                return int(nhit)
        raise KeyError(event)

    # ---- running the workload ----
    def best_of(self, blocks: int) -> float:
        """The fastest of BEST_OF runs: the least disturbed by whatever else the host runs."""
        return min(self.run(blocks) for _ in range(BEST_OF))

    def run(self, blocks: int) -> float:
        """Seconds from spawn to exit of the workload."""
        t = time.perf_counter()
        proc = self.machine.spawn(workload(blocks), lambda output: None)
        status = proc.wait(WAIT_S)
        elapsed = time.perf_counter() - t
        if status != 0:
            raise RuntimeError(f"{' '.join(workload(blocks))}: exit status {status}")
        return elapsed

    def count(self, blocks: int, watch: frozenset[int] = frozenset()) -> tuple[int, Counter]:
        """Guest instructions the workload's run executed (the idle machine's around it
        included: a seeded machine makes that the same each time), and how many times each
        address in `watch` executed."""
        m = self.machine
        total = [0]
        seen: Counter = Counter()

        def on_insn(uc, addr, size, data):
            total[0] += 1
            if addr in watch:
                seen[addr] += 1

        def add():
            out = []
            for cpu in m._cpus:
                out.append((cpu, cpu.uc.hook_add(UC_HOOK_CODE, on_insn)))
                cpu.uc.ctl_flush_tb()  # code translated before has no call to the hook
            return out

        def remove(handles):
            for cpu, handle in handles:
                cpu.uc.hook_del(handle)
                cpu.uc.ctl_flush_tb()

        handles = m._stop_machine(add)
        try:
            self.run(blocks)
        finally:
            m._stop_machine(lambda: remove(handles))
        return total[0], seen


def optimisable_offset(kernel: TracedKernel, func: str) -> int:
    """The first instruction of `func` after its mcount site that the engine arms as an
    optimised kprobe (its decision, read back from debug/kprobes/list)."""
    from capstone import CS_ARCH_X86, CS_MODE_64, Cs

    sym = kernel.machine.image.lookup(func)
    code = kernel.machine.image.read(sym.addr, sym.size)
    for addr, _, _, _ in Cs(CS_ARCH_X86, CS_MODE_64).disasm_lite(code, sym.addr):
        off = addr - sym.addr
        if off < 5:
            continue
        try:
            kernel.probe(f"p:kprobes/optprobe_try {func}+{off}")
        except OSError:
            continue
        try:
            kernel.enable("kprobes", "optprobe_try")
            optimised = "[OPTIMIZED]" in kernel.listing()
            kernel.enable("kprobes", "optprobe_try", False)
        finally:
            kernel.probe("-:kprobes/optprobe_try")
        if optimised:
            return off
    raise RuntimeError(f"no instruction of {func} can carry an optimised kprobe")
