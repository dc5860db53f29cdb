"""Synthetic events (trace_events_synth.c) through synthetic_events and dynamic_events over
fakes: the grammar and its errors (errno, error_log text and caret as Linux 6.1 gives them,
captured with /work/shared/tools/real-tracefs), read-back in both files, events/synthetic/...
with 6.1's format, the guest's entry, removal with `!`/`-:` and EBUSY, O_TRUNC, and the text of
a record.  The guest's trace_synth(): tests/probes/test_synth_guest.py."""

from __future__ import annotations

import errno
import re
import struct

import pytest

from kprobe_fakes import FakeKprobeEngine, KprobeMachine
from tracefs_sim.fs import build_tree
from tracefs_sim.trace.core import TraceCore

WAKEUP = b"wakeup_latency u64 lat; pid_t pid; int prio; char comm[16]\n"


class Setup:
    def __init__(self):
        self.machine = KprobeMachine()
        self.core = TraceCore(self.machine, ftrace_sites=None, kprobe_engine=FakeKprobeEngine(self.machine))
        self.tree = build_tree(self.core)
        self.guest = self.core.guest.synth_events

    def read(self, path) -> bytes:
        return self.tree.walk(path).read()

    def write(self, path, data: bytes) -> None:
        self.tree.walk(path).write(data)

    def errno_of(self, path: str, command: str) -> int:
        try:
            self.write(path, command.encode() + b"\n")
        except OSError as e:
            return e.errno
        return 0

    def log(self) -> list[str]:
        return re.sub(r"^\[ *\d+\.\d+\] ", "", self.read("error_log").decode(), flags=re.M).splitlines()

    def state(self):
        return (self.read("synthetic_events"), self.read("dynamic_events"), self.read("available_events"),
                dict(self.guest.entries))


@pytest.fixture
def s():
    return Setup()


def test_read_back_in_both_files(s):
    s.write("synthetic_events", WAKEUP)
    s.write("synthetic_events", b"dynstr char name[]; unsigned int x; s8 a; bool b; long l; unsigned long ul; "
                                b"gfp_t g; u16 h\n")
    s.write("dynamic_events", b"s:synthetic/foo u32 a; char b[8]\ns:bar u64 x\n")
    s.write("synthetic_events", b"y u64 a u64 b\ny6 char a[]; char b[0]; char c[2]\ny7 long[] st\n")
    s.write("dynamic_events", b"s:b   u64 a ;  u32 b\ns:c u64 a;u64 b;\ns:d\tu64 a\n")
    assert s.read("synthetic_events").decode() == (
        "wakeup_latency\tu64 lat; pid_t pid; int prio; char[16] comm\n"
        "dynstr\tchar[] name; unsigned int x; s8 a; bool b; long l; unsigned long ul; gfp_t g; u16 h\n"
        "foo\tu32 a; char[8] b\n"
        "bar\tu64 x\n"
        "y\tu64 a; u64 b\n"
        "y6\tchar[] a; char[0] b; char[2] c\n"
        "y7\tlong[] st\n"
        "b\tu64 a; u32 b\n"
        "c\tu64 a; u64 b\n"
        "d\tu64 a\n")
    assert s.read("dynamic_events").decode().splitlines()[:2] == [
        "s:synthetic/wakeup_latency\tu64 lat; pid_t pid; int prio; char[16] comm",
        "s:synthetic/dynstr\tchar[] name; unsigned int x; s8 a; bool b; long l; unsigned long ul; gfp_t g; u16 h"]


def _fields(fmt: bytes) -> list[str]:
    return fmt.decode().split("common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")[1].splitlines()


def test_formats_as_linux(s):
    s.write("synthetic_events", WAKEUP + b"y2 char x[16]; char y[20]; char z[]\ny6 char a[]; char b[0]; char c[2]\n"
            b"y7 long[] st\ndynstr char name[]; unsigned int x; s8 a; bool b; long l; unsigned long ul; gfp_t g; "
            b"u16 h\n")
    assert _fields(s.read("events/synthetic/wakeup_latency/format")) == [
        "\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;",
        "\tfield:pid_t pid;\toffset:16;\tsize:4;\tsigned:1;",
        "\tfield:int prio;\toffset:24;\tsize:4;\tsigned:1;",
        "\tfield:char comm[];\toffset:32;\tsize:16;\tsigned:1;",
        "",
        'print fmt: "lat=%llu, pid=%d, prio=%d, comm=%s", REC->lat, REC->pid, REC->prio, REC->comm']
    assert _fields(s.read("events/synthetic/y2/format"))[:3] == [
        "\tfield:char x[];\toffset:8;\tsize:16;\tsigned:1;",
        "\tfield:char y[];\toffset:264;\tsize:20;\tsigned:1;",
        "\tfield:__data_loc char[] z;\toffset:520;\tsize:8;\tsigned:1;"]
    assert _fields(s.read("events/synthetic/y6/format")) == [
        "\tfield:__data_loc char[] a;\toffset:8;\tsize:8;\tsigned:1;",
        "\tfield:__data_loc char[0] b;\toffset:16;\tsize:8;\tsigned:1;",
        "\tfield:char c[];\toffset:24;\tsize:2;\tsigned:1;",
        "",
        'print fmt: "a=%s, b=%s, c=%s", __get_str(a), __get_str(b), REC->c']
    assert _fields(s.read("events/synthetic/y7/format"))[-1] == 'print fmt: "st=%s", __get_stacktrace(st)'
    assert _fields(s.read("events/synthetic/dynstr/format"))[-1] == (
        'print fmt: "name=%s, x=%u, a=%d, b=%d, l=%ld, ul=%lu, g=%x, h=%u", __get_str(name), REC->x, REC->a, '
        'REC->b, REC->l, REC->ul, REC->g, REC->h')
    assert [line.split("\t")[2] for line in _fields(s.read("events/synthetic/dynstr/format"))[:8]] == [
        "offset:8;", "offset:16;", "offset:24;", "offset:32;", "offset:40;", "offset:48;", "offset:56;",
        "offset:64;"]
    assert sorted(s.tree.walk("events/synthetic/wakeup_latency").children) == [
        "enable", "filter", "format", "hist", "id", "trigger"]


def test_guest_entry_and_enabling(s):
    s.write("synthetic_events", WAKEUP + b"y6 char a[]; char b[2]; long[] st\n")
    ev = s.core.registry.get("synthetic", "wakeup_latency")
    entries = list(s.guest.entries.values())
    assert entries[0] == {"id": ev.id, "fields": [(8, 0), (4, 0), (4, 0), (16, 1)], "n_u64": 35, "slots": 0}
    assert entries[1]["fields"] == [(8, 2), (2, 1), (8, 3)] and entries[1]["n_u64"] == 34
    s.write("events/synthetic/wakeup_latency/enable", b"1")
    assert entries[0]["slots"] == 1
    assert s.errno_of("synthetic_events", "!wakeup_latency") == errno.EBUSY
    assert s.errno_of("dynamic_events", "-:wakeup_latency") == errno.EBUSY
    with pytest.raises(OSError) as e:
        s.tree.walk("synthetic_events").truncate()
    assert e.value.errno == errno.EBUSY
    s.write("events/synthetic/wakeup_latency/enable", b"0")
    assert s.errno_of("synthetic_events", "!wakeup_latency") == 0
    assert s.errno_of("synthetic_events", "!nosuch") == errno.ENOENT
    assert s.core.registry.get("synthetic", "wakeup_latency") is None and len(s.guest.entries) == 1


def test_removal_forms(s):
    s.write("synthetic_events", b"y6 u64 a\ny7 u64 b\nb u64 c\nc u64 d\n")
    assert s.errno_of("synthetic_events", "!y6 u64 a") == 0
    assert s.errno_of("dynamic_events", "-:synthetic/y6 u64 a") == errno.ENOENT
    assert s.errno_of("dynamic_events", "-:y7 foo") == 0
    assert s.errno_of("dynamic_events", "!b") == errno.EINVAL
    assert s.errno_of("dynamic_events", "-:other/c") == errno.ENOENT
    assert s.read("synthetic_events") == b"b\tu64 c\nc\tu64 d\n"
    s.tree.walk("synthetic_events").truncate()
    s.write("synthetic_events", b"y5 u64 a\n")
    assert s.read("synthetic_events") == b"y5\tu64 a\n"


def test_a_synthetic_event_in_use_by_an_action_stays(s):
    s.write("synthetic_events", b"ts0 u64 a\n")
    s.core.synth.find("ts0").ref += 1  # what a histogram's trace() action holds
    assert s.errno_of("synthetic_events", "!ts0") == errno.EBUSY
    s.core.synth.find("ts0").ref -= 1
    assert s.errno_of("synthetic_events", "!ts0") == 0


@pytest.mark.parametrize("path, command, err, log", [
    ("synthetic_events", "x u64", errno.EINVAL,
     ["synthetic_events: error: Command must be of the form: <name> field[;field] ...", "  Command: x u64",
      "           ^"]),
    ("synthetic_events", "1x u64 a", errno.EINVAL,
     ["synthetic_events: error: Illegal name", "  Command: 1x u64 a", "           ^"]),
    ("synthetic_events", "y u64 1a", errno.EINVAL,
     ["synthetic_events: error: Illegal name", "  Command: y u64 1a", "                 ^"]),
    ("synthetic_events", "y foo a", errno.EINVAL,
     ["synthetic_events: error: Invalid type", "  Command: y foo a", "             ^"]),
    ("synthetic_events", "y u64 a[2]", errno.EINVAL,
     ["synthetic_events: error: Invalid type", "  Command: y u64 a[2]", "             ^"]),
    ("synthetic_events", "y4 u64 a b", errno.EINVAL,
     ["synthetic_events: error: Invalid field", "  Command: y4 u64 a b", "                    ^"]),
    ("synthetic_events", "y8 u64 a[]", errno.EINVAL,
     ["synthetic_events: error: Invalid type", "  Command: y8 u64 a[]", "              ^"]),
    ("synthetic_events", "y9 unsigned long long a", errno.EINVAL,
     ["synthetic_events: error: Invalid field", "  Command: y9 unsigned long long a",
      "                                 ^"]),
    ("synthetic_events", "y unsigned a", errno.EINVAL,
     ["synthetic_events: error: Incomplete type", "  Command: y unsigned a", "             ^"]),
    ("synthetic_events", "y char a[999]", errno.EINVAL,
     ["synthetic_events: error: Invalid array specification", "  Command: y char a[999]", "                  ^"]),
    ("synthetic_events", "y char a[x]", errno.EINVAL,
     ["synthetic_events: error: Invalid array specification", "  Command: y char a[x]", "                  ^"]),
    ("dynamic_events", "s:", errno.EINVAL,
     ["synthetic_events: error: Command must be of the form: <name> field[;field] ...", "  Command: s:",
      "           ^"]),
    ("dynamic_events", "s: u64 a", errno.EINVAL,
     ["synthetic_events: error: Command must be of the form: <name> field[;field] ...", "  Command: s: u64 a",
      "           ^"]),
    ("dynamic_events", "s:synthetic/ u64 a", errno.EINVAL,
     ["synthetic_events: error: Command must be of the form: <name> field[;field] ...",
      "  Command: s:synthetic/ u64 a", "           ^"]),
    ("dynamic_events", "s:1b u64 a", errno.EINVAL,
     ["synthetic_events: error: Illegal name", "  Command: s:1b u64 a", "             ^"]),
    ("dynamic_events", "s:/b u64 a", errno.EINVAL,
     ["synthetic_events: error: Command must be of the form: s or -:[synthetic/]<name> field[;field] ...",
      "  Command: s:/b u64 a", "           ^"]),
])
def test_bad_commands_as_linux(s, path, command, err, log):
    before = s.state()
    assert s.errno_of(path, command) == err
    assert s.log() == log
    assert s.state() == before


def test_an_existing_name(s):
    s.write("synthetic_events", b"foo u64 a\n")
    assert s.errno_of("synthetic_events", "foo u64 a") == errno.EEXIST
    assert s.log() == ["synthetic_events: error: Event already exists", "  Command: foo u64 a", "           ^"]


def test_record_text(s):
    s.write("synthetic_events", WAKEUP + b"d char n[]; gfp_t g; s8 x\n")
    ev = s.core.registry.get("synthetic", "wakeup_latency")
    comm = b"sleep".ljust(256, b"\0")
    payload = struct.pack("<HBBi", ev.id, 0, 0, 7) + struct.pack("<Qqq", 1234, 42, -5) + comm
    assert ev.body(payload, False, lambda a: None) == b"wakeup_latency: lat=1234 pid=42 prio=-5 comm=sleep\n"
    assert ev.body(payload, True, lambda a: None) == (
        b"wakeup_latency: %llu lat=1234 %d pid=42 %d prio=-5 %s comm=sleep\n")
    d = s.core.registry.get("synthetic", "d")
    payload = struct.pack("<HBBi", d.id, 0, 0, 7) + struct.pack("<IIQQ", 32 | 4 << 16, 0, 0x400cc0, 0xFF) + b"abc\0"
    # print_synth_event() prints the flags after the field's separator, as 6.1 does
    assert d.body(payload, False, lambda a: None) == b"d: n=abc g=400cc0  (0x400cc0)x=-1\n"


def test_soft_mode_and_as_an_enable_event_target(s):
    """6.1 (real-tracefs): a trigger on a synthetic event holds it in soft mode (0*); so does an
    enable_event whose target it is, the guest given its soft_off word (its id) to flip; 1* once
    flipped; the event in use is EBUSY to remove."""
    s.write("synthetic_events", WAKEUP)
    synth = s.core.registry.get("synthetic", "wakeup_latency")
    triggers = s.core.guest.triggers
    s.write("events/synthetic/wakeup_latency/trigger", b"hist:keys=pid")
    assert s.read("events/synthetic/wakeup_latency/enable") == b"0*\n"
    assert triggers.dyn_soft_disabled(synth.id, 0)
    s.write("events/sched/sched_wakeup/trigger", b"enable_event:synthetic:wakeup_latency:1")
    assert s.read("events/sched/sched_wakeup/trigger") == b"enable_event:synthetic:wakeup_latency:count=1\n"
    (t,) = [t for t in triggers.table if t.cmd == "enable_event"]
    assert (t.target_id, t.target_dyn) == (synth.id, True)
    triggers.set_dyn_soft_disabled(synth.id, 0, False)       # as the guest's trigger does
    assert s.read("events/synthetic/wakeup_latency/enable") == b"1*\n"
    assert s.errno_of("synthetic_events", "!wakeup_latency") == errno.EBUSY
    s.write("events/sched/sched_wakeup/trigger", b"!enable_event:synthetic:wakeup_latency")
    s.write("events/synthetic/wakeup_latency/trigger", b"!hist:keys=pid")
    assert s.read("events/synthetic/wakeup_latency/enable") == b"1\n"     # it fired: it stays on
    s.write("events/synthetic/wakeup_latency/enable", b"0")
    assert s.errno_of("synthetic_events", "!wakeup_latency") == 0
