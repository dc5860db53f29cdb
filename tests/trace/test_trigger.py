"""Event triggers and the snapshot buffer on the trace core, over the fake guest: the trigger
file's grammar, read-back and errnos as Linux 6.1's (checked against the real kernel with
real-tracefs), the table the guest is given, and the snapshot's swaps."""
import errno

import pytest

from fakes import FakeMachine, FakeTask
from test_recording import HEADER_LINES, SWITCH
from tracefs_sim.trace.core import TraceCore

AVAILABLE = b"# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n"


@pytest.fixture
def core():
    machine = FakeMachine(clock_ns=2_000_000_000)
    machine.live_tasks = [FakeTask(108, 108, "sleep")]
    system = TraceCore(machine, ftrace_sites=None, kprobe_engine=None)
    system.machine = machine
    return system


def errno_of(call, *args):
    with pytest.raises(OSError) as caught:
        call(*args)
    return caught.value.errno


def ev(core, system="sched", name="sched_switch"):
    return core.registry.get(system, name)


def test_an_event_without_triggers_lists_the_commands(core):
    assert core.top.triggers.read(ev(core)) == AVAILABLE


def test_triggers_read_back_newest_first_with_counts_and_filters(core):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"traceoff\n")
    t.write(e, b"stacktrace:3 if prev_pid == 1\n")
    t.write(e, b"snapshot\n")
    t.write(e, b"enable_event:sched:sched_wakeup:2\n")
    assert t.read(e) == (b"enable_event:sched:sched_wakeup:count=2\n"
                         b"snapshot:unlimited\n"
                         b"stacktrace:count=3 if prev_pid == 1\n"
                         b"traceoff:unlimited\n")
    # the target is held in soft mode, the triggering event too (enable reads 0*)
    assert core.top.events.read_enable("sched", "sched_wakeup") == b"0*\n"
    assert core.top.events.read_enable("sched", "sched_switch") == b"0*\n"


def test_one_trigger_of_a_type_per_event(core):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"traceoff\n")
    # traceon and traceoff are one type; the count and filter do not matter
    assert errno_of(t.write, e, b"traceon:5 if prev_pid == 1\n") == errno.EEXIST
    t.write(e, b"enable_event:sched:sched_wakeup\n")
    assert errno_of(t.write, e, b"disable_event:sched:sched_wakeup:1\n") == errno.EEXIST
    t.write(e, b"disable_event:sched:sched_waking\n")
    assert t.read(e).count(b"\n") == 3


def test_bang_removes_the_type_and_a_missing_one_is_no_error(core):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"traceoff\n")
    t.write(e, b"enable_event:sched:sched_wakeup:2\n")
    t.write(e, b"!traceon\n")                     # the same type as traceoff
    t.write(e, b"!traceoff\n")
    assert t.read(e) == b"enable_event:sched:sched_wakeup:count=2\n"
    t.write(e, b"!enable_event:sched:sched_wakeup\n")
    assert t.read(e) == AVAILABLE
    assert core.top.events.read_enable("sched", "sched_wakeup") == b"0\n"
    assert core.top.events.read_enable("sched", "sched_switch") == b"0\n"
    assert core.guest.triggers.table == []


@pytest.mark.parametrize("command, err", [
    (b"bogus\n", errno.EINVAL),
    (b"traceon:abc\n", errno.EINVAL),              # not a count: a filter without 'if'
    (b"traceon if\n", errno.EINVAL),
    (b"traceon iff x\n", errno.EINVAL),
    (b"traceon if foo == 1\n", errno.EINVAL),      # no such field
    (b"traceon if (prev_pid == 1\n", errno.ENOENT),  # the filter parser's own errno
    (b"traceon:5x\n", errno.EINVAL),
    (b"enable_event\n", errno.EINVAL),
    (b"enable_event:sched\n", errno.EINVAL),
    (b"enable_event:sched:nope\n", errno.EINVAL),
    (b"enable_event:sched:sched_wakeup:\n", errno.EINVAL),
    (b"!enable_event:sched:nope\n", errno.EINVAL),
])
def test_malformed_commands_fail_and_change_nothing(core, command, err):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"traceoff:2\n")
    assert errno_of(t.write, e, command) == err
    assert t.read(e) == b"traceoff:count=2\n"
    assert core.top.error_log.read() == b""       # 6.1 logs nothing for these commands
    assert core.top.events.read_enable("sched", "sched_wakeup") == b"0\n"


def test_a_zero_count_and_odd_spacing_as_linux(core):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"  traceon:0  \n")
    assert t.read(e) == b"traceon:count=0\n"
    t.write(e, b"stacktrace if  prev_pid == 1\n")   # the text after 'if ' reads back as written
    assert t.read(e).splitlines()[0] == b"stacktrace:unlimited if  prev_pid == 1"


def test_the_guest_table_has_the_filter_program_and_cond(core):
    t, e = core.top.triggers, ev(core)
    t.write(e, b'traceon\n')
    t.write(e, b'stacktrace:2 if prev_pid == 1 && prev_comm ~ "ba*"\n')
    table = core.guest.triggers.table
    assert [g.cmd for g in table] == ["stacktrace", "traceon"]
    stack, traceon = table
    assert stack.event_id == e.id and stack.slot == 0 and stack.post and stack.count.value == 2
    assert stack.cond and traceon.cond             # a filter makes the whole file conditional
    pid, comm = stack.preds
    assert (pid.kind, pid.op, pid.size, pid.value) == ("num", "eq", 4, 1)
    assert (comm.kind, comm.op, comm.size, comm.string) == ("str", "front", 16, b"ba")
    assert comm.offset == 8 and pid.offset == 24
    assert traceon.preds == () and traceon.count is None


def test_counts_read_back_as_the_guest_has_them(core):
    t, e = core.top.triggers, ev(core)
    t.write(e, b"traceoff:5\n")
    core.guest.triggers.table[0].count.value = 1    # the guest took 4
    assert t.read(e) == b"traceoff:count=1\n"


def test_instances_have_their_own_triggers(core):
    inst = core.instances.create("foo")
    e = ev(core)
    inst.triggers.write(e, b"traceoff\n")
    assert core.top.triggers.read(e) == AVAILABLE
    assert [(g.cmd, g.slot) for g in core.guest.triggers.table] == [("traceoff", inst.slot)]
    core.instances.remove("foo")
    assert core.guest.triggers.table == []


def switch(core, cpu, ts, pid=108):
    core.guest.emit(cpu, ev(core).desc, ts, {**SWITCH, "prev_pid": pid, "prev_comm": "sleep"},
                    pid=pid, flags=0x1, preempt=2)


def test_snapshot_file_help_swap_clear_free(core):
    ta = core.top
    text = ta.snapshot.read()
    assert text.startswith(b"# tracer: nop\n#\n#\n# * Snapshot is freed *\n#\n# Snapshot commands:\n")
    assert text.endswith(b"#                       is not a '0' or '1')\n")
    ta.events.write_enable(b"1\n", "sched", "sched_switch")
    for i in range(3):
        switch(core, 0, 2_000_000_000 + i * 1000)
    core.drain.drain_once()
    ta.snapshot.write(b"1\n")
    assert len(ta.snapshot.read().decode().splitlines()) == HEADER_LINES + 3
    assert ta.read_trace().decode().splitlines()[2] == "# entries-in-buffer/entries-written: 0/0   #P:2"
    switch(core, 1, 2_100_000_000)
    core.drain.drain_once()
    ta.snapshot.write(b"1\n")                      # swapped back: the old snapshot is the trace
    assert len(ta.read_trace().decode().splitlines()) == HEADER_LINES + 3
    assert len(ta.snapshot.read().decode().splitlines()) == HEADER_LINES + 1
    ta.snapshot.write(b"2\n")
    assert b"# * Snapshot is allocated *\n" in ta.snapshot.read()
    ta.snapshot.write(b"0\n")
    assert b"# * Snapshot is freed *\n" in ta.snapshot.read()


def test_per_cpu_snapshot_files(core):
    ta = core.top
    assert b"# echo 0 > snapshot : Invalid for per_cpu snapshot file.\n" in ta.snapshot.read(0)
    assert errno_of(ta.snapshot.write, b"1\n", 0) == errno.EINVAL
    assert errno_of(ta.snapshot.write, b"0\n", 0) == errno.EINVAL
    ta.snapshot.write(b"2\n", 0)
    assert errno_of(ta.snapshot.write, b"abc\n") == errno.EINVAL
    assert errno_of(ta.snapshot.write, b"0x1\n") == errno.EINVAL   # base 10


def test_a_snapshot_trigger_swaps_at_its_time(core):
    ta = core.top
    e = ev(core)
    ta.triggers.write(e, b"snapshot\n")
    assert b"# * Snapshot is allocated *\n" in ta.snapshot.read()   # registering allocates it
    ta.events.write_enable(b"1\n", "sched", "sched_switch")
    for i in range(4):
        switch(core, i % 2, 2_000_000_000 + i * 1000)
    core.guest.triggers.requests[0] = [2_000_001_500]                # after the second event
    core.drain.drain_once()
    assert len(ta.snapshot.read().decode().splitlines()) == HEADER_LINES + 2
    assert len(ta.read_trace().decode().splitlines()) == HEADER_LINES + 2


def test_trace_marker_runs_its_arrays_print_triggers_in_the_kernel(core):
    """ftrace/print takes triggers (6.1's trace_marker_file; ftrace's other records take none):
    a write to an array's trace_marker asks the kernel to run them on the text as written (no
    newline added, TRACE_BUF_SIZE at most), only while that array's print event has some; the
    print event is no enable_event target (EINVAL, as find_event_file() refuses it)."""
    inst = core.instances.create("foo")
    printed, t = ev(core, "ftrace", "print"), core.top.triggers
    assert t.read(printed) == AVAILABLE
    core.top.write_marker(b"none yet", 7, b"sh")
    t.write(printed, b'traceoff if buf == "stop"\n')
    assert t.read(printed) == b'traceoff:unlimited if buf == "stop"\n'
    assert [(g.cmd, g.event_id, g.slot) for g in core.guest.triggers.table] == [("traceoff", printed.id, 0)]
    core.top.write_marker(b"stop", 7, b"sh")
    core.top.write_marker(b"x" * 2000, 7, b"sh")
    inst.write_marker(b"in foo\n", 8, b"sh")   # foo's print event has no trigger
    assert core.guest.marker_writes == [(0, 7, b"stop"), (0, 7, b"x" * 1024)]
    assert core.top.read_trace().decode().splitlines()[HEADER_LINES].endswith("tracing_mark_write: none yet")
    assert errno_of(t.write, ev(core), b"enable_event:ftrace:print\n") == errno.EINVAL
    assert errno_of(t.write, ev(core, "ftrace", "function"), b"traceoff\n") == errno.EINVAL
    t.write(printed, b"!traceoff\n")
    assert core.guest.triggers.table == []
