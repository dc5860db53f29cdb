"""The eprobe and synthetic-event recipes of mountpoint_scripts/ run as written in
`tracefs-sim run`, through the mount with the shell's own echo and cat."""

import os
import re

import pytest
from simtest import REPO, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SCRIPTS = REPO / "mountpoint_scripts"
CONTEXT = r"^ {0,16}\S.{0,15}-\d+ +\[\d{3}\] [.dDbXnNphHsSzZ0-9]{5} +\d+\.\d{6}: "


def run_recipe(name: str) -> str:
    result = tracefs_sim("run", str(SCRIPTS / name), timeout=180)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_eprobe_on_sched_switch_keeps_the_two_comms():
    out = run_recipe("eprobe_sched_switch.sh")
    lines = out.splitlines()
    assert lines[0] == "e:eprobes/comms sched.sched_switch prev=$prev_comm:string next=$next_comm:string"
    assert "\tfield:__data_loc char[] prev;\toffset:8;\tsize:4;\tsigned:1;" in lines
    assert 'print fmt: " prev=\\"%s\\" next=\\"%s\\"", __get_str(prev), __get_str(next)' in lines
    assert "0*" in lines  # sched_switch in soft mode while the eprobe is on
    records = [l for l in lines if re.match(CONTEXT + r"comms: \(sched\.sched_switch\) prev=\"[^\"]+\" "
                                                      r"next=\"[^\"]+\"$", l)]
    assert len(records) == 5, out
    # each switch is from the task the line is of; a child of the script's bash that switched
    # out before its exec shows its later comm (saved_cmdlines keeps a pid's latest, as Linux)
    for line in records:
        task = re.match(r"^ *(.+?)-\d+ ", line).group(1)
        prev = re.search(r'prev="([^"]+)"', line).group(1)
        assert task == prev or (task == "<idle>" and prev.startswith("swapper/")) or prev == "bash", line
    assert lines[-1] != lines[0] and not any(l.startswith("e:") for l in lines[-2:])


def test_synthetic_event_recipe():
    out = run_recipe("synthetic_event.sh")
    lines = out.splitlines()
    assert lines[0] == "wakeup_latency\tu64 lat; pid_t pid; int prio; char[16] comm"
    assert "\tfield:char comm[];\toffset:32;\tsize:16;\tsigned:1;" in lines
    assert 'print fmt: "lat=%llu, pid=%d, prio=%d, comm=%s", REC->lat, REC->pid, REC->prio, REC->comm' in lines
    assert "s:synthetic/wakeup_latency\tu64 lat; pid_t pid; int prio; char[16] comm" in lines
    at = next(i for i, l in enumerate(lines) if l.endswith("synthetic_events: error: Invalid array specification"))
    command = "bad_one u64 lat; char name[999]"
    assert lines[at + 1:at + 3] == ["  Command: " + command, " " * (11 + command.index("name[999]")) + "^"]
    assert "wakeup_latency" not in "\n".join(lines[at + 3:])
