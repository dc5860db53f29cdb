"""The host's file tree as the emulated kernel's hostfs reads it (kernel_model/fs/hostfs.c):
the native server (native/hostfs.c) holds the host descriptors and answers the guest's
requests in the CPUs' `out` hook; this owns it for a machine."""
from __future__ import annotations

import ctypes

from . import native_lib
from .paging import PhysMem


class HostFs:
    def __init__(self, mem: PhysMem, root: str = "/"):
        lib = native_lib.load("ports")
        lib.hostfs_new.restype = ctypes.c_void_p
        lib.hostfs_new.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p]
        lib.hostfs_free.argtypes = [ctypes.c_void_p]
        self._free = lib.hostfs_free
        self.address = lib.hostfs_new(mem.address, mem.size, root.encode())
        if not self.address:
            raise OSError(f"hostfs: cannot open {root}")

    def close(self) -> None:
        """Once no CPU runs: the host descriptors go."""
        if self.address:
            self._free(self.address)
            self.address = None
