"""Trace instances (instance_mkdir/instance_rmdir in trace.c): named trace arrays, each
recording into its own guest slot, whose buffers the kernel allocates when the instance is
made and frees when it is removed (allocate_trace_buffers()/free_trace_buffers()).

What bounds them: 6.1's bound is memory alone (its instance costs some 11.6 MB on a 2-CPU VM:
its buffers at trace_buf_size per CPU and its events' directory tree; a 1 GiB VM makes 75
and dies of OOM before 85).  Here two things do: the guest's memory first (each instance's
rings, TRACE_RING_PAGES pages per online CPU, some 530 KB an instance with 2 CPUs with its
pid bitmaps and its function tracers' state, from the emulated kernel's page allocator:
ENOMEM when it has not them; some 140 instances in 128 MB), and the guest's slots
(GuestTracingOps.instance_slots, from the image: TRACE_SLOTS 512 of the kernel's masks less
the top level's slot 0 and word 0's summary bit 63, so 510 instances, which 512 MB with 2
CPUs holds), a slot being a bit of the kernel's masks (event files, tracing_on,
tracing_cpumask, options, pid lists, the function tracers' sites, probes, triggers): word 0's
slots first, then the extension words', whose writers take their slow paths.  The host's own
buffers (the ones readers see) fill as records come, so an idle instance costs the host
little (its trace array and its files: some 6,000 nodes)."""

import errno
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from .trace_array import TraceArray


class SlotBuffers(Protocol):
    """The guest's buffers of a slot (contract.GuestTracingOps)."""

    def open_slot(self, slot: int) -> None: ...  # OSError ENOMEM: the kernel could not allocate them
    def close_slot(self, slot: int) -> None: ...


class Instances:
    def __init__(self, make_array: Callable[[int], TraceArray], slots: Sequence[int], buffers: SlotBuffers):
        """make_array(slot) builds the trace array of a new instance; slots: the guest's that
        instances may have (the lowest free one is given); buffers allocates and frees a slot's."""
        self._make = make_array
        self._buffers = buffers
        self._free = sorted(slots, reverse=True)
        self._arrays: dict[str, TraceArray] = {}
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[TraceArray]:
        with self._lock:
            return iter(list(self._arrays.values()))

    def get(self, name: str) -> TraceArray | None:
        return self._arrays.get(name)

    def create(self, name: str) -> TraceArray:
        with self._lock:
            if name in self._arrays:
                raise OSError(errno.EEXIST, name)
            if not self._free:
                # Every slot of the guest's masks is taken (6.1's bound is memory alone: its
                # allocation of the buffers fails the same way).
                raise OSError(errno.ENOMEM, "no free trace slot")
            slot = self._free.pop()
            try:
                self._buffers.open_slot(slot)   # ENOMEM: the kernel has not the memory
            except BaseException:
                self._free.append(slot)
                raise
            try:
                array = self._make(slot)
            except BaseException:
                self._buffers.close_slot(slot)
                self._free.append(slot)
                raise
            self._arrays[name] = array
            return array

    def remove(self, name: str) -> None:
        """Events off, recording off, the guest's slot emptied, its buffers freed and the slot
        given back."""
        with self._lock:
            array = self._arrays.pop(name, None)
            if array is None:
                raise OSError(errno.ENOENT, name)
            array.shutdown()
            try:
                self._buffers.close_slot(array.slot)
            finally:
                self._free.append(array.slot)
