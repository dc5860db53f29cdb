"""per_cpu/cpuN/trace_pipe_raw: a consuming read of one CPU's buffer as ring-buffer pages
(tracing_buffers_read + ring_buffer_read_page in Linux 6.1).

Each open file has a spare page and a read position in it. A read with the spare page used
up takes the next page's worth of records off the CPU buffer and lays them out with
PageWriter in Linux's binary layout (read form: commit at the end of the data, zeros after,
missed-events flags and count when records were lost), then hands out up to `count` bytes
of that page; the rest of the page is served by the following reads. As in Linux, the
length a read asks for bounds what is taken: with less than a page, only the whole events
that fit in `count` - 16 bytes are taken, and a read of 16 bytes or less takes nothing.
"""

from contextlib import AbstractContextManager
from typing import Any, Protocol

from .rb_page import RB_LEN_TIME_EXTEND, TS_MASK, PageWriter, event_length
from .ring_buffer import BUF_PAGE_HDR_SIZE, PAGE_SIZE, RingBuffer


class PagedBuffer(Protocol):
    """What a raw reader reads: a trace array's buffer, or its snapshot's, with the lock its
    readers take."""

    @property
    def buffer(self) -> RingBuffer: ...
    @property
    def buffer_lock(self) -> AbstractContextManager[Any]: ...


class RawPageReader:
    """One open trace_pipe_raw: read(count) -> bytes, or None when the CPU buffer is empty
    (the caller then blocks or answers EAGAIN, as tracing_buffers_read does)."""

    def __init__(self, trace_array: PagedBuffer, cpu: int):
        self._ta = trace_array
        self._cpu = cpu
        self._spare = b""
        self._read = PAGE_SIZE   # nothing left of the spare page (info->read)

    def read(self, count: int) -> bytes | None:
        if count <= 0:
            return b""
        if self._read >= PAGE_SIZE:
            page = self._take_page(count)
            if page is None:
                return None
            if not page:
                return b""       # data there, but `count` holds no event: Linux returns 0
            self._spare, self._read = page, 0
        size = min(PAGE_SIZE - self._read, count)
        data = self._spare[self._read:self._read + size]
        self._read += size
        return data

    def _take_page(self, count: int) -> bytes | None:
        """The next read page, b"" when count is too small for anything, None when empty."""
        ta = self._ta
        with ta.buffer_lock:
            buffer = ta.buffer.cpu(self._cpu)
            if not buffer.entries:
                return None
            room = min(count, PAGE_SIZE) - BUF_PAGE_HDR_SIZE   # at most BUF_PAGE_SIZE
            if room <= 0:
                return b""
            # The records of the reader page: the oldest page of the buffer.
            records = buffer.pages[0]
            writer = PageWriter()
            used = 0
            last_ts = None
            taken = 0
            for entry in records:
                # Keep the time extend and its event together (rb_event_ts_length).
                need = event_length(len(entry.payload))
                if last_ts is not None and (entry.ts - last_ts) & ((1 << 64) - 1) & ~TS_MASK:
                    need += RB_LEN_TIME_EXTEND
                if used + need > room:
                    break
                appended = writer.append(entry.ts, entry.payload)
                assert appended, "a record that fits the room fits the page"
                used += need
                last_ts = entry.ts
                taken += 1
            if not taken:
                return b""
            lost = buffer.consume(taken)
        return writer.read_page(missed_events=lost)
