"""The trace event registry: ids and `format` files of the tracepoints compiled into the kernel
(trace_events.c, trace_output.c).
"""

import errno
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from ..machine.contract import GuestTracingOps
from .fields import FieldLike, RecordField
from .ftrace_records import FTRACE_RECORDS, TRACE_FN, TRACE_FUNC_REPEATS, TRACE_RAW_DATA, FtraceRecordDesc, SymFlags
from .print_fmt import PointerHash, PrintFmt, Symbolizer, compile_print_fmt
from .records import Payload, Record, RecordDecoder, int_field

# Event types below this number are ftrace's own record types (enum trace_type in trace.h:
# function, print, graph entry/exit, ...); registered events get ids from here on, in
# registration order, as register_trace_event() hands out next_event_type++.
FIRST_EVENT_ID = 20
# The largest event type common_type can hold.
TRACE_EVENT_TYPE_MAX = (1 << 16) - 1


class EventLike(Protocol):
    """An event description: a tracepoint's (machine.EventDesc), ftrace's own records', a
    dynamic event's."""

    @property
    def system(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def fields(self) -> tuple[FieldLike, ...]: ...
    @property
    def print_fmt(self) -> str: ...


# struct trace_entry, the 8 bytes every record starts with.
COMMON_FIELDS = (
    RecordField("unsigned short", "common_type", 0, 2, False),
    RecordField("unsigned char", "common_flags", 2, 1, False),
    RecordField("unsigned char", "common_preempt_count", 3, 1, False),
    RecordField("int", "common_pid", 4, 4, True),
)


def _field_line(field: FieldLike) -> str:
    """One `field:` line as f_show() prints it: an array type `char[16]` is shown after the
    name (`char comm[16]`), except for dynamic arrays (`__data_loc char[] name`)."""
    bracket = field.type.find("[")
    tail = f"\toffset:{field.offset};\tsize:{field.size};\tsigned:{int(bool(field.is_signed))};\n"
    if bracket < 0 or field.type.startswith("__data_loc"):
        return f"\tfield:{field.type} {field.name};{tail}"
    return f"\tfield:{field.type[:bracket]} {field.name}{field.type[bracket:]};{tail}"


@dataclass(frozen=True)
class _FtraceEventDesc:
    system: str
    name: str
    fields: tuple[FieldLike, ...]
    print_fmt: str


# TRACE_PRINT: the record trace_marker writes (struct print_entry { ip; buf[] }).
TRACE_PRINT = 5
PRINT_DESC = _FtraceEventDesc("ftrace", "print", (
    RecordField("unsigned long", "ip", 8, 8, False),
    RecordField("char[]", "buf", 16, 0, True),
), '"%ps: %s", (void *)REC->ip, REC->buf')
# The function the marker's ip names: the trace core's own writer (host code, no guest address).
MARKER_WRITER = b"tracing_mark_write"


# The function record's text with the default trace_flags (print-parent, no sym-offset/addr).
_DEFAULT_SYM = SymFlags()


def print_message(payload: Payload) -> bytes:
    """TRACE_PRINT's buf, ending in its newline (trace_print_printk_msg_only())."""
    text = bytes(payload[16:]).split(b"\0", 1)[0]
    return text + (b"" if text.endswith(b"\n") else b"\n")


def _print_body(payload: Payload, verbose: bool, symbolize: Symbolizer, hash_pointer: PointerHash | None = None,
                sym_flags: SymFlags | None = None) -> bytes:
    """TRACE_PRINT: seq_print_ip_sym(ip) + ": " + buf (trace_print_print)."""
    return MARKER_WRITER + b": " + print_message(payload)


@dataclass(frozen=True)
class TraceEvent:
    id: int
    desc: EventLike
    ftrace: bool = False    # one of ftrace's own record types: format and id only, never enabled
    # the kernel's constant strings a `%s` of a pointer field prints (tracepoint_string())
    kernel_strings: Mapping[int, str] = field(default_factory=dict, compare=False)
    # the kernel's variables a print fmt reads when it prints, by name (jiffies)
    kernel_variables: Mapping[str, Callable[[], int]] = field(default_factory=dict, compare=False)

    @property
    def name(self) -> str:
        return self.desc.name

    @property
    def system(self) -> str:
        return self.desc.system

    @cached_property
    def decoder(self) -> RecordDecoder:
        return RecordDecoder((*COMMON_FIELDS, *self.desc.fields))

    @cached_property
    def print_fmt(self) -> PrintFmt:
        # the kernel's enum constants the format names (tracepoints of the image only)
        names = dict(getattr(self.desc, "print_names", ()))
        return compile_print_fmt(self.desc.print_fmt, self.desc.fields, names, self.kernel_strings,
                                 self.kernel_variables)

    @cached_property
    def body(self) -> Callable[..., bytes]:
        """The event's printer, built once: body(payload, verbose, symbolize, hash_pointer=None,
        sym_flags=None) gives what follows the context on a record's line, newline included
        (sym_flags: the sym-offset/sym-addr options, for the printers that look at them)."""
        if self.ftrace:
            if self.id == TRACE_PRINT:
                return _print_body
            desc = self.desc
            assert isinstance(desc, FtraceRecordDesc)  # (ftrace's records but TRACE_PRINT)
            line = desc.line
            return lambda payload, verbose, symbolize, hash_pointer=None, sym_flags=None: line(payload, symbolize,
                                                                                              _DEFAULT_SYM)
        decode = self.decoder.decode
        if self.system == "syscalls":
            return lambda payload, verbose, symbolize, hash_pointer=None, sym_flags=None: self._syscall_body(
                decode(payload), verbose)
        print_fmt = self.print_fmt.function
        head = self.name.encode() + b": "

        def body(payload: Payload, verbose: bool, symbolize: Symbolizer, hash_pointer: PointerHash | None = None,
                 sym_flags: SymFlags | None = None) -> bytes:
            text: str = print_fmt(decode(payload), symbolize, hash_pointer)
            return head + text.encode("utf-8", "surrogateescape") + b"\n"

        return body

    def _syscall_body(self, record: Record, verbose: bool) -> bytes:
        """print_syscall_enter/exit: `sys_NAME(arg: hex, ...)` and `sys_NAME -> 0xRET`, from
        the syscall metadata rather than the print fmt."""
        kind, _, call = self.name.partition("_")[2].partition("_")
        name = f"sys_{call}".encode()
        if kind == "exit":
            return b"%s -> 0x%x\n" % (name, int_field(record, "ret") & 0xFFFFFFFFFFFFFFFF)
        args = [f for f in self.desc.fields if f.name != "__syscall_nr"]
        parts = []
        for field in args:
            type_ = (field.type.encode() + b" ") if verbose else b""
            parts.append(b"%s%s: %x" % (type_, field.name.encode(), int_field(record, field.name) & 0xFFFFFFFFFFFFFFFF))
        return name + b"(" + b", ".join(parts) + b")\n"

    def raw_body(self, payload: Payload) -> bytes:
        """The raw option's text: the print record's own (trace_print_raw), `type: N` for every
        other event, whose raw output is trace_nop_print."""
        if self.id in (TRACE_FN, TRACE_FUNC_REPEATS, TRACE_RAW_DATA) and isinstance(self.desc, FtraceRecordDesc):
            return self.desc.raw_line(payload)
        if self.id == TRACE_PRINT:
            text = bytes(payload[16:]).split(b"\0", 1)[0]
            ip = int.from_bytes(payload[8:16], "little")
            return b"# %x %s" % (ip, text) + (b"" if text.endswith(b"\n") else b"\n")
        return b"type: %d\n" % self.id

    def format_text(self) -> str:
        """The text of events/<system>/<event>/format (every trace array's: made once)."""
        return self._format_text

    @cached_property
    def _format_text(self) -> str:
        lines = [f"name: {self.name}\n", f"ID: {self.id}\n", "format:\n"]
        lines += [_field_line(field) for field in COMMON_FIELDS]
        lines.append("\n")
        lines += [_field_line(field) for field in self.desc.fields]
        lines.append(f"\nprint fmt: {self.desc.print_fmt}\n")
        return "".join(lines)

    def id_text(self) -> str:
        return f"{self.id}\n"

    def set_enabled(self, guest: GuestTracingOps, slot: int, on: bool) -> None:
        """Record this event into trace-array `slot` or stop (a tracepoint: its enable bits and
        static key in the guest; dynamic events arm their own probes)."""
        guest.enable_event(self.desc, slot, on)

    def set_soft_disabled(self, guest: GuestTracingOps, slot: int, off: bool) -> None:
        """EVENT_FILE_FL_SOFT_DISABLED of the event enabled in `slot`: armed, not recording."""
        guest.set_event_soft_disabled(self.desc, slot, off)

    def recording(self, guest: GuestTracingOps, slot: int) -> bool:
        """Whether the event records in `slot` now (an event in soft mode may not; function
        probes and triggers flip that in the guest)."""
        return guest.event_recording(self.desc, slot)

    def set_trigger_bits(self, bits: int) -> bool:
        """EVENT_FILE_FL_TRIGGER_MODE of an event that keeps its own (a probe event); False:
        the guest's trigger table sets this event's (tracepoints, synthetic events)."""
        return False


class EventListener(Protocol):
    """Told when a dynamic event comes and goes (trace arrays' event files, the fs tree)."""

    def event_added(self, event: TraceEvent) -> None: ...
    def event_removed(self, event: TraceEvent) -> None: ...


class EventRegistry:
    """All trace events, by system and name, with ids assigned in registration order."""

    def __init__(self, events: Iterable[EventLike], kernel_strings: Mapping[int, str] | None = None,
                 kernel_variables: Mapping[str, Callable[[], int]] | None = None):
        """kernel_strings: the kernel's tracepoint_string()s, address -> text (printk_formats
        lists them; events that record one by address print it); kernel_variables: the
        kernel's variables print fmts read when they print, each by a function giving its
        value now."""
        # told of each dynamic event after it appears and once it is gone, in this order
        self.listeners: list[EventListener] = []
        self._systems: dict[str, dict[str, TraceEvent]] = {}
        self._by_id: dict[int, TraceEvent] = {}
        self.kernel_strings = dict(kernel_strings or {})
        builtin = [TraceEvent(TRACE_PRINT, PRINT_DESC, ftrace=True),
                   *(TraceEvent(event_id, desc, ftrace=True) for event_id, desc in FTRACE_RECORDS.items()),
                   *(TraceEvent(event_id, desc, kernel_strings=self.kernel_strings,
                                kernel_variables=dict(kernel_variables or {}))
                     for event_id, desc in enumerate(events, start=FIRST_EVENT_ID))]
        for event in builtin:   # in place: nobody reads the registry yet
            self._systems.setdefault(event.system, {})
            self._check_new(self._systems[event.system], event)
            self._systems[event.system][event.name] = event
            self._by_id[event.id] = event
        self._next_id = max(FIRST_EVENT_ID, max(self._by_id) + 1)
        self._builtin = frozenset(self._by_id.values())

    def is_builtin(self, event: TraceEvent) -> bool:
        """Whether the event was there from boot (it never goes away), not a dynamic one."""
        return event in self._builtin

    @staticmethod
    def _check_new(system: dict[str, TraceEvent], event: TraceEvent) -> None:
        if event.name in system:
            raise ValueError(f"event {event.system}/{event.name} registered twice")

    def _add(self, event: TraceEvent, *, first: bool = False) -> None:
        # Copies, not updates in place: readers (the drain, set_event) iterate without a lock
        # while dynamic events come and go.
        system = dict(self._systems.get(event.system, {}))
        self._check_new(system, event)
        system[event.name] = event
        self._systems = {**self._systems, event.system: system}
        self._by_id = {event.id: event, **self._by_id} if first else {**self._by_id, event.id: event}

    def alloc_event_id(self) -> int:
        """register_trace_event()'s next_event_type++: an id for a dynamic event.  Ids are not
        given back (an event removed, or one whose registration failed after taking its id,
        leaves a gap) until they run out at TRACE_EVENT_TYPE_MAX; then the first gap is used."""
        if self._next_id <= TRACE_EVENT_TYPE_MAX:
            self._next_id += 1
            return self._next_id - 1
        free = next((i for i in range(FIRST_EVENT_ID, TRACE_EVENT_TYPE_MAX + 1) if i not in self._by_id), None)
        if free is None:
            raise OSError(errno.ENODEV, "no free event type")
        return free

    def add_dynamic(self, event: TraceEvent) -> None:
        """trace_add_event_call(): a dynamic event (kprobe, ...) appears; its id comes from
        alloc_event_id().  It goes to the head of the list (list_add): available_events and
        set_event show dynamic events first, newest first; every listener is told."""
        self._add(event, first=True)
        for listener in list(self.listeners):
            listener.event_added(event)

    def remove_dynamic(self, event: TraceEvent) -> None:
        """trace_remove_event_call(): the event is gone; every listener is told."""
        system = {k: v for k, v in self._systems[event.system].items() if k != event.name}
        systems = dict(self._systems)
        if system:
            systems[event.system] = system
        else:
            del systems[event.system]
        self._systems = systems
        self._by_id = {k: v for k, v in self._by_id.items() if k != event.id}
        for listener in list(self.listeners):
            listener.event_removed(event)

    def printk_formats(self) -> bytes:
        """printk_formats (trace_printk.c's t_show()): each tracepoint string's address and
        text, quoted, its newlines, tabs and quotes escaped (this kernel has no trace_printk
        formats, which come first in Linux)."""
        escape = str.maketrans({"\n": "\\n", "\t": "\\t", '"': '\\"'})
        return "".join(f'0x{addr:x} : "{text.translate(escape)}"\n'
                       for addr, text in self.kernel_strings.items() if text).encode("utf-8", "surrogateescape")

    def by_id(self, event_id: int) -> TraceEvent | None:
        return self._by_id.get(event_id)

    def all_events(self) -> list[TraceEvent]:
        """Every event that can be enabled, in registration order (the order of set_event)."""
        return [e for e in self._by_id.values() if not e.ftrace]

    def systems(self) -> list[str]:
        return sorted(self._systems)

    def events(self, system: str) -> list[TraceEvent]:
        return [self._systems[system][name] for name in sorted(self._systems[system])]

    def get(self, system: str, name: str) -> TraceEvent | None:
        return self._systems.get(system, {}).get(name)
