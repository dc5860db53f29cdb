"""Where no kprobe may go (kernel/kprobes.c's kprobe blacklist, and x86's kretprobe_blacklist):
the NOKPROBE_SYMBOL entries, the kprobes text area and the entry text, as
/sys/kernel/debug/kprobes/blacklist lists them."""
from __future__ import annotations

from ...machine.contract import PatchableImage

# kretprobe_blacklist[] of arch/x86/kernel/kprobes/core.c
KRETPROBE_BLACKLIST = ("__switch_to",)

# (start, end, symbol)
Entry = tuple[int, int, str]


class Blacklist:
    def __init__(self, image: PatchableImage):
        self._image = image
        self._text = image.text_range
        self.entries = self._populate()
        self._kretprobe = {s.addr for s in (image.lookup(n) for n in KRETPROBE_BLACKLIST) if s}

    def _populate(self) -> list[Entry]:
        """populate_kprobe_blacklist(): NOKPROBE_SYMBOL entries, then the kprobes text area,
        then the entry text (arch_populate_kprobe_blacklist)."""
        img = self._image
        out = []
        start, stop = img.addr("__start_kprobe_blacklist"), img.addr("__stop_kprobe_blacklist")
        for a in range(start, stop, 8):
            entry = self._ksym_entry(img.u64(a))
            if entry:
                out.append(entry)
        for lo, hi in (("__kprobes_text_start", "__kprobes_text_end"),
                       ("__entry_text_start", "__entry_text_end")):
            out += self._area(img.addr(lo), img.addr(hi))
        return out

    def _ksym_entry(self, addr: int) -> Entry | None:
        """kprobe_add_ksym_blacklist(): from the entry, kallsyms' size of its symbol on."""
        if not self._text[0] <= addr < self._text[1]:
            return None
        found = self._image.kallsyms_lookup(addr)
        if found is None:
            return None
        sym, _, size = found
        return (addr, addr + size, sym.name)

    def _area(self, start: int, end: int) -> list[Entry]:
        out, pos = [], start
        while pos < end:
            entry = self._ksym_entry(pos)
            if entry is None:
                pos += 1
                continue
            out.append(entry)
            pos = max(entry[1], pos + 1)
        return out

    def __contains__(self, addr: int) -> bool:
        """within_kprobe_blacklist()."""
        return any(lo <= addr < hi for lo, hi, _ in self.entries)

    def refuses_return(self, addr: int) -> bool:
        """A function no kretprobe may take (kretprobe_blacklist)."""
        return addr in self._kretprobe

    def text(self) -> str:
        """debug/kprobes/blacklist."""
        return "".join(f"0x{lo:016x}-0x{hi:016x}\t{name}\n" for lo, hi, name in self.entries)
