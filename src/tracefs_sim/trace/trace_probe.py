"""The probe-event core shared by every probe kind (kernel/trace/trace_probe.c): kprobe events
today (trace_kprobe.py), uprobe events and eprobes tomorrow.

A probe event (struct trace_probe_event) is one group/event in the EventRegistry with the
probes that feed it: the first one made it, appended ones share its id and argument layout.
Enabling it in a trace array's slot hands each probe the slots to record in, arming them on the
first slot and disarming them after the last.  What each kind adds is its probes (EventProbe)
and how its record prints (RecordPrinter); the fetch arguments are probe_args', their errors
probe_log's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from ..machine.contract import GuestTracingOps
from .events import EventRegistry, TraceEvent
from .ftrace_records import SymFlags
from .probe_args import ArgField, ProbeArg, Symbolizer, arg_fields, is_good_name, is_good_system_name, print_fmt
from .probe_log import ProbeLog

MAX_EVENT_NAME_LEN = 64
_DEFAULT_SYM = SymFlags()


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
        self.probe.set_slot(slot, on)
        guest.record_cmdlines(self, bool(self.probe.slots))

    def set_soft_disabled(self, guest: GuestTracingOps, slot: int, off: bool) -> None:
        assert self.probe is not None
        self.probe.set_soft_disabled(slot, off)

    def recording(self, guest: GuestTracingOps, slot: int) -> bool:
        assert self.probe is not None
        return bool(self.probe.file_slots >> slot & 1)

    def set_trigger_bits(self, bits: int) -> bool:
        assert self.probe is not None
        if not self.probe.runs_triggers:
            return False
        self.probe.set_trigger_bits(bits)
        return True


class ProbeEvent:
    """struct trace_probe_event: one group/event and the probes that feed it."""

    def __init__(self, event_id: int, group: str, name: str, fields: Sequence[ArgField], print_fmt: str,
                 printer: RecordPrinter, *, runs_triggers: bool = False):
        """printer: how its records print (the first probe's; appended ones are alike);
        runs_triggers: its records' writers run the event's triggers (kprobe_trace_func()'s
        trace_trigger_soft_disabled(); the guest's probe_trigger_commit())."""
        self.printer = printer
        self.runs_triggers = runs_triggers
        self.probes: list[EventProbe] = []
        # Bit s: trace-array slot s has the event enabled (armed for it).
        self.slots = 0
        # EVENT_FILE_FL_SOFT_DISABLED per slot (a trigger holds the event in soft mode), and
        # EVENT_FILE_FL_TRIGGER_MODE: the guest's trigger bits (already shifted), set by the
        # trigger table
        self.soft_off = 0
        self.trigger_bits = 0
        self._lock = threading.Lock()
        self.trace_event = ProbeTraceEvent(event_id, ProbeEventDesc(group, name, tuple(fields), print_fmt),
                                           probe=self)

    @property
    def id(self) -> int:
        return self.trace_event.id

    @property
    def enabled(self) -> bool:
        """trace_probe_is_enabled()."""
        return bool(self.slots)

    @property
    def file_slots(self) -> int:
        """What its records' writers are given, as a tracepoint's trace_event_file.slots: the
        slots that record it, and above them the slots whose triggers run."""
        return self.slots & ~self.soft_off | self.trigger_bits

    def set_soft_disabled(self, slot: int, off: bool) -> None:
        with self._lock:
            self.soft_off = self.soft_off | (1 << slot) if off else self.soft_off & ~(1 << slot)
            self._write_slots()

    def set_trigger_bits(self, bits: int) -> None:
        with self._lock:
            if bits != self.trigger_bits:
                self.trigger_bits = bits
                self._write_slots()

    def _write_slots(self) -> None:
        for probe in self.probes:
            probe.set_record_slots(self.file_slots)

    def set_slot(self, slot: int, on: bool) -> None:
        """enable_trace_kprobe()/disable_trace_kprobe(): the first slot arms every probe of the
        event, the last one disarms them."""
        with self._lock:
            before = self.slots
            after = before | (1 << slot) if on else before & ~(1 << slot)
            self.slots = after
            try:
                self._write_slots()  # what they record in
                if after and not before:
                    self._arm()
                elif before and not after:
                    for probe in self.probes:
                        probe.disarm()
            except BaseException:
                self.slots = before
                self._write_slots()
                raise

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
        with self._lock:
            if not self.slots:
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
