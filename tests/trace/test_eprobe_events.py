"""Eprobes (trace_eprobe.c) through dynamic_events over fakes: the command grammar and its
errors (errno, error_log text and caret as Linux 6.1 gives them, captured with
/work/shared/tools/real-tracefs), read-back, events/eprobes/... and its format, removal and
EBUSY, and what enabling one does to the attached event (soft mode, a guest trigger per trace
array).  The records the guest writes: tests/probes/test_eprobe_guest.py."""

from __future__ import annotations

import errno
import re

import pytest

from kprobe_fakes import FakeKprobeEngine, KprobeMachine
from tracefs_sim.fs import build_tree
from tracefs_sim.probes.kprobes.guest import FIELD_STATIC_STRING, LOAD_COMM, LOAD_FIELD, ST_RAW, ST_STRING
from tracefs_sim.trace.core import TraceCore

SWITCH = ("e:myep sched.sched_switch prev=$prev_comm:string next=$next_comm:string pp=$prev_pid "
          "ns=$next_comm cm=$comm cs=$comm:string st=$prev_state:x8 off=+0($prev_comm):u32")


class Setup:
    def __init__(self):
        self.machine = KprobeMachine()
        self.engine = FakeKprobeEngine(self.machine)
        self.core = TraceCore(self.machine, ftrace_sites=None, kprobe_engine=self.engine)
        self.tree = build_tree(self.core)

    def read(self, path) -> bytes:
        return self.tree.walk(path).read()

    def write(self, path, data: bytes) -> None:
        self.tree.walk(path).write(data)

    def errno_of(self, command: str) -> int:
        try:
            self.write("dynamic_events", command.encode() + b"\n")
        except OSError as e:
            return e.errno
        return 0

    def log(self) -> list[str]:
        return re.sub(r"^\[ *\d+\.\d+\] ", "", self.read("error_log").decode(), flags=re.M).splitlines()

    def state(self):
        return (self.read("dynamic_events"), self.read("available_events"), sorted(self.tree.walk("events").children),
                list(self.engine.programs), list(self.core.guest.triggers.table))


@pytest.fixture
def s():
    return Setup()


def test_read_back_and_format_as_linux(s):
    s.write("dynamic_events", SWITCH.encode() + b"\n")
    s.write("dynamic_events", b"e:x/y sched.sched_waking comm=$comm:string pid=$pid\n")
    s.write("dynamic_events", b"e sched.sched_wakeup\n")
    assert s.read("dynamic_events").decode() == (
        "e:eprobes/myep sched.sched_switch prev=$prev_comm:string next=$next_comm:string pp=$prev_pid "
        "ns=$next_comm cm=$comm cs=$comm:string st=$prev_state:x8 off=+0($prev_comm):u32\n"
        "e:x/y sched.sched_waking comm=$comm:string pid=$pid\n"
        "e:eprobes/sched_wakeup sched.sched_wakeup\n")
    fmt = s.read("events/eprobes/myep/format").decode()
    assert fmt.split("format:\n")[1] == (
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
        "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:__data_loc char[] prev;\toffset:8;\tsize:4;\tsigned:1;\n"
        "\tfield:__data_loc char[] next;\toffset:12;\tsize:4;\tsigned:1;\n"
        "\tfield:u64 pp;\toffset:16;\tsize:8;\tsigned:0;\n"
        "\tfield:u64 ns;\toffset:24;\tsize:8;\tsigned:0;\n"
        "\tfield:u64 cm;\toffset:32;\tsize:8;\tsigned:0;\n"
        "\tfield:__data_loc char[] cs;\toffset:40;\tsize:4;\tsigned:1;\n"
        "\tfield:u8 st;\toffset:44;\tsize:1;\tsigned:0;\n"
        "\tfield:u32 off;\toffset:45;\tsize:4;\tsigned:0;\n\n"
        'print fmt: " prev=\\"%s\\" next=\\"%s\\" pp=0x%Lx ns=0x%Lx cm=0x%Lx cs=\\"%s\\" st=0x%x off=%u", '
        "__get_str(prev), __get_str(next), REC->pp, REC->ns, REC->cm, __get_str(cs), REC->st, REC->off\n")
    assert sorted(s.tree.walk("events/eprobes/myep").children) == ["enable", "filter", "format", "hist", "id", "trigger"]
    assert "comm" in s.read("events/x/y/format").decode()


def test_fetch_programs_read_the_attached_record(s):
    s.write("dynamic_events", SWITCH.encode() + b"\n")
    switch = s.core.registry.get("sched", "sched_switch")
    offsets = {f.name: f.offset for f in switch.desc.fields}
    args = s.engine.programs[0].record.args
    prev, next_, pp, ns, cm, cs, st, off = args
    assert (prev.load, prev.store, prev.param, prev.imm) == (LOAD_FIELD, ST_STRING, offsets["prev_comm"],
                                                             FIELD_STATIC_STRING)
    assert (pp.load, pp.store, pp.param, pp.imm) == (LOAD_FIELD, ST_RAW, offsets["prev_pid"], 4 | 0x100)
    assert (cm.load, cm.store) == (LOAD_COMM, ST_RAW) and (cs.load, cs.store) == (LOAD_COMM, ST_STRING)
    assert st.size == 1 and off.derefs == () and off.store != ST_RAW


@pytest.mark.parametrize("command, err, log", [
    # (command, errno, error_log lines: message, command, caret) as 6.1 gives them
    ("e:zz sched.nosuch", errno.ENODEV,
     ["event_probe: error: Attached event does not exist", "  Command: e:zz sched.nosuch", "                ^"]),
    ("e:zz sched", errno.EINVAL,
     ["event_probe: error: This requires both group and event name to attach", "  Command: e:zz sched",
      "                ^"]),
    ("e:zz /sched", errno.EINVAL,
     ["event_probe: error: Group name is not specified", "  Command: e:zz /sched", "                ^",
      "event_probe: error: This requires both group and event name to attach", "  Command: e:zz /sched",
      "                ^"]),
    ("e: sched.sched_switch", errno.EINVAL,
     ["event_probe: error: Event name is not specified", "  Command: e: sched.sched_switch", "             ^"]),
    ("e:1x sched.sched_switch", errno.EINVAL,
     ["event_probe: error: Event name must follow the same rules as C identifiers",
      "  Command: e:1x sched.sched_switch", "             ^"]),
    ("e:zz ftrace.function", errno.ENODEV,
     ["event_probe: error: Attached event does not exist", "  Command: e:zz ftrace.function",
      "                ^"]),
    ("e:zz sched.sched_switch foo=$nofield", errno.ENOENT,
     ["event_probe: error: Attached event does not have this field",
      "  Command: e:zz sched.sched_switch foo=$nofield", "                                   ^"]),
    ("e:zz sched.sched_switch x=$common_pid", errno.ENOENT,
     ["event_probe: error: Attached event does not have this field",
      "  Command: e:zz sched.sched_switch x=$common_pid", "                                   ^"]),
    ("e:zz3 sched.sched_switch $retval", errno.ENOENT,
     ["event_probe: error: Attached event does not have this field",
      "  Command: e:zz3 sched.sched_switch $retval", "                                    ^"]),
    ("e:zz sched.sched_switch foo=%ax", errno.EINVAL,
     ["event_probe: error: Invalid $-variable specified", "  Command: e:zz sched.sched_switch foo=%ax",
      "                                       ^",
      "event_probe: error: Invalid fetch argument", "  Command: e:zz sched.sched_switch foo=%ax",
      "                                       ^"]),
    ("e:zz sched.sched_switch if", errno.EINVAL,
     ["event_probe: error: No filter rule after 'if'", "  Command: e:zz sched.sched_switch if",
      "                                      ^"]),
    ("e:zz sched.sched_switch if prev_pid >", errno.EINVAL,
     ["event filter parse error: error: Invalid value (did you forget quotes)?", "  Command: prev_pid >",
      "                      ^"]),
])
def test_bad_commands_as_linux(s, command, err, log):
    before = s.state()
    assert s.errno_of(command) == err
    assert s.log() == log
    assert s.state() == before


def test_kprobe_events_are_not_attachable_and_names_are_unique(s):
    s.write("dynamic_events", b"p:kp vfs_read\n")
    assert s.errno_of("e:zz2 kprobes.kp") == errno.ENODEV
    s.write("dynamic_events", b"e:myep sched.sched_switch\n")
    assert s.errno_of("e:myep sched.sched_waking") == errno.EEXIST
    assert s.log()[-3:] == ["event_probe: error: Given group/event name is already used by another event",
                            "  Command: e:myep sched.sched_waking", "           ^"]


def test_enable_soft_enables_the_attached_event_per_array(s):
    s.write("dynamic_events", SWITCH.encode() + b"\n")
    table = s.core.guest.triggers
    program = s.engine.programs[0]
    switch = s.core.registry.get("sched", "sched_switch")
    s.write("events/eprobes/myep/enable", b"1")
    assert s.read("events/sched/sched_switch/enable") == b"0*\n"
    assert [(t.event_id, t.cmd, t.slot, t.data, t.cond, t.preds) for t in table.table] == [
        (switch.id, "eprobe", 0, program.index, True, ())]
    assert program.slots == 1
    assert s.read("events/sched/sched_switch/trigger").startswith(b"# Available triggers:")  # not shown
    s.tree.walk("instances").make_child("foo")
    s.write("instances/foo/events/eprobes/myep/enable", b"1")
    assert s.read("instances/foo/events/sched/sched_switch/enable") == b"0*\n"
    assert [t.slot for t in table.table] == [0, 1] and program.slots == 3
    # enabled: neither removable nor releasable with the rest
    assert s.errno_of("-:myep") == errno.EBUSY
    with pytest.raises(OSError) as e:
        s.tree.walk("dynamic_events").truncate()
    assert e.value.errno == errno.EBUSY
    s.write("events/eprobes/myep/enable", b"0")
    s.write("instances/foo/events/eprobes/myep/enable", b"0")
    assert s.read("events/sched/sched_switch/enable") == b"0\n"
    assert table.table == [] and program.slots == 0
    assert s.errno_of("-:myep") == 0
    assert s.engine.programs == [] and s.read("dynamic_events") == b""
    assert s.core.registry.get("eprobes", "myep") is None


def test_a_filter_on_the_attached_event_goes_with_the_trigger(s):
    s.write("dynamic_events", b"e:zz sched.sched_switch a=$prev_pid if prev_pid == 0 && prev_comm ~ \"swap*\"\n")
    assert s.read("dynamic_events") == b"e:eprobes/zz sched.sched_switch a=$prev_pid\n"  # the filter not shown
    s.write("events/eprobes/zz/enable", b"1")
    (t,) = s.core.guest.triggers.table
    switch = s.core.registry.get("sched", "sched_switch")
    offsets = {f.name: f.offset for f in switch.desc.fields}
    assert [(p.kind, p.op, p.offset, p.value, p.string) for p in t.preds] == [
        ("num", "eq", offsets["prev_pid"], 0, b""), ("str", "front", offsets["prev_comm"], 0, b"swap")]
    s.write("events/eprobes/zz/enable", b"0")


def test_removal_matches_as_linux(s):
    s.write("dynamic_events", b"e:ww sched.sched_switch a=$prev_pid:u32 b=$next_pid\n")
    assert s.errno_of("-:ww sched/sched_waking") == errno.ENOENT
    assert s.errno_of("-:ww sched.sched_switch a=$prev_pid") == errno.ENOENT
    assert s.errno_of("-:ww sched/sched_switch a=$prev_pid:u32") == 0
    s.write("dynamic_events", b"e:ww sched.sched_switch\ne:x/y sched.sched_switch\n")
    assert s.errno_of("-:eprobes/") == 0
    assert s.read("dynamic_events") == b"e:x/y sched.sched_switch\n"


def test_triggers_on_the_eprobe_event_itself(s):
    """6.1 (real-tracefs): an eprobe event's trigger file takes every command; the first
    trigger holds the eprobe in soft mode, which attaches it (the attached event 0* too); the
    eprobe's program records in its slot with the trigger bit above it, soft-disabled there."""
    s.write("dynamic_events", b"e:ww sched.sched_switch a=$prev_pid:u32\n")
    ep = s.core.registry.get("eprobes", "ww")
    program = s.engine.programs[0]
    table = s.core.guest.triggers
    s.write("events/eprobes/ww/trigger", b"hist:keys=a")
    s.write("events/eprobes/ww/trigger", b"traceoff:1 if a == 0")
    assert s.read("events/eprobes/ww/trigger") == (b"traceoff:count=1 if a == 0\n"
                                                   b"hist:keys=a:vals=hitcount:sort=hitcount:size=2048 [active]\n")
    assert s.read("events/eprobes/ww/enable") == b"0*\n" and s.read("events/sched/sched_switch/enable") == b"0*\n"
    assert sorted((t.event_id, t.cmd) for t in table.table if t.event_id == ep.id) == [(ep.id, "hist"),
                                                                                       (ep.id, "traceoff")]
    assert program.slots == 1 | 1 << table.shift and table.dyn_soft_disabled(ep.id, 0)
    s.write("events/eprobes/ww/trigger", b"!traceoff")
    s.write("events/eprobes/ww/trigger", b"!hist:keys=a")
    assert s.read("events/eprobes/ww/enable") == b"0\n" and s.read("events/sched/sched_switch/enable") == b"0\n"
    assert table.table == [] and program.slots == 0 and not table.dyn_soft_disabled(ep.id, 0)
