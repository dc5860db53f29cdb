from tracefs_sim.trace.ring_buffer import BUF_PAGE_SIZE, RingBuffer, WaitQueue, pages_for


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
