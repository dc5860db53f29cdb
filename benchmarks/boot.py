"""Machine start-up and emulation-speed benchmark.

Prints:
  * process start -> machine ready (init running), measured in a fresh process;
  * guest instructions/s running a fixed kernel workload (bench_kernel_work) on
    a CPU of the machine (all its hooks installed, run in the machine's quanta,
    every probe off) vs the same image in bare Unicorn with no hooks (ratio);
  * the same for the image built without -pg (the cost of the mcount NOPs).
Instructions are counted once, with a counting hook on a short run.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from unicorn import UC_HOOK_CODE
from unicorn.x86_const import UC_X86_REG_RDI, UC_X86_REG_RIP, UC_X86_REG_RSP

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from tracefs_sim.machine import Machine, MachineOptions  # noqa: E402
from tracefs_sim.machine.cpu import Cpu  # noqa: E402
from tracefs_sim.machine.paging import PML4, PhysMem  # noqa: E402
from tracefs_sim.machine.runloop import QUANTUM_INSNS  # noqa: E402

STARTUP = """
import time, os
t0 = float(os.environ["BENCH_T0"])
from tracefs_sim.machine import Machine, MachineOptions
m = Machine(MachineOptions(workload="{workload}"))
m.start()
print(time.time() - t0)
m.stop()
"""


def startup_time(workload: str) -> float:
    env = dict(os.environ, BENCH_T0=repr(time.time()))
    out = subprocess.run([sys.executable, "-c", STARTUP.format(workload=workload)], env=env,
                         check=True, capture_output=True, text=True, timeout=60)
    return float(out.stdout.split()[-1])


class Snapshot:
    """RAM and cpu0 set-up of a booted, idle machine."""

    def __init__(self, image_path: str):
        m = Machine(MachineOptions(cpus=1, workload="none", kernel_image=image_path))
        m.start()
        time.sleep(0.2)
        self.ram = m._runner.stop_machine(lambda: bytes(m._mem.buf))
        self.image = m.image
        self.gs_base = m._hostif.percpu_va(0)
        m.stop()
        self.func = self.image.addr("bench_kernel_work")
        self.ret = min(self.image.halt_resume_sites) - 1  # a hlt: where the call returns
        # a stack in the idle task's area, below anything live in the snapshot
        self.stack = self.image.addr("idle_stacks") + 8 * 1024

    def cpu(self) -> tuple[Cpu, PhysMem]:
        mem = PhysMem(len(self.ram))
        mem.write(0, self.ram)
        img = self.image
        cpu = Cpu(0, mem, PML4, img.addr("gdt_page"), self.gs_base, img.addr("entry_SYSCALL_64"))
        return cpu, mem

    def enter(self, cpu: Cpu, mem: PhysMem, iterations: int) -> None:
        sp = self.stack - 8
        mem.put_u64(sp - 0xFFFFFFFF80000000, self.ret)
        cpu.uc.reg_write(UC_X86_REG_RSP, sp)
        cpu.uc.reg_write(UC_X86_REG_RDI, iterations)
        cpu.uc.reg_write(UC_X86_REG_RIP, self.func)


def count_instructions(snap: Snapshot, iterations: int) -> int:
    cpu, mem = snap.cpu()
    snap.enter(cpu, mem, iterations)
    n = [0]

    def hook(uc, addr, size, data):
        n[0] += 1
    cpu.uc.hook_add(UC_HOOK_CODE, hook)
    cpu.uc.emu_start(snap.func, snap.ret)
    return n[0]


def run_bare(snap: Snapshot, iterations: int) -> float:
    cpu, mem = snap.cpu()
    snap.enter(cpu, mem, iterations)
    t = time.perf_counter()
    cpu.uc.emu_start(snap.func, snap.ret)
    return time.perf_counter() - t


def run_in_machine(snap: Snapshot, iterations: int) -> float:
    """The machine's CPU with all its hooks, run in the machine's quanta."""
    cpu, mem = snap.cpu()
    cpu.add_hooks(lambda *a: None, lambda *a: None, lambda *a: False)
    snap.enter(cpu, mem, iterations)
    t = time.perf_counter()
    pc = snap.func
    while pc != snap.ret:
        cpu.uc.emu_start(pc, snap.ret, count=QUANTUM_INSNS)
        pc = cpu.uc.reg_read(UC_X86_REG_RIP)
    return time.perf_counter() - t


def best(fn, *args, repeat=5) -> float:
    return min(fn(*args) for _ in range(repeat))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200_000)
    args = ap.parse_args()
    build = REPO / "kernel_model" / "build"
    subprocess.run(["make", "-s", "-C", str(REPO / "kernel_model")], check=True)

    for workload in ("none", "default"):
        t = min(startup_time(workload) for _ in range(3))
        print(f"process start -> machine ready (workload={workload}): {t:.3f} s")

    results = {}
    for name in ("vmlinux", "vmlinux-nopg"):
        snap = Snapshot(str(build / name))
        per_iter = (count_instructions(snap, 2000) - count_instructions(snap, 1000)) / 1000
        insns = per_iter * args.iterations
        bare = best(run_bare, snap, args.iterations)
        machine = best(run_in_machine, snap, args.iterations)
        results[name] = (insns / bare, insns / machine, per_iter)
        print(f"{name}: {per_iter:.0f} insns/iteration; bare Unicorn {insns / bare / 1e6:.1f} M insns/s; "
              f"machine (probes off) {insns / machine / 1e6:.1f} M insns/s; ratio {bare / machine:.3f}")
    pg_bare, pg_machine, pg_ins = results["vmlinux"]
    nopg_bare, _, nopg_ins = results["vmlinux-nopg"]
    # same work: compare time per iteration, the nopg image being the floor
    print(f"mcount NOP floor: -pg image runs the workload at {nopg_ins / pg_ins * pg_bare / nopg_bare:.3f}"
          f" of the no-pg image's speed (bare); machine with -pg vs bare no-pg: "
          f"{nopg_ins / pg_ins * pg_machine / nopg_bare:.3f}")


if __name__ == "__main__":
    main()
