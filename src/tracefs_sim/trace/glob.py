"""lib/glob.c: the glob matching of event filters' `~` and of the ftrace function lists."""


def glob_match(pat: bytes, buf: bytes, length: int = 0) -> bool:
    """lib/glob.c glob_match_len(): '*', '?', '[...]' classes, backslash escapes; buf is
    looked at up to length bytes (0: all of it) or its first NUL."""
    limit = min(length, len(buf)) if length else len(buf)
    s = p = 0
    back_p = back_s = -1
    plen = len(pat)
    while True:
        c = buf[s] if s < limit else 0
        d = pat[p] if p < plen else 0
        p += 1
        s += 1
        if d == 0x3F:  # '?'
            if c == 0:
                return False
            continue
        if d == 0x2A:  # '*'
            if p >= plen:
                return True
            back_p = p
            s -= 1
            back_s = s
            continue
        literal = True
        if d == 0x5B:  # '['
            inverted = p < plen and pat[p] == 0x21
            q = p + inverted
            a = pat[q] if q < plen else 0
            q += 1
            matched = False
            malformed = False
            while True:
                b = a
                if a == 0:
                    malformed = True
                    break
                if q < plen and pat[q] == 0x2D and (pat[q + 1] if q + 1 < plen else 0) != 0x5D:
                    b = pat[q + 1] if q + 1 < plen else 0
                    if b == 0:
                        malformed = True
                        break
                    q += 2
                matched |= a <= c <= b
                a = pat[q] if q < plen else 0
                q += 1
                if a == 0x5D:
                    break
            if not malformed:
                literal = False
                if matched != inverted:
                    p = q
                    continue
        elif d == 0x5C:  # '\\'
            d = pat[p] if p < plen else 0
            p += 1
        if literal and c == d:
            if d == 0:
                return True
            continue
        if c == 0 or back_p < 0:
            return False
        p = back_p
        back_s += 1
        s = back_s
