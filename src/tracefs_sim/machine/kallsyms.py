"""The emulated kernel's kallsyms: the /proc/kallsyms text and kallsyms_lookup_size_offset().

Linux's kallsyms table holds addresses and names, not sizes: scripts/kallsyms sorts the
symbols by address, and among symbols at one address puts linker-script symbols
(``__start_X``, ``__stop_X``, ``__end_X``, ``__X_start``, ``__X_end``) after the others and
then fewer leading underscores first (so ``startup_64`` before ``_stext``, ``entry_SYSCALL_64``
before ``__entry_text_start``).  A lookup (get_symbol_pos()) takes the first symbol of that
order at the address below, and the symbol's size is the distance to the next higher address
in the table (``_end`` for the last one): a function's padding belongs to it, and data symbols
are found too (CONFIG_KALLSYMS_ALL, which Debian's kernel has).  Only addresses in
[_stext, _end) are looked up there (is_ksym_addr()).
"""
from __future__ import annotations

import bisect
from typing import Generic, Protocol, Sequence, TypeVar


class _Sym(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def addr(self) -> int: ...
    @property
    def type(self) -> str: ...


S = TypeVar("S", bound=_Sym)


def _linker_provided(name: str) -> bool:
    """may_be_linker_script_provide_symbol() of scripts/kallsyms.c."""
    if len(name) < 8 or not name.startswith("__"):
        return False
    return (name.startswith(("__start_", "__stop_", "__end_"))
            or name.endswith(("_start", "_end")))


def kallsyms_order(symbols: Sequence[S]) -> list[S]:
    """The symbols in the order of the kallsyms table (compare_symbols() of scripts/kallsyms.c;
    the last tie-break, the order nm listed them in, is taken as the name's)."""
    return sorted(symbols, key=lambda s: (s.addr, _linker_provided(s.name),
                                          len(s.name) - len(s.name.lstrip("_")), s.name))


class Kallsyms(Generic[S]):
    """kallsyms_lookup_size_offset() over a symbol table."""

    def __init__(self, symbols: Sequence[S], start: int, end: int,
                 unnamed: tuple[int, int] | None = None):
        """unnamed: a [start, end) range no lookup names, though its symbols are listed: the
        model's stand-in for memory outside the image (Linux's dynamic ftrace trampolines)."""
        self.table = kallsyms_order(symbols)
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
