"""/proc/kallsyms as the emulated kernel shows it to a reader (kernel/kallsyms.c's
kallsyms_show_value()), and the kernel.kptr_restrict sysctl that decides it."""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable, Sequence

from ..lib.sysctl import parse_sysctl_int

CAP_SYSLOG = 34


def _has_capability(pid: int, cap: int) -> bool:
    """Whether the host process pid has `cap` in its effective set (as the credentials it
    opened a file with would: the reader is asked at open, as Linux does)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> cap & 1)
    except (OSError, ValueError):
        pass
    return False


class KptrRestrict:
    """kernel.kptr_restrict (proc_dointvec_minmax_sysadmin, 0..2)."""

    def __init__(self) -> None:
        self.value = 0

    def read(self) -> bytes:
        return b"%d\n" % self.value

    def write_at(self, data: bytes, offset: int = 0) -> int:
        if offset:
            return len(data)   # sysctl_writes_strict: a write past the start changes nothing
        self.value, taken = parse_sysctl_int(data, 0, 2)
        return taken

    def shows_addresses(self, pid: int) -> bool:
        """kallsyms_show_value(): 0 and 1 to a reader with CAP_SYSLOG (0 would also show them
        to perf users when perf_event_paranoid <= 1: no perf events here), 2 to nobody."""
        return self.value < 2 and _has_capability(pid, CAP_SYSLOG)


# The code the kernel writes at run time, as (name, start, end): its BPF trampolines and JITed
# programs.
WrittenCode = Callable[[], Sequence[tuple[str, int, int]]]
# written code is looked up again on a miss at most this often (each look stops the CPUs)
_WRITTEN_CODE_REFRESH_S = 0.1


class WrittenCodeSymbols:
    """kallsyms_lookup() of an address in code the kernel wrote (6.1's bpf_address_lookup() and
    bpf_image_ksym's), as the trace's output names it: (name, offset, size) or None."""

    def __init__(self, written_code: WrittenCode):
        self._written_code = written_code
        self._starts: list[int] = []
        self._code: Sequence[tuple[str, int, int]] = ()
        self._read_at = -_WRITTEN_CODE_REFRESH_S

    def lookup(self, addr: int) -> tuple[str, int, int] | None:
        found = self._find(addr)
        if found is None and time.monotonic() - self._read_at >= _WRITTEN_CODE_REFRESH_S:
            self._code = sorted(self._written_code(), key=lambda t: t[1])
            self._starts = [start for _name, start, _end in self._code]
            self._read_at = time.monotonic()
            found = self._find(addr)
        return found

    def _find(self, addr: int) -> tuple[str, int, int] | None:
        i = bisect.bisect_right(self._starts, addr) - 1
        if i < 0:
            return None
        name, start, end = self._code[i]
        return (name, addr - start, end - start) if addr < end else None


class KallsymsView:
    """/proc/kallsyms of the emulated kernel, for the reader that opens it: the image's symbols,
    then the BPF images the kernel has written (`bpf_trampoline_<key>`), each a `t` symbol of
    the `[bpf]` module as 6.1's bpf_image_ksym_add() lists it, while it exists."""

    def __init__(self, text: str, kptr_restrict: KptrRestrict, written_code: WrittenCode | None = None):
        self._text = text.encode()
        self._hidden: bytes | None = None
        self._kptr_restrict = kptr_restrict
        self._written_code = written_code

    def read_as(self, pid: int) -> bytes:
        bpf = b"".join(b"%016x t %s\t[bpf]\n" % (start, name.encode())
                       for name, start, _end in (self._written_code() if self._written_code else ()))
        if self._kptr_restrict.shows_addresses(pid):
            return self._text + bpf
        if self._hidden is None:
            self._hidden = b"".join(b"0000000000000000" + line[16:] for line in self._text.splitlines(True))
        return self._hidden + b"".join(b"0000000000000000" + line[16:] for line in bpf.splitlines(True))
