"""Parsing of values written to control files, with the kernel's rules (lib/kstrtox.c, lib/string.c).

Control files accept exactly what Linux accepts, so `echo +1 > tracing_on` works and
`echo ' 1' > tracing_on` fails, as they do on a real kernel.
"""

import errno

_ULONG_MAX = (1 << 64) - 1
# kstrtoul_from_user() copies at most sign + 64 binary digits + newline into its buffer.
_KSTRTOUL_FROM_USER_MAX = 1 + 64 + 1


def kstrtoul_from_user(data: bytes, base: int = 10) -> int:
    """The value of an unsigned long written by user space; OSError(EINVAL/ERANGE) otherwise."""
    text = data[:_KSTRTOUL_FROM_USER_MAX]
    if text.startswith(b"+"):
        text = text[1:]
    if base == 16 and text[:2].lower() == b"0x":
        text = text[2:]
    digits = 0
    value = 0
    for byte in text:
        digit = _digit_value(byte)
        if digit is None or digit >= base:
            break
        value = value * base + digit
        digits += 1
    if value > _ULONG_MAX:
        raise OSError(errno.ERANGE, "value out of range")
    if digits == 0:
        raise OSError(errno.EINVAL, "not a number")
    rest = text[digits:]
    if rest.startswith(b"\n"):
        rest = rest[1:]
    # The kernel's copy is NUL-terminated: a NUL ends the string like the end of input.
    if rest and not rest.startswith(b"\0"):
        raise OSError(errno.EINVAL, "trailing characters")
    return value


def _digit_value(byte: int) -> int | None:
    if 0x30 <= byte <= 0x39:
        return byte - 0x30
    lower = byte | 0x20
    if 0x61 <= lower <= 0x66:
        return lower - 0x61 + 10
    return None


# isspace() of the kernel's ctype table: space, \t \n \v \f \r, and 0xa0 (NBSP in Latin-1).
_KERNEL_SPACE = b" \t\n\v\f\r\xa0"


def strstrip(data: bytes) -> bytes:
    """strstrip()/strim(): the bytes without leading and trailing kernel whitespace, cut at a NUL."""
    return data.split(b"\0", 1)[0].strip(_KERNEL_SPACE)
