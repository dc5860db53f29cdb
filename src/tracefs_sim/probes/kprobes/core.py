"""The kprobe core (kernel/kprobes.c): registering probes, aggregating several at one
address, enabling and disabling them, and bringing every probed address to the way it should
be armed now; the arming itself is each mechanism's (int3, opt, on_ftrace, guest).

Kinds of armed point (one per address: probes there aggregate): FTRACE at a function's mcount
site (on_ftrace.py), OPTIMIZED (opt.py), INT3 (the kernel's #BP handler, armed by guest.py,
int3.py).  A point whose every probe has a guest record program is armed for the guest's
handlers (guest.py); the others run host handlers, which stage their records for the guest to
commit (hit.py), kretprobes taking instances (rethook.py).

`armed` is debug/kprobes/enabled: False disarms every point, leaving each probe's own enable
state as it is (disarm_all_kprobes()).
"""
from __future__ import annotations

import errno
import threading

from ...machine.contract import PatchableMachine
from ...machine.hooks import HookContext
from .. import insn as X
from ..ftrace import FtraceSites
from .blacklist import Blacklist
from .guest import GuestKprobes, GuestRecord, GuestTables
from .hit import ProbeHit, ProbeStage
from .insn_slots import InsnSlots
from .int3 import HostInt3Handlers, arch_prepare
from .on_ftrace import FtraceKprobes
from .opt import JUMP_LABEL_NOP_SIZE, OptKprobes, Optimizer
from .point import FTRACE, INT3, OPTIMIZED, GuestProbe, Handler, Kprobe, Point
from .regs import Regs
from .rethook import Rethook

_MASK = 0xFFFFFFFFFFFFFFFF


def default_maxactive(nr_possible_cpus: int) -> int:
    """register_kretprobe(): the instance pool a kretprobe gets without MAXACTIVE."""
    return max(10, 2 * nr_possible_cpus)


class KprobeEngine:
    def __init__(self, machine: PatchableMachine, sites: FtraceSites):
        """sites: the function entries' ftrace sites, where a kprobe at an entry sits."""
        self.machine = machine
        self.image = image = machine.image
        # kprobe_mutex: held by every change, and by whoever reads the points as one state
        self.lock = threading.RLock()
        self._points: dict[int, Point] = {}
        self._all_disarmed = False  # debug/kprobes/enabled written 0
        self._text = image.text_range
        self._mcount = {addr: name for name, addr in image.mcount_sites.items()}
        self._site_size = image.abi_value("MCOUNT_INSN_SIZE")
        self._jump_sites = sorted(e.code for e in image.jump_entries)
        self.blacklist = Blacklist(image)
        self.optimizer = Optimizer(image, self._mcount, self._site_size, self._jump_sites)
        self.stage = ProbeStage(image, machine.nr_cpus)  # where host handlers' records go
        self._insn_slots = InsnSlots(machine)
        self._tables = GuestTables(machine)
        self.rethook = Rethook(machine, self.stage)
        self.on_ftrace = FtraceKprobes(machine, sites, self._insn_slots, self.stage, self.point, self._run)
        self._int3 = HostInt3Handlers(machine, self.stage, self.point, self._run)
        self._opt = OptKprobes(machine, self._insn_slots, self.stage, self._run)
        self._guest = GuestKprobes(machine, self._tables, sites, self._insn_slots)

    def point(self, addr: int) -> Point | None:
        """The probed point at addr (None: no probe there)."""
        return self._points.get(addr)

    # ---- registration ----
    def register(self, addr: int, *, on_hit: Handler | None, is_return: bool = False, maxactive: int = 0,
                 on_return: Handler | None = None, guest: GuestRecord | None = None) -> Kprobe:
        """register_kprobe()/register_kretprobe(): validates, aggregates, and registers
        DISABLED (nothing is patched until enable()).  maxactive: a kretprobe's instances (0:
        default_maxactive).  guest: the record program the guest runs instead of on_hit (a
        kretprobe's: at the return, instead of on_return); the host handlers stay for a point
        the guest cannot handle.  A probe with no host handler is the guest's alone: ENOMEM
        where its tables have no room for it, EBUSY at a point with a probe the guest cannot
        run (such a point is the host's, where it would record nothing), and the other way
        round."""
        with self.lock:
            point = self._points.get(addr)
            func, insn = self._validate(addr, is_return, point is not None)
            if maxactive <= 0:
                maxactive = default_maxactive(self.machine.nr_cpus)
            kp = Kprobe(self, addr, on_hit, is_return, maxactive, on_return)
            kp.guest_only = guest is not None and on_hit is None and on_return is None
            if guest is not None:
                kp.guest = self._tables.add_probe(guest, kp.maxactive if is_return else 0)
            if kp.guest_only and kp.guest is None:
                raise OSError(errno.ENOMEM, "the guest's probe tables are full")
            together = [kp, *point.probes] if point is not None else []
            if any(p.guest_only for p in together) and any(p.guest is None for p in together):
                if kp.guest is not None:
                    self._tables.remove_probe(kp.guest)
                raise OSError(errno.EBUSY, "a probe the guest runs alone and one it cannot run at one point")
            if point is None:
                point = self._points[addr] = Point(addr, func, insn=insn)
            else:
                point.aggregate = True
            # replaced, never mutated: handlers on the CPUs' thread iterate it
            point.probes = [kp] + point.probes
            self._refresh()
            return kp

    def _validate(self, addr: int, is_return: bool, aggregate: bool) -> tuple[str, X.Insn | None]:
        """The checks of register_kprobe(): (the function, the probed instruction: None at an
        mcount site or for a probe joining an aggregate), or OSError with Linux's errno."""
        img = self.image
        # _kprobe_addr(): an address kallsyms does not know is ENOENT (for kretprobes too,
        # through kprobe_on_func_entry()); trace_kprobe keeps such a probe of an address
        # unarmed, "waiting for its module"
        if not addr:
            raise OSError(errno.EINVAL, "no address")  # neither an address nor a symbol
        known = img.kallsyms_lookup(addr)
        if known is None:
            raise OSError(errno.ENOENT, "no symbol at this address")
        if is_return:
            # register_kretprobe(): only at a function entry; not the blacklisted ones
            if known[1] != 0 or self.blacklist.refuses_return(addr):
                raise OSError(errno.EINVAL, "kretprobe must be at a function entry")
        # check_ftrace_location(): inside an mcount site but not at its start
        for site in (addr - k for k in range(1, self._site_size)):
            if site in self._mcount:
                raise OSError(errno.EILSEQ, "not an instruction boundary")
        # check_kprobe_address_safe(): kernel text (core_kernel_text(): the init text no more,
        # once the kernel has booted), not blacklisted
        init_start, init_end = img.init_text_range
        if not self._text[0] <= addr < self._text[1] or init_start <= addr < init_end or addr in self.blacklist:
            raise OSError(errno.EINVAL, "address may not be probed")
        if any(code <= addr < code + JUMP_LABEL_NOP_SIZE for code in self._jump_sites):
            raise OSError(errno.EINVAL, "address is a jump label")
        if aggregate:
            found = img.symbolize(addr)
            return (found[0].name if found else ""), None
        if addr in self._mcount:
            return self._mcount[addr], None
        # prepare_kprobe() -> arch_prepare_kprobe()
        return arch_prepare(img, addr)

    # ---- enable / disable / unregister (what a Kprobe asks: point.KprobeControl) ----
    def enable_kprobe(self, kp: Kprobe) -> None:
        self._set_enabled(kp, True)

    def disable_kprobe(self, kp: Kprobe) -> None:
        self._set_enabled(kp, False)

    def _set_enabled(self, kp: Kprobe, on: bool) -> None:
        """enable_kprobe()/disable_kprobe().  While all kprobes are disarmed, enabling leaves a
        disabled point disabled: a lone probe stays [DISABLED], and neither is armed by a later
        arm_all_kprobes(), as in Linux 6.1."""
        with self.lock:
            if not kp.registered:
                raise OSError(errno.EINVAL, "kprobe is not registered")
            point = self._points[kp.addr]
            points = list(self._points.values())
            was = kp.enabled, point.disabled
            optimize = {q.addr: q.optimize for q in points}
            if on:
                if point.aggregate:
                    kp.enabled = True
                if point.disabled and not self._all_disarmed:
                    point.disabled = False
                    kp.enabled = True
                    self.optimizer.on_arm(point, points)
            else:
                kp.enabled = False
                if not any(p.enabled for p in point.probes):
                    point.disabled = True
                    if not self._all_disarmed:
                        self.optimizer.on_disarm(point, points)
            self._write_guest_slots(kp)
            try:
                self._refresh()
            except OSError:  # no insn slot left: the probe stays as it was
                kp.enabled, point.disabled = was
                for q in points:
                    q.optimize = optimize[q.addr]
                self._write_guest_slots(kp)
                self._refresh()
                raise

    def set_kprobe_slots(self, kp: Kprobe, slots: int) -> None:
        """The trace-array slots a guest handler records kp's hits in."""
        with self.lock:
            kp.record_slots = slots
            self._write_guest_slots(kp)

    def _write_guest_slots(self, kp: Kprobe) -> None:
        if kp.guest is not None:
            self._tables.set_slots(kp.guest.index, kp.record_slots if kp.enabled and kp.registered else 0)

    # ---- record programs with no probe point (eprobes: run where the event they are on fires) ----
    def add_program(self, record: GuestRecord, is_return: bool = False) -> GuestProbe | None:
        """A record program in the guest's tables, recording nowhere yet (is_return: its record
        has the return address after the function's); None: tables full."""
        with self.lock:
            return self._tables.add_probe(record, is_return=is_return)

    def set_program_slots(self, probe: GuestProbe, slots: int) -> None:
        with self.lock:
            self._tables.set_slots(probe.index, slots)

    def remove_program(self, probe: GuestProbe) -> None:
        with self.lock:
            self._tables.remove_probe(probe)

    def share_perf_call(self, src: GuestProbe, dst: GuestProbe) -> None:
        """dst's hits run the kernel's perf call of src (kprobe_perf_calls[]): a probe appended
        to a kprobe event that perf holds."""
        with self.lock:
            self._tables.set_perf_call(dst.index, self._tables.perf_call(src.index))

    def clear_perf_call(self, probe: GuestProbe) -> None:
        with self.lock:
            self._tables.set_perf_call(probe.index, 0)

    def guest_counts(self, probe: GuestProbe) -> tuple[int, int]:
        """(nhit, nmissed) the guest counted for a probe it handles."""
        return self._tables.counts(probe.index)

    def unregister_kprobe(self, kp: Kprobe) -> None:
        with self.lock:
            if not kp.registered:
                return
            kp.registered = False
            kp.enabled = False
            point = self._points[kp.addr]
            point.probes = [p for p in point.probes if p is not kp]
            if kp.guest is not None:  # its counts go with it, as the struct kprobe's
                kp.host_nhit, kp.host_nmissed = kp.nhit, kp.nmissed
                self._tables.remove_probe(kp.guest)
                kp.guest = None
            if not any(p.enabled for p in point.probes) and not point.disabled:
                point.disabled = True
                if not self._all_disarmed:
                    self.optimizer.on_disarm(point, list(self._points.values()))
            if not point.probes:
                self._disarm(point)
                del self._points[kp.addr]
            self._refresh()

    # ---- the switches of debugfs and the sysctl ----
    @property
    def optimization(self) -> bool:
        """/proc/sys/debug/kprobes-optimization."""
        return self.optimizer.enabled

    @optimization.setter
    def optimization(self, on: bool) -> None:
        with self.lock:
            self.optimizer.set_enabled(bool(on), list(self._points.values()))
            self._refresh()

    @property
    def armed(self) -> bool:
        """debug/kprobes/enabled: False while every probe is disarmed (disarm_all_kprobes: no
        probe's own enable state changes; arm_all_kprobes re-arms those enabled)."""
        return not self._all_disarmed

    @armed.setter
    def armed(self, on: bool) -> None:
        with self.lock:
            if self._all_disarmed != bool(on):
                return
            self._all_disarmed = not on
            points = list(self._points.values())
            if on:  # arm_all_kprobes(): each enabled probe, in kprobe_table order
                for point in self.hash_order():
                    if not point.disabled:
                        self.optimizer.on_arm(point, points)
            else:
                for point in points:
                    point.optimize = False
            # best effort, as arm_all_kprobes(): the last error is reported
            self._refresh(best_effort=True)

    def hash_order(self) -> list[Point]:
        """The points in kprobe_table[] order: by hash bucket (hash_ptr(addr, 6)), newest first
        in one (hlist_add_head_rcu)."""
        with self.lock:
            return sorted(reversed(self._points.values()), key=lambda p: _hash_ptr(p.addr, 6))

    # ---- arming ----
    def _refresh(self, best_effort: bool = False) -> None:
        """Bring every point to the kind it should be armed as now."""
        if self._insn_slots.pending:
            self._insn_slots.collect()
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
        points = self._points.values()
        self.on_ftrace.update_hook(any(p.kind == FTRACE and p.guest is None for p in points))
        # a kretprobe whose handlers are the host's returns through the host's hook
        self.rethook.update_hook(any(kp.is_return and kp.guest is None for p in points for kp in p.probes))
        if failed is not None:
            raise failed

    def _wanted_kind(self, point: Point) -> str | None:
        if point.disabled or self._all_disarmed:
            return None
        if point.addr in self._mcount:
            return FTRACE
        if self.optimizer.enabled and point.optimize:
            return OPTIMIZED
        return INT3

    def _arm(self, point: Point, kind: str) -> None:
        """Patch the point in.  Every kind's code commits 1 + extra records per hit: an
        aggregate's further records are staged by the hooks on the extra `call
        probe_commit_stub`s (one stage per CPU)."""
        extra = len(point.probes) - 1
        if not self._guest.arm(point, kind):  # (every int3 point is armed there)
            if kind == FTRACE:
                self.on_ftrace.arm(point, extra)
            else:
                self._opt.arm(point, extra)
        point.kind = kind
        point.extra = extra

    def _disarm(self, point: Point) -> None:
        kind = point.kind
        if kind is None:
            return
        if kind == FTRACE:
            self.on_ftrace.disarm(point)
        else:  # the probed text first: nothing enters the out-of-line code after
            self.machine.text_poke_batch([(point.addr, self.image.read(point.addr, point.length))])
        if point.hook is not None:
            self.machine.remove_code_hook(point.hook)
            point.hook = None
        for h in point.commit_hooks:
            self.machine.remove_code_hook(h)
        point.commit_hooks = []
        if point.guest is not None:
            self._tables.remove_point(point.guest)
            point.guest = None
        if point.insn_slot:
            self._insn_slots.free(*point.insn_slot)
            point.insn_slot = None
        point.kind = None
        point.length = 0
        point.copy_entry = 0

    # ---- hits ----
    def _run(self, point: Point, ctx: HookContext, regs: Regs) -> ProbeHit | None:
        """The pre-handlers of an aggregate (aggr_pre_handler(); None: reentered, nothing run).
        Kretprobes take an instance and swap the return address (entry sp)."""
        if self.stage.busy(ctx):
            # the stage is taken: reentered from the commit path (kprobes_inc_nmissed_count)
            for kp in point.probes:
                if kp.enabled:
                    kp.nmissed += 1
            return None
        hit = ProbeHit(self.stage, self.image, ctx, regs, point.addr, capacity=point.extra)
        for kp in point.probes:
            if not kp.enabled:
                continue
            if kp.is_return:  # its hits count at the return (kretprobe_dispatcher)
                if not self.rethook.entry(kp, ctx, regs):
                    continue
            else:
                kp.nhit += 1
            if kp.on_hit is not None:
                hit.missed = False
                kp.on_hit(hit)
                if hit.missed:
                    kp.nmissed += 1
        if hit.queue:
            self.stage.defer(ctx, hit.queue)
        return hit


def _hash_ptr(addr: int, bits: int) -> int:
    return ((addr * 0x61C8864680B583EB) & _MASK) >> (64 - bits)
