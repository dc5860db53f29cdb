"""Uprobe events (kernel/trace/trace_uprobe.c): the dynamic-event kind that ``p``/``r``
commands on a ``PATH:OFFSET`` create -- its entry in dynevent's table (UprobeEventOps: create,
show, is_busy, free, match), the probes it hands the uprobe engine (TraceUprobe), and its own
files: uprobe_events (its part of the dynamic event list) and uprobe_profile.

Parsing is uprobe_spec's.  As in Linux, nothing touches a process when a uprobe event is
created: the engine is asked for the inode+offset when the event is first enabled
(probe_event_enable() -> uprobe_register()), and gives it back when the last slot disables it.
Its hits become records in the emulated kernel: the guest runs the event's record program
(probe_guest.compile_args: the arguments from the task's registers and user memory, each read a
copy from user memory) and writes ``vaddr [ret] args...`` in the slots that have the event
enabled.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from typing import Protocol

from ..machine.contract import UprobeRequest
from ..probes.kprobes.guest import GuestRecord
from .dynevent import DynamicEvents, DynEvent
from .events import EventRegistry
from .probe_log import silent_error
from .probe_guest import compile_args
from .trace_probe import ProbeEvent, ProbeEventKind
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
    def set_record_slots(self, slots: int) -> None: ...
    def unregister(self) -> None: ...


class UprobeEngine(Protocol):
    """uprobe_register()/uprobe_unregister() of kernel/events/uprobes.c, as the probes layer
    implements them."""

    def register(self, path: str, inode: tuple[int, int], size: int, offset: int, ref_ctr_offset: int, *,
                 is_return: bool, guest: GuestRecord | None = None, slots: int = 0,
                 perf: int | None = None) -> UprobeHandle:
        """A consumer of the uprobe at inode+offset of the file at path (is_return: a
        uretprobe: at the function's return) whose record program, guest, the guest runs,
        recording in slots, or (perf) the kernel's perf call in that slot of its
        uprobe_perf_calls[]; OSError with uprobe_register()'s errno (ENOMEM: the guest has no
        room for it)."""
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
        self._slots = 0  # what its event's records go to (set_record_slots)
        # the arguments compiled for the guest's interpreter, which makes the records
        self._guest = compile_args(event.id, spec.args, user=True, probe_offset=spec.offset)

    @property
    def nhit(self) -> int:
        return self._nhit + (self.handle.nhit if self.handle is not None else 0)

    # ---- trace_probe.EventProbe ----
    def set_record_slots(self, slots: int) -> None:
        self._slots = slots
        if self.handle is not None:
            self.handle.set_record_slots(slots)

    def arm(self) -> None:
        """probe_event_enable(): uprobe_register() (OSError with its errno)."""
        if self.handle is None:
            self.handle = self.ops.engine.register(
                self.spec.filename, self.spec.path.inode, self.spec.path.size, self.spec.offset, self.spec.ref_ctr_offset,
                is_return=self.spec.is_return, guest=self._guest, slots=self._slots)

    def disarm(self) -> None:
        if self.handle is not None:
            handle, self.handle = self.handle, None
            self._nhit += handle.nhit
            handle.unregister()

    def unregister(self) -> None:
        """A uprobe is registered only while its event is enabled."""
        self.disarm()

    def profile_line(self) -> str:
        return self.spec.profile_line(self.nhit)


class UprobeEventOps(ProbeEventKind[TraceUprobe]):
    """trace_uprobe_ops, and the uprobe_events and uprobe_profile files (what they share with
    kprobe events: trace_probe.ProbeEventKind)."""

    def __init__(self, dynamic: DynamicEvents, registry: EventRegistry, engine: UprobeEngine,
                 lookup: PathLookup = host_path):
        self.engine = engine
        self._lookup = lookup
        self._local: dict[int, UprobeHandle] = {}  # the uprobe PMU's consumers, by their slot
        super().__init__(dynamic, registry, TraceUprobe)

    # ---- local trace_uprobes: the uprobe PMU's (the kernel's requests, PORT_KERNEL_REQ) ----
    def serve_local(self, req: UprobeRequest) -> int:
        """create_local_trace_uprobe()'s consumer, registered and armed at once (0 or -errno:
        uprobe_register()'s; ENOENT for a path the host no longer has as the kernel found it),
        or destroy_local_trace_uprobe()'s unregistered (0)."""
        if not req.register:
            handle = self._local.pop(req.slot, None)
            if handle is not None:
                handle.unregister()
            return 0
        try:
            st = os.stat(os.path.join("/", req.path))
        except OSError as e:
            return -(e.errno or errno.ENOENT)
        if st.st_ino != req.ino:
            return -errno.ENOENT
        if not stat.S_ISREG(st.st_mode):
            return -errno.EINVAL
        try:
            self._local[req.slot] = self.engine.register(
                req.path, (st.st_dev, st.st_ino), st.st_size, req.offset, req.ref_ctr_offset,
                is_return=req.is_return, perf=req.slot)
        except OSError as e:
            return -(e.errno or errno.EINVAL)
        return 0

    # ---- the files ----
    read_uprobe_events = ProbeEventKind.read_events
    write_uprobe_events = ProbeEventKind.write_events

    # ---- dyn_event_operations ----
    def create(self, command: str) -> None:
        """trace_uprobe_create(); ProbeError(ECANCELED) for a command that is not a uprobe's."""
        spec = create_uprobe(command, self._lookup)
        if spec is not None:
            self._register(spec)

    def show(self, ev: DynEvent) -> str:
        assert isinstance(ev, TraceUprobe)
        return ev.spec.command_text()

    def match(self, system: str | None, event: str, argv: Sequence[str], ev: DynEvent) -> bool:
        assert isinstance(ev, TraceUprobe)
        return ev.spec.matches(system, event, argv, ev.spec.point_text())

    # ---- register_trace_uprobe() ----
    def _register(self, spec: UprobeSpec) -> None:
        if ref_ctr_conflict(spec, [tu.spec for tu in self.probes()]):
            raise silent_error(errno.EINVAL)  # "Reference counter offset mismatch." (pr_warn)
        event = self._event_for(spec)
        tu = TraceUprobe(self, spec, event)
        event.append(tu, self._registry)  # (an enabled event arms it now; OSError: it could not)
        self._dynamic.add(tu)
