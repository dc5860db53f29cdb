"""Event triggers (kernel/trace/trace_events_trigger.c): the commands written to
events/<sys>/<event>/trigger, kept per event of a trace array and run by the event's writer in
the guest (machine.contract.EventTriggerOps), never here.

A command is ``[!]CMD[:PARAM] [if FILTER]``: traceon, traceoff, stacktrace and snapshot take
an optional count (``:N``); enable_event and disable_event take ``SYS:EVENT[:N]``.  ``!``
removes the event's trigger of that type (traceon and traceoff are one type, as are
enable_event and disable_event of one target); a second trigger of a type is EEXIST.  A
trigger's filter is the event filter language on the event's own fields, compiled here into
the guest's predicate program.  6.1 logs nothing to error_log for these commands: a bad one
fails with its errno and changes nothing.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol
from dataclasses import dataclass, field

from ..lib.kstrtox import kstrtoull, or_none
from ..machine.contract import EventTriggerOps, GuestTrigger, GuestTriggerPred, HistMapOps
from . import filter as event_filter
from . import hist as hist_trigger
from .events import TraceEvent
from .trace_probe import ProbeTraceEvent
from .trace_synth import SynthTraceEvent

if TYPE_CHECKING:  # (a hist action traces one)
    from .trace_synth import SynthEvent

# trigger_process_regex(): the command ends at the first of these
_COMMAND_END = b": \t"
_SPACE = b" \t\n\v\f\r"
_PAGE_SIZE = 4096


@dataclass
class TriggerCount:
    """event_trigger_data.count of a counted trigger, as last taken from the guest."""

    value: int


@dataclass(frozen=True)
class Command:
    """struct event_command: its name, its trigger type (triggers of one type exclude each
    other on an event), whether it runs after the record is committed (POST_TRIGGER)."""

    name: str
    trigger_type: str
    post: bool = False
    enable: bool = False        # enable_event / disable_event


# In trigger_commands' order (newest registered first): `# Available triggers:` lists them so.
COMMANDS = {c.name: c for c in (
    Command("traceon", "trace_onoff"),
    Command("traceoff", "trace_onoff", post=True),
    Command("snapshot", "snapshot"),
    Command("stacktrace", "stacktrace", post=True),
    Command("enable_event", "event_enable", enable=True),
    Command("disable_event", "event_enable", enable=True),
    Command("enable_hist", "hist_enable", enable=True),
    Command("disable_hist", "hist_enable", enable=True),
    Command("hist", "hist"),
)}


@dataclass
class Trigger:
    """struct event_trigger_data."""

    command: Command
    count: TriggerCount | None                 # None: unlimited (count -1)
    filter_text: bytes | None = None
    filter: event_filter.EventFilter | None = None
    target: TraceEvent | None = None           # enable_event / disable_event / enable_hist / disable_hist
    paused: bool = False
    hist: hist_trigger.HistSpec | None = None   # a hist trigger: what it aggregates
    map: hist_trigger.HistMap | None = None     # and where (in the guest)
    # the hist triggers its actions made on other events for their fields (field_var_hists)
    field_var_hists: list[tuple[TraceEvent, Trigger]] = field(default_factory=list)

    def same(self, other: Trigger) -> bool:
        """register_trigger()'s test: one trigger of a type per event (enable triggers: per
        target event; hist triggers: per keys, values, sort, filter and name)."""
        if self.hist is not None or other.hist is not None:
            return self.hist is not None and other.hist is not None and self.hist.matches(other.hist) and \
                self.filter_text == other.filter_text and self.hist.name == other.hist.name
        return self.command.trigger_type == other.command.trigger_type and (
            not self.command.enable or self.target is other.target)

    def histogram(self) -> tuple[hist_trigger.HistSpec, hist_trigger.HistMap]:
        """A registered hist trigger's spec and map (ValueError: not one)."""
        if self.hist is None or self.map is None:
            raise ValueError(f"a {self.command.name} trigger has no histogram")
        return self.hist, self.map


class SnapshotControl(Protocol):
    """A trace array's snapshot buffer as triggers use it (snapshot.Snapshot)."""

    def alloc(self) -> None: ...   # tracing_alloc_snapshot_instance()
    def cond_enable(self, owner: object) -> None: ...   # tracing_snapshot_cond_enable() (EBUSY)
    def cond_disable(self, owner: object) -> None: ...  # tracing_snapshot_cond_disable() of its owner


class _File(Protocol):
    """An event file (event_control.EventFile) as the triggers use it."""

    @property
    def event(self) -> TraceEvent: ...


def _address_of(hist_map: hist_trigger.HistMap) -> Callable[[], int]:
    return lambda: hist_map.addr


class TriggerTable:
    """Every trace array's triggers, as one table for the guest, and the guest's histogram
    maps."""

    def __init__(self, guest: EventTriggerOps, hist_maps: HistMapOps):
        self.guest = guest
        self.hist_maps = hist_maps
        self._arrays: dict[int, EventTriggers] = {}
        self._probes: list[GuestTrigger] = []  # eprobes' triggers: on the files, in no trigger file
        # synthetic events for hist actions: name -> (event, its guest address) or None
        self.find_synth: Callable[[str], tuple[SynthEvent, int] | None] = lambda name: None
        self.named: dict[str, list[Trigger]] = {}     # named hist triggers (named_triggers), oldest first
        self._own_bits: dict[int, TraceEvent] = {}    # events with triggers at the last push()
        self._lock = threading.Lock()

    def add_probe(self, trigger: GuestTrigger) -> None:
        """An eprobe's trigger joins its event's (enable_eprobe()); OSError: the guest's table
        is full, and it has not."""
        with self._lock:
            self._probes.append(trigger)
        try:
            self.push()
        except OSError:
            self.remove_probe(trigger)
            raise

    def remove_probe(self, trigger: GuestTrigger) -> None:
        with self._lock:
            self._probes.remove(trigger)
        self.push()

    def attach(self, triggers: EventTriggers) -> None:
        with self._lock:
            self._arrays[triggers.slot] = triggers

    def detach(self, triggers: EventTriggers) -> None:
        with self._lock:
            if self._arrays.get(triggers.slot) is triggers:
                del self._arrays[triggers.slot]
        self.push()

    def push(self) -> None:
        """Hand the guest every trigger (each event's newest first); then the trigger bits of
        the events that keep their own (probe events: their writers are given them)."""
        with self._lock:
            table = [g for array in self._arrays.values() for g in array.guest_triggers()] + self._probes
            self.guest.set_triggers(table)
            bits: dict[int, int] = {}
            events: dict[int, TraceEvent] = {}
            for array in self._arrays.values():
                for event in array.triggered_events():
                    # a slot past word 0: the summary bit (the table's entries say which)
                    bits[event.id] = bits.get(event.id, 0) | 1 << (self.guest.shift + min(array.slot, self.guest.slot_ext))
                    events[event.id] = event
            for event_id, event in {**self._own_bits, **events}.items():
                event.set_trigger_bits(bits.get(event_id, 0))
            self._own_bits = events

    def read_count(self, count: TriggerCount) -> int:
        return self.guest.read_count(count)


class EventTriggers:
    """One trace array's event triggers (the `triggers` list of each trace_event_file)."""

    def __init__(self, table: TriggerTable, slot: int, files: Callable[[], Mapping[int, _File]],
                 soft_enable: Callable[[TraceEvent], None], soft_release: Callable[[TraceEvent], None],
                 find_event: Callable[[str, str], TraceEvent | None],
                 snapshot: SnapshotControl, runs_triggers: Callable[[TraceEvent], bool],
                 log_error: Callable[[str, str, bytes, int], None], hist_context: hist_trigger.HistContext):
        """files(): the array's event files by id; soft_enable(event) / soft_release(event):
        trace_event_enable_disable(file, 1/0, 1) of one of them; find_event(system, name):
        find_event_file(); snapshot: the array's snapshot buffer;
        runs_triggers(event): whether the event's writer in the guest runs triggers (the
        kernel's tracepoints and syscalls, probe and synthetic events do; ftrace's own
        records do not)."""
        self._runs_triggers = runs_triggers
        self._log_error = log_error
        self.hist_context = hist_context
        self.table = table
        self.slot = slot
        self._files = files
        self._soft_enable = soft_enable
        self._soft_release = soft_release
        self._find_event = find_event
        self._snapshot = snapshot
        self._lists: dict[int, list[Trigger]] = {}   # event id -> its triggers, newest first
        self._lock = threading.Lock()
        table.attach(self)

    # ---- the trigger file ----
    def read(self, event: TraceEvent) -> bytes:
        triggers = self._lists.get(event.id)
        if not triggers:
            names = " ".join(COMMANDS)
            return b"# Available triggers:\n# " + names.encode() + b"\n"
        return b"".join(self._print(t) for t in triggers)

    def _print(self, t: Trigger) -> bytes:
        """event_trigger_print() / event_enable_trigger_print() / event_hist_trigger_print()."""
        if t.hist is not None:
            spec, hist_map = t.histogram()
            return spec.print_text(t.filter_text, t.paused or hist_map.paused)
        name = t.command.name
        if t.command.enable and t.target is not None:
            name += f":{t.target.system}:{t.target.name}"
        text = name.encode()
        text += b":unlimited" if t.count is None else b":count=%d" % self.table.read_count(t.count)
        if t.filter_text is not None:
            text += b" if " + t.filter_text
        return text + b"\n"

    def write(self, event: TraceEvent, data: bytes) -> None:
        """event_trigger_regex_write(): one command per write."""
        if not data:
            return
        if len(data) >= _PAGE_SIZE:
            raise OSError(errno.EINVAL, "trigger too long")
        buf = data.split(b"\0", 1)[0].strip(_SPACE)
        if not self._runs_triggers(event):
            raise OSError(errno.EINVAL, "triggers are not supported on this event")
        with self._lock:
            self._process(event, buf)

    def _process(self, event: TraceEvent, buf: bytes) -> None:
        """trigger_process_regex() and the commands' parse()."""
        end = next((i for i, ch in enumerate(buf) if ch in _COMMAND_END), None)
        command, rest = (buf, None) if end is None else (buf[:end], buf[end + 1:].lstrip(_SPACE) or None)
        remove = command.startswith(b"!")
        cmd = COMMANDS.get(command[1 if remove else 0:].decode("latin-1"))
        if cmd is None:
            raise OSError(errno.EINVAL, "no such trigger command")
        if cmd.name == "hist":
            self._process_hist(event, remove, rest)
            return
        target = None
        if cmd.enable:
            if rest is None:
                raise OSError(errno.EINVAL, "enable_event needs an event")
            param, filter_text = _separate_filter(rest, required=True)
            system, sep, param = (param or b"").partition(b":")
            if not sep:
                raise OSError(errno.EINVAL, "enable_event needs SYSTEM:EVENT")
            name, sep, param = param.partition(b":")
            param = param if sep else None
            target = self._find_event(system.decode("latin-1"), name.decode("latin-1"))
            if target is None or target.ftrace:   # (ftrace/print's file cannot be enabled)
                raise OSError(errno.EINVAL, "no such event")
        else:
            param, filter_text = _separate_filter(rest, required=False)
        new = Trigger(cmd, None, target=target)
        if remove:
            self._unregister(event, new)
            return
        if param is not None:
            number = param.split(b":", 1)[0]
            value = or_none(kstrtoull, number.decode("latin-1")) if number else None
            if value is None or value >= 1 << 64:
                raise OSError(errno.EINVAL, "bad count")
            # (a count past LONG_MAX reads back negative, as the kernel's long does)
            new.count = TriggerCount(value - (1 << 64) if value >= 1 << 63 else value)
        if filter_text is not None:
            new.filter_text, new.filter = self._parse_filter(event, filter_text)
        self._register(event, new)

    @staticmethod
    def _parse_filter(event: TraceEvent, text: bytes) -> tuple[bytes, event_filter.EventFilter | None]:
        """set_trigger_filter(): `if FILTER`; the text after `if ` is what reads back."""
        word, sep, rest = _strsep(text, b" \t")
        if word != b"if" or not sep:
            raise OSError(errno.EINVAL, "trigger filter must start with 'if'")
        try:
            compiled = event_filter.parse_event_filter(rest, event.desc.fields)
        except event_filter.FilterParseError as error:
            raise OSError(error.errno, str(error)) from None
        return rest, compiled

    def _process_hist(self, event: TraceEvent, remove: bool, rest: bytes | None) -> None:
        """event_hist_trigger_parse() and hist_register_trigger()."""
        text = (rest or b"").decode("latin-1")
        command = "hist:" + text     # last_cmd: what error_log shows, the caret found in it
        try:
            if rest is None:
                raise hist_trigger.HistError(errno.EINVAL)
            self._hist_command(event, text, remove, command)
        except hist_trigger.HistError as error:
            for message, at in error.entries:
                self._log_hist_error(event, command, message, at)
            raise OSError(error.errno, str(error)) from None

    def _log_hist_error(self, event: TraceEvent, command: str, message: str, at: str | None) -> None:
        pos = command.find(at) if at else 0
        self._log_error(f"hist:{event.system}:{event.name}", message, command.encode("latin-1"), max(pos, 0))

    def _hist_command(self, event: TraceEvent, text: str, remove: bool, command: str) -> None:
        """A hist command on the event (HistError: refused, nothing changed); command: the
        one written, whose text error_log shows (a field variable's histogram's errors too)."""
        made: list[tuple[TraceEvent, Trigger]] = []     # its actions' field variable histograms
        try:
            self._hist_trigger(event, text, remove, command, made)
        except Exception:
            for made_event, made_trigger in reversed(made):
                self._remove(made_event, made_trigger)
            raise

    def _hist_trigger(self, event: TraceEvent, text: str, remove: bool, command: str,
                      made: list[tuple[TraceEvent, Trigger]]) -> Trigger | None:
        """The hist command's trigger, registered (None: it removed, paused, continued or
        cleared one)."""
        param, filter_text = hist_trigger.split_filter(text)
        spec = hist_trigger.parse(param, event, remove, self._hist_env(event, command, made))
        new = Trigger(COMMANDS["hist"], None, hist=spec, field_var_hists=made)
        if filter_text is not None:
            new.filter_text, new.filter = self._parse_filter(event, filter_text.encode("latin-1"))
        triggers = self._lists.get(event.id, [])
        found = next((t for t in triggers if t.same(new)), None)
        named = self.table.named.get(spec.name, []) if spec.name else []
        if named and not remove and not (named[0].histogram()[0].matches(spec) and named[0].histogram()[0].name == spec.name):
            raise hist_trigger.HistError(errno.EINVAL, hist_trigger.ERR_NAMED_MISMATCH,
                                         f"name={spec.name}")   # (6.1 keeps name=NAME as the name)
        if remove:
            if found is not None:
                if self._var_users(found):     # its variables are referenced: EBUSY
                    raise hist_trigger.HistError(errno.EBUSY)
                self._remove(event, found)
            return None
        if found is not None:
            found_spec, found_map = found.histogram()
            if spec.pause or spec.cont:
                if found_spec.name:     # a named trigger's own (its map is shared)
                    found.paused = spec.pause
                    self.table.push()
                else:
                    found_map.paused = spec.pause
            elif spec.clear:
                found_map.clear()
            else:
                raise hist_trigger.HistError(errno.EEXIST, hist_trigger.ERR_TRIGGER_EEXIST, "")
            return None
        if spec.cont or spec.clear:
            raise hist_trigger.HistError(errno.ENOENT, hist_trigger.ERR_TRIGGER_ENOENT_CLEAR, "")
        if spec.timestamps and self.hist_context.set_clock is not None:
            try:    # hist_register_trigger(): tracing_set_clock() (the buffers start afresh)
                self.hist_context.set_clock(spec.clock)
            except OSError:
                raise hist_trigger.HistError(errno.EINVAL, hist_trigger.ERR_SET_CLOCK_FAIL, spec.clock) from None
        if any(a.guest.action == "snapshot" for a in spec.actions):
            # action_create(): tracing_snapshot_cond_enable() (EBUSY: the array has one)
            self._snapshot.cond_enable(new)
        if named:       # the named trigger's map (and what it aggregates)
            new.hist, new_map = named[0].histogram()
            new_map.users += 1
        else:
            try:
                new_map = hist_trigger.HistMap(self.table.hist_maps, spec)
            except OSError:
                self._snapshot.cond_disable(new)
                raise
        new.map = new_map
        try:
            if spec.pause and spec.name:
                new.paused = True
            elif spec.pause:
                new_map.paused = True
            self._register(event, new, at_tail=True)
        except Exception:
            new_map.release()
            self._snapshot.cond_disable(new)
            raise
        if spec.name:
            self.table.named.setdefault(spec.name, []).append(new)
        for action in spec.actions:     # the synthetic events it names are in use
            if action.synth is not None:
                action.synth.ref += 1
        return new

    def _make_field_var_hist(self, system: str, event_name: str, field_name: str,
                             target_keys: list[tuple[str, int, bool]], command: str,
                             made: list[tuple[TraceEvent, Trigger]]) -> None:
        """create_field_var_hist(): on SYSTEM.EVENT, a hist trigger with the keys of its first
        histogram whose keys are the target's kind (compatible_keys()) and its filter, and the
        variable synthetic_FIELD=FIELD."""
        found = self._find_event(system, event_name)
        if found is None:
            raise hist_trigger.HistError(errno.EINVAL, hist_trigger.ERR_EVENT_FILE_NOT_FOUND, system)
        compatible = next((t for t in self._lists.get(found.id, []) if t.hist is not None and
                           hist_trigger.key_types(t.hist.keys, found) == target_keys), None)
        if compatible is None or compatible.hist is None:
            raise hist_trigger.HistError(errno.EINVAL, hist_trigger.ERR_HIST_NOT_FOUND, field_name)
        text = "keys=" + ",".join(k.name for k in compatible.hist.keys) + f":synthetic_{field_name}={field_name}"
        if compatible.filter_text is not None:
            text += " if " + compatible.filter_text.decode("latin-1")
        try:
            new = self._hist_trigger(found, text, False, command, [])
        except hist_trigger.HistError as error:
            raise hist_trigger.HistError(errno.EINVAL, None, None,
                                         [*error.entries, (hist_trigger.ERR_HIST_CREATE_FAIL, field_name)]) from None
        assert new is not None     # (a new command: registered or refused)
        made.append((found, new))

    def _hist_env(self, event: TraceEvent, command: str,
                  made: list[tuple[TraceEvent, Trigger]]) -> hist_trigger.HistEnv:
        def find_var(name: str, system: str | None = None,
                     event_name: str | None = None) -> list[tuple[hist_trigger.HistSpec, Callable[[], int]]]:
            files = self._files()
            found = [t.histogram() for event_id, triggers in self._lists.items() for t in triggers
                     if t.hist is not None and t.hist.find_var(name) is not None and
                     (system is None or (event_id in files and (files[event_id].event.system,
                                                                files[event_id].event.name) == (system, event_name)))]
            return [(spec, _address_of(hist_map)) for spec, hist_map in found]
        def find_own_var(name: str) -> bool:
            return any(t.hist is not None and t.hist.find_var(name) is not None
                       for t in self._lists.get(event.id, []))
        def make_field_var_hist(system: str, event_name: str, field_name: str,
                                target_keys: list[tuple[str, int, bool]]) -> None:
            self._make_field_var_hist(system, event_name, field_name, target_keys, command, made)
        def log(message: str, at: str) -> None:
            self._log_hist_error(event, command, message, at)
        return hist_trigger.HistEnv(find_var, find_own_var, self._find_event, self.table.find_synth,
                                    make_field_var_hist, log)

    def _var_users(self, found: Trigger) -> bool:
        """check_var_refs(): another hist trigger refers to one of its variables."""
        return any(t is not found and t.hist is not None and any(r.owner is found.hist for r in t.hist.refs)
                   for triggers in self._lists.values() for t in triggers)

    def read_hist(self, event: TraceEvent) -> bytes:
        """hist_show(): each hist trigger of the event, in the trigger list's order."""
        with self._lock:
            shown = [(t, *t.histogram()) for t in self._lists.get(event.id, []) if t.hist is not None]
            texts = [hist_trigger.hist_text(spec, spec.print_text(t.filter_text, t.paused or hist_map.paused),
                                            hist_map.read(), self.hist_context) for t, spec, hist_map in shown]
        return b"\n\n".join(texts)

    def truncate(self, event: TraceEvent) -> None:
        """Opening the trigger file with O_TRUNC: hist_unreg_all() and hist_enable_unreg_all()
        drop the event's hist, enable_hist and disable_hist triggers."""
        with self._lock:
            for t in [t for t in self._lists.get(event.id, []) if t.command.trigger_type in ("hist", "hist_enable")]:
                self._remove(event, t)

    def _register(self, event: TraceEvent, new: Trigger, at_tail: bool = False) -> None:
        triggers = self._lists.get(event.id, [])
        if any(t.same(new) for t in triggers):
            raise OSError(errno.EEXIST, "the event has a trigger of this type")
        if new.command.name == "snapshot":
            self._snapshot.alloc()
        taken = []
        try:
            if new.target is not None:   # the target event in soft mode while the trigger holds it
                self._soft_enable(new.target)
                taken.append(new.target)
            if not triggers:             # trace_event_trigger_enable_disable(file, 1)
                self._soft_enable(event)
                taken.append(event)
            # list_add_rcu(), but list_add_tail_rcu() for hist triggers
            self._lists[event.id] = [*triggers, new] if at_tail else [new, *triggers]
            try:
                self.table.push()
            except Exception:
                self._lists[event.id] = triggers
                if not triggers:
                    del self._lists[event.id]
                raise
        except Exception:
            for e in taken:
                self._soft_release(e)
            raise

    def _unregister(self, event: TraceEvent, test: Trigger) -> None:
        """unregister_trigger(): the event's trigger of that type, if there is one."""
        triggers = self._lists.get(event.id, [])
        found = next((t for t in triggers if t.same(test)), None)
        if found is None:
            return
        self._remove(event, found)

    def _remove(self, event: TraceEvent, found: Trigger) -> None:
        triggers = [t for t in self._lists.get(event.id, []) if t is not found]
        if found.count is not None:
            found.count.value = self.table.read_count(found.count)
        if triggers:
            self._lists[event.id] = triggers
        else:
            self._lists.pop(event.id, None)
        self.table.push()
        if not triggers:
            self._soft_release(event)
        if found.target is not None:
            self._soft_release(found.target)
        if found.map is not None:
            found.map.release()
        self._snapshot.cond_disable(found)     # (its snapshot action's, if it has one)
        if found.hist is not None and found.hist.name:
            named = self.table.named.get(found.hist.name, [])
            if found in named:
                named.remove(found)
            if not named:
                self.table.named.pop(found.hist.name, None)
        for action in found.hist.actions if found.hist is not None else ():
            if action.synth is not None:
                action.synth.ref -= 1
        for made_event, made_trigger in reversed(found.field_var_hists):   # destroy_field_var_hists()
            if made_trigger in self._lists.get(made_event.id, []):
                self._remove(made_event, made_trigger)

    def release_all(self) -> None:
        """The array goes away: every trigger removed."""
        with self._lock:
            files = self._files()
            for event_id in list(self._lists):
                if event_id not in files:
                    self._lists.pop(event_id)
                    continue
                for t in list(self._lists.get(event_id, [])):
                    self._remove(files[event_id].event, t)
        self.table.detach(self)

    def has_triggers(self, event: TraceEvent) -> bool:
        return bool(self._lists.get(event.id))

    # ---- the guest's table ----
    def triggered_events(self) -> list[TraceEvent]:
        """The events that have triggers here (EVENT_FILE_FL_TRIGGER_MODE)."""
        files = self._files()
        return [files[event_id].event for event_id, triggers in self._lists.items() if triggers and event_id in files]

    def guest_triggers(self) -> list[GuestTrigger]:
        out = []
        for event_id, triggers in self._lists.items():
            files = self._files()
            if event_id not in files:
                continue
            event = files[event_id].event
            # update_cond_flag(): a filter, a post trigger or one that needs the record (hist)
            # makes the whole file's triggers wait for the record
            cond = any(t.filter is not None or t.command.post or t.hist is not None for t in triggers)
            for t in triggers:
                out.append(GuestTrigger(
                    event=event.desc, event_id=event.id, cmd=t.command.name, slot=self.slot,
                    preds=_guest_program(t.filter), count=t.count, post=t.command.post, cond=cond,
                    paused=t.paused, target=None if t.target is None else t.target.desc,
                    target_id=0 if t.target is None else t.target.id,
                    target_dyn=isinstance(t.target, (ProbeTraceEvent, SynthTraceEvent)),
                    hist=0 if t.map is None else t.map.addr))
        return out


def _strsep(text: bytes, delims: bytes) -> tuple[bytes, bool, bytes]:
    for i, ch in enumerate(text):
        if ch in delims:
            return text[:i], True, text[i + 1:]
    return text, False, b""


def _separate_filter(rest: bytes | None, *, required: bool) -> tuple[bytes | None, bytes | None]:
    """event_trigger_separate_filter(): (param, filter); an optional param is a count, so
    text not starting with a digit is all filter."""
    if rest is None:
        if required:
            raise OSError(errno.EINVAL, "parameter required")
        return None, None
    if not required and not rest[:1].isdigit():
        return None, rest
    param, sep, after = _strsep(rest, b" \t")
    filter_text = after.lstrip(_SPACE) if sep else b""
    return param, filter_text or None


def _guest_program(compiled: event_filter.EventFilter | None) -> tuple[GuestTriggerPred, ...]:
    if compiled is None:
        return ()
    out = []
    for spec, when_to_branch, target in compiled.program():
        kind = "ptr_ustr" if spec.kind == "ptr_str" and spec.ustring else spec.kind
        out.append(GuestTriggerPred(kind, spec.op, when_to_branch, target, spec.offset, spec.size, spec.is_signed,
                                    spec.value, spec.string, spec.negate))
    return tuple(out)


# For the other users of the guest's trigger table (eprobes: their "if FILTER" on the attached event).
guest_program = _guest_program
