"""off-cost: what the machine costs the guest when every probe is off.

A fixed kernel workload (bench_kernel_work in kernel_model/kernel/bench.c) runs on one CPU
taken from a booted, idle machine's snapshot, five ways, side by side in each sample:
  * bare Unicorn, no hooks, one emu_start, as the engine comes;
  * the same without Unicorn's exit checks after every memory access (the ceiling: the
    machine turns them off, see machine/slicer.py);
  * the machine's CPU with all its hooks, run in a live machine's slices, ended by time
    (what tracing-off costs);
  * the same in a seeded machine's slices, ended by a block hook after SLICE_BYTES;
  * bare Unicorn on the image built without -pg (the mcount NOPs' floor).
Instructions are counted once per image, with a counting hook on two short runs (their
difference is the per-iteration count, free of the call's set-up).  Times are the CPU time of
the thread that emulates, so other work on the host does not count (the live machine's timer
thread wakes once a slice and is not counted)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from unicorn import UC_HOOK_CODE, Uc
from unicorn.x86_const import UC_X86_REG_RDI, UC_X86_REG_RIP, UC_X86_REG_RSP

from ..machine import Machine, MachineOptions
from ..machine.cpu import Cpu
from ..machine.machine import default_kernel_image
from ..machine.paging import PML4, PhysMem
from ..machine.runloop import LIVE_SLICE_NS, SLICE_BYTES
from ..machine.slicer import SliceTimer, set_exit_checks
from .runner import Sample

NAME = "off-cost"
ITERATIONS = 200_000
QUICK_ITERATIONS = 5_000
KERNEL_VIRT_BASE = 0xFFFFFFFF80000000


class Snapshot:
    """RAM and cpu0 set-up of a booted, idle machine, to start fresh CPUs from."""

    def __init__(self, image_path: str):
        m = Machine(MachineOptions(cpus=1, workload="none", kernel_image=image_path))
        m.start()
        try:
            time.sleep(0.2)  # let boot settle into idle
            self.ram = m.with_cpus_stopped(lambda: bytes(m._ram().buf))
            self.image = m.image
            self.gs_base = m._hostif.percpu_va(0)
        finally:
            m.stop()
        self.func = self.image.addr("bench_kernel_work")
        self.ret = min(self.image.halt_resume_sites) - 1  # a hlt: where the call returns
        # a stack in the idle task's area, below anything live in the snapshot
        self.stack = self.image.addr("idle_stacks") + 8 * 1024

    def cpu(self, iterations: int) -> Cpu:
        """A fresh CPU on a private copy of the RAM, about to call bench_kernel_work(iterations)."""
        mem = PhysMem(len(self.ram))
        mem.write(0, self.ram)
        img = self.image
        cpu = Cpu(0, mem, PML4, img.addr("gdt_page"), self.gs_base, img.addr("entry_SYSCALL_64"))
        sp = self.stack - 8
        mem.put_u64(sp - KERNEL_VIRT_BASE, self.ret)
        cpu.uc.reg_write(UC_X86_REG_RSP, sp)
        cpu.uc.reg_write(UC_X86_REG_RDI, iterations)
        cpu.uc.reg_write(UC_X86_REG_RIP, self.func)
        return cpu

    def instructions_per_iteration(self) -> float:
        def count(iterations: int) -> int:
            cpu = self.cpu(iterations)
            n = [0]

            def hook(uc: Uc, addr: int, size: int, data: object) -> None:
                n[0] += 1
            cpu.uc.hook_add(UC_HOOK_CODE, hook)
            cpu.uc.emu_start(self.func, self.ret)
            return n[0]
        return (count(2000) - count(1000)) / 1000

    def run_bare(self, iterations: int, exit_checks: bool = True) -> float:
        cpu = self.cpu(iterations)
        if not exit_checks and not set_exit_checks(cpu.uc, False):
            raise RuntimeError("Unicorn's exit-check flag not found")
        t = time.thread_time()
        cpu.uc.emu_start(self.func, self.ret)
        return time.thread_time() - t

    def run_in_machine(self, iterations: int, live: bool) -> float:
        """The machine's CPU with all its hooks, run in a live or a seeded machine's slices."""
        cpu = self.cpu(iterations)
        # Every hook the machine installs: the workload never fires them (no I/O, no
        # interrupt), so handlers that do nothing cost what the real ones would.
        cpu.add_hooks(_ignore_out, _ignore_intr, _ignore_invalid)
        timer = SliceTimer(LIVE_SLICE_NS) if live else None
        try:
            t = time.thread_time()
            while cpu.pc() != self.ret:
                cpu.run_slice(SLICE_BYTES, self.ret, timer)
            return time.thread_time() - t
        finally:
            if timer is not None:
                timer.close()


def _ignore_out(uc: Uc, port: int, size: int, value: int, cpu: Cpu) -> None:
    return None


def _ignore_intr(uc: Uc, intno: int, cpu: Cpu) -> None:
    return None


def _ignore_invalid(uc: Uc, cpu: Cpu) -> bool:
    return False


def build_images() -> tuple[str, str]:
    """The -pg image the machine runs and its no-pg twin, rebuilt by make if out of date."""
    pg = Path(default_kernel_image())
    subprocess.run(["make", "-s", "-C", str(pg.parents[1])], check=True, capture_output=True)
    return str(pg), str(pg.with_name(pg.name + "-nopg"))


@contextmanager
def session(quick: bool) -> Iterator[Callable[[], list[Sample]]]:
    iterations = QUICK_ITERATIONS if quick else ITERATIONS
    pg_path, nopg_path = build_images()
    pg, nopg = Snapshot(pg_path), Snapshot(nopg_path)
    pg_insns = pg.instructions_per_iteration() * iterations
    nopg_insns = nopg.instructions_per_iteration() * iterations

    def sample() -> list[Sample]:
        bare = pg.run_bare(iterations)
        unchecked = pg.run_bare(iterations, exit_checks=False)
        machine = pg.run_in_machine(iterations, live=True)
        seeded = pg.run_in_machine(iterations, live=False)
        bare_nopg = nopg.run_bare(iterations)
        return [
            Sample("bare Unicorn, -pg image", "M insns/s", pg_insns / bare / 1e6),
            Sample("bare Unicorn without exit checks, -pg image", "M insns/s", pg_insns / unchecked / 1e6),
            Sample("machine, probes off, -pg image", "M insns/s", pg_insns / machine / 1e6),
            Sample("seeded machine, probes off, -pg image", "M insns/s", pg_insns / seeded / 1e6),
            Sample("bare Unicorn, no-pg image", "M insns/s", nopg_insns / bare_nopg / 1e6),
            # same work on both sides: ratios of times, not of instruction rates
            Sample("machine/bare, same image (target >= 0.95)", "ratio", bare / machine),
            Sample("machine/bare without exit checks, same image", "ratio", unchecked / machine),
            Sample("seeded machine/bare without exit checks, same image", "ratio", unchecked / seeded),
            Sample("-pg/no-pg work rate, bare (NOP floor)", "ratio", bare_nopg / bare),
            Sample("machine -pg/bare no-pg work rate", "ratio", bare_nopg / machine),
        ]
    yield sample
