"""The emulated kernel's JITed BPF programs as kallsyms names them (kernel_model/kernel/bpf/core.c's
bpf_jit_ksyms[]: a line per program the JIT compiled, `bpf_prog_<tag>_<name>`, with the start and
end of its code in the program pack), for /proc/kallsyms and `tracefs-sim disasm`, as 6.1's
bpf_get_kallsym() lists them.  Read on demand, never per event."""
from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Protocol

from .contract import KernelSymbols


class AbiImage(KernelSymbols, Protocol):
    """An image that says what its kernel was built with (the host ABI table)."""

    def abi_value(self, name: str) -> int: ...


class BpfJitSymbols:
    """The kernel's table, read when asked for (with every CPU stopped between two slices:
    a line being written has no start yet, one being removed has none any more)."""

    def __init__(self, image: AbiImage, read_memory: Callable[[int, int], bytes]):
        table = image.lookup("bpf_jit_ksyms")
        if table is None:
            raise LookupError("the kernel has no BPF JIT")
        self._read_memory = read_memory
        self._addr = table.addr
        self._count = image.abi_value("BPF_JIT_KSYMS")
        self._name_len = image.abi_value("BPF_JIT_KSYM_LEN")
        self._entry = struct.Struct(f"<QQ{self._name_len}s")

    @staticmethod
    def present(image: KernelSymbols) -> bool:
        return image.lookup("bpf_jit_ksyms") is not None

    def symbols(self) -> list[tuple[str, int, int]]:
        """(name, start, end) of each JITed program now, by address."""
        data = self._read_memory(self._addr, self._entry.size * self._count)
        out = [(raw.split(b"\0", 1)[0].decode("latin-1"), start, end)
               for start, end, raw in self._entry.iter_unpack(data) if start]
        return sorted(out, key=lambda t: t[1])
