"""The events of one trace array: which are enabled, their filters, the pid filters, and the
files that show and change them (trace_events.c, trace_events_filter.c, trace_events_trigger.c).

Enabling goes to the guest (GuestTracing.enable_event flips the tracepoint's static key);
filters are applied by the drain (see drain.py) before a record is kept; the pid filters by
the guest as it writes the record (machine/trace_pids.py), as Linux checks them then.
"""

import errno
import threading
from collections import ChainMap
from collections.abc import Callable
from dataclasses import dataclass

from ..machine.contract import MARKER_EVENT, GuestTracingOps
from . import filter as event_filter
from .error_log import ErrorLog
from .events import EventRegistry, TraceEvent
from .hist import HistContext
from .trace_probe import ProbeTraceEvent
from .trace_synth import SynthTraceEvent
from .trigger import EventTriggers, SnapshotControl, TriggerTable
from ..lib.kstrtox import kstrtoul_from_user, kstrtoull, or_none

_PAGE_SIZE = 4096
# EVENT_BUF_SIZE: the longest set_event token.
_EVENT_BUF_SIZE = 127
# trace_pid_list holds pids below MAX_PID; a larger one fails with -1 (EPERM) in trace_pid_write.
_MAX_PID = 1 << 30
_SPACE = b" \t\n\v\f\r"


@dataclass
class EventFile:
    """trace_event_file: one event in one trace array."""

    event: TraceEvent
    enabled: bool = False
    filter: event_filter.EventFilter | event_filter.FilterParseError | None = None
    # EVENT_FILE_FL_WAS_ENABLED: removing a dynamic event clears the buffers it may be in.
    was_enabled: bool = False
    # sm_ref: the function probes (enable_event / disable_event) holding it in soft mode;
    # while in it, whether it records (EVENT_FILE_FL_SOFT_DISABLED clear) is the guest's bit.
    soft_mode: int = 0


class PidFilter:
    """set_event_pid / set_event_notrace_pid: a list of pids, ascending when read, kept where
    the kernel checks it (the guest, which with event-fork also adds the children of listed
    tasks and drops freed tasks).  No list and an empty one differ: the last task of a list
    going away leaves it empty, and an empty list lets no task through."""

    def __init__(self, load: Callable[[], frozenset[int] | None],
                 store: Callable[[frozenset[int] | None], None],
                 update_buffers: Callable[[], None] | None = None) -> None:
        """load() -> the list now (None: no list); store(list) replaces it; update_buffers,
        if given, runs before a write does anything (event_pid_write()'s
        tracing_update_buffers(); set_ftrace_pid's write has none)."""
        self._load = load
        self._store = store
        self._update_buffers = update_buffers

    def read(self) -> bytes:
        return b"".join(b"%d\n" % pid for pid in sorted(self._load() or ()))

    def clear(self) -> None:
        self._store(None)

    def write(self, data: bytes) -> None:
        """trace_pid_write(): adds the pids written (an open with O_TRUNC cleared the list
        first); all or none; a list left with no pid at all is freed."""
        if data and self._update_buffers is not None:
            self._update_buffers()
        new = set()
        for token in data.split(b"\0", 1)[0].split():
            # kstrtoul(s, 0): anything it refuses (malformed, too large) is EINVAL
            value = or_none(kstrtoull, token.decode("latin-1"))
            if value is None:
                raise OSError(errno.EINVAL, "not a pid")
            if value >= _MAX_PID:
                raise OSError(errno.EPERM, "pid out of range")
            new.add(value)
        pids = (self._load() or frozenset()) | new
        self._store(pids or None)


class EventControl:
    def __init__(self, registry: EventRegistry, slot: int, guest: GuestTracingOps, error_log: ErrorLog,
                 expand_buffers: Callable[[], None]):
        """slot: this trace array's slot in the guest; guest: the guest half of tracing."""
        self.registry = registry
        self.slot = slot
        self._guest = guest
        self._error_log = error_log
        self._expand = expand_buffers
        self._lock = threading.RLock()  # event_mutex: an eprobe enabled here soft-enables its event here
        self.files = {e.id: EventFile(e) for e in registry.all_events()}
        # tr->trace_marker_file: ftrace/print's, whose triggers a trace_marker write runs
        # (not among `files`: it cannot be enabled or filtered)
        marker = registry.get(*MARKER_EVENT)
        self._marker_files = {} if marker is None else {marker.id: EventFile(marker)}
        lists = guest.pid_lists
        self.pid_filter = PidFilter(lambda: lists.event_pids(slot, False),
                                    lambda pids: lists.set_event_pids(slot, False, pids), expand_buffers)
        self.notrace_pid_filter = PidFilter(lambda: lists.event_pids(slot, True),
                                            lambda pids: lists.set_event_pids(slot, True, pids), expand_buffers)

    def _set(self, files: list[EventFile], on: bool) -> None:
        for f in files:
            self._enable_disable(f, on, soft=False)

    def _enable_disable(self, f: EventFile, enable: bool, *, soft: bool) -> None:
        """__ftrace_event_enable_disable(): `soft` is a function probe taking (enable) or
        dropping (not enable) its soft-mode reference; without it, the enable files."""
        if enable:
            if not soft:
                if f.soft_mode:
                    f.event.set_soft_disabled(self._guest, self.slot, False)
            else:
                f.soft_mode += 1
                if f.soft_mode > 1:
                    return
            if not f.enabled:
                if soft:  # entering soft mode keeps the event off until a probe enables it
                    f.event.set_soft_disabled(self._guest, self.slot, True)
                f.event.set_enabled(self._guest, self.slot, True)
                f.enabled = f.was_enabled = True
            return
        if soft:
            f.soft_mode -= 1
            if f.soft_mode > 0:
                return
        # soft-disabled before this change (only an event in soft mode can be; the guest is
        # asked only then: dynamic events have no guest file)
        soft_disabled = bool(soft or f.soft_mode) and self._soft_disabled(f)
        disable = soft_disabled if soft else not f.soft_mode
        if disable and f.enabled:
            f.event.set_enabled(self._guest, self.slot, False)
            f.enabled = False
        if f.soft_mode or soft_disabled:
            # in soft mode "disabled" is soft-disabled; leaving it, the flag is cleared
            f.event.set_soft_disabled(self._guest, self.slot, bool(f.soft_mode))

    def _soft_disabled(self, f: EventFile) -> bool:
        """EVENT_FILE_FL_SOFT_DISABLED: enabled, yet the guest does not record it."""
        return f.enabled and not f.event.recording(self._guest, self.slot)

    # soft mode, for the enable_event / disable_event function probes
    def find_file(self, system: str, name: str) -> EventFile:
        """find_event_file(): the event's file here; EINVAL for no such event or ftrace's own
        records."""
        for f in self.files.values():
            if f.event.system == system and f.event.name == name and not f.event.ftrace:
                return f
        raise OSError(errno.EINVAL, f"no event {system}:{name}")

    def find_probe_target(self, system: str, name: str) -> tuple[EventFile, int]:
        """find_file() and the event's guest trace_event_file, which a function probe flips;
        EINVAL for an event the guest does not record itself (dynamic events: a function
        probe's soft mode is not implemented for those)."""
        f = self.find_file(system, name)
        try:
            return f, self._guest.event_file(f.event.desc)
        except KeyError:
            raise OSError(errno.EINVAL, f"no guest file for {system}:{name}") from None

    def soft_enable(self, f: EventFile) -> None:
        """__ftrace_event_enable_disable(file, 1, 1)."""
        with self._lock:
            self._enable_disable(f, True, soft=True)

    def soft_release(self, f: EventFile) -> None:
        with self._lock:
            self._enable_disable(f, False, soft=True)

    # dynamic events (kprobes) coming and going; `files` is replaced, never changed in place,
    # since the drain reads it without the lock
    def add_event(self, event: TraceEvent) -> None:
        with self._lock:
            # At the head, as __trace_add_new_event's list_add: set_event lists it first.
            self.files = {event.id: EventFile(event), **self.files}

    def remove_event(self, event: TraceEvent) -> EventFile | None:
        """Forget a dynamic event (its owner refused the removal while it was enabled);
        returns its file, whose was_enabled says whether the buffers may hold its records."""
        with self._lock:
            files = dict(self.files)
            removed = files.pop(event.id, None)
            self.files = files
        return removed

    def disable_all(self) -> None:
        with self._lock:
            self._set(list(self.files.values()), False)

    def _select(self, system: str | None = None, name: str | None = None,
                match: str | None = None) -> list[EventFile]:
        """__ftrace_set_clr_event's matching: match is an event or a system name."""
        chosen = []
        for f in self.files.values():
            e = f.event
            if match is not None and match not in (e.name, e.system):
                continue
            if system is not None and e.system != system:
                continue
            if name is not None and e.name != name:
                continue
            chosen.append(f)
        return chosen

    # set_event
    def read_set_event(self) -> bytes:
        return b"".join(f"{f.event.system}:{f.event.name}\n".encode()
                        for f in self.files.values() if f.enabled)

    def write_set_event(self, data: bytes) -> None:
        """One `[!][system:]event` token after another, separated by spaces; each applies on
        its own (Linux parses one per write call), the first that matches nothing fails."""
        if not data:
            return
        self._expand()
        for token in data.split():
            if len(token) > _EVENT_BUF_SIZE:
                raise OSError(errno.EINVAL, "event name too long")
            on = not token.startswith(b"!")
            text = token[0 if on else 1:].decode("latin-1")
            if ":" in text:
                system, _, name = text.partition(":")
                files = self._select(system=None if system in ("", "*") else system,
                                     name=None if name in ("", "*") else name)
            else:
                files = self._select(match=text)
            if not files:
                raise OSError(errno.EINVAL, f"no event matches {text!r}")
            with self._lock:
                self._set(files, on)

    # enable files: event, system, all
    @staticmethod
    def _aggregate(files: list[EventFile]) -> bytes:
        states = {f.enabled for f in files}
        if len(states) > 1:
            return b"X\n"
        return b"1\n" if states == {True} else b"0\n"

    def read_enable(self, system: str | None = None, name: str | None = None) -> bytes:
        files = self._select(system=system, name=name)
        if name is None or len(files) != 1:
            return self._aggregate(files)
        # event_enable_read(): `*` marks soft mode (or soft-disabled)
        f = files[0]
        soft_disabled = bool(f.soft_mode) and self._soft_disabled(f)
        text = b"1" if f.enabled and not soft_disabled else b"0"
        return text + (b"*\n" if f.soft_mode or soft_disabled else b"\n")

    def write_enable(self, data: bytes, system: str | None = None, name: str | None = None) -> None:
        value = kstrtoul_from_user(data)
        self._expand()          # Linux grows the buffers before it looks at the value
        if value not in (0, 1):
            raise OSError(errno.EINVAL, "enable takes 0 or 1")
        with self._lock:
            self._set(self._select(system=system, name=name), bool(value))

    def set_clr_event(self, system: str, name: str, on: bool) -> int:
        """trace_set_clr_event() of the kernel's own (a BPF program that may call
        bpf_trace_printk() loading): the events of system named name enabled or disabled as
        their enable files would, the buffers left as they are (-EINVAL: none matched)."""
        files = self._select(system=system, name=name)
        if not files:
            return -errno.EINVAL
        with self._lock:
            self._set(files, on)
        return 0

    # filter files
    def read_filter(self, event: TraceEvent) -> bytes:
        current = self.files[event.id].filter
        return event_filter.NO_FILTER_TEXT if current is None else current.filter_file_text()

    def write_filter(self, event: TraceEvent, data: bytes) -> None:
        if len(data) >= _PAGE_SIZE:
            raise OSError(errno.EINVAL, "filter too long")
        try:
            new = event_filter.parse_event_filter(data, event.desc.fields)
        except event_filter.FilterParseError as error:
            # A bad filter still replaces the old one: the event runs unfiltered.
            self.files[event.id].filter = error
            self._log_filter_error(error)
            raise OSError(error.errno, str(error)) from None
        self.files[event.id].filter = new

    def read_system_filter(self) -> bytes:
        return event_filter.SUBSYSTEM_FILTER_TEXT

    def write_system_filter(self, system: str, data: bytes) -> None:
        if len(data) >= _PAGE_SIZE:
            raise OSError(errno.EINVAL, "filter too long")
        files = self._select(system=system)
        result = event_filter.parse_subsystem_filter(data, {f.event.name: f.event.desc.fields for f in files})
        for f in files:
            f.filter = result.filters[f.event.name]
        for error in result.errors:
            self._log_filter_error(error)

    def _log_filter_error(self, error: event_filter.FilterParseError) -> None:
        self._error_log.log(event_filter.ERROR_LOG_LOCATION, error.error_log_message,
                            error.text, error.error_log_pos)

    # trigger
    def make_triggers(self, table: TriggerTable, snapshot: SnapshotControl,
                      hist_context: HistContext) -> EventTriggers:
        """The event triggers of this array's events (trigger.py), which hold events in soft
        mode as Linux's trace_event_trigger_enable_disable() does."""
        def soft(event: TraceEvent, on: bool) -> None:
            if event.ftrace:   # ftrace/print: nothing to enable, trace_marker writes it
                return
            f = self.files[event.id]
            (self.soft_enable if on else self.soft_release)(f)

        def find(system: str, name: str) -> TraceEvent | None:
            """find_event_file(): a tracepoint, or a probe or synthetic event (their soft mode
            is the guest's too: set_soft_disabled()), or ftrace/print (trace_marker's)."""
            try:
                return self.find_probe_target(system, name)[0].event
            except OSError:
                pass
            return next((f.event for f in ChainMap(self.files, self._marker_files).values()
                         if (isinstance(f.event, (ProbeTraceEvent, SynthTraceEvent)) or f.event.ftrace)
                         and f.event.system == system and f.event.name == name), None)

        def is_tracepoint(event: TraceEvent) -> bool:
            """Whether the event's writer runs its triggers: trace_synth(), the probe writers,
            a tracepoint's, and the kernel's at a trace_marker write (ftrace/print's)."""
            if isinstance(event, (SynthTraceEvent, ProbeTraceEvent)) or event.id in self._marker_files:
                return True
            try:
                self._guest.event_file(event.desc)
            except KeyError:
                return False
            return not event.ftrace

        self.triggers = EventTriggers(table, self.slot, lambda: ChainMap(self.files, self._marker_files),
                                      lambda e: soft(e, True),
                                      lambda e: soft(e, False), find, snapshot, is_tracepoint,
                                      self._error_log.log, hist_context)
        return self.triggers
