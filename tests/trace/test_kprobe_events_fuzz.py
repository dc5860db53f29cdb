"""Fuzzing kprobe_events and dynamic_events with random and near-valid commands: every
rejected command changes nothing, every accepted probe can be removed again, and nothing
written raises anything but OSError."""

from __future__ import annotations

import errno

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kprobe_fakes import FUNCTIONS
from test_kprobe_events import Setup

_NAMES = st.sampled_from(["myprobe", "x", "_a1", "sched_switch", "a" * 64, "1bad", "b-c", "", "e.f", "kprobes"])
_GROUPS = st.sampled_from(["", "kprobes/", "grp/", "sched/", "1g/", "/", "g-h/", "g.", "a" * 70 + "/"])
_SYMBOLS = st.sampled_from(sorted(FUNCTIONS) + ["nosuch", "jiffies", "mod:vfs_read", "linux_banner"])
_OFFSETS = st.sampled_from(["", "+0", "+5", "+3", "+0x20", "-1", "+4294967296", "%return", "+0%return", "%ret"])
_ADDRS = st.sampled_from(["0xffffffff81002000", "0xffffffff81002003", "0x0", "0x1000", "18446744071578853376"])
_FETCH = st.sampled_from([
    "%di", "%ax", "%zz", "%arg1", "$arg1", "$arg7", "$arg0", "$retval", "$comm", "$stack", "$stack3",
    "$stack99999", "@jiffies", "@nosuch", "@jiffies+8", "@0x1000", "+0($arg2)", "+8(+0(%si))", "-4(%sp)",
    "+0(", "\\1234", '\\"str"', '\\"open', "+0(+0(+0(+0(+0(+0(+0(+0(%di))))))))", "$", "@", "%"])
_TYPES = st.sampled_from(["", ":u8", ":s16", ":x32", ":u64", ":string", ":ustring", ":symbol", ":symstr",
                          ":b4@3/32", ":b40@30/32", ":u32[4]", ":string[2]", ":u8[65]", ":u8[", ":nosuch",
                          ":char"])
_ARGNAMES = st.sampled_from(["", "a=", "b=", "a=", "common_pid=", "__probe_ip=", "1x=", "=", "n" * 40 + "="])


@st.composite
def _command(draw):
    kind = draw(st.sampled_from(["p", "r", "r5", "p5", "r0", "r9999", "-", "x"]))
    head = kind
    if draw(st.booleans()):
        head += ":" + draw(_GROUPS) + draw(_NAMES)
    if kind == "-":
        return head + ("" if draw(st.booleans()) else " " + draw(_SYMBOLS))
    target = draw(_ADDRS) if draw(st.integers(0, 5)) == 0 else draw(_SYMBOLS) + draw(_OFFSETS)
    args = [draw(_ARGNAMES) + draw(_FETCH) + draw(_TYPES) for _ in range(draw(st.integers(0, 4)))]
    return " ".join([head, target, *args])


_TEXT = st.one_of(_command(), st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=255,
                                                               blacklist_characters="\n"), max_size=80))


def _lines(s: Setup) -> list[str]:
    return s.read("kprobe_events").decode("latin-1").splitlines()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands=st.lists(st.tuples(st.sampled_from(["kprobe_events", "dynamic_events"]), _TEXT,
                                   st.booleans()), max_size=12))
def test_rejected_change_nothing_and_accepted_can_be_removed(commands):
    s = Setup()
    for path, text, toggle in commands:
        before = s.state()
        err = s.errno_of(path, text.encode("latin-1") + b"\n")
        if err:
            assert s.state() == before, (text, errno.errorcode[err])
        if toggle and s.node("events/kprobes") is not None:
            # Enabled events refuse `>`; the refusal changes nothing either.
            s.write("events/kprobes/enable", b"1\n")
            before = s.state()
            assert s.errno_of("kprobe_events", b"", trunc=True) == errno.EBUSY
            assert s.state() == before
            s.write("events/kprobes/enable", b"0\n")
    # Every accepted probe goes again with its own removal command.
    for line in _lines(s):
        name = line.split(" ", 1)[0].split(":", 1)[1]
        target_and_args = line.split(" ", 1)[1]
        s.write("kprobe_events", f"-:{name} {target_and_args}\n".encode("latin-1"))
    assert _lines(s) == []
    assert s.engine.probes == []
    assert s.read("kprobe_profile") == b""
    assert not any(e.system not in ("ftrace",) and e.id >= s.system.registry._next_id
                   for e in s.system.registry.all_events())
    events = s.node("events")
    static = {e.system for e in s.system.registry.all_events()} | {"ftrace"}
    assert {n for n, c in events.children.items() if c.__class__.__name__ == "DirNode"} <= static
