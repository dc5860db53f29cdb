"""Host code run at a guest instruction: one-address code hooks and the
kernel-mode breakpoint (int3) handler, and the context they see (HookContext).

Probe handlers run in the middle of the emulation, so everything here is a
fast path: registers through the CPU's ctypes batch (cpu.read_regs), memory
through the shared RAM buffer with a page-table walk of the current CR3.

Hooks are added and removed with every CPU stopped (stop_machine), and the
translation of the hooked address is dropped on every CPU: a Unicorn hook only
takes effect in code translated after it was added.  Writing RIP from a code
hook works in Unicorn 2.1.4 (the run continues at the new address), but the
probe paths avoid it where they can: it ends the translated block.
"""
from __future__ import annotations

import ctypes
import logging
import struct
from typing import Callable

from unicorn import UC_HOOK_CODE, Uc
from unicorn.unicorn_py3.unicorn import uclib

from . import native_lib
from .cpu import _REGS, CODE_CFUNC, CR3, Cpu, _reg_read_batch, add_raw_hook, hook_failed
from .image import KERNEL_MAP, PAGE_OFFSET
from .paging import PhysMem

log = logging.getLogger(__name__)

# Names of cpu.read_regs() entries, as struct pt_regs names them (flags = eflags).
REG_NAMES = ("ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9", "r10", "r11", "r12",
             "r13", "r14", "r15", "ip", "flags", "cr3", "cs")
REG_INDEX = {name: i for i, name in enumerate(REG_NAMES)}
_WRITABLE = frozenset(REG_NAMES[:18])
_RIP_ID = _REGS[REG_INDEX["ip"]]

PTE_P, PTE_PS = 0x1, 0x80
KERNEL_CS, KERNEL_DS = 0x10, 0x18
PTE_ADDR = 0x000FFFFFFFFFF000
_U64 = struct.Struct("<Q")
_I32 = struct.Struct("<i")
_REG_VALUES = struct.Struct(f"<{len(REG_NAMES)}Q")
# uc_reg_read/uc_reg_write without the binding's argument conversions (see cpu.py)
_REG_CFUNC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
_reg_write = _REG_CFUNC(native_lib.address(uclib.uc_reg_write))
_reg_read = _REG_CFUNC(native_lib.address(uclib.uc_reg_read))


class HookContext:
    """What a hook callback sees: one per CPU, valid during the callback."""

    def __init__(self, cpu: Cpu, mem: PhysMem, curr_task_pa: int, task_pid: int, task_comm: int):
        self.cpu = cpu.index
        self._cpu = cpu
        self._mem = mem
        # physical RAM (a writable buffer) and its size: for reads of the linear maps, and
        # for fixed kernel data whose physical address the caller found once
        self.ram = mem.buf
        self.ram_size = mem.size
        self._curr_pa = curr_task_pa  # physical address of this CPU's percpu curr_task
        self._pid_off = task_pid
        self._comm_off = task_comm
        self._val = ctypes.c_uint64()
        self._vals = cpu._vals  # the CPU's batch buffers (cpu.read_regs order)
        self._batch = (native_lib.address(cpu._h), ctypes.addressof(cpu._ids), ctypes.addressof(cpu._ptrs), len(_REGS))
        self._val_addr = ctypes.addressof(self._val)
        self._snap: tuple[int, ...] | None = None  # regs() of the current callback

    def _enter(self) -> None:
        """A new callback: registers may have changed since the last one."""
        self._snap = None

    # ---- registers ----
    def regs(self) -> tuple[int, ...]:
        """Every GPR, rip, eflags, cr3, cs: indexed as REG_NAMES / REG_INDEX."""
        snap = self._snap
        if snap is None:
            _reg_read_batch(*self._batch)
            snap = self._snap = _REG_VALUES.unpack_from(self._vals)  # (tuple(ctypes array) is slow)
        return snap

    def reg(self, name: str) -> int:
        """One register (REG_NAMES), cheaper than regs() when one is all a hook needs."""
        snap = self._snap
        if snap is not None:
            return snap[REG_INDEX[name]]
        self._val.value = 0  # eflags and cs are narrower: Unicorn writes their bytes only
        if _reg_read(self._batch[0], _REGS[REG_INDEX[name]], self._val_addr):
            raise RuntimeError(f"uc_reg_read({name}) failed")
        return self._val.value

    def set_rip(self, value: int) -> None:
        self._val.value = value & 0xFFFFFFFFFFFFFFFF
        self._snap = None
        if _reg_write(self._batch[0], _RIP_ID, self._val_addr):
            raise RuntimeError("uc_reg_write(rip) failed")

    def set_reg(self, name: str, value: int) -> None:
        if name not in _WRITABLE:
            raise KeyError(name)
        self._val.value = value & 0xFFFFFFFFFFFFFFFF
        self._snap = None
        err = _reg_write(self._batch[0], _REGS[REG_INDEX[name]], self._val_addr)
        if err:
            raise RuntimeError(f"uc_reg_write({name}) failed: error {err}")

    # ---- memory ----
    def _cr3(self) -> int:
        return self.regs()[CR3]

    def translate(self, vaddr: int, cr3: int | None = None) -> int | None:
        """Physical address of vaddr in the current address space (None: not mapped)."""
        if vaddr >= KERNEL_MAP:  # the kernel map is the same linear map in every page table
            pa = vaddr - KERNEL_MAP
            return pa if pa < self.ram_size else None
        if PAGE_OFFSET <= vaddr < PAGE_OFFSET + self.ram_size:
            return vaddr - PAGE_OFFSET
        if vaddr >> 47 and vaddr >> 47 != 0x1FFFF:  # non-canonical; the kernel's other ranges
            return None                              # (vmalloc, vmemmap) by the walk
        table = (self._cr3() if cr3 is None else cr3) & PTE_ADDR
        buf, size = self.ram, self.ram_size
        for shift in (39, 30, 21, 12):
            entry_pa = table + 8 * ((vaddr >> shift) & 511)
            if entry_pa + 8 > size:
                return None
            entry = _U64.unpack_from(buf, entry_pa)[0]
            if not entry & PTE_P:
                return None
            if shift != 12 and entry & PTE_PS:
                base = entry & PTE_ADDR & ~((1 << shift) - 1)
                pa = base | (vaddr & ((1 << shift) - 1))
                return pa if pa < size else None
            table = entry & PTE_ADDR
        pa = table | (vaddr & 0xFFF)
        return pa if pa < size else None

    def read(self, vaddr: int, size: int) -> bytes | None:
        """Guest virtual memory (None: some byte is not mapped)."""
        if size <= 0:
            return b""
        if vaddr >= PAGE_OFFSET:  # the linear maps (probe handlers' hot path): no page walk
            pa = vaddr - (KERNEL_MAP if vaddr >= KERNEL_MAP else PAGE_OFFSET)
            if pa + size <= self.ram_size:
                return self.ram[pa:pa + size]
            if vaddr >= KERNEL_MAP or pa < self.ram_size:
                return None
            # past the direct map: vmalloc, vmemmap (the walk, below)
        end = vaddr + size
        cr3 = self._cr3()
        out = []
        while vaddr < end:
            n = min(end, (vaddr | 0xFFF) + 1) - vaddr
            page = self.translate(vaddr, cr3)
            if page is None:
                return None
            out.append(self.ram[page:page + n])
            vaddr += n
        return b"".join(out)

    def read_string(self, vaddr: int, limit: int) -> bytes | None:
        """Bytes up to (without) the NUL, at most limit of them; None on a fault
        before the NUL (strncpy_from_user semantics: a page at a time)."""
        out = []
        got = 0
        cr3 = self._cr3()
        while got < limit:
            pa = self.translate(vaddr, cr3)
            if pa is None:
                return None
            n = min(limit - got, (vaddr | 0xFFF) + 1 - vaddr)
            chunk = self.ram[pa:pa + n]
            nul = chunk.find(b"\0")
            if nul >= 0:
                out.append(chunk[:nul])
                return b"".join(out)
            out.append(chunk)
            got += n
            vaddr += n
        return b"".join(out)

    def write(self, vaddr: int, data: bytes) -> bool:
        """Write guest virtual memory (data, never text: no translation is
        dropped); False if some byte is not mapped (nothing written then)."""
        if vaddr >= KERNEL_MAP or PAGE_OFFSET <= vaddr:  # linear maps: no page walk
            pa, last = self.translate(vaddr), self.translate(vaddr + len(data) - 1)
            if pa is None or last is None or last - pa != len(data) - 1:
                return False
            self.ram[pa:pa + len(data)] = data
            return True
        cr3 = self._cr3()
        pieces = []
        pos, end = vaddr, vaddr + len(data)
        while pos < end:
            n = min(end, (pos | 0xFFF) + 1) - pos
            pa = self.translate(pos, cr3)
            if pa is None:
                return False
            pieces.append((pa, data[pos - vaddr:pos - vaddr + n]))
            pos += n
        for pa, chunk in pieces:
            self.ram[pa:pa + len(chunk)] = chunk
        return True

    # ---- the task ----
    def current_task(self) -> tuple[int, str, int]:
        """(pid, comm, task_struct address) of the task running on this CPU."""
        task = _U64.unpack_from(self.ram, self._curr_pa)[0]
        tpa = self.translate(task)
        if tpa is None:
            return (0, "", task)
        pid = struct.unpack_from("<i", self.ram, tpa + self._pid_off)[0]
        comm = self.ram[tpa + self._comm_off:tpa + self._comm_off + 16].split(b"\0", 1)[0]
        return (pid, comm.decode(errors="replace"), task)

    def current_pid(self) -> int:
        """pid of the task running on this CPU (0: none)."""
        tpa = self.translate(_U64.unpack_from(self.ram, self._curr_pa)[0])
        return 0 if tpa is None else _I32.unpack_from(self.ram, tpa + self._pid_off)[0]

    def current_comm(self) -> bytes:
        """comm of the task running on this CPU, as its bytes (up to the NUL)."""
        tpa = self.translate(_U64.unpack_from(self.ram, self._curr_pa)[0])
        if tpa is None:
            return b""
        at = tpa + self._comm_off
        return self.ram[at:at + 16].split(b"\0", 1)[0]

    def current_task_addr(self) -> int:
        addr: int = _U64.unpack_from(self.ram, self._curr_pa)[0]
        return addr


class HookTable:
    """The machine's code hooks: kept by handle, installed on every CPU."""

    def __init__(self) -> None:
        self._hooks: dict[int, tuple[int, Callable[[HookContext], None], list[int]]] = {}
        self._next = 1
        self._cpus: list[Cpu] = []
        self._contexts: list[HookContext] = []

    def attach(self, cpus: list[Cpu], contexts: list[HookContext]) -> None:
        """The CPUs exist (machine start): install the hooks added before."""
        self._cpus, self._contexts = cpus, contexts
        for handle, (addr, callback, _) in list(self._hooks.items()):
            self._hooks[handle] = (addr, callback, self._install(addr, callback))

    def context(self, cpu: int) -> HookContext:
        return self._contexts[cpu]

    def add(self, addr: int, callback: Callable[[HookContext], None]) -> int:
        """Call with every CPU stopped."""
        handle = self._next
        self._next += 1
        self._hooks[handle] = (addr, callback, self._install(addr, callback) if self._cpus else [])
        return handle

    def remove(self, handle: int) -> None:
        """Call with every CPU stopped.  KeyError for an unknown handle."""
        addr, _, installed = self._hooks.pop(handle)
        for cpu, h in zip(self._cpus, installed):
            cpu.uc.hook_del(h)
            cpu.drop_translations([(addr, addr + 1)])

    def _install(self, addr: int, callback: Callable[[HookContext], None]) -> list[int]:
        handles = []
        for cpu, ctx in zip(self._cpus, self._contexts):
            def on_code(handle: int | None, address: int, size: int, key: int | None, ctx: HookContext = ctx,
                        callback: Callable[[HookContext], None] = callback, uc: Uc = cpu.uc) -> None:
                ctx._snap = None  # (inline _enter: this is the hot path)
                try:
                    callback(ctx)
                except Exception:  # a handler bug must not kill the machine
                    log.exception("code hook at %#x failed", address)
                except BaseException as e:
                    hook_failed(uc, e)
            handles.append(add_raw_hook(cpu.uc, UC_HOOK_CODE, CODE_CFUNC(on_code), addr, addr))
            cpu.drop_translations([(addr, addr + 1)])
        return handles

    def executing(self, ranges: list[tuple[int, int]], thread_size: int) -> bool:
        """With every CPU stopped: does one run code in one of the ranges, or
        was it interrupted there (a kernel-mode interrupt frame in the live
        part of its stack: rip, __KERNEL_CS, flags, rsp, __KERNEL_DS)?  The
        kernel is not preemptible, so a context switched out never is."""
        def inside(addr: int) -> bool:
            return any(lo <= addr < hi for lo, hi in ranges)
        for ctx in self._contexts:
            ctx._enter()
            v = ctx.regs()
            if inside(v[REG_INDEX["ip"]]):
                return True
            if v[REG_INDEX["cs"]] & 3:
                continue  # user mode: nothing of the kernel's in flight
            rsp = v[REG_INDEX["sp"]]
            live = ctx.read(rsp, (rsp | (thread_size - 1)) + 1 - rsp)
            if not live:
                continue
            words = [w for (w,) in _U64.iter_unpack(live[:len(live) & ~7])]
            for i in range(len(words) - 4):
                if words[i + 1] == KERNEL_CS and words[i + 4] == KERNEL_DS and inside(words[i]):
                    return True
        return False
