"""The uprobe command grammar of Linux 6.1 (the create/parse half of kernel/trace/trace_uprobe.c).

    p[:[GRP/][EVENT]] PATH:OFFSET[%return][(REF_CTR_OFFSET)] [FETCHARGS]    a uprobe
    r[:[GRP/][EVENT]] PATH:OFFSET[(REF_CTR_OFFSET)] [FETCHARGS]             a uretprobe
    -:[GRP/][EVENT] [PATH:0x%016lx[(0x%lx)] [NAME=FETCHARG ...]]             remove what matches

Parsing gives a ``UprobeSpec`` (what ``struct trace_uprobe`` holds before registration);
failures raise ``ProbeError`` with Linux's errno, error_log text and caret (logged as
``trace_uprobe``).  The path is looked up when the command is parsed, as kern_path() does; the
offset is only checked against the file when the event is enabled (uprobe_register()).  The
spec knows its read-back line, its format-file fields and print fmt, and prints its records.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from ..lib.kstrtox import kstrtoull
from .dynevent import argv_split
from .ftrace_records import SymFlags
from .probe_args import ArgFlags, ProbeArg, Symbolizer, format_args
from .probe_log import ProbeError, ProbeLog
from .trace_probe import MAX_EVENT_NAME_LEN, ProbeCommand, parse_event_name, parse_probe_args

UPROBE_EVENT_SYSTEM = "uprobes"
LOCATION = "trace_uprobe"

_DIGITS = tuple("0123456789")


class PathInfo(NamedTuple):
    """What kern_path() finds: the inode (its identity, for "same uprobe" and the engine), its
    size (uprobe_register's bound) and whether it is a regular file (d_is_reg)."""
    inode: tuple[int, int]  # (st_dev, st_ino)
    size: int
    regular: bool


# kern_path(PATH, LOOKUP_FOLLOW): PathInfo, or OSError with the lookup's errno
PathLookup = Callable[[str], PathInfo]


@dataclass(frozen=True)
class UprobeSpec(ProbeCommand):
    LOCATION: ClassVar[str] = LOCATION

    group: str
    event: str
    is_return: bool
    filename: str  # PATH as written
    offset: int
    ref_ctr_offset: int
    path: PathInfo
    args: tuple[ProbeArg, ...]
    argv: tuple[str, ...] = ()  # the command's words, for errors logged at registration

    def point_text(self) -> str:
        """``PATH:0x%016lx[(0x%lx)]``, as trace_uprobe_show() prints the probe point."""
        text = f"{self.filename}:0x{self.offset:016x}"
        if self.ref_ctr_offset:
            text += f"(0x{self.ref_ctr_offset:x})"
        return text

    def command_text(self) -> str:
        """trace_uprobe_show(): the line uprobe_events and dynamic_events read back."""
        return self.command_line("r" if self.is_return else "p", self.point_text())

    def profile_line(self, nhit: int) -> str:
        """probes_profile_seq_show()."""
        return f"  {self.filename} {self.event:<44} {nhit:15}\n"

    def same_point(self, other: ProbeCommand) -> bool:
        """trace_uprobe_has_same_uprobe(): the same inode and offset."""
        assert isinstance(other, UprobeSpec)
        return other.path.inode == self.path.inode and other.offset == self.offset

    def print_record(self, payload: bytes, symbolize: Symbolizer, sym_flags: SymFlags) -> str:
        """print_uprobe_event(): ``EVENT: (0x%lx)`` or ``EVENT: (0x%lx <- 0x%lx)`` (the return
        address, then the function), then the arguments.  No symbols: these are user
        addresses."""
        func, ret_ip, values = self.decode_record(payload)
        where = f"0x{ret_ip:x} <- 0x{func:x}" if self.is_return else f"0x{func:x}"
        return f"{self.event}: ({where}){format_args(self.args, values, symbolize)}\n"


def _basename_head(filename: str) -> str:
    """kbasename() cut at the first of ".-_" (the automatic event name's middle)."""
    tail = filename[filename.rfind("/") + 1:]
    for i, ch in enumerate(tail):
        if ch in ".-_":
            return tail[:i]
    return tail


def create_uprobe(command: str, lookup: PathLookup) -> UprobeSpec | None:
    """__trace_uprobe_create(): the spec of a ``p``/``r`` command.  ProbeError(ECANCELED):
    not a uprobe command (dynamic_events then asks the other kinds).  None: a blank command."""
    argv = argv_split(command)
    if not argv:
        return None
    head = argv[0]
    if head[0] not in "pr" or len(argv) < 2:
        raise ProbeError(errno.ECANCELED)
    is_return = head[0] == "r"
    event: str | None = head[2:] if head[1:2] == ":" else None
    target = argv[1]
    if "/" not in target:
        raise ProbeError(errno.ECANCELED)
    colon = target.rfind(":")  # the last one: the path may hold ':' too
    if colon < 0 or target[colon + 1:colon + 2] not in _DIGITS:  # isdigit(): ASCII only
        raise ProbeError(errno.ECANCELED)
    log = ProbeLog(argv, LOCATION)
    log.index = 1
    filename = target[:colon]
    try:
        path = lookup(filename)
    except OSError as e:
        raise log.error(0, "FILE_NOT_FOUND", e.errno or errno.ENOENT) from None
    if not path.regular:
        raise log.error(0, "NO_REGULAR_FILE")
    at = colon + 1  # where the offset starts in the word
    arg = target[at:]
    ref_ctr_offset = 0
    rctr = arg.find("(")
    if rctr >= 0:
        rctr_end = arg.find(")", rctr)
        if rctr_end < 0:
            raise log.error(len(target), "REFCNT_OPEN_BRACE")
        if rctr_end + 1 != len(arg):
            raise log.error(at + rctr_end + 1, "BAD_REFCNT_SUFFIX")
        try:
            ref_ctr_offset = kstrtoull(arg[rctr + 1:rctr_end], 0)
        except OSError as e:
            raise log.error(at + rctr + 1, "BAD_REFCNT", e.errno or errno.EINVAL) from None
        arg = arg[:rctr]
    pct = arg.find("%")
    if pct >= 0:
        if arg[pct:] != "%return":
            raise log.error(at + pct, "BAD_ADDR_SUFFIX")
        arg = arg[:pct]
        is_return = True
    try:
        offset = kstrtoull(arg, 0)
    except OSError as e:
        raise log.error(at, "BAD_UPROBE_OFFS", e.errno or errno.EINVAL) from None

    log.index = 0
    group = UPROBE_EVENT_SYSTEM
    if event is not None:
        g, event = parse_event_name(event, 2, log)
        group = g or group
    if event is None:
        # snprintf(buf, MAX_EVENT_NAME_LEN, "%c_%s_0x%lx", 'p', ...): 'p' for a uretprobe too
        event = f"p_{_basename_head(filename)}_0x{offset:x}"[:MAX_EVENT_NAME_LEN - 1]

    args = parse_probe_args(argv[2:], ArgFlags.RETURN if is_return else ArgFlags(0), log)
    return UprobeSpec(group, event, is_return, filename, offset, ref_ctr_offset, path, args, tuple(argv))


# ---------------------------------------------------------------------------------------------
# Registration (register_trace_uprobe)


def ref_ctr_conflict(spec: UprobeSpec, others: Sequence[UprobeSpec]) -> bool:
    """validate_ref_ctr_offset(): another probe on the same inode and offset with another
    reference counter (the kernel refuses with EINVAL and only a pr_warn)."""
    return any(o.same_point(spec) and o.ref_ctr_offset != spec.ref_ctr_offset for o in others)
