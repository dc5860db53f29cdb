"""Events from a (fake) guest to the trace files: enable, set_event, filters, pid filters, the
drain, trace/trace_pipe output, buffer accounting, options, markers, instances. Expected text
is what Linux 6.1 prints (f_sched_switch.out, g_errors.out and the real kernel)."""

import errno
import re

import pytest
from fakes import FakeMachine, FakeTask, SWITCH

from tracefs_sim.trace.core import TraceCore

HEADER_LINES = 12


@pytest.fixture
def sim():
    machine = FakeMachine(clock_ns=2_274_249_000)
    machine.live_tasks = [FakeTask(108, 108, "sleep"), FakeTask(109, 100, "f_sched_switch.sh")]
    system = TraceCore(machine, ftrace_sites=None, kprobe_engine=None)

    class Sim:
        m = machine
        s = system
        ta = system.top
        guest = machine.tracing

        def event(self, system_name, name):
            return system.registry.get(system_name, name)

        def switch(self, cpu, ts, pid=108, **values):
            # prev_comm is the task's comm (cut as TASK_COMM_LEN does), as in a real switch
            comm = next((t.comm for t in machine.live_tasks if t.pid == pid), SWITCH["prev_comm"])[:15]
            self.guest.emit(cpu, self.event("sched", "sched_switch").desc, ts,
                            {**SWITCH, "prev_pid": pid, "prev_comm": comm, **values},
                            pid=pid, flags=0x1, preempt=2)

        def drain(self):
            return system.drain.drain_once()

        def lines(self, ta=None):
            return (ta or self.ta).read_trace().decode().splitlines()[HEADER_LINES:]

    return Sim()


def errno_of(call, *args):
    with pytest.raises(OSError) as caught:
        call(*args)
    return caught.value.errno


def test_enable_flips_the_key_once_and_lines_look_like_linux(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    assert sim.guest.key_flips == [("sched_switch", True)]
    assert sim.ta.read_buffer_size_kb() == b"1410\n"          # first use expands the buffers (354 pages)
    sim.switch(1, 1_721_188_123)
    sim.switch(1, 1_922_582_000, prev_state=0x20)
    sim.switch(1, 1_930_519_000, pid=109)
    sim.switch(0, 1_800_000_000, pid=4242)
    assert sim.drain() == 4
    text = sim.ta.read_trace().decode()
    assert "# entries-in-buffer/entries-written: 4/4   #P:2\n" in text
    assert sim.lines() == [
        "           sleep-108     [001] d..2.     1.721188: sched_switch: prev_comm=sleep prev_pid=108 prev_prio=120"
        " prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
        # a task the machine no longer lists: its comm is known from the switch that names it,
        # as Linux saves both tasks' comms at every sched_switch
        "           sleep-4242    [000] d..2.     1.800000: sched_switch: prev_comm=sleep prev_pid=4242 prev_prio=120"
        " prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
        "           sleep-108     [001] d..2.     1.922582: sched_switch: prev_comm=sleep prev_pid=108 prev_prio=120"
        " prev_state=Z ==> next_comm=swapper/1 next_pid=0 next_prio=120",
        " f_sched_switch.-109     [001] d..2.     1.930519: sched_switch: prev_comm=f_sched_switch. prev_pid=109 prev_prio=120"
        " prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
    ]
    sim.ta.events.write_enable(b"0\n", "sched", "sched_switch")
    assert sim.guest.key_flips[-1] == ("sched_switch", False)
    sim.switch(0, 2_000_000_000)
    assert sim.drain() == 0


def test_enable_files_aggregate_and_reject_bad_values(sim):
    ev = sim.ta.events
    assert (ev.read_enable(), ev.read_enable("sched")) == (b"0\n", b"0\n")
    ev.write_set_event(b"sched:*")
    assert (ev.read_enable(), ev.read_enable("sched"), ev.read_enable("sched", "sched_switch")) == (b"X\n", b"1\n", b"1\n")
    ev.write_enable(b"0\n", "sched", "sched_wakeup")
    assert (ev.read_enable(), ev.read_enable("sched")) == (b"X\n", b"X\n")
    for bad in (b"5\n", b"-1\n", b"x\n", b"\n"):
        assert errno_of(ev.write_enable, bad, "sched", "sched_switch") == errno.EINVAL
    assert ev.read_enable("sched", "sched_switch") == b"1\n"
    ev.write_enable(b"1\n")
    assert ev.read_enable() == b"1\n"
    ev.write_enable(b"0\n")
    assert ev.read_set_event() == b""


def test_set_event_forms(sim):
    ev = sim.ta.events
    ev.write_set_event(b"sched:sched_switch\n")
    assert ev.read_set_event() == b"sched:sched_switch\n"
    ev.write_set_event(b"*:sched_wakeup")
    ev.write_set_event(b":sched_waking")
    assert ev.read_set_event() == b"sched:sched_switch\nsched:sched_wakeup\nsched:sched_waking\n"
    ev.write_set_event(b"!sched:sched_wakeup")
    ev.write_set_event(b"!sched_waking")
    assert ev.read_set_event() == b"sched:sched_switch\n"
    ev.disable_all()                                    # what `>` (O_TRUNC) does first
    ev.write_set_event(b"kmem")                         # a bare system name: all its events
    assert ev.read_set_event() == b"kmem:kmalloc\nkmem:kfree\n" or ev.read_set_event() == b"kmem:kfree\nkmem:kmalloc\n"
    assert errno_of(ev.write_set_event, b"nosuch") == errno.EINVAL
    assert errno_of(ev.write_set_event, b"sched:nosuch") == errno.EINVAL
    assert errno_of(ev.write_set_event, b"ftrace:print") == errno.EINVAL   # cannot be enabled
    # tokens apply one by one: the one before a bad one stays
    assert errno_of(ev.write_set_event, b"sched:sched_switch sched:nosuch") == errno.EINVAL
    assert b"sched:sched_switch\n" in ev.read_set_event()
    ev.write_set_event(b"*:*")
    assert len(ev.read_set_event().splitlines()) == len(sim.s.registry.all_events())
    ev.write_set_event(b"!*:*")
    assert ev.read_set_event() == b""
    ev.write_set_event(b"\n")                           # `echo > set_event`: nothing to do


def test_filter_applies_before_keeping_and_bad_filters_replace(sim):
    ev = sim.ta.events
    switch = sim.event("sched", "sched_switch")
    ev.write_enable(b"1\n", "sched", "sched_switch")
    ev.write_filter(switch, b"prev_pid == 108\n")
    assert ev.read_filter(switch) == b"prev_pid == 108\n"
    sim.switch(0, 1_000_000, pid=108)
    sim.switch(0, 2_000_000, pid=5)
    sim.switch(0, 3_000_000, pid=109, prev_comm="sleep")
    sim.drain()
    assert "entries-in-buffer/entries-written: 1/1" in sim.ta.read_trace().decode()
    ev.write_filter(switch, b'prev_comm == "sleep"')
    sim.switch(0, 4_000_000, pid=5, prev_comm="bash")
    sim.switch(0, 5_000_000, pid=109, prev_comm="sleep")
    sim.drain()
    # 109's comm is the one its last switch named (Linux saves it at every switch)
    assert [l.split()[0] for l in sim.lines()] == ["sleep-108", "sleep-109"]
    # a bad filter: EINVAL, the file shows the error, error_log the caret, the event unfiltered
    assert errno_of(ev.write_filter, switch, b"prev_pid ==\n") == errno.EINVAL
    assert ev.read_filter(switch) == (b"prev_pid ==\n           ^\nparse_error: Invalid value (did you forget quotes)?\n\n")
    log = sim.ta.error_log.read().decode()
    assert log.endswith("] event filter parse error: error: Invalid value (did you forget quotes)?\n"
                        "  Command: prev_pid ==\n                       ^\n")
    sim.switch(0, 6_000_000, pid=5)
    sim.drain()
    assert sim.lines()[-1].split()[0] == "sleep-5"      # the comm its switch named
    ev.write_filter(switch, b"0\n")
    assert ev.read_filter(switch) == b"none\n"
    sim.ta.error_log.clear()
    assert sim.ta.error_log.read() == b""


def test_subsystem_filter(sim):
    ev = sim.ta.events
    ev.write_system_filter("sched", b"prev_pid == 1")
    assert ev.read_filter(sim.event("sched", "sched_switch")) == b"prev_pid == 1\n"
    assert ev.read_filter(sim.event("sched", "sched_wakeup")).startswith(b"prev_pid == 1\n^\nparse_error: Couldn't find")
    assert ev.read_system_filter().startswith(b"### global filter ###\n")
    assert "Couldn't find or set field in one of a subsystem's events" in sim.ta.error_log.read().decode()
    ev.write_system_filter("sched", b"0")
    assert ev.read_filter(sim.event("sched", "sched_switch")) == b"none\n"


def test_pid_filters(sim):
    ev = sim.ta.events
    ev.pid_filter.write(b"123 456\n")
    ev.pid_filter.write(b"7")
    assert ev.pid_filter.read() == b"7\n123\n456\n"
    for bad in (b"abc\n", b"1 x\n"):
        assert errno_of(ev.pid_filter.write, bad) == errno.EINVAL
    assert errno_of(ev.pid_filter.write, b"%d" % (1 << 30)) == errno.EPERM
    assert ev.pid_filter.read() == b"7\n123\n456\n"
    ev.pid_filter.write(b"99999")                          # more than pid_max is fine
    ev.pid_filter.clear()
    ev.notrace_pid_filter.write(b"0x10 010\n")
    assert ev.notrace_pid_filter.read() == b"8\n16\n"
    ev.notrace_pid_filter.clear()
    ev.write_enable(b"1\n", "sched", "sched_switch")
    ev.pid_filter.write(b"108 109")
    ev.notrace_pid_filter.write(b"109")
    for pid in (5, 108, 109):
        sim.switch(0, pid * 1000, pid=pid)
    sim.drain()
    assert [l.split()[0] for l in sim.lines()] == ["sleep-108"]


def test_syscall_events_print_like_trace_syscalls_c(sim):
    enter, exit_ = sim.event("syscalls", "sys_enter_openat"), sim.event("syscalls", "sys_exit_openat")
    sim.ta.events.write_set_event(b"syscalls:sys_enter_openat syscalls:sys_exit_openat")
    args = dict(__syscall_nr=257, dfd=0xFFFFFFFFFFFFFF9C, filename=0x7FFD1234, flags=0x80000, mode=0)
    sim.guest.emit(0, enter.desc, 3_000_000_000, args, pid=108)
    sim.guest.emit(0, exit_.desc, 3_000_100_000, dict(__syscall_nr=257, ret=3), pid=108)
    sim.guest.emit(0, exit_.desc, 3_000_200_000, dict(__syscall_nr=257, ret=-2), pid=108)
    sim.drain()
    assert [l[51:] for l in sim.lines()] == [
        "sys_openat(dfd: ffffffffffffff9c, filename: 7ffd1234, flags: 80000, mode: 0)",
        "sys_openat -> 0x3",
        "sys_openat -> 0xfffffffffffffffe",
    ]
    sim.ta.options.set("verbose", True)
    lines = sim.ta.read_trace().decode().splitlines()
    assert lines[:3] == ["# tracer: nop", "#", "           sleep-108     [000] .....     3.000000: sys_openat("
                         "int dfd: ffffffffffffff9c, const char * filename: 7ffd1234, int flags: 80000, umode_t mode: 0)"]


def test_trace_pipe_consumes_in_time_order_across_cpus(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    for cpu, ts in ((1, 2_000), (0, 1_000), (1, 3_000), (0, 4_000)):
        sim.switch(cpu, ts * 1000)
    sim.drain()
    text = sim.ta.consume()
    assert [l.split()[1] for l in text.decode().splitlines()] == ["[000]", "[001]", "[001]", "[000]"]
    assert [l.split()[3] for l in text.decode().splitlines()] == ["0.001000:", "0.002000:", "0.003000:", "0.004000:"]
    assert sim.ta.consume() == b""
    assert sim.ta.read_stats(0).decode().splitlines()[-1] == "read events: 2"
    # a small read takes whole lines only, at least one
    sim.switch(0, 5_000_000)
    sim.switch(0, 6_000_000)
    sim.drain()
    one = sim.ta.consume(None, 10)
    assert one.count(b"\n") == 1 and one.endswith(b"\n")
    assert sim.ta.consume(0).count(b"\n") == 1


def test_overwrite_counts_overrun_and_lost_events_show_in_the_pipe(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.ta.write_buffer_size_kb(b"8\n")                    # 3 pages of 4080 bytes
    cpu0 = sim.ta.buffer.cpu(0)
    assert cpu0.nr_pages == 3
    for i in range(200):                                   # 68-byte records: 60 a page
        sim.switch(0, (i + 1) * 1000)
        if i % 50 == 49:
            sim.drain()
    stats = dict(line.split(": ") for line in sim.ta.read_stats(0).decode().splitlines())
    assert int(stats["entries"]) + int(stats["overrun"]) == 200
    assert int(stats["overrun"]) > 0 and stats["dropped events"] == "0"
    assert int(stats["bytes"]) == int(stats["entries"]) * 68
    assert stats["oldest event ts"] == f"{0:5d}.{(int(stats['overrun']) + 1):06d}"
    header = sim.ta.read_trace().decode().splitlines()[2]
    assert header == f"# entries-in-buffer/entries-written: {stats['entries']}/200   #P:2"
    first = sim.ta.consume().decode().splitlines()[0]
    assert first == f"CPU:0 [LOST {stats['overrun']} EVENTS]"


def test_annotate_marks_where_a_cpus_records_start_after_overruns(sim):
    """6.1's test_cpu_buff_start(): `trace` read while the buffer had overruns says where each
    CPU's records start (not for the trace's first two records); not without overruns, nor in
    trace_pipe, nor with annotate off."""
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.ta.write_buffer_size_kb(b"8\n")
    for ts in (1000, 2000, 3000):
        sim.switch(0, ts)
    sim.switch(1, 4000)
    sim.drain()
    assert not any(line.startswith("#####") for line in sim.lines())
    for i in range(200):                                   # cpu 1's buffer overruns
        sim.switch(1, 5000 + i * 10)
    sim.drain()
    lines = sim.lines()
    marks = [i for i, line in enumerate(lines) if line.startswith("#####")]
    assert [lines[i] for i in marks] == ["##### CPU 1 buffer started ####"] and marks[0] == 3
    assert " [001] " in lines[marks[0] + 1]
    sim.ta.options.set("annotate", False)
    assert not any(line.startswith("#####") for line in sim.lines())
    sim.ta.options.set("annotate", True)
    assert b"#####" not in sim.ta.consume(max_bytes=1 << 20)


def test_overwrite_off_drops_new_events(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.ta.write_buffer_size_kb(b"8\n")
    sim.ta.options.write_trace_options(b"nooverwrite\n")
    for i in range(200):
        sim.switch(0, (i + 1) * 1000)
        if i % 50 == 49:
            sim.drain()
    stats = dict(line.split(": ") for line in sim.ta.read_stats(0).decode().splitlines())
    assert (stats["entries"], stats["overrun"], stats["dropped events"]) == ("180", "0", "20")
    assert sim.lines()[0].split()[3] == "0.000001:"          # the oldest stay


def test_echo_to_trace_clears_all_or_one_cpu(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1000)
    sim.switch(1, 2000)
    sim.drain()
    sim.ta.clear_trace(1)
    assert [l.split()[1] for l in sim.lines()] == ["[000]"]
    assert sim.ta.read_trace(0).decode().count("sched_switch:") == 1
    sim.ta.clear_trace()
    assert sim.lines() == []


def test_output_options(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(1, 1_721_188_123)
    sim.drain()
    opts = sim.ta.options
    opts.write_option("raw", b"1\n")
    assert sim.lines() == ["108 1 1721188123 type: %d" % sim.event("sched", "sched_switch").id]
    opts.write_option("raw", b"0\n")
    opts.write_option("hex", b"1")
    # "00000062 00000000 000000006e313404 type: 658" on Linux: pid, cpu, ts as hex fields
    assert sim.lines() == ["0000006c 00000001 0000000066973f1b type: %d" % sim.event("sched", "sched_switch").id, ""]
    opts.write_option("hex", b"0")
    opts.write_trace_options(b"noirq-info")
    text = sim.ta.read_trace().decode().splitlines()
    assert text[4:] == ["#           TASK-PID     CPU#     TIMESTAMP  FUNCTION",
                        "#              | |         |         |         |",
                        "           sleep-108     [001]      1.721188: sched_switch: prev_comm=sleep prev_pid=108"
                        " prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120"]
    opts.write_trace_options(b"irq-info")
    opts.write_trace_options(b"nocontext-info")
    assert sim.ta.read_trace().decode().splitlines() == [
        "# tracer: nop", "#", "sched_switch: prev_comm=sleep prev_pid=108 prev_prio=120 prev_state=S ==> "
        "next_comm=swapper/1 next_pid=0 next_prio=120"]
    opts.write_trace_options(b"context-info")
    opts.write_trace_options(b"record-tgid")
    text = sim.ta.read_trace().decode().splitlines()
    assert text[-1].startswith("           sleep-108     (-------) [001] d..2. ")


def test_trace_options_and_option_files(sim):
    opts = sim.ta.options
    assert opts.read_trace_options().decode().split() == [
        "print-parent", "nosym-offset", "nosym-addr", "noverbose", "noraw", "nohex", "nobin", "noblock", "trace_printk",
        "annotate", "nouserstacktrace", "nosym-userobj", "noprintk-msg-only", "context-info",
        "nolatency-format", "record-cmd", "norecord-tgid", "overwrite", "nodisable_on_free", "irq-info", "markers",
        "noevent-fork", "nopause-on-trace", "hash-ptr", "function-trace", "nofunction-fork", "nodisplay-graph",
        "nostacktrace", "notest_nop_accept", "notest_nop_refuse"]
    for bad in (b"nosuch\n", b"blk_classic\n", b"\n"):   # (blk_classic: the blk tracer's, absent here)
        assert errno_of(opts.write_trace_options, bad) == errno.EINVAL
    # stacktrace and userstacktrace go to the guest's writers of the array's slot
    opts.write_trace_options(b"stacktrace\n")
    assert sim.guest.stack_options[sim.ta.slot] == (True, False)
    opts.write_option("userstacktrace", b"1\n")
    opts.write_trace_options(b"nostacktrace")
    assert sim.guest.stack_options[sim.ta.slot] == (False, True)
    opts.write_option("userstacktrace", b"0\n")
    assert sim.guest.stack_options[sim.ta.slot] == (False, False)
    # the nop tracer's set_flag() takes one and refuses the other (6.1: real-tracefs); its
    # file refuses only a change
    opts.write_trace_options(b"test_nop_accept")
    assert opts.read_option("test_nop_accept") == b"1\n"
    assert errno_of(opts.write_trace_options, b"notest_nop_refuse") == errno.EINVAL
    assert errno_of(opts.write_option, "test_nop_refuse", b"1") == errno.EINVAL
    opts.write_option("test_nop_refuse", b"0")
    assert opts.read_option("test_nop_refuse") == b"0\n"
    opts.write_trace_options(b" raw \n")
    assert opts.read_option("raw") == b"1\n"
    opts.write_trace_options(b"nofunction-trace")        # kept, with no effect here (nor on Linux's
    opts.write_option("display-graph", b"1\n")           # function tracers)
    assert opts.read_option("function-trace") == b"0\n" and opts.read_option("display-graph") == b"1\n"
    assert errno_of(opts.write_option, "raw", b"2\n") == errno.EINVAL
    assert opts.read_option("raw") == b"1\n"


def test_trace_marker(sim):
    assert sim.ta.write_marker(b"hello\n", 4242, b"bash") == 6
    assert sim.ta.write_marker(b"nonl", 4242, b"bash") == 4
    assert sim.ta.write_marker(b"x" * 2000, 4242, b"bash") == 1024      # TRACE_BUF_SIZE per write
    lines = sim.lines()
    assert lines[0] == "            bash-4242    [000] .....     2.274249: tracing_mark_write: hello"
    assert lines[1].endswith("tracing_mark_write: nonl")
    assert lines[2].endswith(": " + "x" * 1024)
    sim.ta.options.set("raw", True)
    assert sim.lines()[0] == "4242 0 2274249000 # 0 hello"
    # printk-msg-only (with trace_printk, on by default): the text alone, before raw's say
    sim.ta.options.set("printk-msg-only", True)
    assert sim.ta.read_trace().decode().splitlines()[-3:-1] == ["hello", "nonl"]
    sim.ta.options.set("trace_printk", False)
    assert sim.lines()[0] == "4242 0 2274249000 # 0 hello"
    sim.ta.options.set("trace_printk", True)
    sim.ta.options.set("printk-msg-only", False)
    sim.ta.options.set("raw", False)
    sim.ta.options.set("markers", False)
    assert errno_of(sim.ta.write_marker, b"x", 1, b"a") == errno.EINVAL
    sim.ta.options.set("markers", True)
    sim.ta.write_tracing_on(b"0")
    assert errno_of(sim.ta.write_marker, b"x", 1, b"a") == errno.EBADF
    assert b"4242 bash\n" in sim.s.cmdlines.read_saved_cmdlines()


def test_counter_and_tsc_clocks_stamp_records(sim):
    sim.ta.write_trace_clock(b"counter")                     # the reset takes count 1 (time_start)
    sim.ta.write_marker(b"a", 1, b"a")
    sim.ta.write_marker(b"b", 1, b"a")
    assert [l.split()[3] for l in sim.lines()] == ["2:", "3:"]
    assert sim.lines()[0].endswith("[000] .....            2: tracing_mark_write: a")   # ' %12llu' for counts
    sim.ta.write_trace_clock(b"x86-tsc")
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1_000_000_000)
    sim.drain()
    assert sim.lines()[0].split()[3] == "2000000000:"


def test_saved_cmdlines(sim):
    cmdlines = sim.s.cmdlines
    assert cmdlines.read_size() == b"6552\n"                 # 128 rounded up to the allocation
    for bad in (b"0\n", b"32769\n", b"abc\n"):
        assert errno_of(cmdlines.write_size, bad) in (errno.EINVAL,)
    cmdlines.write_size(b"32768\n")
    assert cmdlines.read_size() == b"45874\n"
    cmdlines.write_size(b"5\n")
    assert cmdlines.read_size() == b"6552\n"
    assert cmdlines.find(0) == b"<idle>" and cmdlines.find(77) == b"<...>"


def test_record_tgid_saves_tgids(sim):
    sim.ta.options.write_trace_options(b"record-tgid")
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1000, pid=109)
    sim.drain()
    assert sim.s.cmdlines.read_saved_tgids() == b"109 100\n"
    assert sim.lines()[0].startswith(" f_sched_switch.-109     (    100) [000] d..2. ")


def test_free_buffer_shrinks_and_may_turn_tracing_off(sim):
    sim.ta.write_buffer_size_kb(b"1408")
    assert sim.ta.read_buffer_size_kb() == b"1410\n"
    sim.ta.release_free_buffer()
    assert sim.ta.read_buffer_size_kb() == b"7\n" and sim.ta.tracing_on
    sim.ta.write_buffer_size_kb(b"1408")
    sim.ta.options.set("disable_on_free", True)
    sim.ta.release_free_buffer()
    assert sim.ta.read_tracing_on() == b"0\n" and not sim.guest.recording[0]


def test_pause_on_trace(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    assert sim.ta.open_trace() is False
    sim.ta.options.set("pause-on-trace", True)
    paused = sim.ta.open_trace()
    sim.switch(0, 1000)
    # stopped (tracing_stop), not off: tracing_on still reads 1
    assert sim.drain() == 0 and sim.guest.stopped == {0} and sim.ta.read_tracing_on() == b"1\n"
    sim.ta.close_trace(paused)
    sim.switch(0, 2000)
    assert sim.drain() == 1


def test_a_traceoff_trigger_stays_off_after_a_paused_read(sim):
    """A traceoff trigger turns the buffer off in the guest; a later read of `trace` with
    pause-on-trace stops and restarts recording, which leaves tracing_on as the trigger set it
    (ftracetest's func_traceonoff_triggers.tc)."""
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.ta.options.set("pause-on-trace", True)
    sim.guest.recording[0] = False   # what the guest's traceoff trigger does at the event
    sim.ta.close_trace(sim.ta.open_trace())
    sim.switch(0, 1000)
    assert sim.drain() == 0 and sim.ta.read_tracing_on() == b"0\n" and not sim.guest.stopped


def test_instances_have_their_own_buffers_and_events(sim):
    foo = sim.s.instances.create("foo")
    assert foo.slot == 1 and errno_of(sim.s.instances.create, "foo") == errno.EEXIST
    foo.events.write_enable(b"1\n", "sched", "sched_switch")
    assert sim.ta.events.read_enable("sched", "sched_switch") == b"0\n"
    sim.switch(0, 1000)
    sim.drain()
    assert len(sim.lines(foo)) == 1 and sim.lines() == []
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    foo.events.write_filter(sim.event("sched", "sched_switch"), b"prev_pid == 1")
    sim.switch(0, 2000)
    sim.drain()
    assert (len(sim.lines(foo)), len(sim.lines())) == (1, 1)
    sim.s.instances.remove("foo")
    assert sim.guest.enabled[("sched", "sched_switch")] == {0}
    assert sim.s.instances.get("foo") is None


def test_a_new_instance_takes_the_top_levels_options_as_they_are(sim):
    # Linux 6.1: echo 0 > options/print-parent; mkdir instances/bar: bar reads noprint-parent
    top = sim.ta.options
    top.write_option("print-parent", b"0\n")
    top.write_option("sym-offset", b"1\n")
    top.write_option("event-fork", b"1\n")
    bar = sim.s.instances.create("bar").options
    assert (bar["print-parent"], bar["sym-offset"]) == (False, True)
    assert not bar["event-fork"]               # ZEROED_TRACE_FLAGS start off
    top.write_option("print-parent", b"1\n")
    assert not bar["print-parent"]             # a copy, not the same flags


def test_instances_beyond_the_guest_slots_are_enomem(sim):
    for n in range(sim.guest.nr_slots - 1):
        sim.s.instances.create(f"i{n}")
    assert errno_of(sim.s.instances.create, "one-more") == errno.ENOMEM
    sim.s.instances.remove("i3")
    assert sim.s.instances.create("again").slot == 4
    assert sim.guest.open_slots == set(range(1, sim.guest.nr_slots))


def test_an_instance_has_buffers_from_mkdir_to_rmdir(sim):
    foo = sim.s.instances.create("foo")
    assert sim.guest.open_slots == {foo.slot}
    sim.s.instances.remove("foo")
    assert sim.guest.open_slots == set()
    assert errno_of(sim.s.instances.remove, "foo") == errno.ENOENT


def test_no_memory_for_the_buffers_is_enomem_and_changes_nothing(sim):
    sim.guest.buffers = 2              # the kernel has memory for two instances' buffers
    a, b = sim.s.instances.create("a"), sim.s.instances.create("b")
    assert errno_of(sim.s.instances.create, "c") == errno.ENOMEM
    assert sim.s.instances.get("c") is None
    assert [array.slot for array in sim.s.instances] == [a.slot, b.slot]
    assert sim.guest.open_slots == {a.slot, b.slot}
    assert errno_of(sim.s.instances.create, "a") == errno.EEXIST
    sim.s.instances.remove("a")
    c = sim.s.instances.create("c")   # a's memory and its slot (the lowest free) serve again
    assert c.slot == a.slot and sim.guest.open_slots == {b.slot, c.slot}


def test_guest_ring_losses_count_as_dropped(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    for i in range(300):                                    # 4 guest pages hold 240
        sim.switch(0, (i + 1) * 1000)
    sim.drain()
    sim.switch(0, 10_000_000)
    sim.drain()
    stats = dict(line.split(": ") for line in sim.ta.read_stats(0).decode().splitlines())
    assert stats["dropped events"] == "60" and stats["entries"] == "241"


def test_trace_pipe_in_latency_format_shows_no_delay_marks(sim):
    """6.1 (real-tracefs): a consuming read prints each record before it consumes it, so the
    next entry its latency context looks up is the record itself: no marks."""
    sim.ta.options.set("latency-format", True)
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 2_070_905_000, pid=98)
    sim.switch(0, 2_073_000_000, pid=15)
    sim.drain()
    assert [line[35:38] for line in sim.ta.read_trace().decode().splitlines()[-2:]] == ["#: ", " : "]
    text = sim.ta.consume().decode().splitlines()
    assert [line[35:38] for line in text] == [" : ", " : "]


def test_ftrace_dump_prints_the_top_buffer_consumed_a_part_at_a_time(sim):
    """ftrace_dump() (the dump/cpudump function commands): the kernel's log gets the top-level
    buffer (every CPU's, or the hitting CPU's) in the latency format whatever the option,
    between two rules, consumed, in parts of whole lines; an empty buffer says so."""
    dump = sim.guest.ftrace_dump
    dump.text_size = 300
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    for i in range(6):
        sim.switch(i % 2, 2_070_905_000 + 1000 * i, pid=98)
    dump.waiting = 1            # cpudump on CPU 1: its records only (drained first)
    while dump.waiting is not None:
        sim.s.ftrace_dump.serve()
    parts = [text for text, _ in dump.answers]
    assert [last for _, last in dump.answers] == [False] * (len(parts) - 1) + [True] and len(parts) > 1
    assert all(len(p) <= 300 and p.endswith(b"\n") for p in parts)
    lines = b"".join(parts).decode().splitlines()
    assert lines[0] == lines[-1] == "-" * 33 and len(lines) == 5
    records = [re.match(r"^   sleep-98        1d\.\.2\. (\d+)us : sched_switch: prev_comm=sleep ", line)
               for line in lines[1:-1]]
    assert all(records) and [int(m[1]) for m in records if m] == [2070906, 2070908, 2070910], lines
    assert sim.ta.consume().decode().count("sleep-98") == 3      # CPU 0's are left
    dump.answers.clear()
    dump.waiting = -1           # dump: nothing left
    sim.s.ftrace_dump.serve()
    assert dump.answers == [(b"   (ftrace buffer empty)\n", True)]


def test_latency_format(sim):
    """As Linux 6.1 prints it (checked on the real kernel: header, columns, delay marks)."""
    opts = sim.ta.options
    opts.set("latency-format", True)
    assert sim.ta.read_trace() == b"# tracer: nop\n#\n"            # nothing more while empty
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 2_070_905_000, pid=98)
    sim.switch(1, 2_071_702_000, pid=0)
    sim.switch(0, 2_073_000_000, pid=15)
    sim.drain()
    sim.s.cmdlines.save(98, b"sh")
    sim.s.cmdlines.save(15, b"rcu_preempt")
    lines = sim.ta.read_trace().decode().splitlines()
    assert lines[:9] == [
        "# tracer: nop", "#", "# nop latency trace v1.1.5 on 6.1.0-tracefs-sim",
        "# --------------------------------------------------------------------",
        "# latency: 0 us, #3/3, CPU#0 | (M:desktop VP:0, KP:0, SP:0 HP:0 #P:2)",
        "#    -----------------", "#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)", "#    -----------------", "#"]
    assert lines[9] == "#                    _------=> CPU#            "
    assert [l[:35] for l in lines[18:]] == [
        "      sh-98        0d..2. 2070905us",
        "  <idle>-0         1d..2. 2071702us",
        "rcu_pree-15        0d..2. 2073000us"]
    assert [l[35:38] for l in lines[18:]] == ["!: ", "#: ", " : "]
    opts.set("verbose", True)
    lines = sim.ta.read_trace().decode().splitlines()
    assert len(lines) == 12
    assert lines[9].startswith("              sh      98   0 1 00000002 00000000 [001f9979] 2070.905ms (+0.797ms): sched_switch:")
    opts.set("verbose", False)
    sim.ta.write_trace_clock(b"counter")                      # resets: time_start is the counter now
    sim.ta.write_marker(b"a", 98, b"sh")
    sim.ta.write_marker(b"b", 98, b"sh")
    assert [l[:31] for l in sim.ta.read_trace().decode().splitlines()[-2:]] == [
        "      sh-98        0.....    1:", "      sh-98        0.....    2:"]


def test_hash_ptr_off_prints_addresses(sim):
    sim.ta.events.write_set_event(b"kmem:kmalloc")
    sim.guest.emit(0, sim.event("kmem", "kmalloc").desc, 5, dict(
        call_site=0xFFFFFFFF81001234, ptr=0xFFFF888005252000, bytes_req=64, bytes_alloc=64, gfp_flags=0xCC0), pid=1)
    sim.drain()
    assert "call_site=kmalloc_trace+0x34/0x80 ptr=(____ptrval____) bytes_req=64" in sim.lines()[0]
    sim.ta.options.write_option("hash-ptr", b"0")
    assert " ptr=ffff888005252000 " in sim.lines()[0]


def test_a_page_returned_again_with_more_data_is_taken_once(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1000)
    sim.switch(0, 2000)
    assert sim.drain() == 2
    sim.switch(0, 3000)                 # same guest page, seq unchanged, one more event
    assert sim.drain() == 1
    assert sim.drain() == 0
    assert [l.split()[3] for l in sim.lines()] == ["0.000001:", "0.000002:", "0.000003:"]


def test_records_of_an_event_disabled_meanwhile_are_kept(sim):
    # Linux keeps what an event recorded while it was on; disabling stops new records only
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1000)
    sim.ta.events.write_enable(b"0\n", "sched", "sched_switch")   # before the drain saw it
    assert sim.drain() == 1


def test_tracing_off_stops_recording_in_the_guest(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.ta.write_tracing_on(b"0\n")
    assert sim.guest.recording[0] is False
    sim.switch(0, 1000)
    assert sim.drain() == 0
    sim.ta.write_tracing_on(b"1\n")
    sim.switch(0, 2000)
    assert sim.drain() == 1


def test_a_malformed_guest_page_is_skipped_not_fatal(sim, caplog):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1000)
    sim.switch(1, 2000)
    ring = sim.guest._rings[(0, 0)]
    page = bytearray(ring[0][1].ring_page())
    page[8:16] = (200).to_bytes(8, "little")          # commit past the data: zeros inside commit
    ring[0][1]._page[:] = page
    assert sim.drain() == 1                           # CPU 1's record is kept
    assert "page 0 skipped" in caplog.text


def test_an_event_too_short_for_its_header_is_skipped_not_fatal(sim, caplog):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1000)
    sim.guest._rings[(0, 0)][0][1].append(1500, b"\x01\x02\x03\x04")   # 4 bytes: no common_pid
    sim.switch(0, 2000)
    assert sim.drain() == 2
    assert "1 events shorter than their header skipped" in caplog.text


def test_reading_trace_again_does_not_evaluate_print_fmts_again(sim, monkeypatch):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    for ts in range(1000, 6000, 1000):
        sim.switch(ts // 1000 % 2, ts)
    sim.drain()
    event = sim.event("sched", "sched_switch")
    decodes = []
    decode = event.decoder.decode
    monkeypatch.setattr(event.decoder.__class__, "decode", lambda self, payload: decodes.append(1) or decode(payload))
    first = sim.ta.read_trace()
    made = len(decodes)
    assert 1 <= made <= 5                           # records with the same fields share a text
    assert sim.ta.read_trace() == first and len(decodes) == made
    sim.ta.options.set("verbose", True)             # an option the event text depends on
    sim.ta.read_trace()
    assert len(decodes) == 2 * made


def test_records_with_the_same_fields_share_one_evaluation_of_the_print_fmt(sim, monkeypatch):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    for ts in range(1000, 6000, 1000):
        sim.switch(0, ts)                           # the same switch five times
    sim.switch(0, 7000, next_pid=200)
    sim.drain()
    event = sim.event("sched", "sched_switch")
    decodes = []
    decode = event.decoder.decode
    monkeypatch.setattr(event.decoder.__class__, "decode", lambda self, payload: decodes.append(1) or decode(payload))
    lines = sim.ta.consume(None, 1 << 20).decode().splitlines()
    assert len(lines) == 6 and len(decodes) == 2
    assert lines[0].split(": ", 1)[1] == lines[4].split(": ", 1)[1] != lines[5].split(": ", 1)[1]


def test_a_comm_saved_between_reads_shows_in_the_next_read(sim):
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1000)
    sim.drain()
    assert sim.lines()[0].startswith("           sleep-108 ")
    sim.s.cmdlines.save(108, b"renamed")
    assert sim.lines()[0].startswith("         renamed-108 ")
    sim.s.cmdlines.write_size(b"1\n")                 # an empty map: the task is unknown
    assert sim.lines()[0].startswith("           <...>-108 ")


def test_a_batch_failing_in_one_array_does_not_hold_up_the_others(sim, monkeypatch, caplog):
    sim.s.instances.create("foo")
    foo = sim.s.instances.get("foo")
    for array in (sim.ta, foo):
        array.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1000)

    def broken(cpu, records):
        raise RuntimeError("broken buffer")

    monkeypatch.setattr(sim.ta, "add_entries", broken)
    assert sim.drain() == 1                           # foo's copy of the record is kept
    assert "slot 0: batch lost" in caplog.text
    assert len(sim.lines(foo)) == 1


def test_a_switch_saves_the_comm_an_exec_gave_the_task(sim):
    """The machine listed pid 108 as `sleep` when first seen; after an exec its switches name
    the new comm, which Linux saves at every switch: later lines show it."""
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(1, 1_000_000)
    sim.drain()
    sim.switch(1, 2_000_000, prev_comm="getuid-loop")
    sim.drain()
    assert [l.split()[0] for l in sim.lines()] == ["getuid-loop-108", "getuid-loop-108"]
    assert b"108 getuid-loop\n" in sim.s.cmdlines.read_saved_cmdlines()
    sim.ta.options.write_option("record-cmd", b"0\n")
    sim.switch(1, 3_000_000, prev_comm="other")
    sim.drain()
    assert b"108 getuid-loop\n" in sim.s.cmdlines.read_saved_cmdlines()   # record-cmd off: not saved


def test_a_task_gone_before_the_drain_is_named_from_the_guests_saved_cmdlines(sim):
    """Pid 4343 exited before its records were drained, so the machine no longer lists it:
    the guest's saved cmdlines (filled at switch time, as Linux's) still name it; a pid in
    neither stays <...>."""
    sim.ta.events.write_enable(b"1\n", "sched", "sched_wakeup")
    wakeup = sim.event("sched", "sched_wakeup").desc
    values = dict(comm="sleep", pid=108, prio=120, target_cpu=1)
    sim.guest.saved = {4343: "getuid-loop"}
    sim.guest.emit(0, wakeup, 1000, values, pid=4343, flags=0x1, preempt=2)
    sim.guest.emit(0, wakeup, 2000, values, pid=4444, flags=0x1, preempt=2)
    sim.drain()
    assert [l.split()[0] for l in sim.lines()] == ["getuid-loop-4343", "<...>-4444"]


def test_a_task_that_exited_unnamed_is_named_when_its_last_switch_saves_it(sim):
    """Pid 4343 recorded, then exited before the drain and before any switch saved its comm
    (a zombie is not among the live tasks): its final switch saves the comm after the batch
    kept its records unnamed, and the next read names them, as Linux's output does at print."""
    sim.ta.events.write_enable(b"1\n", "sched", "sched_wakeup")
    wakeup = sim.event("sched", "sched_wakeup").desc
    values = dict(comm="sleep", pid=108, prio=120, target_cpu=1)
    sim.guest.emit(0, wakeup, 1000, values, pid=4343, flags=0x1, preempt=2)
    sim.drain()
    assert sim.lines()[0].split()[0] == "<...>-4343"
    sim.guest.saved = {4343: "cat"}
    sim.drain()
    assert sim.lines()[0].split()[0] == "cat-4343"


@pytest.mark.parametrize("option", [None, "latency-format", "raw"])
def test_trace_pipe_in_small_reads_gives_the_trace_files_order_and_delays(sim, option):
    """Each read merges only a window of each CPU's oldest records: reads of any size must
    still give the records in the `trace` file's order, also when lines are shorter than the
    window expects (raw); in the latency format without `trace`'s delay marks (6.1's
    trace_pipe prints a record before it consumes it: the next one it finds is the record)."""
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    if option:
        sim.ta.options.set(option, True)
    ts = 1000
    for i in range(60):
        ts += (7, 15_000, 150_000, 20)[i % 4] * (1 + i % 3)
        sim.switch((i * i) % 3 % 2, ts, next_pid=i)
    sim.drain()
    expected = [line for line in sim.ta.read_trace().decode().splitlines() if not line.startswith("#")]
    if option == "latency-format":
        assert any(re.search(r"\dus[!#+]: ", line) for line in expected)
        expected = [re.sub(r"(\dus).: ", r"\1 : ", line, count=1) for line in expected]
    got = []
    for size in (1, 100, 300, 1000, 1 << 20):
        got += sim.ta.consume(None, size).decode().splitlines()
    while chunk := sim.ta.consume(None, 250):
        got += chunk.decode().splitlines()
    assert got == expected and len(got) == 60


def test_a_cpu_whose_records_came_in_out_of_time_order_is_merged_as_its_heads_are(sim):
    """A trace_marker write is kept on CPU 0 at once, CPU 0's guest records when the drain
    brings them: a CPU's buffer may hold a later stamp before earlier ones. Readers merge the
    CPUs by their next records (trace_find_next_entry), each CPU's records in their order,
    and trace_pipe takes each record once, in reads of any size."""
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    sim.switch(0, 1000)
    sim.drain()
    payload = sim.ta.buffer.cpu(0).pages[0][0].payload
    sim.ta.clear_trace()
    for cpu, stamps in ((0, (5000, 1000, 2000)), (1, (1500, 6000))):
        sim.ta.add_records(cpu, [(us * 1000, payload) for us in stamps])
    expected = [(1, 1500), (0, 5000), (0, 1000), (0, 2000), (1, 6000)]

    def order(lines):   # (cpu, time stamp in us) of each line
        return [(int(line.split("[")[1][:3]), round(float(line.split("] ")[1].split()[1][:-1]) * 1e6))
                for line in lines]

    assert order(sim.lines()) == expected
    got = []
    while text := sim.ta.consume(None, 1):
        got += text.decode().splitlines()
    assert order(got) == expected and sim.ta.buffer.is_empty()


def test_the_drains_task_cache_forgets_tasks_long_gone(sim, monkeypatch):
    """Every pid a record names is cached with its comm; tasks come and go (a pid each, until
    they wrap at 32768), so the cache starts afresh past its bound, and a live task's comm is
    found again from the machine."""
    from tracefs_sim.trace import drain as drain_module
    monkeypatch.setattr(drain_module, "_TASKS_KEPT", 50)
    sim.ta.events.write_enable(b"1\n", "sched", "sched_switch")
    cache = sim.s.drain._task_cache
    for pid in range(1000, 1200):   # short-lived tasks the machine lists no more
        sim.switch(0, 1_000_000_000 + pid, pid=pid)
        sim.drain()
        assert len(cache) <= 50 + 1 + len(sim.m.live_tasks)
    sim.ta.clear_trace()
    sim.switch(1, 2_000_000_000, pid=108)
    assert sim.drain() == 1
    assert sim.lines()[0].lstrip().startswith("sleep-108 ")


def test_a_comm_filter_takes_a_records_comm_at_its_time_across_a_rename(sim):
    """An exec renamed 108 from `sleep` to `ls` at 2 ms, and the guest saved the new name at
    once: in one batch, its records before the rename are `sleep`'s for `comm ==`, those after
    are `ls`'s, as Linux's filter_pred_comm compares current->comm as each event fires."""
    sys_exit = sim.event("raw_syscalls", "sys_exit")
    sim.ta.events.write_enable(b"1\n", "raw_syscalls", "sys_exit")
    sim.ta.events.write_filter(sys_exit, b'comm == "ls"\n')

    def sys_exits(cpu, *stamps):
        for ts in stamps:
            sim.guest.emit(cpu, sys_exit.desc, ts, dict(id=0, ret=1), pid=108)

    sys_exits(0, 1_000_000, 1_999_999, 2_000_000, 3_000_000)
    sim.m.live_tasks[0] = FakeTask(108, 108, "ls")
    sim.guest.saved[108] = "ls"
    sim.guest.renames.append((108, 2_000_000, "sleep"))
    sim.drain()
    assert [l.split()[3] for l in sim.lines()] == ["0.002000:", "0.003000:"]
    sim.ta.events.write_filter(sys_exit, b'comm == "sleep"\n')
    sys_exits(1, 1_500_000, 2_500_000)   # (a CPU whose records came later)
    sim.drain()
    assert [l.split()[3] for l in sim.lines()] == ["0.001500:", "0.002000:", "0.003000:"]
