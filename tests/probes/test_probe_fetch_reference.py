"""The reference fetch (tests/probe_fetch_reference.py: Linux's process_fetch_insn and
store_trace_args as plain code, which the guest's records are checked against) on records
whose bytes are known from 6.1: string arrays, symstr's quirk, strings cut at MAX_STRING_SIZE;
and the hook context's reads the reference takes its values from."""
import struct

from tracefs_sim.machine import Machine, MachineOptions
from tracefs_sim.machine.hooks import REG_NAMES
from tracefs_sim.trace.probe_args import MAX_STRING_SIZE, ArgFlags, ProbeLog
from tracefs_sim.trace.trace_probe import parse_probe_args
from tests import probe_fetch_reference as reference
from tests.probe_fetch_reference import MemoryContext

USER, KERNEL = 0x400000, 0xFFFF888000100000
REGION = 256


def parse(specs, is_return):
    flags = ArgFlags.KERNEL | ArgFlags.FENTRY | (ArgFlags.RETURN if is_return else 0)
    return list(parse_probe_args(specs, flags, ProbeLog(["p", "f", *specs])))


def test_arrays_and_symstr_as_the_reference_has_them():
    # two string pointers then one that faults; the first symstr's NUL is the second's start
    kernel = bytearray(REGION)
    struct.pack_into("<QQQ", kernel, 0, USER, USER + 8, 1)
    user = b"one\0\0\0\0\0two\0" + bytes(REGION - 12)
    ctx = MemoryContext({"di": KERNEL, "si": KERNEL + 0x10}, {KERNEL: bytes(kernel)}, {USER: user}, function=(KERNEL, REGION))
    args = parse(["+0(%di):string[4]", "+0(%di):u16[3]", "%si:symstr", "%di:symstr", "+0(+0(%di)):string"], False)
    body = reference.record_body(args, 16, ctx, ctx.ip)
    assert [reference.fetch(a, ctx) for a in args] == [
        [b"one", b"two", None, None], [USER & 0xFFFF, (USER >> 16) & 0xFFFF, (USER >> 32) & 0xFFFF],
        b"f+0x10/0x100", b"f+0x0/0x100", b"one"]
    assert body.endswith(b"f+0x10/0x100f+0x0/0x100one\0\0\0")  # (the symstrs' NULs' room)


def test_long_strings_are_cut_as_the_kernel_cuts_them():
    big = b"x" * (MAX_STRING_SIZE + 100) + b"\0"
    ctx = MemoryContext({"di": USER}, {KERNEL: b"\0" * 8}, {USER: big}, function=(KERNEL, REGION))
    args = parse(["+0(%di):ustring", "s=+0(%di):string"], False)
    body = reference.record_body(args, 16, ctx, ctx.ip)
    assert len(body) == 16 + 2 * MAX_STRING_SIZE and body.endswith(b"x" * (MAX_STRING_SIZE - 1) + b"\0")


# ---- the hook context's single reads agree with its full ones, on a running machine ----------


def test_single_register_and_task_reads_match_the_batch(vmlinux):
    m = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=2, seed=3))
    m.start()
    try:
        seen = []

        def on_hit(ctx):
            single = [ctx.reg(name) for name in REG_NAMES]  # each a live read (no snapshot yet)
            pid, comm, task = ctx.current_task()
            seen.append((single, list(ctx.regs()), (ctx.current_pid(), ctx.current_comm(), ctx.current_task_addr()),
                         (pid, comm.encode(), task)))
        handle = m.add_code_hook(m.image.lookup("__do_sys_getuid").addr, on_hit)
        out = []
        assert m.spawn(["getuid-loop", "3"], out.append).wait(60) == 0
        m.remove_code_hook(handle)
        assert len(seen) == 3
        for single, batch, fast, slow in seen:
            assert single == batch
            assert fast == slow and fast[1] == b"getuid-loop"
    finally:
        m.stop()
