"""The host side of the kernel's ftrace_dump() (kernel_model/include/trace/ftrace_dump.h): the
kernel asks for the text of the top-level buffer a part at a time; each part is written into
ftrace_dump_state and the call-function interrupt raised, from which the kernel prints it."""
from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from .paging import PhysMem, kernel_virt_to_phys

if TYPE_CHECKING:
    from .image import KernelImage

_U32 = struct.Struct("<I")
_S32 = struct.Struct("<i")


class GuestFtraceDump:
    """contract.GuestFtraceDumpOps over the kernel's ftrace_dump_state."""

    def __init__(self, image: KernelImage, guest_op: Callable[[Callable[[], None]], object],
                 raise_call_function: Callable[[], None]):
        """guest_op(fn): fn done where the machine's runs allow a host write (Machine.guest_op)."""
        a = image.abi_value
        self.text_size = a("FTRACE_DUMP_TEXT_SIZE")
        self._off = {name: a(f"ftrace_dump_state.{name}") for name in ("running", "cpu", "asked", "len", "last",
                                                                        "ready", "text")}
        self._pa = kernel_virt_to_phys(image.abi_table("ftrace_dump_state").addr)
        self._guest_op = guest_op
        self._raise = raise_call_function
        self._mem: PhysMem | None = None

    def attach(self, mem: PhysMem) -> None:
        self._mem = mem

    def _u32(self, name: str) -> int:
        assert self._mem is not None
        return int(_U32.unpack_from(self._mem.buf, self._pa + self._off[name])[0])

    def asked(self) -> int | None:
        """The CPU whose buffer a waiting dump prints (-1: every CPU's), or None: no dump waits."""
        if self._mem is None or not (self._u32("running") and self._u32("asked")):
            return None
        return int(_S32.unpack_from(self._mem.buf, self._pa + self._off["cpu"])[0])

    def answer(self, text: bytes, last: bool) -> None:
        """The dump's next text (whole lines, at most text_size bytes; last: it ends the dump),
        and the interrupt the kernel prints it from."""
        if len(text) > self.text_size:
            raise ValueError("more text than the kernel's dump buffer holds")
        mem, pa, off = self._mem, self._pa, self._off
        assert mem is not None

        def write() -> None:
            mem.write(pa + off["text"], text)
            mem.write(pa + off["len"], _U32.pack(len(text)))
            mem.write(pa + off["last"], _U32.pack(int(last)))
            mem.write(pa + off["asked"], _U32.pack(0))
            mem.write(pa + off["ready"], _U32.pack(1))   # last: the kernel takes the rest after it
        self._guest_op(write)
        self._raise()
