"""options/event-fork and options/function-fork in a trace array: listed as Linux 6.1 lists
them, handed to the guest (which follows forks), cleared with the instance; the pid list files
read what the guest holds, a list left empty by exits differing from no list."""

import errno

import pytest

from tests.fakes import FakeFtraceSites, FakeGuestTracing, make_trace_array
from tracefs_sim.trace.function_tracer import FtraceGlobal


def make_array(slot=0, guest=None, sites=None):
    sites = sites or FakeFtraceSites(["vfs_read"])
    guest = guest or FakeGuestTracing(2)
    return make_trace_array(slot, ftrace=FtraceGlobal(sites, 0x1d0), guest=guest)


def test_listed_where_linux_lists_them_whatever_the_tracer():
    ta = make_array()
    names = ta.options.read_trace_options().decode().split()
    assert names.index("noevent-fork") == names.index("markers") + 1
    assert names.index("nofunction-fork") == names.index("hash-ptr") + 2   # after function-trace
    ta.write_current_tracer(b"function\n")
    assert "nofunction-fork" in ta.options.read_trace_options().decode().split()
    instance = make_array(slot=3)
    assert {"event-fork", "function-fork"} <= set(instance.options.file_names(top_level=False))


def test_options_go_to_the_guest_and_leave_with_the_instance():
    guest = FakeGuestTracing(2)
    ta = make_array(slot=2, guest=guest)
    ta.options.write_trace_options(b"event-fork\n")
    ta.options.write_option("function-fork", b"1\n")
    assert guest.pid_lists.event_fork == {2} and guest.pid_lists.function_fork == {2}
    ta.options.write_trace_options(b"noevent-fork")
    assert guest.pid_lists.event_fork == set()
    try:
        ta.options.write_option("event-fork", b"2\n")
    except OSError as e:
        assert e.errno == errno.EINVAL
    else:
        raise AssertionError("event-fork took 2")
    assert guest.pid_lists.event_fork == set()
    ta.options.write_option("event-fork", b"1\n")
    ta.events.pid_filter.write(b"5")
    ta.events.notrace_pid_filter.write(b"6")
    ta.shutdown()
    assert guest.pid_lists.event_fork == set() and guest.pid_lists.function_fork == set()
    assert guest.pid_lists.event_pids(2, False) is None and guest.pid_lists.event_pids(2, True) is None


def test_set_event_pid_reads_the_guests_list():
    guest = FakeGuestTracing(2)
    ta = make_array(guest=guest)
    pids = ta.events.pid_filter
    pids.write(b"7 3")
    assert guest.pid_lists.event_pids(0, False) == {3, 7}
    guest.pid_lists.set_event_pids(0, False, frozenset({3, 7, 40}))   # the guest followed a fork
    assert pids.read() == b"3\n7\n40\n"
    pids.write(b"41")                                                  # appends to what it holds
    assert pids.read() == b"3\n7\n40\n41\n"
    guest.pid_lists.set_event_pids(0, False, frozenset())              # every task freed
    assert pids.read() == b""
    assert not guest.pid_lists.passes(0, 3)                            # an empty list keeps no one
    pids.write(b"\n")                                                  # no pid at all: list freed
    assert guest.pid_lists.event_pids(0, False) is None and guest.pid_lists.passes(0, 3)
    assert ta.events.notrace_pid_filter.read() == b""


def test_set_ftrace_pid_reads_the_guests_list():
    sites = FakeFtraceSites(["vfs_read"])
    ta = make_array(sites=sites)
    pids = ta.functions.pids
    assert pids.read() == b"no pid\n"
    pids.write(b"4")
    ta.functions.notrace_pids.write(b"9")
    assert sites.pids[0] == ({4}, {9})
    sites.pids[0] = (frozenset({4, 12}), frozenset({9}))               # function-fork added 12
    assert pids.read() == b"4\n12\n"
    pids.write(b"5")
    assert sites.pids[0] == ({4, 5, 12}, {9})
    pids.clear()
    assert pids.read() == b"no pid\n" and sites.pids[0] == (frozenset(), {9})


@pytest.mark.parametrize("data, err", [
    (b"18446744073709551616", errno.EINVAL),   # kstrtoul() refuses it: past 64 bits
    (b"18446744073709551615", errno.EPERM),    # a number, but no pid
    (b"0x", errno.EINVAL), (b"08", errno.EINVAL), (b"1x", errno.EINVAL),
])
def test_pids_written_as_linux_takes_them(data, err):
    """As Linux 6.1 answers `echo DATA > set_event_pid` (asked of the real kernel)."""
    ta = make_array()
    with pytest.raises(OSError) as caught:
        ta.events.pid_filter.write(data)
    assert caught.value.errno == err
    assert ta.events.pid_filter.read() == b""
