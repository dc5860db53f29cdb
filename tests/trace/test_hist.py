"""Hist triggers on the trace core, over the fake guest: the command's grammar, its read-back,
its errors with the error_log entries of Linux 6.1 (checked against the real kernel with
real-tracefs), and the `hist` file printed from a map's entries."""
import errno
import struct

import pytest

from fakes import FakeMachine
from tracefs_sim.trace import hist
from tracefs_sim.trace.core import TraceCore
from tracefs_sim.machine.contract import HistEntry


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
    (b"hist:keys=prev_pid if", errno.EINVAL, None),
    (b"hist:keys=prev_pid if prev_pid >", errno.EINVAL, None),
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
