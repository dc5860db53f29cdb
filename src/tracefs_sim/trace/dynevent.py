"""Dynamic events (kernel/trace/trace_dynevent.c): one list of every dynamic event, whatever
its kind, behind the `dynamic_events` file, and one table of operations per kind.

A kind (kprobe events today; uprobe events, eprobes and synthetic events are each one more
entry) implements ``DynEventOps`` -- Linux's struct dyn_event_operations: create, show,
is_busy, free, match -- and registers it here; the events it creates join the one list, in
creation order, which `dynamic_events` lists and its own file (kprobe_events, ...) lists its
part of.  Commands are run as trace_parse_run_command() runs them: in order, stopping at the
first failure (those before it stay done), every refusal logged in the top-level error_log
with Linux's text and caret, and changing nothing.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from .error_log import ErrorLog
from .probe_log import ProbeError, silent_error

WRITE_BUFSIZE = 4096


class DynEvent(Protocol):
    """An entry of the list (struct dyn_event): one probe of a probe event, one synthetic
    event... ``ops`` is its kind's table."""

    @property
    def ops(self) -> DynEventOps: ...


class DynEventOps(Protocol):
    """struct dyn_event_operations: one kind of dynamic event."""

    def create(self, command: str) -> None:
        """Parse a command and create what it says (adding to the list); ProbeError with
        ECANCELED: not a command of this kind (the next kind is asked)."""
        ...

    def show(self, ev: DynEvent) -> str:
        """Its line in dynamic_events (and in its kind's own file)."""
        ...

    def is_busy(self, ev: DynEvent) -> bool:
        """It may not go now (its event is enabled)."""
        ...

    def free(self, ev: DynEvent) -> None:
        """Remove it from the list and undo it; ProbeError(EBUSY) when it may not go."""
        ...

    def match(self, system: str | None, event: str, argv: Sequence[str], ev: DynEvent) -> bool:
        """A removal `-:[SYSTEM/]EVENT [ARGS...]` names it (event "": any event; argv: the
        words after the name, to be matched in turn)."""
        ...


def _isspace(ch: str) -> bool:
    # The kernel's isspace(): \t \n \v \f \r, space and Latin-1 NBSP.
    return ch in " \t\n\v\f\r\xa0"


def argv_split(text: str) -> list[str]:
    """lib/argv_split.c: words separated by runs of whitespace; no quoting."""
    words: list[str] = []
    cur: list[str] = []
    for ch in text:
        if _isspace(ch):
            if cur:
                words.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        words.append("".join(cur))
    return words


def iter_commands(data: bytes) -> Iterator[str]:
    """trace_parse_run_command(): the commands of one write(), in order, each cut at '#'.
    The caller runs each before taking the next and stops at the first failure (earlier
    commands stay done).  A line that does not fit the kernel's 4 KiB buffer (or a NUL before
    the end of the data) fails with EINVAL when it is reached.  Text is Latin-1 decoded."""
    count = len(data)
    done = 0
    while done < count:
        chunk = data[done:done + WRITE_BUFSIZE - 1]
        chunk = chunk.split(b"\0", 1)[0]  # the kernel's string functions stop at a NUL
        at = 0
        while done < count:
            nl = chunk.find(b"\n", at)
            if nl >= 0:
                line = chunk[at:nl]
                size = nl - at + 1
            else:
                line = chunk[at:]
                size = len(line)
                if done + size < count:
                    if at:
                        break  # read the rest of this line with the next buffer
                    raise silent_error(errno.EINVAL)  # "Line length is too long"
            done += size
            at += size
            yield line.split(b"#", 1)[0].decode("latin-1")


@dataclass(frozen=True)
class ReleaseCommand:
    """A removal, as dyn_event_release() parses it: ``-:[GRP/][EVENT] [ARGS...]`` (and
    dynamic_events' ``!`` form)."""
    system: str | None
    event: str  # "" matches every event (of the system)
    args: tuple[str, ...]  # the probe point and NAME=FETCHARG words that must match


def parse_release(command: str) -> ReleaseCommand:
    """dyn_event_release()'s parsing; removing what matches is DynamicEvents.release()."""
    argv = argv_split(command)
    head = argv[0]
    if head[0] == "-":
        if head[1:2] != ":":
            raise silent_error(errno.EINVAL)
        event = head[2:]
    else:
        colon = head.find(":")
        if colon < 0:
            raise silent_error(errno.EINVAL)
        event = head[colon + 1:]
    system = None
    slash = event.find("/")
    if slash >= 0:
        system, event = event[:slash], event[slash + 1:]
    if system is None and not event:
        raise silent_error(errno.EINVAL)
    return ReleaseCommand(system, event, tuple(argv[1:]))


class DynamicEvents:
    """dyn_event_list, the kinds' tables, and the `dynamic_events` file."""

    def __init__(self, error_log: ErrorLog):
        """error_log: the top-level one, where a refused command is logged
        (tracing_log_err(NULL, ...))."""
        self._error_log = error_log
        self._kinds: list[DynEventOps] = []  # dyn_event_ops_list, in registration order
        self._events: list[DynEvent] = []  # creation order
        self.lock = threading.RLock()  # event_mutex: held by every change, and by readers

    def register(self, ops: DynEventOps) -> None:
        """dyn_event_register(): a kind joins (asked in turn for commands it may claim)."""
        self._kinds.append(ops)

    # ---- the list, for the kinds ----
    def add(self, ev: DynEvent) -> None:
        """dyn_event_add()."""
        self._events.append(ev)

    def remove(self, ev: DynEvent) -> None:
        """dyn_event_remove()."""
        self._events.remove(ev)

    def of(self, ops: DynEventOps | None) -> list[DynEvent]:
        """The events of one kind (None: all), in creation order."""
        with self.lock:
            return [ev for ev in self._events if ops is None or ev.ops is ops]

    def show(self, ops: DynEventOps | None) -> bytes:
        """The lines of one kind's events (None: all: dynamic_events)."""
        with self.lock:
            return "".join(ev.ops.show(ev) for ev in self.of(ops)).encode("latin-1")

    def run(self, data: bytes, command: Callable[[str], None]) -> None:
        """trace_parse_run_command(): each command of a write in order, stopping at the first
        failure, logged in error_log (OSError with the command's errno)."""
        with self.lock:
            try:
                for text in iter_commands(data):
                    command(text)
            except ProbeError as e:
                for message, cmd, pos, location in e.preceding:
                    self._error_log.log(location, message, cmd.encode("latin-1"), pos)
                if e.message is not None:
                    self._error_log.log(e.location, e.message, e.command.encode("latin-1"), e.pos)
                raise OSError(e.errno, e.message or errno.errorcode.get(e.errno, "")) from None

    def write_kind(self, data: bytes, ops: DynEventOps) -> None:
        """A write to one kind's own file (kprobe_events, uprobe_events):
        create_or_delete_trace_kprobe()/_uprobe() for each command -- a removal of that kind's
        events, or a create only that kind may claim (unclaimed: EINVAL, unlogged)."""
        def command(text: str) -> None:
            if text[:1] == "-":
                self.release(text, ops)
                return
            try:
                ops.create(text)
            except ProbeError as e:
                if e.errno == errno.ECANCELED:
                    raise silent_error(errno.EINVAL) from None
                raise
        self.run(data, command)

    def release(self, command: str, ops: DynEventOps | None) -> None:
        """dyn_event_release(): every matching event (of one kind; None: of any), in order,
        until one refuses (EBUSY); ENOENT if none matches."""
        removal = parse_release(command)
        err = errno.ENOENT
        for ev in self.of(ops):
            if not ev.ops.match(removal.system, removal.event, removal.args, ev):
                continue
            err = 0
            try:
                ev.ops.free(ev)
            except ProbeError as e:
                err = e.errno
                break
        if err:
            raise ProbeError(err)

    def release_all(self, ops: DynEventOps | None) -> None:
        """dyn_events_release_all() (an open with O_TRUNC): EBUSY, removing nothing, while any
        is busy; else every one goes, in order, up to one that refuses to (EBUSY)."""
        with self.lock:
            events = self.of(ops)
            if any(ev.ops.is_busy(ev) for ev in events):
                raise OSError(errno.EBUSY, "a dynamic event is in use")
            for ev in events:  # in order, until one refuses (a synthetic event enabled)
                try:
                    ev.ops.free(ev)
                except ProbeError as e:
                    raise OSError(e.errno, "a dynamic event is in use") from None

    # ---- the dynamic_events file ----
    def read(self) -> bytes:
        return self.show(None)

    def write(self, data: bytes) -> None:
        self.run(data, self._create)

    def truncate(self) -> None:
        self.release_all(None)

    def _create(self, command: str) -> None:
        """create_dyn_event(): a removal of any kind's events, or a create the first kind
        that claims it makes (an unclaimed command is EINVAL, unlogged)."""
        if command[:1] in ("-", "!"):
            self.release(command, None)
            return
        if not argv_split(command):
            return  # a blank line: every kind gives it back as nothing to do
        for kind in self._kinds:
            try:
                kind.create(command)
                return
            except ProbeError as e:
                if e.errno != errno.ECANCELED:
                    raise
        raise silent_error(errno.EINVAL)
