"""kallsyms as Linux builds and searches it (scripts/kallsyms.c, kernel/kallsyms.c)."""
import importlib.util
import subprocess
from pathlib import Path

from tracefs_sim.machine.image import Symbol
from tracefs_sim.machine.kallsyms import Kallsyms, kallsyms_text, read_table

_SCRIPT = Path(__file__).resolve().parents[2] / "kernel_model" / "scripts" / "kallsyms.py"
_spec = importlib.util.spec_from_file_location("build_kallsyms", _SCRIPT)
assert _spec is not None and _spec.loader is not None
build_kallsyms = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_kallsyms)

START, END = 0xFFFFFFFF81000000, 0xFFFFFFFF82000000


def _table(*rows):
    return [Symbol(name, START + off, size, kind) for name, off, size, kind in rows]


def test_the_build_orders_aliases_as_scripts_kallsyms_sorts_them():
    syms = _table(("_stext", 0, 0, "T"), ("_text", 0, 0, "T"), ("startup_64", 0, 10, "T"),
                  ("__entry_text_start", 0x20, 0, "T"), ("entry_SYSCALL_64", 0x20, 0x30, "T"),
                  ("__kprobes_text_start", 0x60, 0, "T"), ("__kprobes_text_end", 0x60, 0, "T"),
                  ("__key.1", 0x80, 8, "b"), ("cleanup_list", 0x80, 8, "b"))
    nm_order = sorted((s.addr, s.type, s.name) for s in syms)   # nm -n: by address, then name
    names = [name for _, _, name in build_kallsyms.order(nm_order)]
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
    # every symbol but the table's own (scripts/kallsyms' ignored ones) and the stand-ins for
    # module memory (the BPF areas, whose programs and trampolines come by their own names)
    listed = [s for s in image.symbols if (not s.name.startswith("kallsyms_") or s.is_text)
              and s.name not in build_kallsyms.MODULE_MEMORY]
    assert {"bpf_prog_pack", "bpf_tramp_area"} <= {s.name for s in image.symbols} - {s.name for s in listed}
    assert len(lines) == len(listed)
    assert sorted(read_table(image.read, image.addr)) == sorted((s.addr, s.type, s.name) for s in listed)
    assert [int(l.split()[0], 16) for l in lines] == sorted(s.addr for s in listed)
    assert lines.index(f"{image.addr('_stext'):016x} T _stext") > lines.index(f"{image.addr('_stext'):016x} T startup_64")


def test_the_image_carries_the_table_of_its_own_symbols(vmlinux, image):
    """The link's last pass: the table the build writes from the finished image is the one in it."""
    nm = subprocess.run(["nm", "-n", vmlinux], capture_output=True, text=True, check=True, timeout=60).stdout
    assert read_table(image.read, image.addr) == build_kallsyms.order(build_kallsyms.read_symbols(nm.splitlines()))
