"""/proc/kallsyms text for the emulated kernel."""
from __future__ import annotations

from .image import KernelImage


def kallsyms_text(image: KernelImage) -> str:
    """`%016lx %c %s` lines sorted by address, as /proc/kallsyms prints them
    to a privileged reader."""
    return "".join(f"{s.addr:016x} {s.type} {s.name}\n" for s in image.symbols)
