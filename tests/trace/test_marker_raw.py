"""trace_marker_raw and the ftrace/raw_data record (tracing_mark_raw_write, trace_raw_data):
lines, raw output, size limits and errnos as Linux 6.1 gives them (real-tracefs:
printf '\\001\\000\\000\\000abc' > trace_marker_raw; cat trace)."""

import errno

import pytest

from fakes import FakeMachine
from tracefs_sim.trace.core import TraceCore


@pytest.fixture
def core():
    return TraceCore(FakeMachine(clock_ns=2_274_249_000), ftrace_sites=None, kprobe_engine=None)


def lines(core):
    return [l for l in core.top.read_trace().decode().splitlines() if not l.startswith("#")]


def errno_of(fn, *args):
    try:
        fn(*args)
    except OSError as e:
        return e.errno
    return 0


def test_raw_markers_as_linux(core):
    ta = core.top
    assert ta.write_marker_raw(b"\1\0\0\0abc", 98, b"sh") == 7
    assert ta.write_marker_raw(b"\2\0\0\0", 98, b"sh") == 4
    assert ta.write_marker_raw(b"\3\0\0\0abcdefghijklmnopq", 98, b"sh") == 21
    got = lines(core)
    assert [l.split(": ", 1)[1] for l in got] == [
        "# 1 buf: 61 62 63 00 00 00 00 00 00 00 00 00 00 00 00 00",
        "# 2 buf: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
        "# 3 buf: 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 00 00 00 00 00 00 00"]
    assert got[0].startswith("              sh-98      [000] .....")
    ta.options.set("raw", True)
    assert lines(core)[0] == "98 0 2274249000 # 1 buf: 61 62 63 00 00 00 00 00 00 00 00 00 00 00 00 00"
    ta.options.set("raw", False)
    ta.options.set("hex", True)
    assert lines(core)[0].endswith("type: 18")
    ta.options.set("hex", False)


def test_raw_marker_limits(core):
    ta = core.top
    assert errno_of(ta.write_marker_raw, b"ab", 1, b"a") == errno.EINVAL     # no id
    assert errno_of(ta.write_marker_raw, b"a" * 3100, 1, b"a") == errno.EINVAL   # RAW_DATA_MAX_SIZE
    assert ta.write_marker_raw(b"a" * 3072, 1, b"a") == 3072
    ta.options.set("markers", False)
    assert errno_of(ta.write_marker_raw, b"abcd", 1, b"a") == errno.EINVAL
    ta.options.set("markers", True)
    ta.write_tracing_on(b"0")
    assert errno_of(ta.write_marker_raw, b"abcd", 1, b"a") == errno.EBADF


def test_raw_data_format(core):
    ev = core.registry.by_id(18)
    assert (ev.system, ev.name) == ("ftrace", "raw_data")
    assert ev.format_text().split("\n\n", 1)[1] == (
        "\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"
        "\tfield:char buf[];\toffset:12;\tsize:0;\tsigned:1;\n\n"
        'print fmt: "id:%04x %08x", REC->id, (int)REC->buf[0]\n')
