"""/proc/kallsyms as the emulated kernel shows it to a reader (kernel/kallsyms.c's
kallsyms_show_value()), and the kernel.kptr_restrict sysctl that decides it."""

from __future__ import annotations

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


# The code the kernel writes at run time, as (name, start, end): its BPF trampolines.
WrittenCode = Callable[[], Sequence[tuple[str, int, int]]]


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
