"""The commands of set_ftrace_filter (`func:traceon[:N]`, `func:traceoff[:N]`,
`func:stacktrace[:N]`, `func:snapshot[:N]`, `func:enable_event:sys:event[:N]`,
`func:disable_event:sys:event[:N]`, `func:dump`, `func:cpudump`):
Linux 6.1's function probes (ftrace_process_regex, register/unregister_ftrace_function_probe in
ftrace.c, the probe ops of trace_functions.c and trace_events.c), for one trace array.

This module keeps what Linux keeps (one probe per command kind and array, the functions of
each in an ftrace_hash whose bucket order is the order they are listed in, the counts and
the event each one drives) and hands the guest the table it runs at every hit
(FtraceSites.set_probes): the guest flips tracing_on, writes stack traces, soft-enables events
and decrements the counts itself.
"""
from __future__ import annotations

import errno
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from ..probes.ftrace import (PROBE_CPUDUMP, PROBE_DISABLE_EVENT, PROBE_DUMP, PROBE_ENABLE_EVENT, PROBE_SNAPSHOT,
                             PROBE_SNAPSHOT_COUNT, PROBE_STACKTRACE, PROBE_STACKTRACE_COUNT, PROBE_TRACEOFF,
                             PROBE_TRACEOFF_COUNT, PROBE_TRACEON, PROBE_TRACEON_COUNT, FunctionProbe, ProbeCounter)
from .event_control import EventControl, EventFile
from .ftrace_filter import compile_match, match_functions
from .ftrace_hash import FtraceHash
from ..lib.kstrtox import kstrtoull

# The top-level array's slot: dump and cpudump print it whatever array registered them
# (ftrace_dump() prints global_trace).
_TOP_SLOT = 0

COMMANDS = ("traceon", "traceoff", "stacktrace", "snapshot", "enable_event", "disable_event", "dump", "cpudump")
_GUEST_COMMAND = {
    ("traceon", False): PROBE_TRACEON, ("traceon", True): PROBE_TRACEON_COUNT,
    ("traceoff", False): PROBE_TRACEOFF, ("traceoff", True): PROBE_TRACEOFF_COUNT,
    ("stacktrace", False): PROBE_STACKTRACE, ("stacktrace", True): PROBE_STACKTRACE_COUNT,
    ("snapshot", False): PROBE_SNAPSHOT, ("snapshot", True): PROBE_SNAPSHOT_COUNT,
    ("dump", True): PROBE_DUMP, ("cpudump", False): PROBE_CPUDUMP,
}
# ftrace_dump_callback() and ftrace_cpudump_callback() register with the parameter "1",
# whatever was written: dump's ops keep that count (it dumps once), cpudump's keep none.
_FIXED_PARAM = {"dump": "1", "cpudump": None}


@dataclass(eq=False)
class EventProbeData:
    """event_probe_data: one enable_event/disable_event registration, shared by the functions
    it matched (one count for them all)."""
    file: EventFile
    enable: bool
    counter: ProbeCounter
    event_file_addr: int
    ref: int = 0


@dataclass(eq=False)
class FuncProbe:
    """ftrace_func_probe: one command kind (its ops: counted or not) in this array."""
    command: str
    counted: bool
    hash: FtraceHash = field(default_factory=lambda: FtraceHash(0))
    counters: dict[int, ProbeCounter] = field(default_factory=dict)    # traceon/off, stacktrace :N
    events: dict[int, EventProbeData] = field(default_factory=dict)    # enable/disable_event


def _signed(value: int) -> int:
    """The unsigned long as the `long` count Linux keeps."""
    return value - (1 << 64) if value >= 1 << 63 else value


class FunctionCommands:
    """The function probes of one trace array."""

    def __init__(self, functions: Sequence[str], address: Callable[[str], int], slot: int,
                 read_counter: Callable[[ProbeCounter], int], on_change: Callable[[], None],
                 events: EventControl, alloc_snapshot: Callable[[], None]):
        """functions: the traceable functions (available_filter_functions order); address(name):
        a function's site; slot: the array's guest slot; read_counter: a count as the guest
        has it; on_change(): hand the guest the new table (OSError: it does not fit, and
        nothing changed); events: the array's events, which enable_event/disable_event act on;
        alloc_snapshot(): tracing_alloc_snapshot_instance() of the array (snapshot)."""
        self._functions = functions
        self._address = address
        self._name = {address(name): name for name in functions}
        self.slot = slot
        self.events = events
        self._read_counter = read_counter
        self._on_change = on_change
        self._alloc_snapshot = alloc_snapshot
        self.probes: list[FuncProbe] = []   # tr->func_probes: the newest first

    # ---- set_ftrace_filter ----
    def run(self, token: str) -> None:
        """ftrace_process_regex() for a set_ftrace_filter token holding `:`:
        `[!]glob:command[:param]`."""
        glob, _, rest = token.partition(":")
        command, has_param, param = rest.partition(":")
        if command not in COMMANDS:
            raise OSError(errno.EINVAL, f"unknown ftrace command {command!r}")
        if command in ("enable_event", "disable_event"):
            self._event_command(glob, command, param if has_param else None)
        else:
            self._trace_command(glob, command, param if has_param else None)

    def _probed(self) -> Iterator[tuple[FuncProbe, int, str]]:
        """(probe, ip, function name) for every function of every probe, in order."""
        for probe in self.probes:
            for ip in probe.hash:
                yield probe, ip, self._name[ip]

    def lines(self) -> bytes:
        """t_probe_show(): every probe's functions, as its ops print them."""
        out = []
        for probe, ip, name in self._probed():
            if probe.command in ("enable_event", "disable_event"):
                data = probe.events[ip]
                event = data.file.event
                count = self._read_counter(data.counter)
                tail = "unlimited" if count == -1 else f"count={count}"
                out.append(f"{name}:{probe.command}:{event.system}:{event.name}:{tail}\n")
            elif probe.counted:
                out.append(f"{name}:{probe.command}:count={self._read_counter(probe.counters[ip])}\n")
            else:
                out.append(f"{name}:{probe.command}:unlimited\n")
        return "".join(out).encode()

    def guest_probes(self) -> list[FunctionProbe]:
        """What the guest runs for this array, the newest probe first."""
        out = []
        for probe, ip, name in self._probed():
            if probe.command in ("enable_event", "disable_event"):
                data = probe.events[ip]
                cmd = PROBE_ENABLE_EVENT if data.enable else PROBE_DISABLE_EVENT
                out.append(FunctionProbe(name, cmd, self.slot, data.counter, data.event_file_addr))
            else:
                # (ftrace_dump prints the top level whatever array asked)
                slot = _TOP_SLOT if probe.command in ("dump", "cpudump") else self.slot
                out.append(FunctionProbe(name, _GUEST_COMMAND[probe.command, probe.counted], slot,
                                         probe.counters.get(ip)))
        return out

    def clear(self) -> None:
        """The array goes away: every probe unregistered."""
        for probe in list(self.probes):
            self._unregister(probe.command, probe.counted, "*")

    # ---- the commands ----
    def _trace_command(self, glob: str, command: str, param: str | None) -> None:
        """ftrace_trace_onoff_callback / ftrace_stacktrace_callback + ftrace_trace_probe_callback,
        ftrace_trace_snapshot_callback (the snapshot buffer allocated first)."""
        if command in _FIXED_PARAM:
            param = _FIXED_PARAM[command]
        counted = param is not None
        if glob.startswith("!"):
            self._unregister(command, counted, glob[1:])
            return
        count = -1
        number = param.split(":", 1)[0] if param is not None else ""
        if number:
            count = _signed(kstrtoull(number, 0))
        if command == "snapshot":
            self._alloc_snapshot()
        self._register(command, counted, glob, lambda: ProbeCounter(count) if counted else None)

    def _event_command(self, glob: str, command: str, param: str | None) -> None:
        """event_enable_func()."""
        if param is None:
            raise OSError(errno.EINVAL, "enable_event needs system:event")
        system, has_event, rest = param.partition(":")
        if not has_event:
            raise OSError(errno.EINVAL, "enable_event needs system:event")
        event, has_count, rest = rest.partition(":")
        file, file_addr = self.events.find_probe_target(system, event)
        counted = bool(has_count)
        if glob.startswith("!"):
            self._unregister(command, counted, glob[1:])
            return
        count = -1
        if counted:
            number = rest.split(":", 1)[0]
            if not number:
                raise OSError(errno.EINVAL, "empty count")
            count = _signed(kstrtoull(number, 0))
        self.events.soft_enable(file)
        data = EventProbeData(file, command == "enable_event", ProbeCounter(count), file_addr)
        try:
            self._register(command, counted, glob, lambda: data)
        except OSError:
            self.events.soft_release(file)
            raise

    # ---- register_ftrace_function_probe / unregister_ftrace_function_probe_func ----
    def _find(self, command: str, counted: bool) -> FuncProbe | None:
        for probe in self.probes:
            if probe.command == command and probe.counted == counted:
                return probe
        return None

    def _register(self, command: str, counted: bool, glob: str,
                  init: Callable[[], ProbeCounter | EventProbeData | None]) -> None:
        found = self._find(command, counted)
        created = found is None
        probe = FuncProbe(command, counted) if found is None else found
        old = probe.hash
        new = old.copy()
        matched = match_functions(self._functions, glob, by_index=True)
        if not matched:
            raise OSError(errno.EINVAL, f"no function matches {glob!r}")
        for name in matched:  # ftrace_match_records: in record (address) order
            ip = self._address(name)
            if ip not in new:
                new.add(ip)
        added = [ip for ip in new if ip not in old]
        if not added:
            raise OSError(errno.EINVAL, f"{glob!r}:{command} is already set")
        saved = (list(self.probes), probe.hash, dict(probe.counters), dict(probe.events))
        for ip in added:
            data = init()
            if isinstance(data, EventProbeData):
                data.ref += 1
                probe.events[ip] = data
            elif data is not None:
                probe.counters[ip] = data
        probe.hash = new.moved()
        if created:
            self.probes.insert(0, probe)  # list_add(&probe->list, &tr->func_probes)
        try:
            self._on_change()
        except OSError:
            self.probes, probe.hash, probe.counters, probe.events = saved
            raise

    def _unregister(self, command: str, counted: bool, glob: str) -> None:
        probe = self._find(command, counted)
        if probe is None:
            raise OSError(errno.ENODEV, f"no {command} probe")
        if glob in ("*", ""):
            removed = list(probe.hash)
        elif glob[:1].isascii() and glob[:1].isdigit():
            removed = []  # MATCH_INDEX: ftrace_match() has no case for it
        else:
            match = compile_match(glob)
            removed = [ip for ip in probe.hash if match(self._name[ip])]
        if not removed:
            raise OSError(errno.EINVAL, f"no {command} probe on {glob!r}")
        hash = probe.hash.copy()
        for ip in removed:
            hash.remove(ip)
        releases = []
        for ip in removed:
            probe.counters.pop(ip, None)
            data = probe.events.pop(ip, None)
            if data is not None:
                data.ref -= 1
                if data.ref == 0:
                    releases.append(data.file)
        if len(hash):
            probe.hash = hash.moved()
        else:
            self.probes.remove(probe)
        self._on_change()
        for file in releases:
            # event_enable_free(): the registration's soft mode goes with its last function
            self.events.soft_release(file)
