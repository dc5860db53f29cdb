"""The reference reader of Linux 6.1's ring-buffer pages (kernel/trace/ring_buffer.c): a page
decoded the way the kernel's consuming reader walks it (rb_update_read_stamp()), with each
event's time-stamp encoding, and where a ring page's real data ends (buffer_page->real_end).

Test code only: the package reads the guest's pages with native/drain.c's walk() (checked
against this reader in tests/trace/test_native_drain.py) and lays pages out with the guest's
C writer and trace/rb_page.py's PageWriter (both read back with this reader in the tests)."""

import enum
import struct
from dataclasses import dataclass

from tracefs_sim.trace._entry import (
    COMMIT_SIZE_MASK as _COMMIT_SIZE_MASK,
    MISSED_COUNT_SIZE as _MISSED_COUNT_SIZE,
    RB_ALIGNMENT,
    RB_EVNT_HDR_SIZE,
    RB_LEN_TIME_EXTEND,
    RB_MISSED_EVENTS,
    RB_MISSED_STORED,
    TS_MSB,
    TS_SHIFT,
)
from tracefs_sim.trace._drain import PageFormatError
from tracefs_sim.trace.ring_buffer import (
    BUF_PAGE_HDR_SIZE,
    BUF_PAGE_SIZE,
    PAGE_SIZE,
    RINGBUF_TYPE_DATA_TYPE_LEN_MAX,
    RINGBUF_TYPE_PADDING,
    RINGBUF_TYPE_TIME_EXTEND,
    RINGBUF_TYPE_TIME_STAMP,
)

_U64 = (1 << 64) - 1
_HEADER = struct.Struct("<QQ")
_U32 = struct.Struct("<I")
_U64_FMT = struct.Struct("<Q")


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
    word = _U32.unpack_from(data, off)[0]
    type_len, delta = word & 0x1F, word >> 5
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
