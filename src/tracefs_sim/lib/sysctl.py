"""The /proc/sys files' writes as Linux parses them (kernel/sysctl.c: proc_dointvec and
proc_dointvec_minmax), for the emulated kernel's sysctls wherever they are served."""

from __future__ import annotations

import errno
from typing import Protocol

from .kstrtox import fixup_radix, parse_integer

# proc_dointvec reads at most this much of one write (PAGE_SIZE - 1).
_MAX_WRITE = 4095
# proc_get_long() copies at most TMPBUFLEN - 1 bytes; a number filling them is refused.
_TMPBUFLEN = 22
_SPACES = b" \t\n\v\f\r"          # isspace()
_SEPARATORS = b" \t\n"            # proc_wspace_sep: what may follow the number
_INT_MAX = 2**31 - 1


def _strtoul(text: bytes) -> tuple[int, int]:
    """strtoul_lenient(text, &end, 0): (value, bytes taken); EINVAL for no digits or a value
    past 64 bits."""
    base, rest = fixup_radix(text.decode("latin-1"), 0)
    value, count, overflow = parse_integer(rest, base)
    if not count or overflow:
        raise OSError(errno.EINVAL, "no number" if not count else "overflow")
    return value, len(text) - len(rest) + count


def parse_sysctl_int(data: bytes, minimum: int, maximum: int) -> tuple[int, int]:
    """proc_dointvec_minmax() writing one int at file position 0: (value, bytes taken).
    OSError(EINVAL) for anything else; the bytes after the number's trailing blanks are not
    taken (the write returns short), as Linux does."""
    left = data[:_MAX_WRITE]
    pos = len(left) - len(left.lstrip(_SPACES))
    rest = left[pos:]
    if not rest:
        raise OSError(errno.EINVAL, "no number")
    window = rest[:_TMPBUFLEN - 1]
    negative = window[:1] == b"-" and len(rest) > 1
    digits = window[1:] if negative else window
    if not digits[:1].isdigit():
        raise OSError(errno.EINVAL, "not a number")
    value, used = _strtoul(digits)
    length = used + negative
    if length == _TMPBUFLEN - 1:
        raise OSError(errno.EINVAL, "number too long")
    if length < len(rest) and rest[length] not in _SEPARATORS:
        raise OSError(errno.EINVAL, "junk after the number")
    if value > (_INT_MAX + 1 if negative else _INT_MAX):
        raise OSError(errno.EINVAL, "out of int range")
    value = -value if negative else value
    if not minimum <= value <= maximum:
        raise OSError(errno.EINVAL, "out of range")
    tail = rest[length:]
    unread = len(tail.lstrip(_SPACES))
    return value, len(left) - unread


class SysctlFile(Protocol):
    """A sysctl the emulated kernel serves: its text, and a write at a file position."""

    def read(self) -> bytes: ...

    def write_at(self, data: bytes, offset: int = 0) -> int: ...
