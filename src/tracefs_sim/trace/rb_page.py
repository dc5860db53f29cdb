"""Linux 6.1's ring-buffer data pages (kernel/trace/ring_buffer.c), as the host writes them.

A page is `struct buffer_data_page { u64 time_stamp; local_t commit; unsigned char data[]; }`
(the layout `events/header_page` describes); `data` holds events with the 32-bit header
`type_len:5, time_delta:27` followed by `u32 array[]` (`events/header_event`).  The layout's
constants are kernel_model/include/uapi/ring_page.h's, one definition for the guest's writer
and the host's C modules (exported by _entry).

Who writes and reads pages: the guest's C writer fills the per-CPU rings; the drain reads them
with native/drain.c's walk(), the host's one page reader.  `PageWriter` writes pages again on
the host, because per_cpu/cpuN/trace_pipe_raw reads the host's buffer of drained records
(ring_buffer.py, raw_pipe.py), not the guest's pages, and serves them as pages: it lays events
out exactly as `__rb_reserve_next()`/`rb_update_event()` do for a writer never interrupted by a
nested write, and gives a page in both forms --
- the *ring page*, as the writer leaves it: a page the writer moved off ends with a padding
  event and its commit counts that padding;
- the *read page*, as `ring_buffer_read_page()` hands it to `trace_pipe_raw`: commit is the end
  of the real data (`buffer_page->real_end`), everything after it is zeroed, and the
  missed-events flags (and count, when it fits) are added.
The guest's writer is checked against PageWriter byte for byte (tests/machine/test_tracing.py);
the tests read pages back with a reference reader (tests/rb_page_reference.py), which
native/drain.c's walk() is checked against (tests/trace/test_native_drain.py).
"""

import struct

from .ring_buffer import (
    BUF_PAGE_HDR_SIZE,
    BUF_PAGE_SIZE,
    PAGE_COMMIT_OFFSET,
    PAGE_SIZE,
    PAGE_TIMESTAMP_OFFSET,
    RINGBUF_TYPE_PADDING,
    RINGBUF_TYPE_TIME_EXTEND,
    RINGBUF_TYPE_TIME_STAMP,
)

from ._entry import (  # noqa: E402  (uapi/ring_page.h)
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
    TS_MASK as TS_MASK,
    BUF_MAX_DATA_SIZE as BUF_MAX_DATA_SIZE,  # ring_buffer_lock_reserve() refuses longer payloads
)

RB_LEN_TIME_STAMP = RB_LEN_TIME_EXTEND
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


def _header_word(type_len: int, time_delta: int) -> int:
    return type_len | (time_delta << 5)


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
        self._end = 0  # the end of the events (buffer_page->real_end): the tail before padding
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
        self._write = self._end = end
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
        """The page ring_buffer_read_page() hands out (per_cpu/cpuN/trace_pipe_raw) when it
        takes this page from its start: commit is the real end of the data, the rest of data[]
        is zeroed, and lost events are flagged in commit, with their count stored after the
        data when 8 bytes are left."""
        end = self._end
        out = bytearray(PAGE_SIZE)
        out[: BUF_PAGE_HDR_SIZE + end] = self._page[: BUF_PAGE_HDR_SIZE + end]
        commit_word = end
        if missed_events:
            if BUF_PAGE_SIZE - end >= _MISSED_COUNT_SIZE:
                _U64_FMT.pack_into(out, BUF_PAGE_HDR_SIZE + end, missed_events & _U64)
                commit_word += RB_MISSED_STORED
            commit_word = (commit_word + _MISSED_EVENTS_ADDEND) & _U64
        _U64_FMT.pack_into(out, PAGE_COMMIT_OFFSET, commit_word)
        return bytes(out)
