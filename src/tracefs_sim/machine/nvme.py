"""The machine's disk: an NVMe-like controller (native/nvme.c, the layouts in
kernel_model/include/uapi/nvme.h) with one namespace in host memory.  Its registers are the
kernel's `nvme_bar`; the run loop polls it between slices (runloop.py, native/runloop.c),
as it fires the HPET, and raises the interrupt of the completions it posts."""
from __future__ import annotations

import ctypes
import functools
import mmap
from typing import Any

from . import native_lib
from .paging import PhysMem, kernel_virt_to_phys

DISK_SIZE = 64 << 20  # the namespace: 131072 logical blocks of 512 bytes
LBA_SHIFT = 9
QUEUE_DEPTH = 64
# struct nvme_bar
BAR_NSZE, BAR_NEXT_EVENT = 48, 72
NEVER = 2**64 - 1


class NvmeState(ctypes.Structure):  # struct nvme_dev in native/nvme.c
    _fields_ = [("disk", ctypes.c_void_p), ("disk_size", ctypes.c_uint64), ("bar_pa", ctypes.c_uint64),
                ("busy_until", ctypes.c_uint64), ("first", ctypes.c_uint32), ("count", ctypes.c_uint32),
                ("commands", ctypes.c_uint64), ("bytes", ctypes.c_uint64),
                ("inflight", ctypes.c_uint8 * (16 * QUEUE_DEPTH))]


@functools.cache
def _nvme_poll() -> Any:  # a ctypes foreign function
    fn = native_lib.load("slice").nvme_poll
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64,
                   ctypes.POINTER(ctypes.c_uint32)]
    fn.restype = ctypes.c_uint32
    return fn


class NvmeDisk:
    def __init__(self, bar_va: int, mem: PhysMem, size: int = DISK_SIZE):
        self.mem = mem
        self.bar_pa = kernel_virt_to_phys(bar_va)
        self._storage = mmap.mmap(-1, size)  # zero pages until written
        base = ctypes.addressof(ctypes.c_char.from_buffer(self._storage))
        self.state = NvmeState(disk=base, disk_size=size, bar_pa=self.bar_pa)
        mem.put_u64(self.bar_pa + BAR_NSZE, size >> LBA_SHIFT)
        mem.put_u64(self.bar_pa + BAR_NEXT_EVENT, NEVER)

    @property
    def address(self) -> int:
        """The device's state, for the native loop."""
        return ctypes.addressof(self.state)

    def poll(self, now_ns: int) -> tuple[int, int] | None:
        """Fetch and complete what is due at now_ns: (cpu, vector) of the interrupt to raise."""
        cpu = ctypes.c_uint32()
        vector = _nvme_poll()(self.address, self.mem.address, self.mem.size, now_ns, ctypes.byref(cpu))
        return (cpu.value, vector) if vector else None

    def next_event(self) -> int:
        """The time the next completion is due (NEVER: none in flight)."""
        return self.mem.u64(self.bar_pa + BAR_NEXT_EVENT)

    def read(self, offset: int, length: int) -> bytes:
        """The disk's bytes (tests, with the machine stopped)."""
        return bytes(self._storage[offset:offset + length])
