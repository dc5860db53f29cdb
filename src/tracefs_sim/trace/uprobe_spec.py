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
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..lib.kstrtox import kstrtoull
from .dynevent import argv_split
from .ftrace_records import SymFlags
from .probe_args import (
    MAX_TRACE_ARGS,
    ArgField,
    ArgFlags,
    ProbeArg,
    Symbolizer,
    decode_args,
    format_args,
    parse_probe_arg,
)
from .probe_log import ProbeError, ProbeLog
from .trace_probe import (
    MAX_EVENT_NAME_LEN,
    compare_arg_type,
    match_command_args,
    parse_event_name,
    probe_event_fields,
    probe_event_print_fmt,
)

UPROBE_EVENT_SYSTEM = "uprobes"
LOCATION = "trace_uprobe"

_DIGITS = tuple("0123456789")
_VADDR = struct.Struct("<Q")
_VADDR_RET = struct.Struct("<QQ")  # a uretprobe's func and return address


class PathInfo(NamedTuple):
    """What kern_path() finds: the inode (its identity, for "same uprobe" and the engine), its
    size (uprobe_register's bound) and whether it is a regular file (d_is_reg)."""
    inode: tuple[int, int]  # (st_dev, st_ino)
    size: int
    regular: bool


# kern_path(PATH, LOOKUP_FOLLOW): PathInfo, or OSError with the lookup's errno
PathLookup = Callable[[str], PathInfo]


@dataclass(frozen=True)
class UprobeSpec:
    group: str
    event: str
    is_return: bool
    filename: str  # PATH as written
    offset: int
    ref_ctr_offset: int
    path: PathInfo
    args: tuple[ProbeArg, ...]
    argv: tuple[str, ...] = ()  # the command's words, for errors logged at registration

    @property
    def head_size(self) -> int:
        """SIZEOF_TRACE_ENTRY(is_return): the common header and vaddr[1 or 2]."""
        return 24 if self.is_return else 16

    def point_text(self) -> str:
        """``PATH:0x%016lx[(0x%lx)]``, as trace_uprobe_show() prints the probe point."""
        text = f"{self.filename}:0x{self.offset:016x}"
        if self.ref_ctr_offset:
            text += f"(0x{self.ref_ctr_offset:x})"
        return text

    def command_text(self) -> str:
        """trace_uprobe_show(): the line uprobe_events and dynamic_events read back."""
        words = [f"{'r' if self.is_return else 'p'}:{self.group}/{self.event}", self.point_text()]
        words += [f"{a.name}={a.comm}" for a in self.args]
        return " ".join(words) + "\n"

    def profile_line(self, nhit: int) -> str:
        """probes_profile_seq_show()."""
        return f"  {self.filename} {self.event:<44} {nhit:15}\n"

    def fields(self) -> list[ArgField]:
        """uprobe_event_define_fields(): vaddr[0] (and vaddr[1]), then the arguments."""
        return probe_event_fields(self.args, self.is_return)

    def print_fmt(self) -> str:
        """What follows ``print fmt: `` in the format file."""
        return probe_event_print_fmt(self.args, self.is_return)

    def format(self) -> tuple[list[ArgField], str]:
        return self.fields(), self.print_fmt()

    def print_record(self, payload: bytes, symbolize: Symbolizer, sym_flags: SymFlags) -> str:
        """print_uprobe_event(): ``EVENT: (0x%lx)`` or ``EVENT: (0x%lx <- 0x%lx)`` (the return
        address, then the function), then the arguments.  No symbols: these are user
        addresses."""
        if self.is_return:
            func, ret_ip = _VADDR_RET.unpack_from(payload, 8)
            where = f"0x{ret_ip:x} <- 0x{func:x}"
        else:
            where = f"0x{_VADDR.unpack_from(payload, 8)[0]:x}"
        values = decode_args(self.args, payload, self.head_size)
        return f"{self.event}: ({where}){format_args(self.args, values, symbolize)}\n"

    def log(self, index: int) -> ProbeLog:
        log = ProbeLog(self.argv, LOCATION)
        log.index = index
        return log


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

    flags = ArgFlags.RETURN if is_return else ArgFlags(0)
    args: list[ProbeArg] = []
    size = 0
    for i, text in enumerate(argv[2:2 + MAX_TRACE_ARGS]):  # the rest is ignored, as in Linux
        log.index = i + 2
        arg_ = parse_probe_arg(text, i, args, size, flags, log)
        args.append(arg_)
        size += arg_.size
    return UprobeSpec(group, event, is_return, filename, offset, ref_ctr_offset, path, tuple(args), tuple(argv))


def trace_uprobe_match(spec: UprobeSpec, system: str | None, event: str, argv: Sequence[str]) -> bool:
    """trace_uprobe_match(): whether a removal ``-:[SYSTEM/]EVENT [PATH:OFFSET [ARGS...]]``
    names this probe (the point as it reads back: ``PATH:0x%016lx[(0x%lx)]``)."""
    if event and spec.event != event:
        return False
    if system is not None and spec.group != system:
        return False
    if not argv:
        return True
    if argv[0] != spec.point_text():
        return False
    return match_command_args(spec.args, argv[1:])


# ---------------------------------------------------------------------------------------------
# Registration checks (register_trace_uprobe / append_trace_uprobe)


def ref_ctr_conflict(spec: UprobeSpec, others: Sequence[UprobeSpec]) -> bool:
    """validate_ref_ctr_offset(): another probe on the same inode and offset with another
    reference counter (the kernel refuses with EINVAL and only a pr_warn)."""
    return any(o.path.inode == spec.path.inode and o.offset == spec.offset
               and o.ref_ctr_offset != spec.ref_ctr_offset for o in others)


def check_existing(spec: UprobeSpec, existing: Sequence[UprobeSpec]) -> None:
    """The group/event is already a uprobe event: the spec may join it (same kind, same
    argument names and types, not the same inode+offset with the same arguments).
    ``existing``: that event's probes, the first one first.  ProbeError(EEXIST)."""
    first = existing[0]
    if spec.is_return != first.is_return:
        raise spec.log(0).error(0, "DIFF_PROBE_TYPE", errno.EEXIST)
    diff = compare_arg_type(spec.args, first.args)
    if diff:
        raise spec.log(diff + 1).error(0, "DIFF_ARG_TYPE", errno.EEXIST)
    for other in existing:
        if (other.path.inode == spec.path.inode and other.offset == spec.offset
                and all(x.comm == y.comm for x, y in zip(other.args, spec.args))):
            raise spec.log(0).error(0, "SAME_PROBE", errno.EEXIST)


def event_exists_error(spec: UprobeSpec) -> ProbeError:
    """The group/event name belongs to an event that is not a uprobe's."""
    return spec.log(0).error(0, "EVENT_EXIST", errno.EEXIST)
