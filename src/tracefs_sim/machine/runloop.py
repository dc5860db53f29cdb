"""The run loop: one host thread interleaves the emulated CPUs.

Unicorn runs without MTTCG, so guest atomics (xchg, lock cmpxchg) are plain
load+store pairs: two CPUs emulated in parallel host threads can both take a
spinlock, or lose an unlock.  The CPUs are therefore interleaved on one thread
in slices, each ended exactly at an instruction boundary (slicer.py): on a live
machine by a timer thread once this thread has had LIVE_SLICE_NS of CPU time,
on a seeded one (or while a code hook is installed) by a native block hook
after SLICE_BYTES bytes of code.  Between slices the loop delivers interrupts:
the periodic tick of a busy CPU, a halted CPU's next timer, IPIs and host
requests.  Within a slice the guest's trace clock advances per read by a step
shorter than any traced event takes (the time EVENT_MIN_BYTES bytes of code
take), so events in one slice get distinct, ordered times.

On a live machine whose slices all end by time, the loop between slices runs
natively (native/runloop.c: ticks, wake-ups, interrupt injection), slice after
slice with the GIL released, and comes back here only when Python has
something to do: a command or stop request, a hook that ran Python, the trace
doorbell (which the CPUs' `out` hook only notes), all CPUs halted.  Done here,
the same work took the GIL several times a slice, and each take waited for the
trace core's threads while they ran Python.

Clocks: live, host monotonic time (a halted machine sleeps until the next
timer); seeded, bytes of guest code executed x SeededClock.NS_PER_BYTE (each
round of slices advances it by the most any CPU executed), with idle time
skipped.

Seeded runs are deterministic end to end because the machine runs only while
there is work a command asked for, and host commands act only while it is
paused: after boot it runs SETTLE_NS more and pauses; a spawn (posted while
paused) resumes it until every spawned program has exited, then it runs
SETTLE_NS more and pauses again.  Everything else that touches the guest
(stop_machine: text_poke, tracing control and drains, read_memory, tasks)
waits for the pause.  While it runs for a spawn, a seeded machine keeps its
virtual clock from getting ahead of the wall clock (a `sleep 1` takes a
second); that changes when the host sees things, never what the guest does.
"""
from __future__ import annotations

import ctypes
import functools
import threading
from typing import TYPE_CHECKING, Callable, TypeVar

from unicorn import UcError
from unicorn.x86_const import UC_X86_REG_RIP

from . import native_lib
from .clock import LiveClock, SeededClock
from .cpu import _REGS, RSP, Cpu, _uclib_address, kernel_mode_enter_address
from .hostif import CPU_NEXT_EVENT, CPU_NOW_NS, CPU_NOW_TSC, CPU_PMU, CPU_TOP_OF_STACK, HostInterface
from .pmu import Pmu
from .image import KERNEL_MAP, PAGE_OFFSET
from .slicer import SliceTimer

if TYPE_CHECKING:
    from .nvme import NvmeDisk

T = TypeVar("T")

VEC_TIMER, VEC_RESCHED, VEC_CALL_FUNC, VEC_NMI = 1, 2, 4, 8  # VEC_NMI: the PMU's (pmu.py)
FIRST_EXTERNAL_VECTOR = 0x20  # external vector v enters at irq_entries + 8 * (v - 0x20)
NEVER = 2**64 - 1
# emu_start re-entry costs ~6 us: slices long enough that it does not count
SLICE_BYTES = 800_000  # about 200k instructions
LIVE_SLICE_NS = 1_000_000  # of the run-loop thread's CPU time
# Less code than any traced event runs: the guest's trace clock advances by
# its time per read, so it stays behind the machine's clock.
EVENT_MIN_BYTES = 200
# Live, that code's time at 10 bytes/ns: about twice the fastest Unicorn runs
# this kernel here (~5.5 bytes/ns with no hooks and no exit checks, off-cost),
# so shorter than it takes on any host.
LIVE_EVENT_MIN_NS = EVENT_MIN_BYTES // 10
SETTLE_NS = 100_000_000  # seeded: virtual time run after boot and after the last spawned program exits
IDLE_POLL_S = 0.5


# native/runloop.c's answers: why loop_run() returned
LOOP_REQUEST, LOOP_PYTHON, LOOP_IDLE, LOOP_ERROR, LOOP_BAD_STACK = 1, 2, 3, 4, 5
DIRECT_MAP_SIZE = 1 << 40  # paging.kernel_virt_to_phys's direct map


class CpuState(ctypes.Structure):  # struct loop_cpu in native/runloop.c
    """A CPU's run-loop state (online, halted, pending VEC_* bits, external vectors in irr),
    shared with the native loop, which also gets the rest set up once."""
    _fields_ = [("online", ctypes.c_int32), ("halted", ctypes.c_int32),
                ("pending", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("irr", ctypes.c_uint64 * 4),
                ("uc", ctypes.c_void_p), ("events", ctypes.c_void_p),
                ("syscall_cpu", ctypes.c_void_p), ("syscall_error", ctypes.c_void_p),
                ("now_pa", ctypes.c_uint64), ("next_event_pa", ctypes.c_uint64),
                ("top_of_stack_pa", ctypes.c_uint64), ("now_tsc_pa", ctypes.c_uint64),
                ("ids", ctypes.c_int32 * len(_REGS)), ("vals", ctypes.c_uint64 * len(_REGS)),
                ("ptrs", ctypes.c_void_p * len(_REGS))]


def _raised(st: CpuState) -> bool:
    """An interrupt waits for the CPU: a system vector or an external one."""
    return bool(st.pending or st.irr[0] or st.irr[1] or st.irr[2] or st.irr[3])


class NativeLoop(ctypes.Structure):  # struct loop in native/runloop.c
    _fields_ = [("timer", ctypes.c_void_p), ("budget_ns", ctypes.c_uint64),
                ("ram", ctypes.c_void_p), ("ram_size", ctypes.c_uint64),
                ("clock_zero", ctypes.c_uint64),
                ("handlers", ctypes.c_uint64 * 3),
                ("irq_entries", ctypes.c_uint64), ("hpet_pa", ctypes.c_uint64),
                ("halt_sites", ctypes.c_void_p), ("nr_halt_sites", ctypes.c_uint64),
                ("kernel_map", ctypes.c_uint64), ("page_offset", ctypes.c_uint64),
                ("direct_map_size", ctypes.c_uint64),
                ("emu_start", ctypes.c_void_p), ("emu_stop", ctypes.c_void_p), ("reg_read", ctypes.c_void_p),
                ("reg_read_batch", ctypes.c_void_p), ("reg_write_batch", ctypes.c_void_p),
                ("kernel_mode_enter", ctypes.c_void_p),
                ("rip_id", ctypes.c_int32), ("nr_cpus", ctypes.c_int32),
                ("cpus", ctypes.c_void_p),
                ("exit_request", ctypes.c_int32), ("cursor", ctypes.c_int32),
                ("cpu", ctypes.c_int32), ("error", ctypes.c_int32),
                ("nvme", ctypes.c_void_p), ("nmi_handler", ctypes.c_uint64)]


@functools.cache
def _loop_run() -> Callable[[ctypes._CArgObject], int]:
    fn = native_lib.load("slice").loop_run
    fn.argtypes = [ctypes.c_void_p]
    fn.restype = ctypes.c_int
    return fn


class Runner:
    def __init__(self, cpus: list[Cpu], hostif: HostInterface, vectors: dict[int, int], irq_entries: int,
                 exceptions: dict[int, int], halt_sites: frozenset[int], on_fault: Callable[[int, str], None],
                 seeded: bool, disk: NvmeDisk | None = None):
        self.cpus = cpus
        self.disk = disk  # the NVMe-like disk (nvme.py), or None
        self.hostif = hostif
        self.vectors = vectors  # VEC_* -> handler address (VEC_NMI: vector 2's)
        self.irq_entries = irq_entries  # the stub of external vector 0x20
        self.exceptions = exceptions  # CPU exception vector -> handler address
        self.halt_sites = halt_sites
        self.on_fault = on_fault
        self.seeded = seeded
        self.clock: SeededClock | LiveClock = SeededClock() if seeded else LiveClock()
        if isinstance(self.clock, LiveClock):
            hostif.set_boot_clocks(self.clock.zero_ns, self.clock.boottime_zero_ns)
        self._states = (CpuState * len(cpus))()  # one array: the native loop's cpus
        self.state = list(self._states)
        self._lock = threading.Condition()
        self._commands: list[Callable[[], None]] = []
        self._stopping = False
        self._running: Cpu | None = None
        self._thread: threading.Thread | None = None
        self._now = 0  # the current round's time
        # seeded: hold at the first round at or after this time (None: run on)
        self._pause_at: int | None = None
        self._work = 0  # seeded: spawned programs still running
        self._after_round: list[Callable[[], None]] = []  # seeded: after_round()'s, in order
        self._paused = threading.Event()
        self._timer: SliceTimer | None = None  # live: ends the slices (run-loop thread)
        self._native: NativeLoop | None = None  # live: the native loop (run-loop thread)
        self.pmus = [Pmu(cpu, hostif.mem.address + hostif.percpu_pa(i) + CPU_PMU, seeded)
                     for i, cpu in enumerate(cpus)]

    # ---- control from other threads ----
    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="cpus", daemon=True)
        self._thread.start()

    def request_stop(self) -> None:
        """The machine is abandoned, so an imprecise emu_stop does not matter."""
        with self._lock:
            self._stopping = True
            self._lock.notify_all()
            self._recall_native()
            if self._running is not None:
                self._running.uc.emu_stop()

    def join(self) -> None:
        if self._thread and self._thread is not threading.current_thread():
            self._thread.join()

    def submit(self, fn: Callable[[], None]) -> None:
        """Run fn on the run-loop thread: at the next slice boundary (live) or
        once the machine is paused (seeded)."""
        with self._lock:
            self._commands.append(fn)
            self._lock.notify_all()
            self._recall_native()

    def _recall_native(self) -> None:
        """The native loop returns at the next slice boundary (called under _lock)."""
        if self._native is not None:
            self._native.exit_request = 1

    def stop_machine(self, fn: Callable[[], T]) -> T:
        """Run fn with no CPU executing (on the run-loop thread)."""
        thread = self._thread
        if threading.current_thread() is thread:
            return fn()
        done = threading.Event()
        result: list[T] = []
        error: list[BaseException] = []

        def run() -> None:
            try:
                result.append(fn())
            except BaseException as e:  # re-raised in the caller
                error.append(e)
            finally:
                done.set()
        self.submit(run)
        while not done.wait(0.1):
            if self._stopping or thread is None or not thread.is_alive():
                raise RuntimeError("machine stopped")
        if error:
            raise error[0]
        return result[0]

    def wait_paused(self, timeout: float = 60.0) -> bool:
        """Seeded: wait until the machine holds with no command-requested work."""
        return self._paused.wait(timeout)

    # ---- seeded work accounting (run-loop thread: hooks and commands) ----
    def booted(self) -> None:
        if self.seeded and not self._work:
            self._pause_at = self._now + SETTLE_NS

    def begin_work(self) -> None:
        """A command (spawn) needs the guest to run until end_work()."""
        if self.seeded:
            self._work += 1
            self._pause_at = None
            self._paused.clear()

    def end_work(self) -> None:
        if self.seeded:
            self._work -= 1
            if not self._work:
                self._pause_at = self._now + SETTLE_NS

    # ---- called on the run-loop thread (boot doorbells, hooks) ----
    def bring_online(self, cpu: int) -> None:
        self.state[cpu].online = True
        step = EVENT_MIN_BYTES * SeededClock.NS_PER_BYTE if self.seeded else LIVE_EVENT_MIN_NS
        self.hostif.set_trace_clock_step(cpu, step)

    def cpu_now(self, cpu: Cpu) -> int:
        """The time on a CPU that is running a slice (from its hooks): seeded,
        the round's time plus the code it has executed in the slice."""
        if self.seeded:
            return self._now + cpu.slice_executed() * SeededClock.NS_PER_BYTE
        return self.clock.now()

    def after_round(self, fn: Callable[[], None]) -> None:
        """Seeded, on the run-loop thread (a doorbell's hook): fn runs once this round of
        slices ends, on this thread with no CPU executing.  A command would wait for the
        pause, which work waiting for fn never reaches; this point is fixed by the guest's own
        progress, so the run stays deterministic."""
        self._after_round.append(fn)

    def raise_irq(self, cpu: int, vec: int) -> None:
        self.state[cpu].pending |= vec

    def _hpet_fire(self, now: int) -> None:
        """native/runloop.c's hpet_fire: the HPET's comparator reached, its interrupt raised
        (once: the comparator disarms)."""
        fired = self.hostif.hpet_fire(now)
        if fired is not None and fired[0] < len(self.state):
            cpu, vector = fired
            self.state[cpu].irr[vector // 64] |= 1 << (vector % 64)

    def _nvme_fire(self, now: int) -> None:
        """native/runloop.c's nvme_fire: the disk fetches what its doorbell announced and
        completes what is due, raising its interrupt for the completions it posts."""
        fired = self.disk.poll(now) if self.disk is not None else None
        if fired is not None and fired[0] < len(self.state):
            cpu, vector = fired
            self.state[cpu].irr[vector // 64] |= 1 << (vector % 64)

    def fail(self, message: str) -> None:
        self.request_stop()

    # ---- the loop ----
    def _deliver(self, i: int) -> None:
        """Inject the most urgent pending vector if the CPU accepts interrupts."""
        st, cpu = self.state[i], self.cpus[i]
        # sti's interrupt shadow: an interrupt taken between `sti` and `hlt`
        # would return to the hlt and sleep through the wakeup; let it halt first.
        if cpu.pc() + 1 in self.halt_sites:
            return
        # not maskable: whatever EFLAGS.IF, but not inside the NMI handler (until its iret)
        if st.pending & VEC_NMI and not self.pmus[i].in_nmi(cpu.read_regs()[RSP]):
            cpu.inject_nmi(self.vectors[VEC_NMI], self.hostif.top_of_stack(i), self.pmus[i].nmi_stack())
            st.pending &= ~VEC_NMI
            st.halted = False
            cpu.entering_idle = False
            return
        for vec in (VEC_CALL_FUNC, VEC_RESCHED, VEC_TIMER):
            if st.pending & vec:
                if cpu.inject_interrupt(self.vectors[vec], self.hostif.top_of_stack(i)):
                    st.pending &= ~vec
                    st.halted = False
                    cpu.entering_idle = False
                return
        for k in (3, 2, 1, 0):  # the highest external vector first, as the local APIC
            if st.irr[k]:
                vector = 64 * k + st.irr[k].bit_length() - 1
                handler = self.irq_entries + 8 * (vector - FIRST_EXTERNAL_VECTOR)
                if cpu.inject_interrupt(handler, self.hostif.top_of_stack(i)):
                    st.irr[k] &= ~(1 << (vector % 64))
                    st.halted = False
                    cpu.entering_idle = False
                return

    def _run_commands(self) -> None:
        with self._lock:
            commands, self._commands = self._commands, []
        for fn in commands:
            fn()

    def _round(self, now: int) -> int:
        """Give each online CPU one slice; seeded, the most bytes of code one of
        them executed (0: none ran)."""
        ran = 0
        for i, cpu in enumerate(self.cpus):
            st = self.state[i]
            if not st.online:
                continue
            self._hpet_fire(now)
            self._nvme_fire(now)
            if self.hostif.lapic_timer_fire(i, now):
                st.pending |= VEC_TIMER
            if st.halted and not _raised(st):
                continue
            self.hostif.set_now(i, now)
            if _raised(st):
                self._deliver(i)
            if st.halted:
                continue
            with self._lock:
                if self._stopping:
                    return ran
                self._running = cpu
            pmu = self.pmus[i]
            # the slice ends near the overflow of an interrupting counter
            budget_ns = pmu.budget(SLICE_BYTES * SeededClock.NS_PER_BYTE if self.seeded else LIVE_SLICE_NS)
            pmu.slice_begin()
            try:
                executed = cpu.run_slice(max(1, budget_ns // SeededClock.NS_PER_BYTE), timer=self._timer,
                                         budget_ns=budget_ns)
            finally:
                with self._lock:
                    self._running = None
            if pmu.slice_end(cpu):
                st.pending |= VEC_NMI
            ran = max(ran, executed or 0, 1)
            self._after_slice(i)
            if not self.seeded:
                now = self.clock.now()
        return ran

    def _after_slice(self, i: int) -> None:
        """What a CPU's slice left for Python: a fault, a halt, the trace doorbell, the PMU's hook."""
        cpu, st = self.cpus[i], self.state[i]
        cpu.events.python_ran = 0
        self.pmus[i].follow_programming()
        if cpu.pending_exception is not None:  # a user-mode fault stopped the run
            vector, error_code = cpu.pending_exception
            cpu.pending_exception = None
            cpu.raise_exception(self.exceptions[vector], self.hostif.top_of_stack(i), error_code)
        # halted only if the idle path announced it (a slice may also end
        # right after the hlt when an interrupt returned there)
        if cpu.entering_idle and cpu.pc() in self.halt_sites:
            st.halted = True
            cpu.entering_idle = False
        cpu.pass_on_deferred()

    def _new_native_loop(self, timer: SliceTimer) -> NativeLoop:
        clock = self.clock
        if not isinstance(clock, LiveClock):
            raise RuntimeError("the native loop runs live machines")
        sites = sorted(self.halt_sites)
        self._halt_sites = (ctypes.c_uint64 * len(sites))(*sites)  # kept alive
        mem = self.hostif.mem
        for i, (cpu, st) in enumerate(zip(self.cpus, self.state)):
            st.uc, st.events, st.syscall_cpu, st.syscall_error = cpu.native_refs()
            # a doorbell after a slice's time without one goes on at once (native/cpu_events.h)
            cpu.events.quiet_ns = LIVE_SLICE_NS
            pa = self.hostif.percpu_pa(i)
            st.now_pa, st.next_event_pa, st.top_of_stack_pa, st.now_tsc_pa = (
                pa + CPU_NOW_NS, pa + CPU_NEXT_EVENT, pa + CPU_TOP_OF_STACK, pa + CPU_NOW_TSC)
            st.ids[:] = _REGS
            base = ctypes.addressof(st) + CpuState.vals.offset
            st.ptrs[:] = [base + 8 * k for k in range(len(_REGS))]
        return NativeLoop(
            timer=timer.handle, budget_ns=timer.budget_ns, ram=mem.address,
            ram_size=mem.size, clock_zero=clock.zero_ns,
            handlers=(ctypes.c_uint64 * 3)(*(self.vectors[v] for v in (VEC_CALL_FUNC, VEC_RESCHED, VEC_TIMER))),
            irq_entries=self.irq_entries, hpet_pa=self.hostif.hpet,
            halt_sites=ctypes.addressof(self._halt_sites), nr_halt_sites=len(sites),
            kernel_map=KERNEL_MAP, page_offset=PAGE_OFFSET, direct_map_size=DIRECT_MAP_SIZE,
            emu_start=_uclib_address("uc_emu_start"), emu_stop=_uclib_address("uc_emu_stop"),
            reg_read=_uclib_address("uc_reg_read"),
            reg_read_batch=_uclib_address("uc_reg_read_batch"),
            reg_write_batch=_uclib_address("uc_reg_write_batch"),
            kernel_mode_enter=kernel_mode_enter_address(), rip_id=UC_X86_REG_RIP,
            nmi_handler=self.vectors[VEC_NMI],
            nr_cpus=len(self.cpus), cpus=ctypes.addressof(self._states),
            nvme=self.disk.address if self.disk is not None else None)

    def _run_native(self) -> None:
        """Slices until Python has something to do (native/runloop.c)."""
        loop = self._native
        with self._lock:
            if loop is None or self._stopping or self._commands:
                return
            loop.exit_request = 0
        why = _loop_run()(ctypes.byref(loop))
        i = loop.cpu
        if why == LOOP_ERROR:
            self._running = self.cpus[i]  # the fault report names it
            raise UcError(loop.error)
        if why == LOOP_PYTHON:
            self.cpus[i].check_run()
            self._after_slice(i)
        elif why == LOOP_BAD_STACK:
            self._deliver(i)  # fails here as it always did
        for cpu in self.cpus:  # doorbells rung since the last one passed on
            cpu.pass_on_deferred()
        if why == LOOP_IDLE and self._all_idle():
            self._sleep_until(self._next_event())

    def _next_event(self) -> int:
        """The earliest event that wakes a halted CPU: its local APIC timer's, the HPET's, or
        the disk's next completion."""
        local = min((self.hostif.next_event(i) for i, st in enumerate(self.state)
                     if st.online and st.halted), default=NEVER)
        disk = self.disk.next_event() if self.disk is not None else NEVER
        return min(local, self.hostif.hpet_deadline(), disk)

    def _all_idle(self) -> bool:
        return all(st.halted and not _raised(st) for st in self.state if st.online)

    def _loop(self) -> None:
        if not self.seeded:
            timer = self._timer = SliceTimer(LIVE_SLICE_NS)
            self._native = self._new_native_loop(timer)
        try:
            while True:
                self._hold_if_paused()
                if self._stopping:
                    return
                if not self.seeded:
                    self._run_commands()
                    if all([cpu.slice_by_time() for cpu in self.cpus]):
                        self._run_native()
                        continue
                now = self._now = self.clock.now()
                ran = self._round(now)
                if self._stopping:
                    return
                while self._after_round:
                    self._after_round.pop(0)()
                if self.seeded:
                    self._advance_seeded(now, ran)
                elif self._all_idle():
                    self._sleep_until(self._next_event())
        except UcError as e:
            bad = self._running or self.cpus[0]
            self.on_fault(bad.index, f"cpu{bad.index}: {e} at {bad.pc():#x}")
        finally:
            if self._timer is not None:
                self._timer.close()

    def _hold_if_paused(self) -> None:
        """Seeded: hold here, running commands, until one asks for work."""
        held = False
        with self._lock:
            while (self._pause_at is not None and self.clock.now() >= self._pause_at
                   and not self._stopping):
                held = True
                self._paused.set()
                if self._commands:  # e.g. stop_machine() callers inspecting the paused guest
                    self._lock.release()
                    try:
                        self._run_commands()
                    finally:
                        self._lock.acquire()
                    continue
                self._lock.wait(IDLE_POLL_S)
        if held and isinstance(self.clock, SeededClock):  # pace the work that follows from here,
            self.clock.sync_wall()                          # not from boot

    def _sleep_until(self, deadline_ns: int) -> None:
        """Live, all CPUs halted: sleep until the next timer or a request."""
        with self._lock:
            if self._commands or self._stopping or any(st.pending for st in self.state):
                return
            wait = (deadline_ns - self.clock.now()) / 1e9
            if wait > 0:
                self._lock.wait(min(wait, IDLE_POLL_S))

    def _advance_seeded(self, now: int, ran: int) -> None:
        clock = self.clock
        if not isinstance(clock, SeededClock):
            raise RuntimeError("a live machine's clock is not advanced")
        slice_ns = SLICE_BYTES * clock.NS_PER_BYTE
        if ran:
            clock.vnow = now + ran * clock.NS_PER_BYTE
        elif not self._all_idle():  # interrupts pending, none accepted yet
            clock.vnow = now + slice_ns
        else:
            nxt = self._next_event()
            target = max(nxt, now + slice_ns) if nxt != NEVER else now + slice_ns
            if self._pause_at is None:
                # skip idle time, but never past the wall clock
                with self._lock:
                    wait = (target - clock.wall_elapsed()) / 1e9
                    if wait > 0 and not self._stopping:
                        self._lock.wait(min(wait, IDLE_POLL_S))
                    if clock.wall_elapsed() < target:
                        return  # woken early (poll): re-check at the same time
            clock.vnow = target
        # a busy seeded machine may run slower than real time, never faster
        ahead = clock.vnow - clock.wall_elapsed()
        if ahead > 50_000_000 and self._pause_at is None:
            with self._lock:
                if not self._stopping:
                    self._lock.wait(ahead / 1e9)
