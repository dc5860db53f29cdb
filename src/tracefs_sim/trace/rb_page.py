"""Codec for Linux 6.1 ring-buffer data pages (kernel/trace/ring_buffer.c).

A page is `struct buffer_data_page { u64 time_stamp; local_t commit; unsigned char data[]; }`
(the layout `events/header_page` describes); `data` holds events with the 32-bit header
`type_len:5, time_delta:27` followed by `u32 array[]` (`events/header_event`).

Two forms of a page exist, and both are modelled here:
- the *ring page*, as the writer leaves it in the per-CPU ring: a page the writer moved off
  ends with a padding event and its commit counts that padding;
- the *read page*, as `ring_buffer_read_page()` hands it to `per_cpu/cpuN/trace_pipe_raw`:
  commit is the end of the real data (`buffer_page->real_end`), everything after it is
  zeroed, and the missed-events flags (and count, when it fits) are added.

`PageWriter` lays events out exactly as `__rb_reserve_next()`/`rb_update_event()` do for a
writer that is never interrupted by a nested write; it is the executable specification the
guest's C writer is tested against. `decode_page()` reads either form the way the kernel's
consuming reader does (`rb_update_read_stamp()`). The drain walks the guest's pages with the
C twin of this walk (native/drain.c's walk(), tested against decode_page()), which can also
walk on from where an earlier walk of a page still being filled stopped.
"""

import enum
import struct
from dataclasses import dataclass

from .ring_buffer import (
    BUF_PAGE_HDR_SIZE,
    BUF_PAGE_SIZE,
    PAGE_COMMIT_OFFSET,
    PAGE_SIZE,
    PAGE_TIMESTAMP_OFFSET,
    RINGBUF_TYPE_DATA_TYPE_LEN_MAX,
    RINGBUF_TYPE_PADDING,
    RINGBUF_TYPE_TIME_EXTEND,
    RINGBUF_TYPE_TIME_STAMP,
)

from ._entry import (  # noqa: E402  (native/ring_page.h)
    COMMIT_SIZE_MASK as _COMMIT_SIZE_MASK,  # commit & ~RB_MISSED_FLAGS (ring_buffer_page_len)
    MISSED_COUNT_SIZE as _MISSED_COUNT_SIZE,  # unsigned long lost_events, stored at data[commit]
    RB_ALIGNMENT as RB_ALIGNMENT,
    RB_EVNT_HDR_SIZE as RB_EVNT_HDR_SIZE,
    RB_EVNT_MIN_SIZE as RB_EVNT_MIN_SIZE,  # the smallest event that can carry a padding length
    RB_LEN_TIME_EXTEND as RB_LEN_TIME_EXTEND,
    RB_MAX_SMALL_DATA as RB_MAX_SMALL_DATA,  # 112: the largest type_len payload
    RB_MISSED_EVENTS as RB_MISSED_EVENTS,
    RB_MISSED_STORED as RB_MISSED_STORED,
    TS_MSB as TS_MSB,  # clock bits a TIME_STAMP event cannot hold (rb_fix_abs_ts)
    TS_SHIFT as TS_SHIFT,
)

RB_LEN_TIME_STAMP = RB_LEN_TIME_EXTEND
# ring_buffer_lock_reserve() refuses payloads longer than this (room for header + array[0]).
BUF_MAX_DATA_SIZE = BUF_PAGE_SIZE - 2 * RB_EVNT_HDR_SIZE
TS_MASK = (1 << TS_SHIFT) - 1
_U64 = (1 << 64) - 1
ABS_TS_MASK = _U64 - TS_MSB
_DELTA_LIMIT = 1 << 59  # larger "deltas" mean the clock went backwards (rb_add_timestamp)
# Linux adds the commit flags to the 64-bit local_t as C ints: RB_MISSED_EVENTS is (1 << 31),
# i.e. INT_MIN, so it is sign-extended and sets bits 31..63 of commit.
_MISSED_EVENTS_ADDEND = (-RB_MISSED_EVENTS) & _U64

_HEADER = struct.Struct("<QQ")
_U32 = struct.Struct("<I")
_U32X2 = struct.Struct("<II")
_U64_FMT = struct.Struct("<Q")


class PageFormatError(ValueError):
    """The bytes are not a valid ring-buffer data page."""


class Stamp(enum.Enum):
    """How an event's time is encoded on the page."""

    DELTA = "delta"  # in its own 27-bit time_delta
    EXTEND = "extend"  # preceded by a TIME_EXTEND event (delta too large for 27 bits)
    ABSOLUTE = "absolute"  # preceded by a TIME_STAMP event (absolute time)


@dataclass(frozen=True, slots=True)
class RbEvent:
    timestamp: int  # absolute, in trace-clock units (ns for the local clock)
    payload: memoryview  # the trace entry, with the event's 4-byte alignment tail
    offset: int  # offset of the event's time stamp (or of the event) in data[]
    stamp: Stamp


@dataclass(frozen=True, slots=True)
class DecodedPage:
    time_stamp: int  # the page's base time stamp
    commit: int  # bytes of data[] in use (flags removed)
    missed_events: bool  # RB_MISSED_EVENTS: events were lost before this page
    missed_count: int | None  # the stored count (RB_MISSED_STORED), else None
    events: list[RbEvent]


def _type_len_and_delta(word: int) -> tuple[int, int]:
    return word & 0x1F, word >> 5


def _header_word(type_len: int, time_delta: int) -> int:
    return type_len | (time_delta << 5)


def _fix_abs_ts(abs_ts: int, save_ts: int) -> int:
    """rb_fix_abs_ts: restore the clock's top bits a TIME_STAMP event cannot store."""
    if save_ts & TS_MSB:
        abs_ts |= save_ts & TS_MSB
        if abs_ts < save_ts:
            abs_ts += 1 << 59
    return abs_ts


def _event_size(data: memoryview, off: int, end: int) -> tuple[int, int, int, int]:
    """(type_len, time_delta, total length, payload offset) of the event at data[off]."""
    if off + RB_EVNT_HDR_SIZE > end:
        raise PageFormatError(f"event header at data offset {off} crosses commit {end}")
    type_len, delta = _type_len_and_delta(_U32.unpack_from(data, off)[0])
    if 1 <= type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX:
        return type_len, delta, RB_EVNT_HDR_SIZE + type_len * RB_ALIGNMENT, off + 4
    if off + 8 > end:
        raise PageFormatError(f"event at data offset {off} (type_len {type_len}) crosses commit {end}")
    array0 = _U32.unpack_from(data, off + 4)[0]
    if type_len in (RINGBUF_TYPE_TIME_EXTEND, RINGBUF_TYPE_TIME_STAMP):
        return type_len, delta, RB_LEN_TIME_EXTEND, off + 8
    if type_len == RINGBUF_TYPE_PADDING and delta == 0:
        # rb_null_event(): only ever written past commit, where the reader never looks.
        raise PageFormatError(f"null padding event inside commit at data offset {off}")
    # type_len 0 (length in array[0], which counts itself) or padding (array[0] = bytes after it)
    if array0 < 4 or array0 % RB_ALIGNMENT:
        raise PageFormatError(f"event at data offset {off}: bad length word {array0}")
    return type_len, delta, RB_EVNT_HDR_SIZE + array0, off + 8


# An event as the reader finds it: (timestamp, payload start, payload end, offset of its time
# stamp in data[], Stamp); start and end are offsets into the page, the end taking in the
# event's 4-byte alignment tail.
EventSpan = tuple[int, int, int, int, Stamp]


def decode_page(page: bytes | bytearray | memoryview) -> DecodedPage:
    """Decode one page (ring or read form) as the kernel's consuming reader walks it.

    Padding events are skipped and do not move the time (rb_update_read_stamp).
    """
    page = memoryview(page).cast("B")
    time_stamp, commit_word, commit, missed_count, spans = _walk(page)
    return DecodedPage(
        time_stamp=time_stamp,
        commit=commit,
        missed_events=bool(commit_word & RB_MISSED_EVENTS),
        missed_count=missed_count,
        events=[RbEvent(timestamp=ts, payload=page[start:end], offset=offset, stamp=stamp)
                for ts, start, end, offset, stamp in spans],
    )


# Where a walk of a page stopped (native/drain.c's walk() takes and gives it): (offset in
# data[] of the next event, time of the last one).
WalkPoint = tuple[int, int]


def _walk(page: memoryview) -> tuple[int, int, int, int | None, list[EventSpan]]:
    """(time stamp, commit word, commit, missed count, events) of a page."""
    if len(page) != PAGE_SIZE:
        raise PageFormatError(f"a page is {PAGE_SIZE} bytes, got {len(page)}")
    time_stamp, commit_word = _HEADER.unpack_from(page, 0)
    commit = commit_word & _COMMIT_SIZE_MASK
    if commit > BUF_PAGE_SIZE:
        raise PageFormatError(f"commit {commit} exceeds the page's {BUF_PAGE_SIZE} data bytes")
    data = page[BUF_PAGE_HDR_SIZE:]
    missed_count = None
    if commit_word & RB_MISSED_STORED:
        if commit + _MISSED_COUNT_SIZE > BUF_PAGE_SIZE:
            raise PageFormatError("missed-events count flagged but no room after commit")
        missed_count = _U64_FMT.unpack_from(data, commit)[0]

    # Events start 4-byte aligned: every header word up to commit, read in one call.
    words = struct.unpack_from(f"<{commit >> 2}I", data, 0)
    spans: list[EventSpan] = []
    off, ts = 0, time_stamp
    stamp_off = -1  # offset of a TIME_EXTEND/TIME_STAMP owning the next event
    stamp = Stamp.DELTA
    while off < commit:
        word = words[off >> 2] if off + RB_EVNT_HDR_SIZE <= commit else 0
        type_len = word & 0x1F
        if 1 <= type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX:
            # _event_size()'s common case, inline.
            delta, length, payload_off = word >> 5, RB_EVNT_HDR_SIZE + type_len * RB_ALIGNMENT, off + 4
        else:
            type_len, delta, length, payload_off = _event_size(data, off, commit)
        end = off + length
        if end > commit:
            raise PageFormatError(f"event at data offset {off} ({length} bytes) crosses commit {commit}")
        if type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX:
            ts += delta
            spans.append((ts & _U64, BUF_PAGE_HDR_SIZE + payload_off, BUF_PAGE_HDR_SIZE + end,
                          off if stamp_off < 0 else stamp_off, stamp))
            stamp_off, stamp = -1, Stamp.DELTA
        elif type_len == RINGBUF_TYPE_TIME_EXTEND:
            ts += (words[(off >> 2) + 1] << TS_SHIFT) + delta
            stamp_off, stamp = off, Stamp.EXTEND
        elif type_len == RINGBUF_TYPE_TIME_STAMP:
            ts = _fix_abs_ts((words[(off >> 2) + 1] << TS_SHIFT) + delta, ts)
            stamp_off, stamp = off, Stamp.ABSOLUTE
        # else padding (a discarded event, the tail): skipped, the time does not move
        off = end
    return time_stamp, commit_word, commit, missed_count, spans


def event_length(payload_size: int) -> int:
    """Bytes a data event with a payload of payload_size takes (rb_calculate_event_length)."""
    length = max(payload_size, 1)  # zero length would confuse the reader
    if length > RB_MAX_SMALL_DATA:
        length += 4  # array[0] holds the length
    length = (length + RB_EVNT_HDR_SIZE + RB_ALIGNMENT - 1) & ~(RB_ALIGNMENT - 1)
    # The reserved space may later be turned into a TIME_EXTEND plus padding, and padding
    # needs 8 bytes: an event is never exactly 12 bytes.
    if length == RB_LEN_TIME_EXTEND + RB_ALIGNMENT:
        length += RB_ALIGNMENT
    return length


def data_end(page: bytes | bytearray | memoryview) -> int:
    """The end of real data on a ring page (buffer_page->real_end, or commit).

    A page the writer moved off ends with the padding rb_reset_tail() wrote up to the end
    of the page; its real end is where that padding starts.
    """
    page = memoryview(page).cast("B")
    commit: int = _HEADER.unpack_from(page, 0)[1] & _COMMIT_SIZE_MASK
    data = page[BUF_PAGE_HDR_SIZE:]
    off = 0
    while off < commit:
        type_len, delta, length, _ = _event_size(data, off, commit)
        if type_len == RINGBUF_TYPE_PADDING and off + length == BUF_PAGE_SIZE:
            return off
        off += length
    return commit


def read_page(ring_page: bytes | bytearray | memoryview, *, missed_events: int = 0) -> bytes:
    """The page ring_buffer_read_page() hands out when it takes ring_page from its start.

    commit becomes the real end of data, the rest of data[] is zeroed, and lost events are
    flagged in commit, with their count stored after the data when 8 bytes are left.
    """
    ring_page = memoryview(ring_page).cast("B")
    if len(ring_page) != PAGE_SIZE:
        raise PageFormatError(f"a page is {PAGE_SIZE} bytes, got {len(ring_page)}")
    end = data_end(ring_page)
    out = bytearray(PAGE_SIZE)
    out[: BUF_PAGE_HDR_SIZE + end] = ring_page[: BUF_PAGE_HDR_SIZE + end]
    commit_word = end
    if missed_events:
        if BUF_PAGE_SIZE - end >= _MISSED_COUNT_SIZE:
            _U64_FMT.pack_into(out, BUF_PAGE_HDR_SIZE + end, missed_events & _U64)
            commit_word += RB_MISSED_STORED
        commit_word = (commit_word + _MISSED_EVENTS_ADDEND) & _U64
    _U64_FMT.pack_into(out, PAGE_COMMIT_OFFSET, commit_word)
    return bytes(out)


class PageWriter:
    """Appends events to one page exactly as Linux's ring-buffer writer lays them out.

    The rules (__rb_reserve_next, rb_update_event, rb_add_timestamp, rb_reset_tail):
    - the first event on a page has time_delta 0 and its time becomes the page's time_stamp;
    - a later event's delta is its time minus the previous event's time; when it does not fit
      27 bits, a TIME_EXTEND (low 27 bits in time_delta, the rest in array[0]) precedes the
      event, whose own time_delta is then 0; a clock that went backwards gives a zero extend;
    - payloads up to 112 bytes use type_len = length / 4, longer ones type_len 0 with
      array[0] = 4 + aligned payload length (event_length());
    - an event that does not fit ends the page: the rest is padded (type 29, time_delta 1,
      array[0] = remaining bytes - 4; with fewer than 8 bytes left a bare type-29 header with
      time_delta 0 after commit) and the event goes to the next page.
    Bytes of a payload slot past the payload (alignment) are written as zeros; Linux leaves
    whatever the page held there.
    """

    def __init__(self) -> None:
        self._page = bytearray(PAGE_SIZE)
        self._write = 0  # tail: next free offset in data[]
        self._last_ts: int | None = None  # the writer's write_stamp
        self._full = False

    @property
    def full(self) -> bool:
        """The writer moved off this page: an append did not fit."""
        return self._full

    @property
    def commit(self) -> int:
        """Bytes of data[] committed (the ring page's commit)."""
        return self._write

    @property
    def time_stamp(self) -> int | None:
        """The page's base time stamp, None while the page is empty."""
        return None if self._last_ts is None else _HEADER.unpack_from(self._page, 0)[0]

    def append(
        self, timestamp: int, payload: bytes | bytearray | memoryview, *, absolute: bool = False
    ) -> bool:
        """Append a data event; False (and the page is closed) when it does not fit.

        absolute=True records the time with a TIME_STAMP event, as Linux does for the first
        event after a discard or after an interrupted write (RB_ADD_STAMP_FORCE); it has no
        effect on the first event of a page, which takes the page's time stamp.
        """
        if self._full:
            return False
        payload = memoryview(payload).cast("B")
        if len(payload) > BUF_MAX_DATA_SIZE:
            raise ValueError(f"payload of {len(payload)} bytes exceeds {BUF_MAX_DATA_SIZE}")
        timestamp &= _U64
        length = event_length(len(payload))
        stamp_type = None
        stamp_value = 0
        delta = 0
        if self._write:
            assert self._last_ts is not None
            if absolute:
                stamp_type = RINGBUF_TYPE_TIME_STAMP
                stamp_value = timestamp & ABS_TS_MASK  # 59 bits; the reader restores the rest
            else:
                delta = (timestamp - self._last_ts) & _U64
                if delta & ~TS_MASK:
                    stamp_type = RINGBUF_TYPE_TIME_EXTEND
                    stamp_value = 0 if delta > _DELTA_LIMIT else delta
                    delta = 0
            if stamp_type is not None:
                length += RB_LEN_TIME_EXTEND
        if self._write + length > BUF_PAGE_SIZE:
            self._close()
            return False
        end = self._write + length

        off = BUF_PAGE_HDR_SIZE + self._write
        if self._write == 0:
            _U64_FMT.pack_into(self._page, PAGE_TIMESTAMP_OFFSET, timestamp)
        if stamp_type is not None:
            _U32X2.pack_into(
                self._page, off, _header_word(stamp_type, stamp_value & TS_MASK), stamp_value >> TS_SHIFT
            )
            off += RB_LEN_TIME_EXTEND
            length -= RB_LEN_TIME_EXTEND
        body = length - RB_EVNT_HDR_SIZE
        if body > RB_MAX_SMALL_DATA:
            _U32X2.pack_into(self._page, off, _header_word(0, delta), body)
            start = off + 8
        else:
            _U32.pack_into(self._page, off, _header_word(body // RB_ALIGNMENT, delta))
            start = off + 4
        self._page[start : start + len(payload)] = payload
        self._write = end
        self._last_ts = timestamp
        _U64_FMT.pack_into(self._page, PAGE_COMMIT_OFFSET, self._write)
        return True

    def _close(self) -> None:
        """rb_reset_tail(): pad the rest of the page; the writer moves to the next page."""
        self._full = True
        tail = self._write
        if tail >= BUF_PAGE_SIZE:
            return
        off = BUF_PAGE_HDR_SIZE + tail
        if tail > BUF_PAGE_SIZE - RB_EVNT_MIN_SIZE:
            # No room for a length: a null padding header, left outside commit.
            _U32.pack_into(self._page, off, _header_word(RINGBUF_TYPE_PADDING, 0))
            return
        _U32X2.pack_into(
            self._page, off, _header_word(RINGBUF_TYPE_PADDING, 1), BUF_PAGE_SIZE - tail - RB_EVNT_HDR_SIZE
        )
        self._write = BUF_PAGE_SIZE
        _U64_FMT.pack_into(self._page, PAGE_COMMIT_OFFSET, self._write)

    def ring_page(self) -> bytes:
        """The page as it lies in the ring buffer now."""
        return bytes(self._page)

    def read_page(self, *, missed_events: int = 0) -> bytes:
        """The page as per_cpu/cpuN/trace_pipe_raw serves it (see read_page())."""
        return read_page(self._page, missed_events=missed_events)
