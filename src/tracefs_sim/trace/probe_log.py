"""trace_probe_log of kernel/trace/trace_probe.c: the errors of the probe-event commands
(kprobe and uprobe events, eprobes), with Linux's text, errno and the caret position their
error_log line shows under the command.  Shared by every dynamic event kind that logs this way."""

from __future__ import annotations

import errno
from collections.abc import Sequence

# The ERRORS table of trace_probe.h, in order.
ERRORS = {
    "FILE_NOT_FOUND": "Failed to find the given file",
    "NO_REGULAR_FILE": "Not a regular file",
    "BAD_REFCNT": "Invalid reference counter offset",
    "REFCNT_OPEN_BRACE": "Reference counter brace is not closed",
    "BAD_REFCNT_SUFFIX": "Reference counter has wrong suffix",
    "BAD_UPROBE_OFFS": "Invalid uprobe offset",
    "MAXACT_NO_KPROBE": "Maxactive is not for kprobe",
    "BAD_MAXACT": "Invalid maxactive number",
    "MAXACT_TOO_BIG": "Maxactive is too big",
    "BAD_PROBE_ADDR": "Invalid probed address or symbol",
    "NON_UNIQ_SYMBOL": "The symbol is not unique",
    "BAD_RETPROBE": "Retprobe address must be an function entry",
    "BAD_ADDR_SUFFIX": "Invalid probed address suffix",
    "NO_GROUP_NAME": "Group name is not specified",
    "GROUP_TOO_LONG": "Group name is too long",
    "BAD_GROUP_NAME": "Group name must follow the same rules as C identifiers",
    "NO_EVENT_NAME": "Event name is not specified",
    "EVENT_TOO_LONG": "Event name is too long",
    "BAD_EVENT_NAME": "Event name must follow the same rules as C identifiers",
    "EVENT_EXIST": "Given group/event name is already used by another event",
    "RETVAL_ON_PROBE": "$retval is not available on probe",
    "BAD_STACK_NUM": "Invalid stack number",
    "BAD_ARG_NUM": "Invalid argument number",
    "BAD_VAR": "Invalid $-variable specified",
    "BAD_REG_NAME": "Invalid register name",
    "BAD_MEM_ADDR": "Invalid memory address",
    "BAD_IMM": "Invalid immediate value",
    "IMMSTR_NO_CLOSE": "String is not closed with '\"'",
    "FILE_ON_KPROBE": "File offset is not available with kprobe",
    "BAD_FILE_OFFS": "Invalid file offset value",
    "SYM_ON_UPROBE": "Symbol is not available with uprobe",
    "TOO_MANY_OPS": "Dereference is too much nested",
    "DEREF_NEED_BRACE": "Dereference needs a brace",
    "BAD_DEREF_OFFS": "Invalid dereference offset",
    "DEREF_OPEN_BRACE": "Dereference brace is not closed",
    "COMM_CANT_DEREF": "$comm can not be dereferenced",
    "BAD_FETCH_ARG": "Invalid fetch argument",
    "ARRAY_NO_CLOSE": "Array is not closed",
    "BAD_ARRAY_SUFFIX": "Array has wrong suffix",
    "BAD_ARRAY_NUM": "Invalid array size",
    "ARRAY_TOO_BIG": "Array number is too big",
    "BAD_TYPE": "Unknown type is specified",
    "BAD_STRING": "String accepts only memory argument",
    "BAD_SYMSTRING": "Symbol String doesn't accept data/userdata",
    "BAD_BITFIELD": "Invalid bitfield",
    "ARG_NAME_TOO_LONG": "Argument name is too long",
    "NO_ARG_NAME": "Argument name is not specified",
    "BAD_ARG_NAME": "Argument name must follow the same rules as C identifiers",
    "USED_ARG_NAME": "This argument name is already used",
    "ARG_TOO_LONG": "Argument expression is too long",
    "NO_ARG_BODY": "No argument expression",
    "BAD_INSN_BNDRY": "Probe point is not an instruction boundary",
    "FAIL_REG_PROBE": "Failed to register probe event",
    "DIFF_PROBE_TYPE": "Probe type is different from existing probe",
    "DIFF_ARG_TYPE": "Argument type or name is different from existing probe",
    "SAME_PROBE": "There is already the exact same probe event",
    "NO_EVENT_INFO": "This requires both group and event name to attach",
    "BAD_ATTACH_EVENT": "Attached event does not exist",
    "BAD_ATTACH_ARG": "Attached event does not have this field",
    "NO_EP_FILTER": "No filter rule after 'if'",
    "EVENT_TOO_BIG": "Event too big (too many fields?)",
}


class ProbeError(Exception):
    """A command the kernel refuses.  ``message`` is None when it fails without logging."""

    def __init__(self, err: int, message: str | None = None, command: str = "", pos: int = 0,
                 location: str = "trace_kprobe"):
        super().__init__(message or errno.errorcode.get(err, str(err)))
        self.errno = err
        self.message = message
        self.command = command  # what error_log shows after "Command: " (argv joined by ' ')
        self.pos = pos  # caret column under the command
        self.location = location
        # entries the kernel logged before this one for the same command (text, command, pos,
        # location), in order: a parser that logs and goes on to fail again
        self.preceding: tuple[tuple[str, str, int, str], ...] = ()

    def after(self, earlier: ProbeError) -> ProbeError:
        """This error, logged after `earlier` (and what preceded it)."""
        if earlier.message is not None:
            self.preceding = (*earlier.preceding, (earlier.message, earlier.command, earlier.pos, earlier.location))
        return self


class ProbeLog:
    """trace_probe_log: the argv of the command being parsed and the index of the word the
    parser is at.  Errors point at ``offset`` characters into that word."""

    def __init__(self, argv: Sequence[str], location: str = "trace_kprobe"):
        self.argv = list(argv)
        self.index = 0
        self.location = location

    def error(self, offset: int, code: str, err: int = errno.EINVAL) -> ProbeError:
        # __trace_probe_log_err(): the word's start in the argv joined with single spaces; an
        # index past the last word points one past the trailing space.
        pos = 0
        length = 0
        for i, word in enumerate(self.argv):
            if i == self.index:
                pos = length
            length += len(word) + 1
        if self.index >= len(self.argv):
            pos, offset = length, 0
        return ProbeError(err, ERRORS[code], " ".join(self.argv), (pos + offset) & 0xFFFF,
                          self.location)


def silent_error(err: int = errno.EINVAL) -> ProbeError:
    """A failure the kernel returns without an error_log entry."""
    return ProbeError(err)
