"""Host-side handles of programs started in the guest, and task records."""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class TaskInfo:
    pid: int
    tgid: int
    comm: str


class Process:
    """A program the host asked the guest to run (Machine.spawn): what it writes to its
    stdout goes to on_output, to its stderr to on_stderr (to on_output too when there is none)."""

    def __init__(self, host_id: int, on_output: Callable[[bytes], None] | None,
                 on_stderr: Callable[[bytes], None] | None = None):
        self.host_id = host_id
        self.pid = -1
        self._on_output = on_output
        self._on_stderr = on_stderr
        self._started = threading.Event()
        self._exited = threading.Event()
        self._status: int | None = None
        self.exit_ns: int | None = None  # the machine's clock (now_ns) when the guest reported the exit
        # why the host ended it when the guest could not (the panic message); None: exited in the guest
        self.killed_by: str | None = None

    def wait(self, timeout: float | None = None) -> int | None:
        """Exit status (0-255), or None on timeout."""
        if not self._exited.wait(timeout):
            return None
        return self._status

    # called from machine threads
    def _spawned(self, pid: int) -> None:
        self.pid = pid
        self._started.set()

    def _output(self, data: bytes, fd: int = 1) -> None:
        deliver = self._on_stderr if fd == 2 and self._on_stderr is not None else self._on_output
        if deliver is None:
            return
        try:
            deliver(data)
        except Exception:  # a consumer's bug must not take the machine down
            logging.getLogger(__name__).exception("on_output callback of pid %d failed", self.pid)

    def _exit(self, wait_status: int, now_ns: int) -> None:
        self.exit_ns = now_ns
        signal = wait_status & 0x7F
        # as a shell reports it: 128 + the signal for a task killed by one
        self._status = 128 + signal if signal else (wait_status >> 8) & 0xFF
        self._started.set()
        self._exited.set()

    def _killed(self, reason: str | None = None) -> None:
        """Still running when the machine stopped or panicked: 128 + SIGKILL, as a shell
        reports it; reason: the panic, if one ended it."""
        if not self._exited.is_set():
            self.killed_by = reason
            self._status = 128 + 9
            self._started.set()
            self._exited.set()
