"""Eprobes on a running machine: the emulated kernel writes an eprobe's record where the event
it is attached to fires (kernel/trace_events_trigger.c + eprobe_trigger_func), with the values
of that event's record, whether or not the attached event records itself, in the trace arrays
that have the eprobe enabled only; the syscalls:* events too."""
import re

import pytest


LINE = re.compile(r"^\s*(\S+)-(\d+)\s+\[(\d+)\] (\S+)\s+([\d.]+): (\w+): (.*)$")


@pytest.fixture
def sim(traced):
    return traced(2, "default", 11)


def lines(core, tree, path="trace"):
    core.drain.drain_once()
    out = []
    for line in tree.walk(path).read().decode().splitlines():
        found = LINE.match(line)
        if found:
            out.append(found.groups())
    return out


def test_eprobe_records_the_attached_events_fields(sim):
    m, core, tree = sim
    tree.walk("dynamic_events").write(
        b"e:myep sched.sched_switch prev=$prev_comm:string pp=$prev_pid:s32 np=$next_pid st=$prev_state:x8 "
        b"cs=$comm:string off=+0($prev_comm):u32\n")
    tree.walk("events/sched/sched_switch/enable").write(b"1")
    tree.walk("events/eprobes/myep/enable").write(b"1")
    assert m.spawn(["sleep", "0.05"]).wait(30) == 0
    tree.walk("events/eprobes/myep/enable").write(b"0")
    got = lines(core, tree)
    switches = [g for g in got if g[5] == "sched_switch"]
    probes = [g for g in got if g[5] == "myep"]
    assert len(probes) == len(switches) > 3
    for sw, ep in zip(switches, probes):
        fields = dict(re.findall(r"(\w+)=(\S+)", sw[6]))
        assert ep[:3] == sw[:3]  # the same task and cpu
        # the eprobe writes from within the attached event: one more preemption level
        assert ep[3][:3] == sw[3][:3] and int(ep[3][3]) == int(sw[3][3]) + 1
        prev_comm = sw[6].split("prev_comm=", 1)[1].split(" prev_pid=", 1)[0]
        state = re.search(r" st=(0x[0-9a-f]+) ", ep[6]).group(1)  # prev_state's low byte (the event
        # prints it as letters)
        assert ep[6] == (f'(sched.sched_switch) prev="{prev_comm}" pp={fields["prev_pid"]} '
                         f'np={int(fields["next_pid"]):#x} st={state} cs="{prev_comm}" '
                         f'off={_first_word(prev_comm)}')
        assert fields["prev_state"] != "R" or state == "0x0"


def _first_word(comm: str) -> int:
    """The u32 at the start of a char[16] comm (NUL-padded)."""
    return int.from_bytes(comm.encode()[:4].ljust(4, bytes(1)), "little")


def test_eprobe_fires_with_the_attached_event_off_and_only_in_its_array(sim):
    m, core, tree = sim
    tree.walk("dynamic_events").write(b"e:op syscalls.sys_enter_open file=+0($filename):ustring\n")
    tree.walk("instances").make_child("foo")
    tree.walk("instances/foo/events/eprobes/op/enable").write(b"1")
    assert tree.walk("instances/foo/events/syscalls/sys_enter_open/enable").read() == b"0*\n"
    assert m.spawn(["cat", "/etc/passwd"], lambda data: None).wait(30) == 0
    tree.walk("instances/foo/events/eprobes/op/enable").write(b"0")
    got = lines(core, tree, "instances/foo/trace")
    assert [g[6] for g in got if g[0] == "cat"] == ['(syscalls.sys_enter_open) file="/etc/passwd"']
    assert all(g[5] == "op" for g in got)
    assert lines(core, tree) == []
    tree.walk("dynamic_events").write(b"-:op\n")


def test_eprobe_filter_on_the_attached_event_is_tested_in_the_guest(sim):
    m, core, tree = sim
    tree.walk("dynamic_events").write(b'e:idle sched.sched_switch next=$next_comm:string if prev_pid == 0\n')
    tree.walk("events/sched/sched_switch/enable").write(b"1")
    tree.walk("events/eprobes/idle/enable").write(b"1")
    assert m.spawn(["sleep", "0.05"]).wait(30) == 0
    tree.walk("events/eprobes/idle/enable").write(b"0")
    got = lines(core, tree)
    from_idle = [g for g in got if g[5] == "sched_switch" and " prev_pid=0 " in g[6]]
    probes = [g for g in got if g[5] == "idle"]
    assert len(probes) == len(from_idle) > 0
    assert len(probes) < len([g for g in got if g[5] == "sched_switch"])
    for sw, ep in zip(from_idle, probes):
        assert ep[6] == '(sched.sched_switch) next="%s"' % sw[6].split("next_comm=", 1)[1].split(" next_pid=")[0]
