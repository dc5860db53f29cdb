"""The host side of the guest's histogram maps (kernel_model/include/trace/tracing_map.h).

A hist trigger's map lives in the guest: hist_maps[] holds each map's description and
counters, hist_arena its table (2 * max_elts entries of {key hash, element + 1}) and its
elements (key, comm, u64 sums).  This module lays a map out (first fit in the arena), and
reads, clears, pauses and frees it, every time with the CPUs stopped (the guest inserts
with atomics of its own, which a host read-modify-write would race).
"""
from __future__ import annotations

import errno
import struct
import threading
from typing import TYPE_CHECKING

from .contract import HistEntry, HistField, HistMapSpec, HistSnapshot
from .paging import PhysMem, kernel_virt_to_phys

if TYPE_CHECKING:
    from .machine import Machine

_MAP_HEAD = struct.Struct("<8I2Q2Q")            # struct hist_map up to keys[]
_KEY = struct.Struct("<BBBBHHIIQ")               # struct hist_key_field
_VAL = struct.Struct("<BBBBHH")                  # struct hist_val_field
_COMM_LEN = 16


class GuestHistMaps:
    """contract.HistMapOps over hist_maps and hist_arena."""

    def __init__(self, machine: Machine):
        self._machine = machine
        image = machine.image
        a = image.abi_value
        self._nr = a("HIST_MAPS_MAX")
        self._arena_size = a("HIST_ARENA_SIZE")
        self._kind = {"num": a("HF_NUM"), "cpu": a("HF_CPU"), "str": a("HF_STR"), "dyn_str": a("HF_DYN_STR"),
                      "hitcount": a("HF_HITCOUNT")}
        self._log2, self._buckets = a("HF_LOG2"), a("HF_BUCKETS")
        self._size = a("sizeof(hist_map)")
        if a("sizeof(hist_key_field)") != _KEY.size or a("sizeof(hist_val_field)") != _VAL.size or \
                a("hist_map.keys") != _MAP_HEAD.size:
            raise ValueError("kernel image's hist_map layout does not match this machine")
        self._keys_at, self._vals_at = a("hist_map.keys"), a("hist_map.vals")
        self._paused_at = a("hist_map.paused")
        self._keys_max, self._vals_max = a("HIST_KEYS_MAX"), a("HIST_VALS_MAX")
        maps, arena = image.lookup("hist_maps"), image.lookup("hist_arena")
        if maps is None or arena is None or maps.size != self._nr * self._size or arena.size != self._arena_size:
            raise ValueError("kernel image's hist_maps layout does not match its host ABI")
        self._maps_va, self._arena_va = maps.addr, arena.addr
        self._mem: PhysMem | None = None
        self._lock = threading.Lock()
        self._used: dict[int, tuple[int, int, HistMapSpec]] = {}   # map index -> (arena offset, bytes, spec)

    def attach(self, mem: PhysMem) -> None:
        with self._lock:
            self._mem = mem

    @staticmethod
    def _elt_size(spec: HistMapSpec) -> int:
        return spec.key_size + (_COMM_LEN if spec.comm else 0) + 8 * len(spec.vals)

    def create(self, spec: HistMapSpec) -> int:
        if len(spec.keys) > self._keys_max or len(spec.vals) > self._vals_max:
            raise OSError(errno.EINVAL, "too many histogram fields")
        max_elts = 1 << spec.map_bits
        table = 8 * 2 * max_elts
        need = (table + max_elts * self._elt_size(spec) + 4095) & ~4095

        def make() -> int:
            with self._lock:
                index = next((i for i in range(self._nr) if i not in self._used), None)
                if index is None:
                    raise OSError(errno.ENOMEM, "no histogram map left")
                at = self._fit(need)
                self._used[index] = (at, need, spec)
                if self._mem is None:
                    raise OSError(errno.ENODEV, "the machine has no memory yet")
                buf = self._mem.buf
                base = kernel_virt_to_phys(self._arena_va) + at
                buf[base:base + need] = bytes(need)
                self._write_head(index, at, table, spec)
                return self._maps_va + index * self._size
        return self._machine.with_cpus_stopped(make)

    def _fit(self, need: int) -> int:
        """First fit in the arena."""
        at = 0
        for start, size, _ in sorted(self._used.values()):
            if start - at >= need:
                return at
            at = max(at, start + size)
        if self._arena_size - at < need:
            raise OSError(errno.ENOMEM, "histogram maps are out of room")
        return at

    def _write_head(self, index: int, at: int, table: int, spec: HistMapSpec) -> None:
        buf = self._mem.buf
        pa = kernel_virt_to_phys(self._maps_va) + index * self._size
        buf[pa:pa + self._size] = bytes(self._size)
        comm_offset = spec.key_size if spec.comm else 0
        _MAP_HEAD.pack_into(buf, pa, spec.map_bits, spec.key_size, len(spec.keys), len(spec.vals),
                            self._elt_size(spec), comm_offset, 0, 0, 0, 0,
                            self._arena_va + at, self._arena_va + at + table)
        for i, k in enumerate(spec.keys):
            _KEY.pack_into(buf, pa + self._keys_at + _KEY.size * i, self._kind[k.kind], k.size & 0xFF,
                           int(k.is_signed), self._log2 * k.log2 | self._buckets * bool(k.buckets), k.offset,
                           k.key_offset, k.str_size, 0, k.buckets)
        for i, v in enumerate(spec.vals):
            _VAL.pack_into(buf, pa + self._vals_at + _VAL.size * i, self._kind[v.kind], v.size & 0xFF,
                           int(v.is_signed), 0, v.offset, 0)

    def _index(self, addr: int) -> int:
        index, rest = divmod(addr - self._maps_va, self._size)
        if rest or index not in self._used:
            raise KeyError(f"no histogram map at {addr:#x}")
        return index

    def destroy(self, addr: int) -> None:
        def free():
            with self._lock:
                self._used.pop(self._index(addr))
        self._machine.with_cpus_stopped(free)

    def read(self, addr: int) -> HistSnapshot:
        def take() -> HistSnapshot:
            with self._lock:
                index = self._index(addr)
                at, _, spec = self._used[index]
                buf = self._mem.buf
                pa = kernel_virt_to_phys(self._maps_va) + index * self._size
                head = _MAP_HEAD.unpack_from(buf, pa)
                hits, drops = head[8], head[9]
                base = kernel_virt_to_phys(self._arena_va) + at
                size = 2 << spec.map_bits
                elt_size = self._elt_size(spec)
                elts = base + 8 * size
                n_vals = len(spec.vals)
                out = []
                for key_hash, val in struct.iter_unpack("<II", bytes(buf[base:base + 8 * size])):
                    if not key_hash or not val:
                        continue
                    e = elts + (val - 1) * elt_size
                    key = bytes(buf[e:e + spec.key_size])
                    comm = bytes(buf[e + spec.key_size:e + spec.key_size + _COMM_LEN]) if spec.comm else b""
                    sums = struct.unpack_from(f"<{n_vals}Q", buf, e + elt_size - 8 * n_vals)
                    out.append(HistEntry(key, comm, sums))
                return HistSnapshot(hits, drops, tuple(out))
        return self._machine.with_cpus_stopped(take)

    def clear(self, addr: int) -> None:
        """tracing_map_clear(): no entries, no hits, no drops."""
        def wipe():
            with self._lock:
                index = self._index(addr)
                at, need, spec = self._used[index]
                buf = self._mem.buf
                base = kernel_virt_to_phys(self._arena_va) + at
                buf[base:base + need] = bytes(need)
                pa = kernel_virt_to_phys(self._maps_va) + index * self._size
                paused = struct.unpack_from("<I", buf, pa + self._paused_at)[0]
                self._write_head(index, at, 8 * (2 << spec.map_bits), spec)
                struct.pack_into("<I", buf, pa + self._paused_at, paused)
        self._machine.with_cpus_stopped(wipe)

    def set_paused(self, addr: int, paused: bool) -> None:
        def write():
            with self._lock:
                pa = kernel_virt_to_phys(self._maps_va) + self._index(addr) * self._size
                struct.pack_into("<I", self._mem.buf, pa + self._paused_at, int(paused))
        self._machine.with_cpus_stopped(write)

    def paused(self, addr: int) -> bool:
        def read() -> bool:
            with self._lock:
                pa = kernel_virt_to_phys(self._maps_va) + self._index(addr) * self._size
                return bool(struct.unpack_from("<I", self._mem.buf, pa + self._paused_at)[0])
        return self._machine.with_cpus_stopped(read)
