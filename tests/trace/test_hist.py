"""Hist triggers on the trace core, over the fake guest: the command's grammar, its read-back,
its errors with the error_log entries of Linux 6.1 (checked against the real kernel with
real-tracefs), and the `hist` file printed from a map's entries."""
import errno
import re
import struct

import pytest

from fakes import FakeMachine
from tracefs_sim.trace import hist
from tracefs_sim.trace.core import TraceCore
from tracefs_sim.machine.contract import HistEntry, HistExprStep, HistSnapshot


@pytest.fixture
def core():
    return TraceCore(FakeMachine(clock_ns=2_000_000_000), ftrace_sites=None, kprobe_engine=None)


def ev(core, system="sched", name="sched_switch"):
    return core.registry.get(system, name)


def errno_of(call, *args):
    with pytest.raises(OSError) as caught:
        call(*args)
    return caught.value.errno


def test_read_back_as_linux_prints_it(core):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"hist:keys=prev_comm,next_comm\n")
    t.write(e, b"hist:keys=prev_pid:vals=prev_prio.percent,next_prio.graph\n")
    t.write(e, b"hist:keys=cpu\n")
    t.write(e, b"hist:keys=common_cpu:vals=cpu\n")
    t.write(e, b"hist:keys=prev_pid:sort=prev_pid.descending:size=200 if prev_pid > 0\n")
    assert t.read(e) == (   # hist triggers go to the tail of the list
        b"hist:keys=prev_comm,next_comm:vals=hitcount:sort=hitcount:size=2048 [active]\n"
        b"hist:keys=prev_pid:vals=hitcount,prev_prio.percent,next_prio.graph:sort=hitcount:size=2048 [active]\n"
        b"hist:keys=common_cpu:vals=hitcount:sort=hitcount:size=2048 [active]\n"
        b"hist:keys=common_cpu:vals=hitcount,common_cpu:sort=hitcount:size=2048 [active]\n"
        b"hist:keys=prev_pid:vals=hitcount:sort=prev_pid.descending:size=256 if prev_pid > 0 [active]\n")
    assert core.top.events.read_enable("sched", "sched_switch") == b"0*\n"


def test_pause_cont_clear_and_remove(core):
    t, e = core.top.triggers, ev(core)
    cmd = b"hist:keys=prev_pid:sort=prev_pid.descending:size=200 if prev_pid > 0"
    t.write(e, cmd + b"\n")
    assert errno_of(t.write, e, cmd + b"\n") == errno.EEXIST
    t.write(e, b"hist:keys=prev_pid:sort=prev_pid.descending:size=200:pause if prev_pid > 0\n")
    assert t.read(e).endswith(b" if prev_pid > 0 [paused]\n")
    t.write(e, b"hist:keys=prev_pid:sort=prev_pid.descending:cont if prev_pid > 0\n")
    assert t.read(e).endswith(b" [active]\n")
    assert errno_of(t.write, e, b"hist:keys=next_comm:cont\n") == errno.ENOENT
    assert core.top.error_log.read().endswith(
        b" hist:sched:sched_switch: error: Can't clear or continue a nonexistent hist trigger\n"
        b"  Command: hist:keys=next_comm:cont\n"
        b"           ^\n")
    t.write(e, b"!hist:keys=next_comm\n")           # no such trigger: nothing to do
    t.write(e, b"!" + cmd + b"\n")
    assert t.read(e).startswith(b"# Available triggers:")
    assert core.guest.hist_maps.specs == {}
    assert core.top.events.read_enable("sched", "sched_switch") == b"0\n"


def test_the_map_handed_to_the_guest(core):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"hist:keys=common_pid.execname,prev_comm:vals=prev_prio,next_pid:size=100\n")
    (g,) = core.guest.triggers.table
    assert g.cmd == "hist" and g.cond and g.hist in core.guest.hist_maps.specs
    spec = core.guest.hist_maps.specs[g.hist]
    assert spec.map_bits == 7 and spec.comm and spec.key_size == 8 + 16
    pid, comm = spec.keys
    assert (pid.kind, pid.offset, pid.size, pid.is_signed, pid.key_offset) == ("num", 4, 4, True, 0)
    assert (comm.kind, comm.offset, comm.key_offset, comm.str_size) == ("str", 8, 8, 16)
    assert [v.kind for v in spec.vals] == ["hitcount", "num", "num"]


@pytest.mark.parametrize("command, err, log", [
    (b"hist:keys=foo", errno.EINVAL, ("Couldn't find field", 10)),
    (b"hist:keys=prev_pid.foo", errno.EINVAL, ("Invalid field modifier", 19)),
    (b"hist:keys=prev_pid:vals=prev_pid.log2", errno.EINVAL, ("Invalid field modifier", 24)),
    (b"hist:keys=prev_pid:sort=bar", errno.EINVAL, ("Sort field must be a key or a val", 24)),
    (b"hist:keys=prev_pid:sort=prev_pid.up", errno.EINVAL, ("Invalid sort modifier", 33)),
    (b"hist:keys=prev_pid:sort=", errno.EINVAL, ("Empty assignment", 19)),
    (b"hist:keys=prev_pid:sort=a,b,c", errno.EINVAL, ("Sort field must be a key or a val", 24)),
    (b"hist:keys=prev_pid:x=", errno.EINVAL, ("Empty assignment", 19)),
    (b"hist:keys=prev_pid:size=3", errno.EINVAL, None),
    (b"hist:keys=prev_pid:bogus", errno.EINVAL, None),
    (b"hist:vals=prev_pid", errno.EINVAL, None),
    (b"hist:keys=prev_pid.execname", errno.EINVAL, ("Invalid field modifier", 19)),
    (b"hist:keys=prev_comm:vals=prev_pid,next_pid,prev_prio", errno.EINVAL, None),
    (b"hist:keys=prev_pid,next_pid,prev_prio,next_prio", errno.EINVAL, None),
    (b"hist:keys=prev_pid.percent", errno.EINVAL, ("Invalid field modifier", 19)),
    (b"hist:keys=prev_pid:clear", errno.ENOENT, ("Can't clear or continue a nonexistent hist trigger", 0)),
    (b"hist:keys=prev_pid.buckets=0", errno.EINVAL, ("Invalid field modifier", 27)),
    (b"hist:keys=prev_pid.buckets=x", errno.EINVAL, ("Invalid field modifier", 27)),
    # .percent / .graph (real-tracefs): values only, not hitcount, not a variable (its operands
    # may), a sort key has them without saying so; a second dot makes the text SYSTEM.EVENT.REST
    (b"hist:keys=prev_pid.graph", errno.EINVAL, ("Invalid field modifier", 19)),
    (b"hist:keys=prev_pid:vals=hitcount.percent", errno.EINVAL, ("Couldn't find field", 24)),
    (b"hist:keys=prev_pid:vals=prev_prio.percen", errno.EINVAL, ("Invalid field modifier", 34)),
    (b"hist:keys=prev_pid:vals=prev_prio.percent.hex", errno.EINVAL, ("Couldn't find field", 42)),
    (b"hist:keys=prev_pid:vals=prev_prio.hex.percent", errno.EINVAL, ("Couldn't find field", 38)),
    (b"hist:keys=prev_pid:x=prev_prio.percent", errno.EINVAL, ("Invalid field modifier", 31)),
    (b"hist:keys=prev_pid:x=prev_prio.graph", errno.EINVAL, ("Invalid field modifier", 31)),
    (b"hist:keys=prev_pid:vals=prev_prio.percent:sort=prev_prio.percent", errno.EINVAL,
     ("Invalid sort modifier", 34)),
    (b"hist:keys=prev_pid:vals=1.graph", errno.EINVAL, ("Expecting numeric literal", 24)),
    (b"hist:keys=prev_pid if", errno.EINVAL, None),
    (b"hist:keys=prev_pid if prev_pid >", errno.EINVAL, None),
    # keys and values computed at the event (real-tracefs): expressions, constants, timestamps
    (b"hist:keys=prev_pid:vals=common_timestamp.usecs.graph", errno.EINVAL, ("Couldn't find field", 47)),
    (b"hist:keys=prev_pid:vals=(prev_prio-next_prio).hex", errno.EINVAL, ("Couldn't find field", 24)),
    (b"hist:keys=prev_pid:vals=prev_pid/0", errno.EDOM, ("Division by zero", 33)),
    (b"hist:keys=prev_comm+1", errno.EINVAL, ("String type can not be an operand in expression", 10)),
    (b"hist:keys=prev_pid:vals=common_timestamp-common_timestamp.usecs", errno.EINVAL,
     ("Timestamp units in expression don't match", 0)),
    (b"hist:keys=common_timestamp.percent", errno.EINVAL, ("Invalid field modifier", 27)),
    (b"hist:keys=prev_pid:vals=1+2:sort=1+2", errno.EINVAL, ("Sort field must be a key or a val", 24)),
    (b"hist:keys=prev_pid:vals=1+2:sort=3", errno.EINVAL, ("Sort field must be a key or a val", 33)),
    (b"hist:keys=prev_pid:vals=1,2,prev_prio", errno.EINVAL, None),
    (b"hist:keys=prev_pid:vals=prev_prio.usecs+1", errno.EINVAL, ("Timestamp units in expression don't match", 0)),
    (b"hist:keys=prev_pid:vals=prev_prio+1+2+3+4", errno.EINVAL, ("Too many subexpressions (3 max)", 24)),
])
def test_errors_as_linux_gives_them(core, command, err, log):
    t, e = core.top.triggers, ev(core)
    assert errno_of(t.write, e, command + b"\n") == err
    text = core.top.error_log.read()
    if log is None:
        assert text == b""
    else:
        message, pos = log
        assert text.split(b"] ", 1)[1] == (b"hist:sched:sched_switch: error: " + message.encode() + b"\n"
                                           b"  Command: " + command + b"\n" + b" " * (11 + pos) + b"^\n")
    assert t.read(e).startswith(b"# Available triggers:")
    assert core.guest.hist_maps.specs == {}


@pytest.mark.parametrize("command, entries", [
    # parse_var_ref() logs that it found no variable, then parse_field() what it finds wrong
    (b"hist:keys=prev_pid:vals=$x.graph", [("Couldn't find variable", 25), ("Couldn't find field", 24)]),
    (b"hist:keys=$x.graph:x=next_pid", [("Couldn't find variable", 11), ("Invalid field modifier", 13)]),
])
def test_a_missing_variable_with_a_modifier_logs_twice(core, command, entries):
    t, e = core.top.triggers, ev(core)
    assert errno_of(t.write, e, command + b"\n") == errno.EINVAL
    logged = re.split(rb"^\[ *[0-9.]+\] ", core.top.error_log.read(), flags=re.M)[1:]
    assert logged == [b"hist:sched:sched_switch: error: " + message.encode() + b"\n  Command: " + command +
                      b"\n" + b" " * (11 + pos) + b"^\n" for message, pos in entries]
    assert t.read(e).startswith(b"# Available triggers:") and core.guest.hist_maps.specs == {}


def test_percent_and_graph_read_back(core):
    # (real-tracefs) `.percentage` is .percent; SYSTEM.EVENT.field is the field; a sort key
    # prints its value's modifier; a variable's operand keeps it
    t, e = core.top.triggers, ev(core)
    t.write(e, b"hist:keys=prev_pid:vals=prev_prio.percentage,next_prio.graphs:sort=prev_prio\n")
    t.write(e, b"hist:keys=a.b.next_pid:vals=sched.sched_switch.prev_prio.graph:sort=prev_prio.descending\n")
    t.write(e, b"hist:keys=prev_pid:vals=hitcount:x=prev_prio.percent+1,y=-(next_prio.graph)\n")
    assert t.read(e) == (
        b"hist:keys=prev_pid:vals=hitcount,prev_prio.percent,next_prio.graph:sort=prev_prio.percent:size=2048 [active]\n"
        b"hist:keys=next_pid:vals=hitcount,prev_prio.graph:sort=prev_prio.graph.descending:size=2048 [active]\n"
        b"hist:keys=prev_pid:vals=hitcount:x=prev_prio.percent+1,y=-(next_prio.graph):sort=hitcount:size=2048"
        b" [active]\n")


def test_constant_expressions_collapse_to_their_value(core):
    # (real-tracefs) parse_expr()'s combine_consts: the expression is named by its value, and
    # +/- and * and / each associate to the left (ftracetest's trigger-hist-expressions.tc)
    t, e = core.top.triggers, ev(core)
    t.write(e, b"hist:keys=prev_pid:x=16-8-4-2,y=4+6/2-2,z=64/8/4/2:vals=hitcount,5*3\n")
    assert t.read(e) == b"hist:keys=prev_pid:vals=hitcount,15:x=2,y=5,z=1:sort=hitcount:size=2048 [active]\n"


NEG = (1 << 64) - 66        # a sum of negative values (-66), as raw_syscalls:sys_exit's ret has


@pytest.mark.parametrize("sums, percents, bars", [
    # the column's total is a u64: -66 + 100 is 34, so 100 is 294.11% and -66, past
    # U64_MAX / 10000, is divided by 34 / 10000 = 0: [ERROR] (6.1's ret (%): 4379782.31 on
    # sys_exit is the same arithmetic)
    ((100, NEG), ("294.11", "[ERROR]"), (" " * 20, "#" * 20)),
    ((1, (1 << 64) - 1, 0), ("[ERROR]", "[ERROR]", "  0.00"), (" " * 20, "#" * 20, " " * 20)),
    ((1, 3), (" 25.00", " 75.00"), ("######              ", "#" * 20)),
])
def test_percent_and_graph_of_a_column(core, sums, percents, bars):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"hist:keys=prev_pid:vals=prev_prio.percent,next_prio.graph:sort=prev_pid\n")
    (addr,) = core.guest.hist_maps.specs
    for pid, value in enumerate(sums):
        core.guest.hist_maps.put(addr, key(pid), (1, value, value))
    lines = t.read_hist(e).decode().splitlines()[5:5 + len(sums)]
    assert lines == [f"{{ prev_pid: {pid:10d} }} hitcount:          1  prev_prio (%):"
                     f"{'' if pc == '[ERROR]' else ' '}{pc}  next_prio: {bar}"
                     for pid, (pc, bar) in enumerate(zip(percents, bars))]


def key(*values: int) -> bytes:
    return b"".join(struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF) for v in values)


def test_hist_file_entries_sorted_and_totals(core):
    t, e = core.top.triggers, ev(core, "raw_syscalls", "sys_exit")
    # (the captured formats the fake registry has do not number the syscalls: the image's do)
    t.hist_context.syscall_names.update({1: "sys_write", 102: "sys_getuid"})
    t.write(e, b"hist:keys=id.syscall:vals=hitcount,ret\n")
    maps = core.guest.hist_maps
    (addr,) = maps.specs
    maps.put(addr, key(102), (3, 0), hits=3)
    maps.put(addr, key(-1), (2, 217), hits=2)
    maps.put(addr, key(1), (1, 116))
    text = t.read_hist(e).decode()
    assert text == (
        "# event histogram\n#\n"
        "# trigger info: hist:keys=id.syscall:vals=hitcount,ret:sort=hitcount:size=2048 [active]\n#\n\n"
        "{ id: sys_write                     [  1] } hitcount:          1  ret:        116\n"
        "{ id: unknown_syscall               [18446744073709551615] } hitcount:          2  ret:        217\n"
        "{ id: sys_getuid                    [102] } hitcount:          3  ret:          0\n"
        "\nTotals:\n    Hits: 6\n    Entries: 3\n    Dropped: 0\n")


def test_key_and_value_formats(core):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"hist:keys=cpu.hex,prev_prio:vals=hitcount,prev_pid.hex:sort=cpu\n")
    t.write(e, b"hist:keys=prev_comm,common_pid.execname:vals=prev_pid.percent,next_pid.graph\n")
    t.write(e, b"hist:keys=prev_state.log2,prev_pid.buckets=10\n")
    a, b, c = core.guest.hist_maps.specs
    maps = core.guest.hist_maps
    maps.put(a, key(1, 120), (26, 0x390))
    maps.put(a, key(0, 120), (14, 0x1ec))
    maps.put(b, b"head".ljust(16, b"\0") + key(111), (1, 30, 1), comm=b"head".ljust(16, b"\0"))
    maps.put(b, b"cat".ljust(16, b"\0") + key(108), (3, 10, 4), comm=b"cat".ljust(16, b"\0"))
    maps.put(c, key(3, 120), (5,))
    first, second, third = t.read_hist(e).decode().split("\n\n\n")
    assert first.splitlines()[2] == ("# trigger info: hist:keys=common_cpu.hex,prev_prio:vals=hitcount,prev_pid.hex:"
                                     "sort=common_cpu.hex:size=2048 [active]")
    assert first.splitlines()[5:7] == ["{ cpu: 0, prev_prio:        120 } hitcount:         14  prev_pid:        1ec",
                                       "{ cpu: 1, prev_prio:        120 } hitcount:         26  prev_pid:        390"]
    lines = second.splitlines()[5:7]
    assert lines[0] == ("{ prev_comm: head" + " " * 46 + ", common_pid: head            [       111] }"
                        " hitcount:          1  prev_pid (%):  75.00  next_pid: #####               ")
    assert lines[1].endswith(" prev_pid (%):  25.00  next_pid: ####################")
    assert third.splitlines()[5] == "{ prev_state: ~ 2^3 , prev_pid: ~ 120-129 } hitcount:          5"


@pytest.mark.parametrize("items, order", [
    ("1a 0b 1c 0d 1e", "0b 0d 1c 1e 1a"),
    ("1a 0b 1c 0d 1e 2f 1g 0h", "0h 0b 0d 1a 1c 1g 1e 2f"),
])
def test_heapsort_is_lib_sort(items, order):
    # lib/sort.c's heapsort is not stable: equal entries come out in its order (the orders
    # here are what its sort_r() compiled from the kernel's source gives)
    entries = items.split()
    hist._heapsort(entries, lambda x, y: (x[0] > y[0]) - (x[0] < y[0]))
    assert " ".join(entries) == order


# ---- variables, expressions and actions ----

WAKING = b"hist:keys=pid:ts0=common_timestamp.usecs"
SWITCH = (b"hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:"
          b"onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio)")


@pytest.fixture
def synth_core():
    from kprobe_fakes import FakeKprobeEngine, KprobeMachine
    machine = KprobeMachine()
    core = TraceCore(machine, ftrace_sites=None, kprobe_engine=FakeKprobeEngine(machine))
    core.synth.write(b"wakeup_latency u64 lat; pid_t pid; int prio\n")
    return core


def test_variables_and_onmatch_read_back_and_guest_maps(synth_core):
    core = synth_core
    t, waking, switch = core.top.triggers, ev(core, name="sched_waking"), ev(core)
    t.write(waking, WAKING + b"\n")
    t.write(switch, SWITCH + b" if next_prio < 130\n")
    assert t.read(waking) == (b"hist:keys=pid:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:size=2048:"
                              b"clock=global [active]\n")
    assert t.read(switch) == (b"hist:keys=next_pid:vals=hitcount:wakeup_lat=common_timestamp.usecs-$ts0:"
                              b"sort=hitcount:size=2048:clock=global:onmatch(sched.sched_waking)."
                              b"wakeup_latency($wakeup_lat,next_pid,next_prio) if next_prio < 130 [active]\n")
    maps = core.guest.hist_maps.specs
    (g_waking,) = [g for g in core.guest.triggers.table if g.event.name == "sched_waking"]
    (g_switch,) = [g for g in core.guest.triggers.table if g.event.name == "sched_switch"]
    assert [[s.op for s in v] for v in maps[g_waking.hist].vars] == [["ts_usecs"]]
    spec = maps[g_switch.hist]
    assert [[s.op for s in v] for v in spec.vars] == [["ts_usecs", "ref", "minus"]]
    # $ts0: sched_waking's map, read once; $wakeup_lat: this map's own (0)
    assert [(r.map, r.var, r.read_once) for r in spec.refs] == [(g_waking.hist, 0, True), (0, 0, False)]
    (action,) = spec.actions
    ev_synth = core.synth.find("wakeup_latency")
    assert action.handler == "onmatch" and action.action == "trace"
    assert action.synth == core.guest.synth_events.address(ev_synth.guest_index)
    assert [(p.kind, p.offset, p.size) for p in action.params] == [("ref", 1, 0), ("num", 56, 4), ("num", 60, 4)]
    # in use: the variable sched_switch refers to, the synthetic event the action names
    assert errno_of(t.write, waking, b"!" + WAKING + b"\n") == errno.EBUSY
    assert ev_synth.ref == 1
    t.write(switch, b"!" + SWITCH + b" if next_prio < 130\n")
    assert ev_synth.ref == 0
    t.write(waking, b"!" + WAKING + b"\n")
    assert maps == {}


def test_onmax_save_and_the_hist_file(synth_core):
    core = synth_core
    t, switch = core.top.triggers, ev(core)
    cmd = b"hist:keys=next_pid:lat=next_prio*2+1,x=3:onmax($lat).save(next_comm,prev_pid)"
    t.write(switch, cmd.replace(b",x=3", b"") + b"\n")
    assert t.read(switch) == (b"hist:keys=next_pid:vals=hitcount:lat=next_prio*2+1:sort=hitcount:size=2048:"
                              b"onmax($lat).save(next_comm,prev_pid) [active]\n")
    (g,) = core.guest.triggers.table
    spec = core.guest.hist_maps.specs[g.hist]
    assert [(s.op, s.val) for s in spec.vars[0]] == [("field", 0), ("const", 2), ("mult", 0), ("const", 1),
                                                     ("plus", 0)]
    (action,) = spec.actions
    assert (action.handler, action.action, action.track_ref) == ("onmax", "save", 0)
    assert [p.kind for p in action.params] == ["str", "num"]
    saved = b"swapper/1".ljust(256, b"\0") + struct.pack("<Q", 7)
    core.guest.hist_maps.entries[g.hist].append(HistEntry(key(5), b"", (3,), ((241, saved),)))
    body = core.top.triggers.read_hist(switch).split(b"\n")
    assert body[5:7] == [b"{ next_pid:          5 } hitcount:          3",
                         b"\tmax:        241  next_comm: swapper/1                         prev_pid:          7"]


def test_string_variables_and_fully_qualified_references(synth_core):
    """6.1 (real-tracefs): NAME=EXPR,NAME=EXPR in one assignment; a string variable (a char[16]
    field) is kept in a string slot of the element, its value the slot's address, passed by
    onmatch() to a char[16] field of the synthetic event; SYSTEM.EVENT.$var references read back
    as 6.1 prints them ($SYSTEM.EVENT.var in an expression, as written in a parameter)."""
    core = synth_core
    core.synth.write(b"wakeup_comm u64 lat; pid_t pid; char comm[16]\n")
    t, waking, switch = core.top.triggers, ev(core, name="sched_waking"), ev(core)
    t.write(waking, b"hist:keys=pid:ts0=common_timestamp.usecs,wcomm=comm,wc2=comm\n")
    assert t.read(waking) == (b"hist:keys=pid:vals=hitcount:ts0=common_timestamp.usecs,wcomm=comm,wc2=comm:"
                              b"sort=hitcount:size=2048:clock=global [active]\n")
    comm = {f.name: f for f in waking.desc.fields}["comm"]
    maps = core.guest.hist_maps.specs
    (g_waking,) = core.guest.triggers.table
    assert maps[g_waking.hist].vars[1:] == ((HistExprStep("str", comm.offset, 16, val=0),),
                                            (HistExprStep("str", comm.offset, 16, val=1),))
    cmd = (b"hist:keys=next_pid:lat=common_timestamp.usecs-sched.sched_waking.$ts0:onmatch(sched.sched_waking)"
           b".wakeup_comm($lat,next_pid,sched.sched_waking.$wcomm)")
    t.write(switch, cmd + b"\n")
    assert t.read(switch) == (b"hist:keys=next_pid:vals=hitcount:lat=common_timestamp.usecs-$sched.sched_waking.ts0:"
                              b"sort=hitcount:size=2048:clock=global:onmatch(sched.sched_waking).wakeup_comm($lat,"
                              b"next_pid,sched.sched_waking.$wcomm) [active]\n")
    (g_switch,) = [g for g in core.guest.triggers.table if g.event.name == "sched_switch"]
    spec = maps[g_switch.hist]
    assert [(r.map, r.var) for r in spec.refs] == [(g_waking.hist, 0), (0, 0), (g_waking.hist, 1)]
    (action,) = spec.actions
    assert [(p.kind, p.offset) for p in action.params] == [("ref", 1), ("num", 56), ("ref", 2)]
    # a number where the field is a string (and the other way): 6.1's type check
    assert errno_of(t.write, switch, cmd.replace(b"$wcomm", b"$ts0") + b"\n") == errno.EINVAL
    # qualified with another event's name: not there
    assert errno_of(t.write, switch, b"hist:keys=next_pid:y=common_timestamp.usecs-sched.sched_wakeup.$ts0\n") == \
        errno.EINVAL
    assert errno_of(t.write, ev(core, name="sched_wakeup"), b"hist:keys=pid:a=prio,b\n") == errno.EINVAL
    log = core.top.error_log.read().decode()
    assert "error: Couldn't find variable\n  Command: hist:keys=next_pid:y=common_timestamp.usecs-sched.sched_wakeup" \
        ".$ts0\n" + " " * 75 + "^" in log, log
    assert "error: Malformed assignment\n  Command: hist:keys=pid:a=prio,b\n" + " " * 32 + "^" in log, log
    t.write(switch, b"!" + cmd + b"\n")
    t.write(waking, b"!hist:keys=pid:ts0=common_timestamp.usecs,wcomm=comm,wc2=comm\n")
    assert maps == {}


def test_a_field_of_the_matching_event_is_a_variable_of_a_histogram_made_there(synth_core):
    """6.1's create_field_var_hist() (real-tracefs): an onmatch() parameter that is a field of
    the matching event (qualified, or one this event lacks) becomes the variable synthetic_FIELD
    of a hist trigger made on that event with the keys of its compatible histogram; it goes with
    the trigger. Without a compatible histogram: "Matching event histogram not found"."""
    core = synth_core
    t, waking, switch = core.top.triggers, ev(core, name="sched_waking"), ev(core)
    t.write(waking, WAKING + b"\n")
    made = b"hist:keys=pid:vals=hitcount:synthetic_prio=prio:sort=hitcount:size=2048 [active]\n"
    for param in (b"sched.sched_waking.prio", b"prio"):
        cmd = SWITCH.replace(b"next_prio)", param + b")")
        t.write(switch, cmd + b"\n")
        assert t.read(waking).split(b"\n", 1)[1] == made
        assert t.read(switch).endswith(b"wakeup_latency($wakeup_lat,next_pid," + param + b") [active]\n")
        maps = core.guest.hist_maps.specs
        (g_made,) = [g for g in core.guest.triggers.table if g.event.name == "sched_waking" and
                     len(maps[g.hist].vars) == 1 and maps[g.hist].vars[0][0].op == "field"]
        (g_switch,) = [g for g in core.guest.triggers.table if g.event.name == "sched_switch"]
        (action,) = maps[g_switch.hist].actions
        assert action.params[2].kind == "ref"
        assert maps[g_switch.hist].refs[action.params[2].offset].map == g_made.hist
        # the variable is in use; the trigger's removal takes the histogram made for it
        assert errno_of(t.write, waking, b"!hist:keys=pid:synthetic_prio=prio\n") == errno.EBUSY
        t.write(switch, b"!" + cmd + b"\n")
        assert t.read(waking).count(b"\n") == 1
    log = core.top.error_log.read().decode()
    # the unqualified field was looked for on sched_switch first, and that is logged
    assert log.count("error: Couldn't find field") == 1 and log.count("error: Couldn't parse field variable") == 1
    # keys of another type (int against pid_t): no compatible histogram, nothing made
    cmd = SWITCH.replace(b"keys=next_pid", b"keys=next_prio").replace(b"next_prio)", b"sched.sched_waking.prio)")
    assert errno_of(t.write, switch, cmd + b"\n") == errno.EINVAL
    assert "error: Matching event histogram not found\n  Command: " + cmd.decode() + "\n" + " " * 26 + "^" \
        in core.top.error_log.read().decode()
    # no such field there: the histogram's own error, then the field's
    cmd = SWITCH.replace(b"next_prio)", b"sched.sched_waking.nope)")
    assert errno_of(t.write, switch, cmd + b"\n") == errno.EINVAL
    caret = "\n  Command: " + cmd.decode() + "\n" + " " * (11 + cmd.index(b"nope")) + "^\n"
    assert core.top.error_log.read().decode().endswith(
        "error: Couldn't find field" + caret + core.top.error_log.read().decode().splitlines()[-3][:15] +
        "hist:sched:sched_switch: error: Couldn't create histogram for field" + caret)
    assert t.read(waking).count(b"\n") == 1 and t.read(switch).startswith(b"# Available triggers")


def test_a_variable_of_a_plain_field_stands_for_the_field(synth_core):
    """6.1's local_field_var_ref() (real-tracefs): $NAME of the command's own variable defined
    as a field is that field, in keys, values and expressions (histogram.rst's
    `hist:keys=$testpid:testpid=pid:onmatch(...)...($testpid)`); a parameter stays a reference."""
    core = synth_core
    core.synth.write(b"wakeup_new_test pid_t pid\n")
    t, waking, wakeup_new = core.top.triggers, ev(core, name="sched_waking"), ev(core, name="sched_wakeup_new")
    t.write(waking, b"hist:keys=pid:a=prio,b=$a*2:vals=$a\n")
    assert t.read(waking) == b"hist:keys=pid:vals=hitcount,prio:a=prio,b=prio*2:sort=hitcount:size=2048 [active]\n"
    cmd = b"hist:keys=$testpid:testpid=pid:onmatch(sched.sched_wakeup_new).wakeup_new_test($testpid)"
    t.write(wakeup_new, cmd + b"\n")
    assert t.read(wakeup_new) == (b"hist:keys=pid:vals=hitcount:testpid=pid:sort=hitcount:size=2048:"
                                  b"onmatch(sched.sched_wakeup_new).wakeup_new_test($testpid) [active]\n")
    t.write(wakeup_new, b"!" + cmd + b"\n")
    t.write(waking, b"!hist:keys=pid:a=prio,b=$a*2:vals=$a\n")


def test_onmax_snapshot_section_and_the_cond_snapshot(synth_core):
    """6.1 (real-tracefs): a snapshot action is the trace array's conditional snapshot: the
    hist file shows what took the last snapshot between the entries and the totals (nothing
    until one was taken), the snapshot file is EBUSY meanwhile (any value), a second snapshot
    action in the array is EBUSY; the trigger gone, the file works again."""
    core = synth_core
    t, switch, wakeup = core.top.triggers, ev(core), ev(core, name="sched_wakeup")
    cmd = b"hist:keys=next_pid:lat=next_prio*2:onmax($lat).save(prev_pid):onmax($lat).snapshot()"
    t.write(switch, cmd + b"\n")
    assert t.read(switch) == (b"hist:keys=next_pid:vals=hitcount:lat=next_prio*2:sort=hitcount:size=2048:"
                              b"onmax($lat).save(prev_pid):onmax($lat).snapshot() [active]\n")
    (g,) = core.guest.triggers.table
    maps = core.guest.hist_maps
    assert [(a.handler, a.action) for a in maps.specs[g.hist].actions] == [("onmax", "save"), ("onmax", "snapshot")]
    maps.entries[g.hist].append(HistEntry(key(5), b"", (3,), ((240, struct.pack("<Q", 7)), (240, b""))))
    assert b"Snapshot taken" not in t.read_hist(switch)
    maps.read = lambda addr: HistSnapshot(3, 0, tuple(maps.entries[addr]), (240, HistEntry(key(5), b"", ())))
    assert t.read_hist(switch).split(b"\n")[5:] == [
        b"{ next_pid:          5 } hitcount:          3",
        b"\tmax:        240  prev_pid:          7",
        b"",
        b"Snapshot taken (see tracing/snapshot).  Details:",
        b"\ttriggering value { onmax($lat) }:        240\ttriggered by event with key: { next_pid:          5 }",
        b"", b"Totals:", b"    Hits: 3", b"    Entries: 1", b"    Dropped: 0", b""]
    for value in (b"0", b"1", b"2"):
        assert errno_of(core.top.snapshot.write, value) == errno.EBUSY
    assert errno_of(t.write, wakeup, b"hist:keys=pid:x=prio:onchange($x).snapshot()\n") == errno.EBUSY
    assert t.read(wakeup).startswith(b"# Available triggers:")
    t.write(switch, b"!" + cmd + b"\n")
    core.top.snapshot.write(b"1")
    assert core.top.snapshot.allocated


@pytest.mark.parametrize("command, errs", [   # as 6.1 logs them (real-tracefs)
    (b"hist:keys=next_pid:lat=common_timestamp.usecs-$nope", errno.EINVAL),
    (b"hist:keys=next_pid:lat=common_timestamp-$ts0", errno.EINVAL),
    (b"hist:keys=next_pid:lat=next_prio/0", errno.EDOM),
    (b"hist:keys=next_pid:lat=next_comm+1", errno.EINVAL),
    (b"hist:keys=next_pid:lat=1+2+3+4+5", errno.EINVAL),
    (b"hist:keys=next_pid:lat=-(next_prio)+1", errno.EINVAL),
    (SWITCH.replace(b".wakeup_latency(", b".nosuch("), errno.EINVAL),
    (SWITCH.replace(b",next_prio)", b")"), errno.EINVAL),
    (SWITCH.replace(b",next_pid,", b",next_comm,"), errno.EINVAL),
    (SWITCH.replace(b"sched.sched_waking", b"sched.nosuch"), errno.EINVAL),
    (SWITCH.replace(b"sched.sched_waking", b"sched_waking"), errno.EINVAL),
    (SWITCH.replace(b",next_pid,", b",nofield,"), errno.EINVAL),
    (b"hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmax($lat).save()", errno.EINVAL),
    (b"hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).save(next_comm)",
     errno.EINVAL),
    (b"hist:keys=next_pid:lat=common_timestamp.bad", errno.EINVAL),
    (b"hist:keys=next_pid:" + b":".join(b"%c=%d" % (ord("a") + i, i + 1) for i in range(17)), errno.EINVAL),
])
def test_variable_and_action_errors(synth_core, command, errs):
    core = synth_core
    t, switch = core.top.triggers, ev(core)
    t.write(ev(core, name="sched_waking"), WAKING + b"\n")
    assert errno_of(t.write, switch, command + b"\n") == errs
    assert t.read(switch).startswith(b"# Available triggers:")
    got = [(m.group(1), len(m.group(2)) - 11)
           for m in re.finditer(rb"error: (.*)\n  Command: .*\n( *)\^\n", core.top.error_log.read())]
    assert got == EXPECTED_LOG[command]


EXPECTED_LOG = {
    b"hist:keys=next_pid:lat=common_timestamp.usecs-$nope": [(b"Couldn't find variable", 47),
                                                             (b"Couldn't find field", 46)],
    b"hist:keys=next_pid:lat=common_timestamp-$ts0": [(b"Timestamp units in expression don't match", 0)],
    b"hist:keys=next_pid:lat=next_prio/0": [(b"Division by zero", 33)],
    b"hist:keys=next_pid:lat=next_comm+1": [(b"String type can not be an operand in expression", 23)],
    b"hist:keys=next_pid:lat=1+2+3+4+5": [(b"Too many subexpressions (3 max)", 23)],
    b"hist:keys=next_pid:lat=-(next_prio)+1": [(b"Unary minus not supported in sub-expressions", 25)],
    SWITCH.replace(b".wakeup_latency(", b".nosuch("): [(b"Couldn't find synthetic event", 86)],
    SWITCH.replace(b",next_prio)", b")"): [(b"Param count doesn't match synthetic event field count", 86)],
    SWITCH.replace(b",next_pid,", b",next_comm,"): [(b"Param type doesn't match synthetic event field type",
                                                     113)],
    SWITCH.replace(b"sched.sched_waking", b"sched.nosuch"): [(b"Invalid subsystem or event name", 72)],
    SWITCH.replace(b"sched.sched_waking", b"sched_waking"): [(b"Missing subsystem", 66)],
    SWITCH.replace(b",next_pid,", b",nofield,"): [(b"Couldn't find field", 113),
                                                  (b"Couldn't parse field variable", 113),
                                                  (b"Couldn't find field", 113),
                                                  (b"Couldn't create histogram for field", 113)],
    b"hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmax($lat).save()": [(b"Invalid action param", 0)],
    b"hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).save(next_comm)":
        [(b"Handler doesn't support action", 79)],
    b"hist:keys=next_pid:lat=common_timestamp.bad": [(b"Invalid field modifier", 40)],
    b"hist:keys=next_pid:" + b":".join(b"%c=%d" % (ord("a") + i, i + 1) for i in range(17)):
        [(b"Too many variables defined", 90)],
}


def test_named_triggers_share_one_map(core):
    """6.1 (real-tracefs): a second `name=foo` trigger must match the first (the size aside) and
    aggregates into its map; it prints the first's spec with its own filter, pauses alone."""
    t = core.top.triggers
    switch, wakeup, waking = ev(core), ev(core, name="sched_wakeup"), ev(core, name="sched_waking")
    t.write(switch, b"hist:name=foo:keys=common_pid:vals=hitcount\n")
    t.write(wakeup, b"hist:name=foo:keys=common_pid:vals=hitcount if common_pid > 0\n")
    t.write(waking, b"hist:name=foo:keys=common_pid:size=256\n")
    assert errno_of(t.write, ev(core, name="sched_process_exec"), b"hist:name=foo:keys=common_cpu\n") == errno.EINVAL
    assert core.top.error_log.read().split(b"] ", 1)[1] == (
        b"hist:sched:sched_process_exec: error: Named hist trigger doesn't match existing named trigger "
        b"(includes variables)\n  Command: hist:name=foo:keys=common_cpu\n" + b" " * 16 + b"^\n")   # (at `name=foo`)
    assert t.read(wakeup) == (b"hist:name=foo:keys=common_pid:vals=hitcount:sort=hitcount:size=2048"
                              b" if common_pid > 0 [active]\n")
    assert t.read(waking) == b"hist:name=foo:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]\n"
    maps = {g.hist for g in core.guest.triggers.table}
    assert len(maps) == 1 and len(core.guest.hist_maps.specs) == 1
    (addr,) = maps
    core.guest.hist_maps.put(addr, key(7), (4,), hits=4)
    assert t.read_hist(wakeup).split(b"\n")[5] == t.read_hist(switch).split(b"\n")[5] == \
        b"{ common_pid:          7 } hitcount:          4"
    t.write(switch, b"hist:name=foo:keys=common_pid:vals=hitcount:pause\n")
    assert t.read(switch).endswith(b"[paused]\n") and t.read(wakeup).endswith(b"[active]\n")
    assert [g.paused for g in core.guest.triggers.table if g.event.name == "sched_switch"] == [True]
    t.write(switch, b"!hist:name=foo:keys=common_pid:vals=hitcount\n")
    t.write(waking, b"!hist:name=foo:keys=common_pid\n")
    assert core.guest.hist_maps.specs    # still sched_wakeup's
    t.write(wakeup, b"!hist:name=foo:keys=common_pid:vals=hitcount if common_pid > 0\n")
    assert core.guest.hist_maps.specs == {}


def test_timestamps_set_the_trace_clock(synth_core):
    """6.1 (real-tracefs): a trigger with timestamps sets its clock= (global by default) as the
    trace array's trace_clock; an unknown one is "Couldn't set trace_clock" under its name."""
    core = synth_core
    t, waking = core.top.triggers, ev(core, name="sched_waking")
    assert core.top.read_trace_clock().startswith(b"[local] ")
    t.write(waking, b"hist:keys=pid:ts0=common_timestamp.usecs:clock=mono\n")
    assert b" [mono] " in core.top.read_trace_clock()
    assert t.read(waking).endswith(b":size=2048:clock=mono [active]\n")
    cmd = b"hist:keys=prio:t=common_timestamp:clock=bogus"
    assert errno_of(t.write, waking, cmd + b"\n") == errno.EINVAL
    assert core.top.error_log.read().split(b"] ", 1)[1] == (
        b"hist:sched:sched_waking: error: Couldn't set trace_clock\n  Command: " + cmd + b"\n" + b" " * 51 + b"^\n")
    t.write(ev(core), b"hist:keys=next_pid:lat=common_timestamp.usecs-$ts0\n")
    assert core.top.read_trace_clock().startswith(b"local [global] ")


def test_stacktrace_keys(core):
    """create_key_field()'s `stacktrace` (the event's caller's stack, one frame a line up to the
    first zero, the key's brace closing on the last line); as a value or with a modifier it is
    no field (6.1's errors)."""
    t, e = core.top.triggers, ev(core)
    t.hist_context.symbolize = lambda addr: {0x1000: ("__schedule", 0x182, 0x1c0),
                                             0x2000: ("schedule", 0x19, 0x30)}.get(addr)
    t.write(e, b"hist:keys=stacktrace,prev_pid\n")
    assert t.read(e) == b"hist:keys=stacktrace,prev_pid:vals=hitcount:sort=hitcount:size=2048 [active]\n"
    (addr,) = core.guest.hist_maps.specs
    spec = core.guest.hist_maps.specs[addr]
    assert [(k.kind, k.key_offset) for k in spec.keys] == [("stacktrace", 0), ("num", 128)]
    core.guest.hist_maps.put(addr, key(0x1000, 0x2000, 0x3000, *[0] * 13, 12), (4,))
    text = t.read_hist(e).decode()
    assert text.split("\n\n")[1] == ("{ stacktrace:\n"
                                     "         __schedule+0x182/0x1c0\n"
                                     "         schedule+0x19/0x30\n"
                                     "         0x3000\n"
                                     ", prev_pid:         12} hitcount:          4")
    for command, at in ((b"hist:keys=stacktrace.hex", "stacktrace.hex"), (b"hist:keys=prev_pid:vals=stacktrace", "stacktrace")):
        assert errno_of(t.write, e, command + b"\n") == errno.EINVAL
        log = core.top.error_log.read().decode().splitlines()
        assert log[-3].endswith("hist:sched:sched_switch: error: Couldn't find field")
        assert log[-1].index("^") - log[-2].index("hist:") == command.decode().index(at)


# ---- keys and values the guest computes: expressions, constants, common_timestamp, $var ----

def test_computed_keys_and_values_read_back_and_guest_steps(core):
    # (real-tracefs) a constant reads back as its value (1+2 folded: 3), an expression as
    # written with its operands' modifiers (.buckets without its size), a timestamp adds clock=
    t, e = core.top.triggers, ev(core)
    t.write(e, b"hist:keys=prev_pid+1,1:vals=1+2,prev_prio-next_prio.hex\n")
    t.write(e, b"hist:keys=prev_pid.buckets=10*2:vals=common_timestamp.percent\n")
    t.write(e, b"hist:keys=cpu+1,-(prev_pid):vals=1-2\n")      # (an operand's cpu as written)
    assert t.read(e) == (
        b"hist:keys=prev_pid+1,1:vals=hitcount,3,prev_prio-next_prio.hex:sort=hitcount:size=2048 [active]\n"
        b"hist:keys=prev_pid.buckets*2:vals=hitcount,common_timestamp.percent:sort=hitcount:size=2048"
        b":clock=global [active]\n"
        b"hist:keys=cpu+1,-(prev_pid):vals=hitcount,18446744073709551615:sort=hitcount:size=2048 [active]\n")
    a, b, _ = core.guest.hist_maps.specs.values()
    assert [k.kind for k in a.keys] == ["expr", "expr"] and [v.kind for v in a.vals] == ["hitcount", "expr", "expr"]
    assert a.keys[0].steps == (HistExprStep("field", 24, 4, True), HistExprStep("const", val=1),
                               HistExprStep("plus"))
    assert (a.keys[1].key_offset, a.keys[1].steps) == (8, (HistExprStep("const", val=1),))
    assert a.vals[1].steps == (HistExprStep("const", val=3),)
    assert [s.op for s in a.vals[2].steps] == ["field", "field", "minus"]
    assert [s.op for s in b.keys[0].steps] == ["field", "buckets", "const", "mult"] and b.keys[0].steps[1].val == 10
    assert b.vals[1].steps == (HistExprStep("ts"),)


def test_one_usecs_timestamp_makes_them_all_usecs(core):
    # (real-tracefs: vals=common_timestamp,common_timestamp.usecs sums the same twice)
    t, e = core.top.triggers, ev(core)
    t.write(e, b"hist:keys=common_timestamp:vals=common_timestamp,common_timestamp.usecs\n")
    (spec,) = core.guest.hist_maps.specs.values()
    assert [f.steps for f in spec.keys + spec.vals[1:]] == [(HistExprStep("ts_usecs"),)] * 3


def test_computed_keys_and_values_in_the_hist_file(core):
    # (real-tracefs) an expression value is not printed (it sorts), a constant has no name,
    # common_timestamp[.usecs] is `common_timestamp`
    t, e = core.top.triggers, ev(core)
    t.write(e, b"hist:keys=1,prev_pid*2:vals=prev_prio+1,1:sort=prev_prio+1.descending\n")
    t.write(e, b"hist:keys=common_timestamp.usecs:vals=common_timestamp.hex,common_timestamp.graph\n")
    a, b = core.guest.hist_maps.specs
    maps = core.guest.hist_maps
    maps.put(a, key(1, 10), (1, 100, 1))
    maps.put(a, key(1, 20), (2, 300, 2), hits=2)
    maps.put(b, key(1500), (1, 1500, 1500))
    first, second = t.read_hist(e).decode().split("\n\n\n")
    assert first.splitlines()[5:] == [
        "{ :          1, prev_pid*2:         20 } hitcount:          2  :          2",
        "{ :          1, prev_pid*2:         10 } hitcount:          1  :          1",
        "", "Totals:", "    Hits: 3", "    Entries: 2", "    Dropped: 0"]
    assert second.splitlines()[5] == ("{ common_timestamp:       1500 } hitcount:          1  common_timestamp:        5dc"
                                      "  common_timestamp: ####################")


def test_a_value_of_another_triggers_variable(synth_core):
    core = synth_core
    t, waking, switch = core.top.triggers, ev(core, name="sched_waking"), ev(core)
    t.write(waking, b"hist:keys=pid:ts0=common_timestamp.usecs\n")
    t.write(switch, b"hist:keys=next_pid:vals=$ts0,common_timestamp.usecs-$ts0\n")
    assert t.read(switch) == (b"hist:keys=next_pid:vals=hitcount,$ts0,common_timestamp.usecs-$ts0:sort=hitcount:"
                              b"size=2048:clock=global [active]\n")
    maps = core.guest.hist_maps
    waking_map, switch_map = maps.specs
    spec = maps.specs[switch_map]
    assert spec.refs[0].map == waking_map and spec.refs[0].read_once     # (an operand: read once)
    assert spec.vals[1].steps == (HistExprStep("ref"),)
    maps.put(switch_map, key(7), (2, 123, 9))
    assert t.read_hist(switch).decode().splitlines()[5] == "{ next_pid:          7 } hitcount:          2  ts0:        123"
    # a key may not read one (it is parsed first: its units must match)
    assert errno_of(t.write, switch, b"hist:keys=next_pid+$ts0\n") == errno.EINVAL
    assert core.top.error_log.read().split(b"] ", 1)[1].startswith(
        b"hist:sched:sched_switch: error: Timestamp units in expression don't match\n")
