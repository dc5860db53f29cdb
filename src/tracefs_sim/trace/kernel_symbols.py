"""The emulated kernel's symbols and text as the kprobe parser and registry ask about them
(kallsyms_lookup_name, kallsyms_lookup_size_offset, ftrace_location_range)."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable

from ..machine.contract import KernelSymbols


class ImageSymbols:
    """kprobe_spec.KernelSymbols over a KernelImage and the machine's read_memory()."""

    def __init__(self, image: KernelSymbols, read_memory: Callable[[int, int], bytes]):
        self._image = image
        self._read = read_memory
        self._counts = Counter(s.name for s in image.symbols)
        # The ftrace sites (one per traceable function), for ftrace_location_range().
        self._sites = sorted(image.mcount_sites.values())

    def lookup(self, name: str) -> int | None:
        # There are no modules: "MOD:sym" names nothing.
        if ":" in name:
            return None
        symbol = self._image.lookup(name)
        return None if symbol is None else symbol.addr

    def count(self, name: str) -> int:
        return self._counts.get(name, 0)

    def symbolize(self, addr: int) -> tuple[str, int, int] | None:
        found = self._image.kallsyms_lookup(addr)   # kallsyms_lookup_size_offset()
        return None if found is None else (found[0].name, found[1], found[2])

    def read_kernel(self, addr: int, size: int) -> bytes | None:
        try:
            return self._read(addr, size)
        except ValueError:
            return None

    def has_ftrace_location(self, start: int, end: int) -> bool:
        """ftrace_location_range(start, end): an ftrace site in [start, end]."""
        i = bisect.bisect_left(self._sites, start)
        return i < len(self._sites) and self._sites[i] <= end

    def within_notrace_func(self, addr: int) -> bool:
        """trace_kprobe.c's within_notrace_func(): the function holding addr has no ftrace site
        (Linux without CONFIG_KPROBE_EVENTS_ON_NOTRACE refuses probes in such functions); a
        suffixed symbol (``f.cold``) is judged by its parent."""
        if not self._notrace(addr):
            return False
        found = self.symbolize(addr)
        if found is not None and "." in found[0]:
            parent = self.lookup(found[0].split(".", 1)[0])
            if parent:
                return self._notrace(parent)
        return True

    def _notrace(self, addr: int) -> bool:
        """__within_notrace_func()."""
        found = self.symbolize(addr)
        if found is None:
            return False
        start = addr - found[1]
        return not self.has_ftrace_location(start, start + found[2] - 1)
