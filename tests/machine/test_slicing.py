"""Slices ended by a timer thread stop at an instruction boundary and report
the right address (slicer.py): a guest loop stopped thousands of times at
random moments keeps a memory counter and a register counter equal, which a
repeated `inc [mem]` would break.  A live machine's slices end by time until a
hook needs Unicorn's exit checks, then by a block hook, and by time again once
it is gone."""
import time

from unicorn import UC_ARCH_X86, UC_HOOK_CODE, UC_HOOK_INTR, UC_MODE_64
from unicorn.x86_const import (
    UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RIP,
)

from tracefs_sim.machine.slicer import SlicedUc, Slicer, SliceTimer, engine_flags

CODE, DATA = 0x1000, 0x2000
COUNTER, SWAPPED = DATA, DATA + 8
# loop: inc qword [COUNTER]; inc rcx; mov rax, rcx; xchg [SWAPPED], rax;
#       add rdx, rax; jmp loop
# (rdx sums the values xchg read back: each is the rcx of the pass before, if no pass repeats)
LOOP = bytes.fromhex("48ff042500200000" "48ffc1" "4889c8" "48870425" "08200000" "4801c2")
LOOP += b"\xeb" + bytes([256 - len(LOOP) - 2])
STOPS = 3000
BUDGET_NS = 20_000


def looping_uc() -> SlicedUc:
    uc = SlicedUc(UC_ARCH_X86, UC_MODE_64)
    uc.mem_map(0, 0x10000)
    uc.mem_write(CODE, LOOP)
    uc.reg_write(UC_X86_REG_RIP, CODE)
    return uc


def counters(uc) -> tuple[int, int, int, int]:
    """(memory counter, passes counted in rcx, sum of xchg's reads, the sum if no pass repeated)"""
    passes = uc.reg_read(UC_X86_REG_RCX)
    mem = int.from_bytes(uc.mem_read(COUNTER, 8), "little")
    return mem, passes, uc.reg_read(UC_X86_REG_RDX), passes * (passes - 1) // 2


def test_the_engine_flags_are_found():
    assert engine_flags() is not None


def test_the_engine_flags_kept_in_their_start_cache_are_the_ones_found_in_the_code():
    from tracefs_sim.machine import slicer

    assert engine_flags() == slicer._find_engine_flags(*(slicer._code(s, n) for s, n in slicer._FLAG_CODE))


def test_timer_stops_repeat_nothing():
    uc = looping_uc()
    slicer, timer = Slicer(uc), SliceTimer(BUDGET_NS)
    try:
        for _ in range(STOPS):  # the loop never ends: each run ends by the timer
            slicer.run(uc.reg_read(UC_X86_REG_RIP), 0, 0, timer)
        assert timer.stops >= STOPS
    finally:
        timer.close()
    assert uc.reg_read(UC_X86_REG_RIP) == CODE  # the loop is one block: stops are at its start
    mem, passes, total, expected = counters(uc)
    assert passes > STOPS
    assert mem == passes
    assert total == expected


def test_with_the_exit_checks_on_a_timer_stop_repeats_instructions():
    """Why the slicer turns the checks off (the test above would catch a repeat)."""
    uc = looping_uc()
    timer = SliceTimer(BUDGET_NS)
    try:
        for _ in range(STOPS):
            timer.run(uc, uc.reg_read(UC_X86_REG_RIP), 0)
    finally:
        timer.close()
    mem, passes, _, _ = counters(uc)
    assert mem > passes


def test_a_code_hook_makes_slices_end_by_code_executed():
    uc = looping_uc()
    slicer, timer = Slicer(uc), SliceTimer(BUDGET_NS)
    hits = []
    try:
        handle = uc.hook_add(UC_HOOK_CODE, lambda *a: hits.append(1), None, CODE, CODE)
        executed = slicer.run(CODE, 4096, 0, timer)
        assert executed >= 4096 and timer.stops == 0 and hits
        mem, passes, _, _ = counters(uc)
        assert mem == passes > 0
        uc.hook_del(handle)
        assert slicer.run(uc.reg_read(UC_X86_REG_RIP), 4096, 0, timer) is None
        assert timer.stops >= 1
    finally:
        timer.close()


def test_a_stop_before_the_run_does_not_shorten_it():
    uc = looping_uc()
    slicer, timer = Slicer(uc), SliceTimer(2_000_000)
    try:
        slicer.run(CODE, 0, 0, timer)
        uc.emu_stop()  # between runs, as a late stop from the timer would be
        start = time.thread_time_ns()
        slicer.run(uc.reg_read(UC_X86_REG_RIP), 0, 0, timer)
        assert time.thread_time_ns() - start >= 1_500_000
    finally:
        timer.close()


def test_live_machine_slices_switch_with_code_hooks(make_machine, run_program):
    m = make_machine(cpus=2)
    runner = m._runner
    before = runner._timer.stops
    assert run_program(m, ["getuid-loop", "20000"])[0] == 0
    assert runner._timer.stops > before  # a busy CPU's slices end by time
    hits = []
    handle = m.add_code_hook(m.image.addr("__x64_sys_getuid"), lambda ctx: hits.append(ctx.cpu))
    stops = runner._timer.stops
    assert run_program(m, ["getuid-loop", "2000"])[0] == 0
    assert len(hits) == 2000
    assert runner._timer.stops == stops  # by code executed while the hook is there
    m.remove_code_hook(handle)
    assert run_program(m, ["getuid-loop", "20000"])[0] == 0
    assert runner._timer.stops > stops


# int3 at CODE, redirected to INNER by an interrupt hook that writes RIP (as the int3
# table and the breakpoint handler do); INNER: inc r9; mov r8, 1000;
# L: inc qword [COUNTER]; inc rcx; dec r8; jnz L; jmp CODE.
# At every block start rcx == 1000 * r9 - r8; resuming anywhere else breaks it.
INNER = CODE + 0x10
REDIRECTED = (b"\xcc".ljust(0x10, b"\x90") + bytes.fromhex("49ffc1" "49c7c0e8030000")
              + bytes.fromhex("48ff042500200000" "48ffc1" "49ffc8" "75f0"))
REDIRECTED += b"\xe9" + (CODE - (CODE + len(REDIRECTED) + 5)).to_bytes(4, "little", signed=True)


def redirected_runs(slicer_first: bool) -> tuple[int, int, int, int]:
    uc = SlicedUc(UC_ARCH_X86, UC_MODE_64)
    uc.mem_map(0, 0x10000)
    uc.mem_write(CODE, REDIRECTED)

    def redirect(uc_, intno, data):
        uc_.reg_write(UC_X86_REG_RIP, INNER)
    slicer = Slicer(uc) if slicer_first else None
    uc.hook_add(UC_HOOK_INTR, redirect)
    slicer = slicer or Slicer(uc)
    timer = SliceTimer(BUDGET_NS)
    pc = CODE
    try:
        for _ in range(STOPS):
            slicer.run(pc, 0, 0, timer)
            pc = uc.reg_read(UC_X86_REG_RIP)
    finally:
        timer.close()
    return (uc.reg_read(UC_X86_REG_RCX), uc.reg_read(UC_X86_REG_R9), uc.reg_read(UC_X86_REG_R8),
            int.from_bytes(uc.mem_read(COUNTER, 8), "little"))


def test_timer_stops_after_an_interrupt_hook_moved_rip_resume_where_they_stopped():
    rcx, r9, r8, mem = redirected_runs(slicer_first=False)
    assert r9 > 1 and mem == rcx
    assert rcx == 1000 * r9 - r8


def test_a_rip_write_after_the_slicer_hook_would_resume_elsewhere():
    """Why the slicer's interrupt hook must come last (the test above would catch it)."""
    rcx, r9, r8, _ = redirected_runs(slicer_first=True)
    assert rcx != 1000 * r9 - r8
