"""A live machine's run loop between slices is native (native/runloop.c) and the
trace doorbell is only noted by the `out` hook (native/ports.c): a busy guest
runs without the CPU thread running Python, yet it gets its ticks, host
requests are answered at once, and doorbells reach Python between slices."""
import ctypes
import struct
import threading
import time

from tracefs_sim.machine import native_lib
from tracefs_sim.machine.cpu import CpuEvents
from tracefs_sim.machine.hostif import PORT_TRACE, PORT_WRITE

HZ = 250
BUSY = ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=2000000"]  # no output: no hook runs Python


def jiffies(m):
    return struct.unpack("<Q", m.read_memory(m.image.lookup("jiffies").addr, 8))[0]


def test_a_busy_cpu_runs_slices_and_ticks_without_python(make_machine, cpu_thread_calls):
    m = make_machine(cpus=1)
    calls = cpu_thread_calls(m)
    proc = m.spawn(BUSY)
    time.sleep(0.2)
    stops, before, j0, t0 = m._runner._timer.stops, calls[0], jiffies(m), time.monotonic()
    time.sleep(0.5)
    stops, during = m._runner._timer.stops - stops, calls[0] - before
    ticks, elapsed = jiffies(m) - j0, time.monotonic() - t0
    assert proc.wait(0) is None, "dd ended early: the window was not busy"
    assert stops >= 50  # slices ended by time all along
    # A Python round took a dozen calls a slice; reading jiffies above takes a few. A starved
    # host runs fewer slices in the window, so the bound is one call a slice: still 12x under.
    assert during < stops
    assert ticks >= elapsed * HZ * 0.5  # the busy CPU got its periodic tick
    assert proc.wait(60) == 0


def test_requests_are_answered_while_cpus_are_busy(make_machine):
    m = make_machine(cpus=2)
    procs = [m.spawn(BUSY), m.spawn(BUSY)]
    time.sleep(0.1)
    waits = []
    for _ in range(20):
        t0 = time.monotonic()
        m._runner.stop_machine(lambda: None)
        waits.append(time.monotonic() - t0)
    # Slices are 1 ms: the loop comes back at the next one, not when dd ends (seconds away).
    # The bounds leave room for a loaded host's stalls.
    assert sorted(waits)[len(waits) // 2] < 0.05 and max(waits) < 0.5
    assert all(p.wait(0) is None for p in procs)
    t0 = time.monotonic()
    m.stop()
    assert time.monotonic() - t0 < 2.0
    assert all(p.wait(1) is not None for p in procs)  # released as killed


def test_the_out_hook_defers_the_trace_doorbell_and_calls_python_for_others():
    seen = []
    out = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32,
                           ctypes.c_void_p)(lambda uc, port, size, value, data: seen.append((port, size, value)))
    events = CpuEvents(deferred_port=PORT_TRACE, python_out=ctypes.cast(out, ctypes.c_void_p).value)
    hook = native_lib.load("ports").port_out_hook
    hook.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p]
    hook.restype = None
    for _ in range(3):
        hook(None, PORT_TRACE, 1, 0, ctypes.byref(events))
    assert seen == [] and events.deferred == 1 and events.python_ran == 0
    hook(None, PORT_WRITE, 1, 7, ctypes.byref(events))
    assert seen == [(PORT_WRITE, 1, 7)] and events.python_ran == 1


def test_under_the_native_loop_a_doorbell_after_a_quiet_spell_ends_the_slice():
    stops = []
    emu_stop = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(lambda uc: stops.append(uc) or 0)
    events = CpuEvents(deferred_port=PORT_TRACE, quiet_ns=10**9)
    hook = native_lib.load("ports").port_out_hook
    hook.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p]
    hook.restype = None
    hook(None, PORT_TRACE, 1, 0, ctypes.byref(events))
    assert stops == []  # no native loop running it (seeded, hooks): slices end as they would
    events.emu_stop = ctypes.cast(emu_stop, ctypes.c_void_p).value
    for _ in range(3):
        hook(None, PORT_TRACE, 1, 0, ctypes.byref(events))
    assert len(stops) == 1 and events.passed_at > 0  # then not again within the quiet spell
    events.passed_at -= 10**9
    hook(None, PORT_TRACE, 1, 0, ctypes.byref(events))
    assert len(stops) == 2


def test_trace_doorbells_reach_the_drain_between_slices(make_machine):
    m = make_machine(cpus=1)
    sys_enter = next(e for e in m.image.events if e.name == "sys_enter")
    m.tracing.set_event_id(sys_enter, 100)
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(sys_enter, 0, True)
    rang, threads = [], set()
    doorbell = m.tracing.doorbell

    def counting_doorbell():
        rang.append(1)
        threads.add(threading.current_thread().name)
        doorbell()
    m.tracing.doorbell = counting_doorbell
    proc = m.spawn(["dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=50000"])
    pages = 0
    while True:
        running = proc.wait(0) is None
        if m.tracing.wait_for_data(0.1):
            pages += sum(p.complete for p in m.tracing.drain(0))
        elif not running:
            break
    assert proc.wait(0) == 0
    assert pages > 10 and rang and threads == {"cpus"}
