"""The function profiler through the mount: function_profile_enabled and trace_stat/functionN
with echo/cat, counting in the emulated kernel the calls guest programs make."""

import os
import re

import pytest
from simtest import REPO, quiet, tracefs_sim  # noqa: F401 (quiet: a fixture)

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

HEADERS = ("  Function                               Hit    Time            Avg             s^2\n"
           "  --------                               ---    ----            ---             ---\n")
DURATION = r"\d+(\.\d{1,3})? us +"
LINE = re.compile(rf"  (\S.{{29}})  +(\d+)    {DURATION}    {DURATION}    {DURATION}")


def stats(run) -> dict[str, int]:
    """Every cpu's trace_stat/functionN: function -> hits, summed."""
    hits: dict[str, int] = {}
    for cpu in range(2):
        text = run(f"cat trace_stat/function{cpu}")
        assert text.startswith(HEADERS), text
        for line in text[len(HEADERS):].splitlines():
            m = LINE.fullmatch(line)
            assert m, line
            hits[m[1].strip()] = hits.get(m[1].strip(), 0) + int(m[2])
    return hits


def test_function_profiler_counts_in_the_kernel(quiet):
    run, guest = quiet
    assert run("cat function_profile_enabled; ls trace_stat") == "0\nfunction0\nfunction1\n"
    assert stats(run) == {}
    assert "Invalid argument" in run("echo abc > function_profile_enabled")

    # the top-level filter picks the functions, as the profiler shares global_ops' hash
    assert run("echo __do_sys_getuid > set_ftrace_filter; echo 1 > function_profile_enabled; "
               "cat function_profile_enabled") == "1\n"
    assert [line.split()[0] for line in run("cat enabled_functions").splitlines()] == ["__do_sys_getuid"]
    guest("getuid-loop", "3")
    assert stats(run) == {"__do_sys_getuid": 3}

    # off: the counts stay; on again (any non-zero value): they start over
    run("echo 0 > function_profile_enabled")
    guest("getuid-loop", "2")
    assert run("cat enabled_functions") == ""
    assert stats(run) == {"__do_sys_getuid": 3}
    run("echo 2 > function_profile_enabled")
    assert run("cat function_profile_enabled") == "1\n" and stats(run) == {}
    guest("getuid-loop", "2")
    assert stats(run) == {"__do_sys_getuid": 2}

    # one function graph user at a time, as 6.1's fgraph
    run("echo 0 > function_profile_enabled; echo function_graph > current_tracer")
    assert "Device or resource busy" in run("echo 1 > function_profile_enabled")
    assert run("cat function_profile_enabled") == "0\n"
    run("echo function > current_tracer; echo 1 > function_profile_enabled")
    assert "Device or resource busy" in run("echo function_graph > current_tracer")
    assert run("cat current_tracer; cat function_profile_enabled") == "nop\n1\n"
    run("echo 0 > function_profile_enabled")


def times(run) -> dict[str, float]:
    """Every cpu's trace_stat/functionN: function -> its time in us, summed."""
    found: dict[str, float] = {}
    for cpu in range(2):
        for m in re.finditer(r"^  (\S+) +\d+    ([\d.]+) us ", run(f"cat trace_stat/function{cpu}"), re.M):
            found[m[1]] = found.get(m[1], 0.0) + float(m[2])
    return found


def test_graph_time_and_sleep_time(quiet):
    """options/graph-time off: a function's time is its own, without its profiled callees'
    (ksys_read's without vfs_read's, which holds the 4 KiB copies); options/sleep-time off: it
    leaves out the time the task was switched out (a nanosleep's)."""
    run, guest = quiet
    assert run("cat options/graph-time options/sleep-time") == "1\n1\n"
    run("echo 'ksys_read vfs_read hrtimer_nanosleep' > set_ftrace_filter; echo 1 > function_profile_enabled")
    guest("dd", "if=/dev/zero", "of=/dev/null", "bs=4k", "count=50")
    guest("sleep", "0.2")
    on = times(run)
    run("echo 0 > function_profile_enabled; echo 0 > options/graph-time; echo 0 > options/sleep-time; "
        "echo 1 > function_profile_enabled")   # (starts over)
    guest("dd", "if=/dev/zero", "of=/dev/null", "bs=4k", "count=50")
    guest("sleep", "0.2")
    off = times(run)
    run("echo 0 > function_profile_enabled; echo 1 > options/graph-time; echo 1 > options/sleep-time; "
        "echo > set_ftrace_filter")
    assert on["ksys_read"] >= on["vfs_read"] and off["ksys_read"] < off["vfs_read"], (on, off)
    assert on["hrtimer_nanosleep"] >= 150000 and off["hrtimer_nanosleep"] < 20000, (on, off)


def test_function_profile_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "function_profile.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    hits: dict[str, int] = {}
    for cpu in range(2):
        at = lines.index(f"== the vfs functions by time, function{cpu}:")
        assert lines[at + 1:at + 3] == HEADERS.splitlines(), result.stdout
        for line in lines[at + 3:]:
            if line.startswith("=="):
                break
            m = LINE.fullmatch(line)
            assert m, line
            hits[m[1].strip()] = hits.get(m[1].strip(), 0) + int(m[2])
    # dd's 100 reads and 100 writes (the session's own shell and cat add some of their own)
    assert hits.get("vfs_read", 0) >= 100 and hits.get("vfs_write", 0) >= 100, result.stdout
    assert all(name.startswith("vfs_") for name in hits), result.stdout
