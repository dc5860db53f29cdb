"""tracing_cpumask: bitmap_parse()'s answers as a 2-CPU Linux 6.1 gave them, and the file."""
import errno

import pytest

from fakes import FakeMachine
from tracefs_sim.trace.cpumask import format_cpumask, parse_cpumask
from tracefs_sim.trace.core import TraceCore


# What a 2-CPU Linux 6.1 answered (nr_cpu_ids 2), and wider masks by the same rules.
@pytest.mark.parametrize("text, nbits, mask", [
    (b"3\n", 2, 3), (b"1\n", 2, 1), (b"0\n", 2, 0), (b"\n", 2, 0), (b" 3", 2, 3), (b"3 ", 2, 3),
    (b"00000003", 2, 3), (b"3,", 2, 3), (b",3", 2, 3), (b"1,", 2, 1), (b"03", 2, 3), (b"3\n\n", 2, 3),
    (b"2\nzz", 2, 2), (b"ff", 8, 0xFF),
])
def test_parse_accepts_as_linux(text, nbits, mask):
    assert parse_cpumask(text, nbits) == mask


@pytest.mark.parametrize("text, nbits, err", [
    (b"4\n", 2, errno.EOVERFLOW), (b"ffffffff\n", 2, errno.EOVERFLOW), (b"1,0\n", 2, errno.EOVERFLOW),
    (b"0,3", 2, errno.EOVERFLOW), (b"00000000,00000003", 2, errno.EOVERFLOW), (b"1 2", 2, errno.EOVERFLOW),
    (b"zz\n", 2, errno.EINVAL), (b"0x3", 2, errno.EINVAL), (b"-1", 2, errno.EINVAL), (b"x", 2, errno.EINVAL),
    (b"123456789", 8, errno.EOVERFLOW), (b"1ff", 8, errno.EOVERFLOW),
])
def test_parse_refuses_as_linux(text, nbits, err):
    with pytest.raises(OSError) as e:
        parse_cpumask(text, nbits)
    assert e.value.errno == err


@pytest.mark.parametrize("mask, nbits, text", [(3, 2, b"3\n"), (1, 2, b"1\n"), (0, 2, b"0\n"),
                                               (0x0F, 8, b"0f\n"), (1, 33, b"0,00000001\n")])
def test_format_pads_the_first_chunk_to_its_bits(mask, nbits, text):
    assert format_cpumask(mask, nbits) == text


def test_the_file_reaches_the_guest_and_bad_input_changes_nothing():
    machine = FakeMachine()
    ta = TraceCore(machine, ftrace_sites=None, kprobe_engine=None).top
    assert ta.read_tracing_cpumask() == b"3\n"
    ta.write_tracing_cpumask(b"2\n")
    assert ta.read_tracing_cpumask() == b"2\n" and machine.tracing.cpumasks[0] == 2
    with pytest.raises(OSError) as e:
        ta.write_tracing_cpumask(b"4\n")
    assert e.value.errno == errno.EOVERFLOW
    assert ta.read_tracing_cpumask() == b"2\n" and machine.tracing.cpumasks[0] == 2
