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
from operator import itemgetter

from ._entry import Entry as Entry   # one record (ts, payload, length): a C type, one malloc block each

# struct buffer_data_page: u64 time_stamp; local_t commit; unsigned char data[]; and
# struct ring_buffer_event: u32 type_len:5, time_delta:27; u32 array[]; -- as the host's C
# modules and the guest's writer define them (kernel_model/include/uapi/ring_page.h)
from ._entry import (  # noqa: E402
    BUF_PAGE_HDR_SIZE as BUF_PAGE_HDR_SIZE,
    BUF_PAGE_SIZE as BUF_PAGE_SIZE,
    EVENT_TYPE_LEN_BITS as EVENT_TYPE_LEN_BITS,
    PAGE_COMMIT_OFFSET as PAGE_COMMIT_OFFSET,
    PAGE_SIZE as PAGE_SIZE,
    PAGE_TIMESTAMP_OFFSET as PAGE_TIMESTAMP_OFFSET,
    TS_SHIFT as EVENT_TIME_DELTA_BITS,
    RINGBUF_TYPE_DATA_TYPE_LEN_MAX as RINGBUF_TYPE_DATA_TYPE_LEN_MAX,  # enum ring_buffer_type
    RINGBUF_TYPE_PADDING as RINGBUF_TYPE_PADDING,
    RINGBUF_TYPE_TIME_EXTEND as RINGBUF_TYPE_TIME_EXTEND,
    RINGBUF_TYPE_TIME_STAMP as RINGBUF_TYPE_TIME_STAMP,
)

PAGE_TIMESTAMP_SIZE = PAGE_COMMIT_OFFSET - PAGE_TIMESTAMP_OFFSET
PAGE_COMMIT_SIZE = BUF_PAGE_HDR_SIZE - PAGE_COMMIT_OFFSET

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


_LENGTH = itemgetter(2)   # Entry.length, at C speed in map()
_MIN_LENGTH = 8           # the shortest record a page holds (RB_EVNT_MIN_SIZE)
_GUESS = 64               # records a page is guessed to hold before one has been filled


@dataclass
class CpuBuffer:
    """One CPU's buffer: its records, size and the counters `per_cpu/cpuN/stats` reports.

    The bookkeeping is per page, not per record, so that Python runs per page: a batch is
    cut into pages by slicing (each slice's bytes summed in C, its length guessed from the
    page before and corrected a record at a time), each page's byte total is kept beside it,
    and a consuming read only counts records (the bytes still in a partly read oldest page
    are summed when `bytes` is asked for)."""

    cpu: int
    nr_pages: int
    entries: int = 0            # records in the buffer, not yet consumed
    overrun: int = 0            # records lost to overwrite mode
    commit_overrun: int = 0     # records lost while a nested writer filled the buffer
    dropped_events: int = 0     # records refused when full in non-overwrite mode
    read_events: int = 0        # records consumed by readers
    pages: deque[list[Entry]] = field(default_factory=deque)   # oldest first
    tail_used: int = 0          # bytes used on the newest page
    reported_overrun: int = 0   # overrun a consuming reader has already been told about
    # beside `pages`: the bytes each page was filled with (the oldest page's figure counts
    # records a reader may have taken since), and their sum
    page_bytes: deque[int] = field(default_factory=deque, init=False)
    _filled: int = field(default=0, init=False, repr=False)

    @property
    def size_bytes(self) -> int:
        return self.nr_pages * BUF_PAGE_SIZE

    @property
    def bytes(self) -> int:
        """Bytes of the records in the buffer."""
        if not self.pages:
            return 0
        taken: int = sum(map(_LENGTH, self.pages[0]))
        return self._filled - self.page_bytes[0] + taken

    @property
    def oldest_event_ts(self) -> int:
        """Time stamp of the oldest record still in the buffer (0: none)."""
        for page in self.pages:
            if page:
                ts: int = page[0].ts
                return ts
        return 0

    def full_hit(self, percent: int) -> bool:
        """Whether the buffer is `percent` full (full_hit(): its dirty pages, with the writer's
        page, over its pages; 0 percent: always)."""
        if not self.nr_pages or not percent:
            return True
        return max(len(self.pages), 1) * 100 >= percent * self.nr_pages

    def reset(self) -> None:
        """Empty the buffer and zero its counters (rb_reset_cpu)."""
        self.entries = self.overrun = self.commit_overrun = 0
        self.dropped_events = self.read_events = self.reported_overrun = 0
        self.pages.clear()
        self.page_bytes.clear()
        self._filled = 0
        self.tail_used = 0

    def write(self, entries: Iterable[Entry], overwrite: bool) -> int:
        """Append records in order; returns how many were kept (with overwrite off, those that
        found the buffer full are dropped and counted). A record goes on the newest page if
        it fits there, else on a new page; when all pages are in use, a new page takes the
        oldest one's place (overwrite) or the record is dropped."""
        if not isinstance(entries, list):
            entries = list(entries)
        pages = self.pages
        count = len(entries)
        room = BUF_PAGE_SIZE - self.tail_used
        # a small batch (most of the daemon's) fits the newest page whole (no record is
        # shorter than RB_EVNT_MIN_SIZE: a longer batch cannot)
        if pages and count * _MIN_LENGTH <= room:
            size = sum(map(_LENGTH, entries))
            if size <= room:
                pages[-1].extend(entries)
                self._grew_tail(count, size)
                return count
        return self._write_pages(entries, overwrite)

    def _write_pages(self, entries: list[Entry], overwrite: bool) -> int:
        count = len(entries)
        if not count:
            return 0
        pages, page_bytes = self.pages, self.page_bytes
        start = 0
        # a page holds about as many records as the one before it
        guess = len(pages[-1]) if pages else _GUESS
        if pages:
            run, size = _fitting(entries, 0, BUF_PAGE_SIZE - self.tail_used, guess)
            if run:
                pages[-1].extend(run)
                self._grew_tail(len(run), size)
                start = len(run)
        while start < count:
            # records[start] does not fit the newest page: it needs a new one
            if len(pages) >= self.nr_pages:
                if not overwrite:
                    return start + self._fill_tail_dropping_rest(entries, start)
                self._drop_oldest_page()
            page, size = _fitting(entries, start, BUF_PAGE_SIZE, guess)
            if not page:   # (no record is bigger than a page, but never loop forever)
                page, size = entries[start:start + 1], entries[start].length
            pages.append(page)
            page_bytes.append(size)
            self._filled += size
            self.tail_used = size
            self.entries += len(page)
            start += len(page)
            guess = len(page)
        return count

    def _grew_tail(self, records: int, size: int) -> None:
        """Account `records` of `size` bytes just put on the newest page."""
        self.page_bytes[-1] += size
        self._filled += size
        self.tail_used += size
        self.entries += records

    def _fill_tail_dropping_rest(self, entries: list[Entry], start: int) -> int:
        """The buffer is full and does not overwrite: each record from `start` on goes on the
        newest page if it still fits there, else is dropped. Returns how many were kept."""
        page = self.pages[-1]
        room = BUF_PAGE_SIZE - self.tail_used
        rest = len(entries) - start
        kept = size = 0
        # no record smaller than this follows: once the room is below it, all the rest drop
        smallest = min(map(_LENGTH, entries[start:]))
        for entry in entries[start:] if room >= smallest else ():
            length = entry.length
            if length <= room:
                page.append(entry)
                room -= length
                size += length
                kept += 1
                if room < smallest:
                    break
        self._grew_tail(kept, size)
        self.dropped_events += rest - kept
        return kept

    def _drop_oldest_page(self) -> None:
        page = self.pages.popleft()
        self.overrun += len(page)
        self.entries -= len(page)
        self._filled -= self.page_bytes.popleft()
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
        pages = self.pages
        left = count
        while left:
            page = pages[0]
            if left < len(page):
                del page[:left]
                break
            left -= len(page)
            pages.popleft()
            self._filled -= self.page_bytes.popleft()
        self.entries -= count
        self.read_events += count
        if not pages:
            self.tail_used = 0
        lost = self.overrun - self.reported_overrun
        self.reported_overrun = self.overrun
        return lost

    def __iter__(self) -> Iterator[Entry]:
        for page in self.pages:
            yield from page


def _fitting(entries: list[Entry], start: int, room: int, guess: int) -> tuple[list[Entry], int]:
    """The longest run of records from entries[start] whose bytes fit `room`, and its bytes:
    a guess of its length summed in C, then corrected a record at a time."""
    stop = min(start + max(guess, 1), len(entries))
    run = entries[start:stop]
    size = sum(map(_LENGTH, run))
    while size > room:
        size -= run.pop().length
    stop, end = start + len(run), len(entries)
    while stop < end:
        length = entries[stop].length
        if size + length > room:
            break
        run.append(entries[stop])
        size += length
        stop += 1
    return run, size


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

    @property
    def nr_cpus(self) -> int:
        return len(self._cpus)

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

    def swap(self, other: "RingBuffer", cpu: int | None = None) -> None:
        """Exchange this buffer's per-CPU buffers (one CPU's, or all) with other's
        (ring_buffer_swap_cpu, and update_max_tr()'s swap of the whole buffers): each keeps
        its identity, clock and waiters; the records and their counters change sides."""
        for c in range(len(self._cpus)) if cpu is None else (cpu,):
            self._cpus[c], other._cpus[c] = other._cpus[c], self._cpus[c]

    def is_empty(self, cpu: int | None = None) -> bool:
        return all(buffer.entries == 0 for buffer in self._selected(cpu))

    def time_stamp(self) -> int:
        """The buffer clock now (ring_buffer_time_stamp)."""
        return self.clock()
