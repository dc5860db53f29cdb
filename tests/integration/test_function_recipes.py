"""The function tracer recipes of mountpoint_scripts/ run as written in `tracefs-sim run`, and
the function tracers' files driven with echo/cat through a mount, checked against what Linux
6.1 answers."""

import os
import re

import pytest
from simtest import REPO, sh, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SCRIPTS = REPO / "mountpoint_scripts"
CONTEXT = r"^ {0,16}\S.{0,15}-\d+ +\[\d{3}\] [.dDbXnNphHsSzZ0-9]{5} +\d+\.\d{6}: "
# A duration column: overhead mark, usecs, " us ", padding, "|  ".
DURATION = r"[ +!#*@$] [ \d.]{1,8} us +\|  "


def run_recipe(name: str) -> str:
    result = tracefs_sim("run", str(SCRIPTS / name), timeout=180)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_function_vfs_read_recipe():
    out = run_recipe("function_vfs_read.sh")
    lines = out.splitlines()
    assert lines[0] == "# tracer: function"
    records = [line for line in lines if not line.startswith("#")]
    assert records, out
    for line in records:
        # (its loader's pread64 of the libraries too, as on Linux)
        assert re.match(CONTEXT + r"vfs_read <-ksys_p?read(64)?$", line), line


def test_function_graph_vfs_read_recipe():
    out = run_recipe("function_graph_vfs_read.sh")
    lines = out.splitlines()
    assert lines[:4] == ["# tracer: function_graph", "#", "# CPU  DURATION                  FUNCTION CALLS",
                         "# |     |   |                     |   |   |   |"], out
    body = lines[4:]
    assert body and re.match(r"^ \d\)               \|  vfs_read\(\) \{$", body[0]), out
    # Another task's vfs_read on the same CPU comes after Linux's switch marker (verif_pid):
    # a dashed line, " N)  prev-PID  =>  next-PID ", a dashed line and a blank line.
    # Each task's calls nest on their own; each CPU's lines are of the task last switched to
    # there (before the first switch marker, of a task not named yet: one per CPU).
    depth_of: dict[object, int] = {}
    task_on: dict[str, object] = {}
    for line in body:
        if line in (" " + "-" * 42, ""):
            continue
        cpu = line[:3]
        switch = re.match(r"^ \d\) +(\S+) +=> +(\S+) +$", line)
        if switch:
            depth_of.setdefault(switch.group(1), depth_of.pop(("unnamed", cpu), 0))
            task_on[cpu] = switch.group(2)
            continue
        task = task_on.get(cpu, ("unnamed", cpu))
        depth = depth_of.get(task, 0)
        match = re.match(r"^ \d\) (?:              \|  |" + DURATION + r")( *)(.*)$", line)
        assert match, line
        indent, text = len(match.group(1)), match.group(2)
        if text.endswith("() {"):
            assert indent == 2 * depth, line
            depth += 1
        elif text == "}":
            depth -= 1
            assert indent == 2 * depth, line
        else:
            assert text.endswith("();") and indent == 2 * depth, line
        depth_of[task] = depth


def test_getuid_function_count_recipe():
    out = run_recipe("getuid_function_count.sh")
    lines = out.splitlines()
    assert lines[lines.index("== __do_sys_getuid calls recorded:") + 1] == "36", out
    first = lines[lines.index("== the first of them:") + 1]
    assert re.match(CONTEXT + r"__do_sys_getuid <-\w+$", first), first


def test_filter_files_through_the_mount(mounted):
    """echo/cat on the real files: the answers of Linux 6.1 (g_errors.out and a real-kernel
    session) for names, globs, append, removal and bad input."""
    def run(script):
        return sh(mounted, script)

    assert run("cat set_ftrace_filter").stdout == "#### all functions enabled ####\n"
    assert run("cat set_ftrace_notrace").stdout == "#### no functions disabled ####\n"
    assert run("cat set_ftrace_pid").stdout == "no pid\n"
    assert run("cat available_tracers").stdout == "blk function_graph function nop\n"
    functions = run("cat available_filter_functions").stdout.splitlines()
    assert "vfs_read" in functions and "__do_sys_getuid" in functions
    assert run("cat dyn_ftrace_total_info").stdout.startswith(f"{len(functions)} pages:")
    bad = run("echo nosuchfunc > set_ftrace_filter")
    assert bad.returncode == 1 and "Invalid argument" in bad.stderr
    assert run("echo vfs_read > set_ftrace_filter; echo 'vfs_rea?' >> set_ftrace_filter; cat set_ftrace_filter"
               ).stdout == "vfs_read\n"
    assert run("echo 'nosuch*' >> set_ftrace_filter").returncode == 1
    assert run("echo vfs_read:traceoff >> set_ftrace_filter").returncode == 0   # a command: listed after the names
    assert run("cat set_ftrace_filter").stdout == "vfs_read\nvfs_read:traceoff:unlimited\n"
    assert run("echo '!vfs_read:traceoff' >> set_ftrace_filter; cat set_ftrace_filter").stdout == "vfs_read\n"
    assert run("echo ksys_read >> set_ftrace_filter; echo '!vfs_read' >> set_ftrace_filter; cat set_ftrace_filter"
               ).stdout == "ksys_read\n"
    assert run("echo 'vfs_*' > set_ftrace_filter; cat set_ftrace_filter").stdout.splitlines() == [
        f for f in functions if f.startswith("vfs_")]
    assert run("echo function > current_tracer; cat enabled_functions").stdout.splitlines()[0].startswith("vfs_")
    assert run("echo function_graph > current_tracer; cat current_tracer").stdout == "function_graph\n"
    assert run("echo nop > current_tracer; cat enabled_functions").stdout == ""
    assert run("echo > set_ftrace_filter; cat set_ftrace_filter").stdout == "#### all functions enabled ####\n"
    assert run("echo -1 > max_graph_depth").returncode == 1
    assert run("echo 3 > max_graph_depth; cat max_graph_depth; echo 0 > max_graph_depth").stdout == "3\n"
    assert run("mkdir instances/foo; cat instances/foo/available_tracers; ls instances/foo | grep ftrace;"
               " rmdir instances/foo").stdout == ("function nop\nset_ftrace_filter\nset_ftrace_notrace\n"
                                                  "set_ftrace_notrace_pid\nset_ftrace_pid\n")


def test_filter_files_parse_a_token_per_write_and_change_at_close(mounted):
    """What a C writer and the shell see, as Linux 6.1 answered them: one token per write(),
    a token split over writes, the working copy becoming the filter when the file is closed
    (another reader sees the old one until then; a failed `echo nosuch >` leaves it empty),
    `:mod:` entries kept for a module not loaded, the graph files' stricter `!`."""
    def run(script):
        return sh(mounted, script)

    path = os.path.join(mounted, "set_ftrace_filter")
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        assert os.write(fd, b"vfs_read ksys_read\n") == 9            # vfs_read, and its newline's space
        assert os.write(fd, b"vfs_") == 4 and os.write(fd, b"write\n") == 6
        assert run("cat set_ftrace_filter").stdout == "#### all functions enabled ####\n"
    finally:
        os.close(fd)
    assert run("cat set_ftrace_filter").stdout == "vfs_read\nvfs_write\n"
    fd = os.open(path, os.O_RDWR)
    try:
        assert os.write(fd, b"ksys_read") == 9                       # unfinished: applied at close
        assert os.pread(fd, 4096, 0) == b"vfs_read\nvfs_write\n"
    finally:
        os.close(fd)
    assert run("cat set_ftrace_filter").stdout.splitlines() == ["vfs_read", "vfs_write", "ksys_read"]
    bad = run("echo nosuch > set_ftrace_filter; cat set_ftrace_filter")
    assert "Invalid argument" in bad.stderr and bad.stdout == "#### all functions enabled ####\n"
    assert run("echo 'vfs\\_read' > set_ftrace_filter; cat set_ftrace_filter").stdout == "vfs_read\n"
    assert run("printf ksys_read >> set_ftrace_filter; cat set_ftrace_filter").stdout == "vfs_read\nksys_read\n"
    # :mod: with no module loaded: kept, listed, and the filter then traces nothing
    assert run("echo ':mod:nosuch' > set_ftrace_filter; echo 'vfs_read:mod:nosuch' >> set_ftrace_filter;"
               " cat set_ftrace_filter").stdout == "vfs_read:mod:nosuch\n:mod:nosuch\n"
    assert run("echo function > current_tracer; cat enabled_functions; echo nop > current_tracer").stdout == ""
    assert run("echo '!*:mod:nosuch' >> set_ftrace_filter; cat set_ftrace_filter").stdout == (
        "#### all functions enabled ####\n")
    assert run("echo '!:mod:nosuch' >> set_ftrace_filter").returncode == 1
    # set_graph_function: `!` of a function it does not hold fails
    assert run("echo 'vfs_read ksys_read' > set_graph_function").returncode == 0
    assert run("echo '!vfs_write' >> set_graph_function").returncode == 1
    assert sorted(run("cat set_graph_function").stdout.splitlines()) == ["ksys_read", "vfs_read"]
    assert run("echo nosuch > set_graph_function; cat set_graph_function").stdout == (
        "#### all functions enabled ####\n")


FUNC_NO_REPEATS = """\
cd /sys/kernel/tracing
echo 'read_zero do_exit' > set_ftrace_filter
echo 1 > options/func-no-repeats
echo function > current_tracer
grep func-no-repeats trace_options
tracefs-sim exec dd if=/dev/zero of=/dev/null bs=1 count=20 2>/dev/null
echo 0 > tracing_on
echo '== trace'
grep ' dd-' trace
echo '== format'
cat events/ftrace/func_repeats/format
"""


def test_func_no_repeats_through_a_session(tmp_path):
    """options/func-no-repeats as Linux 6.1 prints it: dd's 20 reads of /dev/zero are one
    read_zero line, then `(repeats: 19, last_ts: ...)` when do_exit comes."""
    script = tmp_path / "repeats.sh"
    script.write_text(FUNC_NO_REPEATS)
    # No background tasks: one runnable task per CPU, so dd is never moved to the other CPU
    # mid-loop, which would split its repeats in two.
    result = tracefs_sim("run", "--workload", "none", str(script), timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "func-no-repeats"
    trace = lines[lines.index("== trace") + 1:lines.index("== format")]
    assert len(trace) == 3, trace
    assert re.match(CONTEXT + r"read_zero <-vfs_read$", trace[0]), trace
    match = re.match(CONTEXT + r"read_zero <-vfs_read \(repeats: 19, last_ts: +"
                     r"(\d+\.\d{6})\)$", trace[1])
    assert match, trace
    stamps = [float(re.search(r"(\d+\.\d{6}): ", line).group(1)) for line in trace]
    assert stamps[0] <= float(match.group(1)) <= stamps[1] <= stamps[2]
    assert re.match(CONTEXT + r"do_exit <-do_group_exit$", trace[2]), trace   # exit_group, as 6.1
    assert "\tfield:u16 count;\toffset:24;\tsize:2;\tsigned:0;" in lines


def test_stack_tracer_recipe():
    """The deepest stack while dd runs: stack_max_size is the first frame's depth, each frame's
    size the difference to the next one's."""
    lines = run_recipe("stack_tracer.sh").splitlines()
    size = int(lines[0])
    match = re.fullmatch(r"        Depth    Size   Location    \((\d+) entries\)", lines[1])
    assert match and lines[2] == "        -----    ----   --------", lines
    # (a compiler's clone has its suffixes, as in 6.1: link_path_walk.part.0.constprop.0)
    rows = [re.fullmatch(r" *(\d+)\) +(\d+) +(\d+)   ([\w.]+)\+0x([0-9a-f]+)/0x[0-9a-f]+", line) for line in lines[3:]]
    assert len(rows) == int(match.group(1)) > 3 and all(rows), lines
    assert [int(row.group(1)) for row in rows] == list(range(len(rows)))
    depths = [int(row.group(2)) for row in rows]
    assert depths[0] == size and depths == sorted(depths, reverse=True)
    assert [int(row.group(3)) for row in rows] == [a - b for a, b in zip(depths, depths[1:] + [0])]
    assert rows[0].group(5) == "5"   # measured at the function's entry: its site's return
