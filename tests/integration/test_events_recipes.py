"""The tracepoint recipes of mountpoint_scripts/ run as written in `tracefs-sim run`, against the
emulated kernel's real tracepoints; outputs compared with what Linux 6.1 prints."""

import os
import re

import pytest
from simtest import REPO, reference_section, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SCRIPTS = REPO / "mountpoint_scripts"
# One record line: task-pid, [cpu], 5 flag characters, seconds.micros, event name.
LINE = re.compile(r"^ {0,16}\S.{0,15}-\d+ +\[\d{3}\] [.dDbXnNphHsSzZ0-9]{5} +\d+\.\d{6}: \w+: ")


def run_recipe(name: str, *options: str, errors: list | None = None) -> str:
    """The recipe's output; its stderr goes to `errors` when given."""
    result = tracefs_sim("run", *options, str(SCRIPTS / name), timeout=120)
    assert result.returncode == 0, result.stderr
    if errors is not None:
        errors.append(result.stderr)
    return result.stdout


def section(output: str, title: str) -> str:
    """The lines after `== title` up to the next `== ` line."""
    start = output.index(f"== {title}")
    start = output.index("\n", start) + 1
    end = output.find("\n== ", start - 1)
    return output[start:] if end < 0 else output[start:end + 1]


def test_syscall_getuid_count():
    out = run_recipe("syscall_getuid_count.sh")
    assert section(out, "getuid() calls recorded").strip() == "36"
    (first,) = section(out, "the first of them").splitlines()
    assert LINE.match(first) is None      # syscall lines have no `name: ` prefix: print_syscall_enter
    assert re.match(r"^ +getuid-loop-\d+ +\[\d{3}\] [.d]\.\.[.0-9]\. +\d+\.\d{6}: sys_getuid\(\)$", first), first


def test_syscall_records_carry_preempt_depth_one_as_linux():
    """Linux 6.1 runs syscall tracepoints with preemption off: `...1.` (see the real kernel's
    `cat trace` after sys_enter_openat); the depth comes from the guest's common_preempt_count."""
    out = run_recipe("syscall_getuid_count.sh")
    (first,) = section(out, "the first of them").splitlines()
    assert "] ...1. " in first, first


def test_sched_switch_trace_pipe_streams():
    out = run_recipe("sched_switch_trace_pipe.sh")
    assert "== enabled: 1; set_event now lists:\nsched:sched_switch\n" in out
    lines = section(out, "the scheduler switching tasks").splitlines()
    assert len(lines) == 20
    for line in lines:
        assert LINE.match(line) and " sched_switch: prev_comm=" in line, line
        assert re.search(r" prev_state=\S+ ==> next_comm=.+ next_pid=\d+ next_prio=\d+$", line), line
    stamps = [float(line.split("]")[1].split()[1].rstrip(":")) for line in lines]
    assert stamps == sorted(stamps)      # merged across CPUs in time order
    assert out.endswith("== disabled: 0\n")


def test_sched_switch_filter():
    out = run_recipe("sched_switch_filter.sh")
    nothing = section(out, "a filter on a pid that does not exist")
    assert nothing == "prev_pid == 1234\n# entries-in-buffer/entries-written: 0/0   #P:2\n"
    kept = section(out, "a filter on the comm of a sleeping program").splitlines()
    assert kept[0] == 'prev_comm == "sleep"'
    header = reference_section("b_empty_trace", "cat trace").splitlines()
    assert kept[1:3] == header[:2] and kept[4:13] == header[3:12]
    records = kept[13:]
    assert records and all(" sched_switch: prev_comm=sleep prev_pid=" in r for r in records)
    assert kept[3] == f"# entries-in-buffer/entries-written: {len(records)}/{len(records)}   #P:2"
    assert all(LINE.match(r) and r.lstrip().startswith("sleep-") for r in records)
    bad = section(out, "a bad filter is refused")
    assert bad.startswith("prev_pid ==\n           ^\nparse_error: Invalid value (did you forget quotes)?\n")
    assert re.search(r"\[ *\d+\.\d{6}\] event filter parse error: error: Invalid value \(did you forget quotes\)\?\n"
                     r"  Command: prev_pid ==\n {23}\^\n", bad)
    assert section(out, "0 clears it") == "none\n"


def test_trace_pipe_stream():
    out = run_recipe("trace_pipe_stream.sh")
    assert "sched:sched_switch\n" in section(out, "events enabled")
    assert "raw_syscalls:sys_enter\n" in section(out, "events enabled")
    counts = {line.split()[1]: int(line.split()[0]) for line in section(out, "lines streamed").splitlines()}
    assert counts.get("sys_enter", 0) >= 200 and counts.get("sys_exit", 0) >= 200
    assert counts.get("sched_switch", 0) > 0
    for line in section(out, "a few of them").splitlines():
        assert LINE.match(line) and re.search(r" sys_enter: NR \d+ \(", line), line
    assert "entries: 0\n" in section(out, "what the buffer kept")


def test_instances_recipe():
    errors = []
    out = run_recipe("instances.sh", errors=errors)
    files = section(out, "instances/foo has its own control files").split()
    assert {"trace", "trace_pipe", "set_event", "events", "options", "per_cpu", "tracing_on"} <= set(files)
    assert section(out, "recorded in foo").strip() == "5"
    assert section(out, "and not at the top level").strip() == "0"
    assert "instances/foo" in errors[0] and "File exists" in errors[0]
    assert section(out, "removed; instances now") == ""


def test_trace_marker_recipe():
    errors = []
    out = run_recipe("trace_marker.sh", errors=errors)
    assert "write error: Invalid argument" in errors[0]
    lines = [l for l in out.splitlines() if not l.startswith("#")]
    marks = [l for l in lines if "tracing_mark_write:" in l]
    assert [m.split("tracing_mark_write: ")[1] for m in marks] == ["before the program", "after the program"]
    between = lines[lines.index(marks[0]) + 1:lines.index(marks[1])]
    assert all("sys_getuid()" in l for l in between)
    # the program's two, and the shell's own (bash calls getuid() as it looks for the command)
    assert sum(" getuid-loop-" in l for l in between) == 2
    assert all(re.match(r" +(getuid-loop|bash)-", l) for l in between), between
    # the markers are stamped with the writer's pid: the shell's, as the emulated kernel knows it
    (shell,) = {re.match(r" +bash-(\d+) ", l).group(1) for l in between if " bash-" in l}
    assert all(re.match(rf" +bash-{shell} ", m) for m in marks), marks
    assert all(re.match(r"^ +\S+-\d+ +\[000\] \.{5} +\d+\.\d{6}: tracing_mark_write: ", m) for m in marks)
