"""set_ftrace_filter's commands through the mount: the traceoff recipe of mountpoint_scripts/ as
written in `tracefs-sim run`, and echo/cat on the real files against what Linux 6.1 answers
(read-back lines, errno, soft mode in the events' enable files), with the commands firing in
the emulated kernel when guest programs call the functions."""

import os
import re

import pytest
from simtest import REPO, quiet, sh, tracefs_sim  # noqa: F401 (quiet: a fixture)

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

CONTEXT = r"^ {0,16}\S.{0,15}-\d+ +\[\d{3}\] [.dDbXnNphHsSzZ0-9]{5} +\d+\.\d{6}: "
ALL = "#### all functions enabled ####\n"


def test_function_traceoff_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "function_traceoff.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["== set_ftrace_filter:", "ksys_read", "vfs_read:traceoff:unlimited"], result.stdout
    assert lines[lines.index("== tracing_on after the first vfs_read:") + 1] == "0"
    # (fewer than five when a task read at once after tracing_on: the header's end shows then)
    last = [line for line in lines[lines.index("== the last records:") + 1:] if not line.startswith("#")]
    assert 1 <= len(last) <= 5 and all(re.match(CONTEXT, line) for line in last), result.stdout
    assert all(": sched_" in line or re.search(r" ksys_read <-\w+$", line) for line in last), result.stdout
    # tracing stopped at the vfs_read that ksys_read called: nothing was recorded after it on its
    # cpu (another cpu's records may sort after it: the trace clock, "local", is per cpu, as 6.1's)
    reads = [i for i, line in enumerate(last) if re.match(CONTEXT + r"ksys_read <-\w+$", line)]
    assert reads, result.stdout
    cpu = re.search(r"\[(\d{3})\]", last[reads[-1]])[1]
    assert all(f"[{cpu}]" not in line for line in last[reads[-1] + 1:]), result.stdout


def test_commands_through_the_mount(mount_at):
    # A quiet machine: the programs the test runs are the only callers of the functions whose
    # counts it checks between a write and a read.
    mounted = mount_at("--workload", "none")

    def run(script):
        return sh(mounted, script)

    def guest(*argv):
        result = tracefs_sim("exec", "--mount", str(mounted), *argv, timeout=60)
        assert result.returncode == 0, result.stderr

    assert run("echo '__do_sys_getuid:traceoff:1' > set_ftrace_filter; cat set_ftrace_filter").stdout == \
        ALL + "__do_sys_getuid:traceoff:count=1\n"
    # only a command at the site: it is patched and listed though no tracer runs
    assert run("cat enabled_functions").stdout.startswith("__do_sys_getuid (1) ")
    assert run("cat tracing_on").stdout == "1\n"
    guest("getuid-loop", "3")
    assert run("cat tracing_on; cat set_ftrace_filter").stdout == "0\n" + ALL + "__do_sys_getuid:traceoff:count=0\n"
    assert run("echo 1 > tracing_on; cat tracing_on").stdout == "1\n"
    guest("getuid-loop", "3")
    assert run("cat tracing_on").stdout == "1\n"           # the count is spent
    assert run("echo '!__do_sys_getuid:traceoff:0' >> set_ftrace_filter; cat set_ftrace_filter; "
               "cat enabled_functions").stdout == ALL

    # enable_event: soft mode until the function runs, then the event records
    assert run("echo > trace; echo '__do_sys_getuid:enable_event:sched:sched_switch:1' > set_ftrace_filter;"
               " cat events/sched/sched_switch/enable").stdout == "0*\n"
    assert "sched_switch" not in run("cat trace").stdout
    guest("getuid-loop", "2")
    assert run("cat events/sched/sched_switch/enable; cat set_ftrace_filter").stdout == \
        "1*\n" + ALL + "__do_sys_getuid:enable_event:sched:sched_switch:count=0\n"
    assert "sched_switch: prev_comm=" in run("cat trace").stdout
    assert run("echo '!__do_sys_getuid:enable_event:sched:sched_switch:1' >> set_ftrace_filter;"
               " cat events/sched/sched_switch/enable; echo 0 > events/sched/sched_switch/enable;"
               " cat events/sched/sched_switch/enable").stdout == "1\n0\n"

    # stacktrace: kernel_stack records from the guest
    assert run("echo > trace; echo '__do_sys_getuid:stacktrace:2' > set_ftrace_filter").returncode == 0
    guest("getuid-loop", "5")
    trace = run("cat trace").stdout
    assert trace.count("<stack trace>") == 2 and " => __do_sys_getuid\n" in trace, trace
    assert run("echo '!__do_sys_getuid:stacktrace:2' > set_ftrace_filter").returncode == 0

    # bad input: Linux's errno, nothing changed
    for bad, message in (("vfs_read:bogus", "Invalid argument"),
                         ("vfs_read:enable_event:sched:nosuch", "Invalid argument"),
                         ("vfs_read:traceon:abc", "Invalid argument"),
                         ("!vfs_read:traceon", "No such device")):
        result = run(f"echo '{bad}' >> set_ftrace_filter")
        assert result.returncode == 1 and message in result.stderr, bad
    assert run("cat set_ftrace_filter; cat events/sched/sched_switch/enable").stdout == ALL + "0\n"


def test_snapshot_command_through_the_mount(quiet):
    """func:snapshot:1 (6.1's ftrace_count_snapshot()): the guest asks for the snapshot when the
    function runs, once: the snapshot holds what the trace held up to that call (the getuid
    program's first system call's sys_enter), the trace goes on from there."""
    run, guest = quiet
    assert run("echo 1 > events/raw_syscalls/sys_enter/enable; echo '__do_sys_getuid:snapshot:1' > set_ftrace_filter;"
               " cat set_ftrace_filter") == ALL + "__do_sys_getuid:snapshot:count=1\n"
    assert "Snapshot is allocated" in run("cat snapshot")
    guest("getuid-loop", "3")
    assert run("cat set_ftrace_filter") == ALL + "__do_sys_getuid:snapshot:count=0\n"
    mine = r"getuid-loop-\d+ .* sys_enter: NR 102 "
    snap = [line for line in run("cat snapshot").splitlines() if re.search(mine, line)]
    trace = [line for line in run("cat trace").splitlines() if re.search(mine, line)]
    assert len(snap) == 1 and len(trace) == 2, (snap, trace)   # the first call's, then the other two
    run("echo '!__do_sys_getuid:snapshot:0' >> set_ftrace_filter; echo 0 > events/raw_syscalls/sys_enter/enable")
    assert run("cat set_ftrace_filter") == ALL


_DUMP_SCRIPT = r"""cd /sys/kernel/tracing
echo 'p:myp do_sys_openat2' > kprobe_events
echo 1 > events/kprobes/enable
cat /etc/hostname > /dev/null
echo 'do_mkdirat:dump:5' > set_ftrace_filter
echo '== listing'; cat set_ftrace_filter
d=$(mktemp -d); mkdir $d/a
for i in $(seq 100); do [ $(dmesg | grep -c -- '-----$') = 2 ] && break; sleep 0.1; done
echo '== dump'; dmesg | sed -n '/Dumping ftrace buffer:/,$p' | cut -d']' -f2- | cut -c2-
echo '== after'; cat tracing_on; grep -vc '^#' trace; cat set_ftrace_filter
echo '!do_mkdirat:dump' >> set_ftrace_filter; cat set_ftrace_filter
dmesg -C
echo 0 > events/kprobes/enable; echo 1 > tracing_on
echo 'do_mkdirat:cpudump' > set_ftrace_filter
echo '== cpudump'; cat set_ftrace_filter
mkdir $d/b
for i in $(seq 100); do dmesg | grep -q 'buffer empty' && break; sleep 0.1; done
dmesg | grep -m1 -A1 'Dumping' | cut -d']' -f2- | cut -c2-
"""


def test_dump_and_cpudump_print_the_buffer_into_the_kernels_log():
    """6.1's func:dump (ftrace_dump(DUMP_ALL), once: the count is 1 whatever was written) and
    func:cpudump (DUMP_ORIG, every hit): tracing goes off and stays off, the buffer is printed
    into the kernel's log in the latency format between two rules (each line's mark blank: the
    record is printed before it is consumed), and consumed; an empty one is `(ftrace buffer
    empty)`.  As the reference 6.1 VM printed it."""
    result = tracefs_sim("run", "-c", _DUMP_SCRIPT, timeout=180)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    part = lambda title: out.split(f"== {title}\n")[1].split("\n== ")[0].splitlines()
    assert part("listing") == ALL.splitlines() + ["do_mkdirat:dump:count=1"]
    dump = part("dump")   # (the kernel's log may go on after: cron's lines)
    assert dump[:2] == ["Dumping ftrace buffer:", "-" * 33] and "-" * 33 in dump[2:], out
    dump = dump[:dump.index("-" * 33, 2) + 1]
    records = dump[2:-1]
    lat = r"^ *\S{1,8}-\d+ +\d[.dDbXnNphHsSzZ0-9a-f]{5} +\d+us : "
    assert records and all(re.match(lat + r"myp: \(do_sys_openat2\+0x0/0x[0-9a-f]+\)$", l) for l in records), dump
    assert any(re.match(r"^ *cat-\d+ ", l) for l in records), dump
    assert part("after") == ["0", "0"] + ALL.splitlines() + ["do_mkdirat:dump:count=0"] + ALL.splitlines()
    assert part("cpudump") == ALL.splitlines() + ["do_mkdirat:cpudump:unlimited",
                                                  "Dumping ftrace buffer:", "   (ftrace buffer empty)"], out
