"""Guest kprobe handlers (kernel/trace_probe.c, probes/kprobes/guest.py) on a running machine:
the record the guest builds at a hit is the reference interpreter's (tests/probe_fetch_reference.py
over the same probed context) byte for byte, for random argument specs, on an ftrace site, an
optimised probe and an int3 probe; no host hook runs at such a hit; and kprobe_profile
counts what the guest counted."""
import contextlib
import errno
import struct
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tracefs_sim.bench.traced import PROBED, TracedKernel
from tracefs_sim.machine.hooks import REG_INDEX
from tracefs_sim.probes import kprobes as K
from tracefs_sim.probes.kprobes.regs import PT_INDEX, PT_REGS_FRAME, Regs, frame_regs
from tracefs_sim.trace.probe_guest import compile_args
from tests.probe_fetch_reference import record_body

PROBE_STAGE_MAX = 3072
BLOCKS = 3


@contextlib.contextmanager
def host_probe(kernel, addr, *, is_return=False):
    """A probe of the engine with a Python handler at addr (enabled), which makes its point the
    host's, as one the guest's tables cannot hold does; yields the list of its hits' ips."""
    hits = []
    handler = lambda hit: hits.append(hit.ip)  # noqa: E731
    kp = kernel.engine.register(addr, on_hit=None if is_return else handler, is_return=is_return,
                                on_return=handler if is_return else None)
    kp.enable()
    try:
        yield hits
    finally:
        kp.unregister()


@pytest.fixture(scope="module")
def kernel(vmlinux):
    k = TracedKernel(seed=5)
    yield k
    k.close()


class Capture:
    """Per hit: the generic record body, computed where the host handler would run (a code
    hook on the probed instruction, or ftrace_caller's ftrace_kprobe_hook), and the record
    the guest handler commits into the ring."""

    def __init__(self, kernel, addr, args):
        self.m = kernel.machine
        self.engine = kernel.engine
        self.addr, self.args = addr, args
        self.expected, self.actual = [], []
        self.hits = 0
        img = self.m.image
        ftrace = addr in img.mcount_sites.values()  # there: the pt_regs ftrace_caller saved
        self.handles = [self.m.add_code_hook(img.lookup("ftrace_kprobe_hook").addr if ftrace else addr,
                                             self.on_ftrace if ftrace else self.on_probed),
                        self.m.add_code_hook(img.lookup("trace_event_commit").addr, self.on_commit)]

    def close(self):
        for h in self.handles:
            self.m.remove_code_hook(h)

    def on_ftrace(self, ctx):
        values = PT_REGS_FRAME.unpack(ctx.read(ctx.reg("di"), PT_REGS_FRAME.size))
        if values[PT_INDEX["ip"]] == self.addr:
            self.expect(ctx, frame_regs(values, self.addr + 1))

    def on_probed(self, ctx):
        self.expect(ctx, Regs(ctx.regs(), REG_INDEX, self.addr + 1))

    def expect(self, ctx, regs):
        self.hits += 1
        hit = K.ProbeHit(self.engine.stage, self.m.image, ctx, regs, self.addr)
        body = record_body(self.args, 16, hit, hit.ip)
        if len(body) <= PROBE_STAGE_MAX:  # larger: not recorded (counted missed)
            self.expected.append(body)

    def on_commit(self, ctx):
        v = ctx.regs()
        found = self.m.image.symbolize(struct.unpack("<Q", ctx.read(v[REG_INDEX["sp"]], 8))[0])
        if found is None or found[0].name not in ("kg_record", "kprobe_guest_ftrace", "kprobe_guest_slot", "kprobe_dispatcher"):
            return
        size = v[REG_INDEX["si"]] & 0xFFFFFFFF
        self.actual.append(ctx.read(v[REG_INDEX["di"]] + 8, size - 8))


loads = st.sampled_from(["%di", "%si", "%dx", "%cx", "%sp", "%ip", "%flags", "$stack1", "$stack", "$arg2",
                         "$arg8", "@jiffies", "@init_task", "\\0x400010", "\\-8"])
offsets = st.sampled_from(["0", "8", "16", "-8", "0x20", "3", "0x5c0"])
types = st.sampled_from(["", ":u8", ":s16", ":x32", ":u64", ":s64", ":string", ":ustring", ":symstr",
                         ":b3@2/8", ":b12@4/32", ":x8", ":u16[3]", ":x8[5]", ":s64[2]", ":string[2]",
                         ":ustring[3]", ":b4@2/16[2]"])


# immediate strings: up to the longest an argument's 63 characters leave
immediates = st.sampled_from(["", "x", "hello/world", "s" * 40, "t" * 53]).map('\\"{}":string'.format)


@st.composite
def fetcharg(draw):
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["$comm", draw(immediates)]))
    arg = draw(loads)
    for k in range(draw(st.integers(0, 3))):
        off = draw(offsets)
        if k == 0 and arg in ("%sp", "$stack"):
            # below the probed sp is the probe machinery's stack (as in Linux): not compared
            off = off.lstrip("-")
        arg = f"+{draw(st.sampled_from(['', 'u']))}{off}({arg})".replace("+-", "-")
    return arg + draw(types)


def remove_probes(kernel, *events):
    """Disable and remove kg/EVENT for each event (a test's clean-up: whatever it got to
    define; removing one that is there must work)."""
    for event in events:
        with contextlib.suppress(OSError, KeyError):
            kernel.enable("kg", event, False)
        try:
            kernel.probe(f"-:kg/{event}")
        except OSError as e:
            if e.errno != errno.ENOENT:
                raise


def point_of(kernel, kind):
    if kind == K.FTRACE:
        return PROBED, True
    return f"{PROBED}+{kernel.optimisable}", kind == K.OPTIMIZED


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(st.lists(fetcharg(), min_size=1, max_size=4), st.sampled_from([K.FTRACE, K.OPTIMIZED, K.INT3]))
def test_guest_records_are_the_generic_ones(kernel, specs, kind):
    compare(kernel, specs, kind)


def compare(kernel, specs, kind):
    """A probe with these arguments at a `kind` point: the guest's records are the generic
    ones and its counts are the hits."""
    where, optimise = point_of(kernel, kind)
    kernel.optimization(optimise)
    try:  # $argN only at a function's entry; an unknown @SYM: rejected specs are not the point here
        kernel.probe(f"p:kg/t {where} " + " ".join(f"a{i}={s}" for i, s in enumerate(specs)))
    except OSError:
        assume(False)
    try:
        addr = kernel.machine.image.lookup(PROBED).addr + (0 if kind == K.FTRACE else kernel.optimisable)
        tk = next(tk for tk in kernel.kprobes.probes() if tk.spec.event == "t")
        args = tk.spec.args  # resolved (@SYM filled in)
        assert compile_args(0, args) is not None  # every spec drawn here is the guest's
        kernel.enable("kg", "t")
        point = kernel.engine.point(addr)
        assert point.kind == kind and point.guest is not None  # armed for the guest
        assert not kernel.engine.on_ftrace.hooked and point.hook is None and not point.commit_hooks
        before = kernel.hits("t")
        cap = Capture(kernel, addr, args)
        try:
            kernel.run(BLOCKS)
        finally:
            cap.close()
        kernel.enable("kg", "t", False)
        assert len(cap.expected) >= BLOCKS
        assert cap.actual == cap.expected
        assert kernel.hits("t") - before == cap.hits  # kprobe_profile: the guest's count
    finally:
        kernel.probe("-:kg/t")


@pytest.mark.parametrize("kind", [K.FTRACE, K.OPTIMIZED, K.INT3])
def test_arrays_and_immediate_strings_in_the_guest(kernel, kind):
    # the forms the interpreter took last: numeric arrays (a bitfield per element), string
    # arrays (each through the next pointer, one faulting), an immediate string at its longest,
    # the most dereferences Linux's parser takes (13)
    compare(kernel, ["+0(%sp):u16[3]", "+8($stack):b4@2/16[2]", "+0(+0(%sp)):string[3]",
                     "+0(\\0):string[2]", '\\"' + "t" * 53 + '":string',
                     "+0(" * 14 + "%sp" + ")" * 14 + ":x8"], kind)


@pytest.mark.parametrize("kind", [K.FTRACE, K.OPTIMIZED, K.INT3])
def test_symstr_names_symbols_from_the_kernels_own_kallsyms(kernel, kind):
    # sprint_symbol() in the guest (kernel/kallsyms.c over the image's table): a function with
    # its offset and size, a return address, an address no symbol covers (the stack's), one
    # that faults; between strings, whose NULs the names' room takes (6.1's symstr quirk)
    compare(kernel, ["%ip:symstr", "+0(%si):string", "+0($stack):symstr", "%sp:symstr",
                     "+0(%flags):symstr", "+0(%sp):string"], kind)


plain = st.builds("{}{}".format, st.sampled_from(["%di", "%si", "%dx", "%cx", "%r8", "%ax", "%sp", "%bp", "%flags",
                                                 "%cs", "%ss", "%orig_ax", "$arg3", "$stack"]),
                  st.sampled_from(["", ":u8", ":s16", ":x32", ":u64", ":s8", ":x16"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(st.lists(plain, min_size=0, max_size=6), st.sampled_from([K.FTRACE, K.OPTIMIZED, K.INT3]))
def test_register_only_records_written_straight_into_the_ring(kernel, specs, kind):
    # every argument a register: the guest writes the record in place (kg_record_plain)
    compare(kernel, specs, kind)


def test_a_point_is_the_guests_or_the_hosts_never_both(kernel):
    # a probe event's probe records only in the guest: a probe with a Python handler, which
    # needs the point to be the host's, may not join its point (EBUSY), nor it theirs, and the
    # event records on as before
    kernel.optimization(True)
    where = f"{PROBED}+{kernel.optimisable}"
    addr = kernel.machine.image.lookup(PROBED).addr + kernel.optimisable
    kernel.probe(f"p:kg/g {where} a=%di b=+0(%si):u8")
    try:
        kernel.enable("kg", "g")
        with pytest.raises(OSError) as refused:
            kernel.engine.register(addr, on_hit=lambda hit: None)
        assert refused.value.errno == errno.EBUSY
        point = kernel.engine.point(addr)
        assert point.kind == K.OPTIMIZED and point.guest is not None and len(point.probes) == 1
        before = kernel.hits("g")
        kernel.run(BLOCKS)
        assert kernel.hits("g") - before >= BLOCKS
        kernel.enable("kg", "g", False)
        kernel.probe("-:kg/g")
        with host_probe(kernel, addr):
            with pytest.raises(OSError) as refused:
                kernel.probe(f"p:kg/g {where} a=%di")
            assert refused.value.errno == errno.EBUSY
    finally:
        remove_probes(kernel, "g")


def test_long_strings_and_records_too_large_as_the_host_handler_has_them(kernel):
    # kprobe_insn_slots' unused end is int3 fill (0xcc, no NUL): from 2000 bytes before its
    # end a long string, from 4 KiB before it one cut at MAX_STRING_SIZE - 1, which makes a
    # record larger than a probe record may be (PROBE_STAGE_MAX): not traced, counted missed
    slots = kernel.machine.image.lookup("kprobe_insn_slots")
    addr = kernel.machine.image.lookup(PROBED).addr
    for back, recorded in ((2000, True), (4096, False)):
        kernel.probe(f"p:kg/l {PROBED} s=@kprobe_insn_slots+{slots.size - back}:string c=$comm")
        try:
            tk = next(tk for tk in kernel.kprobes.probes() if tk.spec.event == "l")
            kernel.enable("kg", "l")
            assert kernel.engine.point(addr).guest is not None
            cap = Capture(kernel, addr, tk.spec.args)
            try:
                kernel.run(BLOCKS)
            finally:
                cap.close()
            kernel.enable("kg", "l", False)
            assert cap.actual == cap.expected and cap.hits >= BLOCKS
            assert len(cap.actual) == (cap.hits if recorded else 0)
            assert not recorded or b"\xcc" * back in cap.actual[0]
            line = next(line for line in kernel.kprobes.read_profile().decode().splitlines()
                        if line.split()[0] == "l")
            assert line.split()[1:] == [str(cap.hits), "0" if recorded else str(cap.hits)]
        finally:
            with contextlib.suppress(OSError):
                kernel.enable("kg", "l", False)
            kernel.probe("-:kg/l")


# ---- kretprobes ----
RET_LOADS = ("%di", "%si", "%ax", "%dx", "%sp", "%ip", "%flags", "$retval", "$stack", "$stack1",
             "@jiffies", "\\0x400010")
# where a kretprobe is armed as each kind: vfs_read's entry is its ftrace site; strlen and
# memset are notrace, strlen's first instruction too short to optimise, memset's not
RET_POINTS = {K.FTRACE: (PROBED, True), K.INT3: ("strlen", False), K.OPTIMIZED: ("memset", True)}


class ReturnCapture:
    """Per return of a kretprobe's function: the generic record body, computed at the
    trampoline's first instruction from what the call found at its entry (a code hook on the
    function's first instruction, before the probe swaps the return address), and the record
    the guest's return handler commits."""

    def __init__(self, kernel, addr, args):
        self.m, self.engine = kernel.machine, kernel.engine
        self.addr, self.args = addr, args
        self.expected, self.actual = [], []
        self.pending = {}  # entry sp -> the return address found there
        img = self.m.image
        self.handles = [self.m.add_code_hook(addr, self.on_entry),
                        self.m.add_code_hook(img.lookup("arch_rethook_trampoline").addr, self.on_return),
                        self.m.add_code_hook(img.lookup("trace_event_commit").addr, self.on_commit)]

    def close(self):
        for h in self.handles:
            self.m.remove_code_hook(h)

    def on_entry(self, ctx):
        sp = ctx.regs()[REG_INDEX["sp"]]
        self.pending[sp] = struct.unpack("<Q", ctx.read(sp, 8))[0]

    def on_return(self, ctx):
        v = ctx.regs()
        caller = self.pending.pop(v[REG_INDEX["sp"]] - 8, None)
        if caller is None:  # a call that took no instance
            return
        hit = K.ProbeHit(self.engine.stage, self.m.image, ctx, Regs(v, REG_INDEX, caller), self.addr, caller)
        body = record_body(self.args, 24, hit, hit.ip, hit.ret_ip)
        if len(body) <= PROBE_STAGE_MAX:
            self.expected.append(body)

    def on_commit(self, ctx):
        v = ctx.regs()
        found = self.m.image.symbolize(struct.unpack("<Q", ctx.read(v[REG_INDEX["sp"]], 8))[0])
        if found is None or found[0].name not in ("kg_record", "kretprobe_guest_return"):
            return
        size = v[REG_INDEX["si"]] & 0xFFFFFFFF
        self.actual.append(ctx.read(v[REG_INDEX["di"]] + 8, size - 8))


@st.composite
def return_fetcharg(draw):
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["$comm", draw(immediates)]))
    arg = draw(st.sampled_from(RET_LOADS))
    for k in range(draw(st.integers(0, 2))):
        off = draw(offsets)
        if k == 0 and arg in ("%sp", "$stack"):
            off = off.lstrip("-")
        arg = f"+{draw(st.sampled_from(['', 'u']))}{off}({arg})".replace("+-", "-")
    return arg + draw(types)


def compare_return(kernel, specs, kind, maxactive=""):
    func, optimise = RET_POINTS[kind]
    kernel.optimization(optimise)
    try:
        kernel.probe(f"r{maxactive}:kg/r {func} " + " ".join(f"a{i}={s}" for i, s in enumerate(specs)))
    except OSError:
        assume(False)
    try:
        addr = kernel.machine.image.lookup(func).addr
        tk = next(tk for tk in kernel.kprobes.probes() if tk.spec.event == "r")
        args = tk.spec.args
        assert compile_args(0, args) is not None
        kernel.enable("kg", "r")
        point = kernel.engine.point(addr)
        assert point.kind == kind and point.guest is not None  # armed for the guest
        # no host hook: neither the entry's nor the return's
        assert not kernel.engine.rethook.hooked and not kernel.engine.on_ftrace.hooked and point.hook is None
        before = kernel.hits("r")
        cap = ReturnCapture(kernel, addr, args)
        try:
            kernel.run(BLOCKS)
        finally:
            cap.close()
        kernel.enable("kg", "r", False)
        assert cap.actual and cap.actual == cap.expected
        assert kernel.hits("r") - before == len(cap.actual)  # kprobe_profile: the guest's count
        return tk
    finally:
        kernel.probe("-:kg/r")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(st.lists(return_fetcharg(), min_size=0, max_size=4), st.sampled_from([K.FTRACE, K.OPTIMIZED, K.INT3]))
def test_guest_kretprobe_records_are_the_generic_ones(kernel, specs, kind):
    compare_return(kernel, specs, kind)


def test_the_bench_kretprobe_is_written_straight_into_the_ring(kernel):
    # $retval, $stack and a register: every argument plain (kg_record_plain at the return)
    compare_return(kernel, ["$retval", "$stack", "%cx"], K.FTRACE)


def test_guest_kretprobe_pool_of_one_on_a_recursive_function_counts_misses(kernel):
    """r1 on free_pgtables (it recurses through the page-table levels when dd's mm goes): the
    outermost call holds the only instance, each nested one is a miss in kprobe_profile and
    not traced; the instance comes back at the outermost return."""
    kernel.probe("p:kg/e free_pgtables")
    kernel.probe("r1:kg/s free_pgtables")
    try:
        kernel.enable("kg", "e")
        kernel.enable("kg", "s")
        for _ in range(3):  # (a run's mm goes after it is reaped: in the next run)
            kernel.run(BLOCKS)

        def counts():
            profile = {line.split()[0]: tuple(map(int, line.split()[1:]))
                       for line in kernel.kprobes.read_profile().decode().splitlines()}
            return profile["e"][0], *profile["s"]
        # the last mm may still be going: read once the counts stand still
        last, now = None, counts()
        while now != last:
            time.sleep(0.05)
            last, now = now, counts()
        calls, nhit, nmissed = now
        # more than one outermost call traced: the one instance came back after each
        assert 1 < nhit < calls and nhit + nmissed == calls
    finally:
        remove_probes(kernel, "e", "s")


def test_guest_kretprobe_instances_of_exited_tasks_go_back_to_the_pool(kernel):
    """r1 on do_exit, which never returns: each exiting task takes the only instance and dies
    with it; the next call gets it back (here the next dd's task_struct is often the freed one:
    the frame at the same sp that never returned; else the pool is empty and the dead task's
    instance is reclaimed, as Linux recycles them when the task is freed), so no call is
    missed and none is recorded.  The last dead task's instance stays on its task_struct's
    chain: a later task in that task_struct returning from a host kretprobe's function at the
    same stack depth (ksys_read, as do_exit under the syscall) must not take it for its own."""
    kernel.probe("p:kg/x do_exit")
    kernel.probe("r1:kg/y do_exit")
    try:
        kernel.enable("kg", "x")
        kernel.enable("kg", "y")
        for _ in range(3):
            kernel.run(BLOCKS)
        profile = {line.split()[0]: tuple(map(int, line.split()[1:]))
                   for line in kernel.kprobes.read_profile().decode().splitlines()}
        assert profile["x"][0] >= 3 and profile["y"] == (0, 0)
        kernel.enable("kg", "x", False)
        kernel.enable("kg", "y", False)
        kernel.probe("-:kg/y")
        with host_probe(kernel, kernel.machine.image.addr("ksys_read"), is_return=True) as returns:
            assert kernel.engine.point(kernel.machine.image.addr("ksys_read")).guest is None
            kernel.run(BLOCKS)  # exits 0
        assert len(returns) >= BLOCKS
    finally:
        remove_probes(kernel, "x", "y")


def test_guest_and_host_kretprobes_share_the_trampoline(kernel):
    """A guest kretprobe on vfs_read inside a host one (a Python handler's) on its caller
    ksys_read: vfs_read's return finds its guest instance, ksys_read's finds none in the guest
    and goes on to the host's hook; both count every call."""
    kernel.probe("r:kg/inner vfs_read ret=$retval")
    try:
        kernel.enable("kg", "inner")
        engine, image = kernel.engine, kernel.machine.image
        with host_probe(kernel, image.addr("ksys_read"), is_return=True) as returns:
            assert engine.point(image.addr(PROBED)).guest is not None
            assert engine.point(image.addr("ksys_read")).guest is None and engine.rethook.hooked
            kernel.run(BLOCKS)
            kernel.enable("kg", "inner", False)
        profile = {line.split()[0]: tuple(map(int, line.split()[1:]))
                   for line in kernel.kprobes.read_profile().decode().splitlines()}
        assert profile["inner"][0] >= BLOCKS and profile["inner"] == (len(returns), 0)
    finally:
        remove_probes(kernel, "inner")


def test_a_probe_event_the_guests_tables_have_no_room_for_is_enomem(kernel):
    """The guest's tables bound the probes (a probe event's records are the guest's alone): once
    they are full a new kprobe event is ENOMEM, as a kernel out of memory for it, and changes
    nothing."""
    addr = kernel.machine.image.addr(PROBED)
    taken = []
    try:
        with pytest.raises(OSError) as full:
            while len(taken) <= 4096:
                taken.append(kernel.engine.register(addr, on_hit=None, guest=K.GuestRecord(0, (), 0)))
        assert full.value.errno == errno.ENOMEM and taken
        before = kernel.kprobes.read_kprobe_events()
        with pytest.raises(OSError) as refused:
            kernel.probe(f"p:kg/full {PROBED} a=%di")
        assert refused.value.errno == errno.ENOMEM and kernel.kprobes.read_kprobe_events() == before
        taken.pop().unregister()
        kernel.probe(f"p:kg/full {PROBED} a=%di")   # room again
    finally:
        for kp in taken:
            kp.unregister()
        remove_probes(kernel, "full")


@pytest.mark.parametrize("kind", [K.FTRACE, K.INT3])
def test_a_probe_event_records_in_a_slot_past_word_0(kernel, kind):
    """A kprobe event enabled in a trace slot past word 0 of the kernel's masks: its kg_probe's
    word 0 holds the summary bit, its type's row of trace_event_ext the slot
    (GuestTracing.set_dyn_event_slots()), and the guest's handler records there as in slot 0."""
    from tests.rb_page_reference import decode_page

    guest, slot = kernel.machine.tracing, 200
    where, optimise = point_of(kernel, kind)
    kernel.optimization(optimise)
    guest.open_slot(slot)
    guest.set_recording(slot, True)
    kernel.probe(f"p:kg/far {where} a=%di")
    try:
        event = kernel.tracing.registry.get("kg", "far")
        event.set_enabled(guest, slot, True)
        before = kernel.hits("far")
        kernel.run(BLOCKS)
        event.set_enabled(guest, slot, False)
        got = [struct.unpack_from("<H", ev.payload)[0] for page in guest.drain(slot)
               for ev in decode_page(page.data).events]
        assert got and got == [event.id] * (kernel.hits("far") - before)
    finally:
        remove_probes(kernel, "far")
        guest.set_recording(slot, False)
        guest.close_slot(slot)


def test_enable_event_of_a_probe_event_in_an_instance_past_word_0(traced):
    """An enable_event trigger whose target is a kprobe event, in an instance whose slot is
    past word 0 of the kernel's masks: the target waits soft-disabled (its bit clear in its
    type's extension words), the trigger sets the bit at the event, and the probe's records
    follow in that instance's buffer alone."""
    m, core, tree = traced(1, "none", 3)
    instances = tree.walk("instances")
    for i in range(1, 66):
        instances.make_child(f"i{i}")
    inst = core.instances.get("i65")
    assert inst.slot > 64
    tree.walk("kprobe_events").write(b"p:kprobes/kx __x64_sys_getuid\n")
    tree.walk("instances/i65/events/syscalls/sys_enter_getuid/trigger").write(b"enable_event:kprobes:kx:1\n")
    enable = tree.walk("instances/i65/events/kprobes/kx/enable")
    assert enable.read() == b"0*\n"
    assert m.spawn(["getuid-loop", "3"]).wait(30) == 0
    core.drain.drain_once()
    assert enable.read() == b"1*\n"
    assert tree.walk("instances/i65/trace").read().decode().count(" kx: (") == 3
    assert " kx: (" not in tree.walk("trace").read().decode() + tree.walk("instances/i1/trace").read().decode()
