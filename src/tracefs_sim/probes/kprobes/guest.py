"""Guest kprobe and kretprobe handlers, host half: the guest's fetch tables (struct kprobe_guest
of include/trace/probe_stage.h, mirrored here) -- points, probes, argument programs
(GuestFetchArg: the tracing core compiles its events' fetch arguments into these) and the
kretprobes' instance pools -- and arming a point whose every probe the guest handles
(GuestKprobes).  The guest (kernel/trace_probe.c) runs them at a hit as Linux's
process_fetch_insn() does and writes the record itself, so an enabled probe's hit runs no
Python; a kretprobe's entry takes an instance there and its return is handled by the guest's
arch_rethook_trampoline.

What the guest interpreter covers: every fetch argument Linux accepts (trace/probe_guest.py
compiles them); a probe the tables have no room for keeps its host handler."""
from __future__ import annotations

import errno
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from ...machine.contract import GuestRam, PatchableMachine
from ...machine.paging import kernel_virt_to_phys
from .. import insn as X
from ..ftrace import FtraceSites
from .insn_slots import InsnSlots, out_of_line
from .opt import optimized_insns
from .point import FTRACE, INT3, GuestProbe, Point, required_symbol
from .regs import PT_REGS

# The guest's fetch programs (include/trace/probe_stage.h), as the tracing core compiles its
# fetch arguments into them: the load and store kinds, and struct kg_arg's layout, whose
# dereference slots are KG_MAX_DEREF.  Checked against the image's host ABI when the tables
# are made (_check_abi).
LOAD_REG, LOAD_IP, LOAD_STACK, LOAD_IMM, LOAD_COMM, LOAD_DATA, LOAD_FIELD, LOAD_USTACK, LOAD_FOFFS = range(9)
# LOAD_FIELD's kinds (imm): the field's size, or'ed with FIELD_SIGNED; or a string kind
FIELD_SIGNED, FIELD_DYN_STRING, FIELD_STATIC_STRING, FIELD_PTR_STRING = 0x100, 0x200, 0x400, 0x800
ST_RAW, ST_MEM, ST_UMEM, ST_STRING, ST_USTRING, ST_SYMSTR = range(6)
KG_MAX_DEREF = 13
_ARG = struct.Struct(f"<8BHHHHQqII{KG_MAX_DEREF}q")  # struct kg_arg
_PROBE = struct.Struct("<QQHHIIIBBH4xQQIIII")  # struct kg_probe
_POINT = struct.Struct("<QIIBBBBiII")  # struct kg_point
_POINT_EMULATION = struct.Struct("<BBBBi")  # its emulate, size, type, asize, rel32
_INST = struct.Struct("<QQQQIIiI")  # struct kg_inst
_HOST_LAYOUT = {
    "KG_MAX_DEREF": KG_MAX_DEREF,
    **{f"KG_LOAD_{name}": value for name, value in (
        ("REG", LOAD_REG), ("IP", LOAD_IP), ("STACK", LOAD_STACK), ("IMM", LOAD_IMM), ("COMM", LOAD_COMM),
        ("DATA", LOAD_DATA), ("FIELD", LOAD_FIELD), ("USTACK", LOAD_USTACK), ("FOFFS", LOAD_FOFFS))},
    **{f"KG_FIELD_{name}": value for name, value in (
        ("SIGNED", FIELD_SIGNED), ("DYN_STRING", FIELD_DYN_STRING), ("STATIC_STRING", FIELD_STATIC_STRING),
        ("PTR_STRING", FIELD_PTR_STRING))},
    **{f"KG_ST_{name}": value for name, value in (
        ("RAW", ST_RAW), ("MEM", ST_MEM), ("UMEM", ST_UMEM), ("STRING", ST_STRING), ("USTRING", ST_USTRING),
        ("SYMSTR", ST_SYMSTR))},
    "sizeof(kg_arg)": _ARG.size, "sizeof(kg_probe)": _PROBE.size, "sizeof(kg_point)": _POINT.size,
    "sizeof(kg_inst)": _INST.size,
}
_POINT_INSN, _POINT_EMULATE, _POINT_HOST = 12, 16, 24  # struct kg_point's insn, emulate, host
# struct kg_probe's fields the host writes or reads on their own
_PROBE_NEXT = 28
_PROBE_NHIT = 40
_PROBE_FIRST_INST = 56
_SLOTS_MASK = (1 << 64) - 1  # a probe's slots: its kg_probe.slots, the bits above its triggers

# (KG_LOAD_REG's index: the register's in struct pt_regs, regs.PT_REGS)
_M64 = (1 << 64) - 1


def _signed(v: int) -> int:
    v &= _M64
    return v - (1 << 64) if v >> 63 else v


@dataclass(frozen=True)
class GuestFetchArg:
    """One argument's fetch program as the guest runs it (struct kg_arg): a load (LOAD_*,
    with param: a pt_regs index or a stack slot; imm: an immediate), up to KG_MAX_DEREF
    dereferences (user_mask: which read user memory), a store (ST_* of size bytes, at
    st_offset from the last value), a bitfield (basesize, lshift, rshift; basesize 0: none),
    count elements (0: a scalar), into the record's argument area at offset.  data: an
    immediate string's bytes (LOAD_DATA)."""
    load: int
    store: int
    size: int
    offset: int
    param: int = 0
    imm: int = 0
    derefs: tuple[int, ...] = ()
    user_mask: int = 0
    basesize: int = 0
    lshift: int = 0
    rshift: int = 0
    count: int = 0
    st_offset: int = 0
    data: bytes = b""

    def __post_init__(self) -> None:
        if len(self.derefs) > KG_MAX_DEREF or len(self.data) >= 8 * KG_MAX_DEREF:
            raise ValueError("more than the guest's struct kg_arg holds")

    @property
    def plain(self) -> bool:
        """A register stored as is: the guest writes it straight into the ring."""
        return (self.load == LOAD_REG and self.store == ST_RAW and not self.derefs and not self.basesize
                and not self.count)

    def pack(self) -> bytes:
        """The struct kg_arg."""
        if self.load == LOAD_DATA or (self.load == LOAD_COMM and not self.derefs):  # the string itself
            tail = struct.unpack(f"<{KG_MAX_DEREF}q", self.data.ljust(8 * KG_MAX_DEREF, b"\0"))
        else:
            tail = tuple(_signed(d) for d in self.derefs) + (0,) * (KG_MAX_DEREF - len(self.derefs))
        return _ARG.pack(self.load, self.store, self.size, len(self.derefs), self.basesize, self.lshift,
                         self.rshift, 0, self.offset, self.param, int(self.plain), self.count,
                         self.imm & _M64, _signed(self.st_offset), self.user_mask, 0, *tail)


@dataclass(frozen=True)
class GuestRecord:
    """What the guest needs to write one probe event's record at a hit (a kretprobe's record
    has the return address after the probed one: the guest knows from the probe)."""
    event_type: int
    args: tuple[GuestFetchArg, ...]
    args_size: int  # the fixed argument area

    @property
    def plain(self) -> bool:
        """Every argument plain: the whole record written straight into the ring."""
        return all(a.plain for a in self.args)


class GuestTables:
    """struct kprobe_guest in guest RAM: allocation of points, probes and argument runs, and the
    hit counters.  Callers hold the engine's lock."""

    def __init__(self, machine: PatchableMachine):
        image = machine.image
        a = image.abi_value
        wrong = [name for name, value in _HOST_LAYOUT.items() if a(name) != value]
        if wrong or (a("kg_probe.nhit"), a("kg_probe.first_inst"), a("kg_point.insn"), a("kg_point.emulate"),
                     a("kg_point.host")) != (_PROBE_NHIT, _PROBE_FIRST_INST, _POINT_INSN, _POINT_EMULATE, _POINT_HOST):
            raise RuntimeError(f"kernel image's guest kprobe tables do not match this host: {wrong}")
        sym = image.abi_table("kprobe_guest")
        self._max_insts = a("KG_MAX_INSTS")
        self._order, self._points_at, self._probes_at = a("kprobe_guest.order"), a("kprobe_guest.points"), \
            a("kprobe_guest.probes")
        self._args_at, self._insts_at = a("kprobe_guest.args"), a("kprobe_guest.insts")
        self._machine = machine
        self._pa = kernel_virt_to_phys(sym.addr)
        self._slots = required_symbol(image, "kprobe_insn_slots")  # where kg_point.insn counts from
        self._emulate_ops = {op: a(f"KG_EMULATE_{op.upper()}") for op in (
            "ifmodifiers", "ret", "call", "jmp", "jcc", "loop", "call_indirect", "jmp_indirect")}
        calls = image.lookup("kprobe_perf_calls")  # the kernel's perf call of each probe
        self._perf_calls = None if calls is None else kernel_virt_to_phys(calls.addr) - self._pa
        self._mem: GuestRam | None = None
        self._free_points = list(range(a("KG_MAX_POINTS")))
        self._free_probes = list(range(a("KG_MAX_PROBES")))
        self._args_used = [False] * a("KG_MAX_ARGS")
        self._points: dict[int, int] = {}  # point index -> address (the armed ones)
        self._pools: dict[int, tuple[int, int]] = {}  # kretprobe index -> (first instance, count)
        self._retired: list[tuple[int, int]] = []  # pools of removed kretprobes, maybe in flight
        machine.on_ram_loaded(self._attach)

    def _attach(self, mem: GuestRam) -> None:
        self._mem = mem

    def _ram(self) -> GuestRam:
        if self._mem is None:
            raise RuntimeError("the guest's RAM is not loaded yet")
        return self._mem

    def _write(self, off: int, data: bytes) -> None:
        buf, at = self._ram().buf, self._pa + off

        def write() -> None:  # seeded: while paused, so that a run stays the same run
            buf[at:at + len(data)] = data
        self._machine.guest_op(write)

    # ---- probes ----
    def add_probe(self, record: GuestRecord, instances: int = 0, is_return: bool = False) -> GuestProbe | None:
        """A probe's table entry and argument run, written disabled; instances > 0: a
        kretprobe with a pool of that many; is_return without instances: a return record
        program whose returns another engine finds (a uretprobe's).  None: tables full (or the guest's memory not there
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
        self._write(self._args_at + _ARG.size * first, b"".join(a.pack() for a in record.args))
        first_inst = 0
        if pool is not None:
            first_inst = pool
            self._pools[index] = (pool, instances)
            # the free list: each instance links the next (+ 1), the last none
            self._write(self._insts_at + _INST.size * pool, b"".join(
                _INST.pack(0, 0, 0, 0, index, pool + k + 2 if k + 1 < instances else 0, 0, 0)
                for k in range(instances)))
        self._write(self._probes_at + _PROBE.size * index,
                    _PROBE.pack(0, 0, record.event_type, n, first, record.args_size, 0, int(record.plain),
                                int(bool(instances) or is_return), 0, 0, 0, first_inst, instances,
                                first_inst + 1 if instances else 0, 0))
        return GuestProbe(index, first, n)

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
        return at if at + n <= self._max_insts else None

    def _pool_idle(self, first: int, n: int) -> bool:
        buf = self._ram().buf
        return all(not struct.unpack_from("<Q", buf, self._pa + self._insts_at + _INST.size * i)[0]
                   for i in range(first, first + n))

    def remove_probe(self, probe: GuestProbe) -> None:
        index = probe.index
        self.set_slots(index, 0)
        pool = self._pools.pop(index, None)
        if pool is not None:
            # the pool leaves the probe first: an instance in flight then returns to nobody's
            self._write(self._probes_at + _PROBE.size * index + _PROBE_FIRST_INST, struct.pack("<III", 0, 0, 0))
            self._retired.append(pool)
        self._args_used[probe.first_arg:probe.first_arg + probe.nargs] = [False] * probe.nargs
        # a kprobe event's probe removed while perf holds its event (a sibling stays): the
        # index goes to the next probe without the event's perf call
        self.set_perf_call(index, 0)
        self._free_probes.append(index)

    def perf_call(self, index: int) -> int:
        """The kernel's perf call of a probe (kprobe_perf_calls[index]; 0: none)."""
        if self._perf_calls is None or self._mem is None:
            return 0
        return int(struct.unpack_from("<Q", self._mem.buf, self._pa + self._perf_calls + 8 * index)[0])

    def set_perf_call(self, index: int, call: int) -> None:
        if self._perf_calls is not None:
            self._write(self._perf_calls + 8 * index, struct.pack("<Q", call))

    def set_slots(self, index: int, slots: int) -> None:
        """kg_probe.slots and .triggers: the trace core's file word (slots in the low 64 bits,
        the slots with triggers above them)."""
        self._write(self._probes_at + _PROBE.size * index, struct.pack("<QQ", slots & _SLOTS_MASK, slots >> 64))

    def set_next(self, index: int, nxt: int) -> None:
        """The point's probe after this one (+ 1; 0: the last)."""
        self._write(self._probes_at + _PROBE.size * index + _PROBE_NEXT, struct.pack("<I", nxt))

    def counts(self, index: int) -> tuple[int, int]:
        """(nhit, nmissed) the guest counted."""
        if self._mem is None:
            return 0, 0
        at = self._pa + self._probes_at + _PROBE.size * index + _PROBE_NHIT
        nhit, nmissed = struct.unpack_from("<QQ", self._mem.buf, at)
        return int(nhit), int(nmissed)

    # ---- points ----
    def add_point(self, addr: int, probes: Sequence[int]) -> int | None:
        """A point whose probes (chained in this order) are in the table -- none: an int3 point
        whose probes' handlers are the host's; its index (what slot code pushes); None: the
        table is full."""
        if not self._free_points:
            return None
        index = self._free_points.pop(0)
        for k, p in enumerate(probes):
            self.set_next(p, probes[k + 1] + 1 if k + 1 < len(probes) else 0)
        self._write(self._points_at + _POINT.size * index,
                    _POINT.pack(addr, probes[0] + 1 if probes else 0, 0, 0, 0, 0, 0, 0, int(not probes), 0))
        self._points[index] = addr
        self._write_order()
        return index

    def set_point_insn(self, index: int, copy: int) -> None:
        """An int3 point's copied instruction, single-stepped at copy (in the insn slots)."""
        self._write(self._points_at + _POINT.size * index + _POINT_INSN, struct.pack("<I", copy - self._slots + 1))

    def set_point_emulation(self, index: int, size: int, how: X.Emulation) -> None:
        """An int3 point whose instruction (of size bytes) the guest emulates."""
        self._write(self._points_at + _POINT.size * index + _POINT_EMULATE, _POINT_EMULATION.pack(
            self._emulate_ops[how.op], size, how.type, how.asize, how.rel32))

    def remove_point(self, index: int) -> None:
        del self._points[index]
        self._write_order()
        self._write(self._points_at + _POINT.size * index, _POINT.pack(0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        self._free_points.append(index)

    def _write_order(self) -> None:
        """The ftrace path's binary search: point indexes by address, then the count."""
        order = sorted(self._points, key=self._points.__getitem__)
        self._write(0, struct.pack("<I", 0))
        self._write(self._order, struct.pack(f"<{len(order)}H", *order))
        self._write(0, struct.pack("<I", len(order)))


class GuestKprobes:
    """Arming a point whose every probe the guest handles: FTRACE through ftrace_caller's
    kprobe_guest_ftrace(); OPTIMIZED through an insn slot `push $point; call kprobe_guest_stub;
    <relocated instructions>; jmp back`; INT3 through the guest's #BP gate: its exc_int3 runs
    kprobe_int3_handler(), which emulates the probed instruction (control flow, IF modifiers:
    X.emulation) or single-steps its copy in the insn slot `<relocated instruction>; int3` and
    resumes past the original at that second int3, as 6.1's does (the machine delivers the
    traps natively, machine/int3_gate.py)."""

    def __init__(self, machine: PatchableMachine, tables: GuestTables, sites: FtraceSites,
                 insn_slots: InsnSlots):
        self._machine = machine
        self._tables = tables
        self._sites = sites
        self._insn_slots = insn_slots
        self._stub = required_symbol(machine.image, "kprobe_guest_stub")

    def arm(self, point: Point, kind: str) -> bool:
        """Arm the point: for the guest's handlers, or an int3 point whatever its probes (one
        the guest's fetch programs do not cover has the host's handlers, int3.py); False: the
        host arms it (an ftrace or optimised point with a host probe, the guest's table full)."""
        probes = [kp.guest for kp in point.probes]
        host = any(p is None for p in probes)
        if host and kind != INT3:
            return False
        how, size = None, 0
        if kind == INT3:
            assert point.insn is not None  # (arch_prepare() found it, and that it is emulable)
            size = point.insn.size
            how = X.emulation(point.insn)
        index = self._tables.add_point(point.addr, [] if host else [p.index for p in probes if p is not None])
        if index is None:
            if kind == INT3:
                raise OSError(errno.ENOMEM, "kprobe point table full")
            return False
        point.guest = index
        if kind == FTRACE:
            self._sites.set_kprobe(point.func, True)
            return True
        if kind == INT3 and how is not None:  # emulated at the int3: no copy to step
            self._tables.set_point_emulation(index, size, how)
            self._machine.text_poke_batch([(point.addr, b"\xcc")])
            point.length = 1
            return True
        covered = [point.insn] if kind == INT3 and point.insn else optimized_insns(self._machine.image, point.addr)
        size = sum(c.size for c in covered)
        try:
            at = self._insn_slots.get(size + 1 if kind == INT3 else 10 + size + 5)
        except OSError:
            self._tables.remove_point(index)
            point.guest = None
            raise
        if kind == INT3:  # the copy, then the int3 that ends its single step
            code = X.relocate(covered[0], at) + b"\xcc"
            self._insn_slots.install(point, at, code)
            self._tables.set_point_insn(index, at)
            self._machine.text_poke_batch([(point.addr, b"\xcc")])
            point.length = 1
            return True
        prologue = b"\x68" + struct.pack("<I", index) + X.call32(at + 5, self._stub)
        code, point.copy_entry = out_of_line(at, prologue, covered, point.addr + size)
        self._insn_slots.install(point, at, code)
        self._machine.text_poke_batch([(point.addr, X.jmp32(point.addr, at))])
        point.length = size
        return True
