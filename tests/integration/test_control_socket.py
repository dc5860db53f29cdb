"""The control socket protocol, against a stand-in machine (the real one is tested in test_cli)."""

import io
import os
import socket
import threading
import time

import pytest
import trio

from tracefs_sim import control


class ScriptedProcess:
    """A program that writes its chunks from another thread, as the machine's CPUs do."""

    def __init__(self, chunks, status, on_output, delay=0.0):
        self.pid = 42
        self.killed_by = None
        self._status = status
        self._done = threading.Event()

        def run():
            for chunk in chunks:
                time.sleep(delay)
                if on_output:
                    on_output(chunk)
            self._done.set()

        threading.Thread(target=run, daemon=True).start()

    def wait(self, timeout=None):
        return self._status if self._done.wait(timeout) else None


class StandInMachine:
    nr_cpus = 3

    def __init__(self):
        self.spawned = []

    def kallsyms(self):
        return "ffffffff81000000 T _stext\n"

    def programs(self):
        return ["echo", "slow"]

    def session_stats(self):
        return None   # no session ring

    def debuginfo(self):
        return None   # an image without DWARF or build-id

    def spawn(self, argv, on_output=None, on_stderr=None, stdin=None):
        if stdin is not None:  # (the machine takes the fd over)
            os.close(stdin)
        self.spawned.append(argv)
        if argv[0] == "echo":
            return ScriptedProcess([(" ".join(argv[1:]) + "\n").encode()], 0, on_output)
        if argv[0] == "slow":
            return ScriptedProcess([b"x" * 1000] * 50, 3, on_output, delay=0.01)
        raise FileNotFoundError(argv[0])


def _serving(tmp_path, machine):
    """Runs serve() in a thread with its own trio loop; yields (socket path, machine)."""
    path = str(tmp_path / "ctl" / "d.sock")
    token_box = {}
    started = threading.Event()

    async def main():
        async with trio.open_nursery() as nursery:
            token_box["token"] = trio.lowlevel.current_trio_token()
            token_box["cancel"] = nursery.cancel_scope.cancel
            await nursery.start(control.serve, machine, path)
            started.set()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    assert started.wait(10), "control server did not start"
    yield path, machine
    token_box["token"].run_sync_soon(token_box["cancel"])
    thread.join(10)
    assert not thread.is_alive()
    assert not os.path.exists(path), "socket left behind"
    assert not os.path.exists(control.pidfile_path(path)), "pidfile left behind"


@pytest.fixture
def server(tmp_path):
    yield from _serving(tmp_path, StandInMachine())


@pytest.fixture
def machine_server(tmp_path, vmlinux):
    """serve() for a booted emulated machine (1 CPU, no background workload)."""
    from tracefs_sim.machine import Machine, MachineOptions

    machine = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=1))
    machine.start()
    try:
        yield from _serving(tmp_path, machine)
    finally:
        machine.stop()


def test_info(server):
    path, _ = server
    answer = control.info(path)
    assert answer["cpus"] == 3
    assert answer["kallsyms"].startswith("ffffffff81000000 T _stext")
    assert answer["programs"] == ["echo", "slow"]
    assert answer["pid"] == os.getpid()
    assert answer["session"] is None
    assert answer["debuginfo"] is None
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700
    assert control.daemon_from_pidfile(path) == os.getpid()


def test_exec_streams_output_and_status(server):
    path, machine = server
    out = io.BytesIO()
    assert control.exec_program(path, ["echo", "hello", "world"], out) == 0
    assert out.getvalue() == b"hello world\n"
    out = io.BytesIO()
    assert control.exec_program(path, ["slow"], out) == 3
    assert out.getvalue() == b"x" * 50_000


def test_unknown_program(server):
    path, _ = server
    out, err = io.BytesIO(), io.StringIO()
    assert control.exec_program(path, ["nosuch", "arg"], out, err) == 127
    assert err.getvalue() == "tracefs-sim exec: nosuch: no such program\n"
    assert out.getvalue() == b""


@pytest.mark.parametrize(
    "request_bytes",
    [b"garbage\n", b"[1, 2]\n", b'{"op": "reboot"}\n', b'{"op": "exec", "argv": []}\n',
     b'{"op": "exec", "argv": [1]}\n', b"\xff\xfe\n", b"no newline then close"],
)
def test_bad_requests_do_not_hurt_the_server(server, request_bytes):
    path, _ = server
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(path)
        s.sendall(request_bytes)
        s.shutdown(socket.SHUT_WR)
        reply = s.makefile("rb").read()
    assert b"bad control request" in reply
    assert control.info(path)["cpus"] == 3


def test_client_hanging_up_mid_output(server):
    path, machine = server
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(path)
        s.sendall(b'{"op": "exec", "argv": ["slow"]}\n')
        s.recv(100)
    out = io.BytesIO()
    assert control.exec_program(path, ["echo", "still", "here"], out) == 0
    assert out.getvalue() == b"still here\n"


def test_stale_socket_is_replaced_and_live_one_refused(tmp_path, server):
    path, _ = server
    # a live daemon's socket is refused
    with pytest.raises(control.ControlError, match="already serving"):
        control._bind(path)
    # a stale one (nobody listening) is removed
    stale = str(tmp_path / "stale.sock")
    s = socket.socket(socket.AF_UNIX)
    s.bind(stale)
    s.close()
    control._bind(stale).close()


def test_client_errors_are_clear(tmp_path):
    with pytest.raises(control.ControlError, match="no tracefs-sim daemon is listening"):
        control.info(str(tmp_path / "none.sock"))


def test_socket_path_for(monkeypatch, tmp_path):
    monkeypatch.delenv(control.ENV_VAR, raising=False)
    p = control.socket_path_for(str(tmp_path))
    assert p.startswith("/run/tracefs-sim/") and p.endswith(".sock") and len(os.path.basename(p)) == 21
    assert p == control.socket_path_for(str(tmp_path) + "/.")
    monkeypatch.setenv(control.ENV_VAR, "/x/y.sock")
    assert control.socket_path_for(str(tmp_path)) == "/x/y.sock"
    assert control.mount_socket_path(str(tmp_path)) == p


def test_silent_client_is_dropped(server, monkeypatch):
    path, _ = server
    monkeypatch.setattr(control, "_REQUEST_TIMEOUT", 0.2)
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(path)
        assert b"no request within" in s.makefile("rb").read()


def test_exec_gives_the_programs_stderr_apart_from_its_stdout(machine_server):
    # the emulated cat's fd 2 is a file of its own: what it writes there is the caller's stderr
    path, _ = machine_server
    out, err, err_out = io.BytesIO(), io.StringIO(), io.BytesIO()
    assert control.exec_program(path, ["cat", "/etc/hostname", "/nonexistent"], out, err, err_out) == 1
    with open("/etc/hostname", "rb") as f:
        assert out.getvalue() == f.read()
    assert err_out.getvalue() == b"cat: /nonexistent: No such file or directory\n"
    assert err.getvalue() == ""
    # without a place for it, stderr joins stdout, as before
    out = io.BytesIO()
    assert control.exec_program(path, ["cat", "/nonexistent"], out) == 1
    assert out.getvalue() == b"cat: /nonexistent: No such file or directory\n"


def test_exec_returns_when_the_kernel_panics_under_the_program(machine_server):
    path, machine = machine_server
    out, err, result = io.BytesIO(), io.StringIO(), {}

    def run():
        result["status"] = control.exec_program(path, ["getuid-loop", "100000000"], out, err)
    client = threading.Thread(target=run, daemon=True)
    client.start()
    deadline = time.monotonic() + 30
    while not out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.getvalue().startswith(b"0\n"), "the program did not start"
    # An int3 in the syscall the program loops on, with no probe to claim it: the kernel's
    # #BP handler finds no kprobe there and dies of it (a panic in its NMI context) while the
    # program runs.
    machine.text_poke(machine.image.addr("__x64_sys_getuid"), b"\xcc")
    client.join(20)
    assert not client.is_alive(), "exec hung after the panic"
    assert result["status"] == 137       # as a shell reports a SIGKILLed program
    assert err.getvalue() == ("tracefs-sim exec: getuid-loop: killed: the emulated kernel panicked: "
                              "Kernel panic - not syncing: Fatal exception in interrupt\n")
    # later requests answer: info as before, exec refused with the reason
    assert control.info(path)["cpus"] == 1
    err = io.StringIO()
    assert control.exec_program(path, ["cat", "/etc/hostname"], io.BytesIO(), err) == 126
    assert err.getvalue() == ("tracefs-sim exec: cat: cannot run: Kernel panic - not syncing: Fatal exception "
                              "in interrupt\n")
    assert control.disassemble(path, "__x64_sys_getuid")["bytes"].startswith("cc")

