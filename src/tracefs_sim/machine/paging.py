"""Physical RAM shared by all CPUs, the boot page tables, address translation.

RAM is one anonymous mmap; every CPU's Unicorn maps it with mem_map_ptr, and
the host reads and writes guest memory through the same buffer.
"""
from __future__ import annotations

import ctypes
import mmap
import struct

from .image import KERNEL_MAP, PAGE_OFFSET

PTE_P, PTE_W, PTE_PS = 0x1, 0x2, 0x80
PAGE_2M = 1 << 21
# Boot page tables live in the first 64 KiB of RAM, below the kernel (16 MiB).
PML4, PDPT_DIRECT, PD_DIRECT, PDPT_KERNEL, PD_KERNEL = 0x1000, 0x2000, 0x3000, 0x4000, 0x5000


class PhysMem:
    def __init__(self, size: int):
        self.size = size
        self.buf = mmap.mmap(-1, size)
        self._cbuf = (ctypes.c_char * size).from_buffer(self.buf)
        self.address = ctypes.addressof(self._cbuf)

    def read(self, pa: int, size: int) -> bytes:
        if pa < 0 or pa + size > self.size:
            raise ValueError(f"physical range {pa:#x}+{size} outside RAM")
        return self.buf[pa : pa + size]

    def write(self, pa: int, data: bytes) -> None:
        if pa < 0 or pa + len(data) > self.size:
            raise ValueError(f"physical range {pa:#x}+{len(data)} outside RAM")
        self.buf[pa : pa + len(data)] = data

    def u64(self, pa: int) -> int:
        return struct.unpack_from("<Q", self.buf, pa)[0]

    def put_u64(self, pa: int, value: int) -> None:
        struct.pack_into("<Q", self.buf, pa, value)


def build_boot_page_tables(mem: PhysMem) -> int:
    """Kernel map (0xffffffff80000000 -> 0) and direct map (PAGE_OFFSET -> 0),
    2 MiB pages over all RAM. Returns CR3."""
    assert mem.size <= 1 << 30, "boot page tables cover at most 1 GiB"
    mem.put_u64(PML4 + 8 * ((PAGE_OFFSET >> 39) & 511), PDPT_DIRECT | PTE_P | PTE_W)
    mem.put_u64(PDPT_DIRECT, PD_DIRECT | PTE_P | PTE_W)
    mem.put_u64(PML4 + 8 * ((KERNEL_MAP >> 39) & 511), PDPT_KERNEL | PTE_P | PTE_W)
    mem.put_u64(PDPT_KERNEL + 8 * ((KERNEL_MAP >> 30) & 511), PD_KERNEL | PTE_P | PTE_W)
    for i in range(mem.size // PAGE_2M):
        mem.put_u64(PD_DIRECT + 8 * i, i * PAGE_2M | PTE_P | PTE_W | PTE_PS)
        mem.put_u64(PD_KERNEL + 8 * i, i * PAGE_2M | PTE_P | PTE_W | PTE_PS)
    return PML4


def kernel_virt_to_phys(vaddr: int) -> int:
    """Kernel image and direct-map addresses (the only ones the host touches)."""
    if vaddr >= KERNEL_MAP:
        return vaddr - KERNEL_MAP
    if PAGE_OFFSET <= vaddr < PAGE_OFFSET + (1 << 40):
        return vaddr - PAGE_OFFSET
    raise ValueError(f"{vaddr:#x} is not a kernel address")
