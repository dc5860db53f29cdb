"""What the integration tests and their fixtures share: the installed command, mount checks
and clean-up, and the reference outputs of Linux 6.1."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tracefs_sim import control

TRACEFS_SIM = str(Path(sys.executable).parent / "tracefs-sim")
REPO = Path(__file__).resolve().parents[2]
# Captured from a real Linux 6.1 (../shared/reference/linux-6.1): the recipe (.sh), its output (.out).
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "linux-6.1"
# Boot of the emulated machine plus the mount, on a loaded 2-core box.
START_TIMEOUT = 90


# A whole session running a tool: under pytest's own timeout (300 s), so that a session that
# never ends fails with what it printed up to then.
SESSION_TIMEOUT = 240


def tool_waits_in(*syscalls: int) -> str:
    """A session script's wait until the tool started as `$t` (by timeout, whose child it is)
    waits in one of these system calls (the host's /proc/PID/syscall): attached and in its loop."""
    cases = "|".join(f"{nr}\\ *" for nr in syscalls)
    return ("c=$(pgrep -P $t | head -1); "
            f"for i in $(seq 900); do case \"$(cat /proc/$c/syscall 2>/dev/null)\" in {cases}) break;; "
            "esac; sleep 0.1; done; ")


# polling its perf buffers: poll, ppoll, epoll_wait, epoll_pwait (BCC's perf_reader_poll() is a
# poll(2)); BCC's tools open them after their banner, and an event before that is lost
TOOL_IN_POLL = tool_waits_in(7, 271, 232, 281)


def _text(output: bytes | str | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


def tracefs_sim(*args: str, timeout: float = START_TIMEOUT, **kwargs) -> subprocess.CompletedProcess:
    """`tracefs-sim ARGS` to completion, text output captured; stdin /dev/null unless given
    (`exec` passes its stdin to the program: never the test runner's).  No end within the
    timeout fails the test with the output so far (the step it hung at)."""
    if "input" not in kwargs:
        kwargs.setdefault("stdin", subprocess.DEVNULL)
    try:
        result = subprocess.run([TRACEFS_SIM, *args], capture_output=True, text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"tracefs-sim {' '.join(args)}: no end after {timeout} s\n"
                    f"stdout so far:\n{_text(hung.stdout)}\nstderr so far:\n{_text(hung.stderr)}")
    # What the daemon logged (a request that failed with EIO logs its traceback there): pytest
    # shows it with a failing test's report, whichever assertion on the output failed.
    sys.stderr.write(_text(result.stderr))
    return result


def sh(cwd, script: str, timeout: float = 20) -> subprocess.CompletedProcess:
    """A command line as a user types it. bash: its echo reports the errno (dash's says only
    "I/O error")."""
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def simulator_mounts() -> list[str]:
    """Mountpoints of every tracefs-sim FUSE mount in this (the host's) namespace."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if fields[fields.index("-") + 1] == "fuse.tracefs":
                found.append(fields[4].encode().decode("unicode_escape"))
    return found


def simulator_mounted_at(path) -> bool:
    """A tracefs-sim FUSE mount at `path` in this (the host's) namespace."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            fstype = fields[fields.index("-") + 1]
            if fields[4] == str(path) and fstype == "fuse.tracefs":
                return True
    return False


def process_running(pid: int) -> bool:
    """Exists and is not a zombie (an exited daemon may wait a moment for init to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def unmount(mnt: Path) -> None:
    """Whatever state the mount is in: umount, then the backstops, and no daemon left."""
    socket_path = control.mount_socket_path(str(mnt))
    pid = control.daemon_from_pidfile(socket_path)
    try:
        tracefs_sim("umount", str(mnt), timeout=40)
    except subprocess.TimeoutExpired:
        pass
    if simulator_mounted_at(mnt):
        subprocess.run(["fusermount3", "-u", "-z", str(mnt)], capture_output=True, timeout=20)
    if pid is not None and control.daemon_from_pidfile(socket_path) == pid:
        os.kill(pid, signal.SIGKILL)
    for leftover in (socket_path, control.pidfile_path(socket_path)):
        if os.path.exists(leftover):
            os.unlink(leftover)


def reference_section(name: str, command: str) -> str:
    """What the real kernel printed for `command` in recipe `name`."""
    text = (REFERENCE / f"{name}.out").read_text()
    start = text.index(f"### $ {command}\n") + len(f"### $ {command}\n")
    end = text.find("### $ ", start)
    return text[start:] if end < 0 else text[start:end]


def emulated_passwd() -> str:
    """/etc/passwd as a program `tracefs-sim exec` runs reads it: the host's, through the
    emulated kernel's hostfs."""
    return Path("/etc/passwd").read_text()


# Set in the environment of everything a test starts: processes that inherited it are the
# test's own, whatever other tests (or other users of the machine) run meanwhile.
TAG_VAR = "TRACEFS_SIM_TEST_TAG"


def tagged_processes(tag: str) -> list[int]:
    """Running (not zombie) processes whose environment carries TAG_VAR=tag."""
    marker = f"{TAG_VAR}={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if marker in environ and process_running(int(entry)):
            found.append(int(entry))
    return found


def wait_until(predicate, timeout: float, interval: float = 0.05) -> bool:
    """Poll predicate() until it is true (True) or timeout seconds have passed (False)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)
    return True


_SYS_READ = 0  # x86-64


def blocked_in_read(pid: int) -> bool:
    """The process sleeps in read(2) (a reader waiting on trace_pipe)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            sleeping = f.read().rpartition(")")[2].split()[0] == "S"
        with open(f"/proc/{pid}/syscall") as f:
            return sleeping and f.read().split()[0] == str(_SYS_READ)
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def section(output: str, title: str) -> list[str]:
    """The lines after `== title` up to the next `== ` line, in a script's output."""
    lines = output.splitlines()
    start = lines.index(f"== {title}") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("== ")), len(lines))
    return lines[start:end]


@pytest.fixture
def quiet(mount_at):
    """(run(script) -> its output and errors, guest(*argv) runs a program in the kernel) on a
    machine with no workload: the programs the tests run make the calls the filters pick."""
    mounted = mount_at("--workload", "none")

    def run(script):
        result = sh(mounted, script)
        return result.stdout + result.stderr

    def guest(*argv):
        result = tracefs_sim("exec", "--mount", str(mounted), *argv, timeout=60)
        assert result.returncode == 0, result.stderr

    return run, guest


# The function profiler's files: Linux 6.1 has them with CONFIG_FUNCTION_PROFILER, which the
# reference kernel (Debian's build) lacks; their modes are 6.1's source's (ftrace.c's
# TRACE_MODE_WRITE, trace_stat.c's directory and per-cpu files, and function_graph's option
# graph-time, an options/ file like the others).
FUNCTION_PROFILER_MODES = {"function_profile_enabled": ("-rw-r-----", "root", "root"),
                           "trace_stat": ("drwxr-x---", "root", "root"),
                           "trace_stat/function0": ("-rw-r-----", "root", "root"),
                           "options/graph-time": ("-rw-r-----", "root", "root")}


# bpftrace's own notice on stderr, once every probe is attached, when this is set (its runtime
# tests' way).  "Attaching N probes..." comes before the attaching, which takes tens of seconds
# on a loaded box: a SIGINT then, bpftrace 0.17 notes and goes on into its poll loop, which never
# looks at the note again (on Linux too), and it runs on.
NOTIFY_ATTACHED = "__BPFTRACE_NOTIFY_PROBES_ATTACHED"

# The head of a python3 script that makes raw system calls in a session: sc(nr, args...) is
# the call's result, or -errno as the kernel returned it.
PY_SYSCALL = """\
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(*a):
    r = libc.syscall(*[ctypes.c_long(x) for x in a])
    return r if r != -1 else -ctypes.get_errno()
"""


def until_attached(log: Path | str) -> str:
    """Shell: wait, at most 3 minutes, for bpftrace (run with NOTIFY_ATTACHED=1) to write its
    notice to `log`."""
    return f"for i in $(seq 1800); do grep -q {NOTIFY_ATTACHED} {log} && break; sleep 0.1; done; "


def without_notice(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if NOTIFY_ATTACHED not in line)
