"""`tracefs-sim`: mount the simulator, open a shell or run a script where it is the machine's
tracefs, and start programs in the emulated kernel."""

from __future__ import annotations

import argparse
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING

from . import _syscalls, control, namespace
from .session import launch

if TYPE_CHECKING:  # (the commands that run no machine never import one)
    from .machine import MachineOptions

PROG = "tracefs-sim"
# Boot of the emulated machine plus the FUSE mount; generous for a loaded CI box.
READY_TIMEOUT = 60.0
# A daemon gets this long to unmount after SIGTERM before it is killed.
STOP_TIMEOUT = 10.0


class UserError(Exception):
    """An error the user can act on: printed as one line, exit status 1, no traceback."""


# ---------------------------------------------------------------------------------------------
# argument parsing


def _memory(text: str) -> int:
    from .machine.machine import MEMORY_MB_RANGE

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid memory size {text!r}") from None
    if n not in MEMORY_MB_RANGE:
        raise argparse.ArgumentTypeError(f"the emulated machine has {MEMORY_MB_RANGE.start} to "
                                         f"{MEMORY_MB_RANGE.stop - 1} MiB of RAM")
    return n


def _cpus(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid CPU count {text!r}") from None
    if not 1 <= n <= 8:
        raise argparse.ArgumentTypeError("the emulated machine has 1 to 8 CPUs")
    return n


def _machine_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("emulated machine")
    group.add_argument("--cpus", type=_cpus, default=2, metavar="N", help="emulated CPUs, 1-8 (default 2)")
    group.add_argument("--seed", type=int, metavar="N", help="deterministic run with this seed (default: live)")
    group.add_argument("--workload", default="default", metavar="NAME",
                       help='background tasks: "default" or "none"')
    group.add_argument("--mem", type=_memory, default=512, metavar="MIB",
                       help="the emulated machine's RAM in MiB, 96-1024 (default 512)")
    group.add_argument("--debug", action="store_true", help="daemon diagnostics on stderr")


def _session_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-mirror", action="store_true",
                        help="the session's own processes are not tasks of the emulated kernel "
                             "(its tracing calls still never reach the host's)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="A tracefs (Linux 6.1) served by FUSE from an emulated x86-64 kernel.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("mount", help="mount the simulator on DIR (a daemon)")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--foreground", "-f", action="store_true", help="do not daemonize")
    _machine_options(p)

    p = sub.add_parser("umount", help="stop the daemon serving DIR and unmount it")
    p.add_argument("dir", metavar="DIR")

    p = sub.add_parser("shell", help="interactive bash where /sys/kernel/tracing is the simulator")
    _machine_options(p)
    _session_options(p)

    p = sub.add_parser("run", help="run a script where /sys/kernel/tracing is the simulator",
                       usage=f"{PROG} run [options] (-c CMDS [ARG...] | SCRIPT [ARG...])")
    _machine_options(p)
    _session_options(p)
    p.add_argument("-c", dest="commands", metavar="CMDS", help="bash commands to run")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="SCRIPT [ARG...]")

    p = sub.add_parser("exec", help="run a program in the emulated kernel and print its output",
                       usage=f"{PROG} exec [--mount DIR] PROG [ARG...]")
    p.add_argument("--mount", metavar="DIR",
                   help="the mount whose kernel runs it (default: this session's, or /sys/kernel/tracing)")
    p.add_argument("program", metavar="PROG")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARG")

    p = sub.add_parser("disasm", help="show a kernel function's live code, disassembled, with its patch sites")
    p.add_argument("--mount", metavar="DIR",
                   help="the mount whose kernel to look at (default: this session's, or /sys/kernel/tracing)")
    p.add_argument("target", metavar="SYMBOL|ADDR", help="a function name, or an address inside one (0x..., or as /proc/kallsyms prints it)")
    p = sub.add_parser("bench", help="measure the simulator: start-up, emulation speed, SMP, recipes")
    p.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    p.add_argument("--json", metavar="FILE", help="also write the results to FILE as JSON")
    p.add_argument("--repeat", type=_repeat, metavar="N", help="samples of each figure (default 5)")
    p.add_argument("--quick", action="store_true", help="tiny sizes, one sample: checks they run")
    return parser


def _repeat(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"invalid sample count {text!r}")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command = {"mount": cmd_mount, "umount": cmd_umount, "shell": cmd_shell, "run": cmd_run,
               "exec": cmd_exec, "disasm": cmd_disasm, "bench": cmd_bench}[args.command]
    try:
        return command(args)
    except (UserError, control.ControlError, namespace.NamespaceError, launch.LaunchError) as e:
        print(f"{PROG} {args.command}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except OSError as e:  # the environment refused something (mount, unshare, a file)
        if getattr(args, "debug", False):
            traceback.print_exc()
        where = f": {e.filename}" if e.filename else ""
        print(f"{PROG} {args.command}: {e.strerror or e}{where}", file=sys.stderr)
        return 1


def _options(args: argparse.Namespace) -> MachineOptions:
    # Imported here: exec and umount need none of the emulator (Unicorn) at all.
    from .machine import MachineOptions

    return MachineOptions(cpus=args.cpus, seed=args.seed, workload=args.workload, memory_mb=args.mem)


# ---------------------------------------------------------------------------------------------
# mounts and daemons


def _unescape(field: str) -> str:
    # /proc/self/mountinfo writes space, tab, newline and backslash as \ooo.
    return field.encode().decode("unicode_escape").encode("latin-1").decode(errors="surrogateescape")


def _simulator_mounted_at(mountpoint: str) -> bool:
    """Whether a tracefs-sim FUSE mount (live or with a dead daemon) sits on `mountpoint`."""
    where = control.canonical_mountpoint(mountpoint)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            sep = fields.index("-")
            if fields[sep + 1] == "fuse.tracefs" and _unescape(fields[4]) == where:
                return True
    return False


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie counts as gone: it no longer holds anything)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def _daemon_pid(socket_path: str) -> int | None:
    """The pid of the daemon behind `socket_path`: asked over the socket, else its pidfile."""
    try:
        return int(control.info(socket_path, timeout=5.0)["pid"])
    except (control.ControlError, KeyError, ValueError):
        pass
    pid = control.daemon_from_pidfile(socket_path)
    return pid if pid is not None and _alive(pid) else None


def _wait_gone(pid: int, timeout: float, reap: bool) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if reap:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    return True
            except ChildProcessError:
                return True
        elif not _alive(pid):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def _stop_daemon(pid: int, reap: bool) -> None:
    """SIGTERM (the daemon unmounts and exits), then SIGKILL if it does not."""
    for sig, timeout in ((signal.SIGTERM, STOP_TIMEOUT), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
            os.kill(pid, signal.SIGCONT)  # a stopped daemon handles SIGTERM only once resumed
        except ProcessLookupError:
            pass
        if _wait_gone(pid, timeout, reap):
            return
    raise UserError(f"daemon {pid} does not exit even after SIGKILL")


def _log_path(socket_path: str) -> str:
    """Where a daemonized mount's output goes (shown when it fails to start)."""
    return socket_path[: -len(".sock")] + ".log"


def _remove_stale(socket_path: str) -> None:
    for path in (socket_path, control.pidfile_path(socket_path), _log_path(socket_path)):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def _wait_ready(ready_fd: int, pid: int) -> bool:
    """True once the daemon wrote its ready byte; False if it ended (or hung) before."""
    try:
        readable, _, _ = select.select([ready_fd], [], [], READY_TIMEOUT)
        if readable and os.read(ready_fd, 1):
            return True
    finally:
        os.close(ready_fd)
    if _alive(pid):
        _stop_daemon(pid, reap=True)
    return False


def _redirect(fd: int, path: str, flags: int) -> None:
    target = os.open(path, flags, 0o600)
    os.dup2(target, fd)
    os.close(target)


def _daemon_child(prepare: Callable[[], None], mountpoint: str, options: MachineOptions, ready_fd: int,
                  debug: bool, finish: Callable[[], None] | None = None) -> None:
    """The forked daemon's whole life, after `prepare()` set up its process, and `finish()`
    once it served: never returns into the caller's code."""
    status = 1
    try:
        prepare()
        from .daemon import run_daemon

        status = run_daemon(mountpoint, options, ready_fd=ready_fd, debug=debug)
    except BaseException as e:
        print(f"{PROG}: daemon: {e}", file=sys.stderr)
        if debug:
            traceback.print_exc()
    finally:
        try:
            if finish is not None:
                finish()
        except BaseException as e:
            print(f"{PROG}: daemon: {e}", file=sys.stderr)
        sys.stderr.flush()
        os._exit(status)


# ---------------------------------------------------------------------------------------------
# mount / umount


_REAL_TRACEFS_PLACES = (namespace.TRACING_DIR, namespace.DEBUG_TRACING_DIR)


def cmd_mount(args: argparse.Namespace) -> int:
    if _simulator_mounted_at(args.dir):
        raise UserError(f"{args.dir}: already mounted (`{PROG} umount {args.dir}` first)")
    if not os.path.isdir(args.dir):
        raise UserError(f"{args.dir}: not a directory")
    # Not mounted yet, so resolving it entirely is safe (and umount finds it by this name).
    mountpoint = os.path.realpath(args.dir)
    if mountpoint in _REAL_TRACEFS_PLACES:
        raise UserError(f"{args.dir}: refusing to cover this machine's tracefs; "
                        f"use `{PROG} shell` or `{PROG} run`, which do it in a private namespace")
    # A mount has its own socket, even when started from inside a shell/run session.
    os.environ.pop(control.ENV_VAR, None)
    socket_path = control.mount_socket_path(mountpoint)
    if _daemon_pid(socket_path) is not None:
        raise UserError(f"{args.dir}: already mounted (`{PROG} umount {args.dir}` first)")
    options = _options(args)
    if args.foreground:
        from .daemon import run_daemon

        try:
            return run_daemon(mountpoint, options, debug=args.debug)
        except (OSError, RuntimeError, ValueError) as e:
            if args.debug:
                traceback.print_exc()
            raise UserError(str(e)) from None

    os.makedirs(control.RUN_DIR, mode=0o700, exist_ok=True)
    log_path = _log_path(socket_path)
    ready_r, ready_w = os.pipe()

    def detach() -> None:
        os.close(ready_r)
        os.setsid()
        _redirect(0, os.devnull, os.O_RDONLY)
        _redirect(1, log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(1, 2)

    pid = os.fork()
    if pid == 0:
        _daemon_child(detach, mountpoint, options, ready_w, args.debug)
    os.close(ready_w)
    if _wait_ready(ready_r, pid):
        return 0
    _wait_gone(pid, 1.0, reap=True)
    with open(log_path, errors="replace") as f:
        log = f.read().strip()
    _remove_stale(socket_path)
    raise UserError(f"{args.dir}: the daemon did not start" + (f":\n{log}" if log else ""))


def cmd_umount(args: argparse.Namespace) -> int:
    mountpoint = control.canonical_mountpoint(args.dir)
    socket_path = control.mount_socket_path(mountpoint)
    pid = _daemon_pid(socket_path)
    if pid is None and not _simulator_mounted_at(mountpoint):
        _remove_stale(socket_path)
        raise UserError(f"{args.dir}: not mounted")
    if pid is not None:
        _stop_daemon(pid, reap=False)
    if _simulator_mounted_at(mountpoint):
        # The daemon died without unmounting (SIGKILL, crash): detach what it left.
        result = subprocess.run(["fusermount3", "-u", "-z", mountpoint], capture_output=True,
                                text=True, timeout=30)
        if result.returncode != 0:
            raise UserError(f"{args.dir}: fusermount3 failed: {result.stderr.strip()}")
    _remove_stale(socket_path)
    return 0


# ---------------------------------------------------------------------------------------------
# exec / disasm


def _daemon_socket(mount: str | None, purpose: str) -> str:
    """The control socket of the mount given, else of this session, else of /sys/kernel/tracing."""
    socket_path = None
    if mount:
        socket_path = control.mount_socket_path(mount)
        if not os.path.exists(socket_path):
            socket_path = None  # e.g. --mount /sys/kernel/tracing inside a session
    socket_path = socket_path or control.socket_path_for(mount or namespace.TRACING_DIR)
    if not os.path.exists(socket_path):
        raise UserError(f"no emulated kernel {purpose}: no daemon socket at {socket_path} "
                        f"(run it inside `{PROG} shell`/`{PROG} run`, or give --mount DIR)")
    return socket_path


def _stdin_fd() -> int | None:
    """This process's stdin, for the program to read (None when it has none)."""
    try:
        os.fstat(0)
    except OSError:
        return None
    return 0


def cmd_exec(args: argparse.Namespace) -> int:
    socket_path = _daemon_socket(args.mount, f"to run {args.program} in")
    try:
        return control.exec_program(socket_path, [args.program, *args.args], sys.stdout.buffer,
                                    err_out=sys.stderr.buffer, stdin=_stdin_fd())
    except BrokenPipeError:
        # Whoever read our output stopped (`| head`): end as a shell pipeline would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def cmd_disasm(args: argparse.Namespace) -> int:
    reply = control.disassemble(_daemon_socket(args.mount, "to disassemble"), args.target)
    sys.stdout.write(reply["listing"])
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import runner

    return runner.main(args.names, args.repeat, args.quick, args.json)


# ---------------------------------------------------------------------------------------------
# shell / run


class _Terminate(Exception):
    """SIGTERM/SIGHUP while the session is being set up: clean up, then exit."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def cmd_shell(args: argparse.Namespace) -> int:
    return _session(args, ["bash"], banner=True)


def cmd_run(args: argparse.Namespace) -> int:
    if args.commands is not None:
        return _session(args, ["bash", "-c", args.commands, *args.args], banner=False)
    if not args.args:
        raise UserError("give -c CMDS or a SCRIPT to run")
    return _session(args, ["bash", *args.args], banner=False)


def _session(args: argparse.Namespace, bash_argv: list[str], banner: bool) -> int:
    options = _options(args)

    def terminate(signum: int, frame: FrameType | None) -> None:
        raise _Terminate(signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, terminate)

    host_ns = namespace.enter_private_mount_namespace()
    _syscalls.become_subreaper()
    socket_path = os.path.join(control.RUN_DIR, f"session-{os.getpid()}.sock")
    os.environ[control.ENV_VAR] = socket_path
    overlay = namespace.Overlay(host_ns)
    daemon_pid = None
    try:
        overlay.cover_host_tracing_mounts()
        daemon_pid = _start_session_daemon(options, host_ns, args.debug)
        machine = control.info(socket_path)
        overlay.bind_debug_tracing()
        overlay.bind_debug_views()
        overlay.cover_block_tracing()
        if machine.get("debuginfo"):
            overlay.bind_debuginfo(**machine["debuginfo"])
            overlay.link_kernel_headers(machine["debuginfo"]["release"])
        if banner:
            print(f"{PROG}: /sys/kernel/tracing is an emulated Linux 6.1 kernel with {machine['cpus']} "
                  f"CPUs; `{PROG} exec PROG` runs a program in it; exit to leave.", file=sys.stderr)
        status = launch.run(bash_argv, _script_env(), host_ns, int(machine["cpus"]),
                            None if args.no_mirror else _session_mirror(socket_path, options))
        _report_lost_calls(socket_path)
        return status
    except _Terminate as e:
        return 128 + e.signum
    finally:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)  # clean-up must run to its end
        # Whatever the script left running (in its process group or not) ends with it.
        leftovers = namespace.end_other_processes(
            host_ns, spare=set() if daemon_pid is None else {daemon_pid})
        problems = overlay.teardown()
        if leftovers:
            problems.append(f"processes {leftovers} of the script do not end even after SIGKILL")
        if daemon_pid is not None:
            _stop_daemon(daemon_pid, reap=True)
        if _simulator_mounted_at(namespace.TRACING_DIR):
            _syscalls.umount2(namespace.TRACING_DIR, _syscalls.MNT_DETACH)
        _remove_stale(socket_path)
        for problem in problems:
            print(f"{PROG}: {problem}", file=sys.stderr)


def _start_session_daemon(options: MachineOptions, host_ns: str, debug: bool) -> int:
    namespace.assert_private(host_ns)
    ready_r, ready_w = os.pipe()
    parent = os.getpid()

    def attach() -> None:
        os.close(ready_r)
        # The daemon must not outlive its session, even if the session is SIGKILLed.
        _syscalls.set_parent_death_signal(signal.SIGTERM)
        if os.getppid() != parent:
            raise UserError("the session ended while its daemon started")
        os.setsid()  # keep terminal signals (^C for the script) away from it
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _redirect(0, os.devnull, os.O_RDONLY)
        os.dup2(2, 1)  # the script's stdout stays the script's

    def orphaned() -> None:
        # SIGKILLed, the session could not end its script: the daemon, told by the parent-death
        # signal, does (they share the session's namespace, which nothing else is in).
        if os.getppid() != parent:
            namespace.end_other_processes(host_ns, spare=set())

    pid = os.fork()
    if pid == 0:
        _daemon_child(attach, namespace.TRACING_DIR, options, ready_w, debug, finish=orphaned)
    os.close(ready_w)
    if not _wait_ready(ready_r, pid):
        _wait_gone(pid, 1.0, reap=True)
        raise UserError("the emulated kernel's daemon did not start")
    return pid


def _session_mirror(socket_path: str, options: MachineOptions) -> "launch.Mirror | None":
    """The daemon's session ring, for the session's processes to be its kernel's tasks; none
    for a seeded machine (its runs must not depend on what the host's processes do)."""
    if options.seed is not None:
        return None
    ram_fd, offset, size, doorbell_fd, reply_fd, pool_fds, wake_fd = control.session_ring(socket_path)
    tool = shutil.which(PROG, path=os.path.dirname(sys.executable))
    helpers = (os.path.realpath(tool),) if tool else ()
    return launch.Mirror(ram_fd, offset, size, doorbell_fd, reply_fd, helpers, tuple(pool_fds), wake_fd)


def _report_lost_calls(socket_path: str) -> None:
    """Say how many of the session's system calls the emulated kernel never got (its ring was
    full: the kernel fell behind), as a ring buffer counts its overruns."""
    try:
        stats = control.info(socket_path).get("session")
    except control.ControlError:
        return
    if stats and stats["lost"]:
        print(f"{PROG}: {stats['lost']} of the session's {stats['lost'] + stats['produced']} system calls "
              f"were lost: the emulated kernel fell behind", file=sys.stderr)


def _script_env() -> dict[str, str]:
    env = dict(os.environ)
    # `tracefs-sim exec` must be found inside, wherever this tracefs-sim is installed.
    bin_dir = os.path.dirname(sys.executable)
    path = env.get("PATH", os.defpath).split(os.pathsep)
    if bin_dir not in path:
        env["PATH"] = os.pathsep.join([bin_dir, *path])
    return env
