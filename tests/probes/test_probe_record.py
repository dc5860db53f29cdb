"""The host's record body (trace/probe_record.py, compiled closures) is the reference one
(tests/probe_fetch_reference.py: Linux's process_fetch_insn and store_trace_args as plain
code) byte for byte, for memory dereferences, strings, symstr, arrays, bitfields and faults,
over a fake probed context with user and kernel memory."""
import struct

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tracefs_sim.machine import Machine, MachineOptions
from tracefs_sim.machine.hooks import REG_NAMES
from tracefs_sim.trace import probe_record
from tracefs_sim.trace.probe_args import (
    MAX_STRING_SIZE, TASK_SIZE, ArgFlags, ProbeError, ProbeLog,
)
from tracefs_sim.trace.trace_probe import parse_probe_args
from tests import probe_fetch_reference as reference

USER, KERNEL = 0x400000, 0xFFFF888000100000
REGION = 256
REGS = ("di", "si", "dx", "cx", "r8", "r9", "ax", "sp", "bp", "flags", "ip")


class Context:
    """A FetchContext: registers, a user and a kernel region (elsewhere faults), the stack."""

    def __init__(self, regs, user, kernel, stack, comm, ip=0xFFFFFFFF81000000, ret_ip=0):
        self._regs, self._stack, self._comm = regs, stack, comm
        self._mem = {USER: user, KERNEL: kernel}
        self.ip, self.ret_ip = ip, ret_ip

    def _read(self, addr, size):
        for start, data in self._mem.items():
            if start <= addr and addr + size <= start + len(data):
                return data[addr - start:addr - start + size]
        return None

    def reg(self, name):
        return self._regs.get(name, 0)

    def stack(self, n):
        return self._stack[n] if n < len(self._stack) else 0

    def read_kernel(self, addr, size):
        return None if addr < TASK_SIZE else self._read(addr, size)

    def read_user(self, addr, size):
        return None if addr + size > TASK_SIZE else self._read(addr, size)

    def read_string(self, addr, user, limit):
        if user != (addr < TASK_SIZE):
            return None
        for start, data in self._mem.items():
            if start <= addr < start + len(data):
                s = data[addr - start:]
                return s.split(b"\0", 1)[0] if b"\0" in s else None  # no NUL: runs into a fault
        return None

    def comm(self):
        return self._comm

    def retval(self):
        return self._regs.get("ax", 0)

    def symbolize(self, addr):
        return ("f", addr - KERNEL, REGION) if KERNEL <= addr < KERNEL + REGION else None


pointers = st.one_of(st.integers(0, REGION + 16).map(lambda o: USER + o),
                     st.integers(0, REGION + 16).map(lambda o: KERNEL + o),
                     st.integers(0, (1 << 64) - 1))


@st.composite
def region(draw):
    """Bytes with pointers into either region planted at 8-byte slots, and some NULs."""
    data = bytearray(draw(st.binary(min_size=REGION, max_size=REGION)))
    for slot in draw(st.lists(st.integers(0, REGION // 8 - 1), max_size=12)):
        struct.pack_into("<Q", data, slot * 8, draw(pointers))
    return bytes(data)


loads = st.sampled_from(["%di", "%si", "%ax", "%sp", "$stack1", "$stack", "$arg2", "$arg8", "\\0x400010",
                         f"@0x{USER + 8:x}", f"@0x{KERNEL:x}", "\\-8"])
offsets = st.sampled_from(["0", "8", "16", "-8", "0x20", "3"])
types = st.sampled_from(["", ":u8", ":s16", ":x32", ":u64", ":s64", ":string", ":ustring",
                         ":b3@2/8", ":b12@4/32", ":x8", ":symstr", ":symbol", ":u16[3]", ":x8[5]",
                         ":s64[2]", ":string[2]", ":ustring[3]", ":b4@2/16[2]"])


@st.composite
def fetcharg(draw):
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["$comm", '\\"imm str"', "$comm:string"]))
    arg = draw(loads)
    for _ in range(draw(st.integers(0, 3))):
        arg = f"+{draw(st.sampled_from(['', 'u']))}{draw(offsets)}({arg})".replace("+-", "-")
    return arg + draw(types)


def parse(specs, is_return):
    flags = ArgFlags.KERNEL | ArgFlags.FENTRY | (ArgFlags.RETURN if is_return else 0)
    return list(parse_probe_args(specs, flags, ProbeLog(["p", "f", *specs])))


class Spec:
    def __init__(self, args, is_return):
        self.args, self.is_return = args, is_return
        self.head_size = 24 if is_return else 16


@settings(max_examples=400, deadline=None)
@given(st.lists(fetcharg(), min_size=1, max_size=4), st.booleans(),
       st.lists(pointers, min_size=len(REGS), max_size=len(REGS)), region(), region(),
       st.lists(pointers, min_size=4, max_size=4), st.binary(max_size=20))
def test_the_body_is_the_reference_one(specs, is_return, regs, user, kernel, stack, comm):
    try:
        args = parse(specs, is_return)
    except ProbeError:
        assume(False)
    ctx = Context(dict(zip(REGS, regs)), user, kernel, stack, comm, ret_ip=regs[0])
    spec = Spec(args, is_return)
    expected = reference.record_body(args, spec.head_size, ctx, ctx.ip, ctx.ret_ip)
    assert probe_record.record_body(spec)(ctx) == expected
    for a in args:
        assert probe_record.compile_fetch(a)(ctx) == reference.fetch(a, ctx)


def test_arrays_and_symstr_as_the_reference_has_them():
    # two string pointers then one that faults; the first symstr's NUL is the second's start
    kernel = bytearray(REGION)
    struct.pack_into("<QQQ", kernel, 0, USER, USER + 8, 1)
    user = b"one\0\0\0\0\0two\0" + bytes(REGION - 12)
    ctx = Context({"di": KERNEL, "si": KERNEL + 0x10}, user, bytes(kernel), [], b"cat")
    args = parse(["+0(%di):string[4]", "+0(%di):u16[3]", "%si:symstr", "%di:symstr", "+0(+0(%di)):string"], False)
    body = probe_record.record_body(Spec(args, False))(ctx)
    assert body == reference.record_body(args, 16, ctx, ctx.ip)
    assert [probe_record.compile_fetch(a)(ctx) for a in args] == [
        [b"one", b"two", None, None], [USER & 0xFFFF, (USER >> 16) & 0xFFFF, (USER >> 32) & 0xFFFF],
        b"f+0x10/0x100", b"f+0x0/0x100", b"one"]
    assert body.endswith(b"f+0x10/0x100f+0x0/0x100one\0\0\0")  # (the symstrs' NULs' room)


def test_long_strings_are_cut_as_the_kernel_cuts_them():
    big = b"x" * (MAX_STRING_SIZE + 100) + b"\0"
    ctx = Context({"di": USER}, big, b"\0" * 8, [], b"cat")
    args = parse(["+0(%di):ustring", "s=+0(%di):string"], False)
    spec = Spec(args, False)
    body = probe_record.record_body(spec)(ctx)
    assert body == reference.record_body(args, 16, ctx, ctx.ip)
    assert len(body) == 16 + 2 * MAX_STRING_SIZE


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
