"""The ring-buffer page codec against pages captured from Linux 6.1, and its layout rules."""

import re
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracefs_sim.trace._drain import PageFormatError
from tracefs_sim.trace.rb_page import BUF_MAX_DATA_SIZE, RB_MISSED_EVENTS, RB_MISSED_STORED, PageWriter, event_length
from tests.rb_page_reference import DecodedPage, Stamp, data_end, decode_page
from tracefs_sim.trace.ring_buffer import BUF_PAGE_HDR_SIZE, BUF_PAGE_SIZE, PAGE_SIZE

DATA = Path(__file__).resolve().parent.parent / "data" / "linux-6.1-raw-pages.txt"
LINE = re.compile(
    r"^\s*(?P<comm>.*)-(?P<pid>\d+)\s+\[(?P<cpu>\d{3})\]\s+(?P<flags>\S{5})\s+"
    r"(?P<secs>\d+)\.(?P<usecs>\d{6}): (?P<rest>.*)$"
)


def _sections() -> dict[str, str]:
    parts = re.split(r"^=== (.*)$", DATA.read_text(), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


SECTIONS = _sections()
CAPTURES = [name.removeprefix("raw ") for name in SECTIONS if name.startswith("raw ")]
EVENT_IDS = dict(line.split() for line in SECTIONS["ids"].strip().splitlines())


def _pages(capture: str) -> list[bytes]:
    raw = bytes(int(byte, 16) for line in SECTIONS[f"raw {capture}"].splitlines() for byte in line.split())
    assert raw and len(raw) % PAGE_SIZE == 0
    return [raw[i : i + PAGE_SIZE] for i in range(0, len(raw), PAGE_SIZE)]


def _trace_lines(capture: str) -> list[re.Match]:
    lines = [line for line in SECTIONS[f"trace {capture}"].splitlines() if line and not line.startswith("#")]
    matches = [LINE.match(line) for line in lines]
    assert all(matches), [line for line, m in zip(lines, matches) if not m]
    return matches


def _expected_type(rest: str) -> int:
    name = rest.split(":", 1)[0] if re.match(r"^\w+: ", rest) else None
    by_name = {"sched_switch": "sched/sched_switch", "sys_enter": "raw_syscalls/sys_enter",
               "tracing_mark_write": "ftrace/print"}
    return int(EVENT_IDS[by_name[name] if name else "ftrace/function"])


def _stat(capture: str, key: str) -> int:
    return int(re.search(rf"^{key}: (\d+)$", SECTIONS[f"stats {capture}"], flags=re.M).group(1))


def test_capture_covers_the_interesting_layouts():
    decoded = [decode_page(page) for capture in CAPTURES for page in _pages(capture)]
    events = [e for page in decoded for e in page.events]
    assert len(CAPTURES) == 3
    assert any(e.stamp is Stamp.EXTEND for e in events)
    payload_sizes = {len(e.payload) for e in events}
    assert max(payload_sizes) > 112 and min(payload_sizes) <= 112  # both length encodings
    assert any(page.missed_events for page in decoded)


@pytest.mark.parametrize("capture", CAPTURES)
def test_captured_events_match_the_trace_text(capture):
    events = [e for page in _pages(capture) for e in decode_page(page).events]
    lines = _trace_lines(capture)
    assert len(events) == len(lines) == _stat(capture, "entries")
    for event, line in zip(events, lines):
        common_type, flags, preempt, pid = struct.unpack_from("<HBBi", event.payload)
        assert common_type == _expected_type(line["rest"]), line.group(0)
        assert pid == int(line["pid"])
        # ns2usecs() rounds to the nearest microsecond.
        assert (event.timestamp + 500) // 1000 == int(line["secs"]) * 1_000_000 + int(line["usecs"])
        assert (line["flags"][0] == "d") == bool(flags & 0x01)  # TRACE_FLAG_IRQS_OFF
        assert line["flags"][3] == (f"{preempt & 0xF:x}" if preempt & 0xF else ".")
        if common_type == int(EVENT_IDS["ftrace/print"]):
            text = bytes(event.payload[16:]).split(b"\0", 1)[0].decode()
            assert text == line["rest"].removeprefix("tracing_mark_write: ") + "\n"


def test_missed_events_count_is_the_overrun():
    pages = _pages("instances/lost cpu0")
    first = decode_page(pages[0])
    assert first.missed_events and first.missed_count == _stat("instances/lost cpu0", "overrun") > 0
    # Linux adds RB_MISSED_EVENTS as a C int (INT_MIN): the flag is sign-extended.
    commit_word = struct.unpack_from("<Q", pages[0], 8)[0]
    assert commit_word >> 30 == (1 << 34) - 1 and commit_word & 0x3FFFFFFF == first.commit
    assert not any(decode_page(page).missed_events for page in pages[1:])


@pytest.mark.parametrize("capture", CAPTURES)
def test_writer_reproduces_the_captured_pages(capture):
    """Streaming every decoded event through PageWriters gives Linux's pages byte for byte:
    the same page breaks, time stamps, event headers, commit and missed-events words."""
    pages = _pages(capture)
    decoded = [decode_page(page) for page in pages]
    written: list[PageWriter] = [PageWriter()]
    for page in decoded:
        for event in page.events:
            if not written[-1].append(event.timestamp, event.payload, absolute=event.stamp is Stamp.ABSOLUTE):
                written.append(PageWriter())
                assert written[-1].append(event.timestamp, event.payload)
    missed = [page.missed_count or 0 for page in decoded]
    assert [w.read_page(missed_events=m) for w, m in zip(written, missed)] == pages
    assert len(written) == len(pages)


# --- layout rules -------------------------------------------------------------------------


def _header(page: bytes, offset: int) -> tuple[int, int]:
    word = struct.unpack_from("<I", page, BUF_PAGE_HDR_SIZE + offset)[0]
    return word & 0x1F, word >> 5


def _array0(page: bytes, offset: int) -> int:
    return struct.unpack_from("<I", page, BUF_PAGE_HDR_SIZE + offset + 4)[0]


@pytest.mark.parametrize(
    "size,length",
    [(0, 8), (1, 8), (4, 8), (5, 16), (8, 16), (12, 16), (13, 20), (109, 116), (112, 116),
     (113, 124), (116, 124), (117, 128), (BUF_MAX_DATA_SIZE, BUF_PAGE_SIZE)],
)
def test_event_length(size, length):
    assert event_length(size) == length


def test_small_and_large_encodings():
    w = PageWriter()
    assert w.append(1000, b"\x01\x02\x03\x04\x05")  # 5 bytes: never a 12-byte event
    assert w.append(1010, b"a" * 112)
    assert w.append(1030, b"b" * 113)
    page = w.ring_page()
    assert _header(page, 0) == (3, 0)
    assert _header(page, 16) == (28, 10)
    assert _header(page, 132) == (0, 20) and _array0(page, 132) == 120
    assert w.commit == 132 + 124
    events = decode_page(page).events
    assert [e.timestamp for e in events] == [1000, 1010, 1030]
    assert [bytes(e.payload) for e in events] == [
        b"\x01\x02\x03\x04\x05" + bytes(7),  # the 16-byte event's 12-byte slot
        b"a" * 112,
        b"b" * 113 + bytes(3),
    ]
    assert [e.offset for e in events] == [0, 16, 132]


def test_first_event_sets_the_page_time_stamp():
    w = PageWriter()
    assert w.time_stamp is None
    assert w.append(123_456_789_012, b"x" * 8, absolute=True)  # no stamp event at page start
    assert w.time_stamp == 123_456_789_012 and _header(w.ring_page(), 0) == (3, 0)
    assert decode_page(w.ring_page()).time_stamp == 123_456_789_012


def test_time_extend_when_the_delta_needs_more_than_27_bits():
    w = PageWriter()
    base = 5_000_000_000
    assert w.append(base, b"a" * 8)
    assert w.append(base + (1 << 27) - 1, b"b" * 8)  # still fits
    assert w.append(base + (1 << 27) - 1 + (1 << 27), b"c" * 8)
    assert w.append(base + 7_123_456_789, b"d" * 8)
    page = w.ring_page()
    assert _header(page, 16) == (3, (1 << 27) - 1)
    assert _header(page, 32) == (30, 0) and _array0(page, 32) == 1
    assert _header(page, 40) == (3, 0)
    delta = 7_123_456_789 - ((1 << 28) - 1)
    assert _header(page, 56) == (30, delta & ((1 << 27) - 1)) and _array0(page, 56) == delta >> 27
    events = decode_page(page).events
    assert [e.stamp for e in events] == [Stamp.DELTA, Stamp.DELTA, Stamp.EXTEND, Stamp.EXTEND]
    assert [e.timestamp - base for e in events] == [0, (1 << 27) - 1, (1 << 28) - 1, 7_123_456_789]
    assert [e.offset for e in events] == [0, 16, 32, 56]


def test_clock_going_backwards_gives_a_zero_extend():
    w = PageWriter()
    assert w.append(10_000, b"a" * 4)
    assert w.append(9_000, b"b" * 4)
    assert w.append(9_500, b"c" * 4)  # delta from the writer's last time, not the reader's
    page = w.ring_page()
    assert _header(page, 8) == (30, 0) and _array0(page, 8) == 0
    assert [e.timestamp for e in decode_page(page).events] == [10_000, 10_000, 10_500]


def test_absolute_time_stamp():
    w = PageWriter()
    assert w.append(1_000, b"a" * 4)
    ts = (3 << 27) + 77
    assert w.append(ts, b"b" * 4, absolute=True)
    page = w.ring_page()
    assert _header(page, 8) == (31, 77) and _array0(page, 8) == 3
    events = decode_page(page).events
    assert events[1].timestamp == ts and events[1].stamp is Stamp.ABSOLUTE and events[1].offset == 8


def test_absolute_time_stamp_keeps_the_clock_top_bits():
    # A TIME_STAMP holds 59 bits; the reader takes the top bits from the time before it.
    top = 0x18 << 56
    w = PageWriter()
    assert w.append(top + 5, b"a" * 4)
    assert w.append(top + 900, b"b" * 4, absolute=True)
    assert _array0(w.ring_page(), 8) << 27 | _header(w.ring_page(), 8)[1] == 900
    assert [e.timestamp for e in decode_page(w.ring_page()).events] == [top + 5, top + 900]


def _fill(w: PageWriter, used: int) -> None:
    """Append 16-byte events, then one small event of the exact size left, to reach commit == used."""
    ts = 0
    while used - w.commit > 100:
        assert w.append(ts, b"z" * 8)
        ts += 1
    assert w.append(ts, b"y" * (used - w.commit - 4))
    assert w.commit == used


def test_padding_closes_a_full_page():
    w = PageWriter()
    _fill(w, 4000)
    assert not w.append(10**6, b"q" * 100)  # 104 bytes do not fit in the 80 left
    assert w.full and not w.append(10**6, b"q")
    ring = w.ring_page()
    assert w.commit == BUF_PAGE_SIZE
    assert _header(ring, 4000) == (29, 1) and _array0(ring, 4000) == BUF_PAGE_SIZE - 4000 - 4
    assert data_end(ring) == 4000
    served = w.read_page()
    assert struct.unpack_from("<Q", served, 8)[0] == 4000
    assert served[BUF_PAGE_HDR_SIZE + 4000 :] == bytes(BUF_PAGE_SIZE - 4000)
    # The reader skips the padding of the ring page: both forms hold the same events.
    from_ring, from_served = decode_page(ring), decode_page(served)
    assert from_ring.commit == BUF_PAGE_SIZE and from_served.commit == 4000
    assert [(e.timestamp, bytes(e.payload)) for e in from_ring.events] == [
        (e.timestamp, bytes(e.payload)) for e in from_served.events
    ]


def test_null_padding_when_less_than_eight_bytes_are_left():
    w = PageWriter()
    _fill(w, 4076)
    assert not w.append(10**6, b"q")
    ring = w.ring_page()
    assert w.commit == 4076 and _header(ring, 4076) == (29, 0)
    assert data_end(ring) == 4076 and struct.unpack_from("<Q", w.read_page(), 8)[0] == 4076


def test_a_page_filled_exactly_has_no_padding():
    w = PageWriter()
    assert w.append(1, b"x" * BUF_MAX_DATA_SIZE)
    assert w.commit == BUF_PAGE_SIZE and not w.append(2, b"")
    assert struct.unpack_from("<Q", w.read_page(), 8)[0] == BUF_PAGE_SIZE
    assert len(decode_page(w.read_page()).events) == 1


def test_an_extended_event_that_does_not_fit_goes_to_the_next_page_without_extend():
    w = PageWriter()
    _fill(w, 4064)
    assert not w.append(10**10, b"a" * 8)  # 16 bytes fit, but not 16 + TIME_EXTEND
    nxt = PageWriter()
    assert nxt.append(10**10, b"a" * 8) and nxt.commit == 16


def test_oversized_payload_is_refused():
    with pytest.raises(ValueError):
        PageWriter().append(0, bytes(BUF_MAX_DATA_SIZE + 1))


def test_missed_events_stored_when_there_is_room():
    w = PageWriter()
    assert w.append(50, b"m" * 8)
    served = w.read_page(missed_events=42)
    commit_word = struct.unpack_from("<Q", served, 8)[0]
    assert commit_word == ((-(1 << 31)) & (2**64 - 1)) + RB_MISSED_STORED + 16
    assert struct.unpack_from("<Q", served, BUF_PAGE_HDR_SIZE + 16)[0] == 42
    page = decode_page(served)
    assert page == DecodedPage(page.time_stamp, 16, True, 42, page.events) and len(page.events) == 1


def test_missed_events_flag_only_when_the_count_does_not_fit():
    w = PageWriter()
    _fill(w, 4076)
    served = w.read_page(missed_events=3)
    commit_word = struct.unpack_from("<Q", served, 8)[0]
    assert commit_word & RB_MISSED_EVENTS and not commit_word & RB_MISSED_STORED
    page = decode_page(served)
    assert page.missed_events and page.missed_count is None and page.commit == 4076


def test_discarded_event_is_skipped_and_does_not_move_time():
    w = PageWriter()
    for ts, body in ((100, b"a"), (130, b"b"), (170, b"c")):
        assert w.append(ts, body * 8)
    ring = bytearray(w.ring_page())
    # rb_event_discard(): the middle event becomes padding holding its length; delta kept.
    struct.pack_into("<II", ring, BUF_PAGE_HDR_SIZE + 16, 29 | (30 << 5), 12)
    events = decode_page(ring).events
    assert [(e.timestamp, bytes(e.payload[:1])) for e in events] == [(100, b"a"), (140, b"c")]
    assert data_end(ring) == w.commit


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda p: p[:-1], "a page is"),
        (lambda p: p[:8] + struct.pack("<Q", BUF_PAGE_SIZE + 4) + p[16:], "exceeds"),
        (lambda p: p[:8] + struct.pack("<Q", 10) + p[16:], "crosses commit"),
        (lambda p: p[:16] + struct.pack("<II", 0, 2) + p[24:], "bad length word"),
        (lambda p: p[:16] + struct.pack("<II", 29, 200) + p[24:], "null padding"),
    ],
)
def test_malformed_pages_are_rejected(mutate, message):
    w = PageWriter()
    assert w.append(1, b"x" * 200)
    with pytest.raises(PageFormatError, match=message):
        decode_page(mutate(w.ring_page()))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 1 << 33), st.integers(0, 300), st.booleans()),
        min_size=1,
        max_size=80,
    )
)
def test_round_trip(spec):
    ts = 1 << 40
    written: list[tuple[int, bytes]] = []
    pages = [PageWriter()]
    for gap, size, absolute in spec:
        ts += gap
        payload = bytes((ts + i) & 0xFF for i in range(size))
        if not pages[-1].append(ts, payload, absolute=absolute):
            pages.append(PageWriter())
            assert pages[-1].append(ts, payload, absolute=absolute)
        written.append((ts, payload))
    decoded = [e for w in pages for e in decode_page(w.read_page()).events]
    assert len(decoded) == len(written)
    for event, (ts, payload) in zip(decoded, written):
        assert event.timestamp == ts
        assert len(event.payload) == event_length(len(payload)) - (8 if len(payload) > 112 else 4)
        assert bytes(event.payload[: len(payload)]) == payload
    for w in pages:
        assert decode_page(w.ring_page()).events == decode_page(w.read_page()).events

