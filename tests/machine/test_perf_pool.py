"""The perf pool (machine/perf_pool.py): regions of memory, each its own file, that the kernel
reaches through its direct map and a session's process maps (perf ring buffers)."""
import os
import struct

import pytest

from tracefs_sim.machine.image import PAGE_OFFSET
from tracefs_sim.machine.paging import PML4, PTE_NX, PTE_P, PTE_PS, PhysMem, build_boot_page_tables
from tracefs_sim.machine.perf_pool import BIG_REGION_SIZE, BIG_REGIONS, POOL_BASE, POOL_REGIONS, REGION_SIZE, PerfPool

ADDR_MASK = 0x000FFFFFFFFFF000


def translate(mem: PhysMem, vaddr: int) -> tuple[int, int] | None:
    """(physical address, leaf entry) of vaddr by the boot page tables; None: not mapped."""
    table = PML4
    for shift in (39, 30, 21):
        entry = mem.u64(table + 8 * ((vaddr >> shift) & 511))
        if not entry & PTE_P:
            return None
        if shift == 21:
            assert entry & PTE_PS
            return (entry & ADDR_MASK & ~((1 << 21) - 1)) + (vaddr & ((1 << 21) - 1)), entry
        table = entry & ADDR_MASK
    return None


def test_each_region_is_a_file_the_host_shares():
    pool = PerfPool(count=3, size=1 << 20, big_count=0)
    assert [r.pa for r in pool.regions] == [POOL_BASE, POOL_BASE + (1 << 20), POOL_BASE + (2 << 20)]
    assert pool.end == POOL_BASE + (3 << 20)
    os.pwrite(pool.regions[1].fd, b"data_head", 4096)          # as a process mapping it would
    assert pool.read(1, 4096, 9) == b"data_head"
    assert pool.read(0, 4096, 9) == bytes(9) and pool.read(2, 4096, 9) == bytes(9)
    with pytest.raises(ValueError):
        pool.read(0, (1 << 20) - 4, 8)


def test_the_direct_map_covers_the_pool_and_nothing_past_it():
    mem = PhysMem(64 << 20)
    pool = PerfPool(count=2, size=4 << 20, big_count=1, big_size=6 << 20)
    build_boot_page_tables(mem, (0x1011244, 0x12E2000), (pool.base, pool.end))
    for pa in (pool.base, pool.base + 0x1234, pool.end - 8):
        where, entry = translate(mem, PAGE_OFFSET + pa)
        assert where == pa and entry & PTE_NX
    assert translate(mem, PAGE_OFFSET + pool.end) is None
    assert translate(mem, PAGE_OFFSET + (64 << 20) - 8)[0] == (64 << 20) - 8   # RAM as before


def test_the_kernel_is_told_where_the_pool_is(make_machine, image):
    m = make_machine()
    params = struct.unpack("<10Q", m.read_memory(image.addr("boot_params"), 80))
    assert params[7:] == (POOL_BASE, POOL_REGIONS, REGION_SIZE)
    # then, after boot_monotonic_ns, its big regions (BPF ring buffers of more than 2 MiB)
    assert struct.unpack("<2Q", m.read_memory(image.addr("boot_params") + 88, 16)) == (BIG_REGIONS, BIG_REGION_SIZE)


def test_the_big_regions_follow_the_others_within_the_second_gib():
    pool = PerfPool(count=2, size=1 << 20, big_count=2, big_size=3 << 20)
    assert [(r.pa, r.size) for r in pool.regions] == [
        (POOL_BASE, 1 << 20), (POOL_BASE + (1 << 20), 1 << 20),
        (POOL_BASE + (2 << 20), 3 << 20), (POOL_BASE + (5 << 20), 3 << 20)]
    assert pool.end == POOL_BASE + (8 << 20)
    os.pwrite(pool.regions[3].fd, b"tail", (3 << 20) - 4)
    assert pool.read(3, (3 << 20) - 4, 4) == b"tail"
    default = PerfPool()
    assert default.end <= 2 << 30 and len(default.regions) <= 64   # the direct map's second GiB; the masks'
    default.close()
