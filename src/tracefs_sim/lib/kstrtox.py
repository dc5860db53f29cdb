"""Numbers written by user space, parsed with the kernel's rules (lib/kstrtox.c, the
simple_strtoull() of lib/vsprintf.c, kstrtobool() of lib/kstrtox.c, strstrip() of lib/string.c).
The one implementation every parser here uses: control files accept exactly what Linux
accepts, so `echo +1 > tracing_on` works and `echo ' 1' > tracing_on` fails, as they do on a
real kernel.

Text is handled as Latin-1 (one character a byte, as the kernel's char).  The kstrto*()
functions raise OSError with Linux's errno: EINVAL (no digits, or anything after them but one
newline) or ERANGE (too large); or_none() turns that into None for parsers that only ask
whether.
"""

from __future__ import annotations

import errno
from collections.abc import Callable

ULLONG_MAX = (1 << 64) - 1
UINT_MAX = (1 << 32) - 1
_HEX = "0123456789abcdefABCDEF"
# kstrtoul_from_user() copies at most sign + 64 binary digits + newline into its buffer.
_KSTRTOUL_FROM_USER_MAX = 1 + 64 + 1
# kstrtobool_from_user() looks at no more than this much of a write ("Longest string needed to
# differentiate, newline, terminator": a 4-byte buffer).
_KSTRTOBOOL_LEN = 3
# isspace() of the kernel's ctype table: space, \t \n \v \f \r, and 0xa0 (NBSP in Latin-1).
_KERNEL_SPACE = b" \t\n\v\f\r\xa0"


def fixup_radix(s: str, base: int) -> tuple[int, str]:
    """_parse_integer_fixup_radix(): base 0 is 16 for "0x" followed by a hex digit, 8 for a
    leading "0", else 10; a "0x" prefix is skipped in base 16.  (base, the text after it)."""
    if base == 0:
        if s[:1] == "0":
            base = 16 if s[1:2] in ("x", "X") and s[2:3] != "" and s[2] in _HEX else 8
        else:
            base = 10
    if base == 16 and s[:1] == "0" and s[1:2] in ("x", "X"):
        s = s[2:]
    return base, s


def parse_integer(s: str, base: int) -> tuple[int, int, bool]:
    """_parse_integer(): the value of s's leading digits in base (modulo 2**64), how many there
    are, and whether the value overflowed 64 bits."""
    value = count = 0
    for ch in s:
        digit = int(ch, 16) if ch in _HEX else 99
        if digit >= base:
            break
        value = value * base + digit
        count += 1
    return value & ULLONG_MAX, count, value > ULLONG_MAX


def kstrtoull(s: str, base: int = 0) -> int:
    """kstrtoull(): an optional '+', the digits, an optional newline, nothing else."""
    if s[:1] == "+":
        s = s[1:]
    return _kstrtoull(s, base)


def _kstrtoull(s: str, base: int) -> int:
    base, s = fixup_radix(s, base)
    value, count, overflow = parse_integer(s, base)
    if overflow:
        raise OSError(errno.ERANGE, "value out of range")
    if not count:
        raise OSError(errno.EINVAL, "not a number")
    rest = s[count:]
    if rest[:1] == "\n":
        rest = rest[1:]
    if rest:
        raise OSError(errno.EINVAL, "trailing characters")
    return value


def kstrtoll(s: str, base: int = 0) -> int:
    """kstrtoll() (and kstrtol: long is 64 bits): signed, range-checked."""
    if s[:1] == "-":
        value = _kstrtoull(s[1:], base)
        if value > 1 << 63:
            raise OSError(errno.ERANGE, "value out of range")
        return -value
    value = kstrtoull(s, base)
    if value >= 1 << 63:
        raise OSError(errno.ERANGE, "value out of range")
    return value


def kstrtouint(s: str, base: int = 0) -> int:
    value = kstrtoull(s, base)
    if value > UINT_MAX:
        raise OSError(errno.ERANGE, "value out of range")
    return value


def or_none(parse: Callable[[str, int], int], s: str, base: int = 0) -> int | None:
    """parse(s, base), or None where it fails (for parsers that only ask whether)."""
    try:
        return parse(s, base)
    except OSError:
        return None


def kstrtoul_from_user(data: bytes, base: int = 10) -> int:
    """kstrtoul_from_user(): an unsigned long written by user space, from the first bytes of
    the write the kernel copies; its copy is NUL-terminated, so a NUL ends the number's text
    like the end of the write."""
    text = data[:_KSTRTOUL_FROM_USER_MAX].split(b"\0", 1)[0]
    return kstrtoull(text.decode("latin-1"), base)


def simple_strtoull(s: str, base: int = 0) -> tuple[int, int]:
    """simple_strtoull(s, &end, base): (the value, modulo 2**64, characters taken); it never
    fails (no digits: 0, 0 taken -- but a "0x" base 0 takes the "0")."""
    base, rest = fixup_radix(s, base)
    value, count, _ = parse_integer(rest, base)
    return value, (len(s) - len(rest)) + count


def kstrtobool(data: bytes) -> bool:
    """kstrtobool_from_user(): y/Y/t/T/1 or on (o + n/N) is true, n/N/f/F/0 or off (o + f/F)
    false, judged by the first one or two bytes; anything else OSError(EINVAL)."""
    s = data[:_KSTRTOBOOL_LEN]
    first, second = s[:1], s[1:2]
    if first and first in b"yYtT1":
        return True
    if first and first in b"nNfF0":
        return False
    if first and first in b"oO" and second:
        if second in b"nN":
            return True
        if second in b"fF":
            return False
    raise OSError(errno.EINVAL, "not a boolean")


def strstrip(data: bytes) -> bytes:
    """strstrip()/strim(): the bytes without leading and trailing kernel whitespace, cut at a NUL."""
    return data.split(b"\0", 1)[0].strip(_KERNEL_SPACE)
