"""int3 kprobes the guest handles whole: the machine delivers their int3s through the
guest's #BP gate natively (machine/int3_table.py, native/int3.c), two a hit (the probe's and
the one that ends the copy's single step), with no Python, and the hits, counts and records
are exactly those of the probed instruction's executions; an int3 point on the host path (a
symstr argument) works beside it through the Python breakpoint handler, and leaves the host's
table when disarmed."""
import contextlib
import struct
from types import SimpleNamespace

import pytest

from tracefs_sim.bench.traced import PROBED, TracedKernel
from tracefs_sim.probes import insn as X
from tracefs_sim.machine.hooks import REG_INDEX
from tracefs_sim.probes import kprobes as K
from tracefs_sim.probes.kprobes.regs import Regs
from tracefs_sim.trace.probe_record import record_body

BLOCKS = 5


@pytest.fixture(scope="module")
def kernel(vmlinux):
    k = TracedKernel(seed=11)
    k.optimization(False)  # every point past the mcount site an int3
    yield k
    k.close()


class Watch:
    """Per execution of the probed instruction (a code hook, before the int3
    traps): the generic record body; per guest commit of a kprobe record: its body."""

    def __init__(self, kernel, addr, args):
        self.m, self.engine, self.addr, self.args = kernel.machine, kernel.engine, addr, args
        self.expected, self.actual = [], []
        img = self.m.image
        self.handles = [self.m.add_code_hook(addr, self.on_probed),
                        self.m.add_code_hook(img.lookup("trace_event_commit").addr, self.on_commit)]

    def close(self):
        for h in self.handles:
            self.m.remove_code_hook(h)

    def on_probed(self, ctx):
        hit = K.ProbeHit(self.engine.stage, self.m.image, ctx, Regs(ctx.regs(), REG_INDEX, self.addr + 1), self.addr)
        self.expected.append(record_body(SimpleNamespace(args=self.args, head_size=16, is_return=False))(hit))

    def on_commit(self, ctx):
        v = ctx.regs()
        found = self.m.image.symbolize(struct.unpack("<Q", ctx.read(v[REG_INDEX["sp"]], 8))[0])
        if found is not None and found[0].name in ("kg_record", "kg_record_plain", "kprobe_dispatcher"):
            size = v[REG_INDEX["si"]] & 0xFFFFFFFF
            self.actual.append(ctx.read(v[REG_INDEX["di"]] + 8, size - 8))


def second_offset(kernel):
    """An instruction of PROBED after the optimisable one, run once per call too
    (the function's straight-line start)."""
    sym = kernel.machine.image.lookup(PROBED)
    insns = X.decode(kernel.machine.image.read(sym.addr, sym.size), sym.addr)
    first = sym.addr + kernel.optimisable
    return next(i.addr for i in insns if i.addr > first) - sym.addr


def spec(kernel, event):
    return next(tk for tk in kernel.kprobes.probes() if tk.spec.event == event).spec.args


def test_native_int3_point_records_exactly_its_hits_beside_a_host_int3_point(kernel):
    m, engine = kernel.machine, kernel.engine
    base = m.image.lookup(PROBED).addr
    native_at, host_at = base + kernel.optimisable, base + second_offset(kernel)
    kernel.probe(f"p:kg/n {PROBED}+{kernel.optimisable} a=%di b=+0(%si):u8 c=%dx")
    kernel.probe(f"p:kg/h {PROBED}+{host_at - base} s=%ip:symstr d=%si")
    python_int3 = []
    m.set_breakpoint_handler(lambda ctx: python_int3.append(ctx.reg("ip") - 1) or engine.on_breakpoint(ctx))
    try:
        kernel.enable("kg", "n")
        kernel.enable("kg", "h")
        native, host = engine.point(native_at), engine.point(host_at)
        assert native.kind == K.INT3 and native.guest is not None and native_at not in m._int3
        assert host.kind == K.INT3 and host.guest is None and host_at in m._int3
        n0, h0, delivered0 = kernel.hits("n"), kernel.hits("h"), m.int3_delivered()
        watch_n, watch_h = Watch(kernel, native_at, spec(kernel, "n")), Watch(kernel, host_at, [])
        try:
            kernel.run(BLOCKS)
        finally:
            watch_n.close()
            watch_h.close()
        hits = len(watch_n.expected)
        assert hits >= BLOCKS
        assert kernel.hits("n") - n0 == hits  # kprobe_profile: the guest's count
        assert m.int3_delivered() - delivered0 == 2 * hits  # every one through the gate...
        assert native_at not in python_int3  # ...none through Python
        assert watch_n.actual == watch_n.expected  # the guest handler's records, one per hit
        host_hits = len(watch_h.expected)
        assert host_hits >= BLOCKS and kernel.hits("h") - h0 == host_hits
        assert python_int3.count(host_at) == host_hits  # the host point: the Python path
    finally:
        m.set_breakpoint_handler(engine.on_breakpoint)
        for event in ("n", "h"):
            with contextlib.suppress(OSError, KeyError):
                kernel.enable("kg", event, False)
                kernel.probe(f"-:kg/{event}")
    assert host_at not in m._int3  # disarmed: the host's entry gone


def test_disabled_point_takes_no_int3_and_reenabling_counts_on(kernel):
    m = kernel.machine
    kernel.probe(f"p:kg/r {PROBED}+{kernel.optimisable} a=%di")
    try:
        kernel.enable("kg", "r")
        kernel.run(BLOCKS)
        first = kernel.hits("r")
        assert first >= BLOCKS
        kernel.enable("kg", "r", False)
        delivered = m.int3_delivered()
        kernel.run(BLOCKS)
        assert kernel.hits("r") == first and m.int3_delivered() == delivered
        kernel.enable("kg", "r")
        kernel.run(BLOCKS)
        assert kernel.hits("r") - first == (m.int3_delivered() - delivered) // 2 >= BLOCKS
    finally:
        with contextlib.suppress(OSError, KeyError):
            kernel.enable("kg", "r", False)
        kernel.probe("-:kg/r")


def test_every_instruction_probed_through_the_gate_keeps_the_workload_correct(kernel):
    """A guest probe on every instruction of the workload's read path: the copies are
    single-stepped (two int3s a hit), control flow and the IF modifiers emulated by the guest
    (one), as 6.1's kprobe_int3_handler() does; the workload runs as before, every hit counted."""
    m, engine = kernel.machine, kernel.engine
    sites = set(m.image.mcount_sites.values())
    points = []  # (event, address, int3s a hit)
    for func in ("ksys_read", "vfs_read", "__x64_sys_read"):
        sym = m.image.lookup(func)
        for i in X.decode(m.image.read(sym.addr, sym.size), sym.addr):
            if i.addr in sites or X.int3_strategy(i) is None:
                continue
            try:
                emulated = X.emulation(i) is not None
            except ValueError:
                continue  # (memory-indirect: the host's emulation)
            event = f"i{len(points)}"
            kernel.probe(f"p:kg/{event} {func}+{i.addr - sym.addr}")
            points.append((event, i.addr, 1 if emulated else 2))
    try:
        for event, _, _ in points:
            kernel.enable("kg", event)
        assert all(engine.point(addr).kind == K.INT3 and engine.point(addr).guest is not None
                   for _, addr, _ in points)
        kinds = {n for _, _, n in points}
        assert kinds == {1, 2}
        hits0 = {event: kernel.hits(event) for event, _, _ in points}
        delivered0 = m.int3_delivered()
        kernel.run(BLOCKS)  # (dd's exit status checked by the run)
        hits = {event: kernel.hits(event) - hits0[event] for event, _, _ in points}
        assert sum(hits.values()) > 20 * BLOCKS
        assert m.int3_delivered() - delivered0 == sum(hits[event] * n for event, _, n in points)
    finally:
        for event, _, _ in points:
            with contextlib.suppress(OSError, KeyError):
                kernel.enable("kg", event, False)
                kernel.probe(f"-:kg/{event}")
