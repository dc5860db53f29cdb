"""A session's own processes are tasks of the emulated kernel: their pids, forks, execs,
exits and system calls are what the trace sees, as on Linux."""

import errno
import os
import re
import resource
import shutil
import subprocess
import sys

import pytest
from simtest import section, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and namespaces")

T = "/sys/kernel/tracing"
# comm-pid [cpu] flags timestamp: event
LINE = re.compile(r"^ *(\S.*)-(\d+) +\[(\d{3})\] \S{5} +(\d+\.\d{6}): (\w+): (.*)$")


def run(script: str, *options: str, timeout: float = 120) -> str:
    result = tracefs_sim("run", "--workload", "none", *options, "-c", script, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def events(lines: list[str]) -> list[tuple[str, int, float, str, str]]:
    """(comm, pid, time, event, rest) of each trace line."""
    found = []
    for line in lines:
        m = LINE.match(line)
        if m:
            found.append((m.group(1).strip(), int(m.group(2)), float(m.group(4)), m.group(5), m.group(6)))
    return found


def test_a_command_the_user_types_is_seen_by_the_trace():
    # the first try: raw_syscalls while `ls /` runs, then grep
    out = run(f"echo 1 > {T}/events/raw_syscalls/sys_enter/enable; ls / > /dev/null;"
              f"echo '== ls'; grep -c ' ls-' {T}/trace")
    assert int(section(out, "ls")[0]) > 20   # its loader, its getdents64, its writes...


def test_the_shell_is_a_task_with_its_own_pid():
    out = run(f"echo $$ > {T}/set_event_pid; echo 1 > {T}/events/raw_syscalls/sys_enter/enable;"
              f"echo '== shell'; echo $$; : > /dev/null;"
              f"echo 0 > {T}/events/raw_syscalls/sys_enter/enable; echo '== trace'; grep -v '^#' {T}/trace")
    shell = int(section(out, "shell")[0])
    seen = events(section(out, "trace"))
    assert seen and {pid for _, pid, _, _, _ in seen} == {shell}, seen
    assert {comm for comm, _, _, _, _ in seen} == {"bash"}


def test_a_host_cat_opens_its_file_in_the_kernel():
    # Documentation/trace/kprobetrace.rst's probe, on the file a host program opens
    out = run(f"echo 'p:myprobe do_sys_openat2 filename=+0($arg2):ustring' >> {T}/kprobe_events;"
              f"echo 1 > {T}/events/kprobes/myprobe/enable; cat /etc/hostname > /dev/null;"
              f"echo 0 > {T}/events/kprobes/myprobe/enable; echo '== trace'; grep -v '^#' {T}/trace")
    opened = [(comm, rest) for comm, _, _, event, rest in events(section(out, "trace")) if event == "myprobe"]
    assert ("cat", '(do_sys_openat2+0x0/0xc0) filename="/etc/hostname"') in \
        [(comm, re.sub(r"/0x[0-9a-f]+\)", "/0xc0)", rest)) for comm, rest in opened], opened


def test_fork_exec_exit_of_a_command():
    out = run(f"cd {T}; echo 1 > events/sched/sched_process_fork/enable;"
              "echo 1 > events/sched/sched_process_exec/enable; echo 1 > events/sched/sched_process_exit/enable;"
              "/bin/true; echo 0 > events/sched/enable; echo '== shell'; echo $$; echo '== trace'; grep -v '^#' trace")
    shell = int(section(out, "shell")[0])
    seen = events(section(out, "trace"))
    forks = [rest for comm, pid, _, event, rest in seen if event == "sched_process_fork" and pid == shell]
    assert forks, seen
    child = int(re.search(r"child_pid=(\d+)", forks[0]).group(1))
    assert child > shell
    assert forks[0] == f"comm=bash pid={shell} child_comm=bash child_pid={child}"
    assert (child, "sched_process_exec", f"filename=/bin/true pid={child} old_pid={child}") in \
        [(pid, event, rest) for _, pid, _, event, rest in seen]
    assert ("true", child, "sched_process_exit") in [(comm, pid, event) for comm, pid, _, event, _ in seen]


def test_a_fork_while_an_earlier_child_is_a_zombie_makes_the_new_child():
    # the first child has ended (its process forgotten by the supervisor) but is not reaped
    # when the second fork lists the parent's children: it is not announced again, so the
    # second clone makes the second child, and its records are done with (no tracefs access
    # waits for them)
    program = ("import os, time\n"
               "a = os.fork()\n"
               "if a == 0: os._exit(0)\n"
               "time.sleep(0.5)\n"
               "b = os.fork()\n"
               "if b == 0: os._exit(0)\n"
               "os.waitpid(a, 0); os.waitpid(b, 0); print(os.getpid(), a, b)\n")
    out = run(f"echo 1 > {T}/events/sched/sched_process_fork/enable; echo '== pids';"
              f"python3 -c '{program}'; echo 0 > {T}/events/sched/enable; echo '== trace'; grep -v '^#' {T}/trace")
    parent, a, b = map(int, section(out, "pids")[0].split())
    children = [int(re.search(r"child_pid=(\d+)", rest).group(1))
                for _, pid, _, event, rest in events(section(out, "trace"))
                if event == "sched_process_fork" and pid == parent]
    assert children == [a, b], out


def test_a_thread_is_no_child_and_its_children_are_waited_for_by_the_process():
    # a session thread is shaped as copy_process makes one (exit signal -1, its group's leader,
    # its creator's parent): it is reaped at its end, never a child of the thread that made it;
    # the process's wait4 takes the children of its every thread (do_wait's while_each_thread):
    # the kernel's wait of the replay reaps what the host's did
    program = ("import os, threading\n"
               "made = []\n"
               "def fork():\n"
               "    made.append(os.fork())\n"
               "    if made[0] == 0: os._exit(3)\n"
               "    made.append(threading.get_native_id())\n"
               "t = threading.Thread(target=fork); t.start(); t.join()\n"
               "pid, status = os.waitpid(-1, 0)\n"
               "print(pid == made[0], os.WEXITSTATUS(status), made[0], made[1])\n")
    out = run(f"echo 'r:kw kernel_wait4 ret=$retval' >> {T}/kprobe_events; "
              f"echo 'comm == \"python3\"' > {T}/events/kprobes/kw/filter; echo 1 > {T}/events/kprobes/kw/enable; "
              f"echo '== out'; python3 -c '{program}'; echo '== trace'; grep -v '^#' {T}/trace")
    same, status, child, thread = section(out, "out")[0].split()
    assert (same, status) == ("True", "3"), out
    waits = [int(re.search(r"ret=(0x[0-9a-f]+)", rest).group(1), 16)
             for comm, _, _, event, rest in events(section(out, "trace")) if event == "kw"]
    assert waits == [int(child)], out


def test_a_sleep_on_the_host_sleeps_in_the_kernel():
    out = run(f"echo 1 > {T}/events/sched/sched_switch/enable; sleep 0.4; echo 0 > {T}/events/sched/sched_switch/enable;"
              f"echo '== trace'; grep -v '^#' {T}/trace")
    seen = events(section(out, "trace"))
    off = [(t, rest) for comm, pid, t, event, rest in seen
           if event == "sched_switch" and rest.startswith("prev_comm=sleep ") and "prev_state=S" in rest]
    on = [t for comm, pid, t, event, rest in seen if event == "sched_switch" and " next_comm=sleep " in rest]
    assert off and on, seen
    asleep = max(later - t for t, _ in off for later in on if later > t)
    assert 0.3 < asleep < 2.0, asleep


def test_a_sleep_to_a_deadline_of_the_hosts_clock_ends_with_the_hosts():
    # python3's time.sleep() is clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) to a deadline
    # of the host's clock, hours past the kernel's: the kernel's sleep ends when the host's
    # did, and the commands after it are its tasks as before
    out = run(f"echo 1 > {T}/events/sched/sched_process_exec/enable;"
              f"python3 -c 'import time; time.sleep(0.2)'; /bin/true;"
              f"echo 0 > {T}/events/sched/sched_process_exec/enable; echo '== trace'; grep -v '^#' {T}/trace")
    execs = [comm for comm, _, _, event, _ in events(section(out, "trace")) if event == "sched_process_exec"]
    assert "true" in execs, execs


def test_the_projects_own_tools_are_not_mirrored():
    # `tracefs-sim exec` is a task (bash forks and execs it), but none of its Python's calls
    # after its exec is the kernel's to see: only its end
    out = run(f"echo 1 > {T}/events/raw_syscalls/sys_enter/enable; tracefs-sim exec true;"
              f"echo 0 > {T}/events/raw_syscalls/sys_enter/enable; echo '== trace'; grep -v '^#' {T}/trace")
    seen = events(section(out, "trace"))
    tool = [rest for comm, _, _, event, rest in seen if comm == "tracefs-sim"]
    after_exec = tool[[r.startswith("NR 59 ") for r in tool].index(True) + 1:]
    assert all(r.startswith("NR 231 ") for r in after_exec), tool     # exit_group


def test_common_pid_filter_and_event_fork_follow_session_pids():
    out = run(f"cd {T}; echo 'common_pid == '$$ > events/raw_syscalls/sys_enter/filter;"
              "echo 1 > events/raw_syscalls/sys_enter/enable; /bin/true;"
              "echo 0 > events/raw_syscalls/sys_enter/enable; echo '== shell'; echo $$;"
              "echo '== trace'; grep -v '^#' trace; echo 0 > events/raw_syscalls/sys_enter/filter;"
              "echo $$ > set_event_pid; echo 1 > options/event-fork; echo > trace;"
              "echo 1 > events/sched/sched_process_exec/enable; /bin/true; echo 0 > events/sched/enable;"
              "echo '== forked'; cat set_event_pid; echo '== exec'; grep -c sched_process_exec trace")
    shell = int(section(out, "shell")[0])
    assert {pid for _, pid, _, _, _ in events(section(out, "trace"))} == {shell}
    assert section(out, "exec") == ["1"]   # the child of the followed shell, followed
    assert str(shell) in section(out, "forked")


def test_uname_is_answered_by_the_emulated_kernel():
    # a served call: the kernel makes it (its sys_exit shows), the host does not, and what the
    # kernel wrote is what the process gets: tools see the release of the kernel they trace
    host = os.uname()
    out = run(f"cd {T}; echo 1 > events/syscalls/sys_exit_newuname/enable; echo '== uname'; uname -srm;"
              "python3 -c 'import os; print(os.uname().release)';"
              "echo '== trace'; grep -c 'sys_newuname -> 0x0' trace")
    uname = section(out, "uname")
    assert uname[0].startswith("Linux 6.1.") and uname[0].endswith(" x86_64"), uname
    assert uname[1].startswith("6.1.") and uname[1] != host.release
    assert section(out, "trace") == ["2"]
    # without the kernel's tasks (--no-mirror) the host answers
    out = run("echo '== uname'; uname -r", "--no-mirror")
    assert section(out, "uname") == [host.release]


def test_a_seeded_machine_keeps_its_runs_its_own():
    out = run(f"echo 1 > {T}/events/raw_syscalls/sys_enter/enable; ls / > /dev/null;"
              f"echo '== sessions'; grep -c -- '-1[0-9][0-9][0-9] ' {T}/trace || true", "--seed", "1")
    assert section(out, "sessions") == ["0"]


def test_mount_of_tracefs_in_a_namespace_of_the_callers_own(tmp_path):
    out = run(f"mkdir -p {tmp_path}/t; unshare -m --propagation private sh -c "
              f"'mount -t tracefs nodev {tmp_path}/t && cat {tmp_path}/t/tracing_on && grep -c {tmp_path} /proc/mounts';"
              f"echo '== outside'; grep -c {tmp_path} /proc/mounts || true")
    assert out.splitlines()[:2] == ["1", "1"]
    assert section(out, "outside") == ["0"]


@pytest.mark.skipif(not (shutil.which("strace") and shutil.which("gdb")), reason="needs strace and gdb")
def test_strace_and_gdb_work_on_session_processes():
    # the supervisor's seccomp filter and ptrace coexist: strace sees every call of the traced
    # shell and its child, gdb stops a program at its first instruction and lets it finish, and
    # the processes under them are the kernel's tasks all the same
    out = run(f"echo 1 > {T}/events/sched/sched_process_exec/enable;"
              f"echo '== strace'; strace -f -e trace=execve,exit_group sh -c 'ls / > /dev/null' 2>&1;"
              f"echo '== gdb'; gdb -nx -q -batch -ex starti -ex stepi -ex continue /bin/true 2>&1;"
              f"echo 0 > {T}/events/sched/sched_process_exec/enable; echo '== trace'; grep -v '^#' {T}/trace")
    strace = section(out, "strace")
    assert any('execve("/usr/bin/ls"' in line for line in strace), strace
    assert sum("+++ exited with 0 +++" in line for line in strace) == 2, strace
    gdb = section(out, "gdb")
    assert any("Program stopped." in line for line in gdb) and "[Inferior 1 (process" in gdb[-1] \
        and gdb[-1].endswith("exited normally]"), gdb
    execs = {comm for comm, _, _, event, _ in events(section(out, "trace")) if event == "sched_process_exec"}
    assert {"strace", "sh", "ls", "gdb", "true"} <= execs, execs


def test_a_session_process_ids_and_signal_handlers_are_answered_as_the_hosts_kernel_does():
    """python3's signal module reads every signal's handler and sets one; rt_sigaction, geteuid,
    getresuid and getgid return what the host's kernel returned (0; the session runs as root),
    not ENOSYS or EINVAL (issue 15)."""
    calls = ("rt_sigaction", "geteuid", "getresuid", "getgid")
    enable = "".join(f"echo 1 > events/syscalls/sys_exit_{c}/enable;" for c in calls)
    out = run(f"cd {T}; {enable} python3 -c 'import os, signal; signal.signal(signal.SIGUSR1, signal.SIG_IGN);"
              f" print(os.getresuid(), os.geteuid(), os.getgid())'; echo 0 > events/syscalls/enable;"
              f"echo '== trace'; grep -v '^#' trace")
    # a sys_exit_* line: "python3-1004 [001] ...1. 0.293178: sys_geteuid -> 0x0"
    rets = [m.groups() for m in (re.match(r"^ *python3-\d+ +\[\d{3}\] \S{5} +[\d.]+: sys_(\w+) -> (\S+)$", line)
                                 for line in section(out, "trace")) if m]
    by_call = {c: [ret for call, ret in rets if call == c] for c in calls}
    assert len(by_call["rt_sigaction"]) > 60, rets   # every signal's handler, then SIGUSR1's
    assert all(r == "0x0" for c in calls for r in by_call[c]) and all(by_call.values()), by_call


def test_df_in_a_session_gets_its_file_systems_counts_from_the_kernel_too():
    """df's statfs of / (hostfs: the host's counts) and of /proc return 0 in the kernel as on
    the host, not ENOSYS (issue 15)."""
    out = run(f"cd {T}; echo 1 > events/syscalls/sys_exit_statfs/enable; df / /proc > /dev/null;"
              f"echo 0 > events/syscalls/enable; echo '== trace'; grep -v '^#' trace")
    rets = [m.group(1) for m in (re.match(r"^ *df-\d+ +\[\d{3}\] \S{5} +[\d.]+: sys_statfs -> (\S+)$", line)
                                 for line in section(out, "trace")) if m]
    assert len(rets) >= 2 and set(rets) == {"0x0"}, out


def test_a_session_process_group_and_session_are_the_hosts():
    """getpgrp/getsid of a session process, and setsid's new session, return in the kernel
    what the host returned (the supervisor gives the kernel the first process's group and
    session; the calls after follow), and /proc/PID/stat says the same (issue 15)."""
    script = ("import os; s = open('/proc/self/stat').read().rsplit(')', 1)[1].split();"
              " print(os.getpid(), os.getpgrp(), os.getsid(0), s[2], s[3])")
    out = run(f"cd {T}; for e in getpgrp getsid setsid; do echo 1 > events/syscalls/sys_exit_$e/enable; done;"
              f"echo '== first'; python3 -c \"{script}\"; echo '== second'; setsid python3 -c \"{script}\"; sleep 0.2;"
              f"echo 0 > events/syscalls/enable; echo '== trace'; grep -v '^#' trace")
    for name in ("first", "second"):
        pid, pgrp, sid, stat_pgrp, stat_sid = map(int, section(out, name)[0].split())
        assert (stat_pgrp, stat_sid) == (pgrp, sid), out
        rets = {m.group(1): int(m.group(2), 16) for m in (
            re.match(rf"^ *python3-{pid} +\[\d{{3}}\] \S{{5}} +[\d.]+: sys_(getpgrp|getsid) -> (0x[0-9a-f]+)$", line)
            for line in section(out, "trace")) if m}
        assert rets == {"getpgrp": pgrp, "getsid": sid}, out
    assert sid == pid   # setsid made the second one a session leader


def _distinct_limits() -> None:
    """In the child before it runs tracefs-sim: limits no default has (`ulimit -n 777` and the
    like in the shell that starts the session)."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (777, 777))
    resource.setrlimit(resource.RLIMIT_STACK, (4 << 20, 6 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (12345 << 10, 12345 << 10))


def test_a_sessions_first_process_has_its_host_processs_resource_limits():
    """The kernel's task of the session's first process starts with the limits its host process
    has (the supervisor's NEW_TASK record carries them), not with init's, and its children
    inherit them: the kernel's /proc/PID/limits is the host's, line for line (issue 15)."""
    child = "bash -c 'tracefs-sim exec cat /proc/$$/limits; echo \"== child host\"; cat /proc/$$/limits'"
    result = tracefs_sim("run", "--workload", "none", "-c",
                         "echo '== first'; tracefs-sim exec cat /proc/$$/limits; echo '== first host';"
                         f"cat /proc/$$/limits; echo '== child'; {child}",
                         timeout=120, preexec_fn=_distinct_limits)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for name in ("first", "child"):
        kernel, host = section(out, name), section(out, f"{name} host")
        assert kernel == host and len(kernel) == 17, out
        assert re.search(r"^Max open files +777 +777 +files", "\n".join(kernel), re.M), out
        assert re.search(r"^Max stack size +4194304 +6291456 +bytes", "\n".join(kernel), re.M), out


def _calls(lines: list[str], nr: int, args: str) -> list[int]:
    """The ret of each system call nr whose sys_enter's arguments match the pattern args
    (hex, ", "-separated): its sys_enter, then its task's next sys_exit."""
    entered: set[int] = set()
    found = []
    for _, pid, _, event, rest in events(lines):
        if event == "sys_enter":
            if re.match(rf"NR {nr} \({args}", rest):
                entered.add(pid)
            else:
                entered.discard(pid)
        elif event == "sys_exit" and pid in entered and rest.startswith(f"NR {nr} = "):
            entered.discard(pid)
            found.append(int(rest.split(" = ")[1]))
    return found


def test_an_exec_closes_the_close_on_exec_fds_in_the_kernel_too(tmp_path):
    # fd 9 is close-on-exec: after the exec, the new program's close(9) is EBADF on the host,
    # and so in the kernel, whose fd table is the host's
    (tmp_path / "closer.py").write_text(
        "import os\ntry:\n    os.close(9)\nexcept OSError as e:\n    print(e.errno)\n")
    (tmp_path / "opener.py").write_text(
        "import os, sys\nos.dup2(os.open('/etc/hostname', os.O_RDONLY), 9, inheritable=False)\n"
        f"os.execv(sys.executable, ['python3', '{tmp_path}/closer.py'])\n")
    out = run(f"echo 1 > {T}/events/raw_syscalls/enable; echo '== host'; python3 {tmp_path}/opener.py;"
              f"echo 0 > {T}/events/raw_syscalls/enable; echo '== trace'; grep -v '^#' {T}/trace")
    assert section(out, "host") == ["9"]
    assert _calls(section(out, "trace"), 3, "9,") == [-9], out


def test_dev_tty_is_enxio_without_a_controlling_terminal_and_a_pty_gives_one(tmp_path):
    # a `run` session has no terminal: an open of /dev/tty fails on the host (ENXIO), and so in
    # the kernel (else its fds would be one ahead of the host's from then on); a pty's child
    # (setsid + TIOCSCTTY: pty.fork()) has one, and opens it on both
    flags = "os.O_RDWR | os.O_NOCTTY | os.O_APPEND"   # (with os.open's O_CLOEXEC, 0x80502: its openat)
    (tmp_path / "notty.py").write_text(
        f"import os\ntry:\n    os.open('/dev/tty', {flags})\nexcept OSError as e:\n    print(e.errno)\n")
    (tmp_path / "ptychild.py").write_text(
        "import os, pty\npid, fd = pty.fork()\nif pid == 0:\n"
        f"    os.close(os.open('/dev/tty', {flags}))\n    os._exit(0)\nos.waitpid(pid, 0)\n")
    out = run(f"echo 1 > {T}/events/raw_syscalls/enable; echo '== host';"
              f"python3 {tmp_path}/notty.py; python3 {tmp_path}/ptychild.py;"
              f"echo 0 > {T}/events/raw_syscalls/enable; echo '== trace'; grep -v '^#' {T}/trace")
    assert section(out, "host") == ["6"]
    opens = _calls(section(out, "trace"), 257, "ffffff9c, [0-9a-f]+, 80502,")
    assert len(opens) == 2 and opens[0] == -6 and opens[1] >= 0, opens


def test_a_comm_filter_sees_an_execd_command_by_its_new_name():
    # comm is the task's name as the event fires (Linux's filter_pred_comm): the shell's child
    # is `ls` from its exec on, even before it next switches, and `bash` before
    out = run(f"echo 'comm == \"ls\"' > {T}/events/raw_syscalls/sys_enter/filter;"
              f"echo 'comm == \"bash\"' > {T}/events/raw_syscalls/sys_exit/filter;"
              f"echo 1 > {T}/events/raw_syscalls/enable; ls / > /dev/null;"
              f"echo 0 > {T}/events/raw_syscalls/enable; echo '== trace'; grep -v '^#' {T}/trace")
    seen = events(section(out, "trace"))
    entered = [rest.split(" (")[0] for comm, _, _, event, rest in seen if event == "sys_enter"]
    exited = [rest.split(" = ")[0] for comm, _, _, event, rest in seen if event == "sys_exit"]
    # ls's loader and its getdents64 of "/", but not the calls its shell's child made before
    # the exec (its redirection's dup2, the execve itself) ...
    assert len(entered) > 20 and "NR 217" in entered and "NR 21" in entered, out
    assert "NR 33" not in entered and "NR 59" not in entered, out
    # ... and none of its calls after the exec among the shell's
    assert "NR 217" not in exited and "NR 59" not in exited, out


def test_proc_self_exe_names_the_program_the_host_runs(tmp_path):
    # readlink("/proc/self/exe") returns in the kernel what it returns on the host: the exec'd
    # file (the supervisor's EXEC record says which), which a fork keeps
    (tmp_path / "forked.py").write_text(
        "import os\nif os.fork() == 0:\n    print(os.readlink('/proc/self/exe'), flush=True)\n    os._exit(0)\n"
        "os.wait()\n")
    out = run(f"echo 1 > {T}/events/raw_syscalls/enable; echo '== host'; readlink /proc/self/exe;"
              f"python3 {tmp_path}/forked.py;"
              f"echo 0 > {T}/events/raw_syscalls/enable; echo '== trace'; grep -v '^#' {T}/trace")
    by_readlink, by_python_child = section(out, "host")
    rets = _calls(section(out, "trace"), 89, "")
    assert len(by_readlink) in rets and rets[-1] == len(by_python_child), (rets, out)


SIGRETURN = """import os, signal, time
signal.signal(signal.SIGUSR1, lambda *a: None)
signal.signal(signal.SIGALRM, lambda *a: None)
os.kill(os.getpid(), signal.SIGUSR1)
signal.setitimer(signal.ITIMER_REAL, 0.05)
time.sleep(0.3)
"""


def test_rt_sigreturn_returns_what_the_frame_restores(tmp_path):
    """A session task's rt_sigreturn returns the rax its signal frame restores, as Linux's does
    (the supervisor reads it from the host process's frame): 0 after a handler run at kill()'s
    return, -EINTR after one that interrupted a sleep (strace on the host says the same)."""
    script = tmp_path / "sigreturn.py"
    script.write_text(SIGRETURN)
    # (the kernel replays the calls after the host made them: the trace is read once the
    # replay reached the process's exit)
    out = run(f"echo 1 > {T}/events/syscalls/sys_exit_rt_sigreturn/enable; "
              f"echo 1 > {T}/events/sched/sched_process_exit/enable; /usr/bin/python3 {script}; "
              f"for i in $(seq 300); do grep -q 'sched_process_exit: comm=python3 ' {T}/trace && break; sleep 0.1; done; "
              f"echo 0 > {T}/tracing_on; echo '== kernel'; grep ' python3-.* sys_rt_sigreturn' {T}/trace")
    kernel = [int(m.group(1), 16) for m in re.finditer(r"sys_rt_sigreturn -> 0x([0-9a-f]+)", "\n".join(section(out, "kernel")))]
    assert [k - (1 << 64) if k >> 63 else k for k in kernel] == [0, -errno.EINTR], out


SIGNALLED_CALLS = r"""
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t signals;
static void on_signal(int sig) { (void)sig; signals++; }

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART, as dash's SIGCHLD */
	pid_t self = getpid(), busy, signaller;
	int fds[2], eintr = 0;

	sigaction(SIGUSR1, &sa, NULL);
	if ((busy = fork()) == 0)
		for (;;)
			getppid();
	if ((signaller = fork()) == 0)
		for (struct timespec ts = { 0, 200000 };; nanosleep(&ts, NULL))
			if (kill(self, SIGUSR1) < 0)
				_exit(0);
	for (int i = 0; i < 5000; i++) {
		if (pipe(fds) < 0) {
			eintr += errno == EINTR;
			continue;
		}
		close(fds[0]);
		close(fds[1]);
	}
	kill(busy, SIGKILL);
	kill(signaller, SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	printf("signals=%d eintr=%d\n", (int)signals, eintr);
	return 0;
}
"""


def test_a_call_waiting_behind_another_is_not_interrupted_by_a_signal(tmp_path):
    """pipe() never fails with EINTR on Linux, even in a process that takes signals without
    SA_RESTART (dash's SIGCHLD) while a sibling makes calls too.  A session call is interruptible
    until the supervisor has taken it, so it takes them at once, several receivers waiting: only
    a signal in the microseconds between a call's entry and its taking can still interrupt it
    (one signal in a few hundred, where one receiver serving the sibling let one in ten in)."""
    source = tmp_path / "signalled.c"
    source.write_text(SIGNALLED_CALLS)
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "signalled"), str(source)], check=True, timeout=60)
    out = run(str(tmp_path / "signalled"))
    m = re.search(r"signals=(\d+) eintr=(\d+)", out)
    assert m and int(m.group(1)) > 100, out
    assert int(m.group(2)) * 50 < int(m.group(1)), out


CLOSE_LOOP = r"""
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	for (long i = 0; i < n; i++)
		close(100000 + i);	/* EBADF on the host and in the kernel: only its number counts */
	return 0;
}
"""

CAUGHT_UP = r"""
import os, sys, time
from tracefs_sim import control
path = os.environ["TRACEFS_SIM_CONTROL"]
target = control.info(path)["session"]["produced"]
deadline = time.monotonic() + 300
while control.info(path)["session"]["retired_upto"] < target and time.monotonic() < deadline:
    time.sleep(0.05)
s = control.info(path)["session"]
print("lost", s["lost"], "behind", max(0, target - s["retired_upto"]))
"""


def test_a_burst_past_the_ring_waits_for_the_kernel_and_loses_no_call(tmp_path):
    """More calls than the session ring holds (4 MiB: ~52,000 close() records), made while the
    function tracer slows the kernel's replay of them far below the host's pace: the supervisor
    waits for room while the kernel takes records, so every call reaches the kernel, in the
    order the host made them, and the burst ends (nothing hangs), none counted lost."""
    calls = 70_000
    source = tmp_path / "close-loop.c"
    source.write_text(CLOSE_LOOP)
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "close-loop"), str(source)], check=True, timeout=60)
    (tmp_path / "caught_up.py").write_text(CAUGHT_UP)
    out = run(f"mkdir {T}/instances/calls; I={T}/instances/calls; echo 8192 > $I/buffer_size_kb; "
              f"echo 'fd >= 100000' > $I/events/syscalls/sys_enter_close/filter; "
              f"echo 1 > $I/events/syscalls/sys_enter_close/enable; echo function > {T}/current_tracer; "
              f"{tmp_path}/close-loop {calls}; "
              f"{sys.executable} {tmp_path}/caught_up.py; echo nop > {T}/current_tracer; "
              f"echo '== calls'; grep -o 'sys_close(fd: [0-9a-f]*)' $I/trace; rmdir $I",
              timeout=600)
    lost = [line for line in out.splitlines() if line.startswith("lost ")]
    assert lost == ["lost 0 behind 0"], out[-2000:]
    fds = [int(m.group(1), 16) for m in re.finditer(r"sys_close\(fd: ([0-9a-f]+)\)", "\n".join(section(out, "calls")))]
    assert fds == list(range(100000, 100000 + calls)), (len(fds), fds[:5], out[-1000:])
