"""The ring buffer's record type (native/entry.c)."""

from collections.abc import Iterator

class Entry:
    """One record: its time stamp, the trace entry (common header + fields), and the bytes it
    takes on a ring-buffer page.  Indexes and unpacks as (ts, payload, length)."""

    def __init__(self, ts: int, payload: bytes, length: int) -> None: ...
    @property
    def ts(self) -> int: ...
    @property
    def payload(self) -> bytes: ...
    @property
    def length(self) -> int: ...
    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> int | bytes: ...
    def __iter__(self) -> Iterator[int | bytes]: ...

api: object  # the capsule the other C modules make and read records through

# the ring-buffer data page (kernel_model/include/uapi/ring_page.h)
PAGE_SIZE: int
PAGE_TIMESTAMP_OFFSET: int
PAGE_COMMIT_OFFSET: int
BUF_PAGE_HDR_SIZE: int
BUF_PAGE_SIZE: int
RB_MISSED_EVENTS: int
RB_MISSED_STORED: int
COMMIT_SIZE_MASK: int
MISSED_COUNT_SIZE: int
EVENT_TYPE_LEN_BITS: int
TS_SHIFT: int
RB_EVNT_HDR_SIZE: int
RB_ALIGNMENT: int
RB_EVNT_MIN_SIZE: int
RINGBUF_TYPE_DATA_TYPE_LEN_MAX: int
RINGBUF_TYPE_PADDING: int
RINGBUF_TYPE_TIME_EXTEND: int
RINGBUF_TYPE_TIME_STAMP: int
RB_LEN_TIME_EXTEND: int
RB_MAX_SMALL_DATA: int
TS_MSB: int
TS_MASK: int
BUF_MAX_DATA_SIZE: int
