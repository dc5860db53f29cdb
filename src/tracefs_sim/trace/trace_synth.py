"""Synthetic events (kernel/trace/trace_events_synth.c): events with the fields a user names --
``NAME TYPE FIELD[; TYPE FIELD]...`` in `synthetic_events`, ``s:[synthetic/]NAME ...`` in
`dynamic_events` -- under events/synthetic/, which nothing in the kernel writes until a
histogram's action (onmatch().trace(), onmax(), ...) does, through the emulated kernel's
trace_synth() (kernel/trace_events_synth.c) with the values it computed.

Fields: the numeric types of synth_field_size(), ``char NAME[N]`` (a fixed string of up to
STR_VAR_LEN_MAX bytes, in a slot of that size), ``char NAME[]`` (a dynamic string) and ``long[]``
(a stack).  Every other field takes one u64 slot of the record, as Linux lays it out.  An event
in use (ref: a histogram's action names it) or enabled may not go (EBUSY).
"""

from __future__ import annotations

import errno
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ..lib.kstrtox import kstrtouint, or_none
from ..machine.contract import GuestSynthOps, GuestTracingOps
from .dynevent import DynamicEvents, DynEvent, argv_split
from .events import EventRegistry, TraceEvent
from .print_fmt import print_flags_seq
from .ftrace_records import SymFlags
from .probe_args import ArgField, Symbolizer, is_good_name
from .probe_log import ProbeError, silent_error
from .trace_probe import ProbeEventDesc

SYNTH_SYSTEM = "synthetic"
SYNTH_FIELDS_MAX = 64
STR_VAR_LEN_MAX = 256  # MAX_FILTER_STR_VAL
_LOCATION = "synthetic_events"
ERRORS = {
    "BAD_NAME": "Illegal name",
    "INVALID_CMD": "Command must be of the form: <name> field[;field] ...",
    "INVALID_DYN_CMD": "Command must be of the form: s or -:[synthetic/]<name> field[;field] ...",
    "EVENT_EXISTS": "Event already exists",
    "TOO_MANY_FIELDS": "Too many fields",
    "INCOMPLETE_TYPE": "Incomplete type",
    "INVALID_TYPE": "Invalid type",
    "INVALID_FIELD": "Invalid field",
    "INVALID_ARRAY_SPEC": "Invalid array specification",
}

# synth_field_size() and synth_field_fmt()
_NUMERIC = {
    "s64": (8, "%lld"), "u64": (8, "%llu"), "s32": (4, "%d"), "u32": (4, "%u"), "s16": (2, "%d"),
    "u16": (2, "%u"), "s8": (1, "%d"), "u8": (1, "%u"), "char": (1, "%d"), "unsigned char": (1, "%u"),
    "int": (4, "%d"), "unsigned int": (4, "%u"), "long": (8, "%ld"), "unsigned long": (8, "%lu"),
    "bool": (1, "%d"), "pid_t": (4, "%d"), "gfp_t": (4, "%x"),
}


def _string_size(type_: str) -> int | None:
    """synth_field_string_size(): N of char[N] (0: char[], a dynamic string); None: invalid."""
    start = type_.find("char[")
    if start < 0:
        return None
    start += len("char[")
    end = type_.find("]")
    if end < 0 or end < start or len(type_) > end + 1:
        return None
    text = type_[start:end]
    if len(text) > 3:
        return None
    if not text:
        return 0
    size = or_none(kstrtouint, text, 0)
    if size is None or size > STR_VAR_LEN_MAX:
        return None
    return size


def _field_size(type_: str) -> int | None:
    """synth_field_size(): 0 for an unknown type (and for a dynamic string or a stack), None
    for a bad string size."""
    if type_ in _NUMERIC:
        return _NUMERIC[type_][0]
    if "char[" in type_:
        return _string_size(type_)
    return 0


@dataclass(frozen=True)
class SynthField:
    """struct synth_field."""
    type: str  # as the format file shows it (``__data_loc char[]`` for a dynamic string)
    name: str
    size: int
    is_signed: bool
    is_string: bool
    is_dynamic: bool
    is_stack: bool

    @property
    def shown_type(self) -> str:
        """__synth_event_show(): the type without ``__data_loc``."""
        t = self.type.find("__data_loc")
        return self.type[t + len("__data_loc "):] if t >= 0 else self.type

    @property
    def fmt(self) -> str:
        if self.is_string or self.is_stack:
            return "%s"
        return _NUMERIC.get(self.type, (8, "%llu"))[1]

    @property
    def slots(self) -> int:
        """u64 slots it takes in the record."""
        return STR_VAR_LEN_MAX // 8 if self.is_string and not self.is_dynamic else 1


class SynthError(Exception):
    def __init__(self, code: str, at: str | None, err: int = errno.EINVAL):
        self.code, self.at, self.err = code, at, err


def parse_synth_field(argv: Sequence[str]) -> tuple[SynthField, int]:
    """parse_synth_field(): (the field, words consumed); SynthError (code, the text whose
    first occurrence in the command the caret goes under)."""
    field_type = argv[0]
    prefix = ""
    if field_type == "unsigned":
        if len(argv) < 3:
            raise SynthError("INCOMPLETE_TYPE", field_type)
        prefix, field_type, field_name, consumed = "unsigned ", argv[1], argv[2], 3
    else:
        if len(argv) < 2:
            raise SynthError("INVALID_FIELD", field_type)
        field_name, consumed = argv[1], 2
    bracket = field_name.find("[")
    array = field_name[bracket:] if bracket >= 0 else ""
    name = field_name[:bracket] if bracket >= 0 else field_name
    if not is_good_name(name):
        raise SynthError("BAD_NAME", field_name)
    type_ = prefix + field_type + array
    size = _field_size(type_)
    dynamic = False
    if size is None:
        raise SynthError("INVALID_ARRAY_SPEC" if array else "INVALID_TYPE", field_name if array else field_type)
    if size == 0:
        if "char[" in type_ or "long[" in type_:
            type_ = "__data_loc " + type_
            dynamic, size = True, 8
        else:
            raise SynthError("INVALID_TYPE", field_type)
    is_string = "char[" in type_
    is_stack = not is_string and "long[" in type_
    signed = not (type_.startswith("u") or type_ == "gfp_t")
    return SynthField(type_, name, size, signed, is_string, dynamic, is_stack), consumed


@dataclass(frozen=True, eq=False)
class SynthTraceEvent(TraceEvent):
    """A synthetic event in the EventRegistry: printed by print_synth_event(), enabled by its
    guest entry's slots."""
    synth: SynthEvent | None = field(default=None, compare=False)

    @cached_property
    def body(self) -> Callable[..., bytes]:
        assert self.synth is not None
        synth = self.synth

        def body(payload: bytes, verbose: bool, symbolize: Symbolizer, hash_pointer: object = None,
                 sym_flags: SymFlags | None = None) -> bytes:
            return synth.print_record(payload, verbose, symbolize).encode("utf-8", "surrogateescape")
        return body

    def set_enabled(self, guest: GuestTracingOps, slot: int, on: bool) -> None:
        assert self.synth is not None
        self.synth.set_slot(guest, slot, on)

    def set_soft_disabled(self, guest: GuestTracingOps, slot: int, off: bool) -> None:
        """EVENT_FILE_FL_SOFT_DISABLED: in the guest, where trace_synth() looks at it and an
        enable_event / disable_event trigger flips it."""
        guest.triggers.set_dyn_soft_disabled(self.id, slot, off)

    def recording(self, guest: GuestTracingOps, slot: int) -> bool:
        assert self.synth is not None
        return bool(self.synth.slots >> slot & 1) and not guest.triggers.dyn_soft_disabled(self.id, slot)


class SynthEvent:
    """struct synth_event: an entry of the dynamic event list."""

    def __init__(self, ops: SyntheticEvents, name: str, fields: Sequence[SynthField], event_id: int):
        self.ops = ops
        self.name = name
        self.fields = tuple(fields)
        self.ref = 0  # the histogram actions that name it (synth_event's ref)
        self.slots = 0
        self.guest_index: int | None = None  # its entry in the guest's synth_events
        self.n_u64 = sum(f.slots for f in self.fields)
        self.trace_event = SynthTraceEvent(event_id, ProbeEventDesc(
            SYNTH_SYSTEM, name, tuple(self._define_fields()), self._print_fmt()), synth=self)

    @property
    def id(self) -> int:
        return self.trace_event.id

    def _define_fields(self) -> list[ArgField]:
        """synth_event_define_fields(): each field at its slot; a fixed array's type shows as
        `char NAME[]` (defined with len 0)."""
        out, offset = [], 8
        for f in self.fields:
            type_ = f.type if f.is_dynamic else f.type.split("[", 1)[0] + "[]" if "[" in f.type else f.type
            out.append(ArgField(type_, f.name, offset, f.size, f.is_signed))
            offset += 8 * f.slots
        return out

    def _print_fmt(self) -> str:
        """__set_synth_event_print_fmt()."""
        head = ", ".join(f"{f.name}={f.fmt}" for f in self.fields)
        args = "".join(f", __get_str({f.name})" if f.is_string and f.is_dynamic else
                       f", __get_stacktrace({f.name})" if f.is_stack else f", REC->{f.name}" for f in self.fields)
        return f'"{head}"{args}'

    def show(self) -> str:
        """__synth_event_show()."""
        return self.name + "\t" + "; ".join(f"{f.shown_type} {f.name}" for f in self.fields) + "\n"

    def print_record(self, payload: bytes, verbose: bool, symbolize: Symbolizer) -> str:
        """print_synth_event()."""
        parts = [f"{self.name}: "]
        n = 0
        last = len(self.fields) - 1
        for i, f in enumerate(self.fields):
            at = 8 + 8 * n
            space = "" if i == last else " "
            if verbose:
                parts.append(f.fmt + " ")
            if f.is_string:
                if f.is_dynamic:
                    loc = struct.unpack_from("<I", payload, at)[0]
                    string = bytes(payload[loc & 0xFFFF:]).split(b"\0", 1)[0]
                else:
                    string = bytes(payload[at:at + STR_VAR_LEN_MAX]).split(b"\0", 1)[0]
                parts.append(f"{f.name}={string.decode('utf-8', 'surrogateescape')}{space}")
            elif f.is_stack:
                loc = struct.unpack_from("<I", payload, at)[0]
                offs, length = loc & 0xFFFF, loc >> 16
                parts.append(f"{f.name}=STACK:\n")
                end = offs + length - 7
                while offs < end:
                    addr = struct.unpack_from("<Q", payload, offs)[0]
                    if not addr:
                        break
                    found = symbolize(addr)
                    parts.append(f"=> {found[0]}+{found[1]:#x}/{found[2]:#x}\n" if found else f"=> {addr:#x}\n")
                    offs += 8
            else:
                raw = int.from_bytes(payload[at:at + f.size], "little")
                value = raw
                if f.is_signed and raw >> (8 * f.size - 1):
                    value -= 1 << (8 * f.size)
                if f.fmt in ("%llu", "%lu", "%u"):
                    value = raw
                text = f"{raw:x}" if f.fmt == "%x" else str(value)
                parts.append(f"{f.name}={text}{space}")
                if f.type == "gfp_t":  # " (" trace_print_flags_seq(gfpflag_names) ")"
                    parts.append(f" ({print_flags_seq(raw, self.ops.gfp_flag_names)})")
            n += f.slots
        parts.append("\n")
        return "".join(parts)

    def set_slot(self, guest: GuestTracingOps, slot: int, on: bool) -> None:
        after = self.slots | (1 << slot) if on else self.slots & ~(1 << slot)
        # the slots past word 0 in its type's extension words (OSError ENOMEM: it has none)
        word0 = guest.set_dyn_event_slots(self.id, after)
        self.slots = after
        if self.guest_index is not None:
            self.ops.guest.set_slots(self.guest_index, word0)
        guest.record_cmdlines(self, bool(self.slots))


class SyntheticEvents:
    """synth_event_ops, and the synthetic_events file."""

    def __init__(self, dynamic: DynamicEvents, registry: EventRegistry, guest: GuestSynthOps,
                 gfp_flag_names: Callable[[], Sequence[tuple[int, str]]] = tuple):
        self._dynamic = dynamic
        self._registry = registry
        self.guest = guest
        # the kernel's gfpflag_names, read when a gfp_t field is first printed (not at start:
        # it is some 80 reads of the machine's memory)
        self._gfp_flag_names = gfp_flag_names
        dynamic.register(self)

    @cached_property
    def gfp_flag_names(self) -> Sequence[tuple[int, str]]:
        """The kernel's gfpflag_names: (mask, name)."""
        return self._gfp_flag_names()

    def events(self) -> list[SynthEvent]:
        return [ev for ev in self._dynamic.of(self) if isinstance(ev, SynthEvent)]

    def find(self, name: str) -> SynthEvent | None:
        """find_synth_event()."""
        return next((ev for ev in self.events() if ev.name == name), None)

    # ---- the synthetic_events file ----
    def read(self) -> bytes:
        with self._dynamic.lock:
            return "".join(ev.show() for ev in self.events()).encode("latin-1")

    def write(self, data: bytes) -> None:
        self._dynamic.run(data, self._create_or_delete)

    def truncate(self) -> None:
        self._dynamic.release_all(self)

    def _create_or_delete(self, raw: str) -> None:
        """create_or_delete_synth_event()."""
        command = raw.lstrip(" \t\n\v\f\r")
        if not command:
            return
        self._check_command(command, command)
        cut = _first_space(command)
        if cut < 0 and command[0] != "!":
            raise self._error("INVALID_CMD", command, None)
        name = command if cut < 0 else command[:cut]
        if name[0] == "!":
            self._delete(name[1:])
            return
        self._create(command, name, command[cut:].lstrip(" \t\n\v\f\r"))

    def _delete(self, name: str) -> None:
        """synth_event_delete()."""
        ev = self.find(name)
        if ev is None:
            raise ProbeError(errno.ENOENT)
        self.free(ev)

    # ---- dyn_event_operations ----
    def create(self, command: str) -> None:
        """create_synth_event(): ``s:[synthetic/]NAME FIELDS``."""
        raw = command.lstrip(" \t\n\v\f\r")
        if not raw:
            return
        if raw[:2] != "s:":
            raise ProbeError(errno.ECANCELED)
        name_at = 2
        cut = _first_space(raw)
        if cut < 0:
            raise self._error("INVALID_CMD", raw, None)
        if "/" in raw[name_at:]:
            if not raw[name_at:].startswith(SYNTH_SYSTEM + "/"):
                raise self._error("INVALID_DYN_CMD", raw, None)
            name_at += len(SYNTH_SYSTEM) + 1
        self._check_command(raw, raw[name_at:])
        self._create(raw, raw[name_at:cut], raw[cut:].lstrip(" \t\n\v\f\r"))

    def show(self, ev: DynEvent) -> str:
        assert isinstance(ev, SynthEvent)
        return f"s:{SYNTH_SYSTEM}/" + ev.show()

    def is_busy(self, ev: DynEvent) -> bool:
        assert isinstance(ev, SynthEvent)
        return ev.ref != 0

    def free(self, ev: DynEvent) -> None:
        """synth_event_release(): not while a histogram's action names it or it is enabled."""
        assert isinstance(ev, SynthEvent)
        if ev.ref or ev.slots:
            raise ProbeError(errno.EBUSY)
        self._dynamic.remove(ev)
        self._registry.remove_dynamic(ev.trace_event)
        if ev.guest_index is not None:
            self.guest.remove(ev.guest_index)

    def match(self, system: str | None, event: str, argv: Sequence[str], ev: DynEvent) -> bool:
        assert isinstance(ev, SynthEvent)
        return ev.name == event and (system is None or system == SYNTH_SYSTEM)

    # ---- __create_synth_event() ----
    def _error(self, code: str, command: str, at: str | None, err: int = errno.EINVAL) -> ProbeError:
        """synth_err(): logged under the command, the caret at the first occurrence of `at`."""
        pos = command.find(at) if at else 0
        return ProbeError(err, ERRORS[code], command, max(pos, 0), _LOCATION)

    def _check_command(self, command: str, rest: str) -> None:
        """check_command(): the name and the first field's two words, or a '!' removal."""
        first = rest.split(";", 1)[0]
        if first[:1] == "!":
            return
        if len(argv_split(first)) < 3:
            raise self._error("INVALID_CMD", command, None)

    def _create(self, command: str, name: str, raw_fields: str) -> None:
        if not name:
            raise self._error("INVALID_CMD", command, None)
        if not is_good_name(name):
            raise self._error("BAD_NAME", command, name)
        if self.find(name) is not None:
            raise self._error("EVENT_EXISTS", command, name, errno.EEXIST)
        fields: list[SynthField] = []
        version = 1
        for field_str in raw_fields.split(";"):
            argv = argv_split(field_str)
            if not argv:
                continue
            consumed = 0
            this_loop = 0
            while len(argv) > consumed:
                try:
                    f, used = parse_synth_field(argv[consumed:])
                except SynthError as e:
                    raise self._error(e.code, command, e.at, e.err) from None
                consumed += used
                if version > 1 and this_loop >= 1:
                    raise self._error("INVALID_CMD", command, field_str)
                if len(fields) == SYNTH_FIELDS_MAX:
                    raise self._error("TOO_MANY_FIELDS", command, None)
                fields.append(f)
                this_loop += 1
        if not fields:
            raise self._error("INVALID_CMD", command, None)
        if self._registry.get(SYNTH_SYSTEM, name) is not None:
            raise silent_error(errno.EEXIST)
        ev = SynthEvent(self, name, fields, self._registry.alloc_event_id())
        ev.guest_index = self.guest.add(ev.id, [(f.size, _kind(f)) for f in ev.fields], ev.n_u64)
        self._dynamic.add(ev)
        self._registry.add_dynamic(ev.trace_event)


def _kind(f: SynthField) -> int:
    """The guest's field kind (include/trace/synth.h)."""
    if f.is_stack:
        return 3
    if f.is_string:
        return 2 if f.is_dynamic else 1
    return 0


def _first_space(text: str) -> int:
    """strpbrk(text, " \\t")."""
    found = [i for i in (text.find(" "), text.find("\t")) if i >= 0]
    return min(found) if found else -1
