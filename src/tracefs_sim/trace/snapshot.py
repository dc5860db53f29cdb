"""The snapshot buffer of a trace array (tr->max_buffer, CONFIG_TRACER_SNAPSHOT in trace.c):
`snapshot` (echo 1 swaps the main buffer with it, allocating it first; 0 frees it; any other
number empties it), `per_cpu/cpuN/snapshot` (2 empties that CPU's; 0 and 1 are refused: the
kernel has no CONFIG_RING_BUFFER_ALLOW_SWAP), `per_cpu/cpuN/snapshot_raw` (its pages, read
as trace_pipe_raw reads the main buffer's), and the snapshot trigger's swaps, which the guest
asks for at the event and the drain carries out at that time (swap_at)."""

from __future__ import annotations

import errno
import threading

from ..lib.kstrtox import kstrtoul_from_user
from typing import TYPE_CHECKING

from .ring_buffer import Entry, RingBuffer, WaitQueue

if TYPE_CHECKING:  # (the trace array holds its snapshot)
    from .trace_array import TraceArray

# print_snapshot_help(): show_snapshot_main_help() and show_snapshot_percpu_help()
_MAIN_HELP = (
    b"# Snapshot commands:\n"
    b"# echo 0 > snapshot : Clears and frees snapshot buffer\n"
    b"# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
    b"#                      Takes a snapshot of the main buffer.\n"
    b"# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
    b"#                      (Doesn't have to be '2' works with any number that\n"
    b"#                       is not a '0' or '1')\n")
_PERCPU_HELP = (
    b"# Snapshot commands:\n"
    b"# echo 0 > snapshot : Invalid for per_cpu snapshot file.\n"
    b"# echo 1 > snapshot : Not supported with this kernel.\n"
    b"#                     Must use main snapshot file to allocate.\n"
    b"# echo 2 > snapshot : Clears this cpu's snapshot buffer (but does not allocate)\n"
    b"#                      (Doesn't have to be '2' works with any number that\n"
    b"#                       is not a '0' or '1')\n")
# a freed snapshot buffer keeps one page per CPU (free_snapshot(): ring_buffer_resize(1))
_FREED_SIZE = 1


class Snapshot:
    """One trace array's snapshot buffer and its files."""

    def __init__(self, array: TraceArray) -> None:
        """array: the TraceArray whose main buffer it swaps with."""
        self._array = array
        self.allocated = False
        # tr->cond_snapshot: a hist trigger's snapshot action, whose own test decides when a
        # snapshot is taken (the guest's hist_cond_snapshot); the file is EBUSY meanwhile
        self.cond_owner: object | None = None
        self.buffer = RingBuffer(array.nr_cpus, _FREED_SIZE, array.clock.read)
        # snapshot_raw readers wait here: only a swap brings the snapshot buffer records
        self.waiters = WaitQueue()
        self._lock = threading.Lock()

    # the same lock discipline as the main buffer's readers (raw_pipe.RawPageReader)
    @property
    def buffer_lock(self) -> threading.RLock:
        return self._array.buffer_lock

    def alloc(self) -> None:
        """tracing_alloc_snapshot_instance(): the buffer as large as the main one."""
        array = self._array
        with array.buffer_lock:
            if not self.allocated:
                for cpu in range(array.nr_cpus):
                    self.buffer.resize(array.buffer.size(cpu), cpu)
                self.buffer.reset()
                self.allocated = True

    def cond_enable(self, owner: object) -> None:
        """tracing_snapshot_cond_enable(): the buffer allocated; EBUSY when the array has a
        conditional snapshot already."""
        self.alloc()
        with self._lock:
            if self.cond_owner is not None:
                raise OSError(errno.EBUSY, "the trace array has a conditional snapshot")
            self.cond_owner = owner

    def cond_disable(self, owner: object) -> None:
        """tracing_snapshot_cond_disable(), when owner has it."""
        with self._lock:
            if self.cond_owner is owner:
                self.cond_owner = None

    # ---- snapshot, per_cpu/cpuN/snapshot ----
    def read(self, cpu: int | None = None) -> bytes:
        """The buffer as `trace` shows the main one; empty, the help text."""
        array = self._array
        with array.buffer_lock:
            empty = self.buffer.is_empty(cpu)
        if empty:
            head = f"# tracer: {array.tracer.name}\n#\n".encode()
            state = b"#\n# * Snapshot is allocated *\n#\n" if self.allocated else b"#\n# * Snapshot is freed *\n#\n"
            return head + state + (_MAIN_HELP if cpu is None else _PERCPU_HELP)
        return array.render_buffer(self.buffer, cpu)

    def write(self, data: bytes, cpu: int | None = None) -> None:
        """tracing_snapshot_write()."""
        array = self._array
        array.update_buffers()          # before the value is parsed: a bad one expands them too
        value = kstrtoul_from_user(data, 10)
        if self.cond_owner is not None:
            raise OSError(errno.EBUSY, "a hist trigger's snapshot action has the snapshot")
        if value == 0:
            if cpu is not None:
                raise OSError(errno.EINVAL, "a per-cpu snapshot cannot be freed")
            with array.buffer_lock:
                if self.allocated:
                    self.buffer.reset()
                    self.buffer.resize(_FREED_SIZE)
                    self.allocated = False
        elif value == 1:
            if cpu is not None:
                raise OSError(errno.EINVAL, "per-cpu swap is not supported")
            self.alloc()
            with array.buffer_lock:     # resize_buffer_duplicate_size()
                for c in range(array.nr_cpus):
                    self.buffer.resize(array.buffer.size(c), c)
            array.catch_up()            # what the guest recorded until now is in the main buffer
            self.take()
        else:
            with array.buffer_lock:
                if self.allocated:
                    self.buffer.reset(cpu)

    def take(self) -> None:
        """update_max_tr(): swap the main buffer with the snapshot (not while a reader holds
        recording stopped, and only when allocated)."""
        array = self._array
        with array.buffer_lock:
            if not self.allocated or array.stopped:
                return
            array.buffer.swap(self.buffer)
            self.buffer.clock = array.buffer.clock
        self.waiters.wake()

    def swap_at(self, ts: int, entries: dict[int, list[Entry]]) -> int:
        """A snapshot trigger's swap at time ts: the entries (per cpu, oldest first) up to ts
        go to the main buffer first, the rest stay in `entries` for after the swap. Returns
        the entries kept."""
        array = self._array
        kept = 0
        for cpu, batch in entries.items():
            n = 0
            while n < len(batch) and batch[n].ts <= ts:
                n += 1
            if n:
                kept += array.add_entries(cpu, batch[:n])
                entries[cpu] = batch[n:]
        self.take()
        return kept

    def reset(self) -> None:
        """The snapshot buffer emptied (a new tracer, a new clock)."""
        with self._array.buffer_lock:
            self.buffer.reset()
