"""`tracefs-sim run` and `shell`: a private mount namespace in which the simulator is the
machine's tracefs; the host sees nothing of it, before, during or after."""

import os
import pty
import re
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from simtest import (REPO, TRACEFS_SIM, emulated_passwd, process_running, reference_section, tracefs_sim,
                     wait_until)

from tracefs_sim import control

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

TRACEFS_LINE = "tracefs {} tracefs rw,nosuid,nodev,noexec,relatime 0 0"
VENV_PYTHON = Path(TRACEFS_SIM).parent / "python"
# Prints the session daemon's pid, asked over the session's control socket.
DAEMON_PID = (f"{VENV_PYTHON} -c 'import os; from tracefs_sim import control;"
              f" print(control.info(os.environ[\"TRACEFS_SIM_CONTROL\"])[\"pid\"])'")


def run(*args, timeout=90):
    return tracefs_sim("run", *args, timeout=timeout)


def host_mounts_under(*places) -> list[str]:
    with open("/proc/self/mountinfo") as f:
        return [line for line in f if any(line.split()[4].startswith(p) for p in places)]


def kernel_symbol(name: str) -> int:
    path = os.environ.get("TRACEFS_SIM_KERNEL") or REPO / "kernel_model/build/vmlinux"
    with open(path, "rb") as f:
        (symbol,) = ELFFile(f).get_section_by_name(".symtab").get_symbol_by_name(name)
        return symbol["st_value"]


def test_proc_mounts_lists_the_simulator_as_tracefs():
    result = run("-c", "cat /proc/mounts; echo ===; cat /proc/self/mountinfo")
    assert result.returncode == 0, result.stderr
    view, mountinfo = result.stdout.split("===\n")
    assert TRACEFS_LINE.format("/sys/kernel/tracing") in view.splitlines()
    assert TRACEFS_LINE.format("/sys/kernel/debug/tracing") in view.splitlines()
    assert "fuse" not in view
    # ... and behind the view, the mounts really are the simulator's FUSE mount
    real = {line.split()[4]: line.split(" - ")[1].split()[0] for line in mountinfo.splitlines()}
    assert real["/sys/kernel/tracing"] == real["/sys/kernel/debug/tracing"] == "fuse.tracefs"


def test_both_paths_are_the_simulator():
    result = run("-c", "cat /sys/kernel/tracing/current_tracer /sys/kernel/debug/tracing/tracing_on;"
                       "echo 0 > /sys/kernel/tracing/tracing_on; cat /sys/kernel/debug/tracing/tracing_on")
    assert (result.returncode, result.stdout) == (0, "nop\n1\n0\n"), result.stderr


def test_kallsyms_is_the_emulated_kernels():
    script = (f"grep -w vfs_read /proc/kallsyms; {VENV_PYTHON} -c 'import os; from tracefs_sim import control;"
              ' print(control.info(os.environ["TRACEFS_SIM_CONTROL"])["kallsyms"] == open("/proc/kallsyms").read())\'')
    result = run("-c", script)
    assert result.returncode == 0, result.stderr
    line, same = result.stdout.splitlines()
    address, kind, name = line.split()
    assert (int(address, 16), kind, name) == (kernel_symbol("vfs_read"), "T", "vfs_read")
    assert same == "True"


@pytest.mark.parametrize("cpus, listed", [(1, "0"), (3, "0-2")])
def test_cpu_lists_match_the_emulated_cpus(cpus, listed):
    result = run("--cpus", str(cpus), "-c", "cat /sys/devices/system/cpu/possible /sys/devices/system/cpu/online;"
                                            "ls /sys/kernel/tracing/per_cpu; getconf _NPROCESSORS_CONF")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [listed, listed, *(f"cpu{i}" for i in range(cpus)), str(cpus)]


def _host_sysctls() -> dict[str, str]:
    found = {}
    for name in ("kptr_restrict", "ftrace_enabled", "perf_event_paranoid", "perf_event_max_sample_rate",
                 "perf_event_max_stack", "stack_tracer_enabled", "bpf_stats_enabled", "unprivileged_bpf_disabled", "dmesg_restrict"):
        try:
            with open(f"/proc/sys/kernel/{name}") as f:
                found[name] = f.read()
        except OSError as e:
            found[name] = e.strerror
    return found


def test_sysctls_are_the_emulated_kernels():
    host = _host_sysctls()
    T = "/sys/kernel/tracing"
    result = run("-c", f"""
echo '== values'; cat /proc/sys/kernel/ftrace_enabled /proc/sys/kernel/kptr_restrict
echo 2 > /proc/sys/kernel/kptr_restrict; echo '== hidden'; grep -w vfs_read /proc/kallsyms
echo 3 > /proc/sys/kernel/kptr_restrict || echo refused; echo 0 > /proc/sys/kernel/kptr_restrict
echo '== shown'; grep -cw '0000000000000000 T vfs_read' /proc/kallsyms || true
echo 0 > /proc/sys/kernel/ftrace_enabled; echo vfs_read > {T}/set_ftrace_filter; echo function > {T}/current_tracer
tracefs-sim exec cat /etc/hostname > /dev/null
echo '== off'; cat /proc/sys/kernel/ftrace_enabled; grep -c . {T}/enabled_functions || true; grep -c vfs_read {T}/trace || true
echo 5 > /proc/sys/kernel/ftrace_enabled; tracefs-sim exec cat /etc/hostname > /dev/null
echo '== on'; cat /proc/sys/kernel/ftrace_enabled; grep -c . {T}/enabled_functions; grep -c 'cat-.*vfs_read' {T}/trace
echo abc > /proc/sys/kernel/ftrace_enabled || echo refused
echo '== perf'; cat /proc/sys/kernel/perf_event_paranoid /proc/sys/kernel/perf_event_max_sample_rate
echo -1 > /proc/sys/kernel/perf_event_paranoid; echo 2000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 2>/dev/null > /proc/sys/kernel/perf_event_max_sample_rate || echo refused rate
cat /proc/sys/kernel/perf_event_paranoid /proc/sys/kernel/perf_event_max_sample_rate
cat /proc/sys/kernel/perf_event_max_stack; echo 128 2>/dev/null > /proc/sys/kernel/perf_event_max_stack || echo refused stack
echo 0 > /proc/sys/kernel/perf_event_max_stack; cat /proc/sys/kernel/perf_event_max_stack
echo '== dmesg'; cat /proc/sys/kernel/dmesg_restrict; echo 0 > /proc/sys/kernel/dmesg_restrict
echo 2 > /proc/sys/kernel/dmesg_restrict || echo refused dmesg; cat /proc/sys/kernel/dmesg_restrict
echo '== bpf'; cat /proc/sys/kernel/bpf_stats_enabled /proc/sys/kernel/unprivileged_bpf_disabled
echo 1 > /proc/sys/kernel/bpf_stats_enabled; echo 1 > /proc/sys/kernel/unprivileged_bpf_disabled
echo 2 > /proc/sys/kernel/unprivileged_bpf_disabled || echo refused unpriv
cat /proc/sys/kernel/bpf_stats_enabled /proc/sys/kernel/unprivileged_bpf_disabled
echo '== absent'; for f in perf_event_mlock_kb traceoff_on_warning; do
    cat /proc/sys/kernel/$f 2>/dev/null || echo "no $f"; echo 1 2>/dev/null > /proc/sys/kernel/$f || echo "no write"; done
""")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    from simtest import section
    assert section(out, "values") == ["1", "0"]
    assert section(out, "hidden")[0].startswith("0000000000000000 T vfs_read")
    assert "refused" in out and section(out, "shown") == ["0"]
    assert section(out, "off") == ["0", "0", "0"]
    on = section(out, "on")
    assert on[:2] == ["5", "1"] and int(on[2]) > 0, out
    assert out.count("refused") == 6
    # the kernel's perf sysctls (kernel/events/core.c's variables): Debian's paranoid 3, 6.1's
    # rate 100000; a rate must be at least 1 (perf_proc_update_handler)
    assert section(out, "perf") == ["3", "100000", "refused rate", "-1", "2000", "127", "refused stack", "0"]
    # the kernel's BPF sysctls: 1 for unprivileged_bpf_disabled is for good (EPERM), in the
    # emulated kernel only
    assert section(out, "dmesg") == ["1", "refused dmesg", "0"]   # Debian's 1; 0..1
    assert section(out, "bpf") == ["0", "2", "refused unpriv", "1", "1"]
    assert section(out, "absent") == ["no perf_event_mlock_kb", "no write", "no traceoff_on_warning", "no write"]
    assert _host_sysctls() == host


def test_stack_tracer_in_a_session():
    """kernel.stack_tracer_enabled is the emulated kernel's: on, stack_trace shows the deepest
    stack of the functions stack_trace_filter names; bad writes are refused as 6.1 does."""
    host = _host_sysctls()
    T = "/sys/kernel/tracing"
    result = run("-c", f"""
echo '== off'; cat /proc/sys/kernel/stack_tracer_enabled {T}/stack_max_size {T}/stack_trace_filter
cat {T}/stack_trace
echo vfs_read > {T}/stack_trace_filter; echo 'vfs_read:traceon' 2>&1 >> {T}/stack_trace_filter | grep -c 'No such device'
echo 'vfs_read:nosuch' >> {T}/stack_trace_filter || echo refused
echo 1 > /proc/sys/kernel/stack_tracer_enabled; tracefs-sim exec cat /etc/hostname > /dev/null
echo 0 > /proc/sys/kernel/stack_tracer_enabled
echo '== on'; cat /proc/sys/kernel/stack_tracer_enabled {T}/stack_trace_filter {T}/stack_max_size {T}/stack_trace
echo '== bad'; echo abc > {T}/stack_max_size || echo refused; echo 0 > {T}/stack_max_size
echo '== reset'; cat {T}/stack_max_size; head -3 {T}/stack_trace
""")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    from simtest import section
    off = section(out, "off")
    assert off[:6] == ["0", "0", "#### all functions enabled ####",
                       "        Depth    Size   Location    (0 entries)", "        -----    ----   --------", "#"]
    assert "#  Stack tracer disabled" in off
    on = section(out, "on")
    assert on[:2] == ["0", "vfs_read"], out
    size = int(on[2])
    assert on[3] == "        Depth    Size   Location    (5 entries)"
    rows = [line.split() for line in on[5:]]
    assert [row[3].split("+")[0] for row in rows] == ["vfs_read", "ksys_read", "__x64_sys_read", "do_syscall_64",
                                                      "entry_SYSCALL_64_after_hwframe"]
    assert rows[0][:2] == ["0)", str(size)] and rows[0][3].startswith("vfs_read+0x5/")
    depths = [int(row[1]) for row in rows]
    assert [int(row[2]) for row in rows] == [a - b for a, b in zip(depths, depths[1:] + [0])]
    assert out.count("refused") == 2
    reset = section(out, "reset")
    assert reset[0] == "0" and reset[1].endswith("(5 entries)") and reset[3] == "#"
    assert _host_sysctls() == host


def test_exec_runs_programs_in_the_emulated_kernel():
    result = run("-c", "tracefs-sim exec cat /etc/passwd")
    assert (result.returncode, result.stdout) == (0, emulated_passwd()), result.stderr
    result = run("-c", "tracefs-sim exec getuid-loop 5")
    assert (result.returncode, result.stdout) == (0, "0\n" * 5), result.stderr
    result = run("-c", "tracefs-sim exec nosuchprog; echo status=$?")
    assert result.stdout == "status=127\n"
    assert "tracefs-sim exec: nosuchprog: no such program" in result.stderr


def test_exit_status_and_arguments_propagate(tmp_path):
    assert run("-c", "exit 7").returncode == 7
    script = tmp_path / "script.sh"
    script.write_text('echo "$# $1 $2"; cd /sys/kernel/tracing && cat tracing_on; exit 3\n')
    result = run(str(script), "a b", "c")
    assert (result.returncode, result.stdout) == (3, "2 a b c\n1\n"), result.stderr
    assert run("-c", "kill -TERM $$").returncode == 128 + signal.SIGTERM


def test_cwd_and_environment():
    result = subprocess.run([TRACEFS_SIM, "run", "-c", "pwd; echo $TRACEFS_SIM_CONTROL"], cwd="/usr",
                            capture_output=True, text=True, timeout=90)
    cwd, socket_path = result.stdout.split()
    assert cwd == "/usr"
    assert socket_path.startswith(control.RUN_DIR + "/session-")


@pytest.mark.parametrize("recipe", sorted(p.name for p in (REPO / "mountpoint_scripts").glob("*.sh")))
def test_recipes_run_as_they_are(recipe):
    result = run(str(REPO / "mountpoint_scripts" / recipe))
    assert result.returncode == 0, result.stderr


def test_hello_recipe():
    result = run(str(REPO / "mountpoint_scripts/hello.sh"))
    assert result.returncode == 0, result.stderr
    assert TRACEFS_LINE.format("/sys/kernel/tracing") in result.stdout
    assert reference_section("b_empty_trace", "cat trace") in result.stdout
    assert emulated_passwd() in result.stdout


def test_event_formats_recipe_shows_linux_formats():
    result = run(str(REPO / "mountpoint_scripts/event_formats.sh"))
    assert result.returncode == 0, result.stderr
    for event in ("sched/sched_switch", "syscalls/sys_enter_getuid"):
        real = reference_section("a_layout", f"cat events/{event}/format")
        real_without_id = re.sub(r"^ID: \d+\n", "", real, flags=re.M)
        assert real_without_id in re.sub(r"^ID: \d+\n", "", result.stdout, flags=re.M), event
    assert reference_section("a_layout", "cat events/header_page") in result.stdout


def test_trace_pipe_reader_interrupted_inside():
    started = time.monotonic()
    result = run("-c", "timeout 1 cat /sys/kernel/tracing/trace_pipe; echo status=$?")
    assert result.stdout.endswith("status=124\n")
    assert time.monotonic() - started < 30


def test_nothing_is_left_on_the_host():
    places = ("/sys/kernel/tracing", "/sys/kernel/debug", "/proc/", "/sys/devices/system/cpu")
    before = host_mounts_under(*places)
    result = run("-c", f"{DAEMON_PID}; echo $TRACEFS_SIM_CONTROL")
    assert result.returncode == 0, result.stderr
    daemon_pid, socket_path = result.stdout.split()
    assert host_mounts_under(*places) == before
    assert not process_running(int(daemon_pid))
    assert not os.path.exists(socket_path)
    assert not os.path.exists(control.pidfile_path(socket_path))


def test_sigterm_ends_script_and_daemon():
    session = subprocess.Popen([TRACEFS_SIM, "run", "-c", f"{DAEMON_PID};"
                                "sleep 300 & echo $!; sleep 300"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert select.select([session.stdout], [], [], 90)[0], "the session printed nothing"
        daemon_pid = int(session.stdout.readline())
        background_pid = int(session.stdout.readline())
        session.send_signal(signal.SIGTERM)
        assert session.wait(30) == 128 + signal.SIGTERM
        assert not process_running(daemon_pid)
        assert not process_running(background_pid)
    finally:
        if session.poll() is None:
            session.kill()
            session.wait(10)


def test_usage_errors_are_one_line():
    for args, message in [(("run",), "give -c CMDS or a SCRIPT"), (("run", "--cpus", "0", "-c", "true"), "1 to 8"),
                          (("run", "--mem", "64", "-c", "true"), "96 to 1024 MiB")]:
        result = tracefs_sim(*args, timeout=30)
        assert result.returncode != 0 and message in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


def test_shell_reads_commands_from_stdin():
    result = subprocess.run([TRACEFS_SIM, "shell"], input="cat /sys/kernel/tracing/tracing_on\nexit 4\n",
                            capture_output=True, text=True, timeout=90)
    assert (result.returncode, result.stdout) == (4, "1\n"), result.stderr


def test_interactive_shell_on_a_terminal():
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(TRACEFS_SIM, [TRACEFS_SIM, "shell"], dict(os.environ, PS1="sim$ ", HOME="/nonexistent"))
    try:
        output = b""

        def read_until(marker: bytes, timeout: float = 90) -> None:
            nonlocal output
            deadline = time.monotonic() + timeout
            while marker not in output:
                assert time.monotonic() < deadline, f"no {marker!r} in {output!r}"
                if select.select([fd], [], [], 0.5)[0]:
                    output += os.read(fd, 4096)

        read_until(b"exit to leave")
        os.write(fd, b"cat /sys/kernel/tracing/current_tracer; sleep 300\n")
        read_until(b"nop")

        def sleep_in_the_foreground() -> bool:
            # bash's child ignores a ^C that comes between its fork and its exec of sleep
            try:
                with open(f"/proc/{os.tcgetpgrp(fd)}/cmdline", "rb") as cmdline:
                    return cmdline.read() == b"sleep\x00300\x00"
            except OSError:
                return False
        assert wait_until(sleep_in_the_foreground, 30), output
        os.write(fd, b"\x03")  # ^C reaches the shell's foreground job, not the session
        os.write(fd, b"echo still-$((40+2))\n")
        read_until(b"still-42")
        os.write(fd, b"exit 5\n")
        deadline = time.monotonic() + 30
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            assert time.monotonic() < deadline, "the session did not end"
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    os.read(fd, 4096)  # keep the terminal drained
                except OSError:
                    pass
        assert os.waitstatus_to_exitcode(status) == 5
    finally:
        os.close(fd)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def test_ctrl_z_suspends_the_session_and_fg_resumes_it():
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe("bash", ["bash", "--norc", "-i"], dict(os.environ, PS1="outer$ "))
    output = b""

    def read_until(marker: bytes, timeout: float = 90) -> None:
        nonlocal output
        deadline = time.monotonic() + timeout
        while marker not in output:
            assert time.monotonic() < deadline, f"no {marker!r} in {output[-500:]!r}"
            if select.select([fd], [], [], 0.2)[0]:
                output += os.read(fd, 4096)

    try:
        read_until(b"outer$ ")
        os.write(fd, f"{TRACEFS_SIM} run -c 'echo started; sleep 2; echo finished'\n".encode())
        read_until(b"started\r\n")
        os.write(fd, b"\x1a")  # ^Z
        read_until(b"Stopped")
        os.write(fd, b"echo outer-$((40+2))\n")
        read_until(b"outer-42")  # the outer shell has its terminal back
        os.write(fd, b"fg\n")
        read_until(b"finished")
        os.write(fd, b"echo status-$?\n")
        read_until(b"status-0")
        os.write(fd, b"exit\n")
    finally:
        os.close(fd)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


@pytest.mark.skipif(shutil.which("trace-cmd") is None, reason="trace-cmd is not installed")
def test_trace_cmd_finds_the_simulator_unmodified():
    # libtracefs takes the tracefs line of /proc/mounts; had it not found one, it would have
    # mounted a real tracefs (type "tracefs" in mountinfo) inside the namespace.
    result = run("-c", "grep -q '^tracefs /sys/kernel/tracing tracefs ' /proc/mounts || exit 99;"
                       "trace-cmd list -t; cat /sys/kernel/tracing/available_tracers;"
                       "grep -c ' - tracefs ' /proc/self/mountinfo || true")
    assert result.returncode == 0, result.stderr
    listed, available, real_mounts = result.stdout.splitlines()
    assert listed == available
    assert real_mounts == "0"
