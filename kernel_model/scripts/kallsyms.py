#!/usr/bin/env python3
"""The kernel's kallsyms table (Linux's scripts/kallsyms, with --all-symbols and
--base-relative as x86-64's CONFIG_KALLSYMS_ALL builds): reads `nm -n` of a linked vmlinux
on stdin and writes the assembly of the table kernel/kallsyms.c reads, in 6.1's layout:

  kallsyms_offsets        .long per symbol: its address - kallsyms_relative_base
  kallsyms_relative_base  the lowest address
  kallsyms_num_syms       .long
  kallsyms_names          per symbol: its length, then its bytes (the type letter, the name)
                          as indexes into the token table
  kallsyms_markers        .long per 256 symbols: where the symbol starts in kallsyms_names
  kallsyms_seqs_of_names  3 bytes per symbol: the symbols in name order (lookups by name)
  kallsyms_token_table    the tokens, NUL-terminated
  kallsyms_token_index    .short per token: its offset in kallsyms_token_table

Linux compresses the names, each token standing for the byte pair most frequent at its turn;
here every token is one byte (token i is character i), a table the same decoder reads, larger
(some 150 KiB) but made in no time.  The symbols are in Linux's order (compare_symbols()),
which every lookup and /proc/kallsyms follow; the Makefile links twice with the table, so that
its own size is in the addresses of the second (the kallsyms_* symbols are left out of it, as
Linux's, so both passes list the same symbols)."""
import sys

# is_ignored_symbol(): the table's own symbols, which pass 1 has not
IGNORED = {"kallsyms_addresses", "kallsyms_offsets", "kallsyms_relative_base", "kallsyms_num_syms",
           "kallsyms_names", "kallsyms_markers", "kallsyms_token_table", "kallsyms_token_index",
           "kallsyms_seqs_of_names"}
# The model's stand-ins for memory 6.1 allocates outside the image (module_alloc()): the BPF
# JIT's program pack and the trampolines' pages.  6.1's table has no symbol there; what the
# kernel writes in them is listed by its own name (`bpf_prog_<tag>_<name>`,
# `bpf_trampoline_<key>`, the [bpf] module), which an area symbol at the same address would shadow.
MODULE_MEMORY = {"bpf_prog_pack", "bpf_tramp_area"}
KSYM_NAME_LEN = 512


def linker_provided(name: str) -> bool:
    """may_be_linker_script_provide_symbol()."""
    if len(name) < 8 or not name.startswith("__"):
        return False
    return name.startswith(("__start_", "__stop_", "__end_")) or name.endswith(("_start", "_end"))


def read_symbols(lines: list[str]) -> list[tuple[int, str, str]]:
    """(address, type letter, name) of what the table keeps, in nm's order."""
    out = []
    for line in lines:
        fields = line.split()
        if len(fields) != 3:
            continue  # an undefined symbol: no address
        addr, letter, name = fields
        if letter in "UuNnAa" or name in IGNORED or name in MODULE_MEMORY:
            continue  # undefined, debugging, absolute (x86-64 keeps none of these)
        out.append((int(addr, 16), letter, name))
    return out


def order(symbols: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """compare_symbols(): by address; then strong before weak, others before linker-script
    symbols, fewer leading underscores first; else nm's order."""
    keyed = [(addr, letter in "wW", linker_provided(name), len(name) - len(name.lstrip("_")), pos, (addr, letter, name))
             for pos, (addr, letter, name) in enumerate(symbols)]
    return [k[-1] for k in sorted(keyed)]


def write_src(table: list[tuple[int, str, str]], out: list[str]) -> None:
    base = min(addr for addr, _, _ in table)
    out.append('\t.section .rodata.kallsyms, "a"\n')

    def label(name: str, align: int) -> None:
        out.append(f"\t.balign {align}\n\t.globl {name}\n{name}:\n")

    label("kallsyms_offsets", 4)
    for addr, _, name in table:
        offset = addr - base
        if offset > 0xFFFFFFFF:
            sys.exit(f"kallsyms failure: {name} at {addr:#x} out of range of the relative base {base:#x}")
        out.append(f"\t.long {offset:#x}\n")
    label("kallsyms_relative_base", 8)
    out.append(f"\t.quad {base:#x}\n")
    label("kallsyms_num_syms", 4)
    out.append(f"\t.long {len(table)}\n")

    label("kallsyms_names", 1)
    markers, off = [], 0
    for i, (_, letter, name) in enumerate(table):
        if i % 256 == 0:
            markers.append(off)
        sym = (letter + name).encode()
        if len(sym) > 0x3FFF or len(name) >= KSYM_NAME_LEN:
            sys.exit(f"kallsyms failure: {name} is too long")
        # the length as ULEB128: one byte up to 0x7f
        length = [len(sym)] if len(sym) <= 0x7F else [len(sym) & 0x7F | 0x80, len(sym) >> 7]
        out.append("\t.byte " + ", ".join(f"{b:#04x}" for b in length + list(sym)) + "\n")
        off += len(length) + len(sym)
    label("kallsyms_markers", 4)
    out.extend(f"\t.long {m}\n" for m in markers)

    # by name (the type letter left out), ties by address, then by table order
    by_name = sorted(range(len(table)), key=lambda i: (table[i][2].encode(), table[i][0], i))
    label("kallsyms_seqs_of_names", 1)
    out.extend(f"\t.byte {i >> 16 & 0xFF:#04x}, {i >> 8 & 0xFF:#04x}, {i & 0xFF:#04x}\n" for i in by_name)

    # token i is character i (token 0, NUL, is never used: names have none)
    label("kallsyms_token_table", 1)
    out.extend(f"\t.byte {i:#04x}, 0\n" if i else "\t.byte 0\n" for i in range(256))
    label("kallsyms_token_index", 2)
    out.extend(f"\t.short {max(0, 2 * i - 1)}\n" for i in range(256))


def main() -> None:
    table = order(read_symbols(sys.stdin.read().splitlines()))
    if not table:
        sys.exit("kallsyms failure: no symbols")
    out: list[str] = []
    write_src(table, out)
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
