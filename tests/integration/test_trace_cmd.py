"""Debian's trace-cmd, unmodified, against the simulator inside `tracefs-sim run`'s private
namespace (never outside it: the host has a real tracefs). Every trace-cmd call has a timeout;
what it prints is checked against the simulator's own files."""

import os
import re
import shutil

import pytest
from simtest import section, tracefs_sim

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and mount namespaces"),
    pytest.mark.skipif(shutil.which("trace-cmd") is None, reason="trace-cmd is not installed"),
]

T = "/sys/kernel/tracing"
# One trace-cmd call: bounded, and its exit status reported on its own line.
TC = "timeout 120 trace-cmd"  # generous: a loaded CI box
# `trace` / `trace-cmd show` line of a sched_switch; and `trace-cmd report`'s line of one
# (the sched_switch plugin's form: prev_comm:prev_pid [prio] state ==> next_comm:next_pid [prio]).
SHOW_SWITCH = re.compile(r"^ *\S.*-(\d+) +\[(\d{3})\] \S{5} +(\d+\.\d{6}): sched_switch: prev_comm=(.*) "
                         r"prev_pid=(\d+) prev_prio=(\d+) prev_state=\S+ ==> next_comm=(.*) next_pid=(\d+) "
                         r"next_prio=(\d+)$")
# (report names the instance first, `foo: `, for a record made with -B foo)
REPORT_SWITCH = re.compile(r"^(?:\w+:)? *\S.*-(\d+) +\[(\d{3})\] +(\d+\.\d{6}): sched_switch: +(.*):(\d+) \[(\d+)\] \S+ "
                           r"==> (.*):(\d+) \[(\d+)\]$")
REPORT_GETUID = re.compile(r"^(?:\w+:)? *(\S.*)-(\d+) +\[(\d{3})\] +\d+\.\d{6}: sys_enter_getuid: *$")


def run(script: str, tmp_path, *options: str, timeout: float = 400) -> str:
    result = tracefs_sim("run", *options, "-c", script, timeout=timeout, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_list_shows_the_simulators_events_tracers_and_options(tmp_path):
    out = run(f"echo '== e'; {TC} list -e; echo '== available_events'; cat {T}/available_events;"
              f"echo '== sched'; {TC} list -e 'sched:.*'; echo '== sched glob'; {TC} list -e 'sched:*';"
              f"echo \"== status $?\"; echo '== t'; {TC} list -t; echo '== available_tracers';"
              f"cat {T}/available_tracers; echo '== o'; {TC} list -o; echo '== trace_options';"
              f"cat {T}/trace_options", tmp_path)
    available = section(out, "available_events")
    assert sorted(section(out, "e")) == sorted(available) and len(available) > 20
    sched = section(out, "sched")
    assert sorted(sched) == sorted(e for e in available if e.startswith("sched:")) and "sched:sched_switch" in sched
    # trace-cmd takes the event part as a regular expression: a bare `*` matches no name.
    assert section(out, "sched glob") == [] and "== status 0" in out
    assert section(out, "t") == section(out, "available_tracers")
    # list -o reads options/ (every tracer's options, as Linux creates them all), each in the
    # state trace_options shows; trace_options lists only the current tracer's own
    listed = section(out, "o")
    assert set(section(out, "trace_options")) <= set(listed)
    assert "nofunc_stack_trace" in listed and "nofunc_stack_trace" not in section(out, "trace_options")


def test_start_stat_stop_show_clear_restart_reset(tmp_path):
    out = run(f"{TC} start -e sched_switch -e syscalls:sys_enter_getuid; echo '== stat'; {TC} stat;"
              f"echo '== set_event'; cat {T}/set_event; tracefs-sim exec getuid-loop 4 >/dev/null;"
              f"{TC} stop; echo '== stopped'; cat {T}/tracing_on; echo '== show'; {TC} show;"
              f"echo '== trace'; cat {T}/trace; {TC} clear; echo '== cleared'; {TC} show | grep -vc '^#';"
              f"{TC} restart; echo '== restarted'; cat {T}/tracing_on; {TC} reset; echo '== reset';"
              f"cat {T}/set_event; cat {T}/tracing_on;"
              # trace-cmd mounts debugfs itself when /proc/mounts lists none: that would be the
              # host's real one, so the session must list its stand-in as debugfs.
              f"echo '== debugfs mounts'; grep -c ' - debugfs ' /proc/self/mountinfo || :", tmp_path)
    stat = "\n".join(section(out, "stat"))
    assert re.search(r"Individual events:\n +sched\n +sched_switch\n +syscalls\n +sys_enter_getuid", stat), stat
    assert "Tracing is enabled" in stat
    assert sorted(section(out, "set_event")) == ["sched:sched_switch", "syscalls:sys_enter_getuid"]
    assert section(out, "stopped") == ["0"]
    show = section(out, "show")
    assert show == section(out, "trace")
    # the program's four (the session's shell and trace-cmd call getuid() of their own)
    assert sum(" getuid-loop-" in l and l.endswith("sys_getuid()") for l in show) == 4
    assert any(SHOW_SWITCH.match(l) for l in show)
    assert section(out, "cleared") == ["0"]
    assert section(out, "restarted") == ["1"]
    assert section(out, "reset") == ["1"]            # no events left; tracing on
    assert section(out, "debugfs mounts") == ["0"]


def test_extract_then_report_decodes_every_record(tmp_path):
    out = run(f"{TC} start -e sched_switch; tracefs-sim exec getuid-loop 3 >/dev/null; {TC} stop;"
              f"echo '== show'; {TC} show; {TC} extract; echo \"== extract $?\"; echo '== after';"
              f"cat {T}/trace | grep -vc '^#'; echo '== report'; {TC} report", tmp_path)
    shown = [SHOW_SWITCH.match(l) for l in section(out, "show") if not l.startswith("#")]
    assert shown and all(shown), section(out, "show")
    reported = [REPORT_SWITCH.match(l) for l in section(out, "report") if "sched_switch" in l]
    assert all(reported), section(out, "report")
    # Same records, same fields: cpu, time, prev_comm, prev_pid, prev_prio, next_comm, next_pid, next_prio.
    assert sorted(m.groups()[1:] for m in reported) == sorted(m.groups()[1:] for m in shown)
    assert "== extract 0" in out
    assert section(out, "after") == ["0"]           # extract consumed the buffers
    assert (tmp_path / "trace.dat").stat().st_size > 4096


# splice() from trace_pipe_raw (size 0 on a FUSE mount) moves nothing, so without --nosplice
# trace-cmd's recorders gather the pages in their final flush; --nosplice reads them as they come.
# `-B foo`: the same through an instance's per_cpu/cpuN/trace_pipe_raw.
@pytest.mark.parametrize("options", ["", "--nosplice", "-B foo"])
def test_record_a_command_then_report(tmp_path, options):
    out = run(f"{TC} record {options} -e sched:sched_switch -e syscalls:sys_enter_getuid"
              f" tracefs-sim exec getuid-loop 10 >/dev/null; echo \"== record $?\"; echo '== report'; {TC} report;"
              f"echo '== report -N'; {TC} report -N", tmp_path)
    assert "== record 0" in out
    report = section(out, "report")
    assert any(REPORT_SWITCH.match(l) for l in report)
    # Names as the file's saved cmdlines give them: -N, because libtraceevent's sched_switch
    # plugin registers each next_comm it prints, and one printed before the first name lookup
    # (swapper ==> kthreadd:PID, the forked child not yet exec'd) can shadow the saved name.
    getuids = [REPORT_GETUID.match(l) for l in section(out, "report -N") if "sys_enter_getuid" in l]
    assert len(getuids) == 10 and all(getuids), report
    # one process made them, named as it was then (the comm exec gave it)
    assert {m.group(1, 2) for m in getuids} == {("getuid-loop", getuids[0].group(2))}


def test_function_tracer_start_show_and_list_functions(tmp_path):
    # list -f takes a regular expression: 'vfs_*' is every name with "vfs" in it, as grep reads it
    out = run(f"{TC} start -p function -l vfs_read; echo \"== start $?\"; tracefs-sim exec cat /etc/passwd >/dev/null;"
              f"{TC} stop; echo '== show'; {TC} show; echo '== filter'; cat {T}/set_ftrace_filter;"
              f"echo '== list'; {TC} list -f 'vfs_*'; echo '== available';"
              f"grep 'vfs_*' {T}/available_filter_functions; {TC} reset; echo '== after'; cat {T}/current_tracer",
              tmp_path,
              "--workload", "none")  # only the programs the test runs
    assert "== start 0" in out
    calls = [l for l in section(out, "show") if not l.startswith("#")]
    # every task's vfs_read is traced (the session's own shells and trace-cmd too); cat's among them
    records = [re.match(r"^ +(\S.*)-\d+ +\[\d{3}\] \S{5} +\d+\.\d{6}: vfs_read <-([\w.]+)$", l) for l in calls]
    assert calls and all(records), out
    assert ("cat", "ksys_read") in [m.groups() for m in records], out
    assert section(out, "filter") == ["vfs_read"]
    assert section(out, "list") == section(out, "available") and "vfs_read" in section(out, "list")
    assert section(out, "after") == ["nop"]


def test_function_graph_start_show_reset(tmp_path):
    out = run(f"{TC} start -p function_graph -g vfs_read; echo \"== start $?\"; tracefs-sim exec cat /etc/hostname"
              f" >/dev/null; {TC} stop; echo '== show'; {TC} show; {TC} reset; echo '== after';"
              f"cat {T}/current_tracer {T}/set_graph_function", tmp_path,
              "--workload", "none")  # only the programs the test runs
    assert "== start 0" in out
    show = section(out, "show")
    assert show[0] == "# tracer: function_graph" and show[4].endswith(")               |  vfs_read() {"), show[:6]
    calls = [l for l in show if not l.startswith("#")]
    assert sum(l.endswith("{") for l in calls) == sum(l.endswith("}") for l in calls) > 0
    assert section(out, "after") == ["nop", "#### all functions enabled ####"]


def test_record_function_and_function_graph_then_report(tmp_path):
    out = run(f"{TC} record -p function -l vfs_read tracefs-sim exec cat /etc/passwd >/dev/null;"
              f"echo \"== record $?\"; echo '== function'; {TC} report;"
              f"{TC} record -p function_graph -g vfs_read tracefs-sim exec cat /etc/passwd >/dev/null;"
              f"echo \"== graph record $?\"; echo '== graph'; {TC} report", tmp_path,
              "--workload", "none")  # only the programs the test runs
    # (the statuses: a failed record leaves the last trace.dat for the report)
    assert "== record 0" in out and "== graph record 0" in out, [l for l in out.splitlines() if l.startswith("== ")]
    functions = [l for l in section(out, "function") if "function:" in l]
    records = [re.match(r"^ +(\S.*)-\d+ +\[\d{3}\] +\d+\.\d{6}: function: +vfs_read$", l) for l in functions]
    assert functions and all(records), section(out, "function")
    assert "cat" in [m.group(1) for m in records], section(out, "function")
    graph = [l for l in section(out, "graph") if "funcgraph_" in l]
    # each task's calls nest under vfs_read, from its first one opened at depth 0 on (a call
    # the recording began in the middle of shows its returns first, as on Linux)
    depth: dict[str, int] = {}
    for line in graph:
        task = line.split()[0]
        if task not in depth:
            if not line.endswith("|  vfs_read() {"):
                continue
            depth[task] = 0
        depth[task] += line.endswith("{") - line.endswith("}")
        assert depth[task] >= 0, graph
    assert depth and sum(l.endswith("{") for l in graph) > 1, graph


def test_the_trace_cmd_style_script_extracts_every_record_as_pages(tmp_path):
    script = os.path.join(os.path.dirname(__file__), "..", "..", "mountpoint_scripts", "trace_cmd_record.sh")
    result = tracefs_sim("run", script, timeout=150, cwd=tmp_path, env=dict(os.environ, OUT=str(tmp_path)))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    show = section(out, "show")
    assert sum(" getuid-loop-" in l and l.endswith("sys_getuid()") for l in show) == 10
    extracted = {}
    for line in section(out, f"extract to {tmp_path}"):
        cpu, pages, data, read = re.match(r"^cpu(\d+): (\d+) pages, (\d+) bytes of events, (\d+) events read$",
                                          line).groups()
        extracted[int(cpu)] = (int(pages), int(data), int(read))
        assert (tmp_path / f"trace.dat.cpu{cpu}").stat().st_size == int(pages) * 4096
    for cpu, (pages, data, read) in extracted.items():
        on_cpu = sum(f"[{cpu:03d}]" in l for l in show)
        assert read == on_cpu and (pages > 0) == (on_cpu > 0) and (data > 0) == (on_cpu > 0)
    assert section(out, "left in the buffers") == ["0"]
