"""Shareable regions of guest memory for perf ring buffers.

A session's process maps a perf event's ring buffer (mmap of the event's fd) on the host,
where the kernel that writes it is emulated: the host cannot map guest RAM at an offset the
perf fd gives.  So the machine keeps a pool of regions, each its own memory file, mapped into
every CPU's physical address space above RAM (and by the boot page tables' direct map, so
that the kernel reaches them with __va()).  The kernel builds a ring buffer in a free region
(kernel_model/kernel/events/ring_buffer.c) and tells the session's supervisor which; the
supervisor gives the process that region's file in place of the event's fd before the host
makes its mmap, which then maps the very pages the kernel writes.
"""
from __future__ import annotations

import ctypes
import mmap
import os
from dataclasses import dataclass

POOL_BASE = 0x4000_0000  # physical: above RAM (1 GiB), the second GiB of the direct map
POOL_REGIONS = 62
REGION_SIZE = 8 << 20  # a user page, up to 1024 data pages (perf sched record: -m 1024), the status page
# and after them the big regions, for BPF ring buffers larger than a region holds (their data
# is there twice: kernel/bpf/ringbuf.c): one of 256 MiB of data, the most 6.1 allocates on a
# machine of 1 GiB (512 MiB: ENOMEM), within the second GiB
BIG_REGIONS = 1
BIG_REGION_SIZE = 514 << 20


@dataclass(frozen=True)
class PoolRegion:
    pa: int  # guest physical address
    fd: int  # its memory file
    address: int  # where the host maps it
    size: int  # its bytes


class PerfPool:
    def __init__(self, base: int = POOL_BASE, count: int = POOL_REGIONS, size: int = REGION_SIZE,
                 big_count: int = BIG_REGIONS, big_size: int = BIG_REGION_SIZE):
        self.base, self.count, self.region_size = base, count, size
        self.big_count, self.big_size = big_count, big_size
        self.regions: list[PoolRegion] = []
        self._maps: list[mmap.mmap] = []
        self._cbufs = []
        pa = base
        for i in range(count + big_count):
            length = size if i < count else big_size
            fd = os.memfd_create(f"perf-ring-{i}", os.MFD_CLOEXEC)
            os.ftruncate(fd, length)  # (sparse: pages cost only once written)
            buf = mmap.mmap(fd, length, mmap.MAP_SHARED)
            cbuf = (ctypes.c_char * length).from_buffer(buf)
            self._maps.append(buf)
            self._cbufs.append(cbuf)
            self.regions.append(PoolRegion(pa, fd, ctypes.addressof(cbuf), length))
            pa += length

    def close(self) -> None:
        """Give the memory files back (the machine stopped: no CPU maps them any more); a
        supervisor's copies of the fds keep theirs."""
        self._cbufs.clear()  # (exports of the maps: a map with one cannot close)
        for buf in self._maps:
            buf.close()
        self._maps.clear()
        for region in self.regions:
            os.close(region.fd)
        self.regions.clear()

    @property
    def end(self) -> int:
        return self.base + self.count * self.region_size + self.big_count * self.big_size

    @property
    def fds(self) -> list[int]:
        return [r.fd for r in self.regions]

    def read(self, index: int, offset: int, size: int) -> bytes:
        if not 0 <= offset <= offset + size <= self.regions[index].size:
            raise ValueError(f"range {offset:#x}+{size} outside a pool region")
        return self._maps[index][offset:offset + size]
