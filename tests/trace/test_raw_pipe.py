"""per_cpu/cpuN/trace_pipe_raw: records taken off a CPU buffer as Linux read pages
(tracing_buffers_read / ring_buffer_read_page)."""

import pytest
from fakes import FakeMachine, FakeTask, SWITCH

from tracefs_sim.trace.raw_pipe import RawPageReader
from tests.rb_page_reference import decode_page
from tracefs_sim.trace.records import ENTRY_HEADER
from tracefs_sim.trace.core import TraceCore



@pytest.fixture
def sim():
    machine = FakeMachine(clock_ns=2_274_249_000)
    machine.live_tasks = [FakeTask(108, 108, "sleep")]
    system = TraceCore(machine, ftrace_sites=None, kprobe_engine=None)
    system.top.events.write_enable(b"1\n", "sched", "sched_switch")
    desc = system.registry.get("sched", "sched_switch").desc

    def switches(cpu, stamps):
        for ts in stamps:
            machine.tracing.emit(cpu, desc, ts, SWITCH, pid=108, flags=0x1, preempt=2)
        system.drain.drain_once()

    return system, switches


def test_empty_buffer_gives_none(sim):
    system, _ = sim
    assert RawPageReader(system.top, 0).read(4096) is None


def test_a_page_read_takes_every_record_and_decodes(sim):
    system, switches = sim
    stamps = [1_000_000, 1_000_500, 3_000_000_000]   # the last delta needs a TIME_EXTEND
    switches(1, stamps)
    reader = RawPageReader(system.top, 1)
    page = reader.read(4096)
    assert len(page) == 4096
    decoded = decode_page(page)
    assert [e.timestamp for e in decoded.events] == stamps
    assert not decoded.missed_events
    kept = [e.payload for e in system.top.buffer.cpu(1)]
    assert kept == []
    event_id = system.registry.get("sched", "sched_switch").id
    assert {ENTRY_HEADER.unpack_from(e.payload, 0)[0] for e in decoded.events} == {event_id}
    stats = system.top.read_stats(1).decode()
    assert "entries: 0\n" in stats and "read events: 3\n" in stats
    assert reader.read(4096) is None
    assert RawPageReader(system.top, 0).read(4096) is None


def test_a_short_read_takes_the_events_that_fit_and_serves_the_rest_of_the_page(sim):
    system, switches = sim
    switches(0, [10, 20, 30])
    reader = RawPageReader(system.top, 0)
    first = reader.read(100)                # 84 data bytes: one 68-byte event
    assert len(first) == 100
    assert system.top.buffer.cpu(0).entries == 2
    rest = reader.read(8192)                # the rest of that page, nothing new taken
    assert len(rest) == 3996
    decoded = decode_page(first + rest)
    assert [e.timestamp for e in decoded.events] == [10]
    assert system.top.buffer.cpu(0).entries == 2
    assert reader.read(16) == b""           # no room for a page header: nothing taken
    assert system.top.buffer.cpu(0).entries == 2
    assert [e.timestamp for e in decode_page(reader.read(4096)).events] == [20, 30]


@pytest.mark.parametrize("count", [4096, 100])
def test_lost_records_are_flagged_with_their_count_when_it_fits(sim, count):
    system, switches = sim
    system.top.write_buffer_size_kb(b"1\n")    # two pages a CPU: overwrite drops the oldest page
    per_page = 4080 // 68
    switches(0, range(1, 3 * per_page + 1))
    lost = system.top.buffer.cpu(0).overrun
    assert lost == per_page
    reader = RawPageReader(system.top, 0)
    page = decode_page(reader.read(count) + reader.read(4096 - count))
    assert page.missed_events
    # A full page has no 8 bytes left for the count: only the flag (RB_MISSED_STORED unset).
    assert page.missed_count == (None if count == 4096 else lost)
    assert len(page.events) == (per_page if count == 4096 else 1)
    page = decode_page(reader.read(4096))
    assert not page.missed_events
