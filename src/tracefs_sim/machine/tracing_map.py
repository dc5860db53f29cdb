"""The host side of the guest's histogram maps (kernel_model/include/trace/tracing_map.h).

A hist trigger's map lives in the guest: hist_maps[] holds each map's description and
counters, hist_arena its table (2 * max_elts entries of {key hash, element + 1}) and its
elements (key, comm, u64 sums).  This module lays a map out (first fit in the arena), and
reads, clears, pauses and frees it, every time with the CPUs stopped (the guest inserts
with atomics of its own, which a host read-modify-write would race).
"""
from __future__ import annotations

import errno
import mmap
import struct
import threading
from typing import TYPE_CHECKING

from .contract import STR_VAR_LEN_MAX, HistEntry, HistExprStep, HistField, HistMapSpec, HistSnapshot
from .paging import PhysMem, kernel_virt_to_phys

if TYPE_CHECKING:
    from .machine import Machine

_MAP_HEAD = struct.Struct("<8I2Q2Q")            # struct hist_map up to keys[]
_KEY = struct.Struct("<BBBBHHIIQ")               # struct hist_key_field
_VAL = struct.Struct("<BBBBHH")                  # struct hist_val_field
_TAIL = struct.Struct("<6I")                     # hist_map from sums_offset to vars[]
_VAR = struct.Struct("<HH")                      # struct hist_var
_REF = struct.Struct("<QHB5x")                   # struct hist_var_ref
_EXPR = struct.Struct("<BBBBHHQ")                # struct hist_expr
_ACTION = struct.Struct("<BBBBIIIQ")             # struct hist_action up to params[]
_PARAM = struct.Struct("<BBBBHH")                # struct hist_param
_COND = struct.Struct("<QII")                    # struct hist_cond_snapshot up to key[]
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
                      "hitcount": a("HF_HITCOUNT"), "stacktrace": a("HF_STACKTRACE"), "expr": a("HF_EXPR")}
        self._log2, self._buckets = a("HF_LOG2"), a("HF_BUCKETS")
        self._ops = {op: a("HE_" + op.upper()) for op in ("field", "cpu", "ts", "ts_usecs", "ref", "const", "plus",
                                                          "minus", "mult", "div", "neg", "str", "dyn_str", "log2",
                                                          "buckets")}
        self._params = {k: a("HP_" + k.upper()) for k in ("ref", "num", "str", "dyn_str")}
        self._handlers = {k: a("HA_" + k.upper()) for k in ("onmatch", "onmax", "onchange", "trace", "save",
                                                            "snapshot")}
        self._limits = (a("HIST_VARS_MAX"), a("HIST_VAR_REFS_MAX"), a("HIST_EXPR_MAX"), a("HIST_ACTIONS_MAX"),
                        a("HIST_PARAMS_MAX"))
        self._tail_at, self._vars_at, self._refs_at = a("hist_map.sums_offset"), a("hist_map.vars"), a("hist_map.refs")
        self._expr_at, self._actions_at, self._action_size = a("hist_map.expr"), a("hist_map.actions"), \
            a("sizeof(hist_action)")
        self._size = a("sizeof(hist_map)")
        if a("sizeof(hist_key_field)") != _KEY.size or a("sizeof(hist_val_field)") != _VAL.size or \
                a("hist_map.keys") != _MAP_HEAD.size or a("sizeof(hist_cond_snapshot)") != _COND.size:
            raise ValueError("kernel image's hist_map layout does not match this machine")
        self._keys_at, self._vals_at = a("hist_map.keys"), a("hist_map.vals")
        self._paused_at = a("hist_map.paused")
        self._keys_max, self._vals_max = a("HIST_KEYS_MAX"), a("HIST_VALS_MAX")
        maps, arena = image.abi_table("hist_maps", self._nr * self._size), image.abi_table("hist_arena", self._arena_size)
        self._maps_va, self._arena_va = maps.addr, arena.addr
        self._mem: PhysMem | None = None
        self._lock = threading.Lock()
        self._used: dict[int, tuple[int, int, HistMapSpec]] = {}   # map index -> (arena offset, bytes, spec)

    def attach(self, mem: PhysMem) -> None:
        with self._lock:
            self._mem = mem

    @staticmethod
    def _layout(spec: HistMapSpec) -> tuple[int, int, list[tuple[int, int]], int]:
        """An element: the key, the comm, the sums, the variables and the set ones, the
        string variables' strings, then per onmax / onchange action its value and saved
        arguments: (sums, vars, [(track, save)], size)."""
        sums = spec.key_size + (_COMM_LEN if spec.comm else 0)
        at = vars_at = sums + 8 * len(spec.vals)
        at += 8 * (len(spec.vars) + 1) if spec.vars else 0
        at += STR_VAR_LEN_MAX * sum(1 for steps in spec.vars if steps and steps[0].op in ("str", "dyn_str"))
        tracks = []
        for act in spec.actions:
            if act.handler == "onmatch":
                tracks.append((0, 0))
                continue
            tracks.append((at, at + 8))
            at += 8 + (sum(p.saved_size for p in act.params) if act.action != "trace" else 0)
        return sums, vars_at, tracks, at

    @classmethod
    def _elt_size(cls, spec: HistMapSpec) -> int:
        return cls._layout(spec)[3]

    @classmethod
    def _cond_at(cls, spec: HistMapSpec) -> int | None:
        """Where the map's struct hist_cond_snapshot is, from its table's start (after the
        elements, 8-aligned); None: no snapshot action, none."""
        if not any(a.action == "snapshot" for a in spec.actions):
            return None
        max_elts = 1 << spec.map_bits
        return (8 * 2 * max_elts + max_elts * cls._elt_size(spec) + 7) & ~7

    @classmethod
    def _size_of(cls, spec: HistMapSpec) -> int:
        """The arena bytes of a map: its table, its elements, its conditional snapshot."""
        max_elts = 1 << spec.map_bits
        cond = cls._cond_at(spec)
        end = 8 * 2 * max_elts + max_elts * cls._elt_size(spec) if cond is None else \
            cond + _COND.size + spec.key_size + (_COMM_LEN if spec.comm else 0)
        return (end + 4095) & ~4095

    def create(self, spec: HistMapSpec) -> int:
        vars_max, refs_max, expr_max, actions_max, params_max = self._limits
        if len(spec.keys) > self._keys_max or len(spec.vals) > self._vals_max or len(spec.vars) > vars_max or \
                len(spec.refs) > refs_max or self._n_steps(spec) > expr_max or \
                len(spec.actions) > actions_max or any(len(a.params) > params_max for a in spec.actions):
            raise OSError(errno.EINVAL, "too many histogram fields")
        table = 8 * 2 * (1 << spec.map_bits)
        need = self._size_of(spec)

        def make() -> int:
            with self._lock:
                index = next((i for i in range(self._nr) if i not in self._used), None)
                if index is None:
                    raise OSError(errno.ENOMEM, "no histogram map left")
                at = self._fit(need)
                self._used[index] = (at, need, spec)
                buf = self._buf()
                base = kernel_virt_to_phys(self._arena_va) + at
                buf[base:base + need] = bytes(need)
                self._write_head(index, at, table, spec)
                return self._maps_va + index * self._size
        return self._machine.with_cpus_stopped(make)

    @staticmethod
    def _n_steps(spec: HistMapSpec) -> int:
        """The expression steps of its variables, then of its keys and values (expr[])."""
        return sum(len(v) for v in spec.vars) + sum(len(f.steps) for f in spec.keys + spec.vals)

    def _buf(self) -> mmap.mmap:
        if self._mem is None:
            raise OSError(errno.ENODEV, "the machine has no memory yet")
        return self._mem.buf

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
        buf = self._buf()
        pa = kernel_virt_to_phys(self._maps_va) + index * self._size
        buf[pa:pa + self._size] = bytes(self._size)
        comm_offset = spec.key_size if spec.comm else 0
        _MAP_HEAD.pack_into(buf, pa, spec.map_bits, spec.key_size, len(spec.keys), len(spec.vals),
                            self._elt_size(spec), comm_offset, 0, 0, 0, 0,
                            self._arena_va + at, self._arena_va + at + table)
        step = 0

        def put_steps(steps: tuple[HistExprStep, ...]) -> int:
            """expr[] gets them after those already there: where they start."""
            nonlocal step
            first = step
            for e in steps:
                _EXPR.pack_into(buf, pa + self._expr_at + _EXPR.size * step, self._ops[e.op], e.size & 0xFF,
                                int(e.is_signed), 0, e.offset, 0, e.val & 0xFFFFFFFFFFFFFFFF)
                step += 1
            return first
        for i, steps in enumerate(spec.vars):
            _VAR.pack_into(buf, pa + self._vars_at + _VAR.size * i, put_steps(steps), len(steps))
        # an expression key or value: its steps in expr[], HF_EXPR's offset the first and size their number
        for i, k in enumerate(spec.keys):
            offset, size = (put_steps(k.steps), len(k.steps)) if k.kind == "expr" else (k.offset, k.size)
            _KEY.pack_into(buf, pa + self._keys_at + _KEY.size * i, self._kind[k.kind], size & 0xFF,
                           int(k.is_signed), self._log2 * k.log2 | self._buckets * bool(k.buckets), offset,
                           k.key_offset, k.str_size, 0, k.buckets)
        for i, v in enumerate(spec.vals):
            offset, size = (put_steps(v.steps), len(v.steps)) if v.kind == "expr" else (v.offset, v.size)
            _VAL.pack_into(buf, pa + self._vals_at + _VAL.size * i, self._kind[v.kind], size & 0xFF,
                           int(v.is_signed), 0, offset, 0)
        uses_ts = any(e.op in ("ts", "ts_usecs") for f in spec.keys + spec.vals for e in f.steps)
        sums, vars_at, tracks, _ = self._layout(spec)
        _TAIL.pack_into(buf, pa + self._tail_at, sums, vars_at, len(spec.vars), len(spec.refs), len(spec.actions),
                        int(uses_ts))
        own = self._maps_va + index * self._size
        for i, r in enumerate(spec.refs):
            _REF.pack_into(buf, pa + self._refs_at + _REF.size * i, r.map or own, r.var, int(r.read_once))
        for i, act in enumerate(spec.actions):
            at = pa + self._actions_at + self._action_size * i
            track, save = tracks[i]
            _ACTION.pack_into(buf, at, self._handlers[act.handler], self._handlers[act.action], len(act.params),
                              act.track_ref, track, save, 0, act.synth)
            save_at = 0
            for j, p in enumerate(act.params):
                _PARAM.pack_into(buf, at + _ACTION.size + _PARAM.size * j, self._params[p.kind], p.size & 0xFF,
                                 int(p.is_signed), 0, p.offset, save_at)
                save_at += p.saved_size

    def _index(self, addr: int) -> int:
        index, rest = divmod(addr - self._maps_va, self._size)
        if rest or index not in self._used:
            raise KeyError(f"no histogram map at {addr:#x}")
        return index

    def destroy(self, addr: int) -> None:
        def free() -> None:
            with self._lock:
                self._used.pop(self._index(addr))
        self._machine.with_cpus_stopped(free)

    def read(self, addr: int) -> HistSnapshot:
        def take() -> HistSnapshot:
            with self._lock:
                index = self._index(addr)
                at, _, spec = self._used[index]
                buf = self._buf()
                pa = kernel_virt_to_phys(self._maps_va) + index * self._size
                head = _MAP_HEAD.unpack_from(buf, pa)
                hits, drops = head[8], head[9]
                base = kernel_virt_to_phys(self._arena_va) + at
                size = 2 << spec.map_bits
                sums_at, _, tracks, elt_size = self._layout(spec)
                elts = base + 8 * size
                n_vals = len(spec.vals)
                onx = [(i, t) for i, t in enumerate(tracks) if spec.actions[i].handler != "onmatch"]
                out = []
                for key_hash, val in struct.iter_unpack("<II", bytes(buf[base:base + 8 * size])):
                    if not key_hash or not val:
                        continue
                    e = elts + (val - 1) * elt_size
                    key = bytes(buf[e:e + spec.key_size])
                    comm = bytes(buf[e + spec.key_size:e + spec.key_size + _COMM_LEN]) if spec.comm else b""
                    sums = struct.unpack_from(f"<{n_vals}Q", buf, e + sums_at)
                    tracked = tuple(
                        (struct.unpack_from("<Q", buf, e + track)[0],
                         bytes(buf[e + save:e + save + sum(p.saved_size for p in spec.actions[i].params)])
                         if spec.actions[i].action != "trace" else b"")
                        for i, (track, save) in onx)
                    out.append(HistEntry(key, comm, sums, tracked))
                cond_at = self._cond_at(spec)
                cond = None
                if cond_at is not None:
                    value, updated, _ = _COND.unpack_from(buf, base + cond_at)
                    c = base + cond_at + _COND.size
                    if updated:
                        cond = (value, HistEntry(bytes(buf[c:c + spec.key_size]),
                                                 bytes(buf[c + spec.key_size:c + spec.key_size + _COMM_LEN])
                                                 if spec.comm else b"", ()))
                return HistSnapshot(hits, drops, tuple(out), cond)
        return self._machine.with_cpus_stopped(take)

    def clear(self, addr: int) -> None:
        """tracing_map_clear(): no entries, no hits, no drops."""
        def wipe() -> None:
            with self._lock:
                index = self._index(addr)
                at, need, spec = self._used[index]
                buf = self._buf()
                base = kernel_virt_to_phys(self._arena_va) + at
                # (the conditional snapshot is the trace array's, not the map's: it stays)
                cond_at = self._cond_at(spec)
                end = need if cond_at is None else cond_at
                buf[base:base + end] = bytes(end)
                pa = kernel_virt_to_phys(self._maps_va) + index * self._size
                paused = struct.unpack_from("<I", buf, pa + self._paused_at)[0]
                self._write_head(index, at, 8 * (2 << spec.map_bits), spec)
                struct.pack_into("<I", buf, pa + self._paused_at, paused)
        self._machine.with_cpus_stopped(wipe)

    def set_paused(self, addr: int, paused: bool) -> None:
        def write() -> None:
            with self._lock:
                pa = kernel_virt_to_phys(self._maps_va) + self._index(addr) * self._size
                struct.pack_into("<I", self._buf(), pa + self._paused_at, int(paused))
        self._machine.with_cpus_stopped(write)

    def paused(self, addr: int) -> bool:
        def read() -> bool:
            with self._lock:
                pa = kernel_virt_to_phys(self._maps_va) + self._index(addr) * self._size
                return bool(struct.unpack_from("<I", self._buf(), pa + self._paused_at)[0])
        return self._machine.with_cpus_stopped(read)
