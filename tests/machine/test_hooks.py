"""Machine hook API: one-address code hooks, the kernel-mode int3 handler, HookContext."""
import struct

import pytest

from tracefs_sim.machine import MachineError
from tracefs_sim.machine.hooks import REG_INDEX


def test_code_hook_sees_registers_memory_and_task(make_machine, run_program):
    m = make_machine(cpus=2, seed=3)
    site = m.image.addr("do_sys_openat2")
    seen = []

    def on_open(ctx):
        regs = ctx.regs()
        assert regs[REG_INDEX["ip"]] == site
        filename = regs[REG_INDEX["si"]]  # do_sys_openat2(dfd, filename, ...)
        seen.append((ctx.cpu, ctx.read_string(filename, 256), ctx.current_task()[:2],
                     ctx.read(filename, 4)))

    handle = m.add_code_hook(site, on_open)
    status, out = run_program(m, ["cat", "/etc/passwd"])
    assert status == 0 and b"root" in out
    assert any(s[1] == b"/etc/passwd" and s[2][1] == "cat" and s[3] == b"/etc" for s in seen)
    assert all(0 <= s[0] < 2 for s in seen)
    m.remove_code_hook(handle)
    count = len(seen)
    run_program(m, ["cat", "/etc/passwd"])
    assert len(seen) == count  # removed: never called again
    with pytest.raises(KeyError):
        m.remove_code_hook(handle)


def test_read_faults_on_unmapped_user_memory(make_machine, run_program):
    m = make_machine(cpus=1, seed=4)
    results = []

    def on_open(ctx):
        results.append((ctx.read(0x10, 8), ctx.read(0x7FFF_FFFF_0000, 8),
                        ctx.read(m.image.addr("_stext"), 4)))
    h = m.add_code_hook(m.image.addr("do_sys_openat2"), on_open)
    run_program(m, ["cat", "/etc/passwd"])
    m.remove_code_hook(h)
    assert results
    for low, high, text in results:
        assert low is None and high is None
        assert text == m.image.read(m.image.addr("_stext"), 4)


def test_write_and_set_reg(make_machine, run_program):
    """A hook at getuid's syscall body changes what the program sees."""
    m = make_machine(cpus=1, seed=5)
    ret = m.image.addr("__do_sys_getuid")

    def on_getuid(ctx):
        # emulate `return 4242`: pop the return address, set rax
        sp = ctx.regs()[REG_INDEX["sp"]]
        ret_addr = struct.unpack("<Q", ctx.read(sp, 8))[0]
        ctx.set_reg("ax", 4242)
        ctx.set_reg("sp", sp + 8)
        ctx.set_rip(ret_addr)
    h = m.add_code_hook(ret, on_getuid)
    status, out = run_program(m, ["getuid-loop", "2"])
    m.remove_code_hook(h)
    assert status == 0 and out == b"4242\n4242\n"
    status, out = run_program(m, ["getuid-loop", "1"])
    assert out == b"0\n"


def test_kernel_int3_no_kprobe_placed_is_the_guests_oops(make_machine):
    """A kernel-mode int3 goes through the guest's #BP gate: its kprobe_int3_handler finds no
    probe there and the int3 still in the text, and the kernel dies of it (die("int3") in the
    NMI context exc_int3 entered: a panic)."""
    m = make_machine(cpus=1, seed=6)
    m.text_poke(m.image.addr("do_sys_openat2"), b"\xcc")
    with pytest.raises(MachineError):
        m.spawn(["cat", "/etc/passwd"]).wait(10)
        m.tasks()
    assert m.int3_delivered() == 1
    assert (m.panic_message or "").startswith("Kernel panic - not syncing: Fatal exception in interrupt\n")


def test_text_release_waits_for_code_in_use(make_machine):
    """An idle CPU sits at a halt site: that text is in use; an unrelated
    function is not."""
    m = make_machine(cpus=2, seed=7)
    img = m.image
    sym = next(img.symbolize(s)[0] for s in sorted(img.halt_resume_sites) if img.symbolize(s)[0].size)
    assert not m.text_release(sym.addr, img.read(sym.addr, sym.size))
    getuid = img.lookup("__do_sys_getuid")
    assert m.text_release(getuid.addr, img.read(getuid.addr, getuid.size))
    with pytest.raises(ValueError):
        m.text_release(img.addr("probe_stage"), b"\0")
