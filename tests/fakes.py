"""Test doubles for the trace and fs tests: event descriptions parsed from the real Linux 6.1
format files, and a small machine that satisfies the Machine contract (no emulation).
"""

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

FORMATS_FILE = Path(__file__).parent / "data" / "linux-6.1-formats.txt"


@dataclass(frozen=True)
class FieldDesc:
    type: str
    name: str
    offset: int
    size: int
    is_signed: bool


@dataclass(frozen=True)
class EventDesc:
    system: str
    name: str
    fields: tuple[FieldDesc, ...]
    print_fmt: str
    key_addr: int = 0


_FIELD = re.compile(r"\tfield:(.*);\toffset:(\d+);\tsize:(\d+);\tsigned:(\d);$")


def real_format_sections() -> dict[str, str]:
    """'system/event' (or 'header_page'...) -> the real file's text, from the captured formats."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in FORMATS_FILE.read_text().splitlines(keepends=True):
        if line.startswith("=== "):
            current = line[4:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {name: "".join(lines) for name, lines in sections.items()}


def _parse_field(declaration: str, offset: int, size: int, signed: bool) -> FieldDesc:
    """Back to the kernel's own spelling: `char comm[16]` is type `char[16]`, name `comm`."""
    if declaration.startswith("__data_loc"):
        type_, name = declaration.rsplit(" ", 1)
        return FieldDesc(type_, name, offset, size, signed)
    type_, name = declaration.rsplit(" ", 1)
    if "[" in name:
        name, dims = name.split("[", 1)
        type_ += "[" + dims
    return FieldDesc(type_, name, offset, size, signed)


def event_desc_from_format(system: str, text: str) -> EventDesc:
    name = re.search(r"^name: (.*)$", text, re.M).group(1)
    print_fmt = re.search(r"^print fmt: (.*)$", text, re.M).group(1)
    fields = []
    own_fields = text.split("\n\n", 1)[1]   # after the common fields' blank line
    for line in own_fields.splitlines():
        match = _FIELD.match(line)
        if match:
            fields.append(_parse_field(match.group(1), int(match.group(2)), int(match.group(3)),
                                       match.group(4) == "1"))
    return EventDesc(system, name, tuple(fields), print_fmt)


def real_event_descs() -> list[EventDesc]:
    """The captured tracepoint events (ftrace's own record types and headers excluded)."""
    descs = []
    for section, text in real_format_sections().items():
        if "/" in section and not section.startswith("ftrace/"):
            descs.append(event_desc_from_format(section.split("/")[0], text))
    return descs


@dataclass(frozen=True)
class FakeOptions:
    cpus: int = 2
    seed: int | None = None
    workload: str = "none"
    kernel_image: str | None = None


@dataclass
class FakeImage:
    events: list[EventDesc] = field(default_factory=real_event_descs)
    symbols: list = field(default_factory=list)
    mcount_sites: dict = field(default_factory=dict)


class FakeMachine:
    """Just enough of tracefs_sim.machine.Machine for the trace core, fs and daemon: a clock,
    a CPU count and the event list. It runs nothing."""

    def __init__(self, options: FakeOptions = FakeOptions(), clock_ns: int | None = None):
        self.options = options
        self.nr_cpus = options.cpus
        self.image = FakeImage()
        self._fixed_clock = clock_ns
        self._t0 = time.monotonic_ns()
        self._lock = threading.Lock()
        self.started = False
        self.stopped = False

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True

    def now_ns(self) -> int:
        if self._fixed_clock is not None:
            return self._fixed_clock
        return time.monotonic_ns() - self._t0

    def kallsyms(self) -> str:
        return ""

    def programs(self) -> list[str]:
        return []

    def spawn(self, argv, on_output=None):
        raise FileNotFoundError(argv[0])

    def tasks(self) -> list:
        return []
