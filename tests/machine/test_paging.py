"""Boot page tables: what is executable (see machine/paging.py for why it matters)."""
from tracefs_sim.machine.image import KERNEL_MAP, PAGE_OFFSET
from tracefs_sim.machine.paging import PML4, PTE_NX, PTE_P, PTE_PS, PhysMem, build_boot_page_tables

RAM = 64 << 20
TEXT_END, DATA_END = 0x1011244, 0x12E2000  # physical: text from 16 MiB, then the image's data


def leaf(mem: PhysMem, vaddr: int) -> int:
    """The page-table entry that maps vaddr (2 MiB or 4 KiB)."""
    table = PML4
    for shift in (39, 30, 21, 12):
        entry = mem.u64(table + 8 * ((vaddr >> shift) & 511))
        assert entry & PTE_P, hex(vaddr)
        if shift == 12 or (shift == 21 and entry & PTE_PS):
            return entry
        table = entry & 0x000FFFFFFFFFF000


def test_only_code_is_executable():
    mem = PhysMem(RAM)
    build_boot_page_tables(mem, (TEXT_END, DATA_END))

    def executable(vaddr: int) -> bool:
        return not leaf(mem, vaddr) & PTE_NX

    assert executable(KERNEL_MAP + 0x1000000)              # text
    assert executable(KERNEL_MAP + 0x1011000)              # its last page: text ends mid-page
    assert not executable(KERNEL_MAP + 0x1012000)          # the image's data, after text
    assert not executable(KERNEL_MAP + DATA_END - 0x1000)
    assert executable(KERNEL_MAP + DATA_END)               # RAM after the image: the alias PORT_CODE uses
    assert executable(KERNEL_MAP + RAM - 0x1000)
    for pa in (0, 0x1000000, DATA_END, RAM - 0x1000):      # the direct map: never
        assert not executable(PAGE_OFFSET + pa)
