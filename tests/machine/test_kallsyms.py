"""kallsyms as Linux builds and searches it (scripts/kallsyms.c, kernel/kallsyms.c)."""
from tracefs_sim.machine.image import Symbol
from tracefs_sim.machine.kallsyms import Kallsyms, kallsyms_order, kallsyms_text

START, END = 0xFFFFFFFF81000000, 0xFFFFFFFF82000000


def _table(*rows):
    return [Symbol(name, START + off, size, kind) for name, off, size, kind in rows]


def test_aliases_are_ordered_as_scripts_kallsyms_sorts_them():
    syms = _table(("_stext", 0, 0, "T"), ("_text", 0, 0, "T"), ("startup_64", 0, 10, "T"),
                  ("__entry_text_start", 0x20, 0, "T"), ("entry_SYSCALL_64", 0x20, 0x30, "T"),
                  ("__kprobes_text_start", 0x60, 0, "T"), ("__kprobes_text_end", 0x60, 0, "T"),
                  ("__key.1", 0x80, 8, "b"), ("cleanup_list", 0x80, 8, "b"))
    names = [s.name for s in kallsyms_order(list(reversed(syms)))]
    # fewer leading underscores first; linker-script names after the others
    assert names == ["startup_64", "_stext", "_text", "entry_SYSCALL_64", "__entry_text_start",
                     "__kprobes_text_end", "__kprobes_text_start", "cleanup_list", "__key.1"]


def test_lookup_sizes_run_to_the_next_address_and_data_counts():
    syms = _table(("_stext", 0, 0, "T"), ("f", 0x10, 0x9, "T"), ("g", 0x20, 0x8, "t"),
                  ("g_alias", 0x20, 0x8, "t"), ("jiffies", 0x100, 8, "D"), ("_end", 0x1000, 0, "B"))
    k = Kallsyms(syms, START, START + 0x1000)
    sym, off, size = k.lookup(START + 0x1F)            # f's padding is f's
    assert (sym.name, off, size) == ("f", 0xF, 0x10)
    sym, off, size = k.lookup(START + 0x20)
    assert (sym.name, off, size) == ("g", 0, 0xE0)     # the first alias; up to jiffies
    sym, off, size = k.lookup(START + 0x108)
    assert (sym.name, off, size) == ("jiffies", 8, 0x1000 - 0x100)   # the last one: up to _end
    assert k.lookup(START + 0x1000) is None            # _end itself is past the kernel
    assert k.lookup(START - 1) is None


def test_the_images_kallsyms(image):
    vfs_read = image.lookup("vfs_read")
    following = min(s.addr for s in image.symbols if s.addr > vfs_read.addr)
    sym, off, size = image.kallsyms_lookup(following - 1)
    assert (sym.name, off, size) == ("vfs_read", following - 1 - vfs_read.addr, following - vfs_read.addr)
    jiffies = image.lookup("jiffies")
    assert image.kallsyms_lookup(jiffies.addr)[:2] == (jiffies, 0)
    assert image.kallsyms_lookup(image.addr("_end")) is None
    lines = kallsyms_text(image.kallsyms).splitlines()
    assert len(lines) == len(image.symbols)
    assert [int(l.split()[0], 16) for l in lines] == sorted(s.addr for s in image.symbols)
    assert lines.index(f"{image.addr('_stext'):016x} T _stext") > lines.index(f"{image.addr('_stext'):016x} T startup_64")
