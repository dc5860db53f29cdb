"""`echo 0 > tracing_on` ends trace_pipe readers that have read something once they find
their buffer empty: what the guest recorded before tracing went off must be in the buffer
by then (in Linux the writer puts each record in the buffer itself), or a reader ends with
records left behind, as tests/integration's trace_pipe_stream once did."""

import pytest
from fakes import FakeMachine, FakeTask, SWITCH

from tracefs_sim.trace.core import TraceCore



@pytest.fixture
def system():
    machine = FakeMachine(clock_ns=2_000_000_000)
    machine.live_tasks = [FakeTask(108, 108, "sleep")]
    return TraceCore(machine, ftrace_sites=None, kprobe_engine=None)


def switch(system, ta, cpu: int, ts: int) -> None:
    system.guest.emit(cpu, system.registry.get("sched", "sched_switch").desc, ts, SWITCH, pid=108)


def reader_ends(ta) -> bool:
    """What a trace_pipe reader that has read before decides, in one step: its read finds
    nothing and tracing is off (fs/operations.py's _read_pipe)."""
    return ta.consume() == b"" and not ta.tracing_on


@pytest.mark.parametrize("instance", [False, True])
def test_records_made_before_tracing_off_are_read_before_readers_end(system, instance):
    ta = system.instances.create("foo") if instance else system.top
    ta.events.write_enable(b"1", "sched", "sched_switch")
    switch(system, ta, 0, 1_000_000_000)
    system.drain.drain_once()
    assert ta.consume().count(b"\n") == 1
    # The reader caught up and found nothing; then the guest records (its pages not yet
    # drained) and tracing goes off.
    assert reader_ends(ta) is False
    switch(system, ta, 0, 1_100_000_000)
    switch(system, ta, 1, 1_200_000_000)
    ta.write_tracing_on(b"0")
    assert [b.entries for b in ta.buffer] == [1, 1]
    assert not reader_ends(ta)                      # it reads them first
    assert reader_ends(ta) and ta.buffer.is_empty()


def test_free_buffer_with_disable_on_free_catches_up_too(system):
    ta = system.top
    ta.options.set("disable_on_free", True)
    ta.events.write_enable(b"1", "sched", "sched_switch")
    switch(system, ta, 1, 1_000_000_000)
    ta.release_free_buffer()
    assert not ta.tracing_on and ta.buffer.cpu(1).entries == 1
