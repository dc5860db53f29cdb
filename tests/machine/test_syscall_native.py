"""The `syscall` instruction is done natively (native/syscall.c): no Python per
system call, and the registers it leaves are those of the Python hook it replaced."""
import ctypes
import random

import pytest
from unicorn import UcError, x86_const as X

from tracefs_sim.machine import native_lib
from tracefs_sim.machine.cpu import SYSCALL_FMASK

MSR_STAR, MSR_LSTAR, MSR_FMASK, MSR_GS_BASE = 0xC0000081, 0xC0000082, 0xC0000084, 0xC0000101
GPRS = [X.UC_X86_REG_RAX, X.UC_X86_REG_RBX, X.UC_X86_REG_RCX, X.UC_X86_REG_RDX, X.UC_X86_REG_RSI,
        X.UC_X86_REG_RDI, X.UC_X86_REG_RBP, X.UC_X86_REG_RSP, X.UC_X86_REG_R8, X.UC_X86_REG_R9,
        X.UC_X86_REG_R10, X.UC_X86_REG_R11, X.UC_X86_REG_R12, X.UC_X86_REG_R13, X.UC_X86_REG_R14,
        X.UC_X86_REG_R15]
# every register Unicorn reads as a plain value or tuple (MSRs apart)
ALL_REGS = sorted({v for k, v in vars(X).items() if k.startswith("UC_X86_REG_")
                   and k not in ("UC_X86_REG_INVALID", "UC_X86_REG_ENDING", "UC_X86_REG_MSR")})


def python_syscall(cpu):
    """The Python syscall hook the native one replaced (cpu.py before), over the
    binding's API: the reference for the native hook's semantics."""
    uc, sc = cpu.uc, cpu._sc
    saved = [uc.reg_read(r) for r in GPRS]
    rip, rflags = uc.reg_read(X.UC_X86_REG_RIP), uc.reg_read(X.UC_X86_REG_EFLAGS)
    cr3 = uc.reg_read(X.UC_X86_REG_CR3)
    uc.context_restore(cpu._kctx)
    if cr3 != sc.kctx_cr3:
        uc.reg_write(X.UC_X86_REG_CR3, cr3)
        uc.context_update(cpu._kctx)
        sc.kctx_cr3 = cr3
    saved[GPRS.index(X.UC_X86_REG_RCX)] = rip + 2
    saved[GPRS.index(X.UC_X86_REG_R11)] = rflags
    for r, value in zip(GPRS, saved):
        uc.reg_write(r, value)
    uc.reg_write(X.UC_X86_REG_EFLAGS, rflags & ~SYSCALL_FMASK)
    uc.reg_write(X.UC_X86_REG_RIP, uc.reg_read(X.UC_X86_REG_MSR, MSR_LSTAR) - 2)


def native_syscall(cpu):
    """What Unicorn calls at a `syscall`: the hook with this CPU's data."""
    hook = native_lib.load("syscall").syscall_insn_hook
    hook.argtypes, hook.restype = [ctypes.c_void_p, ctypes.c_void_p], None
    hook(cpu._h, ctypes.byref(cpu._sc))
    assert cpu._sc.error == 0


def cpu_state(cpu):
    """Every register, a few MSRs, and the kernel-mode snapshot the CPU keeps."""
    uc = cpu.uc

    def regs():
        out = {}
        for r in ALL_REGS:
            try:
                out[r] = uc.reg_read(r)
            except (UcError, ValueError, TypeError):
                continue  # not readable alone in this mode
        for msr in (MSR_STAR, MSR_LSTAR, MSR_FMASK, MSR_GS_BASE):
            out[("msr", msr)] = uc.reg_read(X.UC_X86_REG_MSR, msr)
        return out
    live = uc.context_save()
    state = regs()
    uc.context_restore(cpu._kctx)
    snapshot = regs()
    uc.context_restore(live)
    return state, snapshot, cpu._sc.kctx_cr3


@pytest.mark.parametrize("other_address_space", [False, True])
def test_native_syscall_matches_the_python_hook(make_machine, other_address_space):
    m = make_machine(cpus=1, seed=1)
    m.stop()
    cpu = m._cpus[0]
    uc = cpu.uc
    base = uc.context_save()
    uc.context_restore(cpu._kctx)
    kctx0, kctx0_cr3 = uc.context_save(), cpu._sc.kctx_cr3
    rng = random.Random(7)
    user = {r: rng.getrandbits(64) for r in GPRS}
    # IF, TF, DF, AC and NT set: the ones FMASK clears, beside ones it keeps
    user[X.UC_X86_REG_EFLAGS] = 0x2 | 0x200 | 0x100 | 0x400 | 0x40000 | 0x4000 | 0x80 | 0x1
    user[X.UC_X86_REG_RIP] = 0x401234
    user[X.UC_X86_REG_CR3] = kctx0_cr3 ^ 0x1000 if other_address_space else kctx0_cr3

    results = []
    for syscall in (python_syscall, native_syscall):
        uc.context_restore(kctx0)  # the same snapshot for both
        uc.context_update(cpu._kctx)
        cpu._sc.kctx_cr3 = kctx0_cr3
        uc.context_restore(base)
        for r, value in user.items():
            uc.reg_write(r, value)
        syscall(cpu)
        results.append(cpu_state(cpu))
    (py_regs, py_snap, py_cr3), (c_regs, c_snap, c_cr3) = results
    assert c_regs == py_regs
    assert c_snap == py_snap
    assert c_cr3 == py_cr3 == user[X.UC_X86_REG_CR3]
    # and they are what the CPU does, not merely the same
    assert c_regs[X.UC_X86_REG_RCX] == 0x401234 + 2
    assert c_regs[X.UC_X86_REG_R11] == user[X.UC_X86_REG_EFLAGS]
    assert c_regs[X.UC_X86_REG_RIP] == uc.reg_read(X.UC_X86_REG_MSR, MSR_LSTAR) - 2
    assert c_regs[X.UC_X86_REG_CR3] == user[X.UC_X86_REG_CR3]
    assert c_regs[X.UC_X86_REG_CS] & 3 == 0
    assert c_regs[X.UC_X86_REG_RAX] == user[X.UC_X86_REG_RAX]


def test_syscalls_do_not_enter_python(make_machine, run_program, cpu_thread_calls):
    """Python function calls on the CPU thread while dd makes 2 system calls a byte."""
    m = make_machine(cpus=1)
    calls = cpu_thread_calls(m)
    run_program(m, ["/bin/true"])  # the CPU thread is profiled from here on
    before = calls[0]
    nbytes = 20000
    status, out = run_program(m, ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", f"count={nbytes}"])
    assert status == 0 and out.startswith(f"{nbytes}+0 records in".encode())
    # the Python hook made five calls a system call; slices and interrupts make far fewer
    assert calls[0] - before < nbytes * 2 // 10


def test_a_failed_syscall_hook_stops_the_run_and_raises(make_machine):
    m = make_machine(cpus=1, seed=1)
    m.stop()
    cpu, sc = m._cpus[0], m._cpus[0]._sc
    UC_ERR_ARG = 15
    stops = []
    failing_read = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.c_int)(lambda *args: UC_ERR_ARG)
    counting_stop = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(lambda uc: stops.append(uc) or 0)
    good = sc.reg_read_batch, sc.emu_stop
    sc.reg_read_batch = ctypes.cast(failing_read, ctypes.c_void_p).value
    sc.emu_stop = ctypes.cast(counting_stop, ctypes.c_void_p).value
    hook = native_lib.load("syscall").syscall_insn_hook
    hook.argtypes, hook.restype = [ctypes.c_void_p, ctypes.c_void_p], None
    hook(cpu._h, ctypes.byref(sc))
    sc.reg_read_batch, sc.emu_stop = good
    assert sc.error == UC_ERR_ARG and len(stops) == 1
    with pytest.raises(UcError):  # the run loop hears of it when the run ends
        cpu.run_slice(1)
