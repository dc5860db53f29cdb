"""Control-file behaviour of a trace array, checked against what Linux 6.1 answers
(/work/shared/reference/linux-6.1/g_errors.out and a_layout.out, and the real kernel)."""

import errno
import time

import pytest

from fakes import make_trace_array
from tracefs_sim.trace import TraceClocks
from tracefs_sim.trace.trace_array import BufferExpansion


def make(nr_cpus=2, now=2_274_249_000):
    return make_trace_array(nr_cpus=nr_cpus, clock=lambda: now)


def errno_of(call, *args):
    with pytest.raises(OSError) as caught:
        call(*args)
    return caught.value.errno


def test_boot_state():
    ta = make()
    assert ta.read_tracing_on() == b"1\n"
    assert ta.read_current_tracer() == b"nop\n"
    assert ta.read_available_tracers() == b"nop\n"
    assert ta.read_buffer_size_kb() == b"7 (expanded: 1408)\n"
    assert ta.read_buffer_total_size_kb() == b"14 (expanded: 2816)\n"
    assert ta.read_buffer_size_kb(0) == b"7\n"
    assert ta.read_trace_clock() == b"[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n"


def test_tracing_on_accepts_what_linux_accepts():
    ta = make()
    ta.write_tracing_on(b"2\n")
    assert ta.read_tracing_on() == b"1\n"
    ta.write_tracing_on(b"0\n")
    assert ta.read_tracing_on() == b"0\n" and not ta.tracing_on
    ta.write_tracing_on(b"+7\n")
    assert ta.read_tracing_on() == b"1\n"
    ta.write_tracing_on(b"0")
    for bad in (b"-1\n", b"abc\n", b"\n", b" 1\n", b"0x1\n"):
        assert errno_of(ta.write_tracing_on, bad) == errno.EINVAL
        assert ta.read_tracing_on() == b"0\n"
    assert errno_of(ta.write_tracing_on, b"99999999999999999999999\n") == errno.ERANGE


def test_turning_tracing_off_wakes_pipe_readers():
    ta = make()
    woken = []
    ta.buffer.waiters.add(lambda: woken.append(1))
    ta.write_tracing_on(b"1\n")      # no change: nobody to wake
    assert woken == []
    ta.write_tracing_on(b"0\n")
    assert woken == [1]


def test_unknown_tracer_is_einval_and_keeps_nop_but_expands_buffers():
    ta = make()
    assert errno_of(ta.write_current_tracer, b"nosuchtracer\n") == errno.EINVAL
    assert ta.read_current_tracer() == b"nop\n"
    # Linux grows the buffers before it looks the name up.
    assert ta.read_buffer_size_kb() == b"1410\n"
    assert ta.read_buffer_total_size_kb() == b"2820\n"
    ta.write_current_tracer(b" nop \n")
    assert ta.read_current_tracer() == b"nop\n"


def test_trace_clock_selection():
    ta = make()
    ta.write_trace_clock(b"  global  \n")
    assert ta.read_trace_clock() == b"local [global] counter uptime perf mono mono_raw boot tai x86-tsc\n"
    for bad in (b"nosuchclock\n", b"\n", b"local\nglobal", b"x" * 64):
        assert errno_of(ta.write_trace_clock, bad) == errno.EINVAL
    assert ta.clock.name == "global"
    ta.write_trace_clock(b"x86-tsc")
    assert ta.read_trace_clock().endswith(b"[x86-tsc]\n")


def test_buffer_size_errors_leave_size_unchanged():
    ta = make()
    for bad in (b"abc\n", b"0\n", b" 12\n", b"12 \n", b"-5\n"):
        assert errno_of(ta.write_buffer_size_kb, bad) == errno.EINVAL
    assert ta.read_buffer_size_kb() == b"7 (expanded: 1408)\n"


def test_buffer_sizes_round_to_whole_pages():
    # Real kernel: 1408 -> 1410 (354 pages of 4080 bytes), 8 -> 11, 1 -> 7 (two pages minimum).
    ta = make()
    ta.write_buffer_size_kb(b"1408\n")
    assert ta.read_buffer_size_kb() == b"1410\n"
    assert ta.read_buffer_total_size_kb() == b"2820\n"
    ta.write_buffer_size_kb(b"8\n")
    assert ta.read_buffer_size_kb() == b"11\n"
    assert ta.read_buffer_total_size_kb() == b"22\n"
    ta.write_buffer_size_kb(b"1\n")
    assert ta.read_buffer_size_kb() == b"7\n"


def test_per_cpu_size_and_x_when_sizes_differ():
    ta = make()
    ta.write_buffer_size_kb(b"1408\n")
    ta.write_buffer_size_kb(b"100\n", 1)
    assert ta.read_buffer_size_kb() == b"X\n"
    assert ta.read_buffer_total_size_kb() == b"1513\n"
    assert ta.read_buffer_size_kb(0) == b"1410\n"
    assert ta.read_buffer_size_kb(1) == b"103\n"
    assert errno_of(ta.write_buffer_size_kb, b"0\n", 1) == errno.EINVAL
    assert ta.read_buffer_size_kb(1) == b"103\n"


def test_per_cpu_resize_before_first_use_ends_the_expanded_note():
    ta = make()
    ta.write_buffer_size_kb(b"4\n", 0)
    assert ta.read_buffer_size_kb() == b"7\n"
    assert ta.read_buffer_total_size_kb() == b"14\n"


def test_expansion_is_shared_between_trace_arrays():
    shared = BufferExpansion()
    clocks = TraceClocks(lambda: 0)
    first = make_trace_array(clocks=clocks, expansion=shared)
    first.write_buffer_size_kb(b"8\n")
    second = make_trace_array(clocks=clocks, expansion=shared)
    # A trace array made after the first use starts at the full default size.
    assert second.read_buffer_size_kb() == b"1410\n"


def test_an_instance_starts_at_full_size_and_its_events_expand_the_top_level():
    """What the real 6.1 answers on 2 CPUs: trace_array_create() allocates a new instance's
    buffers at trace_buf_size, expanded or not (`1410 (expanded: 1408)` beside the top level's
    `7 (expanded: 1408)`); enabling an event in the instance expands global_trace's
    (tracing_update_buffers()); its current_tracer or buffer_size_kb resizes only the instance."""
    def arrays():
        shared = BufferExpansion()
        clocks = TraceClocks(lambda: 0)
        return (make_trace_array(clocks=clocks, expansion=shared),
                make_trace_array(1, clocks=clocks, expansion=shared))

    top, instance = arrays()
    assert instance.read_buffer_size_kb() == b"1410 (expanded: 1408)\n"
    assert instance.read_buffer_total_size_kb() == b"2820 (expanded: 2816)\n"
    assert instance.read_buffer_size_kb(0) == b"1410\n"
    assert top.read_buffer_size_kb() == b"7 (expanded: 1408)\n"
    instance.events.write_enable(b"0")       # expands whatever the value
    assert top.read_buffer_size_kb() == b"1410\n" and instance.read_buffer_size_kb() == b"1410\n"

    top, instance = arrays()
    instance.write_buffer_size_kb(b"20\n")
    assert instance.read_buffer_size_kb() == b"23\n" and top.read_buffer_size_kb() == b"7\n"

    # the other tracing_update_buffers() callers: snapshot (before its value is parsed) and
    # set_event_pid / set_event_notrace_pid; set_ftrace_pid is not one
    for write in (lambda a: errno_of(a.snapshot.write, b"x\n"),
                  lambda a: a.events.pid_filter.write(b"\n"),
                  lambda a: a.events.notrace_pid_filter.write(b"1\n")):
        top, instance = arrays()
        write(instance)
        assert top.read_buffer_size_kb() == b"1410\n"


def test_trace_header_and_clear():
    ta = make()
    text = ta.read_trace().decode()
    assert text.startswith("# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:2\n")
    assert make(nr_cpus=4).read_trace().decode().splitlines()[2].endswith("#P:4")
    ta.clear_trace()
    ta.clear_trace(1)
    assert ta.read_trace().decode() == text


def test_stats_of_an_empty_buffer():
    ta = make(now=2_274_249_000)
    assert ta.read_stats(0) == (
        b"entries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
        b"oldest event ts:     0.000000\nnow ts:     2.274249\n"
        b"dropped events: 0\nread events: 0\n")


def test_stats_use_the_selected_clock():
    ta = make(now=3_180_000_000)
    ta.write_trace_clock(b"uptime\n")
    assert b"oldest event ts: 0\nnow ts: 318\n" in ta.read_stats(1)
    ta.write_trace_clock(b"counter\n")
    first = ta.read_stats(0)
    second = ta.read_stats(0)
    assert first != second   # the counter clock counts each reading


def test_live_clock_advances():
    t0 = time.monotonic_ns()
    ta = make_trace_array(nr_cpus=1, clock=lambda: time.monotonic_ns() - t0)
    a = ta.read_stats(0)
    time.sleep(0.01)
    assert ta.read_stats(0) != a


def test_kilobytes_wrap_like_an_unsigned_long():
    ta = make()
    ta.write_buffer_size_kb(b"%d\n" % (1 << 54))     # << 10 wraps to 0: the two-page minimum
    assert ta.read_buffer_size_kb() == b"7\n"
