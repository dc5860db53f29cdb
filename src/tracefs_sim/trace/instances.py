"""Trace instances (instance_mkdir/instance_rmdir in trace.c): named trace arrays, each
recording into its own guest slot."""

import errno
import threading
from collections.abc import Callable, Iterator

from .trace_array import TraceArray


class Instances:
    def __init__(self, make_array: Callable[[int], TraceArray], nr_slots: int):
        """make_array(slot) builds the trace array of a new instance; slots 1..nr_slots-1 are
        the guest's (slot 0 is the top level)."""
        self._make = make_array
        self._free = list(range(nr_slots - 1, 0, -1))
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
                # The guest has no slot left: the kernel's allocation of the buffers fails.
                raise OSError(errno.ENOMEM, "no free trace slot")
            slot = self._free.pop()
            array = self._make(slot)
            self._arrays[name] = array
            return array

    def remove(self, name: str) -> None:
        """Events off, recording off, the guest's slot emptied and given back."""
        with self._lock:
            array = self._arrays.pop(name, None)
            if array is None:
                raise OSError(errno.ENOENT, name)
            array.shutdown()
            self._free.append(array.slot)
