"""The guest's function tracers: ftrace_caller, the dispatcher, function_graph's
return stack, pid filters, stack traces, the kprobe hook and probe staging,
driven through FtraceSites on a booted machine and read back from the rings."""
import struct

import pytest

from tracefs_sim.machine import Machine, MachineOptions
from tracefs_sim.probes import FtraceSites
from tests.rb_page_reference import decode_page

TRACE_FN, TRACE_STACK, TRACE_GRAPH_RET, TRACE_GRAPH_ENT, TRACE_FUNC_REPEATS = 1, 4, 10, 11, 19
FLAG_IRQS_OFF, FLAG_HARDIRQ = 0x01, 0x08
NONE = frozenset()


@pytest.fixture
def machine(vmlinux):
    m = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=2, seed=7))
    sites = FtraceSites(m)
    m.start()
    m.tracing.set_recording(0, True)
    m.sites = sites
    yield m
    m.stop()


def run(machine, argv):
    out = []
    proc = machine.spawn(argv, out.append)
    assert proc.wait(60) == 0
    return proc, b"".join(out)


def records(machine, slot=0):
    """(cpu, timestamp, type, flags, preempt_count, pid, payload) of the events
    drained since the last call (a page not complete yet comes back with more)."""
    out = []
    seen = machine.__dict__.setdefault("seen_events", {})
    for page in machine.tracing.drain(slot):
        events = decode_page(page.data).events
        key = (slot, page.cpu, page.seq)
        done, seen[key] = seen.get(key, 0), len(events)
        for ev in events[done:]:
            typ, flags, pc, pid = struct.unpack_from("<HBBi", ev.payload)
            out.append((page.cpu, ev.timestamp, typ, flags, pc, pid, bytes(ev.payload)))
    return out


def sym(machine, addr):
    hit = machine.image.symbolize(addr)
    return hit[0].name if hit else hex(addr)


def assert_text_restored(machine):
    start, end = machine.image.text_range
    assert machine.read_memory(start, end - start) == machine.image.read(start, end - start)


def graph_events(machine, recs):
    """Per pid: [('enter'|'exit', func, depth, ts, calltime, rettime, overrun)]."""
    out = {}
    for _, ts, typ, _, _, pid, p in recs:
        if typ == TRACE_GRAPH_ENT:
            func, depth = struct.unpack_from("<Qi", p, 8)
            out.setdefault(pid, []).append(("enter", sym(machine, func), depth, ts, None, None, None))
        elif typ == TRACE_GRAPH_RET:
            func, depth, overrun, calltime, rettime = struct.unpack_from("<QiIQQ", p, 8)
            out.setdefault(pid, []).append(("exit", sym(machine, func), depth, ts, calltime, rettime, overrun))
    return out


def test_function_records_name_function_and_parent(machine):
    sites = machine.sites
    sites.set_function(0, frozenset({"vfs_read", "ksys_read"}))
    assert sites.patched_count == 2
    proc, out = run(machine, ["cat", "/etc/passwd"])
    assert out.startswith(b"root:")
    fn = [(pid, flags, pc, struct.unpack_from("<QQ", p, 8)) for _, _, typ, flags, pc, pid, p in records(machine)
          if typ == TRACE_FN]
    calls = [(sym(machine, ip), sym(machine, parent)) for pid, _, _, (ip, parent) in fn if pid == proc.pid]
    assert ("vfs_read", "ksys_read") in calls
    assert ("ksys_read", "__x64_sys_read") in calls
    assert {name for name, _ in calls} == {"vfs_read", "ksys_read"}
    ip = next(ip for pid, _, _, (ip, _) in fn if pid == proc.pid and sym(machine, ip) == "vfs_read")
    assert ip == sites.address("vfs_read")
    # a syscall: interrupts on, no preemption, not in an interrupt
    assert all(flags == 0 and pc == 0 for pid, flags, pc, _ in fn if pid == proc.pid)
    sites.set_function(0, None)
    assert sites.patched_count == 0
    assert_text_restored(machine)


def test_traced_kernel_behaves_as_untraced(machine):
    """ftrace_caller and return_to_handler are invisible: every function traced
    both ways, the programs still produce their output."""
    _, expected = run(machine, ["cat", "/etc/passwd"])
    sites = machine.sites
    everything = frozenset(sites.functions)
    sites.set_function(0, everything)
    sites.set_graph(0, everything, graph_functions=NONE, graph_notrace=NONE)
    assert sites.patched_count == len(set(sites.functions))
    _, traced = run(machine, ["cat", "/etc/passwd"])
    _, loop = run(machine, ["getuid-loop", "20"])
    assert traced == expected and loop == b"0\n" * 20
    recs = records(machine)
    assert sum(1 for r in recs if r[2] == TRACE_FN) > 100
    sites.set_graph(0, None, graph_functions=NONE, graph_notrace=NONE)
    sites.set_function(0, None)
    assert_text_restored(machine)


def test_graph_entries_and_exits_nest(machine):
    sites = machine.sites
    sites.set_graph(0, frozenset(sites.functions), graph_functions=frozenset({"vfs_read"}), graph_notrace=NONE)
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    events = graph_events(machine, records(machine))[proc.pid]
    stack, seen = [], set()
    for kind, func, depth, ts, calltime, rettime, overrun in events:
        seen.add(func)
        if kind == "enter":
            assert depth == len(stack)  # set_graph_function: vfs_read is the root, depth 0
            if not stack:
                assert func == "vfs_read"
            stack.append((func, ts))
        else:
            entered, enter_ts = stack.pop()
            assert (func, depth) == (entered, len(stack))
            assert calltime < enter_ts <= rettime < ts  # the entry record is written after calltime
            assert rettime > calltime and overrun == 0
    assert not stack
    # the host file's ->read_iter is the machine's glue (not traced): its buffer's allocation is
    assert {"vfs_read", "rw_verify_area", "security_file_permission", "kmalloc_trace", "kfree"} <= seen
    assert "ksys_read" not in seen and "do_syscall_64" not in seen  # outside set_graph_function
    sites.set_graph(0, None, graph_functions=NONE, graph_notrace=NONE)
    assert_text_restored(machine)


def test_tracing_thresh_records_only_slow_exits(machine):
    sites = machine.sites
    sites.set_graph(0, frozenset(sites.functions), graph_functions=frozenset({"vfs_read"}), graph_notrace=NONE)
    run(machine, ["cat", "/etc/passwd"])
    every = [e for events in graph_events(machine, records(machine)).values() for e in events]
    exits = [e for e in every if e[0] == "exit"]
    durations = sorted(rettime - calltime for _, _, _, _, calltime, rettime, _ in exits)
    thresh = durations[len(durations) // 2] + 1
    sites.set_graph_thresh(thresh)
    run(machine, ["cat", "/etc/passwd"])
    events = [e for events in graph_events(machine, records(machine)).values() for e in events]
    # no entries; exits only of the calls that took at least the threshold (vfs_read among them)
    assert events and all(e[0] == "exit" and e[5] - e[4] >= thresh for e in events)
    assert "vfs_read" in {e[1] for e in events} and len(events) < len(exits)
    sites.set_graph_thresh(0)
    run(machine, ["cat", "/etc/passwd"])
    assert "enter" in {e[0] for events in graph_events(machine, records(machine)).values() for e in events}
    sites.set_graph(0, None, graph_functions=NONE, graph_notrace=NONE)


def test_graph_notrace_drops_function_and_children(machine):
    sites = machine.sites
    sites.set_graph(0, frozenset(sites.functions), graph_functions=frozenset({"vfs_read"}),
                    graph_notrace=frozenset({"kmalloc_trace"}))
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    events = graph_events(machine, records(machine))[proc.pid]
    seen = {e[1] for e in events}
    assert "kfree" in seen and "__kmem_cache_free" in seen
    assert "kmalloc_trace" not in seen and "__kmem_cache_alloc_node" not in seen
    # the slab lock is taken under kfree (depth 3) and under kmalloc_trace (not traced)
    assert {e[2] for e in events if e[1] == "_raw_spin_lock_irqsave"} >= {3}


def test_func_no_repeats_counts_repeated_calls(machine):
    """function_no_repeats_trace_call(): a call like the last (same ip and parent) is
    counted, not recorded; the next other call first writes the func_repeats record."""
    sites = machine.sites
    sites.set_function(0, frozenset({"read_zero", "do_exit"}))
    sites.set_no_repeats(0, True)
    proc, _ = run(machine, ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=20"])
    recs = [r for r in records(machine) if r[5] == proc.pid and r[2] in (TRACE_FN, TRACE_FUNC_REPEATS)]
    assert [(r[2], sym(machine, struct.unpack_from("<Q", r[6], 8)[0])) for r in recs] == [
        (TRACE_FN, "read_zero"), (TRACE_FUNC_REPEATS, "read_zero"), (TRACE_FN, "do_exit")]
    first, repeats, exit_ = recs
    assert len(repeats[6]) == 32 and repeats[6][16:24] == first[6][16:24]      # the same parent
    count, top, bottom = struct.unpack_from("<HHI", repeats[6], 24)
    last_call = repeats[1] - (top << 32 | bottom)
    assert count == 19 and first[1] < last_call < repeats[1] < exit_[1]
    assert repeats[3:5] == exit_[3:5]       # the context of the call that ended the run
    sites.set_no_repeats(0, False)
    proc, _ = run(machine, ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=5"])
    recs = [r for r in records(machine) if r[5] == proc.pid]
    assert [r[2] for r in recs] == [TRACE_FN] * 6


def test_max_graph_depth(machine):
    sites = machine.sites
    sites.set_graph(0, frozenset(sites.functions), graph_functions=NONE, graph_notrace=NONE)
    sites.set_max_graph_depth(2)
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    events = graph_events(machine, records(machine))[proc.pid]
    depths = {e[2] for e in events}
    assert depths == {0, 1}


def test_pid_filters(machine):
    sites = machine.sites
    sites.set_function(0, frozenset({"vfs_read"}))
    first, _ = run(machine, ["cat", "/etc/passwd"])
    assert first.pid in {r[5] for r in records(machine)}
    later = frozenset(range(first.pid + 1, first.pid + 65))
    sites.set_pids(0, later, NONE)
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    pids = {r[5] for r in records(machine) if r[2] == TRACE_FN}
    assert proc.pid in later and pids == {proc.pid}
    sites.set_pids(0, frozenset({1}), NONE)
    run(machine, ["cat", "/etc/passwd"])
    assert not [r for r in records(machine) if r[2] == TRACE_FN]
    sites.set_pids(0, NONE, frozenset(range(proc.pid + 1, proc.pid + 65)))
    run(machine, ["cat", "/etc/passwd"])
    assert not [r for r in records(machine) if r[2] == TRACE_FN]
    sites.set_pids(0, NONE, NONE)
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    assert proc.pid in {r[5] for r in records(machine) if r[2] == TRACE_FN}


def test_func_stack_trace(machine):
    sites = machine.sites
    sites.set_function(0, frozenset({"vfs_read"}))
    sites.set_stack_trace(0, True)
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    recs = [r for r in records(machine) if r[5] == proc.pid]
    assert recs and [r[2] for r in recs[:2]] == [TRACE_FN, TRACE_STACK]
    payload = recs[1][6]
    size = struct.unpack_from("<i", payload, 8)[0]
    assert len(payload) == 16 + 8 * size  # the record holds `size` callers
    addrs = struct.unpack_from(f"<{size}Q", payload, 16)
    # as Linux's unwinder reports them: the return into the trampoline (past _etext, which
    # kallsyms does not know), the return of the site's call, then the callers
    caller = machine.image.lookup("ftrace_caller")
    start, end = machine.image.text_range
    assert caller.addr < addrs[0] <= caller.addr + caller.size and not start <= addrs[0] < end
    assert machine.image.kallsyms_lookup(addrs[0]) is None
    assert [sym(machine, a) for a in addrs[1:5]] == ["vfs_read", "ksys_read", "__x64_sys_read", "do_syscall_64"]
    assert addrs[1] == machine.image.mcount_sites["vfs_read"] + 5
    # entry_SYSCALL_64's `call do_syscall_64` returns inside entry_SYSCALL_64_after_hwframe, as in
    # Linux; then user frames: stop
    assert [sym(machine, a) for a in addrs[5:]] == ["entry_SYSCALL_64_after_hwframe"]
    sites.set_stack_trace(0, False)
    run(machine, ["cat", "/etc/passwd"])
    assert TRACE_STACK not in {r[2] for r in records(machine)}


def test_interrupt_handlers_are_traced_in_hardirq_context(machine):
    sites = machine.sites
    sites.set_function(0, frozenset({"hrtimer_interrupt"}))
    run(machine, ["getuid-loop", "200"])
    recs = [r for r in records(machine) if r[2] == TRACE_FN]
    assert recs
    assert all(r[3] & FLAG_HARDIRQ and r[3] & FLAG_IRQS_OFF for r in recs)


def test_slots_record_independently(machine):
    sites = machine.sites
    machine.tracing.open_slot(2)
    machine.tracing.set_recording(2, True)
    sites.set_function(0, frozenset({"vfs_read"}))
    sites.set_function(2, frozenset({"ksys_read"}))
    run(machine, ["cat", "/etc/passwd"])
    names = lambda slot: {sym(machine, struct.unpack_from("<Q", r[6], 8)[0])
                          for r in records(machine, slot) if r[2] == TRACE_FN}
    assert names(0) == {"vfs_read"} and names(2) == {"ksys_read"}


def test_function_tracers_of_slots_past_word_0(machine):
    """Slots past word 0 of the kernel's masks (struct ftrace_ext_slot, allocated with the
    slot's buffers): each records the sites it traces with the function tracer or
    function_graph in its own rings, by its own pid lists, with its func_stack_trace and
    func-no-repeats; word 0's slot 0 beside them keeps its own."""
    sites, tracing = machine.sites, machine.tracing
    fn_slot, graph_slot, other = 70, 300, 200
    for slot in (fn_slot, graph_slot, other):
        tracing.open_slot(slot)
        tracing.set_recording(slot, True)
    sites.set_function(0, frozenset({"vfs_read"}))
    sites.set_function(fn_slot, frozenset({"ksys_read", "vfs_read"}))
    sites.set_graph(graph_slot, frozenset({"ksys_read", "vfs_read"}), graph_functions=NONE, graph_notrace=NONE)
    names = lambda recs: {sym(machine, struct.unpack_from("<Q", r[6], 8)[0]) for r in recs if r[2] == TRACE_FN}
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    assert names(records(machine, 0)) == {"vfs_read"}
    assert names(records(machine, fn_slot)) == {"ksys_read", "vfs_read"}
    assert records(machine, other) == []
    events = graph_events(machine, records(machine, graph_slot))[proc.pid]
    assert [e[:3] for e in events[:4]] == [("enter", "ksys_read", 0), ("enter", "vfs_read", 1),
                                           ("exit", "vfs_read", 1), ("exit", "ksys_read", 0)]
    refs = {name: n for name, n, _ in sites.enabled()}
    assert refs["vfs_read"] == 3 and refs["ksys_read"] == 2   # each function tracer's ops; the graph's one

    # pid lists (only a later task's calls), the stack option, func-no-repeats
    later = frozenset(range(proc.pid + 1, proc.pid + 65))
    sites.set_pids(fn_slot, later, NONE)
    sites.set_stack_trace(graph_slot, True)     # graph slots take no stacks: nothing changes there
    sites.set_stack_trace(fn_slot, True)
    assert sites.read_pids(fn_slot) == (later, None)
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    recs = records(machine, fn_slot)
    assert proc.pid in later and {r[5] for r in recs} == {proc.pid}
    assert [r[2] for r in recs[:2]] == [TRACE_FN, TRACE_STACK]
    assert graph_events(machine, records(machine, graph_slot))[proc.pid]
    sites.set_pids(fn_slot, NONE, NONE)
    sites.set_stack_trace(fn_slot, False)
    sites.set_function(fn_slot, frozenset({"read_zero"}))
    sites.set_no_repeats(fn_slot, True)
    records(machine, 0)
    proc, _ = run(machine, ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=20"])
    got = [r[2] for r in records(machine, fn_slot) if r[5] == proc.pid]
    assert got == [TRACE_FN], got  # the repeats' record comes with the next other call
    assert "read_zero" not in names(records(machine, 0))

    # off: the sites go back to their nops; the slots close and open again with nothing set
    sites.set_no_repeats(fn_slot, False)
    for slot in (0, fn_slot):
        sites.set_function(slot, None)
    sites.set_graph(graph_slot, None, graph_functions=NONE, graph_notrace=NONE)
    assert sites.patched_count == 0
    assert_text_restored(machine)
    for slot in (fn_slot, graph_slot, other):
        tracing.set_recording(slot, False)
        tracing.close_slot(slot)
    machine.__dict__.pop("seen_events")    # the pages of a slot made again count from 0
    tracing.open_slot(fn_slot)
    tracing.set_recording(fn_slot, True)
    sites.set_function(fn_slot, frozenset({"vfs_read"}))
    run(machine, ["cat", "/etc/passwd"])
    assert names(records(machine, fn_slot)) == {"vfs_read"}
    sites.set_function(fn_slot, None)


def test_fast_and_general_paths_write_the_same_records(machine):
    """One recording trace array takes the dispatcher's fast path, two take the general one
    (a copy for each): the same records, flags and preempt count included (the fast path
    skips the preempt_disable the general one counts).  need-resched may differ in time."""
    sites = machine.sites
    # syscall context, and (waking the parent at exit) interrupts off and preemption disabled
    funcs = frozenset({"vfs_read", "ksys_read", "select_task_rq_fair", "ttwu_do_activate", "enqueue_task_fair"})

    def calls(slot, pid):
        """(type, flags, preempt count, function) of the process's records (the same in both
        runs; their order and callers need not be)"""
        return {(typ, flags & ~0x24, pc, p[8:16]) for _, _, typ, flags, pc, rpid, p in records(machine, slot)
                if rpid == pid}
    sites.set_function(0, funcs)
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    fast = calls(0, proc.pid)
    machine.tracing.open_slot(2)
    machine.tracing.set_recording(2, True)
    sites.set_function(2, funcs)
    proc, _ = run(machine, ["cat", "/etc/passwd"])
    assert {typ for typ, *_ in fast} == {TRACE_FN} and {pc for _, _, pc, _ in fast} >= {0, 1}
    assert calls(0, proc.pid) == fast and calls(2, proc.pid) == fast


def test_kprobe_hook_stages_a_record_committed_by_the_guest(machine):
    """An ftrace-based kprobe: the code hook at ftrace_kprobe_hook sees the
    saved pt_regs (rdi), stages a record; probe_commit_stub writes it."""
    image, sites = machine.image, machine.sites
    stage = image.lookup("probe_stage")
    stage_size = stage.size // 8
    hits = []

    def on_hit(ctx):
        regs = ctx.regs()
        pt = regs[5]  # rdi: the saved pt_regs
        ip, _, flags, sp = struct.unpack("<QQQQ", ctx.read(pt + 16 * 8, 32))
        ret = struct.unpack("<Q", ctx.read(sp, 8))[0]
        hits.append((ip, ret))
        body = struct.pack("<QQ", ip, ret)
        # type, pad, irqflags, pad, slots (slot 0), triggers (none), then the body
        ctx.write(stage.addr + ctx.cpu * stage_size + 4, struct.pack("<HHIIQQ", 999, 0, flags, 0, 1, 0) + body)
        ctx.write(stage.addr + ctx.cpu * stage_size, struct.pack("<I", len(body)))

    handle = machine.add_code_hook(image.addr("ftrace_kprobe_hook"), on_hit)
    sites.set_kprobe("vfs_read", True)
    assert sites.enabled() == [("vfs_read", 1, " R    ")]
    proc, out = run(machine, ["cat", "/etc/passwd"])
    assert out.startswith(b"root:")
    staged = [r for r in records(machine) if r[2] == 999]
    assert hits and len(staged) == len(hits)
    for r in staged:
        ip, ret = struct.unpack_from("<QQ", r[6], 8)
        assert ip == sites.address("vfs_read") and sym(machine, ret) == "ksys_read"
        assert r[3] == 0 and r[4] == 0  # the probed context's flags and preempt count
    assert {r[5] for r in staged} == {proc.pid}
    # nothing staged is left behind
    assert all(struct.unpack("<I", machine.read_memory(stage.addr + c * stage_size, 4))[0] == 0
               for c in range(machine.nr_cpus))
    sites.set_kprobe("vfs_read", False)
    machine.remove_code_hook(handle)
    assert_text_restored(machine)


def test_seeded_runs_trace_the_same(vmlinux):
    """Same seed, same commands: the same function_graph trace, times included."""
    def trace():
        m = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=2, seed=11))
        sites = FtraceSites(m)
        m.start()
        try:
            m.tracing.set_recording(0, True)
            sites.set_graph(0, frozenset(sites.functions), graph_functions=NONE, graph_notrace=NONE)
            run(m, ["cat", "/etc/passwd"])
            return records(m)
        finally:
            m.stop()
    first = trace()
    assert len(first) > 100 and first == trace()


def test_funcgraph_irqs_off_skips_interrupt_handlers(machine):
    sites = machine.sites
    sites.set_graph(0, frozenset(sites.functions), graph_functions=NONE, graph_notrace=NONE)
    run(machine, ["getuid-loop", "200"])
    funcs = {e[1] for evs in graph_events(machine, records(machine)).values() for e in evs}
    assert "hrtimer_interrupt" in funcs
    sites.set_graph_irqs(False)
    run(machine, ["getuid-loop", "200"])
    recs = records(machine)
    funcs = {e[1] for evs in graph_events(machine, recs).values() for e in evs}
    assert "hrtimer_interrupt" not in funcs and "__do_sys_getuid" in funcs
    # nothing entered in an interrupt; irq_enter_rcu(), entered before it, returns inside it
    in_irq = graph_events(machine, [r for r in recs if r[3] & FLAG_HARDIRQ])
    assert {(e[0], e[1]) for evs in in_irq.values() for e in evs} <= {("exit", "irq_enter_rcu")}
    # a set_graph_function entered in an interrupt is still traced, with its children
    sites.set_graph(0, frozenset(sites.functions), graph_functions=frozenset({"hrtimer_interrupt"}),
                    graph_notrace=NONE)
    run(machine, ["getuid-loop", "200"])
    recs = records(machine)
    assert {e[1] for evs in graph_events(machine, recs).values() for e in evs} >= {"hrtimer_interrupt"}
    # (exits of calls hooked before the change may still come, in any context, as in Linux)
    assert all(r[3] & FLAG_HARDIRQ for r in recs if r[2] == TRACE_GRAPH_ENT)


def test_stack_tracer_keeps_the_deepest_stack(machine):
    sites = machine.sites
    assert sites.read_stack_max() == (0, [])
    sites.set_stack_tracer(frozenset({"vfs_read"}))
    assert "vfs_read" in {name for name, _, _ in sites.enabled()}
    run(machine, ["cat", "/etc/passwd"])
    size, entries = sites.read_stack_max()
    names = [sym(machine, addr) for addr, _ in entries]
    # from the measured function's site up to the system call's entry, each return address
    # where its slot lies: the deepest first, the depths falling to the entry's
    assert names == ["vfs_read", "ksys_read", "__x64_sys_read", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"]
    assert entries[0][0] == machine.image.mcount_sites["vfs_read"] + 5
    depths = [depth for _, depth in entries]
    assert depths[0] == size and depths == sorted(depths, reverse=True) and depths[-1] > 0
    # a stack no deeper than the maximum changes nothing; a lower maximum is passed again
    run(machine, ["cat", "/etc/passwd"])
    assert sites.read_stack_max() == (size, entries)
    sites.set_stack_max_size(0)
    run(machine, ["cat", "/etc/passwd"])
    assert sites.read_stack_max()[0] == size
    # off: the sites go back to their nops, the maximum stays
    sites.set_stack_tracer(None)
    assert sites.patched_count == 0
    sites.set_stack_max_size(0)
    run(machine, ["cat", "/etc/passwd"])
    assert sites.read_stack_max() == (0, entries)
    assert_text_restored(machine)
