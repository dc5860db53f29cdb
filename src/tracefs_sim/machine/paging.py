"""Physical RAM shared by all CPUs, the boot page tables, address translation.

RAM is one shared mapping of a memory file; every CPU's Unicorn maps it with
mem_map_ptr, and the host reads and writes guest memory through the same buffer.
A file rather than anonymous memory: a session's supervisor maps the part of it
that holds the kernel's session ring (machine/session_ring.py).
"""
from __future__ import annotations

import ctypes
import mmap
import os
import struct

from .image import KERNEL_MAP, PAGE_OFFSET

PTE_P, PTE_W, PTE_PS = 0x1, 0x2, 0x80
# No-execute: the direct map and the kernel image's data, as in Linux.  Unicorn
# needs it for speed: it sends every store to a page whose TLB entry is
# executable down its slow path (looking for translated code to invalidate),
# while a store to a no-execute page takes that path once per TLB fill.  The
# price: a store through the (no-execute) direct map no longer drops the
# translations of code on that page, so the kernel reports each page it fills
# with user code (PORT_CODE) and the machine drops them, on every CPU, through
# the page's kernel-map alias, which stays executable for that.
PTE_NX = 1 << 63
PAGE_4K, PAGE_2M = 1 << 12, 1 << 21
# Boot page tables live in the first 64 KiB of RAM, below the kernel (16 MiB).
PML4, PDPT_DIRECT, PD_DIRECT, PDPT_KERNEL, PD_KERNEL = 0x1000, 0x2000, 0x3000, 0x4000, 0x5000
PT_KERNEL_SPLIT, PD_DIRECT_HIGH, BOOT_TABLES_END = 0x6000, 0xF000, 0x10000  # 4 KiB tables where 2 MiB pages hold code and data


class PhysMem:
    def __init__(self, size: int):
        self.size = size
        self.fd = os.memfd_create("tracefs-sim-ram", os.MFD_CLOEXEC)
        os.ftruncate(self.fd, size)
        self.buf = mmap.mmap(self.fd, size, mmap.MAP_SHARED)
        self._cbuf = (ctypes.c_char * size).from_buffer(self.buf)
        self.address = ctypes.addressof(self._cbuf)

    def release(self) -> None:
        """The machine is done with its RAM: its file goes (the mapping, which readers and the
        stopped CPUs may still hold, goes with the last of them; then the memory is freed)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def read(self, pa: int, size: int) -> bytes:
        if pa < 0 or pa + size > self.size:
            raise ValueError(f"physical range {pa:#x}+{size} outside RAM")
        return self.buf[pa : pa + size]

    def write(self, pa: int, data: bytes) -> None:
        if pa < 0 or pa + len(data) > self.size:
            raise ValueError(f"physical range {pa:#x}+{len(data)} outside RAM")
        self.buf[pa : pa + len(data)] = data

    def u64(self, pa: int) -> int:
        value: int = struct.unpack_from("<Q", self.buf, pa)[0]
        return value

    def put_u64(self, pa: int, value: int) -> None:
        struct.pack_into("<Q", self.buf, pa, value)


def build_boot_page_tables(mem: PhysMem, data: tuple[int, int], high: tuple[int, int] | None = None) -> int:
    """Kernel map (0xffffffff80000000 -> 0) and direct map (PAGE_OFFSET -> 0)
    over all RAM; no-execute: the direct map, and in the kernel map the kernel
    image's data, the physical range data=(start, end).  2 MiB pages, but 4 KiB
    ones where a 2 MiB page holds both data and code.  high=(start, end): memory
    in the second GiB (the perf pool, perf_pool.py), in the direct map too.
    Returns CR3."""
    assert mem.size <= 1 << 30, "boot page tables cover at most 1 GiB"
    if high is not None:
        start, end = high
        assert 1 << 30 <= start <= end <= 2 << 30 and not (start | end) & (PAGE_2M - 1), "high memory: 2 MiB pages of the second GiB"
        mem.put_u64(PDPT_DIRECT + 8, PD_DIRECT_HIGH | PTE_P | PTE_W)
        for base in range(start, end, PAGE_2M):
            mem.put_u64(PD_DIRECT_HIGH + 8 * ((base >> 21) & 511), base | PTE_P | PTE_W | PTE_PS | PTE_NX)
    data_start, data_end = (data[0] + PAGE_4K - 1) & ~(PAGE_4K - 1), data[1]  # text ends mid-page
    mem.put_u64(PML4 + 8 * ((PAGE_OFFSET >> 39) & 511), PDPT_DIRECT | PTE_P | PTE_W)
    mem.put_u64(PDPT_DIRECT, PD_DIRECT | PTE_P | PTE_W)
    mem.put_u64(PML4 + 8 * ((KERNEL_MAP >> 39) & 511), PDPT_KERNEL | PTE_P | PTE_W)
    mem.put_u64(PDPT_KERNEL + 8 * ((KERNEL_MAP >> 30) & 511), PD_KERNEL | PTE_P | PTE_W)

    def nx(start: int, end: int) -> int:
        inside = data_start <= start and end <= data_end
        assert inside or end <= data_start or start >= data_end
        return PTE_NX if inside else 0

    next_table = PT_KERNEL_SPLIT
    for i in range(mem.size // PAGE_2M):
        base = i * PAGE_2M
        mem.put_u64(PD_DIRECT + 8 * i, base | PTE_P | PTE_W | PTE_PS | PTE_NX)
        if base + PAGE_2M <= data_start or base >= data_end or (data_start <= base and base + PAGE_2M <= data_end):
            mem.put_u64(PD_KERNEL + 8 * i, base | PTE_P | PTE_W | PTE_PS | nx(base, base + PAGE_2M))
            continue
        assert next_table < PD_DIRECT_HIGH, "kernel image too large for the boot page tables"
        for j in range(PAGE_2M // PAGE_4K):
            pa = base + j * PAGE_4K
            mem.put_u64(next_table + 8 * j, pa | PTE_P | PTE_W | nx(pa, pa + PAGE_4K))
        mem.put_u64(PD_KERNEL + 8 * i, next_table | PTE_P | PTE_W)
        next_table += PAGE_4K
    return PML4


def kernel_virt_to_phys(vaddr: int) -> int:
    """Kernel image and direct-map addresses (the only ones the host touches)."""
    if vaddr >= KERNEL_MAP:
        return vaddr - KERNEL_MAP
    if PAGE_OFFSET <= vaddr < PAGE_OFFSET + (1 << 40):
        return vaddr - PAGE_OFFSET
    raise ValueError(f"{vaddr:#x} is not a kernel address")
