"""The kprobe events: what kprobe_events, dynamic_events and kprobe_profile create, show and
remove (the registry half of kernel/trace/trace_kprobe.c and trace_dynevent.c).

Parsing is kprobe_spec's; here the parsed probes are registered in Linux's order
(same-event check, event name in use, notrace function, ``@SYM`` arguments, the engine's
arming), their events are added to the EventRegistry (so trace arrays, set_event and the fs
tree see them), and their hits become records: the engine calls the handler with a ProbeHit,
the handler fetches the arguments and stages ``ip [ret_ip] args...`` for the slots that
have the event enabled.  Every refusal is logged in the top-level error_log with Linux's text
and caret, and changes nothing.
"""

from __future__ import annotations

import errno
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..machine.contract import GuestTracingOps
from .error_log import ErrorLog
from .events import EventRegistry, TraceEvent
from .ftrace_records import SymFlags
from .kprobe_spec import (
    KprobeSpec,
    PointerHash,
    ReleaseCommand,
    check_existing,
    create_kprobe,
    event_exists_error,
    iter_commands,
    parse_kprobe_events_command,
    parse_release,
    registration_error,
)
from .kernel_symbols import ImageSymbols
from .probe_args import ProbeError, decode_args
from .probe_guest import compile_args
from .probe_record import record_body

_IP = struct.Struct("<Q")
_IP_RET = struct.Struct("<QQ")  # a kretprobe's func and ret_ip
_DEFAULT_SYM = SymFlags()


@dataclass(frozen=True)
class KprobeEventDesc:
    """The EventLike of a kprobe event: its format file's fields and print fmt."""

    system: str
    name: str
    fields: tuple
    print_fmt: str


class TraceKprobe:
    """struct trace_kprobe: one probe point.  ``kprobe`` is the engine's Kprobe, or None for a
    probe Linux keeps unarmed (a module symbol or an address outside the kernel)."""

    def __init__(self, spec: KprobeSpec, kprobe, event: "KprobeEvent"):
        self.spec = spec
        self.kprobe = kprobe
        self.event = event

    def profile_line(self) -> str:
        """probes_profile_seq_show(): name, hits, misses."""
        nhit = self.kprobe.nhit if self.kprobe is not None else 0
        nmissed = self.kprobe.nmissed if self.kprobe is not None else 0
        return f"  {self.spec.event:<44} {nhit:15} {nmissed:15}\n"


@dataclass(frozen=True, eq=False)
class KprobeTraceEvent(TraceEvent):
    """A kprobe event in the EventRegistry: printed by print_kprobe_event() rather than from
    its print fmt, and enabled by arming its probes."""

    probe: "KprobeEvent | None" = field(default=None, compare=False)

    @cached_property
    def body(self) -> Callable[..., bytes]:
        spec = self.probe.first
        head = spec.head_size
        args = spec.args
        is_return = spec.is_return

        def body(payload, verbose: bool, symbolize, hash_pointer=None, sym_flags=_DEFAULT_SYM) -> bytes:
            ip, ret_ip = _IP_RET.unpack_from(payload, 8) if is_return else (_IP.unpack_from(payload, 8)[0], 0)
            values = decode_args(args, payload, head)
            return spec.format_record(ip, ret_ip, values, symbolize, sym_flags).encode("utf-8", "surrogateescape")

        return body

    def set_enabled(self, guest: GuestTracingOps, slot: int, on: bool) -> None:
        self.probe.set_slot(slot, on)
        guest.record_cmdlines(self, bool(self.probe.slots))


class KprobeEvent:
    """struct trace_probe_event: one group/event and the probes that feed it (the first
    one created it; appended ones share its id and argument layout)."""

    def __init__(self, event_id: int, spec: KprobeSpec):
        self.first = spec
        self.probes: list[TraceKprobe] = []
        # Bit s: trace-array slot s has the event enabled (what the hit handler stages with).
        self.slots = 0
        self._lock = threading.Lock()
        fields, fmt = spec.format()
        self.trace_event = KprobeTraceEvent(event_id, KprobeEventDesc(spec.group, spec.event, tuple(fields), fmt),
                                            probe=self)

    @property
    def id(self) -> int:
        return self.trace_event.id

    @property
    def enabled(self) -> bool:
        return bool(self.slots)

    def set_slot(self, slot: int, on: bool) -> None:
        """enable_trace_kprobe()/disable_trace_kprobe(): the first slot arms every probe of
        the event, the last one disarms them."""
        with self._lock:
            before = self.slots
            after = before | (1 << slot) if on else before & ~(1 << slot)
            self.slots = after
            try:
                for tk in self.probes:  # what guest handlers record in
                    if tk.kprobe is not None:
                        tk.kprobe.slots = after
                if after and not before:
                    self._arm([tk.kprobe for tk in self.probes if tk.kprobe is not None])
                elif before and not after:
                    for tk in self.probes:
                        if tk.kprobe is not None:
                            tk.kprobe.disable()
            except BaseException:
                self.slots = before
                for tk in self.probes:
                    if tk.kprobe is not None:
                        tk.kprobe.slots = before
                raise

    @staticmethod
    def _arm(kprobes: list) -> None:
        armed = []
        try:
            for kp in kprobes:
                kp.enable()
                armed.append(kp)
        except BaseException:
            for kp in armed:
                kp.disable()
            raise

    def arm_if_enabled(self, tk: TraceKprobe) -> None:
        """A probe appended to an event already enabled is armed at once (Linux registers it
        without KPROBE_FLAG_DISABLED)."""
        with self._lock:
            if self.slots and tk.kprobe is not None:
                tk.kprobe.enable()

    def hit_handler(self, spec: KprobeSpec) -> Callable:
        """kprobe_trace_func()/kretprobe_trace_func() for one probe of this event: runs on the
        machine's thread at every hit of an armed probe."""
        body = record_body(spec)
        event_id = self.id

        def on_hit(hit) -> None:
            slots = self.slots
            if slots:
                hit.record(event_id, slots, body(hit))
        return on_hit


class KprobeEvents:
    """The dynamic event list (dyn_event_list) for kprobes, and the files showing it.

    listeners get event_added(TraceEvent) after an event appears and event_removed(TraceEvent)
    once it is gone (trace arrays add/drop their files, the fs tree its directories)."""

    def __init__(self, registry: EventRegistry, symbols: ImageSymbols, engine, error_log: ErrorLog,
                 *, hash_pointer: PointerHash = lambda addr: None):
        self._registry = registry
        self._symbols = symbols
        self._engine = engine
        self._error_log = error_log
        self._hash = hash_pointer
        self._probes: list[TraceKprobe] = []  # creation order, as kprobe_events lists them
        self._events: dict[tuple[str, str], KprobeEvent] = {}
        self._lock = threading.RLock()
        self.listeners: list = []

    # ---- reading ----
    def read_kprobe_events(self) -> bytes:
        with self._lock:
            return "".join(tk.spec.command_text(self._hash) for tk in self._probes).encode("latin-1")

    read_dynamic_events = read_kprobe_events  # kprobes are the only dynamic events here

    def read_profile(self) -> bytes:
        with self._lock:
            return "".join(tk.profile_line() for tk in self._probes).encode("latin-1")

    def events(self) -> list[TraceEvent]:
        with self._lock:
            return [e.trace_event for e in self._events.values()]

    # ---- writing ----
    def write_kprobe_events(self, data: bytes) -> None:
        self._run(data, self._kprobe_events_command)

    def write_dynamic_events(self, data: bytes) -> None:
        self._run(data, self._dynamic_events_command)

    def release_all(self) -> None:
        """An open with O_TRUNC (dyn_events_release_all): EBUSY, removing nothing, while any
        event is enabled; else every probe goes."""
        with self._lock:
            if any(e.enabled for e in self._events.values()):
                raise OSError(errno.EBUSY, "a kprobe event is enabled")
            for tk in list(self._probes):
                self._free(tk)

    def _run(self, data: bytes, command: Callable[[str], None]) -> None:
        """trace_parse_run_command(): commands in order, stopping at the first failure (those
        before it stay done)."""
        with self._lock:
            try:
                for text in iter_commands(data):
                    command(text)
            except ProbeError as e:
                if e.message is not None:
                    self._error_log.log(e.location, e.message, e.command.encode("latin-1"), e.pos)
                raise OSError(e.errno, e.message or errno.errorcode.get(e.errno, "")) from None

    def _kprobe_events_command(self, text: str) -> None:
        parsed = parse_kprobe_events_command(text, self._symbols, hash_pointer=self._hash)
        if isinstance(parsed, ReleaseCommand):
            self._release(parsed)
        elif parsed is not None:
            self._register(parsed)

    def _dynamic_events_command(self, text: str) -> None:
        """create_dyn_event(): removal of any dynamic event, or a create that some event
        type claims (kprobes being the only type, an unclaimed command is EINVAL)."""
        if text[:1] in ("-", "!"):
            self._release(parse_release(text))
            return
        try:
            spec = create_kprobe(text, self._symbols, hash_pointer=self._hash)
        except ProbeError as e:
            if e.errno == errno.ECANCELED:
                raise ProbeError(errno.EINVAL) from None
            raise
        if spec is not None:
            self._register(spec)

    # ---- register_trace_kprobe() ----
    def _register(self, spec: KprobeSpec) -> None:
        key = (spec.group, spec.event)
        event = self._events.get(key)
        if event is not None:
            check_existing(spec, [tk.spec for tk in event.probes])
        elif self._registry.get(spec.group, spec.event) is not None:
            raise event_exists_error(spec)
        else:
            # register_kprobe_event() takes the id before the probe is armed: a failure below
            # does not give it back.
            event = KprobeEvent(self._registry.alloc_event_id(), spec)
        spec, kprobe = self._arm(spec, event)
        tk = TraceKprobe(spec, kprobe, event)
        new_event = not event.probes
        event.probes.append(tk)
        self._probes.append(tk)
        if new_event:
            self._events[key] = event
            self._registry.add_dynamic(event.trace_event)
            for listener in list(self.listeners):
                listener.event_added(event.trace_event)
        else:
            try:
                event.arm_if_enabled(tk)
            except OSError:
                self._forget(tk)
                self._unregister(tk)
                raise

    def _arm(self, spec: KprobeSpec, event: KprobeEvent):
        """__register_trace_kprobe(): (the spec as registered, the engine's Kprobe), or (the
        spec as parsed, None) where Linux keeps the probe unarmed; ProbeError otherwise."""
        def failed(err: int):
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
        try:
            guest = compile_args(event.id, resolved.args)
            if resolved.is_return:
                kprobe = self._engine.register(addr, on_hit=_entry_unused, is_return=True,
                                               maxactive=resolved.maxactive,
                                               on_return=event.hit_handler(resolved), guest=guest)
            else:
                kprobe = self._engine.register(addr, on_hit=event.hit_handler(resolved), guest=guest)
            kprobe.slots = event.slots
        except OSError as e:
            return failed(-(e.errno or errno.EINVAL))
        # register_kretprobe() gave it the default pool if MAXACTIVE was not given
        return replace(resolved, maxactive=kprobe.maxactive) if resolved.is_return else resolved, kprobe

    def _address(self, spec: KprobeSpec) -> int | None:
        if spec.symbol is None:
            return spec.addr
        base = self._symbols.lookup(spec.symbol)
        return None if base is None else base + spec.offset

    # ---- dyn_event_release() ----
    def _release(self, command: ReleaseCommand) -> None:
        """Every matching probe, in order, until one refuses (EBUSY); ENOENT if none matches."""
        err = errno.ENOENT
        for tk in list(self._probes):
            if not command.matches(tk.spec, self._hash):
                continue
            err = 0
            if len(tk.event.probes) == 1 and tk.event.enabled:
                err = errno.EBUSY
                break
            self._free(tk)
        if err:
            raise ProbeError(err)

    def _free(self, tk: TraceKprobe) -> None:
        """unregister_trace_kprobe() of a probe that may go."""
        self._forget(tk)
        self._unregister(tk)
        event = tk.event
        if not event.probes:
            del self._events[(event.first.group, event.first.event)]
            self._registry.remove_dynamic(event.trace_event)
            for listener in list(self.listeners):
                listener.event_removed(event.trace_event)

    def _forget(self, tk: TraceKprobe) -> None:
        tk.event.probes.remove(tk)
        self._probes.remove(tk)

    @staticmethod
    def _unregister(tk: TraceKprobe) -> None:
        if tk.kprobe is not None:
            tk.kprobe.unregister()


def _entry_unused(hit) -> None:
    """A trace kretprobe has no entry handler (rp.entry_handler is NULL): its record is made
    at the return."""
