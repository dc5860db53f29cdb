"""The C merge and default line of trace / trace_pipe (tracefs_sim.trace._lines) against the
Python they replace: the merge of _merge_items (key = the CPU's latest stamp so far, ties to the
lower CPU, a CPU's records in order) with consume()'s look-ahead window, and the Python
default_line printer, on random records of several events, ns and counter clocks, irq-info and
record-tgid, with LOST lines and max_bytes cut-offs."""

import gc
import itertools
import random
import struct
import tracemalloc

import pytest
from fakes import FakeMachine, FakeOptions, encode_record

from tracefs_sim.trace import _lines, headers
from tracefs_sim.trace.events import TRACE_PRINT
from tracefs_sim.trace.ring_buffer import Entry
from tracefs_sim.trace.core import TraceCore
from tracefs_sim.trace.trace_array import _MIN_LINE
from tracefs_sim.trace.trace_output import _TEXTS_BUDGET, _prefix_key

NR_CPUS = 3
UNKNOWN_TYPE = 4000
TASKS = {0: b"swapper/0", 1: b"systemd", 108: b"sleep", 4242: b"a-rather-long-command-name", 77: b"redis-server"}


@pytest.fixture
def system():
    return TraceCore(FakeMachine(FakeOptions(cpus=NR_CPUS), clock_ns=5_000_000_000), ftrace_sites=None,
                     kprobe_engine=None)


def _payloads(system, rng: random.Random, pid: int, flags: int, preempt: int) -> bytes:
    """A record of one of several events (or of an unregistered type) from pid."""
    kind = rng.randrange(6)
    header = dict(pid=pid, flags=flags, preempt=preempt)
    if kind == 0:
        event = system.registry.get("sched", "sched_switch")
        return encode_record(event.desc, event.id, dict(
            prev_comm=TASKS[pid].decode()[:15], prev_pid=pid, prev_prio=120, prev_state=rng.choice((0, 1, 2)),
            next_comm="swapper/1", next_pid=0, next_prio=120), **header)
    if kind == 1:
        event = system.registry.get("sched", "sched_wakeup")
        return encode_record(event.desc, event.id, dict(comm="sleep", pid=108, prio=120, target_cpu=rng.randrange(3)),
                             **header)
    if kind == 2:
        event = system.registry.get("raw_syscalls", "sys_enter")
        return encode_record(event.desc, event.id, dict(id=rng.choice((0, 1, 102, 232)),
                                                        args=[rng.randrange(4) for _ in range(6)]), **header)
    if kind == 3:
        event = system.registry.get("raw_syscalls", "sys_exit")
        return encode_record(event.desc, event.id, dict(id=102, ret=rng.choice((0, 1, -11))), **header)
    if kind == 4:   # a trace_marker write
        text = b"marker %d\n" % rng.randrange(5)
        return struct.pack("<HBBiQ", TRACE_PRINT, flags, preempt, pid, 0) + text + b"\0" * 3
    return struct.pack("<HBBi", UNKNOWN_TYPE, flags, preempt, pid) + bytes(8)


def _fill(system, ta, rng: random.Random, count: int, start: int = 1_000_000_000) -> None:
    """count random records over the CPUs, stamped by one clock: records of different CPUs
    often share a stamp, and a record sometimes steps back (as a marker kept at once among
    guest records the drain brings later)."""
    now = start
    for _ in range(count):
        cpu = rng.randrange(NR_CPUS)
        now += rng.choice((0, 0, 1, 499, 500, 501, 1000, 250_000))
        ts = now - (rng.randrange(2_000_000) if rng.random() < 0.1 else 0)
        pid = rng.choice(list(TASKS))
        payload = _payloads(system, rng, pid, rng.choice((0, 1, 0x9, 0x81, 0x4d)), rng.choice((0, 1, 0x12, 0x3)))
        ta.add_records(cpu, [(ts, payload)])


def _save_tasks(system) -> None:
    for pid, comm in TASKS.items():
        system.cmdlines.save(pid, comm)
        system.cmdlines.save_tgid(pid, pid if pid != 108 else 100)


def _expected_read(ta, cpus, max_bytes: int, line) -> bytes:
    """What one trace_pipe read held before the C merge (the reference model), consuming
    nothing."""
    window = max_bytes // _MIN_LINE + 1
    merged = []
    for c in cpus:
        entries = list(itertools.islice(ta.buffer.cpu(c), window + 1))
        keys = itertools.accumulate([e.ts for e in entries], max)
        merged += [(key, c, position, e) for position, (key, e) in enumerate(zip(keys, entries))]
    merged.sort()
    lost = {c: b.overrun - b.reported_overrun for c in cpus
            if (b := ta.buffer.cpu(c)).overrun != b.reported_overrun}
    out, size, idx = [], 0, ta._pipe_idx
    for i, (_, c, position, entry) in enumerate(merged):
        if position == window:
            break
        text = line(c, entry, merged[i + 1][3].ts if i + 1 < len(merged) else entry.ts, idx)
        if c in lost:
            text = b"CPU:%d [LOST %d EVENTS]\n" % (c, lost.pop(c)) + text
        size += len(text)
        if size > max_bytes and out:
            break
        out.append(text)
        idx += 1
    return b"".join(out)


def _python_printer(ta):
    """The Python line printer of the options as they are (the C default line's miss printer)."""
    line = ta.output.line_printer(ta.clock.in_ns, ta.time_start)
    return line.miss if isinstance(line, _lines.DefaultLine) else line


def _set_options(ta, clock: str, irq_info: bool, record_tgid: bool, latency: bool = False,
                 context_info: bool = True) -> None:
    ta.write_trace_clock(clock.encode())
    ta.options.set("context-info", context_info)
    ta.options.set("irq-info", irq_info)
    ta.options.set("record-tgid", record_tgid)
    ta.options.set("latency-format", latency)


@pytest.mark.parametrize("clock", ["local", "counter"])
@pytest.mark.parametrize("irq_info,record_tgid,context_info", [(True, False, True), (False, False, True),
                                                               (True, True, True),
                                                               # lines shorter than _MIN_LINE: reads
                                                               # end at a CPU's look-ahead
                                                               (True, False, False)])
@pytest.mark.parametrize("max_bytes", [1, 300, 4096, 128 * 1024])
@pytest.mark.parametrize("cpu", [None, 1])
def test_trace_pipe_reads_match_the_python_merge_and_lines(system, clock, irq_info, record_tgid, context_info,
                                                           max_bytes, cpu):
    ta = system.top
    rng = random.Random(f"{clock}{irq_info}{record_tgid}{context_info}{max_bytes}{cpu}")
    _save_tasks(system)
    _set_options(ta, clock, irq_info, record_tgid, context_info=context_info)
    ta.write_buffer_size_kb(b"8")      # two pages a CPU: overwrites lose records
    cpus = range(NR_CPUS) if cpu is None else (cpu,)
    reads = lost_lines = 0
    for _ in range(6):
        _fill(system, ta, rng, 1200, start=rng.randrange(1 << 40))
        for _ in range(rng.randrange(1, 4)):
            expected = _expected_read(ta, cpus, max_bytes, _python_printer(ta))
            got = ta.consume(cpu, max_bytes)
            assert got == expected
            reads += 1
            lost_lines += got.count(b"[LOST ")
            if not got:
                break
    while expected := _expected_read(ta, cpus, max_bytes, _python_printer(ta)):
        assert ta.consume(cpu, max_bytes) == expected
        reads += 1
        lost_lines += expected.count(b"[LOST ")
    assert ta.consume(cpu, max_bytes) == b""
    assert all(ta.buffer.cpu(c).entries == 0 for c in cpus)
    assert lost_lines and reads > 6


@pytest.mark.parametrize("clock", ["local", "counter"])
@pytest.mark.parametrize("irq_info,record_tgid,latency", [(True, False, False), (False, True, False),
                                                          (True, False, True)])
@pytest.mark.parametrize("cpu", [None, 2])
def test_trace_matches_the_python_merge_and_lines(system, clock, irq_info, record_tgid, latency, cpu):
    ta = system.top
    rng = random.Random(f"{clock}{irq_info}{record_tgid}{latency}{cpu}")
    _save_tasks(system)
    _set_options(ta, clock, irq_info, record_tgid, latency)
    ta.write_buffer_size_kb(b"1024")
    _fill(system, ta, rng, 3000)
    cpus = range(NR_CPUS) if cpu is None else (cpu,)
    entries = sum(b.entries for b in ta.buffer)
    header = headers.trace_header("nop", entries, entries + sum(b.overrun for b in ta.buffer), NR_CPUS,
                                 ta.output_flags, ta.kernel).encode()
    line = _python_printer(ta)
    merged = sorted((key, c, position, e) for c in cpus for position, (key, e) in enumerate(zip(
        itertools.accumulate((e.ts for e in ta.buffer.cpu(c)), max), ta.buffer.cpu(c))))
    body = b"".join(line(c, e, merged[i + 1][3].ts if i + 1 < len(merged) else e.ts, i)
                    for i, (_, c, _, e) in enumerate(merged))
    assert ta.read_trace(cpu) == header + body
    assert body.count(b"\n") == sum(ta.buffer.cpu(c).entries for c in cpus) > 500


def test_default_line_formats_cached_records_without_python(system):
    ta = system.top
    _save_tasks(system)
    rng = random.Random(7)
    _fill(system, ta, rng, 2000)
    line = ta.output.line_printer(ta.clock.in_ns, ta.time_start)
    assert isinstance(line, _lines.DefaultLine)
    entries = [(c, e) for c in range(NR_CPUS) for e in ta.buffer.cpu(c)]
    expected = [line.miss(c, e, e.ts, 0) for c, e in entries]   # fills the caches
    misses = []

    def counted_miss(*args):
        misses.append(args)
        return line.miss(*args)

    prefixes, texts = ta.output._prefixes[1], ta.output._texts[1]
    cached = _lines.DefaultLine(prefixes, texts, True, counted_miss)
    assert [cached(c, e, e.ts, 0) for c, e in entries] == expected
    # only the unregistered type, which has no cached text, needs Python
    unknown = sum(struct.unpack_from("<H", e.payload)[0] == UNKNOWN_TYPE for _, e in entries)
    assert len(misses) == unknown > 0
    sources = [(c, ta.buffer.cpu(c).pages) for c in range(NR_CPUS)]
    misses.clear()
    text = _lines.trace_text(b"head\n", sources, cached, len(entries))
    assert len(misses) == unknown and text.startswith(b"head\n") and text.count(b"\n") == len(entries) + 1
    # annotate: each CPU's first line is marked, but where it is the text's first or second,
    # and the default line still makes every record's text without Python
    misses.clear()
    annotated = _lines.trace_text(b"head\n", sources, cached, len(entries), True)
    assert len(misses) == unknown
    lines = annotated.decode().splitlines()[1:]
    marks = [i for i, l in enumerate(lines) if l.startswith("#####")]
    firsts = [i - n for n, i in enumerate(marks)]   # where each marked CPU's line is, unmarked
    assert [l for l in lines if not l.startswith("#####")] == text.decode().splitlines()[1:]
    assert len(marks) == NR_CPUS - 1 and all(f > 1 for f in firsts)
    assert {lines[i] for i in marks} <= {f"##### CPU {c} buffer started ####" for c in range(NR_CPUS)}


@pytest.mark.parametrize("ts,in_ns,stamp", [
    (0, True, b"    0.000000"), (499, True, b"    0.000000"), (500, True, b"    0.000001"),
    (999_999_499, True, b"    0.999999"), (999_999_500, True, b"    1.000000"),
    (123_456_789_999_999, True, b"123456.790000"), ((1 << 64) - 1, True, b"18446744073.709552"),
    (0, False, b"           0"), (42, False, b"          42"), (1234567890123456, False, b"1234567890123456"),
])
def test_stamps_as_trace_print_time(system, ts, in_ns, stamp):
    prefix = b"           sleep-108     [001] d..2."
    key = _prefix_key(108, 1, 1, 2)
    payload = struct.pack("<HBBi", 300, 1, 2, 108) + b"xyz"

    def miss(*args):
        raise AssertionError(f"a cached record went to Python: {args}")
    line = _lines.DefaultLine({key: prefix}, {300: (None, {b"xyz": b"text\n"})}, in_ns, miss)
    assert line(1, Entry(ts, payload, 16), ts, 0) == prefix + b" " + stamp + b": text\n"


def test_a_failing_printer_takes_nothing_and_leaks_nothing(system):
    ta = system.top
    _save_tasks(system)
    _fill(system, ta, random.Random(3), 500)
    before = [b.entries for b in ta.buffer]

    def fail(*args):
        raise RuntimeError("printer failed")
    sources = [(c, ta.buffer.cpu(c).pages) for c in range(NR_CPUS)]
    line = _lines.DefaultLine({}, {}, True, fail)

    def attempts(count: int) -> int:
        failed = 0
        for _ in range(count):
            for call in (lambda: _lines.pipe_text(sources, line, 0, 100, 4096, [5] * NR_CPUS),
                         lambda: _lines.trace_text(b"", sources, line, 500)):
                try:
                    call()
                except RuntimeError:
                    failed += 1
        return failed

    attempts(3)   # warm up
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        assert attempts(1000) == 2000
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert grown < 4096
    ta.output.line_printer = lambda in_ns, time_start: line
    with pytest.raises(RuntimeError):
        ta.consume(None, 4096)
    assert [b.entries for b in ta.buffer] == before and ta._pipe_idx == 0
    with pytest.raises(TypeError):
        _lines.pipe_text([(0, [[("not an entry",)]])], line, 0, 10, 100, None)
    with pytest.raises(TypeError):   # the fields of a record, but not an Entry
        _lines.pipe_text([(0, [[(1, struct.pack("<HBBi", 300, 1, 2, 108), 16)]])], line, 0, 10, 100, None)
    with pytest.raises(TypeError):
        _lines.trace_text(b"", [(0, [(1, 2)])], line, 1)   # a page that is no list
    with pytest.raises(ValueError):
        _lines.pipe_text(sources, line, 0, 10, 100, [0])
    with pytest.raises(TypeError):
        _lines.trace_text(b"", sources, _lines.DefaultLine.__new__(_lines.DefaultLine), 1)   # never initialised
    with pytest.raises(TypeError):
        _lines.pipe_text(sources, None, 0, 10, 100, None)


def test_many_reads_leave_memory_and_objects_flat(system):
    ta = system.top
    _save_tasks(system)
    rng = random.Random(11)
    # the same records again and again (new stamps): the caches stop growing after the first
    records = [(rng.randrange(NR_CPUS), _payloads(system, rng, rng.choice(list(TASKS)), 1, 2)) for _ in range(60)]

    def rounds(count: int) -> None:
        for n in range(count):
            for i, (cpu, payload) in enumerate(records):
                ta.add_records(cpu, [(n * 1000 + i, payload)])
            while ta.consume(None, 1000):
                pass
            ta.read_trace()

    rounds(20)   # caches filled
    gc.collect()
    objects = len(gc.get_objects())
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        rounds(200)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024
    assert len(gc.get_objects()) - objects < 100


def test_texts_that_never_repeat_hold_at_most_the_cache_budget(system):
    """trace_marker lines are unique and long: the event-text cache must not keep them past
    its byte budget, however many are read (a soak's markers once held ~3 MB an array)."""
    ta = system.top
    _save_tasks(system)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for n in range(4000):   # ~2.2 MB of distinct texts, over twice the budget
            text = b"soak marker %d %s\n" % (n, b"x" * 200)
            ta.add_records(0, [(n, struct.pack("<HBBiQ", TRACE_PRINT, 0, 0, 108, 0) + text + b"\0" * 3)])
            while ta.consume(None, 1000):
                pass
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    held = sum(len(k) + len(v) for _, texts in ta.output._texts[1].values() for k, v in texts.items())
    assert 0 < held <= _TEXTS_BUDGET
    assert grown < 1.5 * _TEXTS_BUDGET


def test_reading_trace_takes_about_the_memory_of_its_text(system):
    ta = system.top
    _save_tasks(system)
    ta.write_buffer_size_kb(b"2048")
    _fill(system, ta, random.Random(5), 20000)
    ta.read_trace()   # caches filled
    gc.collect()
    tracemalloc.start()
    try:
        text = ta.read_trace()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(text) > 1_000_000
    assert peak < 1.5 * len(text)
