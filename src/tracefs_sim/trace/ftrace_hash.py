"""struct ftrace_hash (ftrace.c): function addresses in hash buckets, whose iteration order is
the order set_graph_function and the function probes are listed in."""

from collections.abc import Iterator

# ftrace.c's hash sizes, and hash_64()'s multiplier (include/linux/hash.h)
DEFAULT_BITS = 10
_MAX_BITS = 12
_GOLDEN_RATIO_64 = 0x61C8864680B583EB
_U64 = (1 << 64) - 1


class FtraceHash:
    """struct ftrace_hash: the functions (by site address) in buckets of hash_long(ip, bits),
    each bucket newest first; iterating it gives the order set_ftrace_filter lists its function
    probes in, and set_graph_function / set_graph_notrace their functions."""

    def __init__(self, bits: int):
        self.bits = bits
        self.buckets: list[list[int]] = [[] for _ in range(1 << bits)]

    def _key(self, ip: int) -> int:
        return (ip * _GOLDEN_RATIO_64 & _U64) >> (64 - self.bits) if self.bits else 0

    def add(self, ip: int) -> None:
        self.buckets[self._key(ip)].insert(0, ip)  # hlist_add_head

    def remove(self, ip: int) -> None:
        self.buckets[self._key(ip)].remove(ip)

    def __contains__(self, ip: int) -> bool:
        return ip in self.buckets[self._key(ip)]

    def __iter__(self) -> Iterator[int]:
        for bucket in self.buckets:
            yield from bucket

    def __len__(self) -> int:
        return sum(len(b) for b in self.buckets)

    def copy(self, bits: int = DEFAULT_BITS) -> "FtraceHash":
        """alloc_and_copy_ftrace_hash()."""
        new = FtraceHash(bits)
        for ip in self:
            new.add(ip)
        return new

    def moved(self) -> "FtraceHash":
        """__ftrace_hash_move(): a hash of about half as many buckets as entries."""
        new = FtraceHash(min((len(self) // 2).bit_length(), _MAX_BITS))
        for ip in self:
            new.add(ip)
        return new
