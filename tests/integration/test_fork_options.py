"""options/event-fork and options/function-fork through the mount, in `tracefs-sim run`, as
Linux 6.1 behaves (checked on the real kernel): both are general options (listed whatever the
tracer, in instances too); with one on, a task forked by a listed task joins set_event_pid
(set_ftrace_pid, and the notrace lists) and leaves it when freed; turning it off keeps the
lists.  set_event_pid keeps a sched_switch to or from a listed task and a wake-up of one.
The programs `tracefs-sim exec` starts are children of kthreadd in the emulated kernel,
so kthreadd is the listed parent here (the shell is, on a real machine)."""

import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SCRIPT = r"""
cd /sys/kernel/tracing
# Waits up to 5 s for a file to list N pids: `tracefs-sim exec` starts a Python client first.
pids_in() { for i in $(seq 100); do [ $(wc -w < $1) -eq $2 ] && return; sleep 0.05; done; }
echo "== options"; grep fork trace_options; ls options | grep fork
mkdir instances/f; echo "== instance"; grep fork instances/f/trace_options; ls instances/f/options | grep fork
echo "== event-fork"
echo 2 > set_event_pid; echo 2 > set_event_notrace_pid; echo 1 > options/event-fork
tracefs-sim exec sleep 1 & pids_in set_event_pid 2
cat set_event_pid; echo "-- notrace"; cat set_event_notrace_pid; wait; pids_in set_event_pid 1
echo "-- after"; cat set_event_pid
echo "== records"
echo > set_event_notrace_pid; echo > trace; echo 1 > events/sched/sched_process_exit/enable
tracefs-sim exec true; sleep 0.3; echo 0 > options/event-fork; tracefs-sim exec true; sleep 0.3
echo 0 > events/enable; grep -c 'sched_process_exit: comm=true' trace
echo "== function-fork"
echo 2 > set_ftrace_pid; echo 1 > options/function-fork
tracefs-sim exec sleep 1 & pids_in set_ftrace_pid 2
cat set_ftrace_pid; wait; pids_in set_ftrace_pid 1; echo "-- after"; cat set_ftrace_pid
echo "== bad"; echo 2 > options/event-fork || echo EINVAL
echo "== sched"
echo 0 > options/event-fork; echo 2 > set_event_pid; echo > trace
echo 1 > events/sched/sched_switch/enable; echo 1 > events/sched/sched_wakeup/enable
tracefs-sim exec true; sleep 0.3; echo 0 > events/enable
grep -v '^#' trace
"""


def section(out: str, title: str) -> list[str]:
    start = out.index(f"== {title}\n") + len(f"== {title}\n")
    end = out.find("\n== ", start - 1)
    return (out[start:] if end < 0 else out[start:end + 1]).split()


def test_fork_options_follow_children(tmp_path):
    script = tmp_path / "fork.sh"
    script.write_text(SCRIPT)
    result = tracefs_sim("run", str(script), timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert section(out, "options") == ["noevent-fork", "nofunction-fork", "event-fork", "function-fork"]
    assert section(out, "instance") == ["noevent-fork", "nofunction-fork", "event-fork", "function-fork"]
    listed = section(out, "event-fork")
    notrace_at = listed.index("--")
    pids, rest = listed[:notrace_at], listed[notrace_at + 1:]
    assert pids[0] == "2" and len(pids) == 2 and int(pids[1]) > 2      # kthreadd and the child
    assert rest[:3] == ["notrace", "2", pids[1]]
    assert rest[3:] == ["--", "after", "2"]                          # freed: gone again
    assert section(out, "records") == ["1"]     # only the exit of the child forked while on
    functions = section(out, "function-fork")
    assert functions[0] == "2" and len(functions[:functions.index("--")]) == 2
    assert functions[functions.index("--") + 1:] == ["after", "2"]
    assert "EINVAL" in section(out, "bad") or "Invalid argument" in result.stderr
    # set_event_pid keeps a switch to or from a listed task and the wake-up of one, whoever runs
    sched = out[out.index("== sched\n"):].splitlines()[1:]
    assert sched and all(re.search(r"(?:^\s*\S+-2 |\bpid=2 |next_pid=2 )", line) for line in sched)
    assert any(re.search(r"-0 .* sched_switch: .*next_pid=2 ", line) for line in sched)
    assert any(re.search(r"-(?!2 )\d+ .* sched_wakeup: comm=kthreadd pid=2 ", line) for line in sched)
