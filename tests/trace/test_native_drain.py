"""The drain's C loop (tracefs_sim.trace._drain) against the reference page decoder
(tests/rb_page_reference.py) and a model of the keeping loop: the same entries, the same
calls back into Python in the same order, the same PageFormatErrors, and no references
leaked; and its walk on from where an earlier walk of a page still being filled stopped."""

import gc
import random
import struct
import sys
import tracemalloc

import pytest

from tracefs_sim.trace import _drain
from tracefs_sim.trace._drain import PageFormatError
from tracefs_sim.trace.rb_page import PageWriter, event_length
from tests.rb_page_reference import decode_page
from tracefs_sim.trace.records import ENTRY_HEADER
from tracefs_sim.trace.ring_buffer import BUF_PAGE_SIZE, Entry

KEEP, DROP = _drain.KEEP, _drain.DROP
_WORD = struct.Struct("<I")


def walk_entries(page, point=None, from_ns=None):
    """The C drain's entries of a page with every event kept, its short count and walk point."""
    spans, after = _drain.walk(page, point)
    entries, short = _drain.keep(pages=[(page, spans)], plans={}, plan_of=lambda event_type: KEEP, tasks={},
                                 task_of=lambda pid: (b"", 0), special=None, from_ns=from_ns,
                                 save_comm=None, save_tgid=None)
    return entries, short, after


def python_entries(page):
    """The same from the Python decoder, the point being after the page's last event."""
    decoded = decode_page(page)
    entries = [Entry(e.timestamp, bytes(e.payload), event_length(len(e.payload)))
               for e in decoded.events if len(e.payload) >= ENTRY_HEADER.size]
    last = decoded.events[-1].timestamp if decoded.events else decoded.time_stamp
    return entries, len(decoded.events) - len(entries), (decoded.commit, last)


def random_writer_pages(rng: random.Random, count: int) -> list[list[bytes]]:
    """Pages as a PageWriter fills them (snapshots of each), with deltas that fit, extends,
    clocks that went backwards, absolute stamps, clock top bits set, long and short payloads."""
    pages = []
    ts = rng.choice([1000, 1 << 59, (0xF0 << 56) + 12345])
    for _ in range(count):
        writer, snapshots = PageWriter(), []
        while True:
            ts += rng.choice([0, 3, 1 << 27, (1 << 27) - 1, 5 << 30, rng.randrange(1 << 40), -7])
            ts = max(ts, 0)
            size = rng.choice([rng.randrange(0, 12), rng.randrange(8, 112), rng.randrange(112, 400)])
            payload = bytes(rng.randrange(256) for _ in range(size))
            if not writer.append(ts, payload, absolute=rng.random() < 0.1):
                break
            if rng.random() < 0.2:
                snapshots.append(writer.ring_page())
        snapshots.append(writer.ring_page())
        pages.append(snapshots)
    return pages


def test_pages_walked_in_c_give_the_python_walks_entries():
    rng = random.Random(3)
    for snapshots in random_writer_pages(rng, 40):
        # whole, then walked on from each point as the page filled
        assert walk_entries(snapshots[-1]) == python_entries(snapshots[-1])
        assert _drain.walk(snapshots[-1], None) == _drain.walk(bytearray(snapshots[-1]), None)
        point, seen = None, 0
        for page in snapshots:
            # walked on: the events the page gained since the last walk, and where they end
            c_entries, _, point = walk_entries(page, point)
            entries, _, end = python_entries(page)
            assert (c_entries, point) == (entries[seen:], end)
            seen = len(entries)
        assert walk_entries(snapshots[-1], point)[0] == []


def test_a_page_walked_on_as_it_fills_gives_the_events_of_one_walk():
    writer = PageWriter()
    snapshots = []
    ts = 1000
    for i in range(60):
        ts += (3, 1 << 28, 17, 5 << 30)[i % 4]          # deltas that fit 27 bits and extends
        if not writer.append(ts, bytes([i]) * (8 + i % 9 * 4), absolute=i == 30):
            break
        snapshots.append(writer.ring_page())
    walked, point = [], None
    for page in snapshots[::7] + [snapshots[-1]]:       # the drain sees it now and then
        entries, _, point = walk_entries(page, point)
        walked += entries
    whole = python_entries(snapshots[-1])[0]
    assert walked == whole and len(whole) == len(snapshots) > 20
    assert _drain.walk(snapshots[-1], point) == (b"", point)


def test_read_pages_and_the_clock_conversion():
    rng = random.Random(5)
    for snapshots in random_writer_pages(rng, 10):
        writer_page = snapshots[-1]
        read = bytearray(writer_page)   # any buffer will do, not only bytes
        assert walk_entries(read) == python_entries(bytes(read))
        entries, _, _ = walk_entries(writer_page, from_ns=lambda ns: ns * 3 + 1)
        # a stamp is a u64: a conversion past 2^64 wraps as the kernel's arithmetic does
        assert [e.ts for e in entries] == [(e.ts * 3 + 1) % 2**64 for e in python_entries(writer_page)[0]]


def event(type_len: int, delta: int, *array: int) -> bytes:
    return _WORD.pack(type_len | delta << 5) + b"".join(_WORD.pack(word) for word in array)


def data_event(delta: int, payload: bytes) -> bytes:
    """A data event as the writer lays it: type_len words, or type_len 0 with a length word."""
    payload = payload.ljust(-(-len(payload) // 4) * 4, b"\0")
    if len(payload) <= 112:
        return event(len(payload) // 4, delta) + payload
    return event(0, delta, len(payload) + 4) + payload


def crafted(data: bytes, time_stamp: int = 10_000, commit: int | None = None, flags: int = 0) -> bytes:
    commit = len(data) if commit is None else commit
    return struct.pack("<QQ", time_stamp, commit | flags) + data.ljust(BUF_PAGE_SIZE, b"\0")


def header(event_type: int, pid: int) -> bytes:
    return ENTRY_HEADER.pack(event_type, 0, 0, pid)


def test_crafted_pages_with_every_kind_of_event():
    data = b"".join([
        data_event(5, header(1, 10) + b"abcd"),
        event(29, 3, 12) + b"\xff" * 8,                          # a discarded event: padding
        data_event(0, b"xyzw"),                                  # shorter than its header
        event(30, 17, 3),                                        # time extend
        data_event(0, header(2, 10) + bytes(range(200))),        # long (type_len 0)
        event(31, 99, 0x12345),                                  # absolute stamp
        data_event(1, header(3, 11)),
    ])
    for time_stamp in (10_000, (0xF8 << 56) | 42, (1 << 59) + 5):
        page = crafted(data, time_stamp)
        entries, short, after = walk_entries(page)
        assert (entries, short, after) == python_entries(page)
        assert len(entries) == 3 and short == 1 and after[0] == len(data)
    # the tail padding a full page ends with
    tail = data_event(0, header(1, 1)) + event(29, 1, BUF_PAGE_SIZE - 12 - 4)
    page = crafted(tail.ljust(BUF_PAGE_SIZE, b"\0"), commit=BUF_PAGE_SIZE)
    assert walk_entries(page) == python_entries(page)
    # a read page with the missed-events count stored after the data
    page = crafted(data + struct.pack("<Q", 77), commit=len(data), flags=(1 << 30) | (-(1 << 31) & (1 << 64) - 1))
    assert walk_entries(page) == python_entries(page)


@pytest.mark.parametrize("page", [
    b"\0" * 4095,
    crafted(b"", commit=BUF_PAGE_SIZE + 4),
    crafted(b"", commit=BUF_PAGE_SIZE - 4, flags=1 << 30),
    crafted(data_event(0, header(1, 1)), commit=14),             # a header crossing commit
    crafted(event(29, 1, 8) + bytes(8), commit=10),              # padding crossing commit
    crafted(event(30, 1), commit=4),                             # extend without its array word
    crafted(event(29, 0, 8) + bytes(8)),                         # null padding inside commit
    crafted(event(0, 1, 6) + bytes(8)),                          # bad length word
    crafted(event(0, 1, 0) + bytes(8)),
    crafted(event(5, 1) + bytes(8)),                             # an event crossing commit
    crafted(data_event(1, header(1, 1)) * 3 + event(0, 1, 4096)),
], ids=["size", "commit", "missed-count", "header", "padding", "extend", "null-padding", "length",
        "zero-length", "crossing", "crossing-late"])
def test_bad_pages_raise_as_the_python_walk_does(page):
    with pytest.raises(PageFormatError) as python_error:
        decode_page(page)
    with pytest.raises(PageFormatError) as c_error:
        _drain.walk(page, None)
    assert str(c_error.value) == str(python_error.value)


def test_bad_walk_points_are_refused():
    page = crafted(data_event(0, header(1, 1)))
    for point in [(2, 0), (-4, 0), [0, 0], (0,), "x"]:
        with pytest.raises((TypeError, ValueError)):
            _drain.walk(page, point)
    with pytest.raises(TypeError):
        _drain.keep(pages=[(page, b"123")], plans={}, plan_of=None, tasks={}, task_of=None, special=None,
                    from_ns=None, save_comm=None, save_tgid=None)


class Calls:
    """The keeping loop's callbacks, as the Drain's do: plan_of and task_of fill their dicts;
    special filters on a payload byte and learns a new comm from the events of plan ("switch",);
    every call is logged."""

    def __init__(self, plans: dict, tasks: dict):
        self.plans = dict(plans)
        self.tasks = dict(tasks)
        self.log = []
        self.fresh = {}

    def plan_of(self, event_type):
        self.log.append(("plan_of", event_type))
        self.plans[event_type] = plan = self.fresh.get(event_type, KEEP)
        return plan

    def task_of(self, pid):
        self.log.append(("task_of", pid))
        self.tasks[pid] = task = (b"" if pid % 3 == 0 else b"t%d" % pid, pid % 2 * 1000)
        return task

    def special(self, plan, payload, pid, task, ts):
        self.log.append(("special", plan, payload, pid, task, ts))
        if plan == ("switch",):
            self.tasks[pid] = task = (b"sw%d" % payload[9], payload[10])
        return task, payload[8] % 3 != 0

    def from_ns(self, ns):
        self.log.append(("from_ns", ns))
        return ns // 2

    def save_comm(self, pid, comm):
        self.log.append(("save_comm", pid, comm))

    def save_tgid(self, pid, tgid):
        self.log.append(("save_tgid", pid, tgid))

    def arguments(self, pages, *, identity: bool, record_cmd: bool, record_tgid: bool) -> dict:
        return dict(pages=pages, plans=self.plans, plan_of=self.plan_of, tasks=self.tasks, task_of=self.task_of,
                    special=self.special, from_ns=None if identity else self.from_ns,
                    save_comm=self.save_comm if record_cmd else None,
                    save_tgid=self.save_tgid if record_tgid else None)


def model_keep(pages, plans, plan_of, tasks, task_of, special, from_ns, save_comm, save_tgid):
    """The keeping loop as Drain._keep did it in Python, over the pages' decoded events."""
    keep, short = [], 0
    last_pid = task = None
    saved = True
    for data, _ in pages:
        for event in decode_page(data).events:
            ts, payload = event.timestamp, bytes(event.payload)
            if len(payload) < ENTRY_HEADER.size:
                short += 1
                continue
            event_type, _, _, pid = ENTRY_HEADER.unpack_from(payload, 0)
            plan = plans.get(event_type)
            if plan is None:
                plan = plan_of(event_type)
            if plan is DROP:
                continue
            if pid != last_pid:
                task = tasks.get(pid) or task_of(pid)
                last_pid, saved = pid, False
            if plan is not KEEP:
                task, kept = special(plan, payload, pid, task, ts)
                if not kept:
                    continue
            keep.append(Entry(ts if from_ns is None else from_ns(ts), payload, event_length(len(payload))))
            if not saved:
                saved = True
                if save_comm and task[0]:
                    save_comm(pid, task[0])
                if save_tgid and task[1]:
                    save_tgid(pid, task[1])
    return keep, short


def event_pages(rng: random.Random, count: int, types: list[int]) -> list[bytes]:
    """Pages of events of the given types from runs of a few pids, some too short for a header."""
    pages, pid = [], 1
    ts = 5000
    for _ in range(count):
        writer = PageWriter()
        while True:
            if rng.random() < 0.3:
                pid = rng.choice([-1, 0, 1, 2, 3, 6, 7, 70000])
            ts += rng.choice([1, 100, 1 << 28])
            if rng.random() < 0.05:
                payload = bytes(rng.randrange(1, 8))
            else:
                body = bytes(rng.randrange(256) for _ in range(rng.randrange(3, 60)))
                payload = header(rng.choice(types), pid) + body
            if not writer.append(ts, payload):
                break
        pages.append(writer.ring_page())
    return pages


@pytest.mark.parametrize("identity,record_cmd,record_tgid", [(True, True, False), (False, True, True),
                                                             (True, False, True), (False, False, False)])
def test_the_keeping_loop_does_what_the_python_loop_did(identity, record_cmd, record_tgid):
    rng = random.Random(int(identity) * 4 + record_cmd * 2 + record_tgid)
    types = [1, 2, 3, 4, 5, 64 + 1, 300]
    pages = event_pages(rng, 12, types)
    known_plans = {1: KEEP, 2: DROP, 3: ("filter",)}
    fresh = {4: ("switch",), 64 + 1: DROP}   # 65 shares 1's slot in the C plan cache
    known_tasks = {1: (b"one", 1), 2: (b"", 0), 70000: (b"big", 5)}
    c_calls, model_calls = Calls(known_plans, known_tasks), Calls(known_plans, known_tasks)
    c_calls.fresh = model_calls.fresh = fresh
    flags = dict(identity=identity, record_cmd=record_cmd, record_tgid=record_tgid)
    c_pages = [(page, _drain.walk(page, None)[0]) for page in pages]
    c_result = _drain.keep(**c_calls.arguments(c_pages, **flags))
    model_result = model_keep(**model_calls.arguments([(page, None) for page in pages], **flags))
    assert c_result == model_result
    assert c_calls.log == model_calls.log
    assert (c_calls.plans, c_calls.tasks) == (model_calls.plans, model_calls.tasks)
    entries, short = c_result
    assert len(entries) > 500 and short > 0 and all(type(e) is Entry for e in entries)
    assert not any(gc.is_tracked(e) for e in entries)   # no cycle can go through an entry
    kinds = {call[0] for call in c_calls.log}
    assert {"plan_of", "task_of", "special"} <= kinds
    assert ("from_ns" in kinds) != identity and ("save_comm" in kinds) == record_cmd
    assert ("save_tgid" in kinds) == record_tgid


def test_kept_events_of_one_pid_call_no_python_per_event():
    pages = [crafted(b"".join(data_event(1, header(1, 5) + bytes(8)) for _ in range(200)))]
    calls = Calls({1: KEEP}, {5: (b"five", 5)})
    entries, _ = _drain.keep(**calls.arguments([(p, _drain.walk(p, None)[0]) for p in pages], identity=True,
                                               record_cmd=True, record_tgid=True))
    assert len(entries) == 200
    assert calls.log == [("save_comm", 5, b"five"), ("save_tgid", 5, 5)]


def refcounts(objects) -> list[int]:
    return [sys.getrefcount(o) for o in objects]


def test_a_million_events_leak_nothing():
    rng = random.Random(9)
    pages = event_pages(rng, 20, [1, 1, 1, 1, 2, 4])
    pages[-1] = crafted(data_event(1, header(5, 99) + bytes(range(60))) * 50)
    walked = [(page, _drain.walk(page, None)[0]) for page in pages]
    events = sum(len(decode_page(page).events) for page in pages)
    # sched_switch-like events make new tasks, which tracemalloc watches; the tasks of the
    # others are the same objects throughout, whose references are counted
    calls = Calls({1: KEEP, 2: DROP, 4: ("filter",), 5: ("switch",)}, {})
    arguments = calls.arguments(walked, identity=False, record_cmd=True, record_tgid=True)
    watched = [*pages, *(spans for _, spans in walked), KEEP, DROP, calls.plans[4], calls.plans[5]]

    def run(times):
        for _ in range(times):
            _drain.keep(**arguments)
            for page in pages:
                _drain.walk(page, None)
            calls.log.clear()
    run(2)   # fills the caches: tasks, plans, length ints
    watched += [task for pid, task in calls.tasks.items() if pid != 99]
    gc.collect()
    before_refs, before_objects = refcounts(watched), len(gc.get_objects())
    tracemalloc.start()
    try:
        run(1_000_000 // events)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert refcounts(watched) == before_refs
    assert len(gc.get_objects()) - before_objects < 10
    assert grown < 64 * 1024


class Boom(Exception):
    pass


def failing(after: int, good):
    """A callback that does what good does `after` times, then raises."""
    count = [0]

    def call(*args):
        count[0] += 1
        if count[0] > after:
            raise Boom()
        return good(*args)
    return call


@pytest.mark.parametrize("which", ["plan_of", "task_of", "special", "from_ns", "save_comm", "save_tgid",
                                   "bad task", "bad special"])
def test_errors_from_python_propagate_and_leak_nothing(which):
    rng = random.Random(11)
    pages = event_pages(rng, 3, [1, 4])
    walked = [(page, _drain.walk(page, None)[0]) for page in pages]
    calls = Calls({}, {})
    calls.fresh = {4: ("switch",)}
    arguments = calls.arguments(walked, identity=False, record_cmd=True, record_tgid=True)
    if which == "bad task":
        arguments["task_of"] = lambda pid: [b"list", 0]
    elif which == "bad special":
        arguments["special"] = lambda plan, payload, pid, task, ts: task
    watched = [*pages, *(spans for _, spans in walked), KEEP, calls.fresh[4]]

    def run(times):
        for _ in range(times):
            calls.plans.clear()
            calls.tasks.clear()
            if which not in ("bad task", "bad special"):
                # plan_of is asked once per type: of two types, the second fails
                arguments[which] = failing(1 if which == "plan_of" else 3, getattr(calls, which))
            with pytest.raises((Boom, TypeError)):
                _drain.keep(**arguments)
            calls.log.clear()
        gc.collect()
    run(2)
    before_refs, before_objects = refcounts(watched), len(gc.get_objects())
    tracemalloc.start()
    try:
        run(500)
        grown = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert refcounts(watched) == before_refs
    assert len(gc.get_objects()) - before_objects < 10
    assert grown < 8 * 1024, grown
