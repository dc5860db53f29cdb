"""Kprobe events (kernel/trace/trace_kprobe.c): the dynamic-event kind that `p`/`r` commands
create -- its entry in dynevent's table (KprobeEventOps: create, show, is_busy, free, match),
the probes it registers with the kprobe engine (TraceKprobe), and its own files:
kprobe_events (its part of the dynamic event list) and kprobe_profile.

Parsing is kprobe_spec's; here a parsed probe is registered in Linux's order (same-event check,
event name in use, notrace function, ``@SYM`` arguments, the engine's arming) into a probe
event (trace_probe.ProbeEvent), and its hits become records: the engine calls the handler with
a ProbeHit, the handler fetches the arguments and stages ``ip [ret_ip] args...`` for the slots
that have the event enabled (or the guest does all that itself, from the compiled program).
"""

from __future__ import annotations

import errno
from collections.abc import Sequence
from dataclasses import replace

from ..machine.contract import KprobeEventAnswer, KprobeRequest
from ..probes.kprobes import GuestRecord, Kprobe, KprobeEngine, ProbeHit
from .dynevent import DynamicEvents, DynEvent
from .events import EventRegistry
from .kernel_symbols import ImageSymbols
from .kprobe_spec import (
    KprobeSpec,
    PointerHash,
    create_kprobe,
    registration_error,
    trace_kprobe_match,
)
from .probe_guest import compile_args
from .trace_probe import ProbeEvent, ProbeEventKind


class TraceKprobe:
    """struct trace_kprobe: one probe point of a kprobe event, an entry of the dynamic event
    list.  ``kprobe`` is the engine's Kprobe, or None for a probe Linux keeps unarmed (a module
    symbol or an address outside the kernel)."""

    def __init__(self, ops: KprobeEventOps, spec: KprobeSpec, kprobe: Kprobe | None, event: ProbeEvent):
        self.ops = ops
        self.spec = spec
        self.kprobe = kprobe
        self.event = event

    # ---- trace_probe.EventProbe ----
    def set_record_slots(self, slots: int) -> None:
        if self.kprobe is not None:
            self.kprobe.set_record_slots(slots)

    def arm(self) -> None:
        if self.kprobe is not None:
            self.kprobe.enable()

    def disarm(self) -> None:
        if self.kprobe is not None:
            self.kprobe.disable()

    def profile_line(self) -> str:
        """probes_profile_seq_show(): name, hits, misses."""
        nhit = self.kprobe.nhit if self.kprobe is not None else 0
        nmissed = self.kprobe.nmissed if self.kprobe is not None else 0
        return f"  {self.spec.event:<44} {nhit:15} {nmissed:15}\n"

    def unregister(self) -> None:
        if self.kprobe is not None:
            self.kprobe.unregister()


class KprobeEventOps(ProbeEventKind[TraceKprobe]):
    """trace_kprobe_ops, and the kprobe_events and kprobe_profile files (what they share with
    uprobe events: trace_probe.ProbeEventKind)."""

    def __init__(self, dynamic: DynamicEvents, registry: EventRegistry, symbols: ImageSymbols,
                 engine: KprobeEngine, *, hash_pointer: PointerHash = lambda addr: None):
        self._symbols = symbols
        self._engine = engine
        self._hash = hash_pointer
        self._local: dict[int, Kprobe] = {}  # the kprobe PMU's probes, by their guest index
        super().__init__(dynamic, registry, TraceKprobe)

    # ---- the files ----
    read_kprobe_events = ProbeEventKind.read_events
    write_kprobe_events = ProbeEventKind.write_events

    # ---- dyn_event_operations ----
    def create(self, command: str) -> None:
        """trace_kprobe_create(); ProbeError(ECANCELED) for a command that is not a kprobe's."""
        spec = create_kprobe(command, self._symbols, hash_pointer=self._hash)
        if spec is not None:
            self._register(spec)

    def show(self, ev: DynEvent) -> str:
        """trace_kprobe_show()."""
        assert isinstance(ev, TraceKprobe)
        return ev.spec.command_text(self._hash)

    def match(self, system: str | None, event: str, argv: Sequence[str], ev: DynEvent) -> bool:
        assert isinstance(ev, TraceKprobe)
        return trace_kprobe_match(ev.spec, system, event, argv, self._hash)

    # ---- local trace_kprobes: the kprobe PMU's (the kernel's requests, PORT_KERNEL_REQ) ----
    def serve_local(self, req: KprobeRequest) -> int | KprobeEventAnswer:
        """The kernel's requests: create_local_trace_kprobe() (the probe's index in the guest's
        tables, whose hits run its perf call there, or -errno) and destroy_local_trace_kprobe()
        (0); with perf_event, the perf half of a kprobe event's registration (_perf_open,
        _perf_close)."""
        if req.perf_event:
            return self._perf_open(req.perf_event) if req.register else self._perf_close(req.perf_event)
        if req.register:
            return self._create_local(req.func or None, req.addr, req.offset, req.is_return)
        kp = self._local.pop(req.probe, None)
        if kp is not None:
            kp.unregister()
        return 0

    # ---- kprobe events as tracepoint perf sources (kprobe_register()'s perf half) ----
    def _event_probes(self, event_id: int) -> list[TraceKprobe]:
        return [tk for tk in self.probes() if tk.event.id == event_id]

    def _perf_open(self, event_id: int) -> int | KprobeEventAnswer:
        """TRACE_REG_PERF_REGISTER of the kprobe event with that id: its probes armed for perf
        (TP_FLAG_PROFILE; the event may not go meanwhile), answered with their indexes in the
        guest's tables, whose handlers run the kernel's perf call, and the event's fields.
        EINVAL: no kprobe event has the id (a uprobe event's: not served yet)."""
        with self._dynamic.lock:
            probes = self._event_probes(event_id)
            guest = [tk.kprobe.guest.index for tk in probes if tk.kprobe is not None and tk.kprobe.guest is not None]
            if not guest:
                return -errno.EINVAL
            event = probes[0].event
            try:
                event.set_profile(True)
            except OSError as e:
                return -(e.errno or errno.EINVAL)
            first = probes[0].spec   # bpf_get_kprobe_info()'s: a function and offset, or an address
            at_addr = first.symbol is None
            return KprobeEventAnswer(tuple(guest), tuple((f.type, f.name, f.offset, f.size, f.is_signed)
                                                         for f in event.trace_event.desc.fields),
                                     first.symbol, 0 if at_addr else first.offset,
                                     (first.addr or 0) if at_addr else 0, first.is_return)

    def _perf_close(self, event_id: int) -> int:
        """TRACE_REG_PERF_UNREGISTER: perf's last event of it went (the kernel cleared the
        perf calls of the probes it was told of; those appended since are cleared here)."""
        with self._dynamic.lock:
            probes = self._event_probes(event_id)
            for tk in probes:
                if tk.kprobe is not None and tk.kprobe.guest is not None:
                    self._engine.clear_perf_call(tk.kprobe.guest)
            if probes:
                probes[0].event.set_profile(False)
        return 0

    def _join_perf(self, tk: TraceKprobe) -> None:
        """A probe appended to an event that perf holds (armed with the event): its hits run
        the event's perf call too, as a sibling's."""
        sibling = next((p.kprobe.guest for p in self._event_probes(tk.event.id)
                        if p is not tk and p.kprobe is not None and p.kprobe.guest is not None), None)
        if sibling is not None and tk.kprobe is not None and tk.kprobe.guest is not None:
            self._engine.share_perf_call(sibling, tk.kprobe.guest)

    def _create_local(self, func: str | None, addr: int, offset: int, is_return: bool) -> int:
        """Linux's order: the name (none: ENOENT, several: EADDRNOTAVAIL), the notrace function
        (EINVAL), then register_kprobe()/register_kretprobe()'s checks.  The probe has no
        arguments and records in no trace array: its guest record program only marks it the
        guest's, the guest's perf call does the rest.  Enabled at once, as its perf event's
        TRACE_REG_PERF_REGISTER does."""
        if func is not None:
            if ":" not in func:
                count = self._symbols.count(func)
                if count > 1:
                    return -errno.EADDRNOTAVAIL
                if count == 0:
                    return -errno.ENOENT
            base = self._symbols.lookup(func)
            if base is None:
                return -errno.ENOENT
            addr = base + offset
        elif not addr:
            return -errno.EINVAL
        if self._symbols.within_notrace_func(addr):
            return -errno.EINVAL
        try:  # (ENOMEM: the guest's tables are full)
            kprobe = self._engine.register(addr, on_hit=None, is_return=is_return, guest=GuestRecord(0, (), 0))
        except OSError as e:
            return -(e.errno or errno.EINVAL)
        assert kprobe.guest is not None
        try:
            kprobe.enable()
        except OSError as e:
            kprobe.unregister()
            return -(e.errno or errno.EINVAL)
        self._local[kprobe.guest.index] = kprobe
        return kprobe.guest.index

    # ---- register_trace_kprobe() ----
    def _register(self, spec: KprobeSpec) -> None:
        event = self._event_for(spec)
        spec, kprobe = self._arm(spec, event)
        tk = TraceKprobe(self, spec, kprobe, event)
        self._dynamic.add(tk)
        try:
            event.append(tk, self._registry)
        except OSError:
            self._dynamic.remove(tk)
            tk.unregister()
            raise
        if event.profile:
            self._join_perf(tk)

    def _arm(self, spec: KprobeSpec, event: ProbeEvent) -> tuple[KprobeSpec, Kprobe | None]:
        """__register_trace_kprobe(): (the spec as registered, the engine's Kprobe), or (the
        spec as parsed, None) where Linux keeps the probe unarmed; ProbeError otherwise."""
        def failed(err: int) -> tuple[KprobeSpec, None]:
            failure = registration_error(spec, err)
            if failure is not None:
                raise failure
            return spec, None

        addr = self._address(spec)
        if addr is not None and self._symbols.within_notrace_func(addr):
            return failed(-errno.EINVAL)
        resolved = spec.resolve_args(self._symbols.lookup)
        if isinstance(resolved, int):
            return failed(resolved)
        if addr is None:
            return failed(-errno.ENOENT)
        # The record is the guest's: its fetch program runs in the emulated kernel at each hit
        # (a trace kretprobe's at the return, rp.entry_handler being NULL); a probe its
        # tables have no room for is ENOMEM, as a kernel out of memory for it.
        try:
            kprobe = self._engine.register(addr, on_hit=None, is_return=resolved.is_return,
                                           maxactive=resolved.maxactive, guest=compile_args(event.id, resolved.args))
        except OSError as e:
            return failed(-(e.errno or errno.EINVAL))
        # register_kretprobe() gave it the default pool if MAXACTIVE was not given
        return replace(resolved, maxactive=kprobe.maxactive) if resolved.is_return else resolved, kprobe

    def _address(self, spec: KprobeSpec) -> int | None:
        if spec.symbol is None:
            return spec.addr
        base = self._symbols.lookup(spec.symbol)
        return None if base is None else base + spec.offset
