"""The blk tracer's output (kernel/trace/blktrace.c's blk_log_* and print_one_line()), from
TRACE_BLK records as the kernel's kernel/blktrace.c writes them, through a trace array: the
default line, blk_classic's, verbose's long action names, raw, hex and bin, and the tracer's
registration (top level only, its options, set_flag's context-info)."""
import errno
import struct

import pytest
from fakes import FakeMachine, FakeTask

from tracefs_sim.trace.blk_output import TRACE_BLK, blk_line
from tracefs_sim.trace.core import TraceCore

DEV = 259 << 20   # nvme0n1
TC_WRITE, TC_SYNC, TC_QUEUE, TC_COMPLETE, TC_FS, TC_PC = 1 << 1, 1 << 3, 1 << 4, 1 << 7, 1 << 8, 1 << 9
QUEUE = 1 | TC_QUEUE << 16
COMPLETE = 8 | TC_COMPLETE << 16
UNPLUG_IO = 10 | TC_QUEUE << 16
CGROUP = 1 << 8


def record(action, sector=0, nbytes=0, pid=42, error=0, pdu=b"", flags=0x1, preempt=1):
    """A TRACE_BLK entry: the trace_entry header over magic and sequence, then blk_io_trace."""
    return (struct.pack("<HBBi", TRACE_BLK, flags, preempt, pid) +
            struct.pack("<QQIIIIIHH", 0, sector, nbytes, action, pid, DEV, 0, error, len(pdu)) + pdu)


@pytest.fixture
def sim():
    machine = FakeMachine(clock_ns=1_000_000_000)
    machine.tracing.has_blk_tracer = True
    machine.live_tasks = [FakeTask(42, 42, "dd")]
    core = TraceCore(machine, ftrace_sites=None, kprobe_engine=None)
    core.top.write_current_tracer(b"blk")

    def lines(*records):
        for i, payload in enumerate(records):
            machine.tracing._append(0, 1, 1_500_000_000 + i * 1000, payload)
        core.drain.drain_once()
        return core.top.read_trace()
    return machine, core, lines


def comm(pid):
    return "dd"


def test_lines_as_blk_log_prints_them():
    write_sync = (TC_WRITE | TC_SYNC | TC_FS) << 16
    assert blk_line(record(QUEUE | write_sync, 16, 4096), comm, False, False) == \
        b"259,0    Q  WS 16 + 8 [dd]\n"
    assert blk_line(record(QUEUE | write_sync, 16, 4096), comm, True, False) == \
        b"259,0   queue  WS 16 + 8 [dd]\n"
    assert blk_line(record(COMPLETE | write_sync, 16, 4096, error=5), comm, False, False) == \
        b"259,0    C  WS 16 + 8 [5]\n"
    assert blk_line(record(COMPLETE, 0, 0), comm, False, False) == b"259,0    C   N 0 [0]\n"
    # the unplug's depth: the big-endian pdu; a passthrough request's pdu dumped, zeros cut
    assert blk_line(record(UNPLUG_IO, pdu=struct.pack(">Q", 3)), comm, False, False) == \
        b"259,0    U   N [dd] 3\n"
    assert blk_line(record(QUEUE | TC_PC << 16, 0, 512, pdu=b"\x12\x00\x00\x00"), comm, False, False) == \
        b"259,0    Q   R 512 (12 00 ..) [dd]\n"   # (the zero after the last non-zero shows)
    # a cgroup's id: LOW32,HIGH32 before the action
    assert blk_line(record(QUEUE | CGROUP | write_sync, 16, 4096, pdu=struct.pack("<Q", 1 << 32 | 7)), comm,
                    False, False) == b"259,0   7,1  Q  WS 16 + 8 [dd]\n"
    assert blk_line(record(0x1f), comm, False, False) == b"Unknown action 1f\n"
    assert blk_line(record(QUEUE, 16, 4096), comm, False, False, classic=(1, 1_500_000_000)) == \
        b"259,0    1     1.500000000    42  Q   R 16 + 8 [dd]\n"


def test_the_tracer_and_its_options(sim):
    machine, core, lines = sim
    top = core.top
    assert machine.tracing.blk_tracer is True
    assert top.read_available_tracers() == b"blk nop\n"
    assert b"noblk_classic\nnoblk_cgroup\nnoblk_cgname\n" in top.options.read_trace_options()
    foo = core.instances.create("foo")
    with pytest.raises(OSError) as caught:
        foo.write_current_tracer(b"blk")
    assert caught.value.errno == errno.EINVAL
    assert foo.read_available_tracers() == b"nop\n" and "blk_classic" not in foo.options.file_names(False)
    top.write_current_tracer(b"nop")
    assert machine.tracing.blk_tracer is False
    with pytest.raises(OSError):
        top.options.write_trace_options(b"blk_classic\n")   # not the current tracer's
    top.options.write_option("blk_classic", b"1\n")          # set_flag() whatever the tracer
    assert top.options.read_option("context-info") == b"0\n"
    top.options.write_option("blk_classic", b"0\n")
    assert top.options.read_option("context-info") == b"1\n"


def test_trace_of_the_blk_tracer(sim):
    machine, core, lines = sim
    top = core.top
    text = lines(record(QUEUE | (TC_WRITE | TC_FS) << 16, 16, 4096)).decode()
    assert text == "# tracer: blk\n#\n              dd-42      [001] d..1.     1.500000: 259,0    Q   W 16 + 8 [dd]\n"
    top.options.write_option("blk_classic", b"1\n")
    assert top.read_trace().decode() == (
        "# tracer: blk\n#\n# DEV   CPU TIMESTAMP     PID ACT FLG\n#  |     |     |           |   |   |\n"
        "259,0    1     1.500000000    42  Q   W 16 + 8 [dd]\n")
    # trace_pipe takes the tracer's print_line too
    assert top.consume() == b"259,0    1     1.500000000    42  Q   W 16 + 8 [dd]\n"
    lines(record(QUEUE | (TC_WRITE | TC_FS) << 16, 16, 4096))
    top.options.write_option("blk_classic", b"0\n")
    top.options.write_option("raw", b"1\n")
    assert top.read_trace().decode().endswith("\n42 1 1500000000 type: 13\n")
    top.options.write_option("raw", b"0\n")
    top.options.write_option("bin", b"1\n")
    out = top.read_trace()
    body = out[out.index(b"#\n") + 2:]
    # the context, then blk_trace_synthesize_old_trace(): magic|version, sequence 0, the time
    assert body[:16] == struct.pack("<iiQ", 42, 1, 1_500_000_000)
    assert body[16:32] == struct.pack("<IIQ", 0x65617407, 0, 1_500_000_000)
    assert body[32:] == struct.pack("<QIIIIIHH", 16, 4096, QUEUE | (TC_WRITE | TC_FS) << 16, 42, DEV, 0, 0, 0)
