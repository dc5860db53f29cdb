"""The probe-event core shared by every probe kind (kernel/trace/trace_probe.c): kprobe events
(trace_kprobe.py), uprobe events (trace_uprobe.py) and eprobes (trace_eprobe.py).

A probe event (struct trace_probe_event) is one group/event in the EventRegistry with the
probes that feed it: the first one made it, appended ones share its id and argument layout.
Enabling it in a trace array's slot hands each probe the slots to record in, arming them on the
first slot and disarming them after the last.  What each kind adds is its probes (EventProbe)
and how its record prints (RecordPrinter); the fetch arguments are probe_args', their errors
probe_log's.

What kprobe and uprobe events share beyond that lives here too, as trace_probe.c holds what
trace_kprobe.c and trace_uprobe.c have in common: the parsed command's common part
(ProbeCommand) and the kind's side of dynevent's table and of its two files (ProbeEventKind:
`kprobe_events`/`uprobe_events`, `kprobe_profile`/`uprobe_profile`, finding or making the
event a new probe joins, freeing a probe).
"""

from __future__ import annotations

import errno
import struct
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Generic, Protocol, TypeVar

from ..machine.contract import GuestTracingOps
from .dynevent import DynamicEvents, DynEvent
from .events import EventRegistry, TraceEvent
from .ftrace_records import SymFlags
from .probe_args import (
    MAX_TRACE_ARGS,
    ArgField,
    ArgFlags,
    ArgValue,
    ProbeArg,
    Symbolizer,
    arg_fields,
    decode_args,
    is_good_name,
    is_good_system_name,
    parse_probe_arg,
    print_fmt,
)
from .probe_log import ProbeError, ProbeLog

MAX_EVENT_NAME_LEN = 64
_DEFAULT_SYM = SymFlags()
_IP = struct.Struct("<Q")
_IP_RET = struct.Struct("<QQ")  # a return probe's function and return address


class EventProbe(Protocol):
    """One probe feeding a probe event (struct trace_kprobe, trace_uprobe, ...)."""

    def set_record_slots(self, slots: int) -> None:
        """The trace-array slots its hits now record in (bit s: slot s)."""
        ...

    def arm(self) -> None:
        """Start probing; OSError (nothing armed) when it cannot."""
        ...

    def disarm(self) -> None: ...


class RecordPrinter(Protocol):
    """How a probe kind prints its records (print_kprobe_event(), ...)."""

    def print_record(self, payload: bytes, symbolize: Symbolizer, sym_flags: SymFlags) -> str:
        """The trace line after the context columns, newline included."""
        ...


@dataclass(frozen=True)
class ProbeEventDesc:
    """The EventLike of a probe event: its format file's fields and print fmt."""

    system: str
    name: str
    fields: tuple[ArgField, ...]
    print_fmt: str


@dataclass(frozen=True, eq=False)
class ProbeTraceEvent(TraceEvent):
    """A probe event in the EventRegistry: printed by its kind's printer rather than from its
    print fmt, and enabled by arming its probes."""

    probe: ProbeEvent | None = field(default=None, compare=False)

    @cached_property
    def body(self) -> Callable[..., bytes]:
        assert self.probe is not None
        printer = self.probe.printer

        def body(payload: bytes, verbose: bool, symbolize: Symbolizer, hash_pointer: object = None,
                 sym_flags: SymFlags = _DEFAULT_SYM) -> bytes:
            return printer.print_record(payload, symbolize, sym_flags).encode("utf-8", "surrogateescape")

        return body

    def set_enabled(self, guest: GuestTracingOps, slot: int, on: bool) -> None:
        assert self.probe is not None
        probe = self.probe
        with probe.lock:
            after = probe.slots | 1 << slot if on else probe.slots & ~(1 << slot)
            # the slots past word 0 in its type's extension words (OSError ENOMEM: it has none)
            word0 = guest.set_dyn_event_slots(self.id, after)
            try:
                probe.set_slot(slot, on, word0)
            except BaseException:
                guest.set_dyn_event_slots(self.id, probe.slots)
                raise
        guest.record_cmdlines(self, bool(probe.slots))

    def set_soft_disabled(self, guest: GuestTracingOps, slot: int, off: bool) -> None:
        """EVENT_FILE_FL_SOFT_DISABLED: in the guest, where the event's writers look at it and
        an enable_event / disable_event trigger flips it."""
        guest.triggers.set_dyn_soft_disabled(self.id, slot, off)

    def recording(self, guest: GuestTracingOps, slot: int) -> bool:
        assert self.probe is not None
        return bool(self.probe.slots >> slot & 1) and not guest.triggers.dyn_soft_disabled(self.id, slot)

    def set_trigger_bits(self, bits: int) -> bool:
        assert self.probe is not None
        self.probe.set_trigger_bits(bits)
        return True


class ProbeEvent:
    """struct trace_probe_event: one group/event and the probes that feed it."""

    def __init__(self, event_id: int, group: str, name: str, fields: Sequence[ArgField], print_fmt: str,
                 printer: RecordPrinter):
        """printer: how its records print (the first probe's; appended ones are alike).  Its
        records' writers run the event's triggers (kprobe_trace_func()'s
        trace_trigger_soft_disabled(), __eprobe_trace_func()'s: the guest's
        probe_trigger_commit())."""
        self.printer = printer
        self.probes: list[EventProbe] = []
        # Bit s: trace-array slot s has the event enabled (armed for it).
        self.slots = 0
        # ... as its records' writers take it (the guest's word 0: slots past it in its type's
        # extension words, its bit 63 set while any is)
        self.word0 = 0
        # EVENT_FILE_FL_TRIGGER_MODE: the guest's trigger bits (already shifted), set by the
        # trigger table.  (EVENT_FILE_FL_SOFT_DISABLED is the guest's: its writers take the
        # soft-disabled slots out, ProbeTraceEvent.set_soft_disabled.)
        self.trigger_bits = 0
        # TP_FLAG_PROFILE: perf holds it (the kernel's tracepoint perf events of it, as one
        # user however many they are): armed for perf whether or not a slot has it enabled
        self.profile = False
        self.lock = threading.RLock()   # the event's state (and, held by set_enabled, the guest's words)
        self.trace_event = ProbeTraceEvent(event_id, ProbeEventDesc(group, name, tuple(fields), print_fmt),
                                           probe=self)

    @property
    def id(self) -> int:
        return self.trace_event.id

    @property
    def enabled(self) -> bool:
        """trace_probe_is_enabled(): TP_FLAG_TRACE or TP_FLAG_PROFILE."""
        return bool(self.slots) or self.profile

    @property
    def file_slots(self) -> int:
        """What its records' writers are given, as a tracepoint's trace_event_file.slots: the
        slots that have it enabled (word 0 of them; less those soft-disabled, in the guest), and
        above them the slots whose triggers run."""
        return self.word0 | self.trigger_bits

    def set_trigger_bits(self, bits: int) -> None:
        with self.lock:
            if bits != self.trigger_bits:
                self.trigger_bits = bits
                self._write_slots()

    def _write_slots(self) -> None:
        for probe in self.probes:
            probe.set_record_slots(self.file_slots)

    def set_slot(self, slot: int, on: bool, word0: int) -> None:
        """enable_trace_kprobe()/disable_trace_kprobe(): the first slot arms every probe of the
        event, the last one disarms them.  word0: the slots' word 0 as the guest keeps them
        (GuestTracingOps.set_dyn_event_slots())."""
        with self.lock:
            before, before_word0 = self.slots, self.word0
            after = before | (1 << slot) if on else before & ~(1 << slot)
            self.slots = after
            self.word0 = word0
            try:
                self._write_slots()  # what they record in
                if after and not before and not self.profile:
                    self._arm()
                elif before and not after and not self.profile:
                    self._disarm()
            except BaseException:
                self.slots, self.word0 = before, before_word0
                self._write_slots()
                raise

    def set_profile(self, on: bool) -> None:
        """kprobe_register()'s TRACE_REG_PERF_REGISTER/UNREGISTER (enable_trace_kprobe(NULL)):
        perf's first event on it arms its probes unless a slot already has, its last one
        disarms them unless a slot still has it enabled.  OSError: nothing armed."""
        with self.lock:
            if on == self.profile:
                return
            if not self.slots:
                if on:
                    self._arm()
                else:
                    self._disarm()
            self.profile = on

    def _disarm(self) -> None:
        for probe in self.probes:
            probe.disarm()

    def _arm(self) -> None:
        armed: list[EventProbe] = []
        try:
            for probe in self.probes:
                probe.arm()
                armed.append(probe)
        except BaseException:
            for probe in armed:
                probe.disarm()
            raise

    def append(self, probe: EventProbe, registry: EventRegistry) -> None:
        """trace_probe_append() -- or, for the first probe, trace_probe_register_event_call():
        the event appears in the registry (and so in every trace array and the fs tree).  A
        probe appended to an event already enabled is armed at once (Linux registers it
        without KPROBE_FLAG_DISABLED); OSError: it could not be, and it is not appended."""
        first = not self.probes
        self.probes.append(probe)
        if first:
            registry.add_dynamic(self.trace_event)
            return
        with self.lock:
            if not self.enabled:
                return
            probe.set_record_slots(self.file_slots)
            try:
                probe.arm()
            except OSError:
                self.probes.remove(probe)
                raise

    def unlink(self, probe: EventProbe, registry: EventRegistry) -> None:
        """trace_probe_unlink(): the event goes with its last probe."""
        self.probes.remove(probe)
        if not self.probes:
            registry.remove_dynamic(self.trace_event)


def parse_event_name(event: str, offset: int, log: ProbeLog) -> tuple[str | None, str | None]:
    """traceprobe_parse_event_name(): (group or None, event or None)."""
    group = None
    slash = event.find("/")
    if slash < 0:
        slash = event.find(".")
    if slash >= 0:
        if slash == 0:
            raise log.error(offset, "NO_GROUP_NAME")
        if slash + 1 > MAX_EVENT_NAME_LEN:
            raise log.error(offset, "GROUP_TOO_LONG")
        group = event[:slash]
        if not is_good_system_name(group):
            raise log.error(offset, "BAD_GROUP_NAME")
        offset += slash + 1
        event = event[slash + 1:]
    if not event:
        if slash >= 0:
            return group, None
        raise log.error(offset, "NO_EVENT_NAME")
    if len(event) >= MAX_EVENT_NAME_LEN:
        raise log.error(offset, "EVENT_TOO_LONG")
    if not is_good_name(event):
        raise log.error(offset, "BAD_EVENT_NAME")
    return group, event


def compare_arg_type(a: Sequence[ProbeArg], b: Sequence[ProbeArg]) -> int:
    """trace_probe_compare_arg_type(): 1-based index of the first differing argument (0:
    none differs)."""
    if len(a) != len(b):
        return min(len(a), len(b)) + 1
    for i, (x, y) in enumerate(zip(a, b)):
        if x.type != y.type or x.count != y.count or x.name != y.name:
            return i + 1
    return 0


def match_command_args(args: Sequence[ProbeArg], argv: Sequence[str]) -> bool:
    """trace_probe_match_command_args(): a removal's NAME=FETCHARG words name the first
    arguments, in order."""
    if len(args) < len(argv):
        return False
    return all(word == f"{a.name}={a.comm}" for a, word in zip(args, argv))


def probe_event_fields(args: Sequence[ProbeArg], is_return: bool) -> list[ArgField]:
    """A kprobe's or uprobe's fields after the common ones: the probed address (a return
    probe: the function, then the return address), then the arguments."""
    if is_return:
        head = [ArgField("unsigned long", "__probe_func", 8, 8, False),
                ArgField("unsigned long", "__probe_ret_ip", 16, 8, False)]
    else:
        head = [ArgField("unsigned long", "__probe_ip", 8, 8, False)]
    return head + arg_fields(args, 24 if is_return else 16)


def probe_event_print_fmt(args: Sequence[ProbeArg], is_return: bool) -> str:
    """__set_print_fmt() with PROBE_PRINT_RETURN or PROBE_PRINT_NORMAL."""
    if is_return:
        return print_fmt(args, "(%lx <- %lx)", ", REC->__probe_func, REC->__probe_ret_ip")
    return print_fmt(args, "(%lx)", ", REC->__probe_ip")


def parse_probe_args(words: Sequence[str], flags: ArgFlags, log: ProbeLog) -> tuple[ProbeArg, ...]:
    """traceprobe_parse_probe_arg() for each FETCHARG word of a kprobe or uprobe command (the
    words after the probe point): at most MAX_TRACE_ARGS, the rest ignored as Linux ignores
    them; ``log`` points at each word in turn (its index 2 the first)."""
    args: list[ProbeArg] = []
    size = 0
    for i, text in enumerate(words[:MAX_TRACE_ARGS]):
        log.index = i + 2
        arg = parse_probe_arg(text, i, args, size, flags, log)
        args.append(arg)
        size += arg.size
    return tuple(args)


class ProbeCommand(ABC):
    """What a parsed kprobe and uprobe command share (the struct trace_probe part of struct
    trace_kprobe and trace_uprobe, which trace_probe.c handles): the group/event, the kind
    (return probe or not) and the fetch arguments -- so the format file, the record's head and
    arguments, the read-back line's shape, the removal match and the checks of appending to an
    event.  A kind (a frozen dataclass: KprobeSpec, UprobeSpec) adds its probe point and says
    when two of its probes are the same one (``same_point``)."""

    group: str
    event: str
    is_return: bool
    args: tuple[ProbeArg, ...]
    argv: tuple[str, ...]  # the command's words, for errors logged at registration
    LOCATION: ClassVar[str]  # the error_log's location of its errors

    @property
    def head_size(self) -> int:
        """sizeof the record's head before the arguments (the common fields, then ip, or a
        return probe's function and return address)."""
        return 24 if self.is_return else 16

    def fields(self) -> list[ArgField]:
        """The event's own fields in the format file (after the common ones)."""
        return probe_event_fields(self.args, self.is_return)

    def print_fmt(self) -> str:
        """What follows ``print fmt: `` in the format file."""
        return probe_event_print_fmt(self.args, self.is_return)

    def format(self) -> tuple[list[ArgField], str]:
        """(fields, print fmt) of the event's format file."""
        return self.fields(), self.print_fmt()

    def decode_record(self, payload: bytes) -> tuple[int, int, list[ArgValue]]:
        """A record read back: (ip, ret_ip, argument values); ``ip`` is the probed address (a
        return probe: the function), ``ret_ip`` the return address (0 for a probe)."""
        if self.is_return:
            ip, ret_ip = _IP_RET.unpack_from(payload, 8)
        else:
            ip, ret_ip = _IP.unpack_from(payload, 8)[0], 0
        return ip, ret_ip, decode_args(self.args, payload, self.head_size)

    def command_line(self, head: str, point: str) -> str:
        """trace_kprobe_show()/trace_uprobe_show(): ``HEAD:GROUP/EVENT POINT NAME=FETCHARG...``."""
        words = [f"{head}:{self.group}/{self.event}", point]
        words += [f"{a.name}={a.comm}" for a in self.args]
        return " ".join(words) + "\n"

    def log(self, index: int) -> ProbeLog:
        log = ProbeLog(self.argv, self.LOCATION)
        log.index = index
        return log

    def matches(self, system: str | None, event: str, argv: Sequence[str], point: str) -> bool:
        """trace_kprobe_match()/trace_uprobe_match(): whether a removal
        ``-:[SYSTEM/]EVENT [POINT [NAME=FETCHARG...]]`` names this probe, ``point`` being the
        probe point as the removal's word must spell it."""
        if event and self.event != event:
            return False
        if system is not None and self.group != system:
            return False
        if not argv:
            return True
        if argv[0] != point:
            return False
        return match_command_args(self.args, argv[1:])

    @abstractmethod
    def same_point(self, other: ProbeCommand) -> bool:
        """trace_kprobe_has_same_kprobe()/trace_uprobe_has_same_uprobe()'s point test."""

    @abstractmethod
    def print_record(self, payload: bytes, symbolize: Symbolizer, sym_flags: SymFlags) -> str:
        """print_kprobe_event()/print_uprobe_event() (its events' RecordPrinter)."""

    def check_existing(self, existing: Sequence[ProbeCommand]) -> None:
        """append_trace_kprobe()/append_trace_uprobe(): the group/event is already this kind's
        event, whose probes are ``existing`` (first the one that made it); this probe may join
        it if it is of the same kind, has the same argument names and types, and is not the
        same probe (the same point with the same arguments).  ProbeError(EEXIST) otherwise."""
        first = existing[0]
        if self.is_return != first.is_return:
            raise self.log(0).error(0, "DIFF_PROBE_TYPE", errno.EEXIST)
        diff = compare_arg_type(self.args, first.args)
        if diff:
            raise self.log(diff + 1).error(0, "DIFF_ARG_TYPE", errno.EEXIST)
        for other in existing:
            if self.same_point(other) and all(x.comm == y.comm for x, y in zip(other.args, self.args)):
                raise self.log(0).error(0, "SAME_PROBE", errno.EEXIST)

    def event_exists_error(self) -> ProbeError:
        """The group/event name is taken by an event of another kind."""
        return self.log(0).error(0, "EVENT_EXIST", errno.EEXIST)


class ProbeEntry(EventProbe, DynEvent, Protocol):
    """One probe of a kprobe or uprobe event (struct trace_kprobe, trace_uprobe): an entry of
    the dynamic event list feeding its probe event."""

    @property
    def spec(self) -> ProbeCommand: ...
    @property
    def event(self) -> ProbeEvent: ...

    def profile_line(self) -> str:
        """Its line in the kind's profile file (probes_profile_seq_show())."""
        ...

    def unregister(self) -> None:
        """Give its probe back to the engine (__unregister_trace_kprobe(), ...)."""
        ...


EntryT = TypeVar("EntryT", bound=ProbeEntry)


class ProbeEventKind(ABC, Generic[EntryT]):
    """What trace_kprobe.c and trace_uprobe.c do alike as a kind of dynamic event: the part of
    dynevent's list that is theirs, their events file (its part of the list) and profile file,
    is_busy/free of dyn_event_operations, and the event a new probe joins or makes.  A kind
    adds create/show/match and how its probes register."""

    def __init__(self, dynamic: DynamicEvents, registry: EventRegistry, entry: type[EntryT]):
        """entry: the kind's probe class (its entries in the list)."""
        self._dynamic = dynamic
        self._registry = registry
        self._entry = entry
        dynamic.register(self)

    def probes(self) -> list[EntryT]:
        """The kind's probes, in creation order (for_each_trace_kprobe, for_each_trace_uprobe)."""
        return [ev for ev in self._dynamic.of(self) if isinstance(ev, self._entry)]

    # ---- the files ----
    def read_events(self) -> bytes:
        return self._dynamic.show(self)

    def write_events(self, data: bytes) -> None:
        self._dynamic.write_kind(data, self)

    def release_all(self) -> None:
        """An open of the events file with O_TRUNC: every event of the kind goes, unless one is
        enabled (EBUSY, nothing removed)."""
        self._dynamic.release_all(self)

    def read_profile(self) -> bytes:
        with self._dynamic.lock:
            return "".join(p.profile_line() for p in self.probes()).encode("latin-1")

    # ---- dyn_event_operations ----
    @abstractmethod
    def create(self, command: str) -> None: ...
    @abstractmethod
    def show(self, ev: DynEvent) -> str: ...
    @abstractmethod
    def match(self, system: str | None, event: str, argv: Sequence[str], ev: DynEvent) -> bool: ...

    def is_busy(self, ev: DynEvent) -> bool:
        assert isinstance(ev, self._entry)
        return ev.event.enabled

    def free(self, ev: DynEvent) -> None:
        """unregister_trace_kprobe()/unregister_trace_uprobe(): a probe whose event has others
        goes; the last one not while its event is enabled (EBUSY)."""
        assert isinstance(ev, self._entry)
        if len(ev.event.probes) == 1 and ev.event.enabled:
            raise ProbeError(errno.EBUSY)
        self._dynamic.remove(ev)
        ev.unregister()
        ev.event.unlink(ev, self._registry)

    # ---- register_trace_kprobe()/register_trace_uprobe() ----
    def _event_for(self, spec: ProbeCommand) -> ProbeEvent:
        """The probe event a new probe joins: the kind's event of that group/event, if the
        probe may join it (ProbeCommand.check_existing), else a new one -- unless the name is
        another event's (EEXIST).  A new event takes its id now, before the probe is armed: a
        failure after this does not give it back (register_kprobe_event() order)."""
        same = [p for p in self.probes() if (p.spec.group, p.spec.event) == (spec.group, spec.event)]
        if same:
            spec.check_existing([p.spec for p in same])
            return same[0].event
        if self._registry.get(spec.group, spec.event) is not None:
            raise spec.event_exists_error()
        fields, fmt = spec.format()
        return ProbeEvent(self._registry.alloc_event_id(), spec.group, spec.event, fields, fmt, spec)
