"""The function profiler's files (trace/function_profile.py) over fake sites: 6.1's
function_stat_show() format and stat.c's order, the enable file's rules."""

import errno

import pytest

from tracefs_sim.trace.function_profile import HEADERS, FunctionProfiler


class FakeSites:
    def __init__(self, records):
        self.records = records          # per cpu: (function, hits, time ns, sum of squares), found order
        self.profiled: list = []

    def read_profile(self):
        return self.records

    def set_profiler(self, funcs):
        self.profiled.append(funcs)


class FakeTop:
    tracer = None

    def __init__(self):
        self.watchers = []

    def traced(self):
        return frozenset({"vfs_read", "vfs_write"})

    graph_busy = None

    def watch_filter(self, fn):
        self.watchers.append(fn)


def profiler(records, thresh=0):
    sites, top = FakeSites(records), FakeTop()
    return FunctionProfiler(sites, top, lambda: thresh), sites, top


def test_stat_lines_as_6_1_prints_them():
    p, _, _ = profiler([[("vfs_read", 3, 1076220, 3 * 358740 ** 2 + 10 ** 9),
                         ("rw_verify_area", 15, 300, 15 * 400),
                         ("a_function_with_a_very_long_name_indeed", 1, 5_000_000_000, 25 * 10 ** 18)]])
    lines = p.read_stat(0)[len(HEADERS):].decode().splitlines()
    # by total time, largest first; the name cut at 30; s^2 in us^2, 0 for a single hit
    assert lines == [
        "  a_function_with_a_very_long_na           1    5000000 us      5000000 us      0.000 us    ",
        "  vfs_read                                 3    1076.220 us     358.740 us      500.000 us  ",
        "  rw_verify_area                          15    0.300 us        0.020 us        0.000 us    ",
    ]


def test_equal_times_list_the_later_found_first_and_thresh_hides_the_fast():
    p, _, _ = profiler([[("first", 1, 500, 0), ("second", 2, 500, 2 * 250 ** 2), ("fast", 4, 40, 0)]], thresh=100)
    assert p.read_stat(0) == HEADERS + (
        b"  second                                   2    0.500 us        0.250 us        0.000 us    \n"
        b"  first                                    1    0.500 us        0.500 us        0.000 us    \n")


def test_enable_file():
    p, sites, top = profiler([[]])
    assert p.read_enabled() == b"0\n" and p.read_stat(0) == HEADERS
    p.write_enabled(b"5\n")                           # any non-zero value is 1
    assert p.read_enabled() == b"1\n" and sites.profiled == [top.traced()]
    p.write_enabled(b"1\n")                           # no change: nothing happens (no reset)
    assert sites.profiled == [top.traced()]
    top.watchers[0]()                                 # a filter change follows
    assert len(sites.profiled) == 2
    with pytest.raises(OSError) as e:
        p.write_enabled(b"x\n")
    assert e.value.errno == errno.EINVAL and p.read_enabled() == b"1\n"
    p.write_enabled(b"0\n")
    assert sites.profiled[-1] is None and p.read_enabled() == b"0\n"
    top.tracer = "function_graph"
    with pytest.raises(OSError) as e:
        p.write_enabled(b"1\n")
    assert e.value.errno == errno.EBUSY and p.read_enabled() == b"0\n"
    top.tracer = None
    p.write_enabled(b"1\n")
    assert top.graph_busy()                           # function_graph may not start now
