"""A session's processes may use pidfds, execveat, membarrier, splice/tee/vmsplice and
sendmmsg/recvmmsg: the host makes the calls, the kernel replays them (kernel/pid.c, fs/exec.c,
kernel/sched/membarrier.c, fs/splice.c, net/socket.c), and the session goes on as on the host."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from simtest import section, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and namespaces")

T = "/sys/kernel/tracing"
PROGTEST = Path(__file__).resolve().parents[2] / "kernel_model" / "build" / "user" / "progtest.elf"
COMMANDS = ("pidfd", "execveat", "membarrier", "splice", "mmsg")
CALLS = ("pidfd_open", "pidfd_send_signal", "pidfd_getfd", "execveat", "membarrier", "splice", "tee",
         "vmsplice", "sendmmsg", "recvmmsg")


def test_a_session_program_using_them_says_what_it_says_on_the_host(tmp_path):
    prog = tmp_path / "progtest"  # (the project's own build tree is not mirrored)
    shutil.copy(PROGTEST, prog)
    enable = "; ".join(f"echo 1 > {T}/events/syscalls/sys_enter_{call}/enable" for call in CALLS)
    runs = "; ".join(f"echo '== {cmd}'; {prog} {cmd}; echo \"status $?\"" for cmd in COMMANDS)
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"{enable}; {runs}; echo '== trace'; grep -v '^#' {T}/trace", timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    for cmd in COMMANDS:
        host = subprocess.run([prog, cmd], capture_output=True, text=True, timeout=30)
        assert section(result.stdout, cmd) == host.stdout.splitlines() + [f"status {host.returncode}"], cmd
    trace = "\n".join(section(result.stdout, "trace"))
    for call in CALLS:
        assert f"sys_{call}(" in trace, call
