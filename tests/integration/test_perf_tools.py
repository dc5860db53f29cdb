"""Debian's perf (`perf list`) and Brendan Gregg's perf-tools ftrace scripts (Debian
perf-tools-unstable, installed as /usr/sbin/NAME-perf), unmodified, against the simulator: inside
`tracefs-sim run`'s private namespace, or perf with TRACEFS_PATH at a plain mount (read only).
Never anywhere else: the host has a real tracefs. Events, the function tracers (funcgraph,
functrace) and kprobes (kprobe: tests/integration/test_kprobe_recipes.py) work; the scripts that
need what the simulator lacks (the function profiler, stack traces of events) must stop at once
with their own message.

/usr/bin/perf of Debian 12's linux-perf (6.1) is the perf binary itself: the package diverts the old
version-picking wrapper (perf_$(uname -r) lookup) to /usr/bin/perf.wrapper, so nothing depends on
the host's kernel version."""

import os
import re
import shutil
import subprocess

import pytest
from kernel_paths import kernel_visible
from simtest import REPO, section, tracefs_sim

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and mount namespaces"),
    pytest.mark.skipif(shutil.which("perf") is None or shutil.which("tpoint-perf") is None,
                       reason="linux-perf and perf-tools-unstable are not installed"),
]

T = "/sys/kernel/debug/tracing"      # where perf-tools look
# The perf-tools' lock file, /var/tmp/.ftrace-lock, is meant for the host's real ftrace: each
# session gets a private /var/tmp (its mount namespace only), so a test never sees or leaves one.
PRIVATE_VAR_TMP = "mount -t tmpfs perf-tools-lock /var/tmp;"
# Every event directory of the mount (those with an id: what perf lists), as system:name.
EVENT_DIRS = f"for d in {T}/events/*/*/; do [ -e $d/id ] && basename $(dirname $d):$(basename $d); done"
TPOINT_SWITCH = re.compile(r"^ *\S.*-(\d+) +\[(\d{3})\] \S{5} +\d+\.\d{6}: sched_switch: prev_comm=.* "
                           r"prev_pid=(\d+) prev_prio=\d+ prev_state=\S+ ==> next_comm=.* next_pid=\d+ "
                           r"next_prio=\d+$")
TPOINT_GETUID = re.compile(r"^ *(\S.*)-(\d+) +\[\d{3}\] \S{5} +\d+\.\d{6}: sys_getuid\(\)$")
# State a perf-tools script must leave behind: its event off, no filter, no lock.
AFTER = (f"echo '== after'; cat {T}/events/sched/sched_switch/enable {T}/events/sched/sched_switch/filter"
         f" {T}/events/syscalls/sys_enter_getuid/enable; ls -A /var/tmp")


def run(script: str, tmp_path, *options: str, timeout: float = 150) -> str:
    result = tracefs_sim("run", *options, "-c", PRIVATE_VAR_TMP + script, timeout=timeout, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def perf_list_names(lines: list[str]) -> list[str]:
    names = []
    for line in lines:
        name, kind = re.match(r"^  (\S+) +\[(.*)\]$", line).groups()
        assert kind == "Tracepoint event"
        names.append(name)
    return names


def test_perf_list_in_a_session_lists_the_emulated_kernels_events(tmp_path):
    out = run(f"echo '== perf'; timeout 30 perf list tracepoint; echo \"== status $?\"; echo '== dirs';"
              f"{EVENT_DIRS}; echo '== available_events'; cat {T}/available_events", tmp_path)
    assert "== status 0" in out
    listed = perf_list_names(section(out, "perf"))
    # exactly the simulator's events: nothing of the host kernel's
    assert sorted(listed) == sorted(section(out, "dirs"))
    assert {"sched:sched_switch", "syscalls:sys_enter_getuid", "kmem:kmalloc"} <= set(listed)
    # perf lists the ftrace events too (they have an id), which available_events leaves out
    available = set(section(out, "available_events"))
    assert available <= set(listed) and all(n.startswith("ftrace:") for n in set(listed) - available)


def test_perf_list_with_tracefs_path_reads_a_plain_mount(mounted):
    # perf takes TRACEFS_PATH as it is (no check of the filesystem type); listing only reads.
    listed = subprocess.run(["perf", "list", "tracepoint"], capture_output=True, text=True, timeout=30,
                            env=dict(os.environ, TRACEFS_PATH=str(mounted)))
    assert listed.returncode == 0, listed.stderr
    dirs = sorted(f"{system.name}:{event.name}" for system in (mounted / "events").iterdir() if system.is_dir()
                  for event in system.iterdir() if (event / "id").exists())
    assert sorted(perf_list_names(listed.stdout.splitlines())) == dirs
    assert "sched:sched_switch" in dirs and "kmem:kmalloc" in dirs


def test_tpoint_lists_the_tracepoints_and_shows_a_format(tmp_path):
    out = run(f"echo '== l'; timeout 30 tpoint-perf -l; echo \"== status $?\"; echo '== dirs'; {EVENT_DIRS};"
              f"echo '== v'; timeout 30 tpoint-perf -v kmem:kmalloc; echo '== format';"
              f"cat {T}/events/kmem/kmalloc/format", tmp_path)
    assert "== status 0" in out
    assert sorted(section(out, "l")) == sorted(section(out, "dirs"))
    assert section(out, "v") == section(out, "format") and "name: kmalloc" in section(out, "format")


def test_tpoint_buffered_for_a_second_with_headers(tmp_path):
    out = run(f"echo '== d'; timeout 30 tpoint-perf -H -d 1 sched:sched_switch; echo \"== status $?\"; {AFTER}",
              tmp_path)
    assert "== status 0" in out
    lines = section(out, "d")
    assert lines[0] == "Tracing sched:sched_switch for 1 seconds (buffered)..."
    assert lines[1] == "# tracer: nop" and lines[-1] == "Ending tracing..."
    records = [l for l in lines[2:-2] if not l.startswith("#")]
    assert records and all(TPOINT_SWITCH.match(l) for l in records), records
    written = re.search(r"^# entries-in-buffer/entries-written: (\d+)/(\d+) +#P:2$", "\n".join(lines), re.M)
    assert written and int(written.group(1)) == int(written.group(2)) == len(records)
    assert section(out, "after") == ["0", "none", "0"]


def test_tpoint_with_a_filter(tmp_path):
    out = run(f"echo '== d'; timeout 30 tpoint-perf -d 1 sched:sched_switch 'prev_pid == 0';"
              f"echo \"== status $?\"; {AFTER}", tmp_path)
    assert "== status 0" in out
    records = [TPOINT_SWITCH.match(l) for l in section(out, "d")[1:-2]]
    assert records and all(records) and {m.group(3) for m in records} == {"0"}
    assert section(out, "after") == ["0", "none", "0"]


def test_tpoint_streams_a_programs_events_until_interrupted(tmp_path):
    # No background workload: the program's getuid() calls are the only ones. The program starts
    # once tpoint's `cat trace_pipe` runs (tpoint has cleared the buffer by then); once its
    # records are out, SIGINT (as Ctrl-C) ends tpoint, which cleans up after itself.
    out = run("timeout 60 tpoint-perf syscalls:sys_enter_getuid > stream & tp=$!;"
              "for i in $(seq 100); do pgrep -x cat -P $(pgrep -P $tp) >/dev/null && break; sleep 0.1; done;"
              "tracefs-sim exec getuid-loop 5 >/dev/null;"
              "for i in $(seq 100); do [ $(grep -c 'sys_getuid()' stream) -ge 5 ] && break; sleep 0.1; done;"
              f"kill -INT $tp; wait $tp; echo \"== status $?\"; echo '== stream'; cat stream; {AFTER}",
              tmp_path, "--workload", "none")
    assert "== status 0" in out             # tpoint's own, on SIGINT: not timeout's 124
    lines = section(out, "stream")
    assert lines[0] == "Tracing syscalls:sys_enter_getuid. Ctrl-C to end." and lines[-1] == "Ending tracing..."
    records = [TPOINT_GETUID.match(l) for l in lines[1:-2]]
    assert all(records), lines
    # the program's five, and the session's shells' own (they call getuid() as they look for
    # commands in $PATH): all of them tasks of the kernel
    program = [m for m in records if m.group(1) == "getuid-loop"]
    assert len(program) == 5 and len({m.group(2) for m in program}) == 1, lines
    assert all(int(m.group(2)) >= 1000 for m in records if m.group(1) != "getuid-loop"), lines
    assert section(out, "after") == ["0", "none", "0"]


def test_tpoint_stack_traces_and_a_script_needing_what_the_simulator_lacks(tmp_path):
    out = run(f"echo '== stack'; timeout 20 tpoint-perf -s -d 1 sched:sched_switch 2>&1; echo \"== status $?\";"
              f"echo '== ext4'; timeout 20 tpoint-perf ext4:ext4_sync_file_enter 2>&1; echo \"== status $?\";"
              f"{AFTER}; cat {T}/options/stacktrace", tmp_path)
    # -s is options/stacktrace: each sched_switch followed by the kernel stack of its writer (the
    # first stack may have lost its event: a full buffer drops its oldest page)
    stack = section(out, "stack")
    at = next((i for i, line in enumerate(stack) if line.endswith(": <stack trace>") and i > 1), None)
    assert at is not None and ": sched_switch: " in stack[at - 1], stack
    assert stack[at + 1:at + 3] == [" => trace_event_raw_event_sched_switch", " => __schedule"], stack
    # a missing tracepoint: the script's own message and exit status 1, not timeout's 124
    assert "ERROR: tracepoint ext4:ext4_sync_file_enter not found. Exiting" in section(out, "ext4")  # (no ext4 here)
    assert out.count("== status 0\n") == 1 and out.count("== status 1\n") == 1, out
    # nothing enabled, no lock left, the option off again (tpoint's cleanup)
    assert section(out, "after") == ["0", "none", "0", "0"]


def test_funccount_counts_a_programs_calls_with_the_function_profiler(tmp_path):
    # funccount is function_profile_enabled and trace_stat/function*: the emulated kernel's
    # profiler (6.1 has it with CONFIG_FUNCTION_PROFILER, which the reference build lacks)
    out = run(f"(sleep 1; tracefs-sim exec cat /etc/hostname > /dev/null) & echo '== funccount';"
              f"timeout 60 funccount-perf -d 3 'vfs_*' 2>&1; echo \"== status $?\"; wait;"
              f"echo '== after'; cat {T}/function_profile_enabled {T}/set_ftrace_filter", tmp_path)
    lines = section(out, "funccount")
    assert lines[:3] == ['Tracing "vfs_*" for 3 seconds...', "", "FUNC                              COUNT"], out
    counts = {m.group(1): int(m.group(2)) for m in (re.fullmatch(r"(vfs_\w+) +(\d+)", l) for l in lines[3:]) if m}
    assert counts.get("vfs_read", 0) >= 1 and counts.get("vfs_open", 0) >= 1, lines
    assert lines[-2:] == ["", "Ending tracing..."] and "== status 0" in out
    assert section(out, "after") == ["0", "#### all functions enabled ####"]   # profiler off, filter reset


# The function tracers' scripts. With no background workload, the program started once the
# script's tracer is set is the only thing that runs the traced functions.
START_CAT_ONCE_TRACING = (f"start_cat() {{ for i in $(seq 200); do grep -qx $1 {T}/current_tracer && break;"
                          f" sleep 0.05; done; tracefs-sim exec cat /etc/hostname > /dev/null; }};")
FUNCTION_AFTER = (f"echo '== after'; cat {T}/current_tracer {T}/set_ftrace_filter {T}/set_graph_function;"
                  f" ls -A /var/tmp")
ALL_ENABLED = "#### all functions enabled ####"
# CPU, then a duration column of 15 characters (blank on a call's opening line; a read blocked
# for a second or more has no decimals, trace_print_graph_duration()'s 7 digits), then the call
# indented two spaces per level.
SWITCH_LINE = re.compile(r"^( -+| \d+\) +\S+ +=> +\S+ *|)$")
TASK_SWITCH = re.compile(r"^ \d+\) +\S+ +=> +(\S+) *$")  # the task the next lines are of
IRQ_ARROW = re.compile(r"^ 0\) .*(==========>|<==========)")
GRAPH_LINE = re.compile(r"^ 0\)(?: {15}| [ +!#*@$] +\d+(?:\.\d{1,3})? us +)\|  ( *)([\w.]+\(\)(?: \{|;)|\})$")   # (names such as f.constprop.0)


def test_funcgraph_shows_a_programs_call_graph_for_a_duration(tmp_path):
    out = run(f"{START_CAT_ONCE_TRACING} start_cat function_graph & echo '== graph';"
              f"timeout 60 funcgraph-perf -H -d 2 vfs_read; echo \"== status $?\"; wait; {FUNCTION_AFTER}",
              tmp_path, "--workload", "none", "--cpus", "1")
    assert "== status 0" in out
    lines = section(out, "graph")
    assert lines[:5] == ['Tracing "vfs_read" for 2 seconds...', "# tracer: function_graph", "#",
                         "# CPU  DURATION                  FUNCTION CALLS", "# |     |   |                     |   |   |   |"]
    assert lines[-2:] == ["", "Ending tracing..."]
    # (the session's other processes read too: function_graph marks each change of task, and
    # indents each task's calls by that task's own depth)
    # (an interrupt taken inside a traced read shows as its arrows around the handler's calls,
    # print_graph_irq()'s, more likely the busier the host)
    body = [line for line in lines[5:-2] if (not SWITCH_LINE.match(line) or TASK_SWITCH.match(line))
            and not IRQ_ARROW.match(line)]
    graph = [line for line in body if not TASK_SWITCH.match(line)]
    assert graph and [line for line in graph if not GRAPH_LINE.match(line)] == [], lines
    # Only vfs_read and what it calls, nested as called, in each task.
    task, depths, completed = None, {}, 0
    for line in body:
        switch = TASK_SWITCH.match(line)
        if switch:
            task = switch.group(1)
            continue
        m = GRAPH_LINE.match(line)
        depth = depths.get(task, 0)
        assert len(m.group(1)) // 2 == depth - (m.group(2) == "}"), lines
        if depth == 0:
            assert m.group(2) == "vfs_read() {", lines
        depths[task] = depth + {"{": 1, "}": -1}.get(m.group(2)[-1], 0)
        completed += depths[task] == 0 and m.group(2) == "}"
    assert completed >= 1, lines    # (a task may still be inside a read, blocked, at the end)
    assert sum(line.endswith("|  vfs_read() {") for line in graph) >= 2     # cat reads the file, then EOF
    assert section(out, "after") == ["nop", ALL_ENABLED, ALL_ENABLED]


def test_funcslower_shows_the_slow_returns(tmp_path):
    """funcslower writes tracing_thresh: function_graph then records only the returns of the
    calls that took that long, each with its function named (its entry was not recorded)."""
    # cat runs once funcslower has cleared the trace, and again (a loaded box may take longer
    # than the 2 s window to start the first one)
    start = START_CAT_ONCE_TRACING.replace(
        "done; tracefs-sim exec cat /etc/hostname > /dev/null;",
        "done; sleep 0.5; for j in $(seq 8); do tracefs-sim exec cat /etc/hostname > /dev/null; sleep 0.2; done;")
    out = run(f"{start} start_cat function_graph & echo '== slow';"
              f"timeout 60 funcslower-perf -d 2 vfs_read 1; echo \"== status $?\"; wait; "
              f"echo '== thresh'; cat {T}/tracing_thresh; {FUNCTION_AFTER}",
              tmp_path, "--workload", "none", "--cpus", "1")
    assert "== status 0" in out
    lines = section(out, "slow")
    assert lines[0] == 'Tracing "vfs_read" slower than 1 us for 2 seconds...'
    assert lines[-2:] == ["", "Ending tracing..."]
    # (the graph marks each change of task between records: the session's shells read too)
    returns = [line for line in lines[1:-2]
               if line.strip() and not line.strip().startswith("-----") and "=>" not in line]
    # (6.1 keeps a duration to 7 digits, 12776.58 us, and pads a shorter one after "us":
    # "737.394 us  |")
    slow = [re.fullmatch(r" 0\) [ +!#*@$] +(\d+)\.\d{1,3} us +\|  \} /\* vfs_read \*/", line) for line in returns]
    assert slow and all(slow) and all(int(m.group(1)) >= 1 for m in slow), lines
    assert section(out, "thresh") == ["0"]
    assert section(out, "after") == ["nop", ALL_ENABLED, ALL_ENABLED]


def test_functrace_shows_a_programs_calls_for_a_duration(tmp_path):
    out = run(f"{START_CAT_ONCE_TRACING} start_cat function & echo '== trace';"
              f"timeout 60 functrace-perf -H -d 2 'vfs_*'; echo \"== status $?\"; wait; {FUNCTION_AFTER}",
              tmp_path, "--workload", "none")
    assert "== status 0" in out
    lines = section(out, "trace")
    assert lines[:2] == ['Tracing "vfs_*" for 2 seconds...', "# tracer: function"]
    assert lines[-2:] == ["", "Ending tracing..."]
    # (a session task's call may run with flags set, and a caller may be a clone: f.isra.0)
    records = [re.match(r"^ +(\S.*)-(\d+) +\[\d{3}\] \S{5} +\d+\.\d{6}: (vfs_[\w.]+) <-([\w.]+)$", l)
               for l in lines[2:-2] if not l.startswith("#")]
    assert records and all(records), lines
    # the emulated cat (a pid of the kernel's own), and the session's processes (the script's
    # own cat and shells, pids from 1000 on)
    emulated = [m for m in records if int(m.group(2)) < 1000]
    assert {m.group(1) for m in emulated} == {"cat"} and len({m.group(2) for m in emulated}) == 1
    assert all(int(m.group(2)) >= 1000 for m in records if m not in emulated)
    calls = [(m.group(3), m.group(4)) for m in emulated]
    assert ("vfs_read", "ksys_read") in calls and ("vfs_write", "ksys_write") in calls, calls
    written = re.search(r"^# entries-in-buffer/entries-written: (\d+)/(\d+) +#P:2$", "\n".join(lines), re.M)
    assert written and int(written.group(1)) == int(written.group(2)) == len(records)
    assert section(out, "after") == ["nop", ALL_ENABLED, ALL_ENABLED]


def test_uprobe_traces_a_static_programs_function(tmp_path):
    """perf-tools' uprobe (objdump finds the symbol, it writes uprobe_events) on a static glibc
    program the emulated kernel runs, for a duration; then its event is gone."""
    prog = kernel_visible(REPO / "kernel_model" / "build" / "user" / "progtest.elf")
    start = (f"(for i in $(seq 200); do grep -q __libc_write {T}/uprobe_events && break; sleep 0.05; done;"
             f" tracefs-sim exec {prog} uname > /dev/null) &")
    out = run(f"{start} echo '== uprobe'; timeout 60 uprobe-perf -d 6 'p:{prog}:__libc_write fd=%di:s32 count=%dx:u64'"
              f" 2>&1; echo \"== status $?\"; wait; echo '== after'; cat {T}/uprobe_events; ls -A /var/tmp",
              tmp_path, timeout=200)
    lines = section(out, "uprobe")
    assert any(re.match(r"^ *progtest\.elf-\d+ +\[\d{3}\] \S{5} +\d+\.\d{6}: __libc_write: \(0x[0-9a-f]+\) "
                        r"fd=1 count=\d+$", l) for l in lines), out
    assert out.count("== status 0\n") == 1
    assert section(out, "after") == []


def test_killsnoop_shows_a_shells_kills_with_their_signals_and_results(tmp_path):
    """killsnoop's kprobe and kretprobe on the kill syscall (`sys_kill`, 6.1's __x64_sys_kill)
    show the shell's kill of a child and of a pid nobody has, with the signal's name and the
    call's return (-3: ESRCH)"""
    out = tmp_path / "killsnoop.out"
    out_text = run(f"timeout -s INT 120 killsnoop-perf -s > {out} 2>&1 & t=$!; "
                   f"for i in $(seq 600); do grep -q '^COMM' {out} && break; sleep 0.1; done; "
                   "sleep 60 & victim=$!; kill -USR1 $victim; kill -TERM $victim; wait $victim; "
                   "kill -HUP 999999; "
                   f"for i in $(seq 300); do [ $(grep -c SIGHUP {out}) -ge 1 ] && break; sleep 0.1; done; "
                   f"echo \"== victim $victim\"; kill -INT $t; wait $t; echo \"== status $?\"; {AFTER}",
                   tmp_path, "--workload", "none")
    assert "== status 0" in out_text, out_text
    lines = out.read_text().splitlines()
    assert lines[:2] == ["Tracing kill()s. Ctrl-C to end.",
                         "COMM             PID    TPID     SIGNAL     RETURN"], lines
    victim = re.search(r"^== victim (\d+)$", out_text, re.M).group(1)
    rows = [l.split() for l in lines[2:] if l.strip() and not l.startswith("Ending")]
    kills = [(row[2], row[3], row[4]) for row in rows if row[0] == "bash"]
    # (the return is sys_exit_kill's `-> 0xfffffffffffffffd` read by the awk the script picks,
    # gawk --non-decimal-data or else mawk, which reads it as an unsigned 64-bit number)
    awk = ["gawk", "--non-decimal-data"] if shutil.which("gawk") else ["mawk"]
    esrch = subprocess.run([*awk, "{ print int($NF) }"], input="sys_kill -> 0xfffffffffffffffd\n",
                           capture_output=True, text=True, check=True).stdout.strip()
    assert kills == [(victim, "SIGUSR1", "0"), (victim, "SIGTERM", "0"), ("999999", "SIGHUP", esrch)], lines
    assert ".ftrace-lock" not in section(out_text, "after"), out_text   # (its kprobes removed too)


def test_execsnoop_and_cachestat_fail_as_on_61(tmp_path):
    """perf-tools' execsnoop and cachestat probe what 6.1 no longer has (a `sys_execve` kprobe;
    `account_page_dirtied`), so on the reference 6.1 they stop with their own errors, status 1,
    cachestat leaving the three functions 6.1 has in set_ftrace_filter: the same here."""
    out = run(f"timeout 30 execsnoop-perf -d 1 2>&1; echo \"== execsnoop $?\"; timeout 30 cachestat-perf 1 1 2>&1; "
              f"echo \"== cachestat $?\"; sort {T}/set_ftrace_filter; echo '== probes'; cat {T}/kprobe_events",
              tmp_path, "--workload", "none")
    lines = out.splitlines()
    assert lines[:3] == ["Tracing exec()s for 1 seconds (buffered)...",
                         "ERROR: adding a kprobe for execve. Exiting.", "== execsnoop 1"], out
    assert section(out, "cachestat 1") == ["add_to_page_cache_lru", "mark_buffer_dirty", "mark_page_accessed"], out
    assert lines[3] == "Counting cache functions... Output every 1 seconds." and \
        "ERROR: tracing these four kernel functions: mark_page_accessed, mark_buffer_dirty, add_to_page_cache_lru " \
        "and account_page_dirtied (unknown kernel version?). Exiting." in lines, out
    assert not "".join(section(out, "probes")).strip(), out
