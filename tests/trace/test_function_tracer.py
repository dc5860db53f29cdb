"""The function tracers in a trace array: switching drives the kernel's sites, resets the
buffers, brings the tracer's options; instances get what Linux 6.1 gives them."""

import errno

import pytest

from tests.fakes import FakeFtraceSites, make_trace_array
from tracefs_sim.trace.ftrace_records import FN_RECORD, TRACE_FN
from tracefs_sim.trace.function_tracer import FtraceGlobal
from tracefs_sim.trace.tracers import FUNCTION, FUNCTION_GRAPH, NOP, TracerRegistry

FUNCTIONS = ["ksys_read", "vfs_read", "vfs_write", "__do_sys_getuid", "rw_verify_area"]


def make_array(sites, slot=0, ftrace=None, tracers=None):
    return make_trace_array(slot, ftrace=ftrace or FtraceGlobal(sites, 0x1d0), tracers=tracers)


@pytest.fixture
def sites():
    return FakeFtraceSites(FUNCTIONS)


def fn_record(ip=0, parent=0, pid=7):
    return FN_RECORD.pack(TRACE_FN, 0, 0, pid, ip, parent)


def test_tracers_listed_and_switching_drives_sites(sites):
    ta = make_array(sites)
    assert ta.read_available_tracers() == b"function_graph function nop\n"
    ta.write_current_tracer(b"function\n")
    assert sites.function_slots == {0: frozenset(FUNCTIONS)}
    ta.functions.filter.write(b"vfs_read\n")
    assert sites.function_slots == {0: frozenset({"vfs_read"})}
    ta.functions.notrace.write(b"vfs_*\n")
    assert sites.function_slots == {0: frozenset()}
    ta.functions.notrace.clear()
    ta.write_current_tracer(b"function_graph\n")
    assert sites.function_slots == {}
    assert sites.graph_slots[0][0] == frozenset({"vfs_read"})
    ta.functions.graph.functions.write(b"ksys_read\n")
    assert sites.graph_slots[0][1] == frozenset({"ksys_read"})
    ta.write_current_tracer(b"nop\n")
    assert sites.function_slots == {} and sites.graph_slots == {}


def test_filter_changes_while_no_tracer_touch_no_site(sites):
    ta = make_array(sites)
    ta.functions.filter.write(b"vfs_read\n")
    assert sites.calls == []
    ta.write_current_tracer(b"function")
    assert sites.calls[-1] == ("function", 0, frozenset({"vfs_read"}))


def test_switch_resets_the_buffer_but_same_tracer_does_not(sites):
    ta = make_array(sites)
    ta.write_current_tracer(b"function\n")
    ta.add_records(0, [(5, fn_record())])
    ta.write_current_tracer(b"function\n")
    assert b"entries-in-buffer/entries-written: 1/1" in ta.read_trace()
    ta.write_current_tracer(b"nop\n")
    assert b"entries-in-buffer/entries-written: 0/0" in ta.read_trace()


def test_unknown_tracer_keeps_the_current_one(sites):
    ta = make_array(sites)
    ta.write_current_tracer(b"function\n")
    with pytest.raises(OSError) as failed:
        ta.write_current_tracer(b"nosuchtracer\n")
    assert failed.value.errno == errno.EINVAL
    assert ta.read_current_tracer() == b"function\n"
    assert sites.function_slots == {0: frozenset(FUNCTIONS)}


def test_tracer_options(sites):
    ta = make_array(sites)
    opts = ta.options
    assert "func_stack_trace" in opts.file_names(True) and "funcgraph-tail" in opts.file_names(True)
    assert b"func_stack_trace" not in opts.read_trace_options()
    with pytest.raises(OSError):
        opts.write_trace_options(b"func_stack_trace")     # not the current tracer's option
    ta.write_current_tracer(b"function")
    assert opts.read_trace_options().endswith(b"nofunc_stack_trace\nnofunc-no-repeats\n")
    opts.write_trace_options(b"func_stack_trace")
    assert sites.stack_trace == {0: True}
    opts.write_trace_options(b"func-no-repeats")
    assert opts.read_trace_options().endswith(b"func_stack_trace\nfunc-no-repeats\n") and sites.no_repeats == {0: True}
    ta.write_current_tracer(b"function_graph")
    assert opts.read_trace_options().endswith(
        b"nofuncgraph-overrun\nfuncgraph-cpu\nfuncgraph-overhead\nnofuncgraph-proc\nfuncgraph-duration\n"
        b"nofuncgraph-abstime\nfuncgraph-irqs\nnofuncgraph-tail\nsleep-time\ngraph-time\n")
    # sleep-time and graph-time (6.1's fgraph_sleep_time, fgraph_graph_time) reach the sites
    opts.write_trace_options(b"nosleep-time")
    opts.write_trace_options(b"nograph-time")
    assert (sites.graph_sleep_time, sites.graph_graph_time) == (False, False)


def test_instances_have_no_graph_tracer(sites):
    ftrace = FtraceGlobal(sites)
    make_array(sites, 0, ftrace)
    instance = make_array(sites, 3, ftrace)
    assert instance.read_available_tracers() == b"function nop\n"
    with pytest.raises(OSError):
        instance.write_current_tracer(b"function_graph")
    assert instance.functions.graph is None
    assert "funcgraph-cpu" not in instance.options.file_names(False)
    assert "func_stack_trace" in instance.options.file_names(False)
    instance.write_current_tracer(b"function")
    assert sites.function_slots == {3: frozenset(FUNCTIONS)}


def test_pid_files(sites):
    ta = make_array(sites)
    assert ta.functions.pids.read() == b"no pid\n"
    ta.functions.pids.write(b"1 2\n")
    assert ta.functions.pids.read() == b"1\n2\n"
    assert sites.pids[0] == (frozenset({1, 2}), frozenset())
    with pytest.raises(OSError):
        ta.functions.pids.write(b"abc\n")
    assert ta.functions.pids.read() == b"1\n2\n"
    ta.functions.notrace_pids.write(b"5")
    assert sites.pids[0] == (frozenset({1, 2}), frozenset({5}))
    ta.functions.pids.clear()
    assert ta.functions.pids.read() == b"no pid\n"


def test_max_graph_depth(sites):
    ftrace = FtraceGlobal(sites)
    assert ftrace.graph.read_max_depth() == b"0\n"
    for bad in (b"-1\n", b"abc\n"):
        with pytest.raises(OSError) as failed:
            ftrace.graph.write_max_depth(bad)
        assert failed.value.errno == errno.EINVAL
    ftrace.graph.write_max_depth(b"3\n")
    assert ftrace.graph.read_max_depth() == b"3\n" and sites.max_graph_depth == 3


def test_global_files(sites):
    ftrace = FtraceGlobal(sites, 0x120)
    ta = make_array(sites, 0, ftrace)
    assert ftrace.read_available_filter_functions() == "".join(f + "\n" for f in FUNCTIONS).encode()
    assert ftrace.read_enabled_functions() == b""
    ta.functions.filter.write(b"vfs_read")
    ta.write_current_tracer(b"function")
    assert ftrace.read_enabled_functions() == b"vfs_read (1)       ->ftrace_dispatch+0x0/0x120\n"
    assert ftrace.read_dyn_ftrace_total_info() == b"5 pages:1 groups: 1\n"


@pytest.mark.parametrize("count, expected", [(38700, b"38700 pages:152 groups: 3\n"),
                                             (256, b"256 pages:1 groups: 1\n"),
                                             (257, b"257 pages:2 groups: 1\n")])
def test_dyn_ftrace_total_info_pages(count, expected):
    assert FtraceGlobal(FakeFtraceSites([f"f{i}" for i in range(count)])).read_dyn_ftrace_total_info() == expected


def test_no_tracer_change_under_pipe_readers(sites):
    # Linux 6.1: `cat trace_pipe &` then `echo nop > current_tracer` fails with EBUSY
    ta = make_array(sites)
    ta.write_current_tracer(b"function")
    ta.open_pipe()
    with pytest.raises(OSError) as failed:
        ta.write_current_tracer(b"nop")
    assert failed.value.errno == errno.EBUSY
    ta.write_current_tracer(b"function")      # the same tracer: nothing to change, no error
    assert ta.read_current_tracer() == b"function\n"
    ta.close_pipe()
    ta.write_current_tracer(b"nop")
    assert sites.function_slots == {}


def test_drain_keeps_function_records_without_an_event_file(sites):
    """The guest writes function records only for the array's tracer: the drain keeps them
    (no enable file governs them), while a disabled event's records stay out."""
    from tests.fakes import FakeMachine, FakeTask
    from tracefs_sim.trace.core import TraceCore

    machine = FakeMachine()
    machine.live_tasks.append(FakeTask(7, 7, "cat"))
    tracing = TraceCore(machine, ftrace_sites=sites, kprobe_engine=None)
    top = tracing.top
    top.write_current_tracer(b"function")
    machine.tracing._append(0, 1, 5_000, fn_record(ip=0xFFFFFFFF81002010, parent=0, pid=7))
    assert tracing.drain.drain_once() == 1
    body = top.read_trace().decode().split("|\n")[-1]
    assert body == "             cat-7       [001] .....     0.000005: vfs_read\n"
    assert tracing.globals.tracers.available_text() == "function_graph function nop\n"


def test_removed_instance_leaves_nothing_in_the_kernel(sites):
    ftrace = FtraceGlobal(sites)
    instance = make_array(sites, 2, ftrace)
    instance.write_current_tracer(b"function")
    instance.functions.pids.write(b"5")
    instance.options.write_option("func_stack_trace", b"1")
    instance.shutdown()
    assert sites.function_slots == {}
    assert sites.pids[2] == (frozenset(), frozenset()) and sites.stack_trace[2] is False


def test_the_function_tracers_options_are_one_for_all_arrays(sites):
    """Linux 6.1 keeps a tracer's options in its one struct tracer_flags: echo 1 >
    instances/foo/options/func_stack_trace makes options/func_stack_trace read 1 too; the
    change acts in the array it went through if that one runs the function tracer, and any
    array takes the options as they are when it starts the tracer (func_set_flag(),
    function_trace_init())."""
    ftrace, tracers = FtraceGlobal(sites, 0x1d0), TracerRegistry((NOP, FUNCTION, FUNCTION_GRAPH))
    top = make_array(sites, ftrace=ftrace, tracers=tracers)
    foo = make_array(sites, slot=1, ftrace=ftrace, tracers=tracers)
    top.write_current_tracer(b"function")
    foo.options.write_option("func_stack_trace", b"1\n")
    assert top.options.read_option("func_stack_trace") == b"1\n"
    assert not sites.stack_trace.get(0) and not sites.stack_trace.get(1)   # foo is not running it
    foo.write_current_tracer(b"function")
    assert sites.stack_trace[1] and not sites.stack_trace.get(0)
    top.write_current_tracer(b"nop")
    top.write_current_tracer(b"function")                                # restarted: takes it
    assert sites.stack_trace[0]
    top.options.write_option("func-no-repeats", b"1\n")
    assert foo.options.read_option("func-no-repeats") == b"1\n"
    assert sites.no_repeats == {0: True, 1: False}                      # foo runs as it started


def test_funcgraph_irqs_off_stops_recording_interrupts(sites):
    # func_graph_set_flag(): ftrace_graph_skip_irqs, whatever the current tracer
    ta = make_array(sites)
    ta.options.write_option("funcgraph-irqs", b"0\n")
    assert sites.graph_irqs is False
    ta.options.write_option("funcgraph-irqs", b"1\n")
    assert sites.graph_irqs is True
