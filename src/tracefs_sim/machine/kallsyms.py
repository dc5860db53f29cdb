"""The emulated kernel's kallsyms: the /proc/kallsyms text and kallsyms_lookup_size_offset(),
read from the table the kernel itself carries (kernel/kallsyms.c; the build links it into the
image: kernel_model/scripts/kallsyms.py, which also decides its order and what it leaves out).

Linux's kallsyms table holds addresses and names, not sizes.  A lookup (get_symbol_pos())
takes the first symbol of the table's order at the address below, and the symbol's size is the
distance to the next higher address in the table (``_end`` for the last one): a function's
padding belongs to it, and data symbols are found too (CONFIG_KALLSYMS_ALL, which Debian's
kernel has).  Only addresses in [_stext, _end) are looked up there (is_ksym_addr()).
"""
from __future__ import annotations

import bisect
import struct
from collections.abc import Callable
from typing import Generic, Protocol, Sequence, TypeVar


class _Sym(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def addr(self) -> int: ...
    @property
    def type(self) -> str: ...


S = TypeVar("S", bound=_Sym)


def read_table(read: Callable[[int, int], bytes], addr: Callable[[str], int]) -> list[tuple[int, str, str]]:
    """(address, type letter, name) of each symbol of an image's kallsyms table, in its order:
    read(address, size) reads the image, addr(name) is a symbol's address.  The names are
    decoded through the token table, as kallsyms_expand_symbol() does."""
    count, = struct.unpack("<I", read(addr("kallsyms_num_syms"), 4))
    base, = struct.unpack("<Q", read(addr("kallsyms_relative_base"), 8))
    offsets = struct.unpack(f"<{count}I", read(addr("kallsyms_offsets"), 4 * count))
    index = struct.unpack("<256H", read(addr("kallsyms_token_index"), 2 * 256))
    tokens_at = addr("kallsyms_token_table")
    token_bytes = read(tokens_at, addr("kallsyms_token_index") - tokens_at)
    tokens = [token_bytes[i:token_bytes.index(b"\0", i)] for i in index]
    names_at = addr("kallsyms_names")
    names = read(names_at, addr("kallsyms_markers") - names_at)
    out, pos = [], 0
    for offset in offsets:
        length = names[pos]
        pos += 1
        if length & 0x80:  # two ULEB128 bytes
            length = (length & 0x7F) | names[pos] << 7
            pos += 1
        sym = b"".join(tokens[b] for b in names[pos:pos + length]).decode()
        pos += length
        out.append((base + offset, sym[0], sym[1:]))
    return out


class Kallsyms(Generic[S]):
    """kallsyms_lookup_size_offset() over a symbol table."""

    def __init__(self, table: Sequence[S], start: int, end: int,
                 unnamed: tuple[int, int] | None = None):
        """table: the symbols in the table's order; unnamed: a [start, end) range no lookup
        names, though its symbols are listed: the model's stand-in for memory outside the
        image (Linux's dynamic ftrace trampolines)."""
        self.table = list(table)
        self._addrs = [s.addr for s in self.table]
        self._start, self._end = start, end
        self._unnamed = unnamed

    def lookup(self, addr: int) -> tuple[S, int, int] | None:
        """(symbol, offset into it, size) for an address in [_stext, _end), else None."""
        if not self._start <= addr < self._end:
            return None
        if self._unnamed is not None and self._unnamed[0] <= addr < self._unnamed[1]:
            return None
        i = bisect.bisect_right(self._addrs, addr) - 1
        if i < 0:
            return None
        start = self._addrs[i]
        first = bisect.bisect_left(self._addrs, start)  # the first of the aliases
        nxt = bisect.bisect_right(self._addrs, start)
        stop = self._addrs[nxt] if nxt < len(self._addrs) else self._end
        return self.table[first], addr - start, stop - start


def kallsyms_text(kallsyms: Kallsyms[S]) -> str:
    """`%016lx %c %s` lines in the kallsyms table's order, as /proc/kallsyms prints them
    to a privileged reader."""
    return "".join(f"{s.addr:016x} {s.type} {s.name}\n" for s in kallsyms.table)
