"""Signals the emulated kernel sends to a session's processes reach them on the host: the
kernel posts each in the session ring, the supervisor sends it (kill for a process's, tgkill for
a thread's) to a process of its session only.  bpftrace's signal() (bpf_send_signal) and a guest
program's kill(2)/tgkill(2) of a session pid, with signal:signal_generate as 6.1 shows them."""

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from simtest import NOTIFY_ATTACHED, REPO, tracefs_sim, until_attached

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.timeout(400),
]
NATIVE = REPO / "src/tracefs_sim/session/native"
GENERATE = re.compile(r"signal_generate: sig=(\d+) errno=(\d+) code=(-?\d+) comm=(\S+) pid=(\d+) grp=(\d) res=(\d)")


def generated(trace: str) -> list[tuple]:
    return [(int(m[1]), int(m[2]), int(m[3]), m[4], int(m[5]), int(m[6]), int(m[7])) for m in GENERATE.finditer(trace)]


def run_generating(tmp_path, script: str) -> str:
    """SCRIPT in a session with signal_generate on, then the trace: the session's output"""
    result = tracefs_sim("run", "--workload", "none", "-c",
                         "T=/sys/kernel/tracing; echo 1 > $T/events/signal/signal_generate/enable; "
                         f"{script}; cat $T/trace", timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.skipif(shutil.which("bpftrace") is None, reason="bpftrace is not installed")
def test_bpftrace_signal_kills_the_traced_process_on_the_host(tmp_path):
    """signal("KILL") in a tracepoint program (bpf_send_signal, from an irq_work as in 6.1): a
    `sleep 30` blocked in clock_nanosleep on the host dies of SIGKILL, not 30 s later; the kernel's
    signal_generate says SIGKILL for its process, SEND_SIG_PRIV's code (SI_KERNEL), delivered."""
    out, victim = tmp_path / "bt.out", tmp_path / "victim"
    shutil.copy("/bin/sleep", victim)  # (a name of its own: the wait for the attach runs sleeps too)
    program = 'tracepoint:syscalls:sys_enter_clock_nanosleep /comm == "victim"/ { signal("KILL"); exit() }'
    script = ("T=/sys/kernel/tracing; echo 1 > $T/events/signal/signal_generate/enable; "
              f"{NOTIFY_ATTACHED}=1 bpftrace --unsafe -e '{program}' >{out} 2>&1 & bt=$!; " + until_attached(out) +
              f"{victim} 30 & p=$!; wait $p; echo \"sleep status $? pid $p\"; wait $bt; echo \"bpftrace status $?\"; "
              "cat $T/trace")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    m = re.search(r"sleep status (\d+) pid (\d+)", result.stdout)
    assert m and int(m[1]) == 128 + signal.SIGKILL, result.stdout + out.read_text()
    assert "bpftrace status 0" in result.stdout, result.stdout + out.read_text()
    sleep = int(m[2])
    assert (signal.SIGKILL, 0, 0x80, "victim", sleep, 1, 0) in generated(result.stdout), result.stdout


def test_a_guest_programs_kill_and_tgkill_reach_the_host_process(tmp_path):
    """kill(2) (group) and tgkill(2) (the thread) of a session pid by a guest program, a task of
    the emulated kernel: each session process dies of its signal on the host, and
    signal_generate shows each as kill(2)'s (SI_USER) and tgkill(2)'s (SI_TKILL, -6) are."""
    out = run_generating(tmp_path,
                         "sleep 30 & a=$!; tracefs-sim exec syscall 62 $a 10; wait $a; echo \"a status $? pid $a\"; "
                         "sleep 30 & b=$!; tracefs-sim exec syscall 234 $b $b 15; wait $b; echo \"b status $? pid $b\"")
    a = re.search(r"a status (\d+) pid (\d+)", out)
    b = re.search(r"b status (\d+) pid (\d+)", out)
    assert a and int(a[1]) == 128 + signal.SIGUSR1, out
    assert b and int(b[1]) == 128 + signal.SIGTERM, out
    events = generated(out)
    assert (signal.SIGUSR1, 0, 0, "sleep", int(a[2]), 1, 0) in events, out
    assert (signal.SIGTERM, 0, -6, "sleep", int(b[2]), 0, 0) in events, out


def test_a_session_processs_kill_shows_its_signal_as_61_does(tmp_path):
    """kill(2) of a session process by another: the host sends it, the replay's signal_generate
    shows it (SI_USER; res 1 for a signal the target ignores, SIG_IGN inherited over exec; none
    for kill -0), and each kill returns 0 in the kernel as on the host.  The `sleep 0.5` ends
    first, and the shell's SIGCHLD handler reaps it (waitpid WNOHANG) before the kills: its
    replay must reap that child, not b, whose end (of the SIGTERM) the replay may have seen
    already."""
    out = run_generating(tmp_path,
                         "echo 1 > $T/events/syscalls/sys_exit_kill/enable; "
                         "sleep 30 & a=$!; kill -USR1 $a; wait $a; "
                         "(trap '' USR2; exec sleep 30) & b=$!; sleep 0.5; kill -USR2 $b; kill -0 $b; kill $b; wait $b; "
                         "echo \"pids $a $b\"")
    a, b = map(int, re.search(r"pids (\d+) (\d+)", out).groups())
    sent = [(sig, code, pid, res) for sig, _, code, _, pid, _, res in generated(out) if pid in (a, b)]
    assert sent == [(signal.SIGUSR1, 0, a, 0), (signal.SIGUSR2, 0, b, 1), (signal.SIGTERM, 0, b, 0)], out
    assert re.findall(r"sys_kill -> (0x\w+)$", out, re.M) == ["0x0"] * 4, out
    # each child's end: SIGCHLD to the shell (CLD_KILLED for a and b, CLD_EXITED for the sleep 0.5)
    shell = {pid for sig, _, _, _, pid, _, _ in generated(out) if sig == signal.SIGCHLD}
    codes = sorted(code for sig, _, code, _, _, _, _ in generated(out) if sig == signal.SIGCHLD)
    assert len(shell) == 1 and codes[:3] == [1, 2, 2], out

STUB = r"""
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "session.h"
#include "session_ring.h"

static pid_t traced;	/* the one process "the supervisor traces" */
bool mirror_traces(pid_t tid, pid_t tgid) { return tid == traced && tgid == traced; }
struct session_ring *mirror_ring(void) { return NULL; }
void serve_kernel_woke(void) { }

static pid_t child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static void show(const char *what, const struct session_signal *s)
{
	printf("%s %d\n", what, signal_send(s));
}

int main(void)
{
	pid_t outside = child(), inside = child();
	int status;

	traced = inside;
	show("outside", &(struct session_signal){ outside, outside, SIGKILL, 1 });
	show("outside-thread", &(struct session_signal){ outside, outside, SIGKILL, 0 });
	show("init", &(struct session_signal){ 1, 1, SIGKILL, 1 });
	show("self", &(struct session_signal){ getpid(), getpid(), SIGKILL, 1 });
	show("wrong-tgid", &(struct session_signal){ inside, outside, SIGKILL, 0 });
	printf("outside alive %d\n", kill(outside, 0) == 0);
	show("inside", &(struct session_signal){ inside, inside, SIGKILL, 1 });
	waitpid(inside, &status, 0);
	printf("inside killed %d\n", WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	kill(outside, SIGKILL);
	waitpid(outside, &status, 0);
	return 0;
}
"""


def test_the_supervisor_signals_only_processes_of_its_session(tmp_path):
    """signals.c's signal_send, built with a stand-in for what the supervisor traces: a process
    it does not trace, init, the supervisor itself, a task named with another's tgid are refused
    (EPERM) and left alone; a traced one gets its signal."""
    Path(tmp_path, "stub.c").write_text(STUB)
    binary = tmp_path / "signals"
    subprocess.run(["gcc", "-O1", "-I", str(NATIVE), "-I", str(REPO / "kernel_model/include/uapi"), "-o", str(binary),
                    str(tmp_path / "stub.c"), str(NATIVE / "signals.c"), "-lpthread"], check=True, timeout=120)
    out = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    assert out == ["outside -1", "outside-thread -1", "init -1", "self -1", "wrong-tgid -1",
                   "outside alive 1", "inside 0", "inside killed 1"], out
