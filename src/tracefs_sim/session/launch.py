"""Start a session's program in its PID namespace under `tracefs-sim-init`, and wait for it.

The caller (cli.py) is in the session's private mount namespace, with the daemon mounted; this
module owns what happens from the PID namespace on: the namespace's own /proc (and what is
laid over it), init, the terminal and job control, signals, and the exit status.
"""

from __future__ import annotations

import os
import select
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from .. import _syscalls as sc
from .. import namespace

INIT = Path(__file__).resolve().parent / "native" / "tracefs-sim-init"   # built by setup.py
# Termination signals the launcher passes on to the program's process group.
_FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class LaunchError(Exception):
    """The session's namespace or init could not be started."""


@dataclass(frozen=True)
class Mirror:
    """The emulated kernel's session ring (control.session_ring): with it, the session's
    processes are tasks of the emulated kernel; `helpers` are the project's own tools, whose
    calls are not mirrored."""
    ram_fd: int
    offset: int
    size: int
    doorbell_fd: int
    reply_fd: int
    helpers: tuple[str, ...]
    pool_fds: tuple[int, ...] = ()  # the perf pool's memory files, by region (serve.c)
    wake_fd: int = -1  # the kernel's perf buffer wakeups (serve.c's poll)

    def init_args(self) -> list[str]:
        ring = f"{self.ram_fd}:{self.offset}:{self.size}:{self.doorbell_fd}:{self.reply_fd}"
        pool = ["--perf-pool", ",".join(map(str, self.pool_fds))] if self.pool_fds else []
        wake = ["--perf-wake", str(self.wake_fd)] if self.wake_fd >= 0 else []
        return ["--ring", ring, *pool, *wake, *(arg for path in self.helpers for arg in ("--helper", path))]


def run(argv: list[str], env: dict[str, str], host_ns: str, nr_cpus: int,
        mirror: Mirror | None) -> int:
    """Run `argv` as the session's program; its exit status (128 + N if killed by signal N).
    Without `mirror` (a seeded machine), the session's processes are not the kernel's tasks."""
    if not INIT.is_file():
        raise LaunchError(f"{INIT} is missing: run ./setup.sh (or `python setup.py build_ext --inplace`)")
    try:
        terminal = os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp()
    except OSError:
        terminal = False
    report_r, report_w = os.pipe()
    try:
        sc.unshare(sc.CLONE_NEWPID)  # for the children from now on: the next fork is pid 1
    except OSError as e:
        raise LaunchError(f"cannot create the session's PID namespace: {e.strerror}") from None
    init_pid = os.fork()
    if init_pid == 0:
        os.close(report_r)
        _become_init(argv, env, host_ns, nr_cpus, terminal, report_w, mirror)
    os.close(report_w)
    return _wait(init_pid, report_r, terminal)


def _launcher_gone(report_w: int) -> bool:
    """Whether the launcher ended: the read end of the report pipe, which only it holds, is
    closed. (getppid() says 0 in a new PID namespace's init, whatever happened.)"""
    poller = select.poll()
    poller.register(report_w, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


def _become_init(argv: list[str], env: dict[str, str], host_ns: str, nr_cpus: int,
                 terminal: bool, report_w: int, mirror: Mirror | None) -> None:
    """In the forked child, pid 1 of the new namespace: /proc, then exec tracefs-sim-init."""
    try:
        # Should the launcher die (even by SIGKILL), init dies, and the kernel ends the whole
        # namespace with it: a session never outlives its launcher.
        sc.set_parent_death_signal(signal.SIGKILL)
        if _launcher_gone(report_w):
            os._exit(1)
        namespace.enter_session_proc(host_ns, nr_cpus)
        os.set_inheritable(report_w, True)
        options = ["--report-fd", str(report_w)]
        if terminal:
            options.append("--terminal")
        if mirror is not None:
            os.set_inheritable(mirror.ram_fd, True)
            os.set_inheritable(mirror.doorbell_fd, True)
            os.set_inheritable(mirror.reply_fd, True)
            for fd in (*mirror.pool_fds, *([mirror.wake_fd] if mirror.wake_fd >= 0 else [])):
                os.set_inheritable(fd, True)
            options += mirror.init_args()
        init_argv = [str(INIT), *options, "--", *argv]
        os.execve(INIT, init_argv, env)
    except BaseException as e:
        print(f"tracefs-sim: cannot start the session: {e}", file=sys.stderr)
    os._exit(127)


def _host_pid(init_pid: int, ns_pid: int) -> int | None:
    """The host pid of init's child whose pid in the session's namespace is `ns_pid`."""
    try:
        with open(f"/proc/{init_pid}/task/{init_pid}/children") as f:
            children = [int(p) for p in f.read().split()]
    except OSError:
        return None
    for child in children:
        try:
            with open(f"/proc/{child}/status") as f:
                for line in f:
                    if line.startswith("NSpid:") and int(line.split()[-1]) == ns_pid:
                        return child
        except (OSError, ValueError):
            continue
    return None


def _wait(init_pid: int, report_r: int, terminal: bool) -> int:
    """Until init exits: pass termination signals to the program's group, and on its stops
    (^Z of a script on a terminal) stop along with it, so the user's shell gets the terminal
    back; on `fg`, give the terminal back to the program and let it go on."""
    program: int | None = None  # its host pid, which is also its process group's id

    def forward(signum: int, frame: FrameType | None) -> None:
        try:
            if program is not None:
                os.killpg(program, signum)
            else:
                os.kill(init_pid, signal.SIGTERM)  # not started yet: init ends the session
        except ProcessLookupError:
            pass

    for sig in _FORWARDED:
        signal.signal(sig, forward)
    init_fd = os.pidfd_open(init_pid)
    reports = b""
    try:
        while True:
            readable, _, _ = select.select([report_r, init_fd], [], [])
            if init_fd in readable:
                break
            data = os.read(report_r, 256)
            if not data:
                report_r = -1
                select.select([init_fd], [], [])
                break
            reports += data
            while b"\n" in reports:
                line, _, reports = reports.partition(b"\n")
                words = line.split()
                if words[:1] == [b"pid"]:
                    program = _host_pid(init_pid, int(words[1]))
                elif words == [b"stopped"] and program is not None:
                    _stop_with(program)
    finally:
        os.close(init_fd)
        if report_r >= 0:
            os.close(report_r)
        if terminal:
            _give_terminal(os.getpgrp())
    _, status = os.waitpid(init_pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.waitstatus_to_exitcode(status)


def _stop_with(program: int) -> None:
    """^Z stopped the program: stop too, until the user's `fg`, then resume it."""
    _give_terminal(os.getpgrp())
    os.kill(os.getpid(), signal.SIGSTOP)
    _give_terminal(program)
    try:
        os.killpg(program, signal.SIGCONT)
    except ProcessLookupError:
        pass


def _give_terminal(pgrp: int) -> None:
    # tcsetpgrp from a background group raises SIGTTOU unless it is ignored.
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        os.tcsetpgrp(0, pgrp)
    except OSError:
        pass
    finally:
        signal.signal(signal.SIGTTOU, previous)
