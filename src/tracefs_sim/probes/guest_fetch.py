"""Guest kprobe and kretprobe handlers, host half: compiles a probe event's fetch arguments
(trace/probe_args FetchInsn programs) into the guest's fetch tables (struct kprobe_guest of
include/trace/probe_stage.h, mirrored here) and keeps those tables: points, probes, argument
programs and the kretprobes' instance pools.  The guest (kernel/trace_probe.c) runs them at a hit
as Linux's process_fetch_insn() does and writes the record itself, so an enabled probe's hit runs
no Python; a kretprobe's entry takes an instance there and its return is handled by the guest's
arch_rethook_trampoline.

What the guest interpreter covers: register, $argN, $stackN, $stack, $retval, @SYM and immediate
loads, $comm, dereference chains (kernel and user), numeric stores and bitfields, string and
ustring, arrays of numbers and of strings, immediate strings.  symstr (a symbol's name: kallsyms
is the host's) is not compiled (compile_args gives None) and the probe keeps its host handler."""
from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from ..machine.paging import kernel_virt_to_phys
from ..trace.probe_args import ARGUMENT_REGISTERS, ProbeArg

# include/trace/probe_stage.h
KG_MAX_POINTS = 256
KG_MAX_PROBES = 512
KG_MAX_ARGS = 2048
KG_MAX_DEREF = 8
KG_MAX_INSTS = 8192
KG_INST_HASH = 64
LOAD_REG, LOAD_IP, LOAD_STACK, LOAD_IMM, LOAD_COMM, LOAD_DATA = range(6)
ST_RAW, ST_MEM, ST_UMEM, ST_STRING, ST_USTRING = range(5)
_ARG = struct.Struct("<8BHHHHQq8q")  # struct kg_arg
_PROBE = struct.Struct("<IHHIIIBBHQQIIII")  # struct kg_probe
_POINT = struct.Struct("<QII")  # struct kg_point
ORDER_OFF = 8
POINTS_OFF = ORDER_OFF + 2 * KG_MAX_POINTS
PROBES_OFF = POINTS_OFF + _POINT.size * KG_MAX_POINTS
ARGS_OFF = PROBES_OFF + _PROBE.size * KG_MAX_PROBES
CHAINS_OFF = ARGS_OFF + _ARG.size * KG_MAX_ARGS
_INST = struct.Struct("<QQQQIIiI")  # struct kg_inst
INSTS_OFF = CHAINS_OFF + 4 * KG_INST_HASH
TABLES_SIZE = INSTS_OFF + _INST.size * KG_MAX_INSTS
NHIT_OFF = 24
INST_OFF = 40  # kg_probe.first_inst
assert _ARG.size == 96 and _PROBE.size == 56 and _POINT.size == 16 and _INST.size == 48

# struct pt_regs order: KG_LOAD_REG's index
PT_REGS = ("r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax", "cx", "dx",
           "si", "di", "orig_ax", "ip", "cs", "flags", "sp", "ss")
_STORES = {"st_raw": ST_RAW, "st_mem": ST_MEM, "st_umem": ST_UMEM, "st_string": ST_STRING,
           "st_ustring": ST_USTRING}
_M64 = (1 << 64) - 1


def _signed(v: int) -> int:
    v &= _M64
    return v - (1 << 64) if v >> 63 else v


def _compile_arg(arg: ProbeArg) -> bytes | None:
    """One argument as a struct kg_arg; None: the guest does not interpret it."""
    if arg.type.name == "symstr":
        return None
    code = arg.code
    i = 1 if code[0].op == "symbol" else 0
    first = code[i]
    param = imm = 0
    op = first.op
    if op in ("comm", "data"):
        text = first.data.split(b"\0", 1)[0] if op == "data" else b""
        if not arg.type.is_string or arg.count or len(text) >= 8 * KG_MAX_DEREF:
            return None
        return _ARG.pack(LOAD_COMM if op == "comm" else LOAD_DATA, ST_STRING, 4, 0, 0, 0, 0, 0, arg.offset,
                         0, 0, 0, 0, 0, *struct.unpack("<8q", text.ljust(8 * KG_MAX_DEREF, b"\0")))
    if op == "reg":
        load = LOAD_IP if first.data == "ip" else LOAD_REG
        param = PT_REGS.index(first.data) if load == LOAD_REG else 0
    elif op == "arg":
        if first.param < len(ARGUMENT_REGISTERS):
            load, param = LOAD_REG, PT_REGS.index(ARGUMENT_REGISTERS[first.param])
        else:
            load, param = LOAD_STACK, first.param - len(ARGUMENT_REGISTERS) + 1
    elif op == "stack":
        load, param = LOAD_STACK, first.param
    elif op == "stackp":
        load, param = LOAD_REG, PT_REGS.index("sp")
    elif op == "retval":  # regs_return_value(): the trampoline's regs
        load, param = LOAD_REG, PT_REGS.index("ax")
    elif op == "imm":
        load, imm = LOAD_IMM, first.immediate
    else:  # foffs (uprobes)
        return None
    i += 1
    derefs, user_mask = [], 0
    while code[i].op in ("deref", "uderef"):
        if code[i].op == "uderef":
            user_mask |= 1 << len(derefs)
        derefs.append(_signed(code[i].offset))
        i += 1
    if len(derefs) > KG_MAX_DEREF:
        return None
    st = code[i]
    store = _STORES.get(st.op)
    if store is None:
        return None
    basesize = lshift = rshift = 0
    mod = code[i + 1]
    if mod.op == "mod_bf":
        basesize, lshift, rshift = mod.basesize, mod.lshift, mod.rshift
    size = 4 if store >= ST_STRING else st.size
    plain = int(load == LOAD_REG and store == ST_RAW and not derefs and not basesize and not arg.count)
    return _ARG.pack(load, store, size, len(derefs), user_mask, basesize, lshift, rshift,
                     arg.offset, param, plain, arg.count, imm & _M64, _signed(st.offset),
                     *(derefs + [0] * (KG_MAX_DEREF - len(derefs))))


@dataclass(frozen=True)
class GuestRecord:
    """What the guest needs to write one probe event's record at a hit."""
    event_type: int
    args: tuple[bytes, ...]  # struct kg_arg each
    args_size: int  # the fixed argument area
    plain: bool  # every argument a register stored as is: written straight into the ring


def compile_args(event_type: int, args: Sequence[ProbeArg]) -> GuestRecord | None:
    """A kprobe or kretprobe event's record program (a kretprobe's record has the return
    address after the probed one: the guest knows from the probe); None when some argument
    needs the host handler."""
    out = []
    for a in args:
        packed = _compile_arg(a)
        if packed is None:
            return None
        out.append(packed)
    plain = all(_ARG.unpack(p)[10] for p in out)  # kg_arg.plain
    return GuestRecord(event_type, tuple(out), sum(a.size for a in args), plain)


class GuestTables:
    """struct kprobe_guest in guest RAM: allocation of points, probes and argument runs, and the
    hit counters.  Callers hold the engine's lock."""

    def __init__(self, machine):
        sym = machine.image.lookup("kprobe_guest")
        if sym is None or sym.size != TABLES_SIZE:
            raise RuntimeError("kernel image's kprobe_guest layout does not match this host")
        self._machine = machine
        self._pa = kernel_virt_to_phys(sym.addr)
        self._mem = None
        self._free_points = list(range(KG_MAX_POINTS))
        self._free_probes = list(range(KG_MAX_PROBES))
        self._args_used = [False] * KG_MAX_ARGS
        self._points: dict[int, int] = {}  # point index -> address (the armed ones)
        self._pools: dict[int, tuple[int, int]] = {}  # kretprobe index -> (first instance, count)
        self._retired: list[tuple[int, int]] = []  # pools of removed kretprobes, maybe in flight
        machine._on_attach(self._attach)

    def _attach(self, mem) -> None:
        self._mem = mem

    def _write(self, off: int, data: bytes) -> None:
        mem, at = self._mem, self._pa + off

        def write():  # seeded: while paused, so that a run stays the same run
            mem.buf[at:at + len(data)] = data
        self._machine._guest_op(write)

    # ---- probes ----
    def add_probe(self, record: GuestRecord, instances: int = 0) -> tuple[int, int] | None:
        """A probe's table entry and argument run, written disabled; instances > 0: a
        kretprobe with a pool of that many.  None: tables full (or the guest's memory not there
        yet: a probe registered before the machine starts)."""
        n = len(record.args)
        first = self._find_args(n)
        if first is None or not self._free_probes or self._mem is None:
            return None
        pool = None
        if instances:
            pool = self._find_insts(instances)
            if pool is None:
                return None
        self._args_used[first:first + n] = [True] * n
        index = self._free_probes.pop(0)
        self._write(ARGS_OFF + _ARG.size * first, b"".join(record.args))
        first_inst = 0
        if pool is not None:
            first_inst = pool
            self._pools[index] = (pool, instances)
            # the free list: each instance links the next (+ 1), the last none
            self._write(INSTS_OFF + _INST.size * pool, b"".join(
                _INST.pack(0, 0, 0, 0, index, pool + k + 2 if k + 1 < instances else 0, 0, 0)
                for k in range(instances)))
        self._write(PROBES_OFF + _PROBE.size * index,
                    _PROBE.pack(0, record.event_type, n, first, record.args_size, 0, int(record.plain),
                                int(bool(instances)), 0, 0, 0, first_inst, instances,
                                first_inst + 1 if instances else 0, 0))
        return index, first

    def _find_args(self, n: int) -> int | None:
        used = self._args_used
        if n == 0:
            return 0
        for i in range(len(used) - n + 1):
            if not any(used[i:i + n]):
                return i
        return None

    def _find_insts(self, n: int) -> int | None:
        """A free run of n instances; pools of removed kretprobes are reused once none of their
        instances is in flight (their calls returned, or their tasks are gone)."""
        self._retired = [(first, k) for first, k in self._retired if not self._pool_idle(first, k)]
        taken = sorted(list(self._pools.values()) + self._retired)
        at = 0
        for first, k in taken:
            if first - at >= n:
                break
            at = max(at, first + k)
        return at if at + n <= KG_MAX_INSTS else None

    def _pool_idle(self, first: int, n: int) -> bool:
        buf = self._mem.buf
        return all(not struct.unpack_from("<Q", buf, self._pa + INSTS_OFF + _INST.size * i)[0]
                   for i in range(first, first + n))

    def remove_probe(self, index: int, first_arg: int, nargs: int) -> None:
        self.set_slots(index, 0)
        pool = self._pools.pop(index, None)
        if pool is not None:
            # the pool leaves the probe first: an instance in flight then returns to nobody's
            self._write(PROBES_OFF + _PROBE.size * index + INST_OFF, struct.pack("<III", 0, 0, 0))
            self._retired.append(pool)
        self._args_used[first_arg:first_arg + nargs] = [False] * nargs
        self._free_probes.append(index)

    def set_slots(self, index: int, slots: int) -> None:
        self._write(PROBES_OFF + _PROBE.size * index, struct.pack("<I", slots))

    def set_next(self, index: int, nxt: int) -> None:
        """The point's probe after this one (+ 1; 0: the last)."""
        self._write(PROBES_OFF + _PROBE.size * index + 16, struct.pack("<I", nxt))

    def counts(self, index: int) -> tuple[int, int]:
        """(nhit, nmissed) the guest counted."""
        if self._mem is None:
            return 0, 0
        at = self._pa + PROBES_OFF + _PROBE.size * index + NHIT_OFF
        return struct.unpack_from("<QQ", self._mem.buf, at)

    # ---- points ----
    def add_point(self, addr: int, probes: Sequence[int]) -> int | None:
        """A guest-handled point whose probes (chained in this order) are in the table; its
        index (what slot code pushes); None: the table is full."""
        if not self._free_points:
            return None
        index = self._free_points.pop(0)
        for k, p in enumerate(probes):
            self.set_next(p, probes[k + 1] + 1 if k + 1 < len(probes) else 0)
        self._write(POINTS_OFF + _POINT.size * index, _POINT.pack(addr, probes[0] + 1, 0))
        self._points[index] = addr
        self._write_order()
        return index

    def remove_point(self, index: int) -> None:
        del self._points[index]
        self._write_order()
        self._write(POINTS_OFF + _POINT.size * index, _POINT.pack(0, 0, 0))
        self._free_points.append(index)

    def _write_order(self) -> None:
        """The ftrace path's binary search: point indexes by address, then the count."""
        order = sorted(self._points, key=self._points.__getitem__)
        self._write(0, struct.pack("<I", 0))
        self._write(ORDER_OFF, struct.pack(f"<{len(order)}H", *order))
        self._write(0, struct.pack("<I", len(order)))
