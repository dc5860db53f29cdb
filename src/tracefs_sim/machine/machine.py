"""Machine: boots the kernel image on N emulated CPUs and runs it."""
from __future__ import annotations

import atexit
import functools
import itertools
import os
import struct
import threading
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from collections.abc import Callable, Iterable
from typing import TypeVar

from unicorn import Uc
from unicorn.x86_const import UC_X86_REG_CR2

from . import page_fault
from .cpu import CR3, CS, RDI, RIP, RSI, RSP, Cpu
from .contract import THREAD_SIZE, DebugInfo, GuestRam, KernelRequestService
from .hooks import HookContext, HookTable
from .hostfs import HostFs
from .int3_gate import Int3Gate
from .nvme import NvmeDisk
from .hostif import (
    HOST_REQ_ARGV, PORT_CODE, PORT_CONSOLE, PORT_EXIT, PORT_HOSTFS, PORT_IDLE, PORT_IPI, PORT_IPI_TIMER, PORT_PANIC,
    PORT_READY, PORT_KERNEL_REQ, PORT_PERF_WAKEUP, PORT_SESSION_REPLY, PORT_SPAWNED, PORT_STDIN, PORT_TLB, PORT_TRACE,
    PORT_REPLY, PORT_TRACE_FULL, PORT_WRITE, HostInterface,
)
from .image import KERNEL_MAP, PAGE_OFFSET, KernelImage
from .kallsyms import kallsyms_text
from .kernel_requests import KernelRequests
from .paging import PAGE_4K, PhysMem, build_boot_page_tables, kernel_virt_to_phys
from .process import Process, StdinPump, TaskInfo
from .runloop import VEC_CALL_FUNC, VEC_NMI, VEC_RESCHED, VEC_TIMER, Runner
from .perf_pool import PerfPool
from .session_ring import (LOST_OFFSET, PRODUCED_OFFSET, RETIRED_OFFSET, RETIRED_UPTO_OFFSET, SessionDoorbell,
                           SessionRingAccess, caught_up, ring_location)
from .tracing import GuestTracing

# The guest's RAM by default: room for what tools allocate on a real box (bpftrace's stack map for
# plain `kstack` preallocates 133 MB); a page is host memory only once the guest touches it.
RAM_SIZE = 512 << 20
# The RAM a machine may be given (MachineOptions.memory_mb): the kernel's page allocator covers
# 1 GiB at most, and the kernel with its tables and rings takes about 62 MiB (96 MiB leave programs 32).
MEMORY_MB_RANGE = range(96, 1024 + 1)
# The serial console's output kept (the kernel log as printk printed it), and a line's most
CONSOLE_KEEP, CONSOLE_LINE_MAX = 64 << 10, 4096
BOOT_TIMEOUT = 20.0
SPAWN_TIMEOUT = 20.0
TRACE_MARKER_TEXT = 1024  # kernel/trace_marker.c's trace_marker_text: TRACE_BUF_SIZE
BLK_TRACE_ATTR_BUF = 4096  # kernel/blktrace.c's blk_trace_attr_buf: a page, as sysfs's
REPLY_TIMEOUT = 30.0  # the kernel's answer to a request with one (kthreadd may be busy spawning)
# How long a tracefs access of a session's process waits for the kernel to catch up with what
# that session did before: a kernel that retires nothing for the stall (paused, stopped) is
# waited for no longer, nor one that progresses for longer than the most. Not longer: records
# retire in the ring's order, and a call another session process has blocked in on the host
# (a background `cat trace_pipe`, a `sleep`) holds back every later one until it returns, so
# such a wait lasts its stall bound (tpoint-perf's reads of trace_pipe, while its shell waits).
# A kernel that keeps retiring is waited for longer: on a loaded box its replay of a burst (a
# tool's start) runs seconds behind, and a tracefs write that came before the kernel replayed
# what the session did just before it would miss those calls.
SESSION_CATCH_UP_STALL_S = 2.0
SESSION_CATCH_UP_MOST_S = 10.0
# CPU exceptions a user program can raise: vector -> (kernel entry, hardware error code or None).
# Unicorn does not report the error code; a page fault's says "user access" (X86_PF_USER).
USER_EXCEPTIONS = {0: ("asm_exc_divide_error", None), 3: ("asm_exc_int3", None),
                   6: ("asm_exc_invalid_op", None), 13: ("asm_exc_general_protection", 0),
                   14: ("asm_exc_page_fault", 4)}
VEC_GP = 13  # `int $n` from user mode to a gate it may not use: #GP, as in Linux
VEC_PF = 14
SEEDED_BOOT_REALTIME_NS = 1_767_225_600 * 10**9  # 2026-01-01T00:00:00Z
USER_ADDR_END = 1 << 47
T = TypeVar("T")


def default_kernel_image() -> str:
    env = os.environ.get("TRACEFS_SIM_KERNEL")
    if env:
        return env
    return str(Path(__file__).resolve().parents[3] / "kernel_model" / "build" / "vmlinux")


@dataclass(frozen=True)
class MachineOptions:
    """cpus: 1..8 emulated CPUs.  workload: "default" (background daemons) or
    "none".  kernel_image: default $TRACEFS_SIM_KERNEL or kernel_model/build/vmlinux.

    seed: None runs live: the virtual clock is host time, idle time passes in
    real time, host commands act at the next slice boundary.  An int makes the
    run deterministic end to end (same seed, workload and sequence of commands
    => same guest behaviour and trace, timestamps included): the clock is
    bytes of guest code executed x 1 ns, idle time is skipped, and the machine
    runs only while there is work a command asked for.  After boot it runs a
    fixed settle time (100 ms virtual) and pauses; spawn() posts its request
    while paused and resumes it until every spawned program has exited, then it
    settles again and pauses.  Every other operation on the guest (text_poke,
    machine.tracing control and drains, read_memory, tasks) waits for the pause
    and acts there, so while a spawned program runs they block until it exits.

    memory_mb: the guest's RAM in MiB (default 512), e.g. smaller for a test that fills it.
    """
    cpus: int = 2
    seed: int | None = None
    workload: str = "default"
    kernel_image: str | None = None
    memory_mb: int = RAM_SIZE >> 20


class MachineError(RuntimeError):
    """The emulated kernel panicked or faulted."""


class Machine:
    """The emulated machine; it implements the whole contract (contract.py): TracedMachine
    and ServedMachine for the tracing core and the daemon, PatchableMachine for the probe
    engines."""

    def __init__(self, options: MachineOptions):
        if not 1 <= options.cpus <= 8:
            raise ValueError("cpus must be between 1 and 8")
        if options.workload not in ("default", "none"):
            raise ValueError(f"unknown workload {options.workload!r}")
        if options.memory_mb not in MEMORY_MB_RANGE:
            raise ValueError(f"memory must be {MEMORY_MB_RANGE.start}..{MEMORY_MB_RANGE.stop - 1} MiB")
        self.ram_size = options.memory_mb << 20
        self.options = options
        self.nr_cpus = options.cpus
        self.image = KernelImage(options.kernel_image or default_kernel_image())
        self._mem: PhysMem | None = None
        self._perf_pool: PerfPool | None = None
        self._hostfs: HostFs | None = None
        self.disk: NvmeDisk | None = None
        self._runner: Runner | None = None
        self._ready = threading.Event()
        self._processes: dict[int, Process] = {}
        self._ids = itertools.count(1)
        # the requests kthreadd answers at PORT_REPLY (a trace instance's buffers): seq -> result
        self._reply_seq = itertools.count(1)
        self._replies: dict[int, int] = {}
        self._marker_lock = threading.Lock()
        self._blk_attr_lock = threading.Lock()
        self._replied = threading.Condition()
        self._lock = threading.Lock()
        self._stopped = False
        self.panic_message: str | None = None
        self.tracing = GuestTracing(self)
        self._attach_fns: list[Callable[[PhysMem], None]] = []  # see on_ram_loaded
        self._hooks = HookTable()  # code hooks and the int3 handler (probe engines)
        # port -> a probe engine's handler of the guest's doorbell there (set_doorbell_handler)
        self._doorbells: dict[int, Callable[[HookContext, tuple[int, int, int, int]], None]] = {}
        self._console = bytearray()  # the serial console's output, its last CONSOLE_KEEP bytes
        self._int3 = Int3Gate()  # kernel-mode int3s through the guest's #BP gate, natively
        self._session_doorbell: SessionDoorbell | None = None
        self._session_reply_fd = -1
        self._perf_wake_fd = -1
        # the kernel's requests to the host (kernel_request.h); a kernel without them has none
        self._kernel_requests = KernelRequests(self.image, self.raise_call_function) \
            if "kernel_req.op" in self.image.abi else None

    # ---- boot ----
    def start(self) -> None:
        if self._runner is not None:
            raise RuntimeError("machine already started")
        img = self.image
        mem = self._mem = PhysMem(self.ram_size)
        for seg in img.segments:
            mem.write(seg.vaddr - KERNEL_MAP, seg.data)
        # executable up to the end of the text, ftrace's trampoline (linked past _etext) included
        code_end = img.lookup("__ftrace_tramp_end") or img.lookup("_etext")
        if code_end is None:
            raise MachineError("the kernel image has no _etext")
        pool = self._perf_pool = PerfPool()
        cr3 = build_boot_page_tables(mem, (code_end.addr - KERNEL_MAP, img.addr("_end") - KERNEL_MAP),
                                     (pool.base, pool.end))
        self._hostif = HostInterface(img, mem)
        # the wall clock at boot: the host's (live), or a fixed date (seeded: the same every run)
        realtime = time.time_ns() if self.options.seed is None else SEEDED_BOOT_REALTIME_NS
        self._hostif.write_boot_params(self.nr_cpus, self.ram_size, self.options.seed, self.options.workload, realtime,
                                       pool)
        self._int3.set_gate(img.addr("asm_exc_int3"), mem.address, mem.size)
        self.tracing.attach(mem)
        if self._kernel_requests is not None:
            self._kernel_requests.attach(mem)
        for fn in self._attach_fns:
            fn(mem)
        gdt, entry = img.addr("gdt_page"), img.addr("entry_SYSCALL_64")
        regions = [(r.pa, r.size, r.address) for r in pool.regions]
        self._cpus = [Cpu(i, mem, cr3, gdt, self._hostif.percpu_va(i), entry, self._int3, regions)
                      for i in range(self.nr_cpus)]
        self._hostfs = HostFs(mem)
        self.disk = NvmeDisk(img.addr("nvme_bar"), mem)
        for cpu in self._cpus:
            cpu.add_hooks(self._on_out, self._on_intr, self._on_invalid)
            cpu.events.hostfs_port, cpu.events.hostfs = PORT_HOSTFS, self._hostfs.address
        lay = self._hostif.layout
        self._hooks.attach(self._cpus, [
            HookContext(cpu, mem, self._hostif.percpu_pa(cpu.index) + lay.percpu_curr, lay.pid, lay.comm)
            for cpu in self._cpus])
        idle = img.addr("idle_stacks")
        self._cpus[0].set_start(img.addr("startup_64"), idle + THREAD_SIZE)
        vectors = {VEC_TIMER: img.addr("asm_sysvec_apic_timer_interrupt"),
                   VEC_RESCHED: img.addr("asm_sysvec_reschedule_ipi"),
                   VEC_CALL_FUNC: img.addr("asm_sysvec_call_function"),
                   VEC_NMI: img.addr("asm_exc_nmi")}
        exceptions = {vec: img.addr(entry) for vec, (entry, _) in USER_EXCEPTIONS.items()}
        runner = self._runner = Runner(self._cpus, self._hostif, vectors, img.addr("irq_entries_start"),
                                       exceptions, img.halt_resume_sites, self._fault,
                                       seeded=self.options.seed is not None, disk=self.disk)
        runner.bring_online(0)
        # the run-loop thread must leave emu_start before the interpreter frees Unicorn
        atexit.register(self.stop)
        runner.start()
        while not self._ready.wait(0.05):
            if self.panic_message:
                self.stop()
                raise MachineError(self.panic_message)
            if runner.clock.wall_elapsed() > BOOT_TIMEOUT * 1e9:
                self.stop()
                raise MachineError("kernel did not start init")

    def _bring_up_secondaries(self) -> None:
        idle = self.image.addr("idle_stacks")
        for i in range(1, self.nr_cpus):
            self._cpus[i].set_start(self.image.addr("secondary_startup_64"), idle + (i + 1) * THREAD_SIZE)
            self._loop().bring_online(i)

    def serve_kernel_requests(self, service: KernelRequestService | None) -> None:
        """The layers' answer to the kernel's requests (kernel_requests.py)."""
        if self._kernel_requests is not None:
            self._kernel_requests.serve(service)

    def _answer_seeded(self, req_va: int) -> None:
        """A seeded machine's kernel request, answered between two rounds (after_round)."""
        assert self._kernel_requests is not None
        if self._kernel_requests.answer(req_va):
            self._loop().raise_irq(0, VEC_CALL_FUNC)

    def raise_call_function(self) -> None:
        """Raise the call-function interrupt on CPU 0: the kernel looks at what the host has
        answered (its requests, a dump's text, the session's ring)."""
        self._check_running()
        self._loop().submit(lambda: self._loop().raise_irq(0, VEC_CALL_FUNC))

    def stop(self) -> None:
        with self._lock:
            if self._stopped or self._runner is None:
                self._stopped = True
                return
            self._stopped = True
        atexit.unregister(self.stop)
        if self._kernel_requests is not None:
            self._kernel_requests.stop()
        self._loop().request_stop()
        self._loop().join()
        if self._hostfs is not None:
            self._hostfs.close()
        if self._perf_pool is not None:
            self._perf_pool.close()
        if self._mem is not None:
            self._mem.release()
        self._release_processes(None)  # the machine is gone: report as killed by SIGKILL

    def _release_processes(self, reason: str | None) -> None:
        """Programs the guest will never finish: their waiters return now."""
        while True:
            try:  # (a CPU thread may pop an exiting one meanwhile)
                _, proc = self._processes.popitem()
            except KeyError:
                return
            proc._killed(reason)

    # ---- guest -> host ----
    def _on_out(self, uc: Uc, port: int, size: int, value: int, cpu: Cpu) -> None:
        hostif = self._hostif
        if port == PORT_TRACE:
            self.tracing.doorbell()
        elif port == PORT_TRACE_FULL:
            self.tracing.ring_full(value, cpu.index)
        elif port == PORT_IDLE:
            cpu.entering_idle = True
            self.tracing.cpu_idle(hostif.percpu_pa(cpu.index) + hostif.layout.percpu_trace_pending)
        elif port == PORT_IPI:
            self._loop().raise_irq(value & 0xFF, VEC_RESCHED)
        elif port == PORT_IPI_TIMER:
            self._loop().raise_irq(value & 0xFF, VEC_TIMER)
        elif port == PORT_TLB:
            for other in self._cpus:  # stopped: this CPU (in its hook) used invlpg itself
                if other is not cpu:
                    other.flush_tlb()
        elif port == PORT_CONSOLE:
            text, length, _, _ = hostif.doorbell_args(cpu.index)
            self._console += hostif.read_kernel(text, min(length, CONSOLE_LINE_MAX))
            del self._console[:-CONSOLE_KEEP]
        elif port == PORT_WRITE:
            host_id, buf, length, fd = hostif.doorbell_args(cpu.index)
            proc = self._processes.get(host_id)
            if proc is not None:
                proc._output(hostif.read_kernel(buf, length), fd)
        elif port == PORT_EXIT:
            host_id, status, _, _ = hostif.doorbell_args(cpu.index)
            proc = self._processes.pop(host_id, None)
            if proc is not None:
                proc._exit(status, self._loop().cpu_now(cpu))
                self._loop().end_work()
        elif port == PORT_REPLY:
            seq, result, _, _ = hostif.doorbell_args(cpu.index)
            with self._replied:
                self._replies[seq] = result - (1 << 64) if result >> 63 else result
                self._replied.notify_all()
            self._loop().end_work()
        elif port == PORT_STDIN:
            proc = self._processes.get(hostif.doorbell_args(cpu.index)[0])
            if proc is not None and proc.stdin is not None:
                proc.stdin.want()
        elif port == PORT_SPAWNED:
            host_id, pid, _, _ = hostif.doorbell_args(cpu.index)
            proc = self._processes.get(host_id)
            if proc is not None:
                proc._spawned(pid)
        elif port == PORT_CODE:
            # found through the page's kernel-map alias: executable, the same on every CPU
            alias = KERNEL_MAP + hostif.doorbell_args(cpu.index)[0]
            self._drop_translations([(alias, alias + PAGE_4K)])
        elif port == PORT_KERNEL_REQ and self._kernel_requests is not None:
            req_va = hostif.doorbell_args(cpu.index)[0]
            if self.options.seed is None:
                self._kernel_requests.post(req_va)
            else:
                self._loop().after_round(functools.partial(self._answer_seeded, req_va))
        elif port == PORT_READY:
            if value & 0xFF == 0:
                self._bring_up_secondaries()
            else:
                self._loop().booted()
                self._ready.set()
        elif port == PORT_PANIC:
            msg_va, length, _, _ = hostif.doorbell_args(cpu.index)
            self._fault(cpu.index, "Kernel panic - not syncing: " +
                        hostif.read_kernel(msg_va, length).decode(errors="replace") + "\n" +
                        self._oops(cpu))
            uc.emu_stop()
        else:
            handler = self._doorbells.get(port)
            if handler is not None:
                ctx = self._hooks.context(cpu.index)
                ctx._enter()
                handler(ctx, hostif.doorbell_args(cpu.index))

    def _on_invalid(self, uc: Uc, cpu: Cpu) -> bool:
        if not cpu.in_user_mode():
            return False  # a kernel bug: the run ends with UC_ERR_INSN_INVALID, a panic
        self._on_intr(uc, 6, cpu)  # #UD
        return True

    def _on_intr(self, uc: Uc, intno: int, cpu: Cpu) -> None:
        # (a kernel-mode int3 comes here only if the native hook could not take it through the
        # kernel's #BP gate, int3_gate.py: the unhandled exception below)
        # (a #PF a hook takes stays pending in QEMU until the CPL-0 snapshot is restored:
        # Cpu.raise_exception does that, from kernel mode too, or the next would be a #DF)
        if intno == VEC_PF:
            # user mode, or the kernel touching user memory (uaccess): the kernel's handler
            # pages it in or fixes the access up; a kernel address is a kernel bug
            regs = cpu.read_regs()
            user = bool(regs[CS] & 3)
            cr2 = uc.reg_read(UC_X86_REG_CR2)
            # (and a JITed BPF program's fault-safe load of a kernel address: its fixup)
            if user or cr2 < USER_ADDR_END or self._in_bpf_jit(regs[RIP]):
                code = page_fault.error_code(self._ram(), regs[CR3], cr2, regs[RIP], regs[RSP], regs[RSI],
                                             regs[RDI], user)
                cpu.fault_address = cr2
                cpu.pending_exception = (VEC_PF, code)
                uc.emu_stop()
                return
        if intno == VEC_GP and not cpu.in_user_mode() and self._in_bpf_jit(cpu.pc()):
            # a fault-safe load of a non-canonical address: the kernel's #GP handler fixes it up
            cpu.pending_exception = (VEC_GP, 0)
            uc.emu_stop()
            return
        if cpu.in_user_mode():
            # the task gets the fault (it dies by the signal), delivered between runs
            vector = intno if intno in USER_EXCEPTIONS else VEC_GP
            cpu.pending_exception = (vector, USER_EXCEPTIONS[vector][1])
            uc.emu_stop()
            return
        self._fault(cpu.index, f"unhandled exception {intno} on cpu{cpu.index}\n" + self._oops(cpu))
        uc.emu_stop()

    def _in_bpf_jit(self, rip: int) -> bool:
        """Whether rip is in the kernel's BPF program pack (the JIT's images)."""
        pack = self.image.lookup("bpf_prog_pack")
        return pack is not None and pack.addr <= rip < pack.addr + pack.size

    def _oops(self, cpu: Cpu) -> str:
        """Registers and a frame-pointer call trace, like a kernel oops."""
        v = list(cpu.read_regs())
        names = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10",
                 "r11", "r12", "r13", "r14", "r15", "rip", "eflags", "cr3", "cs"]
        lines = [" ".join(f"{n}={x:#x}" for n, x in zip(names, v))]

        def sym(addr: int) -> str:
            hit = self.image.symbolize(addr)
            return f"{hit[0].name}+{hit[1]:#x}" if hit else f"{addr:#x}"
        lines.append(f"RIP: {sym(v[16])}")
        rbp = v[6]
        for _ in range(16):
            try:
                ret = self._ram().u64(kernel_virt_to_phys(rbp + 8))
                rbp = self._ram().u64(kernel_virt_to_phys(rbp))
            except ValueError:
                break
            lines.append(f"  {sym(ret)}")
        return "\n".join(lines)

    def _fault(self, cpu: int, message: str) -> None:
        if self.panic_message is None:
            self.panic_message = message
        self._loop().fail(message)
        # no CPU runs any more: a program in flight is as dead as after SIGKILL
        self._release_processes(self.panic_message)

    # ---- API ----
    @property
    def running(self) -> bool:
        """Started, not stopped, not panicked."""
        return self._runner is not None and not self._stopped and not self.panic_message

    def console_output(self) -> bytes:
        """What the kernel printed on its console (printk's lines, `[   time] text`)."""
        return bytes(self._console)

    def now_ns(self) -> int:
        if self._runner is None:
            return 0
        return self._loop().clock.now()

    def kallsyms(self) -> str:
        return kallsyms_text(self.image.kallsyms)

    def btf(self) -> bytes | None:
        return self.image.btf()

    def debuginfo(self) -> DebugInfo | None:
        """The image's debuginfo, when it has a build-id and DWARF whose sources are the ones
        it was built from (kernel_model/, the directory above its build/)."""
        notes, comp_dir = self.image.notes(), self.image.debug_comp_dir
        sources = Path(self.image.path).resolve().parents[1]
        if notes is None or comp_dir is None or not (sources / "Makefile").is_file():
            return None
        return DebugInfo(notes, str(Path(self.image.path).resolve()), self.image.release(), comp_dir, str(sources))

    def programs(self) -> list[str]:
        return [p.name for p in self.image.programs if not p.internal]

    def session_ring(self) -> SessionRingAccess | None:
        """Access to the kernel's session ring for a session's supervisor; None when the kernel
        has none, or the machine is seeded (a session's processes would make its runs differ)."""
        where = ring_location(self.image)
        if where is None or self.options.seed is not None or self._mem is None:
            return None
        self._check_running()
        if self._session_doorbell is None:
            def ring() -> None:
                self._loop().submit(lambda: self._loop().raise_irq(0, VEC_CALL_FUNC))
            self._session_doorbell = SessionDoorbell(ring)
            # the kernel's "reply written" doorbell goes straight to this eventfd (native/ports.c)
            self._session_reply_fd = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
            # and its perf buffers' wakeups to this one (uapi/perf_pool.h)
            self._perf_wake_fd = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
            for cpu in self._cpus:
                cpu.events.notify_port = PORT_SESSION_REPLY
                cpu.events.notify_fd = self._session_reply_fd
                cpu.events.wake_port = PORT_PERF_WAKEUP
                cpu.events.wake_fd = self._perf_wake_fd
        offset, size = where
        return SessionRingAccess(self._ram().fd, offset, size, self._session_doorbell.fd, self._session_reply_fd,
                                 tuple(self._perf_pool.fds) if self._perf_pool is not None else (),
                                 self._perf_wake_fd)

    def session_stats(self) -> dict[str, int] | None:
        """The session ring's counters: records a supervisor produced, the kernel retired
        (retired_upto: the records up to which, in the ring's order, all are), and those lost
        because the ring was full; None without a session."""
        where = ring_location(self.image)
        if where is None or self._session_doorbell is None or self._mem is None:
            return None
        return {name: self._ram().u64(where[0] + offset)
                for name, offset in (("produced", PRODUCED_OFFSET), ("retired", RETIRED_OFFSET),
                                     ("retired_upto", RETIRED_UPTO_OFFSET), ("lost", LOST_OFFSET))}

    def session_behind(self) -> bool:
        """Whether the kernel has records of a session's supervisor it has not acted on."""
        where = ring_location(self.image)
        if where is None or self._session_doorbell is None or self._mem is None:
            return False
        return self._ram().u64(where[0] + RETIRED_UPTO_OFFSET) < self._ram().u64(where[0] + PRODUCED_OFFSET)

    def session_caught_up(self) -> bool:
        """Wait until the kernel has acted on everything a session's supervisor told it so far
        (a call a session process made before it opened a tracefs file shows in the trace it
        reads), as SESSION_CATCH_UP_* bound it. True at once without a session."""
        where = ring_location(self.image)
        if where is None or self._session_doorbell is None or self._mem is None:
            return True
        return caught_up(self._ram().u64, where[0], SESSION_CATCH_UP_STALL_S, SESSION_CATCH_UP_MOST_S)

    def spawn(self, argv: list[str], on_output: Callable[[bytes], None] | None = None,
              on_stderr: Callable[[bytes], None] | None = None, stdin: int | None = None) -> Process:
        proc = Process(next(self._ids), on_output, on_stderr)
        if stdin is not None:  # the pump owns the fd from here on (it ends with the process)
            proc.stdin = StdinPump(stdin, HOST_REQ_ARGV, partial(self._post_input, proc.host_id), proc._exited)
        # a path is the guest's to find (its "/" is the host's); a bare name one of its own
        if not argv or ("/" not in argv[0] and argv[0] not in self.programs()):
            proc._killed()
            raise FileNotFoundError(2, "No such file or directory", argv[0] if argv else "")
        self._processes[proc.host_id] = proc
        try:
            self._post_to_kthreadd(lambda: self._hostif.post_request(proc.host_id, argv, host_stdin=stdin is not None),
                                   begin_work=True)
        except BaseException:
            self._processes.pop(proc.host_id, None)
            proc._killed()
            raise
        if not proc._started.wait(SPAWN_TIMEOUT):
            self._check_running()
            raise MachineError(f"guest did not start {argv[0]}")
        if proc.pid < 0:  # released by stop() or a panic, not by the guest
            self._check_running()
        return proc

    def trace_slot_request(self, slot: int, alloc: bool) -> int:
        """Have the kernel allocate (alloc) or free a trace instance's buffers in slot
        (kernel/trace_ring.c trace_slot_alloc()/trace_slot_free(), run by kthreadd as
        instance_mkdir()/instance_rmdir() run in the writer's context): 0, or -errno."""
        return self._kthreadd_answer(lambda seq: self._hostif.post_trace_slot(seq, slot, alloc))

    def trace_marker_request(self, slot: int, pid: int, text: bytes) -> int:
        """Have the kernel run the triggers of slot's ftrace/print event on a write of text (at
        most TRACE_MARKER_TEXT bytes) by pid to its trace_marker (kernel/trace_marker.c
        tracing_mark_write(), run by kthreadd): 0, or -errno."""
        where = kernel_virt_to_phys(self.image.addr("trace_marker_text"))
        assert len(text) <= TRACE_MARKER_TEXT
        with self._marker_lock:   # one text in the kernel's buffer at a time

            def post(seq: int) -> bool:
                self._ram().write(where, text)
                return self._hostif.post_trace_marker(seq, slot, pid, len(text))
            return self._kthreadd_answer(post)

    def sysctl_request(self, sysctl: int, value: int) -> int:
        """Have the kernel store value to its sysctl (enum host_sysctl; value parsed and
        range-checked by the writer), run by kthreadd as the writer's proc handler would run
        it, and say what it says (its log line, for bpf_jit_enable 2): 0, or -errno."""
        return self._kthreadd_answer(lambda seq: self._hostif.post_sysctl(seq, sysctl, value))

    def blk_trace_attr_request(self, dev: int, attr: int, data: bytes | None) -> tuple[int, bytes]:
        """Have the kernel show (data None) or store data to the blktrace attribute attr (0
        enable, 1 act_mask, 2 pid, 3 start_lba, 4 end_lba) of the disk whose dev_t is dev
        (kernel/blktrace.c sysfs_blk_trace_attr_show/store, run by kthreadd as a sysfs read or
        write runs them): (its answer: the length shown, the count stored, or -errno; the text
        shown)."""
        where = kernel_virt_to_phys(self.image.addr("blk_trace_attr_buf"))
        assert data is None or len(data) < BLK_TRACE_ATTR_BUF
        with self._blk_attr_lock:   # one use of the kernel's buffer at a time

            def post(seq: int) -> bool:
                if data is not None:
                    self._ram().write(where, data)
                return self._hostif.post_blk_trace_attr(seq, dev, attr, None if data is None else len(data))
            ret = self._kthreadd_answer(post)
            shown = bytes(self._ram().read(where, ret)) if data is None and ret > 0 else b""
        return ret, shown

    def _kthreadd_answer(self, post: Callable[[int], bool]) -> int:
        """A request kthreadd answers at PORT_REPLY (post(seq): put it in the mailbox, whether
        there was room), and its answer."""
        self._check_running()
        seq = next(self._reply_seq)
        # the seeded clock runs until the answer (_on_out's PORT_REPLY ends the work)
        self._post_to_kthreadd(lambda: post(seq), begin_work=True)
        deadline = time.monotonic() + REPLY_TIMEOUT
        with self._replied:
            while seq not in self._replies:
                self._check_running()
                if time.monotonic() > deadline:
                    raise MachineError("the kernel did not answer a trace buffer request")
                self._replied.wait(0.1)
            return self._replies.pop(seq)

    def _post_input(self, host_id: int, data: bytes) -> None:
        """What program host_id reads next on its stdin (b"": its end), once the mailbox has room."""
        self._post_to_kthreadd(lambda: self._hostif.post_input(host_id, data))

    def _post_to_kthreadd(self, post: Callable[[], bool], begin_work: bool = False) -> None:
        """Put a request in kthreadd's mailbox (post(): whether it had room) and wake it,
        retrying while the mailbox is full; begin_work: a spawn the seeded clock runs for."""
        posted = threading.Event()

        def attempt() -> None:
            if post():
                self._loop().raise_irq(0, VEC_CALL_FUNC)
                if begin_work:
                    self._loop().begin_work()
                posted.set()

        while not posted.is_set():
            self._stop_machine(attempt)
            if not posted.is_set():  # mailbox full: let kthreadd drain it
                threading.Event().wait(0.01)

    def tasks(self) -> list[TaskInfo]:
        return self._stop_machine(self._read_tasks)

    def _read_tasks(self) -> list[TaskInfo]:
        mem, lay, hostif = self._ram(), self._hostif.layout, self._hostif
        out = []
        for cpu in range(self.nr_cpus):
            idle = mem.u64(hostif.percpu_pa(cpu) + lay.percpu_idle)
            if idle:
                out.append(self._task_info(idle))
        out.extend(self._task_info(task) for task in self._task_addrs(mem))
        return out

    def _task_addrs(self, mem: PhysMem) -> list[int]:
        """The live tasks' task_struct addresses on the task list (CPUs stopped): neither
        exiting nor dead (no exit_state; __state, a u32 as 6.1's, not TASK_DEAD)."""
        lay = self._hostif.layout
        head = self._hostif.task_list_va
        node = mem.u64(kernel_virt_to_phys(head))
        out: list[int] = []
        walked = 0
        while node != head and walked < 65536:
            task = node - lay.tasks
            state, = struct.unpack_from("<I", mem.buf, kernel_virt_to_phys(task + lay.state))
            exit_state, = struct.unpack_from("<i", mem.buf, kernel_virt_to_phys(task + lay.exit_state))
            if not exit_state and state != 0x80:  # TASK_DEAD
                out.append(task)
            node = mem.u64(kernel_virt_to_phys(node))
            walked += 1
        return out

    def poke_user_text(self, collect: Callable[[GuestRam, list[int]], list[tuple[int, bytes, bool]]]) -> int:
        """Patch code in user pages (uprobes' breakpoints), and the kernel data that goes with
        it: with every CPU stopped, collect(ram, tasks) -- the RAM and the live tasks'
        task_struct addresses, a view no CPU changes meanwhile -- gives (physical address,
        bytes, code) patches; each is written, and for code every CPU's translations of its
        page are dropped.  The number of patches."""
        def poke() -> int:
            mem = self._ram()
            patches = collect(mem, self._task_addrs(mem))
            for pa, data, _ in patches:
                self._ram().write(pa, data)
            pages = sorted({KERNEL_MAP + (pa & ~(PAGE_4K - 1)) for pa, _, code in patches if code})
            if pages:
                self._drop_translations([(va, va + PAGE_4K) for va in pages])
            return len(patches)
        return self.with_cpus_stopped(poke)

    def user_vmas(self, tgid: int) -> list[tuple[int, int, str | None]] | None:
        """The mappings of task tgid's mm, as find_task_by_vpid() + get_task_mm() find it:
        (vm_start, vm_end, the file's path as d_path() gives it, or None), by address; None
        when there is no such live task or it has no mm (a kernel thread)."""
        abi = self.image.abi_value
        off = {name: abi(name) for name in (
            "task_struct.mm", "task_struct.pid", "mm_struct.mm_mt", "vm_area_struct.vm_start",
            "vm_area_struct.vm_end", "vm_area_struct.vm_file", "vm_area_struct.vm_list", "file.f_path",
            "path.mnt", "path.dentry", "dentry.d_parent", "dentry.d_name", "qstr.len", "qstr.name",
            "mount.mnt_parent", "mount.mnt_mountpoint", "mount.mnt", "vfsmount.mnt_root")}

        def read() -> list[tuple[int, int, str | None]] | None:
            mem = self._ram()

            def u64(va: int) -> int:
                return mem.u64(kernel_virt_to_phys(va))

            task = next((t for t in self._task_addrs(mem)
                         if struct.unpack_from("<i", mem.buf, kernel_virt_to_phys(t + off["task_struct.pid"]))[0]
                         == tgid), None)
            mm = u64(task + off["task_struct.mm"]) if task is not None else 0
            if not mm:
                return None
            head = mm + off["mm_struct.mm_mt"] + 8      # maple_tree.vmas
            node = u64(head)
            out: list[tuple[int, int, str | None]] = []
            while node != head and len(out) < 65536:
                vma = node - off["vm_area_struct.vm_list"]
                file = u64(vma + off["vm_area_struct.vm_file"])
                out.append((u64(vma + off["vm_area_struct.vm_start"]), u64(vma + off["vm_area_struct.vm_end"]),
                            _d_path(u64, mem, file + off["file.f_path"], off) if file else None))
                node = u64(node)
            return sorted(out)
        return self.with_cpus_stopped(read)

    def _task_info(self, task: int) -> TaskInfo:
        mem, lay = self._ram(), self._hostif.layout
        pid, tgid = struct.unpack_from("<ii", mem.buf, kernel_virt_to_phys(task + lay.pid))
        comm = mem.read(kernel_virt_to_phys(task + lay.comm), 16).split(b"\0", 1)[0]
        return TaskInfo(pid, tgid, comm.decode(errors="replace"))

    def read_memory(self, vaddr: int, size: int) -> bytes:
        """Kernel virtual memory (image or direct map), read between two
        slices so that it is consistent (no CPU is half-way through a store)."""
        if size < 0 or not self._is_kernel_range(vaddr, size):
            raise ValueError(f"{vaddr:#x}+{size} is not kernel memory")
        pa = kernel_virt_to_phys(vaddr)
        return self.with_cpus_stopped(lambda: self._ram().read(pa, size))

    def on_ram_loaded(self, fn: Callable[[PhysMem], None]) -> None:
        """fn(mem) once the guest's RAM is loaded, before any CPU runs (now,
        if it is): host-side state set before start() reaches the guest."""
        if self._mem is not None:
            fn(self._mem)
        else:
            self._attach_fns.append(fn)

    def text_poke_batch(self, patches: Iterable[tuple[int, bytes]]) -> None:
        """Every (addr, bytes) patch of kernel text in one stop-the-world;
        every CPU's translations of each range dropped."""
        start, end = self.image.text_range
        batch = [(addr, bytes(data)) for addr, data in patches]
        for addr, data in batch:
            if not (start <= addr and addr + len(data) <= end):
                raise ValueError(f"{addr:#x}+{len(data)} is not kernel text")
        if not batch:
            return

        def poke() -> None:
            for addr, data in batch:
                self._ram().write(kernel_virt_to_phys(addr), data)
            self._drop_translations([(addr, addr + len(data)) for addr, data in batch])
        self._stop_machine(poke)

    def text_poke(self, addr: int, data: bytes) -> None:
        """Patch kernel text with all CPUs stopped; drop their translations."""
        start, end = self.image.text_range
        if not (start <= addr and addr + len(data) <= end):
            raise ValueError(f"{addr:#x}+{len(data)} is not kernel text")

        def poke() -> None:
            self._ram().write(kernel_virt_to_phys(addr), bytes(data))
            self._drop_translations([(addr, addr + len(data))])
        self._stop_machine(poke)

    def _drop_translations(self, ranges: list[tuple[int, int]]) -> None:
        """Every CPU's translations of these executable kernel-map ranges (CPUs
        stopped, or the one running this from its hook)."""
        for cpu in self._cpus:
            cpu.drop_translations(ranges)

    def add_code_hook(self, addr: int, callback: Callable[[HookContext], None]) -> int:
        """callback(ctx) runs on every CPU before the instruction at addr
        executes; returns a handle for remove_code_hook."""
        if self._runner is None:
            return self._hooks.add(addr, callback)
        return self._stop_machine(lambda: self._hooks.add(addr, callback))

    def set_doorbell_handler(self, port: int,
                             fn: Callable[[HookContext, tuple[int, int, int, int]], None] | None) -> None:
        """fn(ctx, the CPU's doorbell arguments) runs on the CPU that rings `port` (an `out`
        the guest makes where host code must run: unlike a code hook, it costs nothing
        elsewhere); None removes it."""
        if fn is None:
            self._doorbells.pop(port, None)
        else:
            self._doorbells[port] = fn

    def remove_code_hook(self, handle: int) -> None:
        if self._runner is None or not self.running:
            self._hooks.remove(handle)
        else:
            self._stop_machine(lambda: self._hooks.remove(handle))

    def text_release(self, addr: int, data: bytes, callees: tuple[tuple[int, int], ...] = ()) -> bool:
        """Patch text that CPUs may be executing (a probe's out-of-line code):
        in one stop-the-world, only if no CPU runs in it, in the code ranges
        it calls (callees), or was interrupted in either; False (nothing
        patched) otherwise, to be tried again later."""
        start, end = self.image.text_range
        if not (start <= addr and addr + len(data) <= end):
            raise ValueError(f"{addr:#x}+{len(data)} is not kernel text")
        if not data:
            return True

        def release() -> bool:
            if self._hooks.executing([(addr, addr + len(data)), *callees], THREAD_SIZE):
                return False
            self._ram().write(kernel_virt_to_phys(addr), bytes(data))
            self._drop_translations([(addr, addr + len(data))])
            return True
        return self._stop_machine(release)

    def int3_delivered(self) -> int:
        """Kernel-mode int3s delivered through the guest's gate so far, all CPUs."""
        return sum(self._int3.delivered())

    def _is_kernel_range(self, vaddr: int, size: int) -> bool:
        if vaddr >= KERNEL_MAP:
            return vaddr - KERNEL_MAP + size <= self.ram_size
        return PAGE_OFFSET <= vaddr and vaddr - PAGE_OFFSET + size <= self.ram_size

    def _stop_machine(self, fn: Callable[[], T]) -> T:
        self._check_running()
        return self._loop().stop_machine(fn)

    def with_cpus_stopped(self, fn: Callable[[], T]) -> T:
        """fn reads (or writes) guest memory between two slices (no CPU half-way
        through a store); seeded, at the pause; stopped or panicked, right away."""
        if self.running:
            return self._loop().stop_machine(fn)
        return fn()

    def guest_op(self, fn: Callable[[], T]) -> T:
        """A host operation on guest memory: seeded, it acts while the machine
        is paused (deterministic); live, right away."""
        if self.options.seed is not None and self.running:
            return self._loop().stop_machine(fn)
        return fn()

    def _loop(self) -> Runner:
        if self._runner is None:
            raise MachineError("machine is not started")
        return self._runner

    def _ram(self) -> PhysMem:
        if self._mem is None:
            raise MachineError("machine is not started")
        return self._mem

    def _check_running(self) -> None:
        if self.panic_message:
            raise MachineError(self.panic_message)
        if self._runner is None or self._stopped:
            raise MachineError("machine is not running")


def _d_path(u64: Callable[[int], int], mem: PhysMem, path: int, off: dict[str, int]) -> str:
    """d_path() (fs/dcache.c's prepend_path, the namespace's root as the root) of the struct
    path at `path`: its names from the dentry up, crossing each mount to its mountpoint."""
    dentry, mount = u64(path + off["path.dentry"]), u64(path + off["path.mnt"]) - off["mount.mnt"]
    names: list[bytes] = []
    for _ in range(4096):
        if dentry == u64(mount + off["mount.mnt"] + off["vfsmount.mnt_root"]):
            parent = u64(mount + off["mount.mnt_parent"])
            if parent == mount:
                break
            dentry, mount = u64(mount + off["mount.mnt_mountpoint"]), parent
            continue
        parent = u64(dentry + off["dentry.d_parent"])
        if parent == dentry:
            break
        qstr = dentry + off["dentry.d_name"]
        length = struct.unpack_from("<I", mem.buf, kernel_virt_to_phys(qstr + off["qstr.len"]))[0]
        names.append(mem.read(kernel_virt_to_phys(u64(qstr + off["qstr.name"])), length))
        dentry = parent
    return "/" + "/".join(name.decode(errors="surrogateescape") for name in reversed(names))
