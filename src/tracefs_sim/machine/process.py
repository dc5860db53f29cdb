"""Host-side handles of programs started in the guest, and task records."""
from __future__ import annotations

import logging
import os
import select
import threading
from dataclasses import dataclass
from typing import Callable

# How often a pump waiting for its host fd looks whether its program is still there.
_STDIN_POLL_S = 0.25


@dataclass(frozen=True)
class TaskInfo:
    pid: int
    tgid: int
    comm: str


class StdinPump:
    """A program's stdin from a host fd: each time the guest asks (a reader found its stdin
    empty: PORT_STDIN), one read of up to `chunk` bytes, handed to post(data), b"" at the end.
    Its own thread, as the read may wait on the host as long as the caller's stdin does; it
    ends (and closes the fd) at the end of the input or of the program: then the readers the
    program left (a background child) get the end of their input, as the caller no longer
    gives them any."""

    def __init__(self, fd: int, chunk: int, post: Callable[[bytes], None], gone: threading.Event):
        self._fd, self._chunk, self._post, self._gone = fd, chunk, post, gone
        self._wanted = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stdin pump", daemon=True)
        self._thread.start()

    def want(self) -> None:  # from a machine thread
        self._wanted.set()

    def _readable(self) -> bool:
        while not self._gone.is_set():
            if self._wanted.wait(_STDIN_POLL_S):
                break
        while not self._gone.is_set():
            if select.select([self._fd], [], [], _STDIN_POLL_S)[0]:
                return True
        return False

    def _run(self) -> None:
        try:
            while self._readable():
                self._wanted.clear()
                try:
                    data = os.read(self._fd, self._chunk)
                except OSError:
                    data = b""
                self._post(data)
                if not data:
                    return
            self._post(b"")
        except Exception:  # the machine stopped under it
            logging.getLogger(__name__).debug("stdin pump ended", exc_info=True)
        finally:
            os.close(self._fd)


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
        self.stdin: StdinPump | None = None  # its stdin from the host (Machine.spawn's stdin)

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
