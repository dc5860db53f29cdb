"""The error_log file of a trace array (tracing_log_err and its seq_file in trace.c)."""

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

TRACING_LOG_ERRS_MAX = 8
_CMD_PREFIX = "  Command: "


@dataclass(frozen=True)
class LoggedError:
    ts_ns: int
    location: str
    text: str
    command: bytes
    pos: int


class ErrorLog:
    def __init__(self, local_clock: Callable[[], int]):
        self._clock = local_clock
        self._lock = threading.Lock()
        # The oldest entry is reused once the log holds TRACING_LOG_ERRS_MAX.
        self._entries: deque[LoggedError] = deque(maxlen=TRACING_LOG_ERRS_MAX)

    def log(self, location: str, text: str, command: bytes, pos: int) -> None:
        with self._lock:
            self._entries.append(LoggedError(self._clock(), location, text, command, pos))

    def read(self) -> bytes:
        with self._lock:
            entries = list(self._entries)
        out = []
        for e in entries:
            secs, nsec = divmod(e.ts_ns, 1_000_000_000)
            out.append(b"[%5d.%06d] %s: error: %s\n%s%s\n%s^\n" % (
                secs, nsec // 1000, e.location.encode(), e.text.encode(), _CMD_PREFIX.encode(),
                e.command, b" " * (len(_CMD_PREFIX) + e.pos)))
        return b"".join(out)

    def write(self, data: bytes) -> None:
        """Only an open with O_TRUNC clears the log; what is written is ignored."""

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
