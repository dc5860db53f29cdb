"""ftrace_dump() (kernel/trace/trace.c): what the `dump` and `cpudump` function commands print
into the kernel's log: the top-level buffer (every CPU's, or the hitting CPU's) in the latency
format, consumed, between two rules, or `(ftrace buffer empty)`.  The kernel prints it a part
at a time as the host hands the parts over (machine/ftrace_dump.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..machine.contract import GuestFtraceDumpOps

_RULE = b"---------------------------------\n"
_EMPTY = b"   (ftrace buffer empty)\n"


class DumpedArray(Protocol):
    def dump(self, cpu: int | None = None) -> bytes: ...


class FtraceDump:
    """Answers the kernel's dump of one trace array (the top level: global_trace)."""

    def __init__(self, guest: GuestFtraceDumpOps, array: DumpedArray, drain: Callable[[], object]):
        """drain(): takes what the guest recorded into the buffers."""
        self._guest = guest
        self._array = array
        self._drain = drain
        self._text: bytes | None = None   # what the dump under way has still to print

    def serve(self) -> None:
        """The next part of the dump the kernel waits for, if any.  Its text is made at its
        first part: tracing went off when the dump began, so a drain then takes every record
        it prints (one that began before may have missed the last ones)."""
        cpu = self._guest.asked()
        if cpu is None:
            return
        if self._text is None:
            self._drain()
            records = self._array.dump(None if cpu < 0 else cpu)
            self._text = _RULE + records + _RULE if records else _EMPTY
        part = _whole_lines(self._text, self._guest.text_size)
        self._text = self._text[len(part):] or None
        self._guest.answer(part, self._text is None)


def _whole_lines(text: bytes, size: int) -> bytes:
    """The start of text up to size bytes, ending with a whole line where one fits."""
    if len(text) <= size:
        return text
    end = text.rfind(b"\n", 0, size)
    return text[:end + 1] if end >= 0 else text[:size]
