"""The uprobe recipes of mountpoint_scripts/ run as written in `tracefs-sim run`: uprobe_events
written with echo, programs run by `tracefs-sim exec` in the emulated kernel (a static glibc
program of kernel_model/user/, and /bin/busybox) hitting them, 6.1's trace lines and formats;
and bad commands through the mount get 6.1's errnos and error_log lines."""

import os
import re
from pathlib import Path

import pytest
from kernel_paths import kernel_visible
from simtest import REPO, SESSION_TIMEOUT, sh, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SCRIPTS = REPO / "mountpoint_scripts"
# the recipes' program (they take it from $PROG when set), where the emulated kernel sees it
PROGTEST = kernel_visible(REPO / "kernel_model" / "build" / "user" / "progtest.elf")
# The context columns of a uprobe record: 6.1 writes them with tracing_gen_ctx_dec() from a
# preemptible context, so the flags and the preempt count byte borrow (DNZff when neither
# need-resched nor anything else was set).
CONTEXT = r"^ {0,16}\S.{0,15}-(\d+) +\[\d{3}\] [.dDbXnNphHsSzZ0-9a-f]{5} +\d+\.\d{6}: "


def run_recipe(name: str) -> str:
    result = tracefs_sim("run", str(SCRIPTS / name), timeout=SESSION_TIMEOUT, env={**os.environ, "PROG": str(PROGTEST)})
    assert result.returncode == 0, result.stderr
    return result.stdout


def section(output: str, title: str) -> list[str]:
    start = output.index(f"== {title}")
    start = output.index("\n", start) + 1
    end = output.find("\n== ", start - 1)
    return (output[start:] if end < 0 else output[start:end + 1]).splitlines()


def test_uprobe_function_arg_recipe():
    out = run_recipe("uprobe_function_arg.sh")
    events = section(out, "uprobe_events reads back")
    assert [re.sub(r":0x[0-9a-f]{16} ", ":OFFS ", l) for l in events] == [
        "p:uprobes/write_fd PROG:OFFS fd=%di:s32 count=%dx:u64 text=+0(%si):string",
        "r:uprobes/uname_ret PROG:OFFS ret=$retval:s32"], out
    fmt = "\n".join(section(out, "the uretprobe's format"))
    assert "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;" in fmt
    assert "\tfield:s32 ret;\toffset:24;\tsize:4;\tsigned:1;" in fmt
    assert 'print fmt: "(%lx <- %lx) ret=%d", REC->__probe_func, REC->__probe_ret_ip, REC->ret' in fmt
    hits = "\n".join(section(out, "the hits"))
    assert re.search(CONTEXT + r"uname_ret: \(0x[0-9a-f]+ <- 0x[0-9a-f]+\) ret=0$", hits, re.M), out
    assert re.search(CONTEXT + r'write_fd: \(0x[0-9a-f]+\) fd=1 count=\d+ text="Linux ', hits, re.M), out
    profile = section(out, "uprobe_profile")
    assert [l.split()[:2] for l in profile] == [["PROG", "write_fd"], ["PROG", "uname_ret"]]
    assert all(int(l.split()[2]) >= 1 for l in profile)


def test_uprobe_fork_inherit_recipe():
    out = run_recipe("uprobe_fork_inherit.sh")
    lines = section(out, "the fork and the writes")
    fork = next(re.search(r"child_pid=(\d+)", l) for l in lines if "sched_process_fork:" in l and "progtest" in l)
    child = fork.group(1)
    writes = [re.match(CONTEXT + r"write_fd: \(0x[0-9a-f]+\) fd=(-?\d+) count=(\d+)$", l) for l in lines
              if " write_fd: " in l]
    assert all(writes), out
    assert any(m.group(1) == child and m.group(2) == "4" and m.group(3) == "16484" for m in writes), out
    assert any(m.group(1) != child for m in writes), out  # the parent's own write


def test_uprobe_busybox_recipe():
    out = run_recipe("uprobe_busybox.sh")
    assert "hello" in out.splitlines()
    starts = section(out, "busybox starting")
    text = f"0x{int.from_bytes(Path('/bin/busybox').read_bytes()[0x1000:0x1004], 'little'):x}"
    assert any(re.match(CONTEXT + r'bb_start: \(0x[0-9a-f]+\) argc=4 argv0="/bin/busybox" argv1="sh" text=' + text
                        + "$", l) for l in starts), out
    assert any(re.match(CONTEXT + r'bb_start: \(0x[0-9a-f]+\) argc=3 argv0="/bin/busybox" argv1="echo" text=' + text
                        + "$", l) for l in starts), out
    profile = section(out, "uprobe_profile")
    assert len(profile) == 1 and profile[0].split()[:2] == ["/bin/busybox", "bb_start"]
    assert int(profile[0].split()[2]) == len(starts)


def test_bad_uprobe_commands_through_the_mount(mounted):
    """bash's echo reports each errno; the error_log has 6.1's line and caret; nothing changed."""
    mnt: Path = mounted
    r = sh(mnt, "echo 'p /nonexistent/prog:0x10' >> uprobe_events; "
                "echo 'p /bin:0x10' >> uprobe_events; "
                "echo 'p /bin/busybox:0x10(0x20' >> uprobe_events; "
                "echo 'p /bin/busybox:0x1zz' >> uprobe_events; "
                "echo 'p /bin/busybox:0x10 $arg1' >> uprobe_events; "
                "echo 'p /bin/busybox:abc' >> uprobe_events; cat uprobe_events; cat error_log", timeout=60)
    errors = re.findall(r"write error: (.*)", r.stderr)
    assert errors == ["No such file or directory", "Invalid argument", "Invalid argument", "Invalid argument",
                      "Invalid argument", "Invalid argument"], r.stderr
    log = re.sub(r"^\[ *\d+\.\d+\] ", "", r.stdout, flags=re.M).splitlines()
    assert log == [
        "trace_uprobe: error: Failed to find the given file", "  Command: p /nonexistent/prog:0x10", "             ^",
        "trace_uprobe: error: Not a regular file", "  Command: p /bin:0x10", "             ^",
        "trace_uprobe: error: Reference counter brace is not closed", "  Command: p /bin/busybox:0x10(0x20",
        " " * 35 + "^",
        "trace_uprobe: error: Invalid uprobe offset", "  Command: p /bin/busybox:0x1zz", " " * 26 + "^",
        "trace_uprobe: error: Invalid $-variable specified", "  Command: p /bin/busybox:0x10 $arg1", " " * 31 + "^",
    ], r.stdout


# a uprobe on progtest's write(): its fd and count (the shell is in the tracing directory after)
WRITE_FD_PROBE = (f". {SCRIPTS}/uprobe_offset.sh; PROG={PROGTEST};"
                  "cd /sys/kernel/tracing;"
                  'echo "p:write_fd $PROG:$(file_offset "$PROG" __libc_write) fd=%di:s32 count=%dx:u64" >> uprobe_events;')


def test_filter_on_a_uprobe_event():
    """An event filter on a uprobe event's fetch arg keeps only the matching hits: the child's
    write into the pipe (fd 4), not the writes to stdout."""
    script = (WRITE_FD_PROBE +
              "echo 'fd == 4' > events/uprobes/write_fd/filter; echo 1 > events/uprobes/write_fd/enable;"
              'tracefs-sim exec "$PROG" fork > /dev/null; echo 0 > events/uprobes/write_fd/enable;'
              "echo '== trace'; grep -v '^#' trace")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT)
    assert result.returncode == 0, result.stderr
    lines = section(result.stdout, "trace")
    assert lines and all(re.match(CONTEXT + r"write_fd: \(0x[0-9a-f]+\) fd=4 count=16484$", l) for l in lines), \
        result.stdout


def test_triggers_on_a_uprobe_event():
    """uprobe_trace_func()'s triggers: a hist trigger on the uprobe's own fetch arg counts every
    write() of the program by fd, with the event itself left in soft mode (it records nothing),
    and a traceoff filtered on the fd fires at the pipe's write."""
    script = (WRITE_FD_PROBE +
              "echo 'traceoff:1 if fd == 4' > events/uprobes/write_fd/trigger;"
              "echo 'hist:keys=fd:vals=count' > events/uprobes/write_fd/trigger;"
              "echo '== enable'; cat events/uprobes/write_fd/enable;"
              'tracefs-sim exec "$PROG" fork > /dev/null;'
              "echo '== hist'; cat events/uprobes/write_fd/hist; echo '== tracing_on'; cat tracing_on;"
              "echo '== trace'; grep -v '^#' trace; echo 1 > tracing_on")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert section(result.stdout, "enable") == ["0*"], result.stdout
    hist = section(result.stdout, "hist")
    assert hist[2] == "# trigger info: hist:keys=fd:vals=hitcount,count:sort=hitcount:size=2048 [active]", hist
    assert any(re.fullmatch(r"\{ fd: +4 \} hitcount: +\d+  count: +\d+", line) for line in hist), hist
    assert section(result.stdout, "tracing_on") == ["0"], result.stdout
    assert section(result.stdout, "trace") == [], result.stdout
