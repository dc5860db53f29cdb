"""The kprobe engine (kernel/kprobes.c, arch/x86/kernel/kprobes/): kprobes
and kretprobes on the emulated kernel, armed the way Linux arms them.

Kinds of armed probe point (one per address: probes there aggregate):
- FTRACE: at a function's mcount site; FtraceSites routes the site's call
  to ftrace_caller's `ftrace_kprobe_hook` (rdi = the saved pt_regs), where
  a one-address code hook runs the handlers.
- OPTIMIZED: a 5-byte `jmp` to a detour in kprobe_insn_slots: `call
  probe_commit_stub` (its address hooked: the handlers run first), the
  instructions the jmp displaced (relocated), `jmp` back; only where
  Linux's can_optimize() and copy_optimized_instructions() allow it.
- int3: the breakpoint, caught by the machine's int3 handler.  A copied
  instruction runs out of line in a slot: `call probe_commit_stub; <insn>;
  jmp back` (entered past the call when nothing was staged); control flow
  (jmp, jcc, call, ret, loop, indirect jmp/call) is emulated in the
  handler, which then enters a slot `call probe_commit_stub; ret` with the
  computed target pushed (or goes to the target when nothing was staged).

Guest handlers: a kprobe or kretprobe registered with a GuestRecord
(probes/guest_fetch.py: its event's fetch arguments compiled for the guest) is
run by the guest itself (kernel/trace_probe.c, as Linux's kprobe_trace_func /
kretprobe_trace_func) when every probe of its point has one: FTRACE points
through ftrace_caller's kprobe_guest_ftrace(); OPTIMIZED and int3 (copied
instruction) points through a slot `push $point; call kprobe_guest_stub;
<relocated instructions>; jmp back` (int3: the machine's native int3 redirect
moves RIP there, machine/int3_table.py, with no Python per hit).  A guest
kretprobe's entry takes an instance from its pool in the guest's tables and its
return is handled by arch_rethook_trampoline's guest code.  Their hit counts live
in the guest's tables.  Other points (arguments the guest does not interpret:
symstr; an int3 on an emulated instruction; probes
registered with Python handlers only) keep the host handlers below; the
trampoline hands a return the guest has no instance for to the host's hook.

Host handlers never write the ring: ProbeHit.record() stages the record in the
CPU's probe_stage, and the guest's probe_commit_stub commits it.  An
aggregate of N probes has N-1 further commit calls in its slot, each hooked
to stage the hit's next record (for FTRACE points ftrace_caller resumes at
such a slot, through regs->ip).  A hit that finds the stage taken (a probe
hit from the commit path itself) runs no handler and counts as missed, as
Linux counts a reentered kprobe.  A disarmed point's slot is erased (int3
fill) once no CPU runs in it or was interrupted there (Machine.text_release),
as Linux frees insn slots after a grace period.

Kretprobes (rethook on x86 in Linux 6.1; host and guest ones alike): each
takes an instance from its own pool at the entry, keeping the return address
it finds; only the first swaps it for arch_rethook_trampoline, so a call with
several (an aggregate, a tail call) returns through the trampoline once per
instance, newest first, each pass restoring what its instance found and
committing one record.
function_graph swaps after the kprobe hook and restores what it found too.

`armed` is debug/kprobes/enabled: False disarms every point, leaving each
probe's own enable state as it is (disarm_all_kprobes()).
"""
from __future__ import annotations

import errno
import logging
import struct
import threading
from dataclasses import dataclass, field
from typing import Callable

from capstone import x86

from ..machine.hooks import REG_INDEX, HookContext
from ..machine.image import KERNEL_MAP, PAGE_OFFSET
from ..machine.contract import TASK_SIZE, PatchableMachine
from . import insn as X
from .ftrace import FtraceSites
from .guest_fetch import GuestRecord, GuestTables

log = logging.getLogger(__name__)

FTRACE, OPTIMIZED, INT3 = "ftrace", "optimized", "int3"
MCOUNT_INSN_SIZE = 5
JUMP_LABEL_NOP_SIZE = 5
THREAD_SIZE = 16 * 1024
SLOT_GRANULE = 32
# include/trace/probe_stage.h
PROBE_STAGE_MAX = 3072
PROBE_STAGE_SIZE = 16 + PROBE_STAGE_MAX
# kretprobe_blacklist[] of arch/x86/kernel/kprobes/core.c
KRETPROBE_BLACKLIST = ("__switch_to",)
# pt_regs order (struct pt_regs): the frame ftrace_caller saves
PT_REGS = ("r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax", "cx", "dx",
           "si", "di", "orig_ax", "ip", "cs", "flags", "sp", "ss")
_PT_REGS = struct.Struct("<21Q")
KERNEL_CS, KERNEL_DS = 0x10, 0x18
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_STAGE_HEAD = struct.Struct("<IHHII")  # struct probe_stage up to data
_MASK = 0xFFFFFFFFFFFFFFFF
EFLAGS_CF, EFLAGS_PF, EFLAGS_ZF, EFLAGS_SF, EFLAGS_OF = 0x1, 0x4, 0x40, 0x80, 0x800

_CS_REGS = {
    x86.X86_REG_RAX: "ax", x86.X86_REG_RBX: "bx", x86.X86_REG_RCX: "cx", x86.X86_REG_RDX: "dx",
    x86.X86_REG_RSI: "si", x86.X86_REG_RDI: "di", x86.X86_REG_RBP: "bp", x86.X86_REG_RSP: "sp",
    x86.X86_REG_R8: "r8", x86.X86_REG_R9: "r9", x86.X86_REG_R10: "r10", x86.X86_REG_R11: "r11",
    x86.X86_REG_R12: "r12", x86.X86_REG_R13: "r13", x86.X86_REG_R14: "r14", x86.X86_REG_R15: "r15",
}


_PT_INDEX = {name: i for i, name in enumerate(PT_REGS)}
_CPU_INDEX = REG_INDEX
# CPU registers as pt_regs: what a trap frame would hold besides them
_FRAME_CONSTANTS = {"orig_ax": _MASK, "ss": KERNEL_DS}


def default_maxactive(nr_possible_cpus: int) -> int:
    """register_kretprobe(): the instance pool a kretprobe gets without MAXACTIVE."""
    return max(10, 2 * nr_possible_cpus)


class _Regs:
    """A register snapshot read by pt_regs name, with ip as the probe reports it."""

    __slots__ = ("values", "index", "ip")

    def __init__(self, values: tuple[int, ...], index: dict[str, int], ip: int):
        self.values, self.index, self.ip = values, index, ip

    def __getitem__(self, name: str) -> int:
        if name == "ip":
            return self.ip
        i = self.index.get(name)
        return _FRAME_CONSTANTS[name] if i is None else self.values[i]


_IP = REG_INDEX["ip"]


def _cpu_regs(ctx: HookContext) -> _Regs:
    v = ctx.regs()
    return _Regs(v, _CPU_INDEX, v[_IP])


class ProbeHit:
    """One hit of a probe point: the probed context (implements
    trace/probe_args.FetchContext) and record staging."""

    __slots__ = ("ip", "ret_ip", "cpu", "_regs", "_ctx", "_engine", "staged", "missed", "queue",
                 "capacity")

    def __init__(self, engine: "KprobeEngine", ctx: HookContext, regs: _Regs, ip: int,
                 ret_ip: int = 0, capacity: int = 0):
        self.ip = ip
        self.ret_ip = ret_ip
        self.cpu = ctx.cpu
        self._regs = regs
        self._ctx = ctx
        self._engine = engine
        self.staged = False
        self.missed = False
        self.queue: list[tuple[int, int, int, bytes]] = []  # records after the first
        self.capacity = capacity  # how many the armed code has commit calls for

    # ---- FetchContext ----
    def reg(self, name: str) -> int:
        regs = self._regs
        if name == "ip":
            return regs.ip
        i = regs.index.get(name)
        return _FRAME_CONSTANTS[name] if i is None else regs.values[i]

    def stack(self, n: int) -> int:
        """regs_get_kernel_stack_nth(): 0 past the end of the kernel stack."""
        sp = self._regs["sp"]
        addr = sp + 8 * n
        if (addr & ~(THREAD_SIZE - 1)) != (sp & ~(THREAD_SIZE - 1)):
            return 0
        raw = self._ctx.read(addr, 8)
        return 0 if raw is None else _U64.unpack(raw)[0]

    def read_kernel(self, addr: int, size: int) -> bytes | None:
        if addr >= PAGE_OFFSET:  # the linear maps (HookContext.read's fast path, inline)
            ctx = self._ctx
            pa = addr - (KERNEL_MAP if addr >= KERNEL_MAP else PAGE_OFFSET)
            return ctx._buf[pa:pa + size] if pa + size <= ctx._size and size > 0 else ctx.read(addr, size)
        if addr < TASK_SIZE:  # copy_from_kernel_nofault() refuses user addresses
            return None
        return self._ctx.read(addr, size)

    def read_user(self, addr: int, size: int) -> bytes | None:
        if addr + size > TASK_SIZE:
            return None
        return self._ctx.read(addr, size)

    def read_string(self, addr: int, user: bool, limit: int) -> bytes | None:
        if user != (addr < TASK_SIZE):
            return None
        return self._ctx.read_string(addr, limit)

    def comm(self) -> bytes:
        return self._ctx.current_comm()

    def retval(self) -> int:
        regs = self._regs
        return regs.values[regs.index["ax"]]

    def symbolize(self, addr: int) -> tuple[str, int, int] | None:
        found = self._engine.image.kallsyms_lookup(addr)
        return None if found is None else (found[0].name, found[1], found[2])

    # ---- recording ----
    def record(self, event_type: int, slots: int, payload: bytes) -> None:
        """Stage one record for the guest to commit (probe_stage); the
        records after the first wait for the point's extra commit calls."""
        regs = self._regs
        flags = regs.values[regs.index["flags"]]
        if len(payload) > PROBE_STAGE_MAX:
            self.missed = True
        elif self.staged:
            if len(self.queue) < self.capacity:
                self.queue.append((event_type, slots, flags, payload))
            else:
                self.missed = True
        elif self._engine._stage(self._ctx, event_type, slots, flags, payload):
            self.staged = True
        else:
            self.missed = True


class Kprobe:
    """One registered probe (struct kprobe / struct kretprobe)."""

    def __init__(self, engine: "KprobeEngine", addr: int, on_hit, is_return: bool,
                 maxactive: int, on_return, guest: tuple[int, int, int] | None = None):
        self._engine = engine
        # (probe index, first argument, nargs) in the guest's tables: hits run in the guest
        self.guest = guest
        self._slots = 0
        self.addr = addr
        self.on_hit = on_hit
        self.on_return = on_return
        self.is_return = is_return
        self.maxactive = maxactive if maxactive > 0 else default_maxactive(engine.machine.nr_cpus)
        self.free_instances = self.maxactive
        self._host_nhit = 0
        self._host_nmissed = 0
        self.enabled = False
        self.registered = True

    # kprobe_profile: what host handlers counted plus what the guest's did
    @property
    def nhit(self) -> int:
        return self._host_nhit + (self._engine._guest.counts(self.guest[0])[0] if self.guest else 0)

    @nhit.setter
    def nhit(self, value: int) -> None:
        self._host_nhit += value - self.nhit

    @property
    def nmissed(self) -> int:
        return self._host_nmissed + (self._engine._guest.counts(self.guest[0])[1] if self.guest else 0)

    @nmissed.setter
    def nmissed(self, value: int) -> None:
        self._host_nmissed += value - self.nmissed

    @property
    def slots(self) -> int:
        """The trace-array slots its event records in (what a guest handler writes)."""
        return self._slots

    @slots.setter
    def slots(self, value: int) -> None:
        self._engine._set_slots(self, value)

    def enable(self) -> None:
        self._engine._set_enabled(self, True)

    def disable(self) -> None:
        self._engine._set_enabled(self, False)

    def unregister(self) -> None:
        self._engine._unregister(self)


@dataclass(slots=True)
class _Instance:
    """A kretprobe instance: one call of the function in flight."""
    probe: Kprobe
    sp: int  # where the return address was (the entry rsp)
    ret_addr: int
    pid: int


@dataclass
class _Point:
    """A probed address and its probes (an aggregate when more than one)."""
    addr: int
    func: str
    probes: list[Kprobe] = field(default_factory=list)  # newest first, as list_add_rcu
    kind: str | None = None  # armed as FTRACE / OPTIMIZED / INT3; None: not armed
    insn: X.Insn | None = None  # the probed instruction (not FTRACE)
    slot: tuple[int, int] | None = None  # (address, bytes) in kprobe_insn_slots
    copy_entry: int = 0  # INT3/OPTIMIZED: the relocated instructions, past the commit calls
    hook: int | None = None  # OPTIMIZED: the detour's code hook
    drain_hooks: list[int] = field(default_factory=list)  # the extra commit calls' hooks
    extra: int = 0  # records a hit can commit besides the first (armed layout)
    length: int = 0  # bytes of text the armed probe replaced
    guest: int | None = None  # armed with guest handlers: its index in the guest's tables
    # KPROBE_FLAG_DISABLED of the hashed kprobe: of the probe itself while it is alone, of
    # the aggregate (which it becomes for good once a second probe joins) after that
    disabled: bool = True
    aggregate: bool = False
    # Linux's optimizer has this point optimized (or queued to be): set when it is armed with
    # no armed probe inside its jump's range, cleared when one is armed there, as
    # optimize_kprobe()/__arm_kprobe()/__disarm_kprobe() decide (see _on_arm, _on_disarm)
    optimize: bool = False
    opt_end: tuple[int | None] | None = None  # (_opt_end's answer,) once computed


class KprobeEngine:
    def __init__(self, machine: PatchableMachine, ftrace: FtraceSites):
        self.machine = machine
        self.image = machine.image
        self.ftrace = ftrace
        img = self.image
        self._lock = threading.RLock()
        self._points: dict[int, _Point] = {}
        self._optimization = True
        self._all_disarmed = False  # debug/kprobes/enabled written 0
        self._text = img.text_range
        self._mcount = {addr: name for name, addr in img.mcount_sites.items()}
        self._jump_sites = sorted(e.code for e in img.jump_entries)
        stage_va = self._required("probe_stage")
        # probe_stage[cpu] in physical RAM (the kernel image's linear map)
        self._stage_pa = [stage_va - KERNEL_MAP + cpu * PROBE_STAGE_SIZE
                          for cpu in range(machine.nr_cpus)]
        self._commit_stub = self._required("probe_commit_stub")
        self._trampoline = self._required("arch_rethook_trampoline")
        self._kret_hook_addr = self._required("kretprobe_hook")
        self._ftrace_hook_addr = self._required("ftrace_kprobe_hook")
        slots = img.lookup("kprobe_insn_slots")
        if slots is None:
            raise RuntimeError("kernel image has no kprobe_insn_slots")
        self._slots_base, self._slots_size = slots.addr, slots.size
        self._slot_used = [False] * (slots.size // SLOT_GRANULE)
        self._retired: list[tuple[int, int]] = []  # disarmed slots not erased yet
        # the commit path a slot calls into (probe_commit_stub and the ring code) lies here
        self._kprobes_text = ((img.addr("__kprobes_text_start"), img.addr("__kprobes_text_end")),)
        self._blacklist = self._build_blacklist()
        self._kretprobe_blacklist = {s.addr for s in (img.lookup(n) for n in KRETPROBE_BLACKLIST) if s}
        self._instances: dict[int, list[_Instance]] = {}  # task address -> LIFO
        self._pending: dict[int, list[tuple[int, int, int, bytes]]] = {}  # task -> queued records
        self._ftrace_hook: int | None = None
        self._kret_hook: int | None = None
        self._slot_by_exit: dict[int, _Point] = {}  # OPTIMIZED detour address -> point
        self._guest = GuestTables(machine)
        self._guest_stub = self._required("kprobe_guest_stub")
        machine.set_breakpoint_handler(self._on_int3)

    def _required(self, name: str) -> int:
        sym = self.image.lookup(name)
        if sym is None or not sym.addr:
            raise RuntimeError(f"kernel image has no {name}: kprobes unavailable")
        return sym.addr

    # ---- the blacklist ----
    def _build_blacklist(self) -> list[tuple[int, int, str]]:
        """populate_kprobe_blacklist(): NOKPROBE_SYMBOL entries, then the
        kprobes text area, then the entry text (arch_populate_kprobe_blacklist)."""
        img = self.image
        out = []
        start, stop = img.addr("__start_kprobe_blacklist"), img.addr("__stop_kprobe_blacklist")
        for a in range(start, stop, 8):
            entry = self._ksym_entry(img.u64(a))
            if entry:
                out.append(entry)
        for lo, hi in (("__kprobes_text_start", "__kprobes_text_end"),
                       ("__entry_text_start", "__entry_text_end")):
            out += self._area(img.addr(lo), img.addr(hi))
        return out

    def _ksym_entry(self, addr: int) -> tuple[int, int, str] | None:
        """kprobe_add_ksym_blacklist(): from the entry, kallsyms' size of its symbol on."""
        if not self._text[0] <= addr < self._text[1]:
            return None
        found = self.image.kallsyms_lookup(addr)
        if found is None:
            return None
        sym, _, size = found
        return (addr, addr + size, sym.name)

    def _area(self, start: int, end: int) -> list[tuple[int, int, str]]:
        out, pos = [], start
        while pos < end:
            entry = self._ksym_entry(pos)
            if entry is None:
                pos += 1
                continue
            out.append(entry)
            pos = max(entry[1], pos + 1)
        return out

    def blacklisted(self, addr: int) -> bool:
        return any(lo <= addr < hi for lo, hi, _ in self._blacklist)

    def blacklist_text(self) -> str:
        return "".join(f"0x{lo:016x}-0x{hi:016x}\t{name}\n" for lo, hi, name in self._blacklist)

    # ---- registration ----
    def register(self, addr: int, *, on_hit: Callable[[ProbeHit], None],
                 is_return: bool = False, maxactive: int = 0,
                 on_return: Callable[[ProbeHit], None] | None = None,
                 guest: GuestRecord | None = None) -> Kprobe:
        """register_kprobe()/register_kretprobe(): validates, aggregates, and
        registers DISABLED (nothing is patched until enable()).  guest: the
        record program the guest runs instead of on_hit (a kretprobe's: at the
        return, instead of on_return); the host handlers stay for a point the
        guest cannot handle."""
        with self._lock:
            point = self._points.get(addr)
            func = self._validate(addr, is_return, point is not None)
            kp = Kprobe(self, addr, on_hit, is_return, maxactive, on_return)
            if guest is not None:
                found = self._guest.add_probe(guest, kp.maxactive if is_return else 0)
                if found is not None:
                    kp.guest = (found[0], found[1], len(guest.args))
            if point is None:
                point = self._points[addr] = _Point(addr, func)
                if addr not in self._mcount:
                    point.insn = self._insn_at(addr)
            else:
                point.aggregate = True
            # replaced, never mutated: handlers on the CPUs' thread iterate it
            point.probes = [kp] + point.probes
            self._refresh()
            return kp

    def _validate(self, addr: int, is_return: bool, aggregate: bool) -> str:
        img = self.image
        # _kprobe_addr(): an address kallsyms does not know is ENOENT (for kretprobes too,
        # through kprobe_on_func_entry()); trace_kprobe keeps such a probe of an address
        # unarmed, "waiting for its module"
        if not addr:
            raise OSError(errno.EINVAL, "no address")  # neither an address nor a symbol
        known = img.kallsyms_lookup(addr)
        if known is None:
            raise OSError(errno.ENOENT, "no symbol at this address")
        found = img.symbolize(addr)
        if is_return:
            # register_kretprobe(): only at a function entry; not the blacklisted ones
            if known[1] != 0 or addr in self._kretprobe_blacklist:
                raise OSError(errno.EINVAL, "kretprobe must be at a function entry")
        # check_ftrace_location(): inside an mcount site but not at its start
        for site in (addr - k for k in range(1, MCOUNT_INSN_SIZE)):
            if site in self._mcount:
                raise OSError(errno.EILSEQ, "not an instruction boundary")
        # check_kprobe_address_safe()
        if not self._text[0] <= addr < self._text[1] or self.blacklisted(addr):
            raise OSError(errno.EINVAL, "address may not be probed")
        if any(code <= addr < code + JUMP_LABEL_NOP_SIZE for code in self._jump_sites):
            raise OSError(errno.EINVAL, "address is a jump label")
        if aggregate:
            return found[0].name if found else ""
        if addr in self._mcount:
            return self._mcount[addr]
        # prepare_kprobe() -> arch_prepare_kprobe(): can_probe(), then the copy
        if found is None:
            raise OSError(errno.EILSEQ, "not in a function")
        sym, off = found
        insns = self._decode(sym)
        if not X.on_boundary(insns, sym.addr, addr):
            raise OSError(errno.EILSEQ, "not an instruction boundary")
        i = X.find(insns, addr)
        if i is None or X.int3_strategy(i) is None or not self._emulable(i):
            raise OSError(errno.EOPNOTSUPP, "instruction cannot be probed")
        return sym.name

    @staticmethod
    def _emulable(i: X.Insn) -> bool:
        """An emulated indirect jmp/call must address its target plainly."""
        if i.opcode != (0xFF,):
            return True
        op = i.cs.operands[0]
        if op.type == x86.X86_OP_REG:
            return op.reg in _CS_REGS
        return (op.mem.segment == 0 and op.mem.base in (0, x86.X86_REG_RIP, *_CS_REGS)
                and (op.mem.index == 0 or op.mem.index in _CS_REGS))

    def _decode(self, sym) -> tuple[X.Insn, ...]:
        return X.decode(self.image.read(sym.addr, sym.size), sym.addr)

    def _insn_at(self, addr: int) -> X.Insn:
        sym, _ = self.image.symbolize(addr)
        return X.find(self._decode(sym), addr)

    # ---- enable / disable / unregister ----
    def _set_enabled(self, kp: Kprobe, on: bool) -> None:
        """enable_kprobe()/disable_kprobe().  While all kprobes are disarmed, enabling
        leaves a disabled point disabled: a lone probe stays [DISABLED], and neither is
        armed by a later arm_all_kprobes(), as in Linux 6.1."""
        with self._lock:
            if not kp.registered:
                raise OSError(errno.EINVAL, "kprobe is not registered")
            point = self._points[kp.addr]
            was = kp.enabled, point.disabled
            optimize = {q.addr: q.optimize for q in self._points.values()}
            if on:
                if point.aggregate:
                    kp.enabled = True
                if point.disabled and not self._all_disarmed:
                    point.disabled = False
                    kp.enabled = True
                    self._on_arm(point)
            else:
                kp.enabled = False
                if not any(p.enabled for p in point.probes):
                    point.disabled = True
                    if not self._all_disarmed:
                        self._on_disarm(point)
            self._write_guest_slots(kp)
            try:
                self._refresh()
            except OSError:  # no insn slot left: the probe stays as it was
                kp.enabled, point.disabled = was
                for q in self._points.values():
                    q.optimize = optimize[q.addr]
                self._write_guest_slots(kp)
                self._refresh()
                raise

    def _set_slots(self, kp: Kprobe, slots: int) -> None:
        with self._lock:
            kp._slots = slots
            self._write_guest_slots(kp)

    def _write_guest_slots(self, kp: Kprobe) -> None:
        if kp.guest is not None:
            self._guest.set_slots(kp.guest[0], kp._slots if kp.enabled and kp.registered else 0)

    def _unregister(self, kp: Kprobe) -> None:
        with self._lock:
            if not kp.registered:
                return
            kp.registered = False
            kp.enabled = False
            point = self._points[kp.addr]
            point.probes = [p for p in point.probes if p is not kp]
            if kp.guest is not None:  # its counts go with it, as the struct kprobe's
                kp._host_nhit, kp._host_nmissed = kp.nhit, kp.nmissed
                self._guest.remove_probe(*kp.guest)
                kp.guest = None
            if not any(p.enabled for p in point.probes) and not point.disabled:
                point.disabled = True
                if not self._all_disarmed:
                    self._on_disarm(point)
            if not point.probes:
                self._disarm(point)
                del self._points[kp.addr]
            self._refresh()

    @property
    def optimization(self) -> bool:
        return self._optimization

    @optimization.setter
    def optimization(self, on: bool) -> None:
        with self._lock:
            self._optimization = bool(on)
            # optimize_all_kprobes() tries each enabled probe; unoptimize_all_kprobes() all
            for point in self._points.values():
                point.optimize = on and not point.disabled and self._window_clear(point)
            self._refresh()

    @property
    def armed(self) -> bool:
        """debug/kprobes/enabled: False while every probe is disarmed (disarm_all_kprobes:
        no probe's own enable state changes; arm_all_kprobes re-arms those enabled)."""
        return not self._all_disarmed

    @armed.setter
    def armed(self, on: bool) -> None:
        with self._lock:
            if self._all_disarmed != bool(on):
                return
            self._all_disarmed = not on
            if on:  # arm_all_kprobes(): each enabled probe, in kprobe_table order
                for point in self._hash_order():
                    if not point.disabled:
                        self._on_arm(point)
            else:
                for point in self._points.values():
                    point.optimize = False
            # best effort, as arm_all_kprobes(): the last error is reported
            self._refresh(best_effort=True)

    def _refresh(self, best_effort: bool = False) -> None:
        """Bring every point to the kind it should be armed as now."""
        if self._retired:
            self._release_slots()
        failed = None
        for point in list(self._points.values()):
            want = self._wanted_kind(point)
            if want != point.kind or (want and point.extra != len(point.probes) - 1):
                self._disarm(point)
                if want is not None:
                    try:
                        self._arm(point, want)
                    except OSError as e:
                        if not best_effort:
                            raise
                        failed = e
        need_ftrace = any(p.kind == FTRACE and p.guest is None for p in self._points.values())
        if need_ftrace and self._ftrace_hook is None:
            self._ftrace_hook = self.machine.add_code_hook(self._ftrace_hook_addr, self._on_ftrace)
        elif not need_ftrace and self._ftrace_hook is not None:
            self.machine.remove_code_hook(self._ftrace_hook)
            self._ftrace_hook = None
        need_kret = any(kp.is_return for p in self._points.values() if p.guest is None for kp in p.probes)
        if need_kret and self._kret_hook is None:
            self._kret_hook = self.machine.add_code_hook(self._kret_hook_addr, self._on_kretprobe)
        elif not need_kret and self._kret_hook is not None and not any(self._instances.values()):
            # (it stays while an instance is in flight: that return must still be caught)
            self.machine.remove_code_hook(self._kret_hook)
            self._kret_hook = None
        if failed is not None:
            raise failed

    def _wanted_kind(self, point: _Point) -> str | None:
        if point.disabled or self._all_disarmed:
            return None
        if point.addr in self._mcount:
            return FTRACE
        if self._optimization and point.optimize:
            return OPTIMIZED
        return INT3

    def _opt_end(self, point: _Point) -> int | None:
        """arch_prepare_optimized_kprobe(): where the jump's relocated instructions end, or
        None when the point cannot be optimized (can_optimize(), the copy, ftrace or
        jump-label text reserved: -EBUSY).  Fixed by the code, so kept."""
        if point.addr in self._mcount:
            return None
        if point.opt_end is None:
            point.opt_end = (self._compute_opt_end(point),)
        return point.opt_end[0]

    def _compute_opt_end(self, point: _Point) -> int | None:
        sym, off = self.image.symbolize(point.addr)
        insns = self._decode(sym)
        if not X.can_optimize(insns, sym.addr, sym.size, point.addr):
            return None
        covered = X.optimized_insns(insns, point.addr)
        if covered is None:
            return None
        end = covered[-1].end
        for site in self._mcount:
            if site < end and point.addr < site + MCOUNT_INSN_SIZE:
                return None
        for code in self._jump_sites:
            if code < end and point.addr < code + JUMP_LABEL_NOP_SIZE:
                return None
        return end

    def _window_clear(self, point: _Point) -> bool:
        """optimize_kprobe()'s arch_check_optimized_kprobe(): optimizable, and no probe that
        is not disarmed (its own KPROBE_FLAG_DISABLED clear) inside the jump's range."""
        end = self._opt_end(point)
        return end is not None and not any(
            point.addr < q.addr < end and not q.disabled for q in self._points.values())

    def _covering(self, addr: int) -> list[_Point]:
        """get_optimized_kprobe(): the optimizable points whose jump would cover addr."""
        return [q for q in self._points.values()
                if q.addr < addr and (self._opt_end(q) or 0) > addr]

    def _on_arm(self, point: _Point) -> None:
        """__arm_kprobe(): an optimized probe whose jump covers this one falls back to int3
        (for good: nothing re-optimizes it but its own re-arming), then this one is tried."""
        for q in self._covering(point.addr):
            q.optimize = False
        point.optimize = self._optimization and self._window_clear(point)

    def _on_disarm(self, point: _Point) -> None:
        """__disarm_kprobe(): a probe that was not optimized lets a probe it blocked be
        optimized now; an optimized one is queued for unoptimization and does not (the
        kernel's "TODO: reoptimize others after unoptimized this probe")."""
        was_optimized = point.optimize and self._optimization
        point.optimize = False
        if was_optimized:
            return
        for q in self._covering(point.addr):
            if not q.disabled and self._optimization:
                q.optimize = self._window_clear(q)

    def _hash_order(self) -> list[_Point]:
        """kprobe_table[] order: by hash bucket (hash_ptr(addr, 6)), newest first in one."""
        return sorted(reversed(self._points.values()), key=lambda p: _hash_ptr(p.addr, 6))

    # ---- arming ----
    def _poke(self, patches: list[tuple[int, bytes]]) -> None:
        self.machine.text_poke_batch(patches)

    def _alloc_slot(self, size: int) -> int:
        n = -(-size // SLOT_GRANULE)
        used = self._slot_used
        for i in range(len(used) - n + 1):
            if not any(used[i:i + n]):
                used[i:i + n] = [True] * n
                return self._slots_base + i * SLOT_GRANULE
        raise OSError(errno.ENOMEM, "kprobe insn slots exhausted")

    def _release_slots(self) -> None:
        """Erase and free retired slots no CPU is executing (or will return
        into: an interrupted slot); the others wait for the next try."""
        still = []
        for addr, size in self._retired:
            if self.machine.text_release(addr, b"\xcc" * size, self._kprobes_text):
                self._free_slot(addr, size)
            else:
                still.append((addr, size))
        self._retired = still

    def _free_slot(self, addr: int, size: int) -> None:
        i = (addr - self._slots_base) // SLOT_GRANULE
        n = -(-size // SLOT_GRANULE)
        self._slot_used[i:i + n] = [False] * n

    def _arm(self, point: _Point, kind: str) -> None:
        """Patch the point in.  Every kind's code commits 1 + extra records per
        hit: an aggregate's further records are staged by the hooks on the
        extra `call probe_commit_stub`s (one stage per CPU)."""
        addr = point.addr
        extra = len(point.probes) - 1
        stub = self._commit_stub
        if self._arm_guest(point, kind):
            point.kind = kind
            point.extra = extra
            return
        if kind == FTRACE:
            if extra:  # ftrace_caller resumes at regs->ip: the drain calls, then the function
                slot = self._alloc_slot(5 * extra + 5)
                code = b"".join(X.call32(slot + 5 * k, stub) for k in range(extra))
                code += X.jmp32(slot + len(code), addr + MCOUNT_INSN_SIZE)
                self._install_slot(point, slot, code, range(extra))
            self.ftrace.set_kprobe(point.func, True)
        elif kind == INT3:
            i = point.insn
            copy = X.int3_strategy(i) == X.COPY
            slot = self._alloc_slot(5 * (1 + extra) + (i.size + 5 if copy else 1))
            code = b"".join(X.call32(slot + 5 * k, stub) for k in range(1 + extra))
            if copy:
                point.copy_entry = slot + len(code)
                code += X.relocate(i, slot + len(code))
                code += X.jmp32(slot + len(code), i.end)
            else:  # entered with the emulated target pushed: the stub calls, then `ret` to it
                code += b"\xc3"
            self._install_slot(point, slot, code, range(1, 1 + extra))
            self._poke([(addr, b"\xcc")])
            point.length = 1
        else:  # OPTIMIZED
            sym, _ = self.image.symbolize(addr)
            covered = X.optimized_insns(self._decode(sym), addr)
            size = sum(c.size for c in covered)
            slot = self._alloc_slot(5 * (1 + extra) + size + 5)
            code = b"".join(X.call32(slot + 5 * k, stub) for k in range(1 + extra))
            point.copy_entry = slot + len(code)
            for c in covered:
                code += X.relocate(c, slot + len(code))
            code += X.jmp32(slot + len(code), addr + size)
            self._install_slot(point, slot, code, range(1, 1 + extra))
            point.hook = self.machine.add_code_hook(slot, self._on_detour)
            self._slot_by_exit[slot] = point
            self._poke([(addr, X.jmp32(addr, slot))])
            point.length = size
        point.kind = kind
        point.extra = extra

    def _arm_guest(self, point: _Point, kind: str) -> bool:
        """Arm a point whose probes the guest handles all of (kernel/trace_probe.c):
        FTRACE through ftrace_caller's kprobe_guest_ftrace(); OPTIMIZED and int3 (a
        copied instruction) through a slot `push $point; call kprobe_guest_stub`, then
        the relocated instructions.  False: host handlers it is."""
        if any(kp.guest is None for kp in point.probes):
            return False
        if kind == INT3 and X.int3_strategy(point.insn) != X.COPY:
            return False  # an emulated instruction: the host handler's business
        index = self._guest.add_point(point.addr, [kp.guest[0] for kp in point.probes])
        if index is None:
            return False
        point.guest = index
        if kind == FTRACE:
            self.ftrace.set_kprobe(point.func, True)
            return True
        covered = ([point.insn] if kind == INT3 else
                   X.optimized_insns(self._decode(self.image.symbolize(point.addr)[0]), point.addr))
        size = sum(c.size for c in covered)
        try:
            slot = self._alloc_slot(10 + size + 5)
        except OSError:
            self._guest.remove_point(index)
            point.guest = None
            raise
        code = b"\x68" + struct.pack("<I", index) + X.call32(slot + 5, self._guest_stub)
        point.copy_entry = slot + len(code)
        for c in covered:
            code += X.relocate(c, slot + len(code))
        code += X.jmp32(slot + len(code), point.addr + size)
        self._install_slot(point, slot, code, range(0))
        if kind == INT3:
            # the int3 only needs RIP moved to the slot: natively, unless the table is full
            self.machine.set_int3_redirect(point.addr, slot)
            self._poke([(point.addr, b"\xcc")])
            point.length = 1
        else:
            self._poke([(point.addr, X.jmp32(point.addr, slot))])
            point.length = size
        return True

    def _install_slot(self, point: _Point, slot: int, code: bytes, drains: range) -> None:
        point.slot = (slot, len(code))
        self._poke([(slot, code)])
        point.drain_hooks = [self.machine.add_code_hook(slot + 5 * k, self._on_drain) for k in drains]

    def _disarm(self, point: _Point) -> None:
        kind = point.kind
        if kind is None:
            return
        if kind == FTRACE:
            self.ftrace.set_kprobe(point.func, False)
        else:  # the probed text first: nothing enters the slot after
            self._poke([(point.addr, self.image.read(point.addr, point.length))])
            if kind == INT3 and point.guest is not None:
                self.machine.set_int3_redirect(point.addr, None)
        if point.hook is not None:
            self.machine.remove_code_hook(point.hook)
            self._slot_by_exit.pop(point.slot[0], None)
            point.hook = None
        for h in point.drain_hooks:
            self.machine.remove_code_hook(h)
        point.drain_hooks = []
        if point.guest is not None:
            self._guest.remove_point(point.guest)
            point.guest = None
        if point.slot:
            self._retired.append(point.slot)
            point.slot = None
            self._release_slots()
        point.kind = None
        point.length = 0
        point.copy_entry = 0

    # ---- staging ----
    def _stage(self, ctx: HookContext, event_type: int, slots: int, flags: int,
               payload: bytes) -> bool:
        ram, pa = ctx.ram, self._stage_pa[ctx.cpu]
        if _U32.unpack_from(ram, pa)[0]:
            return False  # a record staged and not committed yet: reentered
        ram[pa + 16:pa + 16 + len(payload)] = payload
        # len last: it is what the guest's stub tests
        _STAGE_HEAD.pack_into(ram, pa, len(payload), event_type, 0, slots, flags & 0xFFFFFFFF)
        return True

    def _stage_busy(self, ctx: HookContext) -> bool:
        return bool(_U32.unpack_from(ctx.ram, self._stage_pa[ctx.cpu])[0])

    # ---- hits ----
    def _run(self, point: _Point, ctx: HookContext, regs: _Regs) -> ProbeHit | None:
        """The pre-handlers of an aggregate (None: reentered, nothing run).
        Kretprobes take an instance and swap the return address (entry sp)."""
        if _U32.unpack_from(ctx.ram, self._stage_pa[ctx.cpu])[0]:
            # the stage is taken: reentered from the commit path (kprobes_inc_nmissed_count)
            for kp in point.probes:
                if kp.enabled:
                    kp.nmissed += 1
            return None
        hit = ProbeHit(self, ctx, regs, point.addr, capacity=point.extra)
        for kp in point.probes:
            if not kp.enabled:
                continue
            if kp.is_return:  # its hits count at the return (kretprobe_dispatcher)
                if not self._kretprobe_entry(kp, ctx, regs):
                    continue
            else:
                kp.nhit += 1
            if kp.on_hit is not None:
                hit.missed = False
                kp.on_hit(hit)
                if hit.missed:
                    kp.nmissed += 1
        if hit.queue:  # per task: it may migrate between two of the commit calls
            self._pending[ctx.current_task_addr()] = hit.queue
        return hit

    def _on_drain(self, ctx: HookContext) -> None:
        """An extra commit call of a point: stage the hit's next record."""
        task = ctx.current_task_addr()
        queue = self._pending.get(task)
        if not queue:
            return
        event_type, slots, flags, payload = queue.pop(0)
        if not queue:
            del self._pending[task]
        self._stage(ctx, event_type, slots, flags, payload)

    def _kretprobe_entry(self, kp: Kprobe, ctx: HookContext, regs: _Regs) -> bool:
        """Take an instance from kp's pool and hook the return: the instance
        keeps the return address it finds (rethook_hook()).  One that is already
        the trampoline belongs to an instance of this very call (another
        kretprobe of the aggregate, or a caller that tail-called here): it stays,
        and the call returns through the trampoline once per instance, each
        restoring what it found."""
        if kp.free_instances <= 0:
            self._reclaim_dead_tasks()
            if kp.free_instances <= 0:
                kp.nmissed += 1
                return False
        sp = regs["sp"]
        raw = ctx.read(sp, 8)
        if raw is None:
            kp.nmissed += 1
            return False
        found = _U64.unpack(raw)[0]
        hooked = found == self._trampoline
        task, pid = ctx.current_task_addr(), ctx.current_pid()
        stack = self._instances.setdefault(task, [])
        # frames that never returned (their stack is reused): deeper ones, and one
        # at this sp unless the trampoline there says it is this call's; and those of
        # a task that died here before (its task_struct reused: another pid)
        while stack and (stack[-1].pid != pid or stack[-1].sp < sp or (stack[-1].sp == sp and not hooked)):
            stack.pop().probe.free_instances += 1
        if hooked and (not stack or stack[-1].sp != sp):
            log.error("kretprobe trampoline at sp %#x without an instance", sp)
            kp.nmissed += 1
            return False
        kp.free_instances -= 1
        stack.append(_Instance(kp, sp, found, pid))
        if not hooked:
            ctx.write(sp, _U64.pack(self._trampoline))
        return True

    def _reclaim_dead_tasks(self) -> None:
        """Instances of tasks that exited inside a probed function go back to
        their pools (Linux recycles them when the task is freed)."""
        live = {(t.pid) for t in self.machine.tasks()}
        for task, stack in list(self._instances.items()):
            if stack and stack[-1].pid not in live:
                for inst in stack:
                    inst.probe.free_instances += 1
                del self._instances[task]

    def _on_ftrace(self, ctx: HookContext) -> None:
        frame_va = ctx.reg("di")
        raw = ctx.read(frame_va, _PT_REGS.size)
        values = _PT_REGS.unpack(raw)
        point = self._points.get(values[_PT_INDEX["ip"]])
        if point is None or point.kind != FTRACE or point.guest is not None:
            return
        # kprobe_ftrace_handler(): ip as if after an int3
        hit = self._run(point, ctx, _Regs(values, _PT_INDEX, point.addr + 1))
        if hit is not None and hit.queue and point.slot:  # resume via the extra commit calls
            ctx.write(frame_va + 8 * _PT_INDEX["ip"], _U64.pack(point.slot[0]))

    def _on_detour(self, ctx: HookContext) -> None:
        regs = _cpu_regs(ctx)
        point = self._slot_by_exit.get(regs.ip)
        if point is None:
            return
        regs.ip = point.addr + 1  # optimized_callback(): as if after an int3
        if self._run(point, ctx, regs) is None:
            # reentered from the commit path: the record being committed is not ours
            ctx.set_rip(point.copy_entry)

    def _on_int3(self, ctx: HookContext) -> bool:
        v = ctx.regs()
        point = self._points.get(v[_IP] - 1)
        if point is None or point.kind != INT3:
            return False  # not ours: the machine's panic path
        if point.guest is not None:  # not redirected natively (table full): the slot's guest handler
            ctx.set_rip(point.slot[0])
            return True
        regs = _Regs(v, _CPU_INDEX, v[_IP])
        hit = self._run(point, ctx, regs)
        staged = hit is not None and hit.staged
        if point.copy_entry:
            ctx.set_rip(point.slot[0] if staged else point.copy_entry)
            return True
        target = self._emulate(point.insn, ctx, regs)
        if staged:  # the commit calls, then the slot's `ret` goes on to the target
            sp = ctx.regs()[REG_INDEX["sp"]] - 8
            ctx.write(sp, _U64.pack(target))
            ctx.set_reg("sp", sp)
            target = point.slot[0]
        ctx.set_rip(target)
        return True

    def _emulate(self, i: X.Insn, ctx: HookContext, regs: _Regs) -> int:
        """Do a control-flow instruction's effect on rsp/rcx; the next RIP."""
        op = i.opcode
        b0 = op[0]
        sp = regs["sp"]
        if b0 in (0xC3, 0xC2):
            ret = _U64.unpack(ctx.read(sp, 8))[0]
            ctx.set_reg("sp", sp + 8 + (i.cs.operands[0].imm if b0 == 0xC2 else 0))
            return ret
        if b0 == 0xE8 or (b0 == 0xFF and i.modrm_reg == 2):
            target = i.branch_target() if b0 == 0xE8 else self._indirect_target(i, ctx, regs)
            ctx.write(sp - 8, _U64.pack(i.end))
            ctx.set_reg("sp", sp - 8)
            return target
        if b0 == 0xFF:  # jmp *x
            return self._indirect_target(i, ctx, regs)
        if b0 in (0xE9, 0xEB):
            return i.branch_target()
        if 0xE0 <= b0 <= 0xE3:
            rcx = regs["cx"]
            if b0 == 0xE3:
                taken = rcx == 0
            else:
                rcx = (rcx - 1) & _MASK
                ctx.set_reg("cx", rcx)
                zf = bool(regs["flags"] & EFLAGS_ZF)
                taken = rcx != 0 and (b0 == 0xE2 or zf == (b0 == 0xE1))
            return i.branch_target() if taken else i.end
        cc = (op[1] if len(op) == 2 else b0) & 0xF
        return i.branch_target() if _condition(cc, regs["flags"]) else i.end

    @staticmethod
    def _indirect_target(i: X.Insn, ctx: HookContext, regs: _Regs) -> int:
        o = i.cs.operands[0]
        if o.type == x86.X86_OP_REG:
            return regs[_CS_REGS[o.reg]]
        m = o.mem
        addr = m.disp
        if m.base == x86.X86_REG_RIP:
            addr += i.end
        elif m.base:
            addr += regs[_CS_REGS[m.base]]
        if m.index:
            addr += regs[_CS_REGS[m.index]] * m.scale
        raw = ctx.read(addr & _MASK, 8)
        return _U64.unpack(raw)[0] if raw else 0

    def _on_kretprobe(self, ctx: HookContext) -> None:
        v = ctx.regs()
        sp = v[REG_INDEX["sp"]]
        stack = self._instances.get(ctx.current_task_addr())
        pid = ctx.current_pid()
        # frames left without returning, or a dead task's (its task_struct reused)
        while stack and (stack[-1].sp < sp or stack[-1].pid != pid):
            stack.pop().probe.free_instances += 1
        if not stack or stack[-1].sp != sp:
            log.error("kretprobe trampoline without an instance at sp %#x", sp)
            return
        inst = stack.pop()
        kp = inst.probe
        kp.free_instances += 1
        # what it found: the trampoline again while another instance of this call
        # waits (each pass commits one record), the caller for the first one taken
        ctx.write(sp, _U64.pack(inst.ret_addr))
        caller = inst.ret_addr
        for other in reversed(stack):
            if other.sp != sp:
                break
            caller = other.ret_addr
        if not kp.enabled or kp.on_return is None or self._stage_busy(ctx):
            return
        v = list(v)
        v[REG_INDEX["sp"]] = sp + 8  # as after the function's ret
        # rethook_trampoline_handler(): regs->ip is the real return address; ret_ip is
        # the instance's own (the trampoline's, "[unknown/kretprobe'd]", for all but one)
        regs = _Regs(tuple(v), _CPU_INDEX, caller)
        hit = ProbeHit(self, ctx, regs, kp.addr, inst.ret_addr)
        kp.nhit += 1
        kp.on_return(hit)
        if hit.missed:
            kp.nmissed += 1

    # ---- debugfs views ----
    def list_text(self) -> str:
        """debug/kprobes/list: by hash bucket (hash_ptr(addr, 6)), newest first in one."""
        with self._lock:
            # bucket by bucket; in one, the newest point first (hlist_add_head_rcu)
            points = self._hash_order()
            out = []
            for point in points:
                found = self.image.kallsyms_lookup(point.addr)
                where = (f"{found[0].name}+0x{found[1]:x}  {' '} " if found
                         else f"0x{point.addr:x} ")
                flags = (("[OPTIMIZED]" if point.kind == OPTIMIZED else "")
                         + ("[FTRACE]" if point.addr in self._mcount else ""))
                for kp in point.probes:
                    out.append(f"{point.addr:016x}  {'r' if kp.is_return else 'k'}  {where}"
                               f"{'' if kp.enabled else '[DISABLED]'}{flags}\n")
            return "".join(out)


def _hash_ptr(addr: int, bits: int) -> int:
    return ((addr * 0x61C8864680B583EB) & _MASK) >> (64 - bits)


def _condition(cc: int, flags: int) -> bool:
    cf, zf = bool(flags & EFLAGS_CF), bool(flags & EFLAGS_ZF)
    sf, of, pf = bool(flags & EFLAGS_SF), bool(flags & EFLAGS_OF), bool(flags & EFLAGS_PF)
    base = (of, cf, zf, cf or zf, sf, pf, sf != of, zf or sf != of)[cc >> 1]
    return base != bool(cc & 1)
