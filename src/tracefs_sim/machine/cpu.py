"""One emulated CPU: a Unicorn instance over the shared RAM, and the x86
privilege transitions Unicorn does not perform itself.

Unicorn treats `syscall` as a hook-only instruction and never delivers
interrupts through an IDT, and it will not load a CPL-0 SS from CPL 3.  The
machine therefore keeps a snapshot of this CPU's kernel-mode state (a Unicorn
context taken at CPL 0) and, on entry, restores it and puts the user's
registers back: that is the CPL switch.  `syscall` is done natively, inside
Unicorn (native/syscall.c, which also keeps the snapshot); interrupts and
exceptions are entered between runs (by the native run loop on a live
machine, else from Python).  The returns (`sysretq`, `iretq`) are native.
Registers go through direct ctypes batch calls.

The `out` hook is native too (native/ports.c): the trace doorbell, rung per
filled ring page, is only noted in the CPU's CpuEvents and passed on to Python
by the run loop between slices; other ports call Python.
"""
from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Iterable, Sequence

from unicorn.unicorn_const import UC_CTL_IO_WRITE, UC_CTL_TLB_FLUSH
from unicorn import UC_ARCH_X86, UC_HOOK_BLOCK, UC_HOOK_INSN, UC_HOOK_INSN_INVALID, UC_MODE_64, UC_PROT_ALL, Uc, UcError
from unicorn.unicorn_py3.unicorn import uclib
from unicorn.x86_const import (
    UC_X86_INS_OUT, UC_X86_INS_SYSCALL, UC_X86_REG_CR0, UC_X86_REG_CR2, UC_X86_REG_CR3, UC_X86_REG_CR4,
    UC_X86_REG_CS, UC_X86_REG_EFLAGS, UC_X86_REG_GDTR, UC_X86_REG_MSR, UC_X86_REG_R8,
    UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11, UC_X86_REG_R12, UC_X86_REG_R13,
    UC_X86_REG_R14, UC_X86_REG_R15, UC_X86_REG_RAX, UC_X86_REG_RBP, UC_X86_REG_RBX,
    UC_X86_REG_RCX, UC_X86_REG_RDI, UC_X86_REG_RDX, UC_X86_REG_RIP, UC_X86_REG_RSI,
    UC_X86_REG_RSP, UC_X86_REG_SS, UC_X86_REG_FPCW, UC_X86_REG_FPSW, UC_X86_REG_FPTAG, UC_X86_REG_MXCSR,
    UC_X86_REG_FS_BASE, UC_X86_REG_ST0, UC_X86_REG_ST7, UC_X86_REG_XMM0, UC_X86_REG_XMM15,
)

from . import native_lib
from .hostif import CPU_USER_STATE, PORT_FENCE, PORT_TRACE, PORT_YIELD
from .int3_gate import Int3Gate
from .paging import PhysMem, kernel_virt_to_phys
from .slicer import SlicedUc, Slicer, SliceTimer

KERNEL_CS, KERNEL_DS = 0x10, 0x18
MSR_EFER, MSR_STAR, MSR_LSTAR, MSR_FMASK, MSR_GS_BASE = (
    0xC0000080, 0xC0000081, 0xC0000082, 0xC0000084, 0xC0000101)
EFER_SCE, EFER_LME, EFER_LMA, EFER_NX = 0x1, 0x100, 0x400, 0x800
CR0_PE, CR0_MP, CR0_ET, CR0_NE, CR0_WP, CR0_AM, CR0_PG = (
    1, 2, 0x10, 0x20, 0x10000, 0x40000, 0x80000000)
CR4_PAE, CR4_PGE, CR4_OSFXSR = 0x20, 0x80, 0x200
SYSCALL_FMASK = 0x47700  # TF DF IF IOPL NT AC, as Linux sets MSR_SYSCALL_MASK
EFLAGS_IF, EFLAGS_TF = 0x200, 0x100
# Translated code kept per CPU before Unicorn flushes it and starts afresh: the kernel and
# programs translate to a few MiB, so 8 MiB rarely flushes, and it bounds what the soak sees.
TCG_BUFFER_BYTES = 8 << 20

# Batch register order: the 16 GPRs, RIP, EFLAGS (written back), then CR3, CS (read only).
_REGS = [UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RSI,
         UC_X86_REG_RDI, UC_X86_REG_RBP, UC_X86_REG_RSP, UC_X86_REG_R8, UC_X86_REG_R9,
         UC_X86_REG_R10, UC_X86_REG_R11, UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14,
         UC_X86_REG_R15, UC_X86_REG_RIP, UC_X86_REG_EFLAGS, UC_X86_REG_CR3, UC_X86_REG_CS]
RSI, RDI, RSP, RIP, EFLAGS, CR3, CS = 4, 5, 7, 16, 17, 18, 19
_NWRITE = 18
_SYSCALL_NREGS = 19  # the syscall hook's batch (native/syscall.c): _REGS up to CR3

# The batch calls and hook callbacks of every syscall, interrupt and probe hit, without the
# binding's per-call argument conversions and callback wrappers (a third of a call's cost).
_BATCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
_reg_read_batch = _BATCH(native_lib.address(uclib.uc_reg_read_batch))
_reg_write_batch = _BATCH(native_lib.address(uclib.uc_reg_write_batch))
_INTR_CFUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p)
_OUT_CFUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p)
CODE_CFUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_void_p)

Regs = ctypes.Array[ctypes.c_uint64]  # the registers of _REGS, by index (read_regs)
# the machine's handlers: `out` to a port (uc, port, size, value, cpu), an interrupt or
# exception (uc, vector, cpu), an invalid opcode (uc, cpu) -> whether the kernel handles it
OutHandler = Callable[[Uc, int, int, int, "Cpu"], None]
IntrHandler = Callable[[Uc, int, "Cpu"], None]
InvalidHandler = Callable[[Uc, "Cpu"], bool]


# What a user task keeps across the CPL switch's snapshot restore (NR_USER_STATE in
# native/syscall.c): the x87 and SSE registers and the FS base.
_USER_STATE_REGS = ([UC_X86_REG_FPCW, UC_X86_REG_FPSW, UC_X86_REG_FPTAG, UC_X86_REG_MXCSR, UC_X86_REG_FS_BASE]
                    + list(range(UC_X86_REG_ST0, UC_X86_REG_ST7 + 1))
                    + list(range(UC_X86_REG_XMM0, UC_X86_REG_XMM15 + 1)))
assert len(_USER_STATE_REGS) == 29


class _SyscallCpu(ctypes.Structure):  # struct syscall_cpu in native/syscall.c
    _fields_ = [("reg_read_batch", ctypes.c_void_p), ("reg_write_batch", ctypes.c_void_p),
                ("context_restore", ctypes.c_void_p), ("context_save", ctypes.c_void_p),
                ("reg_write", ctypes.c_void_p), ("emu_stop", ctypes.c_void_p),
                ("kctx", ctypes.c_void_p), ("kctx_cr3", ctypes.c_uint64),
                ("entry", ctypes.c_uint64), ("fmask", ctypes.c_uint64),
                ("cr3_id", ctypes.c_int), ("error", ctypes.c_int),
                ("ids", ctypes.c_int * _SYSCALL_NREGS), ("vals", ctypes.c_uint64 * _SYSCALL_NREGS),
                ("ptrs", ctypes.c_void_p * _SYSCALL_NREGS),
                ("user_state", ctypes.c_void_p),
                ("us_ids", ctypes.c_int * len(_USER_STATE_REGS)),
                ("us_vals", (ctypes.c_uint8 * 16) * len(_USER_STATE_REGS)),
                ("us_ptrs", ctypes.c_void_p * len(_USER_STATE_REGS))]


class CpuEvents(ctypes.Structure):  # struct cpu_events in native/cpu_events.h
    _fields_ = [("entering_idle", ctypes.c_int32), ("python_ran", ctypes.c_int32),
                ("deferred", ctypes.c_int32), ("deferred_port", ctypes.c_uint32),
                ("python_out", ctypes.c_void_p),
                ("emu_stop", ctypes.c_void_p), ("passed_at", ctypes.c_uint64), ("quiet_ns", ctypes.c_uint64),
                ("notify_port", ctypes.c_uint32), ("notify_fd", ctypes.c_int32),
                ("hostfs_port", ctypes.c_uint32), ("pad", ctypes.c_uint32), ("hostfs", ctypes.c_void_p),
                ("wake_port", ctypes.c_uint32), ("wake_fd", ctypes.c_int32),
                ("pmu", ctypes.c_void_p), ("pmu_tsc_khz", ctypes.c_uint64), ("pmu_ns_per_byte", ctypes.c_uint64),
                ("pmu_executed", ctypes.c_void_p), ("pmu_slice_left", ctypes.c_void_p),
                ("pmu_timer", ctypes.c_void_p), ("pmu_shorten", ctypes.c_void_p),
                ("pmu_mark", ctypes.c_uint64),
                ("pmu_port", ctypes.c_uint32), ("pmu_nmi", ctypes.c_int32),
                ("pmu_insn_hooked", ctypes.c_int32), ("pmu_cr3_id", ctypes.c_int32),
                ("pmu_reg_read", ctypes.c_void_p), ("pmu_ram", ctypes.c_void_p),
                ("pmu_ram_size", ctypes.c_uint64), ("pmu_kernel_map", ctypes.c_uint64),
                ("pmu_page_offset", ctypes.c_uint64), ("pmu_blocks", ctypes.c_void_p),
                ("pmu_page_va", ctypes.c_uint64), ("pmu_page", ctypes.c_void_p),
                ("yield_port", ctypes.c_uint32), ("fence_port", ctypes.c_uint32)]


def _uclib_address(name: str) -> int:
    return native_lib.address(getattr(uclib, name))


def _syscall_native() -> tuple[int, Callable[..., int]]:
    """(address of syscall_insn_hook, kernel_mode_enter) from native/syscall.c."""
    lib = native_lib.load("syscall")
    enter = lib.kernel_mode_enter
    enter.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
    enter.restype = ctypes.c_int
    return native_lib.address(lib.syscall_insn_hook), enter


def kernel_mode_enter_address() -> int:
    """native/syscall.c's kernel_mode_enter(uc, struct syscall_cpu *, cr3), for the native run loop."""
    return native_lib.address(native_lib.load("syscall").kernel_mode_enter)


def add_raw_hook(uc: Uc, htype: int, callback: ctypes._CFunctionType, begin: int = 1, end: int = 0,
                 *aux: int) -> int:
    """uc.hook_add() for a ctypes callback (a CFUNCTYPE of a function taking the C
    arguments) that guards itself with hook_failed(); the Uc keeps it alive."""
    do_hook_add: Callable[..., int] = getattr(uc, "_Uc__do_hook_add")  # (the binding's, unwrapped)
    return do_hook_add(htype, callback, begin, end, *aux)


def hook_failed(uc: Uc, e: BaseException) -> None:
    """What the binding does for an exception in a hook: emu_start raises it."""
    if uc._hook_exception is None:
        uc._hook_exception = e  # type: ignore[assignment]  # (emu_start re-raises any exception)
    uc.emu_stop()


class Cpu:
    def __init__(self, index: int, mem: PhysMem, cr3: int, gdt: int, gs_base: int,
                 syscall_entry: int, int3_gate: Int3Gate | None = None,
                 regions: Sequence[tuple[int, int, int]] = ()):
        self.index = index
        # kernel-mode int3s delivered natively through the guest's gate (shared by the machine's CPUs)
        self.int3_gate = Int3Gate() if int3_gate is None else int3_gate
        self.mem = mem
        uc = self.uc = SlicedUc(UC_ARCH_X86, UC_MODE_64)
        # Unicorn's default is a 1 GiB translation buffer per CPU, filled and never flushed:
        # new code (every exec'd program) kept growing the daemon's memory. Bounded, it is
        # flushed when full, at no measured cost to speed.
        uc.ctl_set_tcg_buffer_size(TCG_BUFFER_BYTES)
        uc.mem_map_ptr(0, mem.size, UC_PROT_ALL, mem.address)
        for pa, size, address in regions:  # memory beyond RAM shared with the host (perf_pool.py)
            uc.mem_map_ptr(pa, size, UC_PROT_ALL, address)
        uc.reg_write(UC_X86_REG_CR3, cr3)
        uc.reg_write(UC_X86_REG_CR4, CR4_PAE | CR4_PGE | CR4_OSFXSR)
        uc.reg_write(UC_X86_REG_MSR, (MSR_EFER, EFER_SCE | EFER_LME | EFER_LMA | EFER_NX))
        uc.reg_write(UC_X86_REG_CR0, CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_AM | CR0_PG)
        uc.reg_write(UC_X86_REG_GDTR, (0, gdt, 16 * 8 - 1, 0))
        uc.reg_write(UC_X86_REG_CS, KERNEL_CS)
        uc.reg_write(UC_X86_REG_SS, KERNEL_DS)
        uc.reg_write(UC_X86_REG_MSR, (MSR_STAR, (0x23 << 48) | (KERNEL_CS << 32)))
        uc.reg_write(UC_X86_REG_MSR, (MSR_LSTAR, syscall_entry))
        uc.reg_write(UC_X86_REG_MSR, (MSR_FMASK, SYSCALL_FMASK))
        uc.reg_write(UC_X86_REG_MSR, (MSR_GS_BASE, gs_base))
        self._h = uc._uch
        n = len(_REGS)
        self._ids = (ctypes.c_int * n)(*_REGS)
        self._vals = (ctypes.c_uint64 * n)()
        base = ctypes.addressof(self._vals)
        self._ptrs = (ctypes.c_void_p * n)(*[base + 8 * i for i in range(n)])
        self._batch = (native_lib.address(self._h), ctypes.addressof(self._ids), ctypes.addressof(self._ptrs))
        # kernel-mode snapshot used for every user->kernel transition; kept by
        # native/syscall.c (with the CR3 it holds), whose hook is the `syscall` instruction
        self._kctx = uc.context_save()
        self._syscall_hook, self._kernel_mode_enter = _syscall_native()
        sc = self._sc = _SyscallCpu(
            _uclib_address("uc_reg_read_batch"), _uclib_address("uc_reg_write_batch"),
            _uclib_address("uc_context_restore"), _uclib_address("uc_context_save"),
            _uclib_address("uc_reg_write"), _uclib_address("uc_emu_stop"),
            native_lib.address(self._kctx.context), cr3,
            syscall_entry, SYSCALL_FMASK, UC_X86_REG_CR3, 0,
            (ctypes.c_int * _SYSCALL_NREGS)(*_REGS[:_SYSCALL_NREGS]))
        vals = ctypes.addressof(sc) + _SyscallCpu.vals.offset
        sc.ptrs[:] = [vals + 8 * i for i in range(_SYSCALL_NREGS)]
        sc.user_state = mem.address + kernel_virt_to_phys(gs_base) + CPU_USER_STATE
        sc.us_ids[:] = _USER_STATE_REGS
        us_vals = ctypes.addressof(sc) + _SyscallCpu.us_vals.offset
        sc.us_ptrs[:] = [us_vals + 16 * i for i in range(len(_USER_STATE_REGS))]
        # what the hooks leave for the run loop (entering_idle: see the property)
        self.events = CpuEvents(deferred_port=PORT_TRACE, notify_fd=-1, wake_fd=-1, yield_port=PORT_YIELD,
                                fence_port=PORT_FENCE)
        self._on_out: OutHandler | None = None  # the machine's `out` handler (add_hooks)
        # A user-mode exception the run stopped at: (vector, error code), delivered between runs.
        self.pending_exception: tuple[int, int | None] | None = None
        self.fault_address: int | None = None  # a pending page fault's CR2
        self._slicer: Slicer | None = None
        self._counting_hook = 0  # the PMU's block hook while installed (set_counting_hook)

    @property
    def entering_idle(self) -> bool:
        """Set by the idle doorbell just before `sti; hlt`: a stop right after
        the hlt is then a halt, not an interrupt that returned there."""
        return bool(self.events.entering_idle)

    @entering_idle.setter
    def entering_idle(self, on: bool) -> None:
        self.events.entering_idle = on

    def native_refs(self) -> tuple[int, int, int, int]:
        """For the native run loop: (uc_engine, struct cpu_events, struct syscall_cpu,
        its error field) addresses."""
        sc = ctypes.addressof(self._sc)
        return native_lib.address(self._h), ctypes.addressof(self.events), sc, sc + _SyscallCpu.error.offset

    # ---- registers ----
    def read_regs(self) -> Regs:
        h, ids, ptrs = self._batch
        _reg_read_batch(h, ids, ptrs, len(_REGS))
        return self._vals

    def _write_regs(self) -> None:
        h, ids, ptrs = self._batch
        _reg_write_batch(h, ids, ptrs, _NWRITE)

    def _enter_kernel_mode(self, cr3: int) -> None:
        """Restore the CPL-0 snapshot; keep the current address space."""
        err = self._kernel_mode_enter(self._h, ctypes.byref(self._sc), cr3)
        if err:
            raise UcError(err)

    # ---- transitions ----
    def inject_interrupt(self, handler: int, top_of_stack: int) -> bool:
        """Deliver an external interrupt at the current instruction boundary
        (between emulation runs): push the hardware frame, enter the handler.
        False if interrupts are disabled."""
        v = self.read_regs()
        if not v[EFLAGS] & EFLAGS_IF:
            return False
        self._enter_handler(v, handler, top_of_stack, None)
        return True

    def inject_nmi(self, handler: int, top_of_stack: int, ist: int) -> None:
        """Deliver the NMI whatever EFLAGS.IF, on its own stack (ist: an IST entry's top)."""
        self._enter_handler(self.read_regs(), handler, top_of_stack, None, ist)

    def raise_exception(self, handler: int, top_of_stack: int, error_code: int | None) -> None:
        """Deliver a CPU exception the last run stopped at (the faulting
        instruction not executed): the frame, plus the error code for the
        vectors that have one.

        From kernel mode too the CPL-0 snapshot is restored first (the registers then go
        back): Unicorn's QEMU clears the exception it is delivering (old_exception) only when
        it delivers it itself, so after a hook took one a second kernel-mode #PF became a #DF
        and a third a triple fault, which QEMU retries forever (a uaccess writing across
        three copy-on-write pages never returned).  The snapshot holds none pending."""
        v = self.read_regs()
        if not v[CS] & 3:
            self._enter_kernel_mode(v[CR3])
        self._enter_handler(v, handler, top_of_stack, error_code)
        if self.fault_address is not None:  # after the kernel-mode snapshot, which has its own
            self.uc.reg_write(UC_X86_REG_CR2, self.fault_address)
            self.fault_address = None

    def _enter_handler(self, v: Regs, handler: int, top_of_stack: int, error_code: int | None,
                       ist: int = 0) -> None:
        rflags = v[EFLAGS]
        cs, rsp, rip = v[CS], v[RSP], v[RIP]
        if cs & 3:
            ss = 0x2B
            self._enter_kernel_mode(v[CR3])
            new_rsp = top_of_stack
        else:
            ss = KERNEL_DS
            new_rsp = rsp & ~0xF
        if ist:
            new_rsp = ist
        words = [rip, cs, rflags, rsp, ss]
        if error_code is not None:
            words.insert(0, error_code)
        frame = new_rsp - 8 * len(words)
        self.mem.write(kernel_virt_to_phys(frame), b"".join(w.to_bytes(8, "little") for w in words))
        v[RSP] = frame
        v[RIP] = handler
        v[EFLAGS] = rflags & ~(EFLAGS_IF | EFLAGS_TF)
        self._write_regs()

    def drop_translations(self, ranges: Iterable[tuple[int, int]]) -> None:
        """Forget translated code of these executable kernel-map ranges (this CPU
        stopped or in a hook).
        ctl_remove_cache finds a page through the CPU's current privilege: stopped
        in user mode it cannot see kernel text and would keep running the old code
        (a disarmed probe's int3: a panic), so then the whole cache goes."""
        if self.in_user_mode():
            self.uc.ctl_flush_tb()
            return
        for addr, end in ranges:
            self.uc.ctl_remove_cache(addr, end)

    def flush_tlb(self) -> None:
        """Forget every cached translation (another CPU changed page tables this one may use)."""
        self.uc.ctl(UC_CTL_TLB_FLUSH, UC_CTL_IO_WRITE)

    def in_user_mode(self) -> bool:
        return bool(self.read_regs()[CS] & 3)

    def pc(self) -> int:
        return int(self.uc.reg_read(UC_X86_REG_RIP))

    def set_start(self, rip: int, rsp: int) -> None:
        self.uc.reg_write(UC_X86_REG_RIP, rip)
        self.uc.reg_write(UC_X86_REG_RSP, rsp)

    def add_hooks(self, on_out: OutHandler, on_intr: IntrHandler, on_invalid: InvalidHandler) -> None:
        """on_invalid: an invalid opcode (Unicorn reports #UD apart from other
        exceptions); it returns False to end the run with UC_ERR_INSN_INVALID."""
        uc, cpu, events = self.uc, self, self.events
        self._on_out = on_out

        def on_interrupt(handle: int | None, intno: int, key: int | None) -> None:
            events.python_ran = 1
            try:
                on_intr(uc, intno, cpu)
            except BaseException as e:
                hook_failed(uc, e)

        def on_port(handle: int | None, port: int, size: int, value: int, key: int | None) -> None:
            # (called by native/ports.c)
            try:
                on_out(uc, port, size, value, cpu)
            except BaseException as e:
                hook_failed(uc, e)

        def on_invalid_insn(uc_: Uc, key: object) -> bool:
            events.python_ran = 1
            return on_invalid(uc, cpu)
        handle = ctypes.c_size_t()  # `syscall`: native, the CPU's state in self._sc
        err = uclib.uc_hook_add(self._h, ctypes.byref(handle), UC_HOOK_INSN, ctypes.c_void_p(self._syscall_hook),
                                ctypes.byref(self._sc), ctypes.c_uint64(1), ctypes.c_uint64(0),
                                ctypes.c_int(UC_X86_INS_SYSCALL))
        if err:
            raise UcError(err)
        self._python_out = _OUT_CFUNC(on_port)  # kept alive: native/ports.c calls it
        events.python_out = native_lib.address(self._python_out)
        err = uclib.uc_hook_add(self._h, ctypes.byref(handle), UC_HOOK_INSN,
                                ctypes.cast(native_lib.load("ports").port_out_hook, ctypes.c_void_p),
                                ctypes.byref(events), ctypes.c_uint64(1), ctypes.c_uint64(0),
                                ctypes.c_int(UC_X86_INS_OUT))
        if err:
            raise UcError(err)
        self.int3_gate.install(uc, _INTR_CFUNC(on_interrupt))  # on_interrupt: what it does not deliver
        self.uc.hook_add(UC_HOOK_INSN_INVALID, on_invalid_insn)
        self._slicer = Slicer(self.uc)  # last: its interrupt hook must follow the int3 table's

    def set_counting_hook(self, on: bool) -> None:
        """Add or remove the PMU's block hook that counts instructions and branches
        (native/pmu_insn.c, its state in self.events), between slices.  The CPU's translated
        code goes either way (the hook's calls are in it)."""
        ev = self.events
        if on == bool(ev.pmu_insn_hooked):
            return
        if on:
            handle = ctypes.c_size_t()
            err = uclib.uc_hook_add(self._h, ctypes.byref(handle), UC_HOOK_BLOCK,
                                    ctypes.cast(native_lib.load("slice").pmu_block_hook, ctypes.c_void_p),
                                    ctypes.byref(ev), ctypes.c_uint64(1), ctypes.c_uint64(0))
            if err:
                raise UcError(err)
            self._counting_hook = handle.value
        else:
            err = uclib.uc_hook_del(self._h, ctypes.c_size_t(self._counting_hook))
            if err:
                raise UcError(err)
        ev.pmu_insn_hooked = on
        ev.pmu_page_va = 1  # (no user page known)
        self.uc.ctl_flush_tb()

    def run_slice(self, budget_bytes: int, until: int = 0, timer: SliceTimer | None = None,
                  budget_ns: int | None = None) -> int | None:
        """Run from the current PC for one slice (see slicer.py): timer.budget_ns (or
        budget_ns) of this thread's CPU time when a timer is given and no hook prevents it
        (returns None), else budget_bytes of guest code (returns the bytes
        executed).  Needs add_hooks() first."""
        done = self._hooked().run(self.pc(), budget_bytes, until, timer, budget_ns)
        if self._sc.error:  # the syscall hook failed and stopped the run
            raise UcError(self._sc.error)
        return done

    def slice_by_time(self) -> bool:
        """Set the CPU up for slices the slice timer ends (what the native run
        loop runs); False if a hook needs them ended by code executed."""
        return self._hooked().use_timer()

    def check_run(self) -> None:
        """After slices run by the native loop: raise what emu_start would have
        (an exception in a Python hook, a failed syscall hook)."""
        exc = self.uc._hook_exception
        if exc is not None:
            self.uc._hook_exception = None
            raise exc
        if self._sc.error:
            raise UcError(self._sc.error)

    def pass_on_deferred(self) -> None:
        """Give the machine the deferred doorbell if it rang (between slices)."""
        if self.events.deferred:
            self.events.deferred = 0
            self.events.passed_at = time.monotonic_ns()  # CLOCK_MONOTONIC, as cpu_events.h
            if self._on_out is not None:
                self._on_out(self.uc, self.events.deferred_port, 1, 0, self)

    def slice_executed_address(self) -> int:
        """Where the bytes of code executed in the current slice are counted (slice_executed)."""
        return self._hooked().executed_address

    def slice_left_address(self) -> int:
        """Where the bytes a slice ended by code may still start are kept."""
        return self._hooked().left_address

    def slice_executed(self) -> int:
        """Bytes of code this CPU has executed in its current slice, when the
        slice is ended by code executed (seeded machines)."""
        return self._hooked().executed

    def _hooked(self) -> Slicer:
        if self._slicer is None:
            raise RuntimeError("the CPU has no hooks yet (add_hooks)")
        return self._slicer
