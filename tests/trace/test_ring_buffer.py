import pytest

from tracefs_sim.trace.ring_buffer import BUF_PAGE_SIZE, CpuBuffer, Entry, RingBuffer, WaitQueue, pages_for


def test_page_rounding():
    assert BUF_PAGE_SIZE == 4080
    assert pages_for(1) == 2
    assert pages_for(1441792) == 354
    assert pages_for(4080 * 3) == 3 and pages_for(4080 * 3 + 1) == 4


def test_resize_one_cpu_or_all():
    rb = RingBuffer(3, 1, lambda: 0)
    assert [rb.size(c) for c in range(3)] == [8160] * 3
    rb.resize(100 << 10, 1)
    assert [rb.size(c) for c in range(3)] == [8160, 106080, 8160]
    rb.resize(8 << 10)
    assert {rb.size(c) for c in range(3)} == {12240}


def test_reset_clears_counters():
    rb = RingBuffer(2, 1, lambda: 0)
    cpu = rb.cpu(1)
    cpu.entries, cpu.overrun, cpu.read_events = 3, 1, 2
    assert not rb.is_empty() and rb.is_empty(0) and not rb.is_empty(1)
    rb.reset(0)
    assert cpu.entries == 3
    rb.reset()
    assert rb.is_empty() and (cpu.overrun, cpu.read_events) == (0, 0)


def test_time_stamp_follows_the_clock_set():
    rb = RingBuffer(1, 1, lambda: 5)
    assert rb.time_stamp() == 5
    rb.clock = lambda: 9
    assert rb.time_stamp() == 9


def test_wait_queue_wakes_each_waiter_once():
    queue = WaitQueue()
    calls = []
    a, b = (lambda: calls.append("a")), (lambda: calls.append("b"))
    queue.add(a)
    queue.add(b)
    queue.wake()
    queue.remove(a)
    queue.remove(a)
    queue.wake()
    assert sorted(calls) == ["a", "b", "b"]


@pytest.mark.parametrize("overwrite", [True, False])
def test_writing_a_batch_is_writing_its_records_one_by_one(overwrite):
    lengths = [(i * 37) % 300 + 8 for i in range(400)]          # ~60 KB into 4 pages
    entries = [Entry(ts, b"x" * (n - 4), n) for ts, n in enumerate(lengths)]
    batch, single = CpuBuffer(0, 4), CpuBuffer(0, 4)
    for start in (0, 5, 200):                                   # into a buffer already holding some
        end = {0: 5, 5: 200, 200: 400}[start]
        assert batch.write(entries[start:end], overwrite) == sum(single.write([e], overwrite)
                                                                 for e in entries[start:end])
    state = lambda b: (b.entries, b.overrun, b.bytes, b.dropped_events, b.tail_used,
                       [[e.ts for e in page] for page in b.pages])
    assert state(batch) == state(single)
    assert (batch.overrun > 0) == overwrite and (batch.dropped_events > 0) != overwrite
    assert batch.entries + batch.overrun + batch.dropped_events == 400
    assert len(batch.pages) == 4 and all(sum(e.length for e in page) <= BUF_PAGE_SIZE for page in batch.pages)
    assert batch.bytes == sum(e.length for page in batch.pages for e in page)
    kept = [e.ts for page in batch.pages for e in page]
    assert kept == (list(range(400 - len(kept), 400)) if overwrite else list(range(len(kept))))
