"""poll and select for the programs the host starts (`tracefs-sim exec`): busybox sh's `read`
builtin polls its stdin (a pipe of the emulated kernel, or the caller's stdin through the host
pipe file), and the calls show as syscalls:sys_enter_poll/sys_exit_poll and in the function
tracer (do_sys_poll)."""
import os

import pytest
from simtest import sh, tracefs_sim

BUSYBOX_STATIC = os.path.exists("/bin/busybox") and b"/ld-linux" not in open("/bin/busybox", "rb").read(4096)
pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0, reason="needs /dev/fuse and root"),
    pytest.mark.skipif(not BUSYBOX_STATIC, reason="needs Debian's busybox-static at /bin/busybox"),
]


def test_busybox_read_builtin_from_a_pipe(mounted):
    result = tracefs_sim("exec", "--mount", str(mounted), "/bin/busybox", "sh", "-c",
                         "echo hi | { read x; echo got $x; }", timeout=120)
    assert (result.returncode, result.stdout) == (0, "got hi\n"), result.stderr


def test_busybox_read_builtin_from_the_callers_stdin(mounted):
    result = tracefs_sim("exec", "--mount", str(mounted), "/bin/busybox", "sh", "-c",
                         'while read l; do echo "<$l>"; done', input="a\nb\n", timeout=120)
    assert (result.returncode, result.stdout) == (0, "<a>\n<b>\n"), result.stderr


def test_poll_shows_in_the_syscall_events_and_the_function_tracer(mounted):
    setup = sh(mounted, "echo 0 > tracing_on; echo > trace; echo do_sys_poll > set_ftrace_filter; "
                        "echo function > current_tracer; "
                        "echo 1 > events/syscalls/sys_enter_poll/enable; "
                        "echo 1 > events/syscalls/sys_exit_poll/enable; echo 1 > tracing_on")
    assert setup.returncode == 0, setup.stderr
    try:
        result = tracefs_sim("exec", "--mount", str(mounted), "/bin/busybox", "sh", "-c",
                             "echo hi | { read x; echo got $x; }", timeout=120)
        assert result.stdout == "got hi\n", result.stderr
        trace = sh(mounted, "echo 0 > tracing_on; cat trace").stdout
    finally:
        sh(mounted, "echo nop > current_tracer; echo > set_ftrace_filter; echo 0 > events/enable; "
                    "echo 1 > tracing_on")
    enters = [line for line in trace.splitlines() if "sys_poll(ufds: " in line]
    exits = [line for line in trace.splitlines() if "sys_poll -> 0x1" in line]
    calls = [line for line in trace.splitlines() if "do_sys_poll <-__x64_sys_poll" in line]
    assert enters and exits and calls, trace
    # busybox's read builtin polls its stdin (nfds 1, no timeout) before each byte it reads
    assert all(line.split()[0].startswith("busybox-") for line in enters + exits + calls), trace
    assert enters[0].endswith(": sys_poll(ufds: " + enters[0].split("ufds: ")[1].split(",")[0]
                              + ", nfds: 1, timeout_msecs: ffffffff)"), enters[0]
    assert len(enters) == len(exits) == len(calls) >= 3, trace


def test_a_session_process_poll_and_select_end_with_the_hosts():
    """A session's process polls on the host; the kernel replays the call (poll's handler
    chain, syscalls:* events) and its wait there ends when the host's did: a timeout with
    nothing to read, and a select woken by a pipe the host filled; the commands after run."""
    t = "/sys/kernel/tracing"
    script = (f"for e in sys_enter_poll sys_exit_poll sys_enter_pselect6 sys_exit_pselect6; do "
              f"echo 1 > {t}/events/syscalls/$e/enable; done; "
              f"echo 1 > {t}/events/sched/sched_process_exec/enable; "
              "python3 -c 'import select,os; r,w=os.pipe(); p=select.poll(); p.register(r); print(p.poll(300))'; "
              "(sleep 0.2; echo x) | python3 -c "
              "'import select,sys; print(select.select([sys.stdin],[],[],5)[0] != [])'; "
              f"/bin/true; echo 0 > {t}/events/enable; echo '== trace'; grep -v '^#' {t}/trace")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    out, trace = result.stdout.split("== trace\n")
    assert out == "[]\nTrue\n", result.stdout + result.stderr
    python = [line for line in trace.splitlines() if line.lstrip().startswith("python3-")]
    polls = [line for line in python if ": sys_poll" in line]
    assert len(polls) == 2 and "nfds: 1, timeout_msecs: 12c)" in polls[0] and polls[1].endswith("sys_poll -> 0x0"), trace
    # (how long the kernel's task slept depends on how far its replay trails the host: not
    # checked; that the wait ended, and when the host's did, is)
    selects = [line for line in python if ": sys_pselect6" in line]
    assert len(selects) == 2 and "n: 1, inp: " in selects[0] and " -> 0x" in selects[1], python
    assert "sched_process_exec: filename=/bin/true" in trace


def test_touch_sets_times_on_tmpfs_and_is_erofs_on_the_hosts_files(mounted):
    result = tracefs_sim("exec", "--mount", str(mounted), "/bin/busybox", "sh", "-c",
                         "echo x > /tmp/t; touch -d @1234567 /tmp/t; stat -c '%X %Y' /tmp/t; rm /tmp/t; "
                         "touch /etc/passwd", timeout=120)
    assert result.stdout == "1234567 1234567\n", result.stderr
    assert (result.returncode, result.stderr) == (1, "touch: /etc/passwd: Read-only file system\n")
