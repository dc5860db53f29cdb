"""int3 kprobes the guest handles whole: the machine delivers their int3s through the
guest's #BP gate natively (machine/int3_gate.py, native/int3.c), two a hit (the probe's and
the one that ends the copy's single step), with no Python, and the hits, counts and records
are exactly those of the probed instruction's executions; an int3 point on the host path (a
probe with a Python handler) works beside it through the Python breakpoint handler, and leaves the host's
table when disarmed."""
import contextlib
import struct

import pytest

from tracefs_sim.bench.traced import PROBED, TracedKernel
from tracefs_sim.probes import insn as X
from tracefs_sim.machine.hooks import REG_INDEX
from tracefs_sim.probes import kprobes as K
from tracefs_sim.probes.kprobes.regs import Regs
from tests.probe_fetch_reference import record_body
from tracefs_sim.trace.probe_args import ArgFlags, ProbeLog
from tracefs_sim.trace.trace_probe import parse_probe_args

BLOCKS = 5


@pytest.fixture(scope="module")
def kernel(vmlinux):
    k = TracedKernel(seed=11)
    k.optimization(False)  # every point past the mcount site an int3
    yield k
    k.close()


class Watch:
    """Per execution of the probed instruction (a code hook, before the int3 traps): the
    reference's record body of args; per commit of a record of event type `kind`: its body."""

    def __init__(self, kernel, addr, args, kind):
        self.m, self.engine, self.addr, self.args, self.type = kernel.machine, kernel.engine, addr, args, kind
        self.expected, self.actual = [], []
        img = self.m.image
        self.handles = [self.m.add_code_hook(addr, self.on_probed),
                        self.m.add_code_hook(img.lookup("trace_event_commit").addr, self.on_commit)]

    def close(self):
        for h in self.handles:
            self.m.remove_code_hook(h)

    def on_probed(self, ctx):
        hit = K.ProbeHit(self.engine.stage, self.m.image, ctx, Regs(ctx.regs(), REG_INDEX, self.addr + 1), self.addr)
        self.expected.append(record_body(self.args, 16, hit, hit.ip))

    def on_commit(self, ctx):
        v = ctx.regs()
        rec, size = v[REG_INDEX["di"]], v[REG_INDEX["si"]] & 0xFFFFFFFF
        if struct.unpack("<H", ctx.read(rec, 2))[0] == self.type:
            self.actual.append(ctx.read(rec + 8, size - 8))


def second_offset(kernel):
    """An instruction of PROBED after the optimisable one, run once per call too
    (the function's straight-line start)."""
    sym = kernel.machine.image.lookup(PROBED)
    insns = X.decode(kernel.machine.image.read(sym.addr, sym.size), sym.addr)
    first = sym.addr + kernel.optimisable
    return next(i.addr for i in insns if i.addr > first) - sym.addr


def spec(kernel, event):
    return next(tk for tk in kernel.kprobes.probes() if tk.spec.event == event).spec.args


def test_guest_and_host_int3_points_record_exactly_their_hits(kernel):
    """Two int3 points, both through the gate: one the guest's handlers run (a probe event's),
    one with a probe whose handler is the host's (Python, at the kernel's PORT_KPROBE_HIT
    doorbell: it stages the reference's record of the same arguments, which the kernel
    commits); the records of each are exactly those of the probed instruction's executions,
    and every hit costs two traps."""
    m = kernel.machine
    base = m.image.lookup(PROBED).addr
    guest_at, host_at = base + kernel.optimisable, base + second_offset(kernel)
    kernel.probe(f"p:kg/n {PROBED}+{kernel.optimisable} a=%di b=+0(%si):u8 c=%dx")
    host_args = list(parse_probe_args(["s=%ip:symstr", "e=%si"], ArgFlags.KERNEL, ProbeLog(["p", "h"])))
    host_type = kernel.tracing.registry.alloc_event_id()

    def on_hit(hit):
        hit.record(host_type, 1, record_body(host_args, 16, hit, hit.ip))
    host = kernel.engine.register(host_at, on_hit=on_hit)
    try:
        kernel.enable("kg", "n")
        host.enable()
        guest_point, host_point = kernel.engine.point(guest_at), kernel.engine.point(host_at)
        assert guest_point.kind == K.INT3 and all(kp.guest is not None for kp in guest_point.probes)
        assert host_point.kind == K.INT3 and host_point.probes == [host]
        n0, h0, delivered0 = kernel.hits("n"), host.nhit, m.int3_delivered()
        watch_n = Watch(kernel, guest_at, spec(kernel, "n"), kernel.tracing.registry.get("kg", "n").id)
        watch_h = Watch(kernel, host_at, host_args, host_type)
        try:
            kernel.run(BLOCKS)
        finally:
            watch_n.close()
            watch_h.close()
        hits, host_hits = len(watch_n.expected), len(watch_h.expected)
        assert hits >= BLOCKS and host_hits >= BLOCKS
        assert kernel.hits("n") - n0 == hits and host.nhit - h0 == host_hits  # kprobe_profile
        assert m.int3_delivered() - delivered0 == 2 * (hits + host_hits)  # every one through the gate
        assert watch_n.actual == watch_n.expected  # each handler's records, one per hit
        assert watch_h.actual == watch_h.expected
    finally:
        host.unregister()
        with contextlib.suppress(OSError, KeyError):
            kernel.enable("kg", "n", False)
            kernel.probe("-:kg/n")


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
