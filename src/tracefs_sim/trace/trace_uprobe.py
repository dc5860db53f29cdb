"""Uprobe events (kernel/trace/trace_uprobe.c): the dynamic-event kind that ``p``/``r``
commands on a ``PATH:OFFSET`` create -- its entry in dynevent's table (UprobeEventOps: create,
show, is_busy, free, match), the probes it hands the uprobe engine (TraceUprobe), and its own
files: uprobe_events (its part of the dynamic event list) and uprobe_profile.

Parsing is uprobe_spec's.  As in Linux, nothing touches a process when a uprobe event is
created: the engine is asked for the inode+offset when the event is first enabled
(probe_event_enable() -> uprobe_register()), and gives it back when the last slot disables it.
Its hits become records: the engine calls the handler with a hit, the handler fetches the
arguments (from the task's registers and user memory) and stages ``vaddr [ret] args...``
for the slots that have the event enabled.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Sequence
from typing import Protocol

from ..probes.uprobes import UprobeHit
from .dynevent import DynamicEvents, DynEvent
from .events import EventRegistry
from .probe_log import ProbeError, silent_error
from .probe_record import record_body
from .trace_probe import ProbeEvent
from .uprobe_spec import (
    PathInfo,
    PathLookup,
    UprobeSpec,
    create_uprobe,
    ref_ctr_conflict,
)


class UprobeHandle(Protocol):
    """What the engine gives back for a registered consumer (a uprobe_consumer)."""

    @property
    def nhit(self) -> int: ...
    def unregister(self) -> None: ...


class UprobeEngine(Protocol):
    """uprobe_register()/uprobe_unregister() of kernel/events/uprobes.c, as the probes layer
    implements them."""

    def register(self, path: str, inode: tuple[int, int], size: int, offset: int, ref_ctr_offset: int, *,
                 is_return: bool, on_hit: Callable[[UprobeHit], None]) -> UprobeHandle:
        """A consumer of the uprobe at inode+offset of the file at path (is_return: a
        uretprobe: on_hit runs at the function's return); OSError with uprobe_register()'s
        errno."""
        ...


def host_path(path: str) -> PathInfo:
    """kern_path(PATH, LOOKUP_FOLLOW) in the emulated kernel's view of files: the host's
    filesystem (hostfs), a relative path taken from the root."""
    st = os.stat(os.path.join("/", path))
    return PathInfo((st.st_dev, st.st_ino), st.st_size, (st.st_mode & 0o170000) == 0o100000)


class TraceUprobe:
    """struct trace_uprobe: one probe point of a uprobe event, an entry of the dynamic event
    list; ``handle`` the engine's while its event is enabled."""

    def __init__(self, ops: UprobeEventOps, spec: UprobeSpec, event: ProbeEvent):
        self.ops = ops
        self.spec = spec
        self.event = event
        self.handle: UprobeHandle | None = None
        self._nhit = 0  # of the registrations before this one

    @property
    def nhit(self) -> int:
        return self._nhit + (self.handle.nhit if self.handle is not None else 0)

    # ---- trace_probe.EventProbe ----
    def set_record_slots(self, slots: int) -> None:
        pass  # the handler reads the event's slots at each hit

    def arm(self) -> None:
        """probe_event_enable(): uprobe_register() (OSError with its errno)."""
        if self.handle is None:
            self.handle = self.ops.engine.register(
                self.spec.filename, self.spec.path.inode, self.spec.path.size, self.spec.offset, self.spec.ref_ctr_offset,
                is_return=self.spec.is_return, on_hit=_hit_handler(self.event, self.spec))

    def disarm(self) -> None:
        if self.handle is not None:
            handle, self.handle = self.handle, None
            self._nhit += handle.nhit
            handle.unregister()


class UprobeEventOps:
    """trace_uprobe_ops, and the uprobe_events and uprobe_profile files."""

    def __init__(self, dynamic: DynamicEvents, registry: EventRegistry, engine: UprobeEngine,
                 lookup: PathLookup = host_path):
        self._dynamic = dynamic
        self._registry = registry
        self.engine = engine
        self._lookup = lookup
        dynamic.register(self)

    def probes(self) -> list[TraceUprobe]:
        """for_each_trace_uprobe, in creation order."""
        return [ev for ev in self._dynamic.of(self) if isinstance(ev, TraceUprobe)]

    # ---- the files ----
    def read_uprobe_events(self) -> bytes:
        return self._dynamic.show(self)

    def write_uprobe_events(self, data: bytes) -> None:
        self._dynamic.write_kind(data, self)

    def release_all(self) -> None:
        """An open of uprobe_events with O_TRUNC: every uprobe event goes, unless one is
        enabled (EBUSY, nothing removed)."""
        self._dynamic.release_all(self)

    def read_profile(self) -> bytes:
        with self._dynamic.lock:
            return "".join(tu.spec.profile_line(tu.nhit) for tu in self.probes()).encode("latin-1")

    # ---- dyn_event_operations ----
    def create(self, command: str) -> None:
        """trace_uprobe_create(); ProbeError(ECANCELED) for a command that is not a uprobe's."""
        spec = create_uprobe(command, self._lookup)
        if spec is not None:
            self._register(spec)

    def show(self, ev: DynEvent) -> str:
        assert isinstance(ev, TraceUprobe)
        return ev.spec.command_text()

    def is_busy(self, ev: DynEvent) -> bool:
        assert isinstance(ev, TraceUprobe)
        return ev.event.enabled

    def free(self, ev: DynEvent) -> None:
        """unregister_trace_uprobe(): a probe whose event has others goes; the last one not
        while its event is enabled (EBUSY)."""
        assert isinstance(ev, TraceUprobe)
        if len(ev.event.probes) == 1 and ev.event.enabled:
            raise ProbeError(errno.EBUSY)
        self._dynamic.remove(ev)
        ev.disarm()
        ev.event.unlink(ev, self._registry)

    def match(self, system: str | None, event: str, argv: Sequence[str], ev: DynEvent) -> bool:
        assert isinstance(ev, TraceUprobe)
        return ev.spec.matches(system, event, argv, ev.spec.point_text())

    # ---- register_trace_uprobe() ----
    def _register(self, spec: UprobeSpec) -> None:
        probes = self.probes()
        if ref_ctr_conflict(spec, [tu.spec for tu in probes]):
            raise silent_error(errno.EINVAL)  # "Reference counter offset mismatch." (pr_warn)
        same = [tu for tu in probes if (tu.spec.group, tu.spec.event) == (spec.group, spec.event)]
        if same:
            spec.check_existing([tu.spec for tu in same])
            event = same[0].event
        elif self._registry.get(spec.group, spec.event) is not None:
            raise spec.event_exists_error()
        else:
            fields, fmt = spec.format()
            event = ProbeEvent(self._registry.alloc_event_id(), spec.group, spec.event, fields, fmt, spec)
        tu = TraceUprobe(self, spec, event)
        event.append(tu, self._registry)  # (an enabled event arms it now; OSError: it could not)
        self._dynamic.add(tu)


def _hit_handler(event: ProbeEvent, spec: UprobeSpec) -> Callable[[UprobeHit], None]:
    """uprobe_dispatcher()/uretprobe_dispatcher() -> uprobe_trace_func() for one probe: runs
    on the machine's thread at each hit, recording in the slots that have the event on."""
    body = record_body(spec)
    event_id = event.id

    def on_hit(hit: UprobeHit) -> None:
        slots = event.slots
        if slots:
            hit.record(event_id, slots, body(hit))
    return on_hit
