"""The run loop: one host thread interleaves the emulated CPUs.

Unicorn runs without MTTCG, so guest atomics (xchg, lock cmpxchg) are plain
load+store pairs: two CPUs emulated in parallel host threads can both take a
spinlock, or lose an unlock.  The CPUs are therefore interleaved on one thread
in fixed instruction quanta (emu_start count=).  A quantum cannot be ended by
emu_stop from another thread (or emu_start's timeout, which does the same):
Unicorn 2.1.4 then reports the PC of an instruction it already executed, and
resuming there repeats its memory effect (a counter loop overcounts by about
one per stop; a repeated xchg deadlocks a spinlock).  Counting costs ~2x in
emulation speed; it also makes a seeded run deterministic.  Between quanta the
loop delivers interrupts: the periodic tick of a busy CPU, a halted CPU's next
timer, IPIs and host requests.  Within a quantum the guest's trace clock
advances per read by the time EVENT_MIN_INSNS instructions take (measured per
quantum when live), so events in one quantum get distinct, ordered times.

Clocks: live, host monotonic time (a halted machine sleeps until the next
timer); seeded, instructions retired x a fixed cost per instruction, with idle
time skipped but never past wall-clock time.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

from unicorn import UcError

from .clock import TICK_NS, LiveClock, SeededClock
from .cpu import Cpu

VEC_TIMER, VEC_RESCHED, VEC_CALL_FUNC = 1, 2, 4
NEVER = 2**64 - 1
QUANTUM_INSNS = 20_000
# Fewer instructions than any traced event costs: the guest's trace clock
# advances by their time per read, so it stays behind the machine's clock.
EVENT_MIN_INSNS = 50
LIVE_NS_PER_INSN_GUESS = 50  # until a quantum has been measured
IDLE_POLL_S = 0.5


@dataclass
class CpuState:
    online: bool = False
    halted: bool = False
    pending: int = 0
    next_tick: int = 0


class Runner:
    def __init__(self, cpus: list[Cpu], hostif, vectors: dict[int, int], exceptions: dict[int, int],
                 halt_sites: frozenset[int], on_fault: Callable[[int, str], None],
                 seeded: bool):
        self.cpus = cpus
        self.hostif = hostif
        self.vectors = vectors  # VEC_* -> handler address
        self.exceptions = exceptions  # CPU exception vector -> handler address
        self.halt_sites = halt_sites
        self.on_fault = on_fault
        self.seeded = seeded
        self.clock = SeededClock() if seeded else LiveClock()
        self.state = [CpuState() for _ in cpus]
        self._lock = threading.Condition()
        self._commands: list[Callable[[], None]] = []
        self._stopping = False
        self._running: Cpu | None = None
        self._thread: threading.Thread | None = None
        self._pause_at: int | None = None
        self._paused = threading.Event()

    # ---- control from other threads ----
    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="cpus", daemon=True)
        self._thread.start()

    def request_stop(self) -> None:
        """The machine is abandoned, so an imprecise emu_stop does not matter."""
        with self._lock:
            self._stopping = True
            self._lock.notify_all()
            if self._running is not None:
                self._running.uc.emu_stop()

    def join(self) -> None:
        if self._thread and self._thread is not threading.current_thread():
            self._thread.join()

    def submit(self, fn: Callable[[], None]) -> None:
        """Run fn on the run-loop thread at the next quantum boundary."""
        with self._lock:
            self._commands.append(fn)
            self._lock.notify_all()

    def stop_machine(self, fn: Callable[[], object]):
        """Run fn with no CPU executing (on the run-loop thread)."""
        if threading.current_thread() is self._thread:
            return fn()
        done, box = threading.Event(), []

        def run():
            try:
                box.append(fn())
            except BaseException as e:  # re-raised in the caller
                box.append(e)
            finally:
                done.set()
        self.submit(run)
        while not done.wait(0.1):
            if self._stopping or not self._thread.is_alive():
                raise RuntimeError("machine stopped")
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    def set_pause_at(self, vns: int) -> None:
        """Seeded: hold at the first round boundary at or after vns."""
        self._paused.clear()
        with self._lock:
            self._pause_at = vns
            self._lock.notify_all()

    def wait_paused(self, timeout: float = 60.0) -> bool:
        return self._paused.wait(timeout)

    def resume(self) -> None:
        with self._lock:
            self._pause_at = None
            self._lock.notify_all()

    # ---- called on the run-loop thread (boot doorbells, hooks) ----
    def bring_online(self, cpu: int) -> None:
        self.state[cpu].online = True
        ns_per_insn = SeededClock.NS_PER_INSN if self.seeded else LIVE_NS_PER_INSN_GUESS
        self.hostif.set_trace_clock_step(cpu, EVENT_MIN_INSNS * ns_per_insn)

    def raise_irq(self, cpu: int, vec: int) -> None:
        self.state[cpu].pending |= vec

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
        for vec in (VEC_CALL_FUNC, VEC_RESCHED, VEC_TIMER):
            if st.pending & vec:
                if cpu.inject_interrupt(self.vectors[vec], self.hostif.top_of_stack(i)):
                    st.pending &= ~vec
                    st.halted = False
                    cpu.entering_idle = False
                return

    def _run_commands(self) -> None:
        with self._lock:
            commands, self._commands = self._commands, []
        for fn in commands:
            fn()

    def _round(self, now: int) -> bool:
        """Give each online CPU one quantum; True if any CPU ran."""
        ran = False
        for i, cpu in enumerate(self.cpus):
            st = self.state[i]
            if not st.online:
                continue
            if st.halted:
                if now >= self.hostif.next_event(i):
                    st.pending |= VEC_TIMER
                if not st.pending:
                    continue
                st.next_tick = now + TICK_NS
            elif now >= st.next_tick:
                st.pending |= VEC_TIMER
                st.next_tick = now + TICK_NS
            self.hostif.set_now(i, now)
            if st.pending:
                self._deliver(i)
            if st.halted:
                continue
            ran = True
            with self._lock:
                if self._stopping:
                    return ran
                self._running = cpu
            try:
                cpu.uc.emu_start(cpu.pc(), 0, count=QUANTUM_INSNS)
            finally:
                with self._lock:
                    self._running = None
            if cpu.pending_exception is not None:  # a user-mode fault stopped the run
                vector, error_code = cpu.pending_exception
                cpu.pending_exception = None
                cpu.raise_exception(self.exceptions[vector], self.hostif.top_of_stack(i), error_code)
            # halted only if the idle path announced it (a quantum may also end
            # right after the hlt when an interrupt returned there)
            if cpu.entering_idle and cpu.pc() in self.halt_sites:
                st.halted = True
                cpu.entering_idle = False
            if not self.seeded:
                after = self.clock.now()
                if not st.halted:  # a whole quantum: the wall time of its instructions
                    self.hostif.set_trace_clock_step(i, (after - now) * EVENT_MIN_INSNS // QUANTUM_INSNS)
                now = after
        return ran

    def _next_event(self) -> int:
        return min((self.hostif.next_event(i) for i, st in enumerate(self.state)
                    if st.online and st.halted), default=NEVER)

    def _all_idle(self) -> bool:
        return all(st.halted and not st.pending for st in self.state if st.online)

    def _loop(self) -> None:
        try:
            while True:
                self._hold_if_paused()
                if self._stopping:
                    return
                self._run_commands()
                now = self.clock.now()
                ran = self._round(now)
                if self._stopping:
                    return
                if self.seeded:
                    self._advance_seeded(now, ran)
                elif self._all_idle():
                    self._sleep_until(self._next_event())
        except UcError as e:
            bad = self._running or self.cpus[0]
            self.on_fault(bad.index, f"cpu{bad.index}: {e} at {bad.pc():#x}")

    def _hold_if_paused(self) -> None:
        with self._lock:
            while (self._pause_at is not None and self.clock.now() >= self._pause_at
                   and not self._stopping):
                self._paused.set()
                if self._commands:  # e.g. stop_machine() callers inspecting the paused guest
                    self._lock.release()
                    try:
                        self._run_commands()
                    finally:
                        self._lock.acquire()
                    continue
                self._lock.wait(IDLE_POLL_S)

    def _sleep_until(self, deadline_ns: int) -> None:
        """Live, all CPUs halted: sleep until the next timer or a request."""
        with self._lock:
            if self._commands or self._stopping or any(st.pending for st in self.state):
                return
            wait = (deadline_ns - self.clock.now()) / 1e9
            if wait > 0:
                self._lock.wait(min(wait, IDLE_POLL_S))

    def _advance_seeded(self, now: int, ran: bool) -> None:
        clock = self.clock
        quantum_ns = QUANTUM_INSNS * clock.NS_PER_INSN
        if ran or not self._all_idle():
            clock.vnow = now + quantum_ns
        else:
            nxt = self._next_event()
            target = max(nxt, now + quantum_ns) if nxt != NEVER else now + quantum_ns
            if self._pause_at is None:
                # skip idle time, but never past the wall clock
                with self._lock:
                    wait = (target - clock.wall_elapsed()) / 1e9
                    if wait > 0 and not self._commands and not self._stopping:
                        self._lock.wait(min(wait, IDLE_POLL_S))
                    if clock.wall_elapsed() < target:
                        return  # woken early (request or poll): re-check at the same time
            clock.vnow = target
        # a busy seeded machine may run slower than real time, never faster
        ahead = clock.vnow - clock.wall_elapsed()
        if ahead > 50_000_000 and self._pause_at is None:
            with self._lock:
                if not self._commands and not self._stopping:
                    self._lock.wait(ahead / 1e9)
