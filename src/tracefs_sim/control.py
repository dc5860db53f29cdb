"""The daemon's control socket: run emulated programs and describe the emulated machine.

Protocol: a unix stream socket, one request per connection. The client sends one JSON line,
the server answers with JSON lines.

    {"op": "info"}            -> {"cpus": N, "kallsyms": "...", "programs": [...], "pid": PID,
                                  "session": {"produced": N, "retired": N, "retired_upto": N,
                                              "lost": N} or null,
                                  "debuginfo": {"vmlinux": PATH, "release": R, "comp_dir": DIR,
                                                "sources": DIR} or null}
    {"op": "exec", "argv": [...]}
                              -> {"output": BASE64} (its stdout) and {"stderr": BASE64} ... as
                                 the program writes, in its order (batched),
                                 then {"error": MSG} if it could not start, then {"status": N}
    {"op": "session"}         -> {"offset": N, "size": N} with three descriptors (SCM_RIGHTS): the
                                 machine's RAM file, the doorbell eventfd and the reply eventfd (the
                                 kernel answered a served call), for a session's
                                 supervisor to write the kernel's session ring; or {"error": MSG}
                                 (a seeded machine, or a kernel without the ring)
    {"op": "disasm", "target": SYMBOL or ADDR}
                              -> {"symbol": NAME, "start": ADDR, "bytes": HEX, "notes": [[ADDR, TEXT]...],
                                  "listing": TEXT}: the live code of the kernel function, its patch
                                 sites and objdump-style disassembly; or {"error": MSG}

A request the server cannot parse gets {"error": MSG} and the connection is closed; nothing a
client sends can end the server.
"""

from __future__ import annotations

import array
import base64
import functools
import hashlib
import itertools
import json
import os
import socket
import stat
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

# The server imports trio where it runs (`import trio` below, ~60 ms): the client commands
# (`exec`, `disasm`, `umount`) and the CLI's start-up never need it.
if TYPE_CHECKING:
    import trio

    from .machine.contract import ServedMachine

# a request or an answer: one JSON object
JsonObject = dict[str, Any]

RUN_DIR = "/run/tracefs-sim"
ENV_VAR = "TRACEFS_SIM_CONTROL"

# A request is one short JSON line; anything longer is not a request of ours.
_MAX_REQUEST = 1 << 16
_MAX_FDS = 4  # fds a request may carry (exec: its stdin); more are cut by the kernel (MSG_CTRUNC)
SESSION_POOL_MAX = 240  # perf pool files a session answer may carry (SCM_RIGHTS takes 253 fds)
_REQUEST_TIMEOUT = 10.0
# How long the server waits between checks of a running program's exit.
_WAIT_SLICE = 0.5


class ControlError(Exception):
    """The control socket could not be reached or answered something unexpected."""


# ---------------------------------------------------------------------------------------------
# paths


def canonical_mountpoint(mountpoint: str) -> str:
    """The absolute path of `mountpoint` with its parent's symlinks resolved.

    The mountpoint itself is never looked at: once mounted, a stat of it is a FUSE request,
    which would deadlock a daemon asking before it serves, and hang on a stopped one."""
    path = os.path.abspath(mountpoint)
    if path == "/":
        return path
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def mount_socket_path(mountpoint: str) -> str:
    """The socket of the daemon serving `mountpoint`, ignoring $TRACEFS_SIM_CONTROL."""
    digest = hashlib.sha1(canonical_mountpoint(mountpoint).encode()).hexdigest()
    return os.path.join(RUN_DIR, digest[:16] + ".sock")


def socket_path_for(mountpoint: str) -> str:
    """$TRACEFS_SIM_CONTROL if set (a shell/run session names its daemon), else the mount's."""
    return os.environ.get(ENV_VAR) or mount_socket_path(mountpoint)


def pidfile_path(socket_path: str) -> str:
    """Where the daemon serving `socket_path` records itself ("PID STARTTIME"), for when it
    stops answering."""
    return socket_path + ".pid"


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot: with the pid, names it uniquely."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rpartition(")")[2].split()[19]


def daemon_from_pidfile(socket_path: str) -> int | None:
    """The pid recorded for `socket_path`, if that very process still exists (pids get reused)."""
    try:
        with open(pidfile_path(socket_path)) as f:
            pid_text, start = f.read().split()
        pid = int(pid_text)
        return pid if _start_time(pid) == start else None
    except (OSError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# server


async def serve(machine: ServedMachine, path: str, *,
                task_status: trio.TaskStatus[list[trio.SocketListener]] | None = None,
                written_code: Callable[[], Sequence[tuple[str, int, int]]] | None = None) -> None:
    """Serve control requests for `machine` on `path` until cancelled.  written_code(): the code
    its kernel wrote at run time (BPF trampolines: name, start, end), which disasm shows too."""
    import trio

    status = trio.TASK_STATUS_IGNORED if task_status is None else task_status  # (not from nursery.start())
    sock = _bind(path)
    identity = os.stat(path)
    pidfile = pidfile_path(path)
    try:
        with open(pidfile, "w") as f:
            f.write(f"{os.getpid()} {_start_time(os.getpid())}\n")
        listener = trio.SocketListener(trio.socket.from_stdlib_socket(sock))
        handler = functools.partial(_handle, machine, written_code or (lambda: ()))
        await trio.serve_listeners(handler, [listener], task_status=status)
    finally:
        # Remove our files only if a newer daemon has not replaced them meanwhile.
        try:
            st = os.stat(path)
            if (st.st_dev, st.st_ino) == (identity.st_dev, identity.st_ino):
                os.unlink(path)
                os.unlink(pidfile)
        except FileNotFoundError:
            pass
        sock.close()


def _bind(path: str) -> socket.socket:
    parent = os.path.dirname(path) or "."
    os.makedirs(parent, mode=0o700, exist_ok=True)
    if os.path.realpath(parent) == os.path.realpath(RUN_DIR):
        os.chmod(parent, 0o700)
    if os.path.lexists(path):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise ControlError(f"{path} exists and is not a socket")
        if _is_live(path):
            raise ControlError(f"another tracefs-sim daemon is already serving {path}")
        os.unlink(path)  # stale: its daemon is gone
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)
        os.chmod(path, 0o600)
        sock.listen(16)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def _is_live(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


class _BadRequest(Exception):
    pass


async def _handle(machine: ServedMachine, written_code: Callable[[], Sequence[tuple[str, int, int]]],
                  stream: trio.SocketStream) -> None:
    import trio

    fds: list[int] = []
    async with stream:
        try:
            request, rest = await _read_request(stream, fds)
            op = request.get("op")
            if op == "info":
                await _send(stream, _describe(machine))
            elif op == "exec":
                await _exec(machine, stream, request.get("argv"), rest, fds)
            elif op == "session":
                await _send_session_ring(machine, stream)
            elif op == "disasm":
                target = request.get("target")
                if not isinstance(target, str):
                    raise _BadRequest("disasm needs target, a symbol name or an address")
                # Off the loop: the image's tables are parsed on first use.
                await _send(stream, await trio.to_thread.run_sync(_disassemble, machine, target, written_code()))
            else:
                raise _BadRequest(f"unknown request {op!r}")
        except _BadRequest as e:
            try:
                await _send(stream, {"error": f"tracefs-sim: bad control request: {e}"})
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the client went away; nothing to tell it
        except Exception as e:  # a daemon bug must not take the filesystem down with it
            print(f"tracefs-sim: control request failed: {e!r}", file=sys.stderr)
        finally:
            for fd in fds:  # what no request took
                os.close(fd)


async def _read_request(stream: trio.SocketStream, fds: list[int]) -> tuple[JsonObject, bytes]:
    """The request line, what followed it, and (into fds) the fds that came with it."""
    import trio

    buf = bytearray()
    # A client that connects and says nothing must not hold a task forever.
    with trio.move_on_after(_REQUEST_TIMEOUT):
        while b"\n" not in buf:
            if len(buf) > _MAX_REQUEST:
                raise _BadRequest("request too long")
            data, ancdata, _, _ = await stream.socket.recvmsg(4096, socket.CMSG_SPACE(_MAX_FDS * 4))
            for level, kind, payload in ancdata:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.extend(array.array("i", payload[:len(payload) - len(payload) % 4]))
            if not data:
                raise _BadRequest("connection closed before a complete request")
            buf += data
    if b"\n" not in buf:
        raise _BadRequest(f"no request within {_REQUEST_TIMEOUT} s")
    line, _, rest = bytes(buf).partition(b"\n")
    try:
        request = json.loads(line)
    except (ValueError, UnicodeDecodeError) as e:
        raise _BadRequest(f"not JSON: {e}") from None
    if not isinstance(request, dict):
        raise _BadRequest("not a JSON object")
    return request, rest


async def _send(stream: trio.SocketStream, message: JsonObject) -> None:
    await stream.send_all(json.dumps(message).encode() + b"\n")


async def _send_session_ring(machine: ServedMachine, stream: trio.SocketStream) -> None:
    import trio

    ring = await trio.to_thread.run_sync(machine.session_ring)
    if ring is None:
        raise _BadRequest("this machine serves no session ring (seeded, or a kernel without one)")
    wake = [ring.wake_fd] if ring.wake_fd >= 0 else []
    message = json.dumps({"offset": ring.offset, "size": ring.size, "pool": len(ring.pool_fds),
                          "wake": len(wake)}).encode() + b"\n"
    fds = array.array("i", [ring.ram_fd, ring.doorbell_fd, ring.reply_fd, *ring.pool_fds, *wake])
    await stream.socket.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])


def _describe(machine: ServedMachine) -> JsonObject:
    debuginfo = machine.debuginfo()
    return {
        "cpus": machine.nr_cpus,
        "kallsyms": machine.kallsyms(),
        "programs": list(machine.programs()),
        "pid": os.getpid(),
        "session": machine.session_stats(),
        "debuginfo": None if debuginfo is None else {"vmlinux": debuginfo.vmlinux, "release": debuginfo.release,
                                                      "comp_dir": debuginfo.comp_dir, "sources": debuginfo.sources},
    }


def _disassemble(machine: ServedMachine, target: str, written: Sequence[tuple[str, int, int]] = ()) -> JsonObject:
    # Imported here: Capstone is for this request only, not for every `tracefs-sim exec`.
    from . import disasm
    from .machine.image import KernelImage

    image = machine.image
    if not isinstance(image, KernelImage):
        return {"error": "this machine has no kernel image to disassemble"}

    try:
        name, start, end = disasm.resolve_function(image, target, written)
    except disasm.DisasmError as e:
        return {"error": str(e)}
    code = machine.read_memory(start, end - start)  # live: what the CPUs execute now
    notes = disasm.site_notes(image, start, code)
    listing = disasm.format_listing(name, start, code, disasm.kernel_symbolizer(image, written), notes)
    return {"symbol": name, "start": start, "bytes": code.hex(),
            "notes": sorted(notes.items()), "listing": listing}


async def _exec(machine: ServedMachine, stream: trio.SocketStream, argv: Any, rest: bytes,
                fds: list[int]) -> None:
    """Run argv; the one fd that came with the request, if any, is its stdin (spawn takes it)."""
    import trio

    if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
        raise _BadRequest("exec needs argv, a non-empty list of strings")
    if len(fds) > 1:
        raise _BadRequest("exec takes one fd at most: the program's stdin")
    stdin = fds.pop() if fds else None
    pump = _OutputPump(trio.lowlevel.current_trio_token())
    try:
        # spawn waits for the guest to start the program: never block the loop serving FUSE.
        process = await trio.to_thread.run_sync(machine.spawn, argv, pump.write, pump.write_stderr, stdin)
    except FileNotFoundError:
        await _send(stream, {"error": f"tracefs-sim exec: {argv[0]}: no such program"})
        await _send(stream, {"status": 127})
        return
    except Exception as e:  # the machine could not start it: say why, as a shell would (126)
        print(f"tracefs-sim: exec {argv!r} failed: {e!r}", file=sys.stderr)
        reason = str(e).splitlines()[0] if str(e) else repr(e)  # (a panic's oops follows its first line)
        await _send(stream, {"error": f"tracefs-sim exec: {argv[0]}: cannot run: {reason}"})
        await _send(stream, {"status": 126})
        return

    async def wait_exit() -> None:
        status = None
        while status is None:
            status = await trio.to_thread.run_sync(
                process.wait, _WAIT_SLICE, abandon_on_cancel=True
            )
        pump.finish(status)

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_cancel_on_hangup, stream, rest, nursery.cancel_scope)
            nursery.start_soon(wait_exit)
            while True:
                chunks, status = await pump.take()
                for key, data in chunks:
                    await _send(stream, {key: base64.b64encode(data).decode("ascii")})
                if status is not None:
                    if process.killed_by:  # the kernel died under it: say so, as a shell says "Killed"
                        reason = process.killed_by.splitlines()[0]
                        await _send(stream, {"error": f"tracefs-sim exec: {argv[0]}: killed: "
                                                      f"the emulated kernel panicked: {reason}"})
                    await _send(stream, {"status": status})
                    nursery.cancel_scope.cancel()
                    return
    finally:
        # The program runs on in the emulated kernel without a reader: drop what it prints.
        pump.discard()


async def _cancel_on_hangup(stream: trio.SocketStream, rest: bytes, scope: trio.CancelScope) -> None:
    """A client that closes its end no longer wants the output: stop serving it."""
    import trio

    if not rest:
        try:
            while await stream.receive_some(4096):
                pass
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
    scope.cancel()


class _OutputPump:
    """Carries program output from machine threads to the connection, one wakeup per batch;
    each chunk tagged with the message key it goes under ("output": stdout, "stderr")."""

    def __init__(self, token: trio.lowlevel.TrioToken):
        import trio

        self._token = token
        self._lock = threading.Lock()
        self._chunks: list[tuple[str, bytes]] = []
        self._wake_pending = False
        self._discard = False
        self._status: int | None = None
        self._ready = trio.Event()

    def write(self, data: bytes) -> None:
        """Called from a machine thread with what the program wrote to its stdout."""
        self._put("output", data)

    def write_stderr(self, data: bytes) -> None:
        """... and to its stderr."""
        self._put("stderr", data)

    def _put(self, key: str, data: bytes) -> None:
        with self._lock:
            if self._discard:
                return
            self._chunks.append((key, bytes(data)))
            if self._wake_pending:
                return
            self._wake_pending = True
        import trio

        try:
            self._token.run_sync_soon(self._wake)
        except trio.RunFinishedError:
            pass

    def _wake(self) -> None:
        self._ready.set()

    def finish(self, status: int) -> None:
        self._status = status
        self._ready.set()

    def discard(self) -> None:
        with self._lock:
            self._discard = True
            self._chunks.clear()

    async def take(self) -> tuple[list[tuple[str, bytes]], int | None]:
        """Wait for output or the exit; return the output so far, in the order written, as
        (key, bytes) chunks, and the status once exited."""
        import trio

        await self._ready.wait()
        self._ready = trio.Event()
        with self._lock:
            chunks = self._chunks
            self._chunks = []
            self._wake_pending = False
        # one message per run of a stream's chunks (joined once: a program's many small writes)
        runs = [(key, b"".join(data for _, data in group))
                for key, group in itertools.groupby(chunks, key=lambda chunk: chunk[0])]
        return runs, self._status


# ---------------------------------------------------------------------------------------------
# client


def _connect(path: str, timeout: float | None) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        raise ControlError(f"no tracefs-sim daemon is listening on {path}") from None
    except OSError as e:
        sock.close()
        raise ControlError(f"cannot connect to {path}: {e.strerror}") from None
    return sock


def _replies(sock: socket.socket, path: str) -> Iterator[JsonObject]:
    """The JSON messages the server sends, until it closes; socket failures as ControlError."""
    try:
        with sock.makefile("rb") as f:
            for line in f:
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if not isinstance(message, dict):
                    raise ControlError(f"garbled answer from {path}")
                yield message
    except TimeoutError:
        raise ControlError(f"the daemon on {path} did not answer in time") from None
    except OSError as e:
        raise ControlError(f"lost the connection to {path}: {e.strerror}") from None


def _send_request(sock: socket.socket, path: str, request: JsonObject, fds: list[int] | None = None) -> None:
    data = json.dumps(request).encode() + b"\n"
    try:
        sent = socket.send_fds(sock, [data], fds) if fds else 0  # the fds ride on the first bytes
        if sent < len(data):
            # (nothing more to send is not sent: by then a short request may have been served
            # and closed, and an empty send to a closed peer fails with EPIPE)
            sock.sendall(data[sent:])
    except OSError as e:
        raise ControlError(f"lost the connection to {path}: {e.strerror}") from None


def info(path: str, timeout: float | None = 10.0) -> JsonObject:
    """Ask the daemon on `path` about its machine: cpus, kallsyms, programs, pid."""
    with _connect(path, timeout) as sock:
        _send_request(sock, path, {"op": "info"})
        for message in _replies(sock, path):
            if "error" in message:
                raise ControlError(message["error"])
            return message
    raise ControlError(f"the daemon on {path} closed the connection without answering")


def session_ring(path: str, timeout: float | None = 10.0) -> tuple[int, int, int, int, int, list[int], int]:
    """The daemon's session ring: (RAM file fd, ring offset, ring size, doorbell fd, reply fd, the perf
    pool's region files, the perf wakeup eventfd or -1); the fds are the caller's to close. A machine
    without one is a ControlError saying so."""
    with _connect(path, timeout) as sock:
        _send_request(sock, path, {"op": "session"})
        try:
            data, fds, _, _ = socket.recv_fds(sock, 4096, 4 + SESSION_POOL_MAX)
        except OSError as e:
            raise ControlError(f"lost the connection to {path}: {e}") from None
        try:
            message = json.loads(data.split(b"\n")[0])
        except ValueError:
            message = None
        if not isinstance(message, dict) or "error" in message or \
                len(fds) != 3 + message.get("pool", 0) + message.get("wake", 0):
            for fd in fds:
                os.close(fd)
            error = message.get("error") if isinstance(message, dict) else None
            raise ControlError(error or f"garbled answer from {path}")
        pool_end = 3 + message.get("pool", 0)
        wake = fds[pool_end] if message.get("wake") else -1
        return fds[0], int(message["offset"]), int(message["size"]), fds[1], fds[2], fds[3:pool_end], wake


def disassemble(path: str, target: str, timeout: float | None = 10.0) -> JsonObject:
    """Ask the daemon on `path` for the live code of kernel function `target` (a name or a hex
    address): symbol, start, bytes (hex), notes ([address, text]), listing. An unknown target
    is a ControlError saying so."""
    with _connect(path, timeout) as sock:
        _send_request(sock, path, {"op": "disasm", "target": target})
        for message in _replies(sock, path):
            if "error" in message:
                raise ControlError(message["error"])
            return message
    raise ControlError(f"the daemon on {path} closed the connection without answering")


def exec_program(path: str, argv: list[str], out: BinaryIO, err: TextIO | None = None,
                 err_out: BinaryIO | None = None, stdin: int | None = None) -> int:
    """Run `argv` in the emulated kernel; copy its stdout to `out` and its stderr to `err_out`
    (to `out` when None); its stdin is what it reads of the fd `stdin` (passed to the daemon
    with the request), else /dev/null; return its exit status.

    Errors the daemon reports (e.g. an unknown program, status 127) go to `err` (stderr)."""
    err = err if err is not None else sys.stderr
    with _connect(path, 10.0) as sock:
        sock.settimeout(None)  # a program may run as long as it likes
        _send_request(sock, path, {"op": "exec", "argv": list(argv)}, fds=[stdin] if stdin is not None else [])
        for message in _replies(sock, path):
            if "output" in message or "stderr" in message:
                key = "output" if "output" in message else "stderr"
                to = out if key == "output" or err_out is None else err_out
                to.write(base64.b64decode(message[key]))
                to.flush()
            elif "error" in message:
                print(message["error"], file=err)
            elif "status" in message:
                return int(message["status"])
    raise ControlError(f"the daemon on {path} closed the connection before {argv[0]} finished")
