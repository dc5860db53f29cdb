#!/usr/bin/env python3
"""Sort a linked vmlinux's __mcount_loc in place (Linux's scripts/sorttable with
CONFIG_BUILDTIME_MCOUNT_SORT): the linker lays the table out in object order, but the
text of some objects lies elsewhere (.spinlock.text, .sched.text), and ftrace wants the
sites in address order."""
import struct
import sys


def sort_section(path: str, name: bytes) -> None:
    with open(path, "r+b") as f:
        elf = bytearray(f.read())
        if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
            sys.exit(f"{path}: not a little-endian ELF64 file")
        shoff, = struct.unpack_from("<Q", elf, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)

        def header(i: int) -> tuple[int, int, int]:
            base = shoff + i * shentsize
            sh_name, = struct.unpack_from("<I", elf, base)
            sh_offset, sh_size = struct.unpack_from("<QQ", elf, base + 0x18)
            return sh_name, sh_offset, sh_size

        _, strtab, _ = header(shstrndx)
        for i in range(shnum):
            sh_name, offset, size = header(i)
            end = elf.index(b"\0", strtab + sh_name)
            if bytes(elf[strtab + sh_name:end]) != name:
                continue
            entries = sorted(struct.unpack_from(f"<{size // 8}Q", elf, offset))
            struct.pack_into(f"<{len(entries)}Q", elf, offset, *entries)
            f.seek(0)
            f.write(elf)
            return


if __name__ == "__main__":
    sort_section(sys.argv[1], b"__mcount_loc")
