"""Event probes (kernel/trace/trace_eprobe.c): the dynamic-event kind that `e` commands create --
``e[:[GRP/][EVENT]] SYSTEM.EVENT [FETCHARGS] [if FILTER]`` -- an event of its own (group
``eprobes`` unless named) whose record is fetched from the record of the event it is attached
to, as that event fires.

As in Linux an eprobe works through the attached event's triggers: enabling it in a trace
array puts the attached event of that array in soft mode (its tracepoint armed, recording only
if enabled itself) and adds a trigger on it (machine.event_triggers), which the emulated kernel
runs as the event fires: it reads the fields the fetch arguments name from the event's record
and writes the eprobe's record (kernel/trace_probe.c eprobe_trigger_func: no Python per event).
The fetch arguments are probe_args' with the TPOINT flag: ``$FIELD`` (or ``$comm``), ``+OFFS(...)``
dereferences of them, types and ``:string``; no registers.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..machine.contract import GuestTrigger, GuestTriggerPred
from ..probes.kprobes import KprobeEngine
from ..probes.kprobes.guest import FIELD_DYN_STRING, FIELD_PTR_STRING, FIELD_SIGNED, FIELD_STATIC_STRING
from ..probes.kprobes.point import GuestProbe
from .dynevent import DynamicEvents, DynEvent, argv_split
from .event_control import EventControl, EventFile
from .events import EventRegistry, TraceEvent
from .fields import FieldLike
from .filter import (
    ERROR_LOG_LOCATION, FILTER_DYN_STRING, FILTER_PTR_STRING, FILTER_STATIC_STRING, FilterParseError,
    filter_assign_type, parse_event_filter,
)
from .ftrace_records import SymFlags
from .kernel_symbols import ImageSymbols
from .probe_args import (
    MAX_TRACE_ARGS, ArgField, ArgFlags, FetchInsn, ProbeArg, Symbolizer, arg_fields, decode_args, format_args, parse_probe_arg,
    print_fmt,
)
from .probe_guest import compile_args
from .probe_log import ProbeError, ProbeLog
from .trace_probe import ProbeEvent, ProbeTraceEvent, match_command_args, parse_event_name
from .trigger import TriggerTable, guest_program

EPROBE_EVENT_SYSTEM = "eprobes"
_LOCATION = "event_probe"
_HEAD_SIZE = 8  # struct eprobe_trace_entry_head: the common fields only


_STRING_KINDS = {FILTER_DYN_STRING: FIELD_DYN_STRING, FILTER_STATIC_STRING: FIELD_STATIC_STRING,
                 FILTER_PTR_STRING: FIELD_PTR_STRING}


def _field_kind(field: FieldLike) -> int:
    """What get_event_field() reads a field as, in the guest's LOAD_FIELD terms: a string
    kind, or the size and sign of a number."""
    kind = _STRING_KINDS.get(filter_assign_type(field.type))
    if kind is not None:
        return kind
    size = field.size if field.size in (1, 2, 4) else 8
    return size | (FIELD_SIGNED if field.is_signed else 0)


@dataclass(frozen=True)
class EprobeSpec:
    """A parsed eprobe: its event, the event it is attached to, its arguments (their tp_arg
    loads resolved to the attached event's fields) and its filter on the attached event (not
    shown in dynamic_events, as 6.1)."""
    group: str
    event: str
    system: str  # the attached event's
    attached: str
    args: tuple[ProbeArg, ...]
    filter_text: str | None

    def command_text(self) -> str:
        """eprobe_dyn_event_show(): the filter is not shown."""
        words = [f"e:{self.group}/{self.event}", f"{self.system}.{self.attached}"]
        words += [f"{a.name}={a.comm}" for a in self.args]
        return " ".join(words) + "\n"

    def format(self) -> tuple[list[ArgField], str]:
        """(fields, print fmt): the arguments after the common fields; PROBE_PRINT_EVENT."""
        return arg_fields(self.args, _HEAD_SIZE), print_fmt(self.args, "", "")

    def print_record(self, payload: bytes, symbolize: Symbolizer, sym_flags: SymFlags) -> str:
        """print_eprobe_event(): `NAME: (SYSTEM.EVENT) args`."""
        values = decode_args(self.args, payload, _HEAD_SIZE)
        return f"{self.event}: ({self.system}.{self.attached}){format_args(self.args, values, symbolize)}\n"


def _resolve_field(arg: ProbeArg, event: TraceEvent) -> ProbeArg | None:
    """trace_eprobe_tp_arg_update(): the tp_arg load of the attached event's field, or of
    current->comm for $comm/$COMM when the event has no such field; None: neither."""
    name = arg.code[0].data
    for f in event.desc.fields:
        if f.name == name:
            first = FetchInsn("tp_arg", param=f.offset, immediate=_field_kind(f), data=name)
            break
    else:
        if name not in ("comm", "COMM"):
            return None
        first = FetchInsn("comm")
    return replace(arg, code=(first, *arg.code[1:]))


class TraceEprobe:
    """struct trace_eprobe: an entry of the dynamic event list, and the one probe of its
    event (trace_probe.EventProbe: enabling it in a slot attaches it there)."""

    def __init__(self, ops: EprobeEventOps, spec: EprobeSpec, target: TraceEvent, event: ProbeEvent,
                 program: GuestProbe, preds: tuple[GuestTriggerPred, ...] = ()):
        self.ops = ops
        self.spec = spec
        self.target = target  # the attached event
        self.event = event
        self.program = program  # its record program in the guest's tables
        self.preds = preds  # its filter on the attached event, as the guest runs it
        self._attached: dict[int, tuple[EventFile, GuestTrigger]] = {}  # slot -> (file, guest trigger)

    # ---- trace_probe.EventProbe ----
    def set_record_slots(self, slots: int) -> None:
        """enable_eprobe()/disable_eprobe() in each slot that comes or goes (slots: its event's
        file word, ProbeEvent.file_slots; the slots that have it enabled are its event's)."""
        ops = self.ops
        enabled = _bits(self.event.slots)
        for slot in sorted(set(self._attached) - enabled):
            f, trigger = self._attached.pop(slot)
            ops.triggers.remove_probe(trigger)
            ops.event_control(slot).soft_release(f)
        ops.engine.set_program_slots(self.program, slots)
        for slot in sorted(enabled - set(self._attached)):
            control = ops.event_control(slot)
            try:
                f = control.find_file(self.target.system, self.target.name)
            except OSError:
                raise OSError(errno.ENOENT, "the attached event is not in this trace array") from None
            control.soft_enable(f)
            # new_eprobe_trigger(): EVENT_CMD_FL_NEEDS_REC, its filter on the attached record
            trigger = GuestTrigger(self.target.desc, self.target.id, "eprobe", slot, preds=self.preds, cond=True,
                                   data=self.program.index)
            try:
                ops.triggers.add_probe(trigger)
            except OSError:
                control.soft_release(f)
                raise
            self._attached[slot] = (f, trigger)

    def arm(self) -> None:
        pass  # attached per slot, above

    def disarm(self) -> None:
        pass


def _bits(mask: int) -> set[int]:
    return {i for i in range(mask.bit_length()) if mask >> i & 1}


class EprobeEventOps:
    """eprobe_dyn_event_ops: the `e` commands of dynamic_events."""

    def __init__(self, dynamic: DynamicEvents, registry: EventRegistry, symbols: ImageSymbols,
                 engine: KprobeEngine, triggers: TriggerTable,
                 event_control: Callable[[int], EventControl], log_error: Callable[[str, str, bytes, int], None]):
        """event_control(slot): that trace array's events; log_error: the top-level
        error_log's log() (a bad filter is logged there as the filter parser does)."""
        self._dynamic = dynamic
        self._registry = registry
        self._symbols = symbols
        self.engine = engine
        self.triggers = triggers
        self.event_control = event_control
        self._log_error = log_error
        dynamic.register(self)

    def probes(self) -> list[TraceEprobe]:
        return [ev for ev in self._dynamic.of(self) if isinstance(ev, TraceEprobe)]

    # ---- dyn_event_operations ----
    def create(self, command: str) -> None:
        """__trace_eprobe_create()."""
        argv = argv_split(command)
        if len(argv) < 2 or argv[0][0] != "e":
            raise ProbeError(errno.ECANCELED)
        log = ProbeLog(argv, _LOCATION)
        group, event = EPROBE_EVENT_SYSTEM, None
        colon = argv[0].find(":", 1)
        if colon >= 0:
            g, event = parse_event_name(argv[0][colon + 1:], colon + 1, log)
            group = g or group
        log.index = 1
        try:
            sys_name, sys_event = parse_event_name(argv[1], 0, log)
        except ProbeError as e:
            raise log.error(0, "NO_EVENT_INFO").after(e) from None
        if sys_name is None or sys_event is None:
            raise log.error(0, "NO_EVENT_INFO")
        if event is None:
            event = sys_event
        words = argv[2:]
        filter_words: list[str] | None = None
        if "if" in words:
            at = words.index("if")
            filter_words, words = words[at + 1:], words[:at]
        target = self._find_event(sys_name, sys_event)
        if target is None:
            raise log.error(0, "BAD_ATTACH_EVENT", errno.ENODEV)
        filter_text = None
        compiled = None
        if filter_words is not None:
            log.index = 2 + len(words) + 1
            if not filter_words:
                raise log.error(0, "NO_EP_FILTER")
            filter_text = " ".join(filter_words)
            try:
                compiled = parse_event_filter(filter_text, target.desc.fields)
            except FilterParseError as e:
                if e.message is not None:
                    self._log_error(ERROR_LOG_LOCATION, e.error_log_message, e.text, e.error_log_pos)
                raise ProbeError(e.errno) from None
        args: list[ProbeArg] = []
        size = 0
        for i, text in enumerate(words[:MAX_TRACE_ARGS]):
            log.index = i + 2
            arg = parse_probe_arg(text, i, args, size, ArgFlags.KERNEL | ArgFlags.TPOINT, log)
            if arg.code[0].op == "tp_arg":
                resolved = _resolve_field(arg, target)
                if resolved is None:
                    raise log.error(0, "BAD_ATTACH_ARG", errno.ENOENT)
                arg = resolved
            if arg.type.name == "symstr":
                raise log.error(len(text) - len(arg.type.name), "BAD_TYPE")  # not in the guest's fetch
            done = arg.resolve(self._symbols.lookup)
            if isinstance(done, int):
                raise ProbeError(-done)
            args.append(done)
            size += done.size
        spec = EprobeSpec(group, event, sys_name, sys_event, tuple(args), filter_text)
        if self._registry.get(group, event) is not None:
            log.index = 0
            raise log.error(0, "EVENT_EXIST", errno.EEXIST)
        self._register(spec, target, guest_program(compiled))

    def show(self, ev: DynEvent) -> str:
        assert isinstance(ev, TraceEprobe)
        return ev.spec.command_text()

    def is_busy(self, ev: DynEvent) -> bool:
        assert isinstance(ev, TraceEprobe)
        return ev.event.enabled

    def free(self, ev: DynEvent) -> None:
        """unregister_trace_eprobe(): not while its event is enabled (EBUSY)."""
        assert isinstance(ev, TraceEprobe)
        if ev.event.enabled:
            raise ProbeError(errno.EBUSY)
        self._dynamic.remove(ev)
        ev.event.unlink(ev, self._registry)
        self.engine.remove_program(ev.program)

    def match(self, system: str | None, event: str, argv: Sequence[str], ev: DynEvent) -> bool:
        """eprobe_dyn_event_match(): the name, then the attached SYSTEM/EVENT (or SYSTEM.EVENT),
        then the arguments."""
        assert isinstance(ev, TraceEprobe)
        spec = ev.spec
        if system is not None and spec.group != system:
            return False
        if event and spec.event != event:
            return False
        if not argv:
            return True
        slash = argv[0].find("/")
        if slash < 0:
            slash = argv[0].find(".")
        if slash < 0 or argv[0][:slash] != spec.system or argv[0][slash + 1:] != spec.attached:
            return False
        return match_command_args(spec.args, argv[1:])

    # ---- registration ----
    def _find_event(self, system: str, name: str) -> TraceEvent | None:
        """find_and_get_event(): a tracepoint (ftrace's own records and probe events are not)."""
        ev = self._registry.get(system, name)
        if ev is None or ev.ftrace or isinstance(ev, ProbeTraceEvent):
            return None
        return ev

    def _register(self, spec: EprobeSpec, target: TraceEvent, preds: tuple[GuestTriggerPred, ...]) -> None:
        fields, fmt = spec.format()
        event_id = self._registry.alloc_event_id()
        program = self.engine.add_program(compile_args(event_id, spec.args))
        if program is None:
            raise ProbeError(errno.ENOMEM)
        event = ProbeEvent(event_id, spec.group, spec.event, fields, fmt, spec)
        ep = TraceEprobe(self, spec, target, event, program, preds)
        self._dynamic.add(ep)
        event.append(ep, self._registry)
