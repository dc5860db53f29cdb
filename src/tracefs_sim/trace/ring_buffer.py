"""Per-CPU ring buffers: page layout, sizes and accounting (kernel/trace/ring_buffer.c).

The layout constants are the Linux ring-buffer page format that `events/header_page` and
`events/header_event` describe; the guest's tracepoint code writes pages in exactly this
layout, and user space tools parse them by these descriptions.

This module knows nothing of tracefs: it holds the records of each CPU in pages of the
configured size, the counters `stats` reports, and a wait queue that wakes consuming readers
once per batch of new data. Records are kept whole (the guest's pages are only transport):
a CPU buffer is a queue of pages, each a list of records filling at most BUF_PAGE_SIZE bytes,
so overwrite drops the oldest page at a time as Linux's writer does when it meets the head.
"""

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

PAGE_SIZE = 4096
# struct buffer_data_page: u64 time_stamp; local_t commit; unsigned char data[];
PAGE_TIMESTAMP_OFFSET = 0
PAGE_TIMESTAMP_SIZE = 8
PAGE_COMMIT_OFFSET = 8
PAGE_COMMIT_SIZE = 8
BUF_PAGE_HDR_SIZE = 16
BUF_PAGE_SIZE = PAGE_SIZE - BUF_PAGE_HDR_SIZE

# struct ring_buffer_event: u32 type_len:5, time_delta:27; u32 array[];
EVENT_TYPE_LEN_BITS = 5
EVENT_TIME_DELTA_BITS = 27
RINGBUF_TYPE_DATA_TYPE_LEN_MAX = 28
RINGBUF_TYPE_PADDING = 29
RINGBUF_TYPE_TIME_EXTEND = 30
RINGBUF_TYPE_TIME_STAMP = 31

# The kernel needs at least two pages per CPU (one for the writer, one to swap to the reader).
MIN_PAGES = 2


def page_header_format() -> str:
    """The text of events/header_page (ring_buffer_print_page_header)."""
    return (
        f"\tfield: u64 timestamp;\toffset:{PAGE_TIMESTAMP_OFFSET};\tsize:{PAGE_TIMESTAMP_SIZE};\tsigned:0;\n"
        f"\tfield: local_t commit;\toffset:{PAGE_COMMIT_OFFSET};\tsize:{PAGE_COMMIT_SIZE};\tsigned:1;\n"
        # The overwrite flag lives in the top bits of commit; Linux describes it at commit's offset.
        f"\tfield: int overwrite;\toffset:{PAGE_COMMIT_OFFSET};\tsize:1;\tsigned:1;\n"
        f"\tfield: char data;\toffset:{BUF_PAGE_HDR_SIZE};\tsize:{BUF_PAGE_SIZE};\tsigned:1;\n"
    )


def entry_header_format() -> str:
    """The text of events/header_event (ring_buffer_print_entry_header)."""
    return (
        "# compressed entry header\n"
        f"\ttype_len    :    {EVENT_TYPE_LEN_BITS} bits\n"
        f"\ttime_delta  :   {EVENT_TIME_DELTA_BITS} bits\n"
        "\tarray       :   32 bits\n"
        "\n"
        f"\tpadding     : type == {RINGBUF_TYPE_PADDING}\n"
        f"\ttime_extend : type == {RINGBUF_TYPE_TIME_EXTEND}\n"
        f"\ttime_stamp : type == {RINGBUF_TYPE_TIME_STAMP}\n"
        f"\tdata max type_len  == {RINGBUF_TYPE_DATA_TYPE_LEN_MAX}\n"
    )


def pages_for(size_bytes: int) -> int:
    """Pages a CPU buffer of size_bytes gets: whole data pages, at least MIN_PAGES."""
    return max(MIN_PAGES, -(-size_bytes // BUF_PAGE_SIZE))


class Entry(NamedTuple):
    """One record: its time stamp (trace-clock units) and the trace entry (common header +
    fields) as the writer stored it; length is what it occupies on a page. A tuple, so that
    the trace core's C modules make and read them at C speed."""

    ts: int
    payload: bytes
    length: int


@dataclass
class CpuBuffer:
    """One CPU's buffer: its records, size and the counters `per_cpu/cpuN/stats` reports."""

    cpu: int
    nr_pages: int
    entries: int = 0            # records in the buffer, not yet consumed
    overrun: int = 0            # records lost to overwrite mode
    commit_overrun: int = 0     # records lost while a nested writer filled the buffer
    bytes: int = 0              # bytes of the records in the buffer
    dropped_events: int = 0     # records refused when full in non-overwrite mode
    read_events: int = 0        # records consumed by readers
    pages: deque = field(default_factory=deque)   # deque[list[Entry]], oldest first
    tail_used: int = 0          # bytes used on the newest page
    reported_overrun: int = 0   # overrun a consuming reader has already been told about

    @property
    def size_bytes(self) -> int:
        return self.nr_pages * BUF_PAGE_SIZE

    @property
    def oldest_event_ts(self) -> int:
        """Time stamp of the oldest record still in the buffer (0: none)."""
        for page in self.pages:
            if page:
                return page[0].ts
        return 0

    def reset(self) -> None:
        """Empty the buffer and zero its counters (rb_reset_cpu)."""
        self.entries = self.overrun = self.commit_overrun = self.bytes = 0
        self.dropped_events = self.read_events = self.reported_overrun = 0
        self.pages.clear()
        self.tail_used = 0

    def write(self, entries: Iterable[Entry], overwrite: bool) -> int:
        """Append records in order; returns how many were kept (with overwrite off, those that
        found the buffer full are dropped and counted)."""
        pages = self.pages
        page = pages[-1] if pages else None
        used = self.tail_used
        kept = size = total = 0
        for entry in entries:
            length = entry.length
            if page is None or used + length > BUF_PAGE_SIZE:
                if len(pages) >= self.nr_pages:
                    if not overwrite:
                        self.dropped_events += 1
                        continue
                    self.tail_used = used
                    self.entries += kept
                    self.bytes += size
                    total += kept
                    kept = size = 0
                    self._drop_oldest_page()
                page = []
                pages.append(page)
                used = 0
            page.append(entry)
            used += length
            kept += 1
            size += length
        self.tail_used = used
        self.entries += kept
        self.bytes += size
        return total + kept

    def _drop_oldest_page(self) -> None:
        page = self.pages.popleft()
        self.overrun += len(page)
        self.entries -= len(page)
        self.bytes -= sum(e.length for e in page)
        if not self.pages:
            self.tail_used = 0

    def shrink_to(self, nr_pages: int) -> None:
        """Fewer pages: the oldest go, their records counted as overrun (rb_remove_pages)."""
        self.nr_pages = nr_pages
        while len(self.pages) > nr_pages:
            self._drop_oldest_page()

    def consume(self, count: int = 1) -> int:
        """Take the `count` oldest records; returns the records overwritten since the last
        consume (what a reader is told it lost)."""
        while count:
            page = self.pages[0]
            n = min(count, len(page))
            gone = page[:n]
            del page[:n]
            if not page:
                self.pages.popleft()
            count -= n
            self.entries -= n
            self.bytes -= sum(e.length for e in gone)
            self.read_events += n
        if not self.pages:
            self.tail_used = 0
        lost = self.overrun - self.reported_overrun
        self.reported_overrun = self.overrun
        return lost

    def __iter__(self) -> Iterator[Entry]:
        for page in self.pages:
            yield from page


class WaitQueue:
    """Readers waiting for data. Callbacks run in the waker's thread, so they must be
    thread-safe (e.g. schedule a wake-up into the reader's event loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: set[Callable[[], None]] = set()

    def add(self, callback: Callable[[], None]) -> None:
        with self._lock:
            self._callbacks.add(callback)

    def remove(self, callback: Callable[[], None]) -> None:
        with self._lock:
            self._callbacks.discard(callback)

    def wake(self) -> None:
        """Wake every waiter once; writers call this once per batch, never per record."""
        with self._lock:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            callback()


class RingBuffer:
    """The per-CPU buffers of one trace array, stamped by one clock."""

    def __init__(self, nr_cpus: int, size_bytes: int, clock: Callable[[], int]):
        self._cpus = [CpuBuffer(cpu, pages_for(size_bytes)) for cpu in range(nr_cpus)]
        self.clock = clock
        self.waiters = WaitQueue()

    def __iter__(self) -> Iterator[CpuBuffer]:
        return iter(self._cpus)

    def cpu(self, cpu: int) -> CpuBuffer:
        return self._cpus[cpu]

    def _selected(self, cpu: int | None) -> list[CpuBuffer]:
        return self._cpus if cpu is None else [self._cpus[cpu]]

    def resize(self, size_bytes: int, cpu: int | None = None) -> None:
        """Give one CPU (or all, cpu=None) buffers of size_bytes, rounded up to whole pages."""
        for buffer in self._selected(cpu):
            buffer.shrink_to(pages_for(size_bytes))

    def size(self, cpu: int) -> int:
        """Bytes of data pages of one CPU (ring_buffer_size)."""
        return self._cpus[cpu].size_bytes

    def reset(self, cpu: int | None = None) -> None:
        for buffer in self._selected(cpu):
            buffer.reset()

    def is_empty(self, cpu: int | None = None) -> bool:
        return all(buffer.entries == 0 for buffer in self._selected(cpu))

    def time_stamp(self) -> int:
        """The buffer clock now (ring_buffer_time_stamp)."""
        return self.clock()
