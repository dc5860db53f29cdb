"""tracing_cpumask's text: Linux's bitmap_parse() (lib/bitmap.c) for writes and "%*pb" for
reads, over nr_cpu_ids bits."""

import errno

_SPACE = frozenset(b" \t\n\v\f\r\xa0")   # the kernel's isspace()
_HEX = {c: int(chr(c), 16) for c in b"0123456789abcdefABCDEF"}


def _end_of_region(c: int) -> bool:
    return c in _SPACE or c == ord(",")


def parse_cpumask(data: bytes, nbits: int) -> int:
    """The mask a write asks for: comma-separated 32-bit hex chunks, least significant last,
    up to the first newline. OSError(EINVAL) for a non-hex digit, OSError(EOVERFLOW) for more
    chunks or bits than nbits holds."""
    text = data.split(b"\0", 1)[0].split(b"\n", 1)[0]
    chunks_left = (nbits + 31) // 32
    mask = 0
    chunk = 0
    end = len(text) - 1
    while True:
        while end >= 0 and _end_of_region(text[end]):
            end -= 1
        if end < 0:
            break
        if not chunks_left:
            raise OSError(errno.EOVERFLOW, "too many chunks")
        chunks_left -= 1
        value = 0
        for shift in range(0, 32, 4):   # bitmap_get_x32_reverse()
            digit = _HEX.get(text[end])
            end -= 1
            if digit is None:
                raise OSError(errno.EINVAL, "not a hex digit")
            value |= digit << shift
            if end < 0 or _end_of_region(text[end]):
                break
        else:
            # nine digits in one chunk overflow; the kernel steps past whatever it looked at
            end -= 1
            if text[end + 1] in _HEX:
                raise OSError(errno.EOVERFLOW, "chunk wider than 32 bits")
        mask |= value << (32 * chunk)
        chunk += 1
    if mask >> nbits:
        raise OSError(errno.EOVERFLOW, "bit beyond nr_cpu_ids")
    return mask


def format_cpumask(mask: int, nbits: int) -> bytes:
    """'%*pb\\n': hex, 32-bit chunks separated by commas, the first as wide as its bits need."""
    chunks = []
    first_bits = nbits % 32 or 32
    for i in range((nbits + 31) // 32 - 1, -1, -1):
        width = (first_bits + 3) // 4 if i == (nbits + 31) // 32 - 1 else 8
        chunks.append(f"{(mask >> (32 * i)) & 0xFFFFFFFF:0{width}x}")
    return (",".join(chunks) + "\n").encode()
