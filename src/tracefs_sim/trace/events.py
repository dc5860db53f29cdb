"""The trace event registry: ids and `format` files of the tracepoints compiled into the kernel
(trace_events.c, trace_output.c).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

# Event types below this number are ftrace's own record types (enum trace_type in trace.h:
# function, print, graph entry/exit, ...); registered events get ids from here on, in
# registration order, as register_trace_event() hands out next_event_type++.
FIRST_EVENT_ID = 20


class FieldLike(Protocol):
    type: str
    name: str
    offset: int
    size: int
    is_signed: bool


class EventLike(Protocol):
    system: str
    name: str
    fields: tuple[FieldLike, ...]
    print_fmt: str


@dataclass(frozen=True)
class CommonField:
    type: str
    name: str
    offset: int
    size: int
    is_signed: bool


# struct trace_entry, the 8 bytes every record starts with.
COMMON_FIELDS = (
    CommonField("unsigned short", "common_type", 0, 2, False),
    CommonField("unsigned char", "common_flags", 2, 1, False),
    CommonField("unsigned char", "common_preempt_count", 3, 1, False),
    CommonField("int", "common_pid", 4, 4, True),
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
class TraceEvent:
    id: int
    desc: EventLike

    @property
    def name(self) -> str:
        return self.desc.name

    def format_text(self) -> str:
        """The text of events/<system>/<event>/format."""
        lines = [f"name: {self.name}\n", f"ID: {self.id}\n", "format:\n"]
        lines += [_field_line(field) for field in COMMON_FIELDS]
        lines.append("\n")
        lines += [_field_line(field) for field in self.desc.fields]
        lines.append(f"\nprint fmt: {self.desc.print_fmt}\n")
        return "".join(lines)

    def id_text(self) -> str:
        return f"{self.id}\n"


class EventRegistry:
    """All trace events, by system and name, with ids assigned in registration order."""

    def __init__(self, events: Iterable[EventLike]):
        self._systems: dict[str, dict[str, TraceEvent]] = {}
        for event_id, desc in enumerate(events, start=FIRST_EVENT_ID):
            system = self._systems.setdefault(desc.system, {})
            if desc.name in system:
                raise ValueError(f"event {desc.system}/{desc.name} registered twice")
            system[desc.name] = TraceEvent(event_id, desc)

    def systems(self) -> list[str]:
        return sorted(self._systems)

    def events(self, system: str) -> list[TraceEvent]:
        return [self._systems[system][name] for name in sorted(self._systems[system])]

    def get(self, system: str, name: str) -> TraceEvent | None:
        return self._systems.get(system, {}).get(name)
