"""uprobes, the host half (kernel/events/uprobes.c's uprobe_register()/uprobe_unregister(),
arch/x86/kernel/uprobes.c's instruction analysis): breakpoints in user programs, per
inode+offset, whose hits the guest handles (kernel/events/uprobes.c of kernel_model).

A uprobe is one point of the guest's uprobe_points table: the file's inode (a hostfs file:
the host's st_ino), the offset, the original instruction and how it runs out of line (copied
to a slot of the process's XOL area, or a call/jmp rel emulated), and its consumers.  While
it has consumers it is armed: the guest puts its int3 in every page of the file a mapping
reads in from then on, and registration puts it in the pages already mapped (every
process that maps the file, as Linux installs it in every mapping of the inode); the last
consumer gone, the original byte goes back into each of them.

A consumer comes with a record program the guest runs (a uprobe event's arguments compiled
for kernel/trace_probe.c: the kprobe engine's tables hold it), or with host code (the
trace_uprobe dispatcher: Python) for what the guest interpreter does not cover, reached
through the doorbell (PORT_UPROBE) the guest's uprobe_dispatch rings.  Either way nothing runs
for a program no enabled uprobe probes, and nothing slows the CPUs down meanwhile (a code hook
would keep Unicorn's mid-block exit checks on everywhere).  A host handler gets a UprobeHit:
the user registers the int3 trap saved, user memory, and record staging; the guest's record
program stages its record in the same place, and the guest commits it after (as 6.1 writes a
uprobe event's).
"""
from __future__ import annotations

import errno
import os
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ..machine.contract import TASK_SIZE, GuestRam, PatchableMachine
from ..machine.hooks import HookContext
from ..machine.hostif import PORT_UPROBE
from ..machine.image import KERNEL_MAP, PAGE_OFFSET
from . import insn as X
from .kprobes.guest import GuestRecord
from .kprobes.hit import ProbeStage
from .kprobes.point import GuestProbe, required_symbol
from .kprobes.regs import PT_INDEX, PT_REGS_FRAME

ENOTSUPP = 524  # the kernel's -ENOTSUPP: an instruction uprobes cannot step
UPROBE_SWBP_INSN = b"\xcc"
MAX_UINSN_BYTES = 16
UPROBE_XOL_BYTES = 48
# uprobe_point.flags (include/uprobes.h)
UPROBE_ARMED, UPROBE_RET, UPROBE_EMU_CALL, UPROBE_EMU_JMP, UPROBE_EMU_JCC = 1, 2, 4, 8, 0x10
# struct uprobe_point: ino, offset, flags, len, rel, n_entry, n_ret, nhit, xol_len, riprel_at, cc,
# pad, xol[48], entry_probe[4], ret_probe[4]
GUEST_CONSUMERS = 16
_POINT = struct.Struct(f"<QQIIqIIQIIII48s{GUEST_CONSUMERS}I{GUEST_CONSUMERS}I")
_NHIT = 40
_U64 = struct.Struct("<Q")
_CALL = struct.Struct("<6Q")  # struct uprobe_call (include/uprobes.h)
_VM_WRITE, _VM_MAYSHARE = 0x2, 0x80
_PTE_PRESENT, _PTE_PS = 0x1, 0x80
_PTE_PFN = 0x000FFFFFFFFFF000
_M64 = (1 << 64) - 1


def _direct_pa(va: int) -> int:
    """A kernel pointer (direct map or kernel image) to its physical address."""
    return va - (KERNEL_MAP if va >= KERNEL_MAP else PAGE_OFFSET)


class RecordPrograms(Protocol):
    """The guest's record programs (the kprobe engine's tables: kernel/trace_probe.c runs them)."""

    def add_program(self, record: GuestRecord, is_return: bool = False) -> GuestProbe | None: ...
    def set_program_slots(self, probe: GuestProbe, slots: int) -> None: ...
    def remove_program(self, probe: GuestProbe) -> None: ...
    def guest_counts(self, probe: GuestProbe) -> tuple[int, int]: ...


@dataclass
class Consumer:
    """struct uprobe_consumer: a handler at the hit, or (is_return) at the function's
    return -- the guest's record program (``program``) or the host's ``on_hit`` (None: the
    guest's alone); counts the hits it saw (trace_uprobe's nhit)."""
    point: "Point"
    is_return: bool
    on_hit: Callable[["UprobeHit"], None] | None
    engine: "UprobeEngine"
    program: GuestProbe | None = None
    host_hits: int = 0
    perf: int | None = None  # a perf event's: its call's slot in the guest's uprobe_perf_calls[]

    @property
    def nhit(self) -> int:
        return self.host_hits + self.engine.program_hits(self)

    def set_record_slots(self, slots: int) -> None:
        """The trace-array slots (and, above bit 64, those with triggers) the guest's record
        program records in; a host handler reads its event's at each hit."""
        self.engine.set_record_slots(self, slots)

    def unregister(self) -> None:
        self.engine.unregister(self)


@dataclass
class Point:
    """struct uprobe: one inode+offset and its consumers."""
    index: int  # in the guest's uprobe_points
    inode: tuple[int, int]
    offset: int
    arch: ArchUprobe  # the original instruction and how it runs out of line
    consumers: list[Consumer] = field(default_factory=list)


def _read_file(path: str, offset: int, size: int) -> bytes:
    """The probed file's bytes at offset (copy_insn(): what its pages hold)."""
    with open(os.path.join("/", path), "rb") as f:
        f.seek(offset)
        return f.read(size)


@dataclass(frozen=True)
class ArchUprobe:
    """struct arch_uprobe: the original instruction and how it runs out of line."""
    insn: bytes
    flags: int = 0  # UPROBE_EMU_*
    rel: int = 0  # an emulated branch's displacement
    cc: int = 0  # an emulated jcc's condition
    xol: bytes = b""  # the out-of-line code (a jump back follows it)
    riprel_at: int = 0  # where the original rip goes in it (0: nowhere)


# scratch registers for a RIP-relative operand (riprel_analyze()): number -> names capstone uses
_SCRATCH = {0: {"rax", "eax", "ax", "al", "ah"}, 1: {"rcx", "ecx", "cx", "cl", "ch"},
            2: {"rdx", "edx", "dx", "dl", "dh"}, 3: {"rbx", "ebx", "bx", "bl", "bh"},
            6: {"rsi", "esi", "si", "sil"}, 7: {"rdi", "edi", "di", "dil"}}
_LEA_BELOW_RED_ZONE = b"\x48\x8d\x64\x24\x80"  # lea -0x80(%rsp),%rsp: the red zone stays intact
_LEA_BACK = b"\x48\x8d\xa4\x24\x80\x00\x00\x00"  # lea 0x80(%rsp),%rsp


def _riprel_xol(i: X.Insn) -> tuple[bytes, int]:
    """riprel_analyze() + riprel_pre_xol()/post_xol(), as code: the operand's base becomes a
    scratch register the instruction does not use, which the slot saves, loads with the
    original rip (8 bytes at the returned offset), and restores."""
    cs = i.cs
    read, written = cs.regs_access()
    used = {cs.reg_name(r) for r in (*read, *written)}
    if used & {"rsp", "esp", "sp", "spl"} or i.raw[0] in (0xC4, 0xC5, 0x62, 0x8F) or \
            (i.opcode == (0xFF,) and i.modrm_reg == 6):
        raise OSError(ENOTSUPP, "RIP-relative instruction that uses the stack or a VEX prefix")
    scratch = next((n for n, names in _SCRATCH.items() if not names & used), None)
    if scratch is None:
        raise OSError(ENOTSUPP, "no scratch register for a RIP-relative operand")
    raw = bytearray(i.raw)
    at = cs.modrm_offset
    raw[at] = 0x80 | (raw[at] & 0x38) | scratch  # mod 10, rm scratch: disp32(%scratch)
    rex = at - len(i.opcode) - 1
    if rex >= 0 and raw[rex] & 0xF0 == 0x40:
        raw[rex] &= ~0x01  # REX.B would make it r8-r15
    head = _LEA_BELOW_RED_ZONE + bytes([0x50 + scratch, 0x48, 0xB8 + scratch])
    return head + bytes(8) + bytes(raw) + bytes([0x58 + scratch]) + _LEA_BACK, len(head)


def analyze_insn(code: bytes) -> ArchUprobe:
    """arch_uprobe_analyze_insn(): how the instruction at the probed offset runs; OSError
    (ENOTSUPP) for what cannot be probed (undecodable, an int3, loop/jrcxz, an indirect call)."""
    decoded = X.decode(code, 0)
    if not decoded:
        raise OSError(ENOTSUPP, "undecodable instruction")
    i = decoded[0]
    op = i.opcode

    def displacement() -> int:
        target = i.branch_target() or 0
        return (target if target < 1 << 63 else target - (1 << 64)) - i.size

    if op in ((0xCC,), (0xCD,)):
        raise OSError(ENOTSUPP, "int3/int at the probed address")
    if op == (0xE8,):
        return ArchUprobe(i.raw, UPROBE_EMU_CALL, displacement())
    if op in ((0xE9,), (0xEB,)):
        return ArchUprobe(i.raw, UPROBE_EMU_JMP, displacement())
    if i.is_relative_branch() and (0x70 <= op[0] <= 0x7F or len(op) == 2):
        return ArchUprobe(i.raw, UPROBE_EMU_JCC, displacement(), cc=(op[-1] & 0xF))
    if i.is_relative_branch() or (op == (0xFF,) and i.modrm_reg in (2, 3)):
        raise OSError(ENOTSUPP, "loop/jrcxz or an indirect call")
    if i.rip_relative:
        xol, at = _riprel_xol(i)
        return ArchUprobe(i.raw, xol=xol, riprel_at=at)
    return ArchUprobe(i.raw, xol=i.raw)


class UprobeEngine:
    """uprobe_register()/uprobe_unregister() over the guest's uprobe_points."""

    def __init__(self, machine: PatchableMachine, stage: ProbeStage, programs: RecordPrograms | None = None):
        """stage: where handlers' records go (the kprobe engine's); programs: where consumers'
        record programs go (None: every consumer's handler is the host's)."""
        self._machine = machine
        self._stage = stage
        self._programs = programs
        image = machine.image
        self._table = required_symbol(image, "uprobe_points")
        self._file_vm_ops = required_symbol(image, "file_vm_ops")
        abi = image.abi_value
        self._max = abi("UPROBES_MAX")
        self._point_size = abi("sizeof(uprobe_point)")
        self._points_at = self._table + abi("uprobe_points.p")
        self._perf_consumer = abi("UPROBE_PERF_CONSUMER")
        if self._point_size != _POINT.size or abi("UPROBE_GUEST_CONSUMERS") != GUEST_CONSUMERS:
            raise RuntimeError("kernel image's uprobe_point layout does not match this host")
        self._off = {name: abi(name) for name in (
            "task_struct.mm", "mm_struct.mm_mt", "mm_struct.pgd", "vm_area_struct.vm_flags",
            "vm_area_struct.vm_ops", "vm_area_struct.vm_pgoff", "vm_area_struct.vm_file",
            "vm_area_struct.vm_list", "file.f_inode", "inode.i_ino")}
        self.lock = threading.RLock()  # uprobes_treelock and the register mutex
        self._points: dict[tuple[tuple[int, int], int], Point] = {}
        machine.set_doorbell_handler(PORT_UPROBE, self._on_dispatch)

    # ---- uprobe_register / uprobe_unregister ----
    def register(self, path: str, inode: tuple[int, int], size: int, offset: int, ref_ctr_offset: int, *,
                 is_return: bool, on_hit: Callable[[UprobeHit], None] | None = None, guest: GuestRecord | None = None,
                 slots: int = 0, perf: int | None = None) -> Consumer:
        """__uprobe_register(): OSError EINVAL for an offset past the file's end or an unaligned
        reference counter, ENOTSUPP for an instruction that cannot be probed, ENOSPC when the
        guest's table is full.  guest: the record program the guest runs instead of on_hit
        (on_hit stays for a consumer the guest cannot take: its tables full, or a point's
        consumers past GUEST_CONSUMERS), recording in `slots` (see set_record_slots()).  A
        consumer with no on_hit is the guest's alone: ENOMEM where the guest has no room for
        it (nor, past GUEST_CONSUMERS, for one of the point's that has no on_hit either).  perf:
        the consumer is the kernel's perf call in that slot of uprobe_perf_calls[] (the uprobe
        PMU's), the guest's alone."""
        if offset > size or ref_ctr_offset % 2:
            raise OSError(errno.EINVAL, "bad uprobe offset")
        with self.lock:
            point = self._points.get((inode, offset))
            if point is None:
                code = _read_file(path, offset, MAX_UINSN_BYTES)
                arch = analyze_insn(code)
                index = self._free_index()
                point = Point(index, inode, offset, arch)
            same_way = [c for c in point.consumers if c.is_return == is_return]
            if len(same_way) >= GUEST_CONSUMERS and (on_hit is None or any(c.on_hit is None for c in same_way)):
                raise OSError(errno.ENOMEM, "no room for another consumer of this uprobe in the guest")
            program = None
            if guest is not None and self._programs is not None:
                program = self._programs.add_program(guest, is_return=is_return)
            if program is None and on_hit is None and perf is None:
                raise OSError(errno.ENOMEM, "the guest's probe tables are full")
            consumer = Consumer(point, is_return, on_hit, self, program, perf=perf)
            if program is not None and self._programs is not None:
                self._programs.set_program_slots(program, slots)
            first = not point.consumers
            point.consumers.append(consumer)
            self._points[(inode, offset)] = point
            self._sync(point, True if first else None)
            return consumer

    def unregister(self, consumer: Consumer) -> None:
        with self.lock:
            point = consumer.point
            if consumer not in point.consumers:
                return
            point.consumers.remove(consumer)
            self._sync(point, False if not point.consumers else None)
            if not point.consumers:
                del self._points[(point.inode, point.offset)]
            if consumer.program is not None and self._programs is not None:
                consumer.host_hits += self.program_hits(consumer)   # (its counters go with it)
                self._programs.remove_program(consumer.program)
                consumer.program = None

    def set_record_slots(self, consumer: Consumer, slots: int) -> None:
        with self.lock:
            if consumer.program is not None and self._programs is not None:
                self._programs.set_program_slots(consumer.program, slots)

    def program_hits(self, consumer: Consumer) -> int:
        program = consumer.program
        return 0 if program is None or self._programs is None else self._programs.guest_counts(program)[0]

    @staticmethod
    def _dispatch_order(point: Point, is_return: bool) -> list[Consumer]:
        """Consumer k of the hit's (or the return's) handler chain: consumer_add() puts each new
        consumer first, so the last registered runs first."""
        return [c for c in reversed(point.consumers) if c.is_return == is_return]

    def _programs_of(self, consumers: list[Consumer]) -> list[int]:
        """entry_probe[]/ret_probe[]: each of the first consumers' program index + 1, or its perf
        call's slot with UPROBE_PERF_CONSUMER (0: the host's)."""
        first = [self._perf_consumer | c.perf if c.perf is not None else 0 if c.program is None else c.program.index + 1
                 for c in consumers[:GUEST_CONSUMERS]]
        return first + [0] * (GUEST_CONSUMERS - len(first))

    def _free_index(self) -> int:
        used = {p.index for p in self._points.values()}
        for i in range(self._max):
            if i not in used:
                return i
        raise OSError(errno.ENOSPC, "no room for another uprobe")

    def _sync(self, point: Point, install: bool | None) -> None:
        """The guest's entry of the point (armed while it has consumers), and with it, in the
        same stop of the CPUs, the int3 put into (True) or taken out of (False) the pages
        mapped now -- a hit never finds the one without the other."""
        n_entry = sum(1 for c in point.consumers if not c.is_return)
        n_ret = len(point.consumers) - n_entry
        arch = point.arch
        flags = arch.flags | (UPROBE_ARMED if point.consumers else 0) | (UPROBE_RET if n_ret else 0)
        head = _POINT.pack(point.inode[1] if point.consumers else 0, point.offset, flags, len(arch.insn), arch.rel,
                           n_entry, n_ret, 0, len(arch.xol), arch.riprel_at, arch.cc, 0,
                           arch.xol.ljust(UPROBE_XOL_BYTES, b"\0"),
                           *self._programs_of(self._dispatch_order(point, False)),
                           *self._programs_of(self._dispatch_order(point, True)))
        count = max([p.index for p in self._points.values() if p.consumers] + [-1]) + 1
        entry_pa = _direct_pa(self._points_at + point.index * _POINT.size)
        byte = UPROBE_SWBP_INSN if install else arch.insn[:1]

        def patches(ram: GuestRam, tasks: list[int]) -> list[tuple[int, bytes, bool]]:
            out = [(entry_pa, head[:_NHIT], False), (entry_pa + _NHIT + 8, head[_NHIT + 8:], False)]  # (nhit: the guest's)
            if not point.consumers:
                out.append((entry_pa + _NHIT, bytes(8), False))
            out.append((_direct_pa(self._table), struct.pack("<I", count), False))
            if install is not None:
                # verify_opcode(): the int3 goes where it is not yet, the original byte back
                # only where the int3 still is (a page the process rewrote keeps its bytes)
                out += [(pa, byte, True) for pa in self._mapped(ram, tasks, point, install)
                        if (ram.read(pa, 1) == UPROBE_SWBP_INSN) != install]
            return out
        self._machine.poke_user_text(patches)

    def _mapped(self, ram: GuestRam, tasks: list[int], point: Point, register: bool = True) -> list[int]:
        """register_for_each_vma(): the physical address of the probed byte in every present
        page of a mapping of the file (to register: a non-writable one, valid_vma()), in each
        address space once."""
        off = self._off

        def u64(va: int) -> int:
            return int(_U64.unpack(ram.read(_direct_pa(va), 8))[0])

        out: set[int] = set()
        seen: set[int] = set()
        for task in tasks:
            mm = u64(task + off["task_struct.mm"])
            if not mm or mm in seen:
                continue
            seen.add(mm)
            pgd = u64(mm + off["mm_struct.pgd"])
            head = mm + off["mm_struct.mm_mt"] + 8  # maple_tree.vmas
            node = u64(head)
            n = 0
            while node != head and n < 65536:
                n += 1
                vma = node - off["vm_area_struct.vm_list"]
                node = u64(node)
                if u64(vma + off["vm_area_struct.vm_ops"]) != self._file_vm_ops:
                    continue
                if register and u64(vma + off["vm_area_struct.vm_flags"]) & (_VM_WRITE | _VM_MAYSHARE):
                    continue
                file = u64(vma + off["vm_area_struct.vm_file"])
                inode = u64(file + off["file.f_inode"]) if file else 0
                if not inode or u64(inode + off["inode.i_ino"]) != point.inode[1]:
                    continue
                start, end = u64(vma), u64(vma + 8)
                base = u64(vma + off["vm_area_struct.vm_pgoff"]) << 12
                if not base <= point.offset < base + (end - start):
                    continue
                pa = self._translate(ram, pgd, start + point.offset - base)
                if pa is not None:
                    out.add(pa)
        return sorted(out)

    @staticmethod
    def _translate(ram: GuestRam, pgd: int, va: int) -> int | None:
        """The physical address of a user address in an address space; None: not present."""
        table = _direct_pa(pgd)
        for shift in (39, 30, 21, 12):
            entry = _U64.unpack(ram.read(table + ((va >> shift) & 511) * 8, 8))[0]
            if not entry & _PTE_PRESENT:
                return None
            if shift != 12 and entry & _PTE_PS:
                size = 1 << shift
                return int((entry & _PTE_PFN & ~(size - 1)) + (va & (size - 1)))
            table = entry & _PTE_PFN
        return table + (va & 0xFFF)

    # ---- the hit: handler_chain() / handle_uretprobe_chain() ----
    def _on_dispatch(self, ctx: HookContext, args: tuple[int, int, int, int]) -> None:
        """uprobe_dispatch(regs, idx, k, func, is_ret, fault)'s doorbell, args[0] its struct
        uprobe_call: consumer k of the point's handlers (at the hit, or at the return) runs."""
        call = ctx.read(args[0], _CALL.size)
        if call is None:
            return
        regs_va, idx, k, func, is_ret, fault_at = _CALL.unpack(call)
        point = next((p for p in self._points.values() if p.index == idx), None)
        if point is None:
            return
        consumers = self._dispatch_order(point, bool(is_ret))
        if k >= len(consumers):
            return
        raw = ctx.read(regs_va, PT_REGS_FRAME.size)
        if raw is None:
            return
        consumer = consumers[k]
        if consumer.on_hit is None:  # (the guest's alone: never rung for)
            return
        hit = UprobeHit(ctx, self._stage, PT_REGS_FRAME.unpack(raw), func, point.offset, bool(is_ret),
                        bool(fault_at))
        consumer.on_hit(hit)
        if hit.fault is not None:  # the guest faults the page in and asks again
            ctx.write(fault_at, _U64.pack(hit.fault))
            return
        consumer.host_hits += 1


class UprobeHit:
    """What a uprobe consumer's handler reads (trace/probe_args.FetchContext as trace_uprobe's
    process_fetch_insn() has it: every memory access is a copy from user memory) and where
    it stages its record."""

    __slots__ = ("ip", "ret_ip", "cpu", "fault", "_ctx", "_stage", "_regs", "_base", "_may_fault")

    def __init__(self, ctx: HookContext, stage: ProbeStage, regs: tuple[int, ...], func: int, offset: int,
                 is_return: bool, may_fault: bool = False):
        """may_fault: a read of a user page not mapped in yet is to be retried once the guest
        has faulted it in (``fault``: its address); else it reads as a fault."""
        self.fault: int | None = None
        self._may_fault = may_fault
        self._ctx = ctx
        self._stage = stage
        self._regs = regs
        self.cpu = ctx.cpu
        ip = regs[PT_INDEX["ip"]]
        # the record's vaddr[]: the probed address, or the function and where it returns to
        self.ip, self.ret_ip = (func, ip) if is_return else (ip, 0)
        self._base = func - offset  # translate_user_vaddr(): where the file is mapped

    def reg(self, name: str) -> int:
        return self._regs[PT_INDEX[name]]

    def stack(self, n: int) -> int:
        """get_user_stack_nth(): 0 where the read faults."""
        raw = self.read_user(self.reg("sp") + 8 * n, 8)
        return 0 if raw is None else _U64.unpack(raw)[0]

    def read_user(self, addr: int, size: int) -> bytes | None:
        addr &= _M64
        if addr + size > TASK_SIZE:
            return None
        data = self._ctx.read(addr, size)
        if data is None:
            self._faulted(addr, size)
        return data

    def _faulted(self, addr: int, size: int) -> None:
        """The first page of [addr, addr+size) that does not read: the guest brings it in."""
        if self._may_fault and self.fault is None:
            page = addr & ~0xFFF
            while page < addr + size and self._ctx.read(max(page, addr), 1) is not None:
                page += 0x1000
            self.fault = max(page, addr)

    def read_kernel(self, addr: int, size: int) -> bytes | None:
        return self.read_user(addr, size)  # copy_from_user(): a kernel address faults

    def read_string(self, addr: int, user: bool, limit: int) -> bytes | None:
        """strncpy_from_user() for string and ustring alike."""
        if addr >= TASK_SIZE:
            return None
        data = self._ctx.read_string(addr, limit)
        if data is None:
            self._faulted(addr, limit)
        return data

    def comm(self) -> bytes:
        return self._ctx.current_comm()

    def retval(self) -> int:
        return self.reg("ax")

    def file_vaddr(self, file_offset: int) -> int:
        return (self._base + file_offset) & _M64

    def symbolize(self, addr: int) -> None:
        return None

    def record(self, event_type: int, slots: int, payload: bytes) -> None:
        """Stage the record; uprobe_commit() writes it after the hook."""
        if self.fault is None and len(payload) <= self._stage.max_payload:
            self._stage.put(self._ctx, event_type, slots, self.reg("flags"), payload)
